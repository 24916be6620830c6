#!/bin/bash
# DPDK containers on podwire networks, with a real dockerd: testpmd in
# containers of the podwire/dpdk image finds its own socket with
# `podwire-vdev --docker` (vhost-user and memif), answers pings (icmpecho)
# from a busybox container through podwired, and a testpmd pod attached by
# the CNI plugin to the same podwired network answers too. Two vhost-user
# DPDK containers each get their own socket. podwire.queues: the
# memif network's (2) and one vhost-user container's endpoint option (2)
# reach podwired's ports, podwire.json and the vdev; the containers start
# with as many rx/tx queues as podwire-vdev --queues says. podwire.offloads:
# d2's network says off, and its port offers no offload; d1's says nothing
# (on).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cni_lib.sh"
source "$(dirname "$0")/docker_lib.sh"

docker_setup net dpdk

# Four Docker networks on one podwired network "shared": kernel, vhost-user
# (twice: onet with offloads off), memif.
dk network create -d podwire --subnet 10.83.0.0/24 -o podwire.network=shared knet >/dev/null
dk network create -d podwire --subnet 10.84.0.0/24 -o podwire.network=shared \
	-o podwire.iftype=vhost-user dnet >/dev/null
dk network create -d podwire --subnet 10.87.0.0/24 -o podwire.network=shared \
	-o podwire.iftype=vhost-user -o podwire.offloads=off onet >/dev/null
dk network create -d podwire --subnet 10.85.0.0/24 -o podwire.network=shared \
	-o podwire.iftype=memif -o podwire.queues=2 mnet >/dev/null

# dpdk_run NAME NETWORK: testpmd answering pings on the container's own
# interface, its EAL arguments and queue count from podwire-vdev --docker.
# (testpmd without -i exits when stdin closes: feed it a sleep.) NETWORK
# is docker run's --network value, driver options and all.
dpdk_run() {
	dk run -d --name "$1" --network "$2" -v "$DK_SOCKDIR:$DK_CONTAINER_SOCKDIR" \
		-v /dev/hugepages:/dev/hugepages --cap-add SYS_NICE --cap-add IPC_LOCK podwire/dpdk sh -c \
		"ARGS=\$(podwire-vdev --docker) && Q=\$(podwire-vdev --docker --queues) || exit 1
		 echo \"vdev: \$ARGS\"; echo \"queues: \$Q\"
		 sleep 100000 | exec dpdk-testpmd \$ARGS --lcores 0@$POD_CPU,1@$POD_CPU --main-lcore 0 \
		   --no-pci --in-memory --file-prefix $1-$$ --log-level '*:notice' -- \
		   --forward-mode=icmpecho --total-num-mbufs=2048 --nb-cores=1 --rxq \$Q --txq \$Q" >/dev/null
}
dpdk_run d1 dnet
dpdk_run d2 name=onet,driver-opt=podwire.queues=2
dpdk_run m1 mnet
for c in d1:dnet d2:onet m1:mnet; do
	wait_link pw "$(ct_port "${c%%:*}" "${c#*:}")" up 60
done
ok "three DPDK containers connected (vhost-user twice, memif)"

# Each picked its own socket: its endpoint's directory, its MAC.
for c in d1:dnet d2:onet m1:mnet; do
	name=${c%%:*} net=${c#*:}
	ep=$(dk inspect -f "{{(index .NetworkSettings.Networks \"$net\").EndpointID}}" "$name" | cut -c1-12)
	vdev=$(dk logs "$name" 2>&1 | grep '^vdev: ' | head -n1 || true)
	case "$vdev" in
	*"$DK_CONTAINER_SOCKDIR/$ep/"*"mac=$(ct_mac "$name" "$net")"*) ok "$name: $vdev" ;;
	*) fail "$name did not pick its own socket ($ep): $vdev" ;;
	esac
done
[ "$(dk exec d1 podwire-vdev --docker)" != "$(dk exec d2 podwire-vdev --docker)" ] ||
	fail "d1 and d2 got the same EAL arguments"
# podwire.queues: d2's endpoint option, mnet's network option; d1 has the
# default, one queue pair.
qinfo() { # NAME NETWORK: "port's queues, podwire.json queues, deviceInfo queues, container's queues"
	local ep pj
	ep=$(dk inspect -f "{{(index .NetworkSettings.Networks \"$2\").EndpointID}}" "$1" | cut -c1-12)
	pj=$DK_SOCKDIR/$ep/podwire.json
	echo "$(jq -r --arg p "docker-$ep" '.ports[] | select(.name == $p) | .queues // 1' "$T/pw.state/state.json")" \
		"$(jq -r .queues "$pj")" "$(jq -r '.deviceInfo[.deviceInfo.type].queues // 1' "$pj")" \
		"$(dk logs "$1" 2>&1 | sed -n 's/^queues: //p' | head -n1)"
}
expect_eq "d1's queues (port, podwire.json, deviceInfo, testpmd's)" "1 1 1 1" "$(qinfo d1 dnet)"
expect_eq "d2's queues (endpoint option podwire.queues=2)" "2 2 2 2" "$(qinfo d2 onet)"
expect_eq "m1's queues (network option podwire.queues=2)" "2 2 2 2" "$(qinfo m1 mnet)"
expect_eq "d2's port offers 2 queue pairs" 2 "$(ctlj pw port show "$(ct_port d2 onet)" | jq -r .queues)"
dk logs d2 2>&1 | grep '^vdev: ' | grep -q ',queues=2 ' || fail "d2's vdev lacks queues=2"
! dk logs d1 2>&1 | grep '^vdev: ' | grep -q 'queues=' || fail "d1's vdev has queues="
grep -q "port \"$(ct_port m1 mnet)\": peer .* connected as .*, 2 queue pair(s)" "$T/pw.log" ||
	fail "m1 did not connect with 2 queue pairs: $(grep "$(ct_port m1 mnet)" "$T/pw.log" | tail -n 3)"
ok "podwire.queues reached d2's and m1's ports, podwire.json and testpmd; m1 has 2 memif queue pairs"
# podwire.offloads=off reached d2's port (port.create "offloads": false);
# d1's network gave no option: its port has the default, on (no field).
expect_eq "d2's port offloads (onet: podwire.offloads=off)" false \
	"$(ctlj pw port show "$(ct_port d2 onet)" | jq .offloads)"
expect_eq "d1's port offloads (dnet: default, on)" null \
	"$(ctlj pw port show "$(ct_port d1 dnet)" | jq .offloads)"
ok "podwire.offloads=off reached d2's port; d1's has offloads on"
# memif: the endpoint's own secret, in its podwire.json and podwired's
# port; net_memif was given it (m1 is connected: podwired took it).
ep=$(dk inspect -f '{{(index .NetworkSettings.Networks "mnet").EndpointID}}' m1 | cut -c1-12)
secret=$(jq -r .secret "$DK_SOCKDIR/$ep/podwire.json")
[[ "$secret" =~ ^[0-9a-f]{20}$ ]] || fail "m1's memif secret: \"$secret\""
expect_eq "m1's port secret in podwired's state" "$secret" \
	"$(jq -r --arg p "docker-$ep" '.ports[] | select(.name == $p) | .secret' "$T/pw.state/state.json")"
dk logs m1 2>&1 | grep '^vdev: ' | grep -q ",secret=$secret" || fail "m1's vdev lacks its secret"
ok "m1 has a memif secret of its own, and presented it"

# A testpmd pod attached by the CNI plugin to the same podwired network.
cni_conf '.network = "shared" | .ipam.subnet = "10.86.0.0/24"' >"$T/cni.json"
cni ADD podc net1 "$T/cni.json"
cni_ok "CNI ADD of a testpmd pod on podwired network shared"
PJ=$(ls "$T"/pods/*/podwire.json)
POD_MAC=$(jq -r .mac "$PJ")
POD_IP=$(jq -r '.ips[0]' "$PJ" | cut -d/ -f1)
POD_PORT=$(ctlj pw port list | jq -r '.ports[] | select(.name | startswith("pw-")) | .name')
VDEV=$("$PODWIRE_VDEV" "$PJ")
VDEV=${VDEV#--vdev=}
pod_up pw "$POD_PORT" podc "${VDEV%% *}" --forward-mode=icmpecho

# busybox on the kernel network pings each, with addresses of their subnets
# on its eth0 and their MACs as neighbours (every icmpecho testpmd answers
# every ARP request, so ARP would not say who is who).
ct_run b1 knet --cap-add NET_ADMIN
for a in 10.84.0.200/24 10.85.0.200/24 10.86.0.200/24 10.87.0.200/24; do dk exec b1 ip addr add "$a" dev eth0; done
ping_dpdk() { # NAME IP MAC PORT
	local before after
	dk exec b1 arp -i eth0 -s "$2" "$3"
	before=$(port_stat pw "$4" .rx_packets)
	dk exec b1 ping -c 3 -W 2 "$2" >/dev/null || fail "b1 cannot ping $1 ($2, $3)"
	after=$(port_stat pw "$4" .rx_packets)
	[ "$after" -ge $((before + 3)) ] || fail "$1's port $4 sent $((after - before)) frames, not 3"
	ok "b1 pings $1 ($2) through podwired; its port $4 answered $((after - before)) frames"
}
ping_dpdk d1 "$(ct_ip d1 dnet)" "$(ct_mac d1 dnet)" "$(ct_port d1 dnet)"
ping_dpdk d2 "$(ct_ip d2 onet)" "$(ct_mac d2 onet)" "$(ct_port d2 onet)"
ping_dpdk m1 "$(ct_ip m1 mnet)" "$(ct_mac m1 mnet)" "$(ct_port m1 mnet)"
ping_dpdk "the CNI pod" "$POD_IP" "$POD_MAC" "$POD_PORT"

# ---- removal leaves nothing ------------------------------------------------
pod_stop podc
cni DEL podc net1 "$T/cni.json"
cni_ok "CNI DEL"
dk rm -f d1 d2 m1 b1 >/dev/null
dk network rm knet dnet onet mnet >/dev/null
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
expect_eq "podwired networks" 0 "$(ctlj pw network list | jq '.networks | length')"
