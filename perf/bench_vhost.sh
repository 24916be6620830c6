#!/bin/bash
# Throughput of one forwarding core between two vhost-user sockets:
#   testpmd-io   dpdk-testpmd io forwarding over net_vhost (the zero-work ceiling)
#   l2-bridge    podwired, one worker, an L2 bridge network (learning, lookup)
#   xconnect     podwired, one worker, a cross-connect network
# The generator is the same for all: dpdk-testpmd with two virtio-user
# ports in io forwarding, started with "start tx_first 32", 64-byte frames.
# Frames circulate: generator port 0 -> DUT -> generator port 1 -> DUT ...
# Each generator port sends frames whose source is its own MAC and whose
# destination is the other port's MAC (--eth-peer), so a learning bridge
# sees every MAC on one port only, as with real pods.
#
# Cores: the DUT's forwarding lcore on core 1, the generator on core 0.
# The generator's Rx-pps (summed over its two ports) is what the DUT
# forwarded; testpmd measures it over the interval between two
# "show port stats" with the TSC.
#
# Usage: perf/bench_vhost.sh [--duration SEC] [--trials N] [--json FILE]
# It is a report, not a test: it prints figures and ratios.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PODWIRE_BUILD:-$ROOT/build}
DURATION=10
TRIALS=3
JSON_OUT=""
GEN_CPU=0
DUT_CPU=1
while [ $# -gt 0 ]; do
	case $1 in
	--duration) DURATION=$2; shift 2 ;;
	--trials) TRIALS=$2; shift 2 ;;
	--json) JSON_OUT=$2; shift 2 ;;
	*) echo "usage: $0 [--duration SEC] [--trials N] [--json FILE]" >&2; exit 2 ;;
	esac
done

T=$(mktemp -d /tmp/pwb.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$T" /var/run/dpdk/pwbgen$$ /var/run/dpdk/pwbdut$$
}
trap cleanup EXIT

MAC0=02:00:00:00:00:a0
MAC1=02:00:00:00:00:a1

wait_sock() {
	for _ in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.1
	done
	echo "bench: socket $1 did not appear" >&2
	return 1
}

# run_generator LABEL: prints aggregate Mpps measured over DURATION seconds.
run_generator() {
	local label=$1 fd pid
	local log=$T/gen-$label.log fifo=$T/gen.in
	rm -f "$fifo"
	mkfifo "$fifo"
	stdbuf -oL dpdk-testpmd --lcores "0@$GEN_CPU,1@$GEN_CPU" --main-lcore 0 \
		--file-prefix "pwbgen$$" --in-memory --single-file-segments --no-pci \
		--log-level '*:notice' \
		--vdev "net_virtio_user0,path=$T/a.sock,mac=$MAC0,queues=1" \
		--vdev "net_virtio_user1,path=$T/b.sock,mac=$MAC1,queues=1" \
		-- -i --nb-cores=1 --forward-mode=io --eth-peer=0,$MAC1 --eth-peer=1,$MAC0 \
		<"$fifo" >"$log" 2>&1 &
	pid=$!
	exec {fd}>"$fifo"
	for _ in $(seq 100); do grep -q 'testpmd>' "$log" && break; sleep 0.1; done
	sleep 1
	echo "start tx_first 32" >&$fd
	sleep 3
	echo "show port stats all" >&$fd
	sleep "$DURATION"
	echo "show port stats all" >&$fd
	sleep 1
	echo "stop" >&$fd
	echo "quit" >&$fd
	exec {fd}>&-
	wait "$pid" 2>/dev/null || true
	# The last two Rx-pps lines are the two ports over the measured interval.
	grep 'Rx-pps:' "$log" | tail -n 2 | awk '{s += $2} END {printf "%.3f\n", s / 1e6}'
}

run_testpmd_dut() {
	local pid fd fifo=$T/dut.in
	rm -f "$fifo"
	mkfifo "$fifo"
	# Without -i, testpmd forwards until its stdin closes.
	dpdk-testpmd -l "$GEN_CPU,$DUT_CPU" --main-lcore "$GEN_CPU" \
		--file-prefix "pwbdut$$" --in-memory --no-pci --log-level '*:notice' \
		--vdev "net_vhost0,iface=$T/a.sock,queues=1" \
		--vdev "net_vhost1,iface=$T/b.sock,queues=1" \
		-- --forward-mode=io --nb-cores=1 --stats-period 0 \
		<"$fifo" >"$T/dut-testpmd.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	exec {fd}>"$fifo"
	wait_sock "$T/a.sock" && wait_sock "$T/b.sock"
	run_generator testpmd
	exec {fd}>&-
	wait "$pid" 2>/dev/null || true
	rm -f "$T/a.sock" "$T/b.sock"
}

run_podwired_dut() {
	local mode=$1 pid ctl
	"$BUILD/podwired" --main-core "$GEN_CPU" --worker-cores "$DUT_CPU" \
		--socket "$T/pw.sock" --state-dir "$T/state-$mode" --log-level warning \
		>"$T/dut-podwired-$mode.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	ctl="$BUILD/podwirectl --socket $T/pw.sock"
	for _ in $(seq 100); do $ctl info >/dev/null 2>&1 && break; sleep 0.1; done
	$ctl network add bench --mode "$mode" >/dev/null
	$ctl port add a --network bench --type vhost-user --socket "$T/a.sock" >/dev/null
	$ctl port add b --network bench --type vhost-user --socket "$T/b.sock" >/dev/null
	run_generator "podwired-$mode"
	$ctl stats >"$T/stats-$mode.txt" 2>&1 || true
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

declare -A RES
for sys in testpmd-io l2-bridge xconnect; do
	vals=()
	for i in $(seq "$TRIALS"); do
		case $sys in
		testpmd-io) v=$(run_testpmd_dut) ;;
		l2-bridge) v=$(run_podwired_dut bridge) ;;
		xconnect) v=$(run_podwired_dut xconnect) ;;
		esac
		vals+=("$v")
		echo "  $sys trial $i: $v Mpps" >&2
	done
	RES[$sys]=$(printf '%s\n' "${vals[@]}" | median)
done

base=${RES[testpmd-io]}
printf '\n%-12s %10s %10s\n' SYSTEM MPPS RATIO
for sys in testpmd-io l2-bridge xconnect; do
	printf '%-12s %10.3f %10.3f\n' "$sys" "${RES[$sys]}" \
		"$(awk -v a="${RES[$sys]}" -v b="$base" 'BEGIN {print (b > 0 ? a / b : 0)}')"
done
echo "(64-byte frames, one forwarding core, median of $TRIALS trials of ${DURATION}s;" \
	"ratio = system / testpmd-io; goals: l2-bridge >= 0.9, xconnect >= 1.0)"

if [ -n "$JSON_OUT" ]; then
	printf '{"frame_size":64,"duration_sec":%s,"trials":%s,"mpps":{"testpmd_io":%s,"l2_bridge":%s,"xconnect":%s}}\n' \
		"$DURATION" "$TRIALS" "${RES[testpmd-io]}" "${RES[l2-bridge]}" "${RES[xconnect]}" >"$JSON_OUT"
fi
