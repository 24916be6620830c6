#!/bin/bash
# A real CNI runtime: podman (CNI network backend) runs containers on a
# network whose plugin is podwire, with host-local IPAM, from a local
# rootfs (no registry here). Checks the IP and MAC podman asked for (it
# passes them as CNI_ARGS IP= and MAC=), the files the container sees, then
# two containers run dpdk-testpmd from podwire-vdev's arguments and
# exchange frames: a vhost-user one and a memif one with "queues": 2 (its
# testpmd takes --rxq/--txq from podwire-vdev --queues, and both rings
# carry frames); two busybox containers on an iftype "kernel" network get
# an ordinary eth0 and ping each other; removing the containers leaves
# nothing behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"

command -v podman >/dev/null || skip "podman is not installed (apt-get install podman runc)"
command -v runc >/dev/null || skip "runc is not installed (apt-get install runc)"
[ -x /bin/busybox ] || skip "busybox is not installed (apt-get install busybox-static)"

# podman with its own storage, network configs and plugins, all under $T.
mkdir -p "$T/net.d" "$T/pods"
ln -s "$PODWIRE_CNI" "$CNI_BIN/podwire"
cat >"$T/containers.conf" <<-EOF
	[containers]
	default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
	[engine]
	runtime = "runc"
	[network]
	network_backend = "cni"
	network_config_dir = "$T/net.d"
	cni_plugin_dirs = ["$CNI_BIN", "$CNI_PLUGINS_DIR"]
EOF
export CONTAINERS_CONF=$T/containers.conf
PODMAN=(podman --root "$T/storage" --runroot "$T/run" --storage-driver vfs
	--cgroup-manager cgroupfs --events-backend none)
"${PODMAN[@]}" info >"$T/podman-info.log" 2>&1 ||
	skip "podman cannot run here: $(tail -n 1 "$T/podman-info.log")"

# Containers are named pwt<pid>-*; removed on exit before lib.sh's cleanup.
CPREFIX=pwt$$
podman_cleanup() {
	local c
	for c in $("${PODMAN[@]}" ps -a --format '{{.Names}}' 2>/dev/null | grep "^$CPREFIX-" || true); do
		"${PODMAN[@]}" rm -f -t 1 "$c" >/dev/null 2>&1 || true
	done
}
on_exit podman_cleanup

# The network, as an administrator writes it: the pod sees socketDir at
# /var/run/podwire.
cni_conf '{cniVersion: "1.0.0", name: "cninet", plugins: [del(.cniVersion, .name)
	| .podSocketDir = "/var/run/podwire" | .capabilities = {mac: true, ips: true}]}' \
	>"$T/net.d/cninet.conflist"
# A second network on the same podwired network: memif, 2 queue pairs.
cni_conf '{cniVersion: "1.0.0", name: "cnimem", plugins: [del(.cniVersion, .name)
	| .iftype = "memif" | .queues = 2 | .ipam.subnet = "10.79.0.0/24"
	| .podSocketDir = "/var/run/podwire" | .capabilities = {mac: true, ips: true}]}' \
	>"$T/net.d/cnimem.conflist"

# A busybox rootfs; DPDK containers also get the host's /usr (testpmd, its
# drivers and libraries) and podwire-vdev.
R=$T/rootfs
mkdir -p "$R"/{bin,proc,sys,dev,etc,tmp,run,usr,opt,var/run/podwire}
cp /bin/busybox "$R/bin/"
for c in sh cat sleep ls hostname ping; do ln -s busybox "$R/bin/$c"; done
ln -s usr/lib "$R/lib"
ln -s usr/lib64 "$R/lib64"

daemon_start pw
# podwired's socket for the plugin is in $T (see cni_conf).

# ---- a plain container: IP and MAC from podman, files in the container --------
"${PODMAN[@]}" run -d --name "$CPREFIX-c1" --network cninet --ip 10.77.0.10 \
	--mac-address 02:00:00:79:00:01 -v "$T/pods:/var/run/podwire:ro" --rootfs "$R" \
	/bin/sleep 600 >"$T/c1.id" 2>"$T/c1.err" || fail "podman run c1: $(cat "$T/c1.err")"
C1=$(cat "$T/c1.id")
PJ=$(grep -l "\"$C1\"" "$T"/pods/*/podwire.json) || fail "no podwire.json for container $C1"
PORT1=$(jq -r .port "$PJ")
expect_eq "podwired port MAC (podman --mac-address)" 02:00:00:79:00:01 \
	"$(ctlj pw port show "$PORT1" | jq -r .mac)"
expect_eq "host-local gave podman's --ip" 10.77.0.10 "$(ipam_held)"
expect_eq "podman sees the IP and MAC" "10.77.0.10 02:00:00:79:00:01" \
	"$("${PODMAN[@]}" inspect "$CPREFIX-c1" --format \
		'{{range .NetworkSettings.Networks}}{{.IPAddress}} {{.MacAddress}}{{end}}')"
IN=/var/run/podwire/$(basename "$(dirname "$PJ")")
expect_eq "the container reads its podwire.json at the pod path" "$IN/vhost.sock 10.77.0.10/24" \
	"$("${PODMAN[@]}" exec "$CPREFIX-c1" cat "$IN/podwire.json" | jq -r '"\(.socket) \(.ips[0])"')"

# ---- two DPDK containers exchange frames ------------------------------------------
# podpm_spawn NAME MAC PEER-MAC [NETWORK]: a container running interactive
# testpmd with as many rx/tx queues as podwire-vdev --queues says, fed
# through a FIFO like lib.sh's pods (pod_cmd, pod_stats work on it).
# stdbuf: testpmd's stdout is a pipe to podman; its answers must not wait.
podpm_spawn() {
	local name=$1 mac=$2 peer=$3 net=${4:-cninet} fifo=$T/pod-$1.in fd mnt=ro
	# DPDK's net_memif refuses a socket directory it cannot write to
	# ("Invalid socket directory"), even as the client.
	[ "$net" = cninet ] || mnt=rw
	mkfifo "$fifo"
	"${PODMAN[@]}" run -i --rm --name "$CPREFIX-$name" --privileged --network "$net" \
		--mac-address "$mac" -v /usr:/usr:ro -v /dev/hugepages:/dev/hugepages \
		-v "$PODWIRE_VDEV:/opt/podwire-vdev:ro" -v "$T/pods:/var/run/podwire:$mnt" \
		--rootfs "$R" /bin/sh -c 'ARGS=$(/opt/podwire-vdev --container $(hostname) \
			/var/run/podwire/*/podwire.json) || exit 1
		Q=$(/opt/podwire-vdev --queues --container $(hostname) /var/run/podwire/*/podwire.json)
		echo "podwire-vdev: $ARGS"; echo "queues: $Q"
		exec /usr/bin/stdbuf -oL -eL /usr/bin/dpdk-testpmd $ARGS --lcores 0@'"$POD_CPU,1@$POD_CPU"' \
			--file-prefix $(hostname) --in-memory --no-pci --log-level "*:notice" \
			-- -i --nb-cores=1 --forward-mode=rxonly --total-num-mbufs=4096 \
			--rxq $Q --txq $Q --eth-peer=0,'"$peer" <"$fifo" >"$T/pod-$name.log" 2>&1 &
	POD_PID[$name]=$!
	exec {fd}>"$fifo"
	POD_FD[$name]=$fd
	POD_SEEN[$name]=0
}
# podpm_port NAME: the podwired port of container NAME.
podpm_port() {
	local id pj
	id=$("${PODMAN[@]}" inspect --format '{{.Id}}' "$CPREFIX-$1" 2>/dev/null) || return 1
	pj=$(grep -l "\"$id\"" "$T"/pods/*/podwire.json 2>/dev/null) || return 1
	jq -r .port "$pj"
}

podpm_spawn a 02:00:00:79:00:0a 02:00:00:79:00:0b
podpm_spawn b 02:00:00:79:00:0b 02:00:00:79:00:0a cnimem
pod_ready a 60
pod_ready b 60
grep -q 'podwire-vdev: --vdev=net_virtio_user0,path=/var/run/podwire/' "$T/pod-a.log" ||
	fail "container a did not use its socket at the pod path: $(grep podwire-vdev "$T/pod-a.log")"
grep -q 'podwire-vdev: --vdev=net_memif0,role=client,socket=/var/run/podwire/' "$T/pod-b.log" ||
	fail "container b did not use its memif socket: $(grep podwire-vdev "$T/pod-b.log")"
expect_eq "queues of containers a and b (podwire-vdev --queues)" "1 2" \
	"$(sed -n 's/^queues: //p' "$T/pod-a.log") $(sed -n 's/^queues: //p' "$T/pod-b.log")"
PORT_A=$(podpm_port a)
PORT_B=$(podpm_port b)
wait_link pw "$PORT_A" up
wait_link pw "$PORT_B" up
grep -q "port \"$PORT_B\": peer .* connected as .*, 2 queue pair(s)" "$T/pw.log" ||
	fail "container b did not connect with 2 queue pairs: $(grep "$PORT_B" "$T/pw.log" | tail -n 3)"
pod_cmd a start
pod_cmd b start
# b's testpmd sends one burst on each of its 2 tx queues.
pod_send b 1
wait_for 10 "a to receive b's 64 frames" pod_rx_ge a 64
pod_send a 8
wait_for 10 "b to receive 256 frames" pod_rx_ge b 256
expect_eq "container a rx" 64 "$(pod_rx a)"
expect_eq "container b rx" 256 "$(pod_rx b)"
expect_eq "podwired $PORT_A rx" 256 "$(port_stat pw "$PORT_A" .rx_packets)"
expect_eq "podwired $PORT_B rx" 64 "$(port_stat pw "$PORT_B" .rx_packets)"
expect_eq "podwired $PORT_B rx per queue (32 on each ring)" "0:32 1:32" \
	"$(rpc pw queue.list "{\"port\":\"$PORT_B\"}" | jq -r '[.result.queues[] | select(.queue < 2) | "\(.queue):\(.rx_packets_total)"] | join(" ")')"
[ "$(ipam_held | wc -l)" = 2 ] || fail "host-local should hold 2 IPs on cninet: $(ipam_held)"
[ "$(ls "$T/ipam/cnimem" | grep -c '^10\.79\.')" = 1 ] || fail "host-local should hold b's IP on cnimem"

# ---- kernel containers: iftype "kernel", an ordinary eth0 ------------------------
# On the same podwired network as the DPDK containers, in a subnet of its own.
cni_conf '{cniVersion: "1.0.0", name: "cnikern", plugins: [del(.cniVersion, .name)
	| .iftype = "kernel" | .mtu = 1400 | .ipam.subnet = "10.76.0.0/24"
	| .capabilities = {mac: true, ips: true}]}' >"$T/net.d/cnikern.conflist"
for k in k1 k2; do
	"${PODMAN[@]}" run -d --name "$CPREFIX-$k" --network cnikern --cap-add NET_RAW \
		--rootfs "$R" /bin/sleep 600 >/dev/null 2>"$T/$k.err" ||
		fail "podman run $k (iftype kernel): $(cat "$T/$k.err")"
done
IP_K2=$("${PODMAN[@]}" inspect "$CPREFIX-k2" --format \
	'{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')
case "$IP_K2" in 10.76.0.*) ok "kernel container k2 has $IP_K2" ;; *) fail "k2's IP: \"$IP_K2\"" ;; esac
expect_eq "k1's eth0 MTU is the network's" 1400 \
	"$("${PODMAN[@]}" exec "$CPREFIX-k1" cat /sys/class/net/eth0/mtu)"
"${PODMAN[@]}" exec "$CPREFIX-k1" ping -c 3 -W 2 "$IP_K2" >"$T/k-ping.log" 2>&1 ||
	fail "kernel container k1 cannot ping k2 ($IP_K2): $(cat "$T/k-ping.log")"
ok "kernel containers k1 and k2 ping each other through podwired"
expect_eq "podwired has the two veth ports" 2 \
	"$(ctlj pw port list | jq '[.ports[] | select(.type == "veth")] | length')"

# ---- removing the containers runs DEL ------------------------------------------
pod_stop a
pod_stop b
"${PODMAN[@]}" rm -f -t 1 --ignore "$CPREFIX-c1" "$CPREFIX-a" "$CPREFIX-b" "$CPREFIX-k1" \
	"$CPREFIX-k2" >/dev/null || fail "podman rm failed"
[ -z "$(ls "$T/ipam/cnikern" 2>/dev/null | grep '^10\.76\.' || true)" ] ||
	fail "the kernel containers' IPs on cnikern are still held"
expect_clean "after podman rm"
[ -z "$(ls "$T/ipam/cnimem" | grep '^10\.79\.' || true)" ] || fail "b's IP on cnimem is still held"
ctl pw info >/dev/null || fail "podwired stopped serving"
