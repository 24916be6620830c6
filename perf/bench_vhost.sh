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
# Rings big enough to hold every frame tx_first injects (2 x 32 x 32), so
# that no system loses frames from the closed loop while it starts.
QSIZE=${QSIZE:-1024}
GEN_OPTS=${GEN_OPTS:-}
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
	# testpmd's stderr goes to its own file: a warning written there can
	# land inside the prompt or a stats line that this script reads.
	rm -f "$fifo"
	mkfifo "$fifo"
	stdbuf -oL dpdk-testpmd --lcores "0@$GEN_CPU,1@$GEN_CPU" --main-lcore 0 \
		--file-prefix "pwbgen$$" --in-memory --single-file-segments --no-pci \
		--log-level '*:notice' \
		--vdev "net_virtio_user0,path=$T/a.sock,mac=$MAC0,queues=1,queue_size=$QSIZE" \
		--vdev "net_virtio_user1,path=$T/b.sock,mac=$MAC1,queues=1,queue_size=$QSIZE" \
		-- -i --nb-cores=1 --forward-mode=io --eth-peer=0,$MAC1 --eth-peer=1,$MAC0 $GEN_OPTS \
		<"$fifo" >"$log" 2>"$log.err" &
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
	local pid fd fifo=$T/dut.in mpps cpp
	rm -f "$fifo"
	mkfifo "$fifo"
	# Without -i, testpmd forwards until its stdin closes.
	dpdk-testpmd -l "$GEN_CPU,$DUT_CPU" --main-lcore "$GEN_CPU" \
		--file-prefix "pwbdut$$" --in-memory --no-pci --log-level '*:notice' \
		--vdev "net_vhost0,iface=$T/a.sock,queues=1" \
		--vdev "net_vhost1,iface=$T/b.sock,queues=1" \
		-- --forward-mode=io --nb-cores=1 --stats-period 0 --record-core-cycles \
		<"$fifo" >"$T/dut-testpmd.log" 2>"$T/dut-testpmd.err" &
	pid=$!
	PIDS+=("$pid")
	exec {fd}>"$fifo"
	wait_sock "$T/a.sock" && wait_sock "$T/b.sock"
	mpps=$(run_generator testpmd)
	exec {fd}>&-
	wait "$pid" 2>/dev/null || true
	rm -f "$T/a.sock" "$T/b.sock"
	# "CPU cycles/packet=41.23 (busy cycles=... / total io packets=...) at 2400 MHz"
	cpp=$(sed -n 's/.*CPU cycles\/packet=\([0-9.]*\).*/\1/p' "$T/dut-testpmd.log" | tail -n 1)
	echo "$mpps ${cpp:-0}"
}

run_podwired_dut() {
	local mode=$1 pid ctl mpps cpp
	rm -rf "$T/state"
	"$BUILD/podwired" --main-core "$GEN_CPU" --worker-cores "$DUT_CPU" \
		--socket "$T/pw.sock" --state-dir "$T/state" --cdi-dir "$T/cdi" --log-level warning \
		>"$T/dut-podwired-$mode.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	ctl="$BUILD/podwirectl --socket $T/pw.sock"
	for _ in $(seq 100); do $ctl info >/dev/null 2>&1 && break; sleep 0.1; done
	$ctl network add bench --mode "$mode" >/dev/null
	$ctl port add a --network bench --type vhost-user --socket "$T/a.sock" >/dev/null
	$ctl port add b --network bench --type vhost-user --socket "$T/b.sock" >/dev/null
	mpps=$(run_generator "podwired-$mode")
	[ -z "${BENCH_VERBOSE:-}" ] || $ctl stats >&2
	# Busy cycles per frame received: cycles of loop turns that moved frames.
	cpp=$($ctl --json stats | jq '([.workers[].busy_cycles] | add) / ([.ports[].rx_packets] | add)')
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	echo "$mpps $cpp"
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }

declare -A MPPS CPP ALLM ALLC RATIOS RATIO BEST
SYSTEMS=${SYSTEMS:-"testpmd-io l2-bridge xconnect"}
# Rounds: every system once per round, so that each ratio compares runs
# made under the same conditions (a shared VM's speed drifts over minutes).
for i in $(seq "$TRIALS"); do
	base=""
	for sys in $SYSTEMS; do
		case $sys in
		testpmd-io) read -r v w < <(run_testpmd_dut) ;;
		l2-bridge) read -r v w < <(run_podwired_dut bridge) ;;
		xconnect) read -r v w < <(run_podwired_dut xconnect) ;;
		esac
		[ -n "$base" ] || base=$v
		ALLM[$sys]+="$v "
		ALLC[$sys]+="$w "
		RATIOS[$sys]+="$(ratio "$v" "$base") "
		echo "  round $i: $sys $v Mpps, $w busy cycles/frame" >&2
	done
done
for sys in $SYSTEMS; do
	MPPS[$sys]=$(printf '%s\n' ${ALLM[$sys]} | median)
	CPP[$sys]=$(printf '%s\n' ${ALLC[$sys]} | median)
	RATIO[$sys]=$(printf '%s\n' ${RATIOS[$sys]} | median)
	BEST[$sys]=$(printf '%s\n' ${ALLM[$sys]} | sort -g | tail -n 1)
done

printf '\n%-12s %8s %8s %8s %10s %13s %10s\n' SYSTEM MPPS RATIO BEST BEST-RATIO \
	CYCLES/FRAME EFFICIENCY
for sys in $SYSTEMS; do
	printf '%-12s %8.3f %8.3f %8.3f %10s %13.1f %10s\n' "$sys" "${MPPS[$sys]}" "${RATIO[$sys]}" \
		"${BEST[$sys]}" "$(ratio "${BEST[$sys]}" "${BEST[testpmd-io]}")" "${CPP[$sys]}" \
		"$(ratio "${CPP[testpmd-io]}" "${CPP[$sys]}")"
done
cat <<EOT
(64-byte frames, one forwarding core, $TRIALS rounds of ${DURATION}s per system, medians.
 MPPS: what the generator received; RATIO: median over rounds of MPPS / testpmd-io's
 MPPS in the same round; BEST: the best round, BEST-RATIO: best / testpmd-io's best.
 On a 2-vCPU VM a closed io loop settles at random into a slow (~8 Mpps) or fast
 (~13 Mpps) regime for every system alike, hence rounds and medians.
 CYCLES/FRAME: the forwarder's busy cycles per frame (testpmd --record-core-cycles,
 podwired's worker busy cycles); EFFICIENCY = testpmd-io's / this one's. It
 depends less than MPPS on whether the generator keeps up, though a forwarder
 that gets fuller bursts also spends fewer cycles per frame.
 Goals: l2-bridge >= 0.9, xconnect >= 1.0.)
EOT

if [ -n "$JSON_OUT" ]; then
	{
		printf '{"frame_size":64,"duration_sec":%s,"trials":%s,"systems":{' "$DURATION" "$TRIALS"
		sep=""
		for sys in $SYSTEMS; do
			printf '%s"%s":{"mpps":%s,"ratio":%s,"best_mpps":%s,"cycles_per_frame":%s}' \
				"$sep" "$sys" "${MPPS[$sys]}" "${RATIO[$sys]}" "${BEST[$sys]}" "${CPP[$sys]}"
			sep=","
		done
		printf '}}\n'
	} >"$JSON_OUT"
fi
