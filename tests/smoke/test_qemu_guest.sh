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
. "$(dirname "$0")/lib.sh"

# Queue pairs of the port and the guest (PODWIRE_QEMU_QUEUES=1: one pair,
# both CPUs' pings on it).
QUEUES=${PODWIRE_QEMU_QUEUES:-2}
QEMU=${PODWIRE_QEMU:-qemu-system-x86_64}
GUEST_MAC=52:54:00:23:00:02
NS_MAC=02:00:00:23:00:01
GUEST_IP=10.231.0.2
NS_IP=10.231.0.1
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
NETNS_MADE=
_qemu_cleanup() {
	[ -z "$QEMU_PID" ] || _stop_pid "$QEMU_PID"
	[ -z "$NETNS_MADE" ] || ip netns del "$NS"
	ip link del "$HOST_END" 2>/dev/null
	if [ "$1" != 0 ] && [ "$1" != 77 ] && [ -f "$T/console.log" ]; then
		echo "---- guest serial console"
		tail -n 40 "$T/console.log"
		echo "---- qemu"
		tail -n 20 "$T/qemu.log"
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
	--queues "$QUEUES" >/dev/null
ctl pw port add kns --network net1 --type veth --iface "$HOST_END" --mac "$NS_MAC" >/dev/null
peer=$(ctlj pw port show kns | jq -r .veth.peer)
ip link set "$peer" netns "$NS"
ip -n "$NS" addr add "$NS_IP/24" dev "$peer"
ip -n "$NS" link set "$peer" up
wait_link pw kns up

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
	-device virtio-net-pci,netdev=n0,mac=$GUEST_MAC,mq=on,vectors=0,romfile= \
	-kernel "$T/guest/vmlinuz" -initrd "$T/guest/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 pw_ip=$GUEST_IP/24 pw_peer=$NS_IP pw_hold=60" \
	-serial file:"$T/console.log" >"$T/qemu.log" 2>&1 &
QEMU_PID=$!

console_has() { grep -q "$1" "$T/console.log"; }
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

# The guest leaving takes the queues it enabled with it; queue 0 stays
# marked enabled by design (a vhost-user port's link decides for it).
_stop_pid "$QEMU_PID"
QEMU_PID=
wait_link pw vm down
only_q0() { [ "$(ctlj pw queue list vm | jq -c '[.queues[] | select(.enabled) | .queue]')" = "[0]" ]; }
wait_for 5 "port vm's queues beyond 0 to be disabled" only_q0
ok "after the guest left, only queue 0 of port vm is marked enabled"
