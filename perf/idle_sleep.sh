#!/bin/bash
# What podwired's --idle-sleep-max saves and costs (issue 23): for each
# maximum nap (default 0, 50 and 500 us), podwired with one worker on
# core 1, two memif pods of podwire-bench on core 0 (its own memif
# client), a bridge network:
#   idle    the pods connected and silent (one frame per 10 s between them)
#           for --idle-seconds (default 10): the worker thread's CPU time
#           (utime + stime from /proc/PID/task/TID/stat), as a share of a
#           core and its naps (stats: sleeps, sleep_us)
#   first   100 frames/s in all, so every frame finds the worker idle for
#           ~10 ms (it naps at its longest after ~1 ms): latency p50/p99 of
#           the first frame after idle
#   load10  10% of what one worker forwards at full speed (measured once,
#           at the start, with naps off): latency p50/p99 at 10% load
# Each round runs every maximum once (interleaved); the table gives the
# median over rounds. Latency is podwire-bench's: from the sender's stamp
# to the receiver's read, both on core 0, through the worker on core 1.
#
# Usage: perf/idle_sleep.sh [--maxes "0 50 500"] [--rounds N] [--idle-seconds S]
#                           [--out DIR]
# Results: OUT/idle_sleep.json (every round) and a table. Asserts nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PODWIRE_BUILD:-$ROOT/build}
BENCH=$BUILD/podwire-bench
GEN_CPU=0
DUT_CPU=1
MAXES="0 50 500"
ROUNDS=1
IDLE_S=10
OUT=""
usage() {
	sed -n '/^# Usage/,/^# Results/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--maxes) MAXES=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--idle-seconds) IDLE_S=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) usage ;;
	esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "idle_sleep: --rounds $ROUNDS: give a positive integer" >&2; exit 2; }
[[ $IDLE_S =~ ^[1-9][0-9]*$ ]] || { echo "idle_sleep: --idle-seconds $IDLE_S: give whole seconds" >&2; exit 2; }
for f in "$BENCH" "$BUILD/podwired" "$BUILD/podwirectl"; do
	[ -x "$f" ] || { echo "idle_sleep: $f is not built; run: ninja -C $BUILD" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "idle_sleep: jq is missing (apt-get install jq)" >&2; exit 1; }
OUT=${OUT:-$ROOT/perf/results/idle-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
T=$(mktemp -d /tmp/pwi.XXXXXX)
PFX=pwi$$
DUT_PID=""
GEN_PID=""
HZ=$(getconf CLK_TCK)
cleanup() {
	set +e
	gen_abort
	dut_stop
	rm -rf "$T" /var/run/dpdk/"$PFX"-*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ctl() { "$BUILD/podwirectl" --socket "$T/pw.sock" "$@"; }
wait_for() { # SECONDS COMMAND...
	local i
	for i in $(seq $(($1 * 10))); do
		"${@:2}" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# dut_start MAX: podwired, one worker on DUT_CPU, naps up to MAX us; two
# memif ports on a bridge network.
dut_start() {
	rm -rf "$T/state" "$T"/p*.sock
	"$BUILD/podwired" --main-core "$GEN_CPU" --worker-cores "$DUT_CPU" --idle-sleep-max "$1" \
		--socket "$T/pw.sock" --state-dir "$T/state" --cdi-dir "$T/cdi" --log-level warning \
		>"$T/dut.log" 2>&1 &
	DUT_PID=$!
	wait_for 30 ctl info || { cat "$T/dut.log" >&2; return 1; }
	ctl network add n >/dev/null
	for i in 0 1; do
		ctl port add "p$i" --network n --type memif --socket "$T/p$i.sock" \
			--mac "02:00:00:00:00:0$((i + 1))" >/dev/null
	done
}
dut_stop() {
	[ -n "$DUT_PID" ] || return 0
	kill -TERM "$DUT_PID" 2>/dev/null || true
	wait_for 5 eval "! kill -0 $DUT_PID" || kill -KILL "$DUT_PID" 2>/dev/null || true
	wait "$DUT_PID" 2>/dev/null || true
	DUT_PID=""
}

# gen OUTFILE [podwire-bench options...]: the two pods, in the background
# (GEN_PID); JSON to OUTFILE, stderr to $T/gen.log.
gen() {
	local out=$1
	shift
	rm -f "$T/gen.log"
	"$BENCH" --lcores "0@$GEN_CPU" --file-prefix "$PFX-gen" --in-memory --no-pci \
		--log-level '*:notice' -- --memif "$T/p0.sock,mac=02:00:00:00:00:01" \
		--memif "$T/p1.sock,mac=02:00:00:00:00:02" --size 64 --json "$@" \
		>"$out" 2>"$T/gen.log" &
	GEN_PID=$!
}
gen_wait() {
	local rc=0
	wait "$GEN_PID" || rc=$?
	GEN_PID=""
	[ $rc -eq 0 ] || { echo "idle_sleep: podwire-bench failed:" >&2; tail -n 5 "$T/gen.log" >&2; return 1; }
}
# gen_abort: ends a generator the script gave up on (it holds the pods).
gen_abort() {
	[ -n "${GEN_PID:-}" ] || return 0
	kill -TERM "$GEN_PID" 2>/dev/null || true
	wait "$GEN_PID" 2>/dev/null || true
	GEN_PID=""
}

# worker_tids: podwired's worker threads (EAL lcore threads: rte-worker-N
# in Debian's DPDK 22.11, lcore-worker-N in others).
worker_tids() {
	local t
	for t in /proc/"$DUT_PID"/task/*; do
		grep -qE '^(rte|lcore)-worker' "$t/comm" 2>/dev/null && basename "$t"
	done
	return 0
}
# cpu_ticks TID...: utime + stime of those threads, summed, in clock ticks.
cpu_ticks() {
	local t sum=0 f
	for t in "$@"; do
		# The name in field 2 may hold spaces: fields after its ")".
		f=$(sed 's/.*) //' "/proc/$DUT_PID/task/$t/stat")
		sum=$((sum + $(awk '{print $12 + $13}' <<<"$f")))
	done
	echo $sum
}

# idle MAX ROUND: the worker's CPU share with the pods connected and silent.
idle() {
	local tids a b s0 s1
	gen "$T/idle.json" --rate 0.1 --warmup 0 --duration $((IDLE_S + 3))
	wait_for 60 grep -q '^podwire-bench: measuring' "$T/gen.log" || { gen_abort; return 1; }
	sleep 1 # the learning frames are through
	mapfile -t tids < <(worker_tids)
	[ ${#tids[@]} -gt 0 ] || {
		echo "idle_sleep: no worker thread (rte-worker-N) in podwired" >&2
		gen_abort
		return 1
	}
	s0=$(ctl --json stats)
	a=$(cpu_ticks "${tids[@]}")
	sleep "$IDLE_S"
	b=$(cpu_ticks "${tids[@]}")
	s1=$(ctl --json stats)
	gen_wait
	jq -n --argjson a "$a" --argjson b "$b" --argjson hz "$HZ" --argjson s "$IDLE_S" \
		--argjson s0 "$s0" --argjson s1 "$s1" --argjson n ${#tids[@]} '
		{worker_threads: $n, cpu_seconds: (($b - $a) / $hz),
		 cpu_share: (($b - $a) / $hz / $s / $n),
		 sleeps: (([$s1.workers[].sleeps] | add) - ([$s0.workers[].sleeps] | add)),
		 sleep_s: ((([$s1.workers[].sleep_us] | add) - ([$s0.workers[].sleep_us] | add)) / 1e6)}'
}

# latency RATE: p50/p99 of frames offered at RATE pps (podwire-bench).
latency() {
	gen "$T/lat.json" --rate "$1" --warmup 0.5 --duration "$2"
	gen_wait
	jq -c '{rate_pps: .offered_pps, samples: .latency_ns.samples, p50_ns: .latency_ns.p50,
		p99_ns: .latency_ns.p99, max_ns: .latency_ns.max, loss}' "$T/lat.json"
}

# ---- the 10% rate: one worker at full speed, naps off ------------------------
dut_start 0
gen "$T/full.json" --warmup 0.5 --duration 2
gen_wait
dut_stop
FULL=$(jq '.rx_mpps * 1e6' "$T/full.json")
RATE10=$(awk -v f="$FULL" 'BEGIN {printf "%.0f", f / 10}')
echo "idle_sleep: one worker forwards $(awk -v f="$FULL" 'BEGIN {printf "%.2f", f / 1e6}') Mpps at full speed; 10% is $RATE10 pps" >&2

: >"$T/rows.jsonl"
for r in $(seq "$ROUNDS"); do
	for m in $MAXES; do
		echo "idle_sleep: --idle-sleep-max $m (round $r of $ROUNDS)" >&2
		dut_start "$m"
		# (Each in this shell, not $(...): a generator left over must be
		# stopped here, where its PID is known.)
		idle >"$T/i.json" || { gen_abort; echo null >"$T/i.json"; }
		latency 100 5 >"$T/f.json" || { gen_abort; echo null >"$T/f.json"; }
		latency "$RATE10" 3 >"$T/l.json" || { gen_abort; echo null >"$T/l.json"; }
		i=$(cat "$T/i.json") f=$(cat "$T/f.json") l=$(cat "$T/l.json")
		dut_stop
		jq -c -n --argjson m "$m" --argjson r "$r" --argjson i "$i" --argjson f "$f" \
			--argjson l "$l" '{idle_sleep_max_us: $m, round: $r, idle: $i, first_after_idle: $f,
				load10: $l}' >>"$T/rows.jsonl"
	done
done

jq -s --argjson full "$FULL" --argjson rate10 "$RATE10" --arg date "$(date -u +%FT%TZ)" '
	def median: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
	{date: $date, full_speed_pps: $full, load10_pps: $rate10, rounds: .,
	 summary: (group_by(.idle_sleep_max_us) | map({idle_sleep_max_us: .[0].idle_sleep_max_us,
		worker_cpu_share: ([.[].idle.cpu_share | numbers] | median),
		sleeps_per_s: ([.[].idle | select(. != null) | .sleeps] | median),
		first_p50_ns: ([.[].first_after_idle.p50_ns | numbers] | median),
		first_p99_ns: ([.[].first_after_idle.p99_ns | numbers] | median),
		load10_p50_ns: ([.[].load10.p50_ns | numbers] | median),
		load10_p99_ns: ([.[].load10.p99_ns | numbers] | median)}))}' \
	"$T/rows.jsonl" >"$OUT/idle_sleep.json"

printf '\nidle sleep (podwired, one worker on core %s; memif pods on core %s; %s round(s))\n' \
	"$DUT_CPU" "$GEN_CPU" "$ROUNDS"
printf '%9s %12s %10s %12s %12s %12s %12s\n' MAX-US IDLE-CPU NAPS/S FIRST-P50-US FIRST-P99-US \
	10%-P50-US 10%-P99-US
jq -r --argjson s "$IDLE_S" '.summary[] | [.idle_sleep_max_us, (.worker_cpu_share // -1),
	((.sleeps_per_s // 0) / $s), (.first_p50_ns // 0), (.first_p99_ns // 0),
	(.load10_p50_ns // 0), (.load10_p99_ns // 0)] | @tsv' "$OUT/idle_sleep.json" |
	awk -F'\t' '{ printf "%9s %11.1f%% %10.0f %12.2f %12.2f %12.2f %12.2f\n", $1, $2 * 100, $3,
		$4 / 1000, $5 / 1000, $6 / 1000, $7 / 1000 }'
echo "(IDLE-CPU: the worker thread's utime + stime over ${IDLE_S} s with the pods silent, as a share of"
echo " one core; FIRST: frames 10 ms apart, each finding the worker idle; 10%: $RATE10 pps)"
echo "results: $OUT/idle_sleep.json"
