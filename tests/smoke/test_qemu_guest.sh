#!/bin/bash
# A QEMU guest on a vhost-user port (podwired the server, QUEUES queue
# pairs, virtio-net-pci with mq=on, two vCPUs) pings a kernel namespace on
# a veth port of the same network: the guest's virtio_net enables as many
# queue pairs as it has CPUs, pings once from each CPU (tx queue N is CPU
# N's), and podwired's queue list must show every queue of the guest's
# port enabled and carrying the guest's frames.
#
# TCG, not KVM: nested KVM guests hang at boot on the machines this runs
# on. The guest (tests/qemu/build-guest.sh) is a kernel with virtio_net
# and a busybox initramfs whose init (tests/qemu/init) reports on the
# serial console, read here with bounded waits.
#
# Offloads: the guest's virtio-net-pci has csum, gso, host_tso4,
# guest_tso4 and guest_csum on, and its port offers them: the port JSON
# shows them negotiated, for it and for a second guest (one vCPU), which
# pings the first through podwired.
#
# TCP (busybox nc, PODWIRE_QEMU_TCP=0 leaves it out): the guest sends the
# namespace (a veth port, which takes offloads: the guest's super-frames
# cross whole) and the second guest (super-frames whole) KB KiB each; then
# the namespace sends the guest KB KiB, timed: the log gives that
# throughput, the issue's "kernel pod to QEMU guest" figure, and the busy
# cycles of podwired's worker per KiB, to compare with offloads on and
# off (PODWIRE_QEMU_OFFLOADS=off; the guest under TCG bounds the
# throughput, podwired's cycles do not depend on it). Byte counts and
# md5s compared on every end.
# PODWIRE_QEMU_APPEND adds to both guests' kernel command lines,
# PODWIRE_QEMU_DEVICE to their virtio-net-pci's properties.
. "$(dirname "$0")/lib.sh"

# Queue pairs of the port and the guest (PODWIRE_QEMU_QUEUES=1: one pair,
# both CPUs' pings on it).
QUEUES=${PODWIRE_QEMU_QUEUES:-2}
QEMU=${PODWIRE_QEMU:-qemu-system-x86_64}
GUEST_MAC=52:54:00:23:00:02
NS_MAC=02:00:00:23:00:01
GUEST_IP=10.231.0.2
NS_IP=10.231.0.1
GUEST2_MAC=52:54:00:23:00:03
GUEST2_IP=10.231.0.3
# KiB each TCP transfer carries (a guest under TCG takes about 40 MB/s
# here, 16 MiB make a figure that is not all noise).
KB=${PODWIRE_QEMU_KB:-16384}
# The offloads of both guests' virtio-net-pci; PODWIRE_QEMU_OFFLOADS=off
# makes the guests' ports offer none and the namespace's interface
# (PODWIRE_QEMU_NS_OFFLOADS, as PODWIRE_QEMU_OFFLOADS unless set) send
# MTU frames with their checksums: the transfers without offloads.
OFFLOADS=csum=on,gso=on,guest_tso4=on,host_tso4=on,guest_csum=on${PODWIRE_QEMU_DEVICE:+,$PODWIRE_QEMU_DEVICE}
PORT_OL=${PODWIRE_QEMU_OFFLOADS:-on}
NS_OL=${PODWIRE_QEMU_NS_OFFLOADS:-$PORT_OL}
NS=pwq$$
HOST_END=pwqh$$

# Missing tools are a setup step not taken: CI (.ci/setup installs them)
# fails; elsewhere the test skips, saying what to install.
missing() {
	[ "${CI:-}" != true ] || fail "$1"
	skip "$1"
}
command -v "$QEMU" >/dev/null || missing "$QEMU is not installed (apt-get install qemu-system-x86)"
# The one case where QEMU truly cannot run here: a build without TCG.
"$QEMU" -accel help 2>/dev/null | grep -qx tcg || skip "$QEMU has no TCG accelerator"

mkdir -p "$T/guest"
rc=0
bash "$ROOT/tests/qemu/build-guest.sh" "$T/guest" 2>"$T/build-guest.err" || rc=$?
[ $rc -ne 2 ] || missing "$(cat "$T/build-guest.err")"
[ $rc -eq 0 ] || fail "tests/qemu/build-guest.sh failed: $(cat "$T/build-guest.err")"
log "guest kernel: $(cat "$T/guest/kernel")"

QEMU_PID=
QEMU2_PID=
NC_PID=
NETNS_MADE=
_qemu_cleanup() {
	[ -z "$QEMU_PID" ] || _stop_pid "$QEMU_PID"
	[ -z "$QEMU2_PID" ] || _stop_pid "$QEMU2_PID"
	[ -z "$NC_PID" ] || _stop_pid "$NC_PID"
	[ -z "$NETNS_MADE" ] || ip netns del "$NS"
	ip link del "$HOST_END" 2>/dev/null
	if [ "$1" != 0 ] && [ "$1" != 77 ] && [ -f "$T/console.log" ]; then
		echo "---- guest serial console"
		tail -n 40 "$T/console.log"
		echo "---- qemu"
		tail -n 20 "$T/qemu.log"
		echo "---- second guest's serial console"
		tail -n 20 "$T/console2.log" 2>/dev/null
	fi
}
on_exit _qemu_cleanup

ip netns add "$NS" 2>/dev/null || skip "cannot create network namespace $NS"
NETNS_MADE=1
ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
ip -n "$NS" link set lo up

# The worker naps when idle: the guest's two vCPUs need both cores too.
daemon_start pw --idle-sleep-max 1000
ctl pw network add net1 >/dev/null
ctl pw port add vm --network net1 --type vhost-user --socket "$T/vm.sock" --mac $GUEST_MAC \
	--queues "$QUEUES" --offloads "$PORT_OL" >/dev/null
ctl pw port add vm2 --network net1 --type vhost-user --socket "$T/vm2.sock" --mac $GUEST2_MAC \
	--offloads "$PORT_OL" >/dev/null
ctl pw port add kns --network net1 --type veth --iface "$HOST_END" --mac "$NS_MAC" >/dev/null
peer=$(ctlj pw port show kns | jq -r .veth.peer)
ip link set "$peer" netns "$NS"
ip -n "$NS" addr add "$NS_IP/24" dev "$peer"
ip -n "$NS" link set "$peer" up
if [ "$NS_OL" = off ]; then
	# No checksum offload: no segmentation offload (TSO, GSO) either.
	ip netns exec "$NS" ethtool -K "$peer" tx off gso off >/dev/null ||
		fail "ethtool cannot turn the namespace's offloads off"
fi
wait_link pw kns up

# The namespace takes one connection from the guest.
TCP=${PODWIRE_QEMU_TCP:-1}
TCP_ARGS=
TCP2_ARGS=
if [ "$TCP" = 1 ]; then
	TCP_ARGS="pw_listen=5002 pw_send=$NS_IP:5001:$KB,$GUEST2_IP:5003:$KB"
	TCP2_ARGS="pw_listen=5003"
	# Its stdin never ends (a FIFO it holds open): busybox nc half-closes
	# at the end of its stdin, and the guest's nc, seeing that, would
	# stop sending (tests/qemu/init).
	mkfifo "$T/hold"
	ip netns exec "$NS" busybox nc -l -p 5001 <>"$T/hold" >"$T/from-guest" &
	NC_PID=$!
fi
head -c $((KB * 1024)) /dev/urandom >"$T/to-guest"
# -smp 2: virtio_net enables min(CPUs, queue pairs) pairs. Guest memory is
# a shared memfd, which podwired maps (vhost-user needs it shared).
# vectors=0: no MSI-X, the device interrupts on INTx. QEMU 7.2 (Debian 12)
# crashes under TCG when a vhost device's MSI-X vectors get notifiers
# (SIGSEGV under msix_set_vector_notifiers, from vhost_net_start).
"$QEMU" -accel tcg -M pc,memory-backend=mem -m 256 -smp 2 -nodefaults -no-user-config \
	-display none -no-reboot \
	-object memory-backend-memfd,id=mem,size=256M,share=on \
	-chardev socket,id=c0,path="$T/vm.sock" \
	-netdev vhost-user,id=n0,chardev=c0,queues="$QUEUES" \
	-device virtio-net-pci,netdev=n0,mac=$GUEST_MAC,mq=on,vectors=0,romfile=,$OFFLOADS \
	-kernel "$T/guest/vmlinuz" -initrd "$T/guest/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 pw_ip=$GUEST_IP/24 pw_peer=$NS_IP pw_hold=60 $TCP_ARGS ${PODWIRE_QEMU_APPEND:-}" \
	-serial file:"$T/console.log" >"$T/qemu.log" 2>&1 &
QEMU_PID=$!
# The second guest: one vCPU, one queue pair; it takes the first's data.
"$QEMU" -accel tcg -M pc,memory-backend=mem -m 256 -smp 1 -nodefaults -no-user-config \
	-display none -no-reboot \
	-object memory-backend-memfd,id=mem,size=256M,share=on \
	-chardev socket,id=c0,path="$T/vm2.sock" \
	-netdev vhost-user,id=n0,chardev=c0 \
	-device virtio-net-pci,netdev=n0,mac=$GUEST2_MAC,vectors=0,romfile=,$OFFLOADS \
	-kernel "$T/guest/vmlinuz" -initrd "$T/guest/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 pw_ip=$GUEST2_IP/24 pw_peer=$GUEST_IP pw_count=10 pw_hold=60 $TCP2_ARGS ${PODWIRE_QEMU_APPEND:-}" \
	-serial file:"$T/console2.log" >"$T/qemu2.log" 2>&1 &
QEMU2_PID=$!

console_has() { grep -q "$1" "$T/console.log"; }
console2_has() { grep -q "$1" "$T/console2.log"; }
# guest_says CONSOLE WORD: what follows "PWGUEST: WORD " (the serial
# console ends its lines with \r\n).
guest_says() { tr -d '\r' <"$1" | sed -n "s/^PWGUEST: $2 //p"; }
# guest_sent CONSOLE ADDR:PORT: "BYTES md5 MD5" the guest said it sent
# there; guest_secs: in how many seconds.
guest_sent() { guest_says "$1" sent | sed -n "s/ to $2 in .*//p"; }
guest_secs() { guest_says "$1" sent | sed -n "s/.* to $2 in \([0-9.]*\) s$/\1/p"; }
wait_link pw vm up 60
ok "the guest's virtio-net is up on podwired's port"
# Booting under TCG takes seconds; pinging from both CPUs a few more.
wait_for 100 "the guest to finish pinging" console_has "PWGUEST: pinged"
grep '^PWGUEST:' "$T/console.log" | sed 's/^/    /'
guest_q=$(sed -n 's/^PWGUEST: cpus [0-9]* rx_queues \([0-9]*\).*/\1/p' "$T/console.log")
expect_eq "queue pairs the guest's virtio_net uses" "$QUEUES" "$guest_q"
for cpu in 0 1; do
	grep -q "PWGUEST: ping cpu $cpu ok" "$T/console.log" ||
		fail "the guest's ping from CPU $cpu failed: $(grep "ping cpu $cpu" "$T/console.log")"
done
ok "the guest pinged $NS_IP from both CPUs through podwired"

# queue list: every queue of the guest's port enabled, each carried frames.
ctlj pw queue list vm >"$T/queues.json"
jq -c '.queues[] | {queue, worker, enabled, rx_packets_total}' "$T/queues.json" |
	sed 's/^/    /'
expect_eq "rx queues of port vm" "$QUEUES" "$(jq '.queues | length' "$T/queues.json")"
expect_eq "enabled rx queues of port vm" "$QUEUES" \
	"$(jq '[.queues[] | select(.enabled)] | length' "$T/queues.json")"
expect_eq "rx queues of port vm that carried no frame" 0 \
	"$(jq '[.queues[] | select(.rx_packets_total == 0)] | length' "$T/queues.json")"
[ "$(port_stat pw kns .tx_packets)" -gt 0 ] || fail "podwired sent nothing to the namespace"
[ "$(port_stat pw vm .tx_packets)" -gt 0 ] || fail "podwired sent nothing to the guest"

# ---- offloads -------------------------------------------------------------------
want_ol='["csum","guest_csum","host_tso4","host_tso6","guest_tso4","guest_tso6"]'
[ "$PORT_OL" = on ] || want_ol='[]'
for p in vm vm2; do
	expect_eq "offloads the guest of port $p negotiated" "$want_ol" \
		"$(ctlj pw port show $p | jq -c .vhost_user.negotiated)"
done
wait_for 90 "the second guest to ping the first" console2_has "PWGUEST: pinged"
grep -q "PWGUEST: ping cpu 0 ok" "$T/console2.log" ||
	fail "the second guest's ping of the first failed: $(grep 'PWGUEST: ping' "$T/console2.log")"
ok "the second guest pinged the first through podwired"
if [ "$TCP" = 1 ]; then
	# The guest sends, right after its pings, KB KiB to the namespace
	# (super-frames with host_tso4, whole: the veth port takes offloads),
	# then KB KiB to the second guest (super-frames, whole: it negotiated
	# GUEST_TSO4). Each nc of the guest ends once its peer has it all.
	ns_got_all() { [ "$(stat -c %s "$T/from-guest")" -ge $((KB * 1024)) ]; }
	wait_for 60 "the namespace to receive the guest's data" ns_got_all
	wait_for 30 "the guest to report its send to the namespace" console_has "to $NS_IP:5001"
	expect_eq "bytes and md5 the namespace received from the guest" \
		"$(guest_sent "$T/console.log" "$NS_IP:5001")" \
		"$(stat -c %s "$T/from-guest") md5 $(md5sum <"$T/from-guest" | cut -d' ' -f1)"
	wait "$NC_PID" || true
	NC_PID=
	log "the guest sent the namespace $KB KiB in $(guest_secs "$T/console.log" "$NS_IP:5001") s"
	# avg_frame PORT: the bytes per frame podwired sent it.
	avg_frame() { ctlj pw stats "$1" | jq '.ports[0] | .tx_bytes / .tx_packets | floor'; }
	log "port kns: $(ctlj pw stats kns | jq -c '.ports[0] | {tx_packets, tx_bytes, drops}')"
	if [ "$PORT_OL" = on ]; then
		avg=$(avg_frame kns)
		[ "$avg" -gt 1514 ] ||
			fail "frames to the namespace averaged $avg bytes: the guest's super-frames were cut"
		ok "the namespace received the guest's data in frames of $avg bytes on average (super-frames)"
	fi
	wait_for 60 "the second guest to report what it received" console2_has "PWGUEST: received"
	# (The sender's md5sum of what it sent may take longer than that.)
	wait_for 30 "the guest to report its send to the second guest" console_has "to $GUEST2_IP:5003"
	sent=$(guest_sent "$T/console.log" "$GUEST2_IP:5003")
	[ -n "$sent" ] || fail "the guest did not send to the second guest: $(grep 'PWGUEST: send' "$T/console.log")"
	expect_eq "bytes and md5 the second guest received" "$sent" \
		"$(guest_says "$T/console2.log" received)"
	expect_eq "bytes the guest sent the second guest" "$((KB * 1024))" "${sent%% *}"
	log "the guest sent the second guest $KB KiB in $(guest_secs "$T/console.log" "$GUEST2_IP:5003") s"
	log "port vm2: $(ctlj pw stats vm2 | jq -c '.ports[0] | {tx_packets, tx_bytes, drops}')"
	if [ "$PORT_OL" = on ]; then
		avg=$(avg_frame vm2)
		[ "$avg" -gt 1514 ] ||
			fail "frames to the second guest averaged $avg bytes: its super-frames were cut"
		ok "the second guest received the first's data in frames of $avg bytes on average (super-frames)"
	fi
	# Then the namespace sends the guest KB KiB, timed from connect until
	# the guest's nc, having it all, closes: the issue's "kernel pod to
	# QEMU guest" figure. With it, the busy cycles of podwired's worker
	# (the guest's ACKs included) and the namespace's TCP retransmissions
	# (frames lost on the way).
	want_md5=$(md5sum <"$T/to-guest" | cut -d' ' -f1)
	busy() { ctlj pw stats | jq '[.workers[].busy_cycles] | add'; }
	retrans() { ip netns exec "$NS" awk '/^Tcp:/ && n++ {print $13}' /proc/net/snmp; }
	b0=$(busy) r0=$(retrans) t0=$(date +%s%N)
	timeout 60 ip netns exec "$NS" busybox nc "$GUEST_IP" 5002 <"$T/to-guest" ||
		fail "the namespace could not send to the guest"
	t1=$(date +%s%N) b1=$(busy) r1=$(retrans)
	wait_for 30 "the guest to report what it received" console_has "PWGUEST: received"
	expect_eq "bytes and md5 the guest received from the namespace" "$((KB * 1024)) md5 $want_md5" \
		"$(guest_says "$T/console.log" received)"
	ms=$(((t1 - t0) / 1000000))
	log "the namespace sent the guest $KB KiB in $ms ms: $((KB * 8192 / (ms > 0 ? ms : 1) / 1000)) Mbit/s" \
		"(offloads $PORT_OL; namespace offloads $NS_OL); podwired's worker busy" \
		"$(((b1 - b0) / KB)) cycles per KiB; the namespace retransmitted $((r1 - r0)) segments"
	log "port vm: $(ctlj pw stats vm | jq -c '.ports[0] | {tx_packets, tx_bytes, drops}')"
	if [ "$PORT_OL" = on ] && [ "$NS_OL" = on ]; then
		avg=$(avg_frame vm)
		[ "$avg" -gt 1514 ] ||
			fail "frames to the guest averaged $avg bytes: the namespace's super-frames were cut"
		ok "the guest received the namespace's data in frames of $avg bytes on average (super-frames)"
	fi
	wait_for 10 "the guest to report its counters" console_has "PWGUEST: tcp "
	grep -E '^PWGUEST: (irq|eth0|tcp) ' "$T/console.log" | tr -d '\r' | sed 's/^/    /'
fi
_stop_pid "$QEMU2_PID"
QEMU2_PID=

# The guest leaving takes the queues it enabled with it; queue 0 stays
# marked enabled by design (a vhost-user port's link decides for it).
_stop_pid "$QEMU_PID"
QEMU_PID=
wait_link pw vm down
only_q0() { [ "$(ctlj pw queue list vm | jq -c '[.queues[] | select(.enabled) | .queue]')" = "[0]" ]; }
wait_for 5 "port vm's queues beyond 0 to be disabled" only_q0
ok "after the guest left, only queue 0 of port vm is marked enabled"
