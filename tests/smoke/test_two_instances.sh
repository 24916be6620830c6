#!/bin/bash
# Two podwired on one machine, each with its own socket, state dir and
# DPDK file prefix, switch their own pods' traffic at the same time; when
# they stop they leave no hugepage files and no DPDK runtime directories.
. "$(dirname "$0")/lib.sh"

daemon_start one
daemon_start two
[ "$(ctlj one info | jq .pid)" != "$(ctlj two info | jq .pid)" ] || fail "one daemon answered both"
RUN1=$(ctlj one info | jq -r .dpdk_runtime_dir)
RUN2=$(ctlj two info | jq -r .dpdk_runtime_dir)
[ "$RUN1" != "$RUN2" ] || fail "both daemons use DPDK runtime dir $RUN1"
[ -d "$RUN1" ] && [ -d "$RUN2" ] || fail "DPDK runtime dirs $RUN1 $RUN2 missing"
ok "distinct DPDK file prefixes: $RUN1, $RUN2"

for d in one two; do
	ctl $d network add net
	ctl $d port add a --network net --type vhost-user --socket "$T/$d-a.sock" --mac 02:00:00:00:0a:0${#d}
	ctl $d port add b --network net --type vhost-user --socket "$T/$d-b.sock" --mac 02:00:00:00:0b:0${#d}
done
# The same port names in both: each daemon has its own registry and state.
pod_up one a 1a "$(vdev_virtio "$T/one-a.sock" 02:00:00:00:0a:03)" --eth-peer=0,02:00:00:00:0b:03
pod_up one b 1b "$(vdev_virtio "$T/one-b.sock" 02:00:00:00:0b:03)"
pod_up two a 2a "$(vdev_virtio "$T/two-a.sock" 02:00:00:00:0a:03)" --eth-peer=0,02:00:00:00:0b:03
pod_up two b 2b "$(vdev_virtio "$T/two-b.sock" 02:00:00:00:0b:03)"

pod_send 1a 2
pod_send 2a 4
wait_for 10 "pod 1b to receive 64 frames" pod_rx_ge 1b 64
wait_for 10 "pod 2b to receive 128 frames" pod_rx_ge 2b 128
expect_eq "daemon one: port b tx" 64 "$(port_stat one b .tx_packets)"
expect_eq "daemon two: port b tx" 128 "$(port_stat two b .tx_packets)"
expect_eq "pod 1b rx" 64 "$(pod_rx 1b)"
expect_eq "pod 2b rx" 128 "$(pod_rx 2b)"

for p in 1a 1b 2a 2b; do pod_stop $p; done
daemon_stop one
daemon_stop two
[ ! -e "$RUN1" ] && [ ! -e "$RUN2" ] || fail "DPDK runtime dirs left: $RUN1 $RUN2"
ok "no DPDK runtime dir left"
left=$(ls /dev/hugepages | grep -c '^podwired' || true)
expect_eq "podwired hugepage files left" 0 "$left"
for d in one two; do
	[ -f "$T/$d.state/state.json" ] || fail "daemon $d saved no state"
done
ok "both state files kept for the next start"
