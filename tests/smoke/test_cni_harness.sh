#!/bin/bash
# The podwire CNI plugin run as Multus runs it (CNI_* variables, config on
# stdin, runtimeConfig.CNIDeviceInfoFile, prevResult chaining) against a
# real podwired: result JSON per version, device-info files checked against
# the spec, then two testpmd pods started from podwire-vdev's output
# exchange frames (pod b with 2 memif queue pairs, "queues": 2, both
# carrying frames); CHECK, GC, DEL and VERSION/STATUS on the way.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"

daemon_start pw
# The pods see socketDir at another path (a hostPath volume mounted
# elsewhere); here a symlink makes that path real on the host.
ln -s "$T/pods" "$T/podview"
DEVINFO=$T/devinfo/cni # Multus' directory; the plugin must create it

# ---- VERSION and STATUS ------------------------------------------------------
echo '{"cniVersion":"1.0.0"}' >"$T/v.json"
cni VERSION "" "" "$T/v.json"
cni_ok "VERSION"
expect_eq "VERSION answers in the asked version" 1.0.0 "$(jq -r .cniVersion "$T/cni.out")"
expect_eq "supported versions" "0.3.0 0.3.1 0.4.0 1.0.0 1.1.0" \
	"$(jq -r '.supportedVersions | join(" ")' "$T/cni.out")"
cni_conf >"$T/base.json"
cni STATUS "" "" "$T/base.json"
cni_ok "STATUS with podwired up"

# ---- ADD pod A: vhost-user, podwired creates the socket, CNI 1.1.0 ------------
cni_conf '.socketGroup = "daemon" | .podSocketDir = "'"$T"'/podview"
	| .runtimeConfig = {CNIDeviceInfoFile: "'"$DEVINFO"'/poda-net1-device.json"}' >"$T/a.json"
cni ADD poda net1 "$T/a.json" "CNI_ARGS=IgnoreUnknown=true;MAC=02:00:00:77:00:0a"
cni_ok "ADD pod a (vhost-user)"
cp "$T/cni.out" "$T/a.result"
R=$T/a.result
expect_eq "result cniVersion" 1.1.0 "$(jq -r .cniVersion $R)"
expect_eq "interface name" net1 "$(jq -r '.interfaces[0].name' $R)"
expect_eq "interface mac (CNI_ARGS MAC=)" 02:00:00:77:00:0a "$(jq -r '.interfaces[0].mac' $R)"
expect_eq "interface sandbox" /var/run/netns/poda "$(jq -r '.interfaces[0].sandbox' $R)"
expect_eq "interface mtu" 1500 "$(jq -r '.interfaces[0].mtu' $R)"
SOCK_A=$(jq -r '.interfaces[0].socketPath' $R)
DIR_A=$(dirname "$SOCK_A")
case "$SOCK_A" in "$T/pods/"????????/vhost.sock) ok "socketPath $SOCK_A" ;;
*) fail "socketPath $SOCK_A is not $T/pods/<8 hex>/vhost.sock" ;; esac
[ -S "$SOCK_A" ] || fail "podwired did not create $SOCK_A"
expect_eq "ips[0].interface" 0 "$(jq -r '.ips[0].interface' $R)"
expect_eq "ips[0] has no version in 1.1.0" null "$(jq -r '.ips[0].version' $R)"
IP_A=$(jq -r '.ips[0].address' $R)
case "$IP_A" in 10.77.0.*/24) ok "IP from host-local: $IP_A" ;; *) fail "ips[0] is $IP_A" ;; esac
expect_eq "gateway" 10.77.0.1 "$(jq -r '.ips[0].gateway' $R)"
expect_eq "directory mode and group" "750 root daemon" "$(stat -c '%a %U %G' "$DIR_A")"
expect_eq "podwire.json mode and group" "640 root daemon" "$(stat -c '%a %U %G' "$DIR_A/podwire.json")"
devinfo_check "$DEVINFO/poda-net1-device.json"
expect_eq "device-info mode" client "$(jq -r '.["vhost-user"].mode' "$DEVINFO/poda-net1-device.json")"
expect_eq "device-info path is the pod's" "$T/podview/$(basename "$DIR_A")/vhost.sock" \
	"$(jq -r '.["vhost-user"].path' "$DEVINFO/poda-net1-device.json")"
PJ_A=$DIR_A/podwire.json
PORT_A=$(jq -r .port "$PJ_A")
expect_eq "podwire.json ips" "$IP_A" "$(jq -r '.ips[0]' "$PJ_A")"
expect_eq "podwire.json mac" 02:00:00:77:00:0a "$(jq -r .mac "$PJ_A")"
expect_eq "podwire.json hostSocket" "$SOCK_A" "$(jq -r .hostSocket "$PJ_A")"
expect_eq "podwired port: network, type, mode, mac" "cninet vhost-user server 02:00:00:77:00:0a" \
	"$(ctlj pw port show "$PORT_A" | jq -r '[.network, .type, .mode, .mac] | join(" ")')"
expect_eq "podwired port A's guards (the defaults)" "true 64 10000" \
	"$(ctlj pw port show "$PORT_A" | jq -r '[.port_security, .mac_limit, .flood_limit] | join(" ")')"
expect_eq "no \"queues\": one queue pair (port, podwire.json, device-info)" "1 1 null" \
	"$(ctlj pw port show "$PORT_A" | jq -r .queues) $(jq -r .queues "$PJ_A") $(jq -r '.["vhost-user"].queues' "$DEVINFO/poda-net1-device.json")"
[ ${#PORT_A} -le 63 ] || fail "port name $PORT_A is longer than 63"
expect_eq "network created on demand" cninet "$(ctlj pw network list | jq -r '.networks[].name')"

# ---- ADD pod B: memif, podwired creates the socket, CNI 0.4.0 -----------------
cni_conf '.cniVersion = "0.4.0" | .iftype = "memif" | .mtu = 9000
	| .portSecurity = false | .macLimit = 300 | .floodLimit = 0 | .queues = 2
	| .rateLimit = {ingress: {pps: 20000, burst: 300}, egress: {bps: 100000000}}
	| .runtimeConfig = {CNIDeviceInfoFile: "'"$DEVINFO"'/podb-net1-device.json",
	                    mac: "02:00:00:77:00:0b"}' >"$T/b.json"
cni ADD podb net1 "$T/b.json"
cni_ok "ADD pod b (memif)"
cp "$T/cni.out" "$T/b.result"
R=$T/b.result
expect_eq "0.4.0 result cniVersion" 0.4.0 "$(jq -r .cniVersion $R)"
expect_eq "0.4.0 ips carry version" 4 "$(jq -r '.ips[0].version' $R)"
expect_eq "0.4.0 interface has no socketPath/mtu" "null null" \
	"$(jq -r '.interfaces[0] | "\(.socketPath) \(.mtu)"' $R)"
expect_eq "mac from runtimeConfig" 02:00:00:77:00:0b "$(jq -r '.interfaces[0].mac' $R)"
devinfo_check "$DEVINFO/podb-net1-device.json"
expect_eq "memif role" slave "$(jq -r .memif.role "$DEVINFO/podb-net1-device.json")"
PATH_B=$(jq -r .memif.path "$DEVINFO/podb-net1-device.json")
[ -S "$PATH_B" ] || fail "memif socket $PATH_B is missing"
PORT_B=$(jq -r .port "$(dirname "$PATH_B")/podwire.json")
# A secret of its own: in the device-info file (for root and Multus only),
# in podwire.json, and in podwired's port (its state file keeps it).
SECRET_B=$(jq -r .memif.secret "$DEVINFO/podb-net1-device.json")
[[ "$SECRET_B" =~ ^[0-9a-f]{20}$ ]] || fail "pod b's memif secret: \"$SECRET_B\""
expect_eq "device-info file mode (it holds a secret)" 600 "$(stat -c %a "$DEVINFO/podb-net1-device.json")"
expect_eq "podwire.json secret" "$SECRET_B" "$(jq -r .secret "$(dirname "$PATH_B")/podwire.json")"
expect_eq "podwire.json deviceInfo secret" "$SECRET_B" \
	"$(jq -r .deviceInfo.memif.secret "$(dirname "$PATH_B")/podwire.json")"
expect_eq "podwired port's secret" "$SECRET_B" \
	"$(jq -r --arg p "$PORT_B" '.ports[] | select(.name == $p) | .secret' "$T/pw.state/state.json")"
expect_eq "memif port mtu" 9000 "$(ctlj pw port show "$PORT_B" | jq -r .mtu)"
expect_eq "memif port guards (portSecurity, macLimit, floodLimit)" "false 300 0" \
	"$(ctlj pw port show "$PORT_B" | jq -r '[.port_security, .mac_limit, .flood_limit] | join(" ")')"
# "rateLimit" reaches podwired's port (the egress burst its default: 100 ms).
expect_eq "memif port rate limits (rateLimit)" "20000 300 100000000 1250000" \
	"$(ctlj pw port show "$PORT_B" | jq -r '[.rate_in_pps, .rate_in_burst, .rate_out_bps, .rate_out_burst] | join(" ")')"
# "queues": 2 reaches podwired's port (its state keeps it; a memif port
# takes up to 8 rings, as many as the pod asks for), the device-info file
# and podwire.json.
expect_eq "memif port B's queues in podwired's state" 2 \
	"$(jq -r --arg p "$PORT_B" '.ports[] | select(.name == $p) | .queues' "$T/pw.state/state.json")"
expect_eq "device-info memif.queues" 2 "$(jq -r .memif.queues "$DEVINFO/podb-net1-device.json")"
expect_eq "podwire.json queues, deviceInfo.memif.queues" "2 2" \
	"$(jq -r '"\(.queues) \(.deviceInfo.memif.queues)"' "$(dirname "$PATH_B")/podwire.json")"
[ "$(ipam_held | wc -l)" = 2 ] || fail "host-local should hold 2 IPs: $(ipam_held)"

# ---- CHECK with prevResult ----------------------------------------------------
jq --slurpfile r "$T/a.result" '. + {prevResult: $r[0]}' "$T/a.json" >"$T/a-prev.json"
cni CHECK poda net1 "$T/a-prev.json"
cni_ok "CHECK pod a"
jq --slurpfile r "$T/b.result" '. + {prevResult: $r[0]}' "$T/b.json" >"$T/b-prev.json"
cni CHECK podb net1 "$T/b-prev.json"
cni_ok "CHECK pod b"

# ---- two testpmd pods from podwire-vdev's arguments ---------------------------
ARGS_A=$("$PODWIRE_VDEV" "$PJ_A")
log "podwire-vdev podwire.json: $ARGS_A"
case "$ARGS_A" in *" --single-file-segments") ;; *) fail "virtio-user args lack --single-file-segments" ;; esac
VDEV_A=${ARGS_A#--vdev=}
VDEV_A=${VDEV_A%% *}
expect_eq "vdev of pod a" "net_virtio_user0,path=$T/podview/$(basename "$DIR_A")/vhost.sock,mac=02:00:00:77:00:0a,server=0" "$VDEV_A"
# Pod b reads the network-status annotation Multus writes, through the
# downward API's annotations file.
jq -n --slurpfile d "$DEVINFO/podb-net1-device.json" --slurpfile r "$T/b.result" \
	'[{name: "default/cninet", interface: "net1", mac: (" " + $r[0].interfaces[0].mac),
	   ips: [$r[0].ips[0].address | sub("/.*"; "")], "device-info": $d[0]}]' >"$T/status.json"
printf 'kubernetes.io/config.seen="x"\nk8s.v1.cni.cncf.io/network-status=%s\n' \
	"$(jq -c . "$T/status.json" | jq -R .)" >"$T/annotations"
ARGS_B=$("$PODWIRE_VDEV" --interface net1 "$T/annotations")
log "podwire-vdev annotations: $ARGS_B"
VDEV_B=${ARGS_B#--vdev=}
expect_eq "vdev of pod b" "net_memif0,role=client,socket=$PATH_B,socket-abstract=no,mac=02:00:00:77:00:0b,secret=$SECRET_B" "$VDEV_B"
expect_eq "device-info file alone gives the same socket" \
	"--vdev=net_memif0,role=client,socket=$PATH_B,socket-abstract=no,secret=$SECRET_B" \
	"$("$PODWIRE_VDEV" "$DEVINFO/podb-net1-device.json")"
# net_memif has no queues= devarg: the pod's app asks for as many rings
# as it has rx and tx queues; podwire-vdev --queues says how many.
Q_B=$("$PODWIRE_VDEV" --queues --interface net1 "$T/annotations")
expect_eq "podwire-vdev --queues of pod b (annotations, device-info, podwire.json)" "2 2 2" \
	"$Q_B $("$PODWIRE_VDEV" --queues "$DEVINFO/podb-net1-device.json") $("$PODWIRE_VDEV" --queues "$(dirname "$PATH_B")/podwire.json")"
expect_eq "podwire-vdev --queues of pod a and b together: the fewest" 1 \
	"$("$PODWIRE_VDEV" --queues "$PJ_A" "$(dirname "$PATH_B")/podwire.json")"

pod_up pw "$PORT_A" a "$VDEV_A" --eth-peer=0,02:00:00:77:00:0b
pod_up pw "$PORT_B" b "$VDEV_B" --eth-peer=0,02:00:00:77:00:0a --rxq "$Q_B" --txq "$Q_B"
grep -q "peer .* connected as .*, 2 queue pair(s)" "$T/pw.log" ||
	fail "pod b did not connect with 2 queue pairs: $(grep "$PORT_B" "$T/pw.log" | tail -n 3)"
expect_eq "podwired polls both of pod b's rx queues" "0:true 1:true" \
	"$(rpc pw queue.list "{\"port\":\"$PORT_B\"}" | jq -r '[.result.queues[] | select(.queue < 2) | "\(.queue):\(.enabled)"] | join(" ")')"
# testpmd sends one burst on each of its 2 tx queues (a stream per queue).
pod_send b 1
wait_for 10 "a to receive b's 64 frames" pod_rx_ge a 64
pod_send a 8
wait_for 10 "b to receive 256 frames" pod_rx_ge b 256
expect_eq "pod a rx" 64 "$(pod_rx a)"
expect_eq "pod b rx" 256 "$(pod_rx b)"
expect_eq "podwired $PORT_A rx" 256 "$(port_stat pw "$PORT_A" .rx_packets)"
expect_eq "podwired $PORT_B rx" 64 "$(port_stat pw "$PORT_B" .rx_packets)"
expect_eq "podwired $PORT_B rx per queue (32 on each ring)" "0:32 1:32" \
	"$(rpc pw queue.list "{\"port\":\"$PORT_B\"}" | jq -r '[.result.queues[] | select(.queue < 2) | "\(.queue):\(.rx_packets_total)"] | join(" ")')"
pod_stop a
pod_stop b
# Without the secret, or with another, a peer is refused; with it, taken.
HOSTILE=$BUILD/memif-hostile
out=$("$HOSTILE" --wait 500 "$PATH_B" good) && fail "a peer without pod b's secret connected: $out"
wait_for 5 "podwired to say why (no secret)" grep -q "peer sent no secret; the port has one" "$T/pw.log"
out=$("$HOSTILE" --wait 500 --secret 0123456789abcdef0123 "$PATH_B" good) &&
	fail "a peer with another secret connected: $out"
wait_for 5 "podwired to say why (wrong secret)" grep -q "peer sent the wrong secret" "$T/pw.log"
listening() { [ "$(ctlj pw port show "$PORT_B" | jq -r .memif.state)" = listening ]; }
wait_for 10 "the back-off of $PORT_B to end" listening
out=$("$HOSTILE" --wait 700 --secret "$SECRET_B" "$PATH_B" good) || fail "pod b's secret refused: $out"
ok "pod b's port takes only its secret"

# ---- pod e: memif master (the pod serves the socket) with 2 queue pairs ------------
# podwired, the memif client, makes as many ring pairs as "queues" says.
cni_conf '.iftype = "memif" | .mode = "master" | .queues = 2 | .ipam.subnet = "10.77.0.0/24"' >"$T/e.json"
cni ADD pode net1 "$T/e.json"
cni_ok "ADD pod e (memif master, 2 queue pairs)"
DIR_E=$(dirname "$(grep -l '"containerID":.*"pode"' "$T"/pods/*/podwire.json)")
PORT_E=$(jq -r .port "$DIR_E/podwire.json")
VDEV_E=$("$PODWIRE_VDEV" --vdev-only "$DIR_E/podwire.json")
Q_E=$("$PODWIRE_VDEV" --queues "$DIR_E/podwire.json")
case "$VDEV_E" in net_memif0,role=server,socket=*) ;; *) fail "pod e's vdev: $VDEV_E" ;; esac
pod_up pw "$PORT_E" e "$VDEV_E" --rxq "$Q_E" --txq "$Q_E" --eth-peer=0,02:00:00:77:00:0a
grep -q "port \"$PORT_E\": peer .* connected as server, 2 queue pair(s)" "$T/pw.log" ||
	fail "podwired did not make 2 queue pairs for pod e: $(grep "$PORT_E" "$T/pw.log" | tail -n 3)"
pod_send e 1
wait_for 10 "podwired to count pod e's 64 frames" port_stat_ge pw "$PORT_E" .rx_packets 64
expect_eq "podwired $PORT_E rx per queue (32 on each ring)" "0:32 1:32" \
	"$(rpc pw queue.list "{\"port\":\"$PORT_E\"}" | jq -r '[.result.queues[] | select(.queue < 2) | "\(.queue):\(.rx_packets_total)"] | join(" ")')"
pod_stop e
cni DEL pode net1 "$T/e.json"
cni_ok "DEL pod e"

# ---- pod C: chained after another plugin, pod creates its socket, VLAN --------
jq -n '{cniVersion: "1.0.0", interfaces: [{name: "eth0", sandbox: "/var/run/netns/podc"}],
	ips: [{address: "192.168.50.2/24", interface: 0}], dns: {domain: "example.org"}}' >"$T/c.prev"
cni_conf '.cniVersion = "1.0.0" | .network = "vlan42" | .vlan = 42 | .mode = "server"
	| .ipam.subnet = "10.78.0.0/24" | .queues = 2' |
	jq --slurpfile p "$T/c.prev" '. + {prevResult: $p[0]}' >"$T/c.json"
cni ADD podc net2 "$T/c.json"
cni_ok "ADD pod c chained after eth0"
R=$T/cni.out
expect_eq "chained interfaces" "eth0 net2" "$(jq -r '[.interfaces[].name] | join(" ")' $R)"
expect_eq "chained ips keep theirs, ours point at net2" "192.168.50.2/24:0 10.78.0.2/24:1" \
	"$(jq -r '[.ips[] | "\(.address):\(.interface)"] | join(" ")' $R)"
expect_eq "prevResult's dns kept" example.org "$(jq -r .dns.domain $R)"
DIR_C=$(dirname "$(grep -l '"containerID":.*"podc"' "$T"/pods/*/podwire.json)")
PORT_C=$(jq -r .port "$DIR_C/podwire.json")
expect_eq "pod creates its socket: podwired connects" client "$(ctlj pw port show "$PORT_C" | jq -r .mode)"
expect_eq "its directory is group-writable" 770 "$(stat -c %a "$DIR_C")"
expect_eq "vdev server=1" "server=1" "$("$PODWIRE_VDEV" --vdev-only "$DIR_C/podwire.json" | grep -o 'server=1')"
# "queues": 2 on vhost-user: the port offers 2 queue pairs, virtio-user is
# told queues=2.
expect_eq "vhost-user port C's queues" 2 "$(ctlj pw port show "$PORT_C" | jq -r .queues)"
expect_eq "pod c's podwire.json queues, deviceInfo queues" "2 2" \
	"$(jq -r '"\(.queues) \(.deviceInfo["vhost-user"].queues)"' "$DIR_C/podwire.json")"
expect_eq "pod c's vdev" "net_virtio_user0,path=$T/pods/$(basename "$DIR_C")/vhost.sock,server=1,queues=2" \
	"$("$PODWIRE_VDEV" --vdev-only "$DIR_C/podwire.json" | sed 's/,mac=[^,]*//')"
jq --slurpfile r "$R" '. + {prevResult: $r[0]}' "$T/c.json" >"$T/c-prev.json"
cni CHECK podc net2 "$T/c-prev.json"
cni_ok "CHECK pod c (2 queue pairs)"
expect_eq "network vlan42 created with VLAN 42" 42 \
	"$(ctlj pw network list | jq -r '.networks[] | select(.name == "vlan42") | .vlan')"
cni_conf '.network = "vlan42" | .vlan = 43' >"$T/c43.json"
cni ADD podd net1 "$T/c43.json"
cni_err "ADD with another VLAN than the network's" 7 '"vlan" is 43 but podwired network "vlan42" already exists with VLAN 42'

# ---- GC keeps a and b, removes c -----------------------------------------------
cni_conf '. + {"cni.dev/valid-attachments": [{containerID: "poda", ifname: "net1"},
	{containerID: "podb", ifname: "net1"}]}' >"$T/gc.json"
cni GC "" "" "$T/gc.json"
cni_ok "GC"
ctl pw port show "$PORT_C" >/dev/null 2>&1 && fail "GC left port $PORT_C"
[ ! -e "$DIR_C" ] || fail "GC left $DIR_C"
ctl pw port show "$PORT_A" >/dev/null || fail "GC removed a valid attachment's port"
# host-local keeps every subnet of network "cninet" in one directory.
[ "$(ipam_held | wc -l)" = 2 ] || fail "after GC host-local should hold 2 IPs: $(ipam_held)"
ok "GC removed pod c only"

# ---- DEL (with prevResult, as libcni does), twice ------------------------------
cni DEL poda net1 "$T/a-prev.json"
cni_ok "DEL pod a"
[ ! -e "$DEVINFO/poda-net1-device.json" ] || fail "DEL left the device-info file"
cni DEL podb net1 "$T/b-prev.json"
cni_ok "DEL pod b"
cni DEL podb net1 "$T/b-prev.json"
cni_ok "DEL pod b again (idempotent)"
expect_clean "after DEL"
ctl pw info >/dev/null || fail "podwired stopped serving"
