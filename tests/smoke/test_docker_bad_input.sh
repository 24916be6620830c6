#!/bin/bash
# Every protocol call of the Docker driver with bad input, as a confused or
# hostile client would send it on the plugin socket: not JSON, not an
# object, missing fields, wrong types, ids that are not ids, unknown
# networks and endpoints, bad options, oversized bodies, other methods and
# paths (podwire.queues and podwire.offloads among the options). Each gets
# a clear {"Err"} naming the field or object (400, 404, 405 or 500),
# changes nothing (the driver's state file and podwired's ports and
# networks are byte for byte the same), and the driver goes on serving.
# Then podwire.offloads=off across driver restarts.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/docker_lib.sh"

daemon_start pw
mkdir -p "$DK_SOCKDIR"
driver_start

id64() { printf "%064d" 0 | tr 0 "$1"; }
NID=$(id64 a)
EID=$(id64 b)
OTHER=$(id64 c)
call_ok() { # CALL BODY
	local out
	out=$(plugin_call "$1" "$2")
	[ "$(tail -n1 <<<"$out")" = 200 ] || fail "$1: expected 200: $out" >&2
	head -n1 <<<"$out"
}
call_ok NetworkDriver.CreateNetwork "{\"NetworkID\":\"$NID\",\"IPv4Data\":[{\"Pool\":\"10.95.0.0/24\",\"Gateway\":\"10.95.0.1/24\"}],\"Options\":{}}" >/dev/null
call_ok NetworkDriver.CreateEndpoint "{\"NetworkID\":\"$NID\",\"EndpointID\":\"$EID\",\"Interface\":{\"Address\":\"10.95.0.2/24\"}}" >/dev/null

snapshot() {
	{
		cat "$T/dk-state/state.json"
		ctlj pw port list | jq -S 'del(.ports[].link)'
		ctlj pw network list | jq -S .
		ip -o link show | grep -oE '(pwd|pwc|pwp|pwq)[0-9a-f]{8,12}' | sort
		find "$DK_SOCKDIR" | sort
	} >"$T/snap.$1"
}
snapshot before
n=0
# bad STATUS NEEDLE CALL BODY: refused with STATUS, {"Err"} containing
# NEEDLE, nothing changed.
bad() {
	local status=$1 needle=$2 out body code err
	out=$(plugin_call "$3" "$4")
	code=$(tail -n1 <<<"$out")
	body=$(sed '$d' <<<"$out")
	err=$(jq -r .Err <<<"$body" 2>/dev/null) || fail "$3 ${4:0:60}: answer is not JSON: $body"
	[ "$code" = "$status" ] || fail "$3 ${4:0:60}: expected HTTP $status, got $code: $body"
	case "$err" in *"$needle"*) ;; *) fail "$3 ${4:0:60}: Err lacks \"$needle\": $err" ;; esac
	n=$((n + 1))
	echo "ok: $3 ${4:0:50} -> $code $err"
}

N="\"NetworkID\":\"$NID\"" E="\"EndpointID\":\"$EID\""
for call in CreateNetwork DeleteNetwork CreateEndpoint DeleteEndpoint EndpointOperInfo Join Leave \
	ProgramExternalConnectivity RevokeExternalConnectivity AllocateNetwork FreeNetwork \
	DiscoverNew DiscoverDelete; do
	bad 400 "is not JSON" "NetworkDriver.$call" '{"NetworkID": '
	bad 400 "must be a JSON object" "NetworkDriver.$call" '[1,2]'
	bad 400 "has no body" "NetworkDriver.$call" ''
done
for call in CreateNetwork DeleteNetwork CreateEndpoint DeleteEndpoint EndpointOperInfo Join Leave \
	ProgramExternalConnectivity RevokeExternalConnectivity AllocateNetwork FreeNetwork; do
	bad 400 "NetworkID is missing" "NetworkDriver.$call" '{}'
	bad 400 "NetworkID must be a string" "NetworkDriver.$call" '{"NetworkID": 7}'
	bad 400 "NetworkID \"../../etc\" is not an id" "NetworkDriver.$call" '{"NetworkID": "../../etc"}'
	bad 400 "NetworkID must be a string of at most 64" "NetworkDriver.$call" "{\"NetworkID\": \"$NID$NID\"}"
done
for call in DeleteNetwork CreateEndpoint DeleteEndpoint EndpointOperInfo Join Leave \
	ProgramExternalConnectivity RevokeExternalConnectivity; do
	bad 500 "network dddddddddddd is not a podwire network" "NetworkDriver.$call" \
		"{\"NetworkID\":\"$(id64 d)\",$E,\"SandboxKey\":\"/x\"}"
done
for call in DeleteEndpoint EndpointOperInfo Join Leave ProgramExternalConnectivity \
	RevokeExternalConnectivity; do
	bad 400 "EndpointID is missing" "NetworkDriver.$call" "{$N}"
	bad 400 "EndpointID \"zz\" is not an id" "NetworkDriver.$call" "{$N,\"EndpointID\":\"zz\"}"
	bad 500 "endpoint eeeeeeeeeeee does not exist on network aaaaaaaaaaaa" "NetworkDriver.$call" \
		"{$N,\"EndpointID\":\"$(id64 e)\",\"SandboxKey\":\"/x\"}"
done
# CreateNetwork: options, address data, an id taken.
G='"Options":{"com.docker.network.generic":'
bad 500 "unknown option podwire.nope" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.nope\":\"1\"}}}"
bad 500 'option podwire.vlan: "0x10"' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.vlan\":\"0x10\"}}}"
bad 500 'option podwire.vlan: "-1"' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.vlan\":\"-1\"}}}"
bad 400 "option podwire.vlan must be a string" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.vlan\":100}}}"
bad 500 "option podwire.network: network name" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.network\":\"a b\"}}}"
bad 500 "option com.docker.network.driver.mtu: \"99999\"" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"com.docker.network.driver.mtu\":\"99999\"}}}"
bad 500 'option podwire.queues: "0" is not a number of queue pairs; give 1-16' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.iftype\":\"memif\",\"podwire.queues\":\"0\"}}}"
bad 500 'option podwire.queues: "17" is not a number' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.iftype\":\"vhost-user\",\"podwire.queues\":\"17\"}}}"
bad 500 'option podwire.queues: "2x" is not a number' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.iftype\":\"memif\",\"podwire.queues\":\"2x\"}}}"
bad 400 "option podwire.queues must be a string" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.queues\":2}}}"
bad 500 "option podwire.queues applies to DPDK containers (podwire.iftype vhost-user or memif)" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.queues\":\"2\"}}}"
bad 500 'option podwire.offloads: "maybe" is neither on nor off' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.iftype\":\"vhost-user\",\"podwire.offloads\":\"maybe\"}}}"
bad 500 'option podwire.offloads: "true" is neither on nor off' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.iftype\":\"vhost-user\",\"podwire.offloads\":\"true\"}}}"
bad 400 "option podwire.offloads must be a string" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.iftype\":\"vhost-user\",\"podwire.offloads\":false}}}"
bad 500 "option podwire.offloads applies to vhost-user networks (podwire.iftype vhost-user), whose ports negotiate offloads with the container; this network's iftype is kernel" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.offloads\":\"off\"}}}"
bad 500 "option podwire.offloads applies to vhost-user networks (podwire.iftype vhost-user), whose ports negotiate offloads with the container; this network's iftype is memif" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.offloads\":\"on\",\"podwire.iftype\":\"memif\"}}}"
bad 500 'option podwire.rate: rate "pps=10k,size=5": unknown key "size"' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.rate\":\"pps=10k,size=5\"}}}"
bad 500 'option podwire.rate.ingress: "pps=5,bps=5" gives both pps and bps' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.rate.ingress\":\"pps=5,bps=5\"}}}"
bad 500 'option podwire.rate.egress: "burst=5" gives no rate' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.rate.egress\":\"burst=5\"}}}"
bad 500 'option podwire.rate: "pps=2g": pps is 2000000000, it must be 0-1000000000 (frames/s)' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.rate\":\"pps=2g\"}}}"
bad 500 'option podwire.rate: rate "pps=-5": pps is -5; give 0 or more' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.rate\":\"pps=-5\"}}}"
bad 400 "Options.com.docker.network.generic must be an object" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G\"x\"}}"
bad 400 "Options must be an object" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",\"Options\":[]}"
bad 400 "IPv4Data must be an array" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",\"IPv4Data\":{}}"
bad 400 "IPv4Data[0].Gateway must be an address" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",\"IPv4Data\":[{\"Gateway\":5}]}"
bad 500 "network aaaaaaaaaaaa exists already" NetworkDriver.CreateNetwork "{$N}"
# The podwired network named by podwire.network exists with another VLAN.
ctl pw network add taken --vlan 5 >/dev/null
snapshot before
bad 500 "podwired network \"taken\" exists with VLAN 5, not 6" NetworkDriver.CreateNetwork \
	"{\"NetworkID\":\"$OTHER\",$G{\"podwire.network\":\"taken\",\"podwire.vlan\":\"6\"}}}"
bad 500 "podwired network \"taken\" exists in mode bridge, not xconnect" NetworkDriver.CreateNetwork \
	"{\"NetworkID\":\"$OTHER\",$G{\"podwire.network\":\"taken\",\"podwire.mode\":\"xconnect\"}}}"
# podwire.acl: a bad name, a list that does not exist (the podwired network
# the driver made for it goes again: the snapshot says so).
bad 500 "option podwire.acl: list name" NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.acl\":\"a b\"}}}"
bad 500 'option podwire.acl.ingress=nolist: podwired refused to attach list "nolist": list "nolist" does not exist; make it first with `podwirectl acl set nolist' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.acl\":\"nolist\"}}}"
bad 500 'option podwire.acl.egress=nolist: podwired refused' NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OTHER\",$G{\"podwire.acl.egress\":\"nolist\"}}}"
# CreateEndpoint: interface fields, an id taken.
bad 400 "Interface.MacAddress" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Interface\":{\"MacAddress\":\"ff:ff:ff:ff:ff:ff\"}}"
bad 400 "Interface.MacAddress" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Interface\":{\"MacAddress\":\"nonsense\"}}"
bad 400 "Interface.Address must be a string" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Interface\":{\"Address\":[]}}"
bad 400 "Interface must be an object" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Interface\":\"eth0\"}"
bad 400 "Options must be an object" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":1}"
bad 500 "endpoint bbbbbbbbbbbb exists already" NetworkDriver.CreateEndpoint "{$N,$E}"
# CreateEndpoint: driver options (docker run --network name=NET,driver-opt=K=V).
bad 500 'endpoint option podwire.queues: "0" is not a number of queue pairs; give 1-16' NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.queues\":\"0\"}}"
bad 500 'endpoint option podwire.queues: "99" is not a number' NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.queues\":\"99\"}}"
bad 400 "endpoint option podwire.queues must be a string" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.queues\":2}}"
bad 500 "endpoint option podwire.queues applies to DPDK containers, and network aaaaaaaaaaaa gives kernel interfaces" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.queues\":\"2\"}}"
bad 500 'endpoint option podwire.rate: rate "fast": "fast" is not KEY=VALUE' NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.rate\":\"fast\"}}"
bad 500 'endpoint option podwire.acl.egress=nolist: podwired refused to attach list "nolist": list "nolist" does not exist' NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.acl.egress\":\"nolist\"}}"
bad 500 "endpoint option podwire.acl: list name" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.acl\":\"../x\"}}"
bad 500 "unknown endpoint option podwire.nope; podwire takes podwire.queues" NetworkDriver.CreateEndpoint "{$N,\"EndpointID\":\"$OTHER\",\"Options\":{\"podwire.nope\":\"1\"}}"
# Join: the sandbox key.
bad 400 "SandboxKey is missing" NetworkDriver.Join "{$N,$E}"
bad 400 "SandboxKey \"relative\" must be an absolute path" NetworkDriver.Join "{$N,$E,\"SandboxKey\":\"relative\"}"
bad 400 "SandboxKey must be a string" NetworkDriver.Join "{$N,$E,\"SandboxKey\":{}}"
bad 400 "Options must be an object" NetworkDriver.Join "{$N,$E,\"SandboxKey\":\"/x\",\"Options\":\"o\"}"
# DeleteNetwork with an endpoint still on it.
bad 500 "still has 1 endpoints; remove its containers first" NetworkDriver.DeleteNetwork "{$N}"
# Discovery, paths, methods, sizes.
bad 400 "DiscoveryType must be a number" NetworkDriver.DiscoverNew '{"DiscoveryType":"1"}'
bad 404 "does not implement /NetworkDriver.Bogus" NetworkDriver.Bogus '{}'
bad 404 "does not implement /" "" '{}'
{ printf '{%s,%s,"x":"' "$N" "$E"; head -c 1100000 /dev/zero | tr '\0' ' '; printf '"}'; } >"$T/big.json"
bad 400 "larger than 1048576 bytes" NetworkDriver.Join "@$T/big.json"
out=$(curl -sS --unix-socket "$PLUGIN_SOCK" -X GET -w '\n%{http_code}' http://localhost/NetworkDriver.Join)
[ "$(tail -n1 <<<"$out")" = 405 ] || fail "GET: expected 405: $out"
ok "GET is refused with 405: $(head -n1 <<<"$out")"
# Deeply nested JSON (cJSON refuses past its nesting limit).
deep=$(printf '[%.0s' $(seq 5000))
bad 400 "is not JSON" NetworkDriver.Join "{$N,$E,\"x\":$deep}"

snapshot after
diff "$T/snap.before" "$T/snap.after" || fail "bad requests changed the driver's state or podwired's"
ok "$n bad requests refused; state, ports, networks, interfaces and files unchanged"

# Still serving: the endpoint's whole life works.
call_ok NetworkDriver.EndpointOperInfo "{$N,$E}" >/dev/null
call_ok NetworkDriver.Join "{$N,$E,\"SandboxKey\":\"/proc/1/ns/net\"}" | grep -q '"SrcName":"pwc' ||
	fail "Join does not name the veth"
call_ok NetworkDriver.Leave "{$N,$E}" >/dev/null
call_ok NetworkDriver.DeleteEndpoint "{$N,$E}" >/dev/null
call_ok NetworkDriver.DeleteNetwork "{$N}" >/dev/null
kill -0 "$DRIVER_PID" || fail "the driver died"
ctl pw network del taken >/dev/null
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
ok "the driver still serves every call"

# ---- podwire.offloads=off is kept across driver restarts ----------------------
# A vhost-user network with offloads off: its endpoints' ports say
# "offloads": false, before and after the driver restarts (the setting is
# in its state file); a record from before the option (no "offloads") reads
# as on.
OFF=$(id64 f)
ep_offloads() { # ENDPOINT-ID: the "offloads" of its podwired port (null: on)
	call_ok NetworkDriver.CreateEndpoint "{\"NetworkID\":\"$OFF\",\"EndpointID\":\"$1\"}" >/dev/null
	ctlj pw port show "docker-${1:0:12}" | jq -c .offloads
	call_ok NetworkDriver.DeleteEndpoint "{\"NetworkID\":\"$OFF\",\"EndpointID\":\"$1\"}" >/dev/null
}
call_ok NetworkDriver.CreateNetwork "{\"NetworkID\":\"$OFF\",$G{\"podwire.iftype\":\"vhost-user\",\"podwire.offloads\":\"off\"}}}" >/dev/null
expect_eq "offloads in the driver's record" false \
	"$(jq -c --arg id "$OFF" '.networks[] | select(.id == $id) | .offloads' "$T/dk-state/state.json")"
expect_eq "port of an endpoint on a podwire.offloads=off network" false "$(ep_offloads "$(id64 1)")"
driver_kill
driver_start
expect_eq "the same after a driver restart" false "$(ep_offloads "$(id64 2)")"
driver_kill
jq 'del(.networks[].offloads)' "$T/dk-state/state.json" >"$T/old-state.json"
cp "$T/old-state.json" "$T/dk-state/state.json"
driver_start
expect_eq "after a restart on a record without \"offloads\" (on: no field)" null "$(ep_offloads "$(id64 3)")"
call_ok NetworkDriver.DeleteNetwork "{\"NetworkID\":\"$OFF\"}" >/dev/null
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
ok "podwire.offloads=off kept across driver restarts; records without it read as on"

# ---- podwire.rate: the network's limits on every endpoint's port, an -----------
# endpoint's own instead, kept across driver restarts.
RATE=$(id64 e)
ep_rates() { # ENDPOINT-ID [OPTIONS-JSON]: its port's limits
	call_ok NetworkDriver.CreateEndpoint "{\"NetworkID\":\"$RATE\",\"EndpointID\":\"$1\",\"Options\":${2:-{\}}}" >/dev/null
	ctlj pw port show "docker-${1:0:12}" |
		jq -r '[.rate_in_pps, .rate_in_burst, .rate_out_pps, .rate_out_bps, .rate_out_burst] | map(tostring) | join(" ")'
	call_ok NetworkDriver.DeleteEndpoint "{\"NetworkID\":\"$RATE\",\"EndpointID\":\"$1\"}" >/dev/null
}
call_ok NetworkDriver.CreateNetwork "{\"NetworkID\":\"$RATE\",$G{\"podwire.rate\":\"pps=10k,burst=100\"}}}" >/dev/null
expect_eq "port of an endpoint on a podwire.rate=pps=10k,burst=100 network" "10000 100 10000 null 100" "$(ep_rates "$(id64 4)")"
expect_eq "and one with podwire.rate.egress=bps=100m of its own" "10000 100 null 100000000 1250000" \
	"$(ep_rates "$(id64 5)" '{"podwire.rate.egress":"bps=100m"}')"
driver_kill
driver_start
expect_eq "the network's limits after a driver restart" "10000 100 10000 null 100" "$(ep_rates "$(id64 6)")"
call_ok NetworkDriver.DeleteNetwork "{\"NetworkID\":\"$RATE\"}" >/dev/null
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
ok "podwire.rate on networks and endpoints"

# ---- podwire.acl: an operator's list on the network, one on an endpoint's ------
# port; the network's detached at delete, also by a restarted driver.
ACLN=$(id64 9)
ctl pw acl set dkacl --default permit --rule '{"action":"deny","proto":"icmp"}' >/dev/null
acl_where() { ctlj pw acl list | jq -r '[.lists[] | select(.name == "dkacl") | .attachments[] | "\(.port // .network) \(.direction)"] | sort | join(",")'; }
call_ok NetworkDriver.CreateNetwork "{\"NetworkID\":\"$ACLN\",$G{\"podwire.acl.egress\":\"dkacl\"}}}" >/dev/null
expect_eq "podwire.acl.egress=dkacl on the podwired network" "docker-${ACLN:0:12} egress" "$(acl_where)"
call_ok NetworkDriver.CreateEndpoint "{\"NetworkID\":\"$ACLN\",\"EndpointID\":\"$(id64 8)\",\"Options\":{\"podwire.acl\":\"dkacl\"}}" >/dev/null
expect_eq "and podwire.acl=dkacl on an endpoint's port (ingress)" \
	"docker-888888888888 ingress,docker-${ACLN:0:12} egress" "$(acl_where)"
call_ok NetworkDriver.DeleteEndpoint "{\"NetworkID\":\"$ACLN\",\"EndpointID\":\"$(id64 8)\"}" >/dev/null
expect_eq "the endpoint's attachment goes with it" "docker-${ACLN:0:12} egress" "$(acl_where)"
driver_kill
driver_start
call_ok NetworkDriver.DeleteNetwork "{\"NetworkID\":\"$ACLN\"}" >/dev/null
expect_eq "a restarted driver detaches the network's list at delete" "" "$(acl_where)"
ctl pw acl del dkacl >/dev/null || fail "list dkacl is still attached somewhere: $(ctl pw acl list)"
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
ok "podwire.acl on networks and endpoints"
