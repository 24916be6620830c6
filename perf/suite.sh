#!/bin/bash
# podwire's benchmark suite: one command, one machine, one generator.
#
# Every cell runs podwire-bench (the generator, acting as N pods) pinned to
# core 0 against one forwarder (the DUT) whose forwarding lcore is core 1:
#   main     podwired bridge and xconnect, and dpdk-testpmd io forwarding on
#            the same sockets (the ceiling), over vhost-user and memif, at
#            64, 512 and 1518-byte frames: a full-speed run per cell
#   scale    podwired bridge, vhost-user, 64 B, 2/8/32/128 pods on one worker
#   latency  podwired bridge, vhost-user, 64 B: an NDR search, then latency
#            at 10%, 50% and 90% of the NDR
#   ovs      Open vSwitch with DPDK (openvswitch-switch-dpdk, see suite_ovs.sh),
#            NORMAL action, vhost-user, 64/512/1518 B, when installed
# Parts run in that order, each cell after the previous one has ended.
#
# Usage: perf/suite.sh [--quick] [--only GLOBS] [--out DIR] [--duration SEC] [--rounds N]
#   --only GLOBS  comma-separated shell globs over cell names, e.g.
#                 'main:vhost:*:64,scale:2,latency:*'. Names: main:IFACE:SYS:SIZE
#                 (IFACE vhost|memif, SYS testpmd|bridge|xconnect),
#                 scale:PODS, latency:PCT, ovs:SIZE
#   --quick       about 1 s per cell (search trials of 0.3 s), for a smoke run
#   --rounds N    measure each cell N times (default 3, --quick 1) and keep
#                 the median round; every round's figure is in the cell's JSON
# Results: OUT/summary.json, OUT/cells/*.json (podwire-bench's own output),
# OUT/scaling.png when gnuplot is installed. It asserts nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PODWIRE_BUILD:-$ROOT/build}
BENCH=$BUILD/podwire-bench
GEN_CPU=0
DUT_CPU=1
QUICK=0
ONLY=""
OUT=""
DURATION=""
SIZES="64 512 1518"
PODS_LIST="2 8 32 128"
usage() {
	sed -n '/^# Usage/,/^# OUT/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; shift ;;
	--only) ONLY=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	*) usage ;;
	esac
done
if [ "$QUICK" = 1 ]; then
	DURATION=${DURATION:-1} WARMUP=0.3 TRIAL=0.3 RESOLUTION=0.1 ROUNDS=${ROUNDS:-1}
else
	DURATION=${DURATION:-10} WARMUP=1 TRIAL=2 RESOLUTION=0.02 ROUNDS=${ROUNDS:-3}
fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "suite: --rounds $ROUNDS: give a positive integer" >&2; exit 2; }
OUT=${OUT:-$ROOT/perf/results/$(date -u +%Y%m%dT%H%M%SZ)}

for f in "$BENCH" "$BUILD/podwired" "$BUILD/podwirectl"; do
	[ -x "$f" ] || { echo "suite: $f is not built; run: ninja -C $BUILD" >&2; exit 1; }
done
command -v dpdk-testpmd >/dev/null || { echo "suite: dpdk-testpmd is missing (apt-get install dpdk)" >&2; exit 1; }
command -v jq >/dev/null || { echo "suite: jq is missing (apt-get install jq)" >&2; exit 1; }
. "$ROOT/perf/suite_ovs.sh"
mkdir -p "$OUT/cells"
T=$(mktemp -d /tmp/pws.XXXXXX)
PFX=pws$$
DUT_PID=""
DUT_FD=""
cleanup() {
	set +e
	dut_stop
	rm -rf "$T" /var/run/dpdk/"$PFX"-*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# want CELL: true when CELL matches --only (or there is no --only).
want() {
	local g
	[ -n "$ONLY" ] || return 0
	for g in ${ONLY//,/ }; do
		# shellcheck disable=SC2053
		[[ $1 == $g ]] && return 0
	done
	return 1
}

mac_of() { printf '02:00:00:00:%02x:%02x' $(($1 >> 8)) $(($1 & 255)); }

wait_for() { # SECONDS COMMAND...
	local i
	for i in $(seq $(($1 * 10))); do
		"${@:2}" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# ---- forwarders (DUT) -------------------------------------------------------

# dut_start SYS IFACE NPODS: SYS testpmd|bridge|xconnect; sockets $T/pI.sock.
dut_start() {
	local sys=$1 iface=$2 n=$3 i vdevs=() fifo=$T/dut.in ctl=("$BUILD/podwirectl" --socket "$T/pw.sock")
	rm -f "$T"/p*.sock
	[ "$sys" != ovs ] || { ovs_start "$n"; return; }
	if [ "$sys" = testpmd ]; then
		for i in $(seq 0 $((n - 1))); do
			if [ "$iface" = vhost ]; then
				vdevs+=(--vdev "net_vhost$i,iface=$T/p$i.sock,queues=1")
			else
				vdevs+=(--vdev "net_memif$i,role=server,socket=$T/p$i.sock,socket-abstract=no")
			fi
		done
		rm -f "$fifo"
		mkfifo "$fifo"
		# Without -i, testpmd forwards until its stdin closes (dut_stop).
		dpdk-testpmd -l "$GEN_CPU,$DUT_CPU" --main-lcore "$GEN_CPU" \
			--file-prefix "$PFX-dut" --in-memory --no-pci --log-level '*:notice' \
			"${vdevs[@]}" -- --forward-mode=io --nb-cores=1 --stats-period 0 \
			<"$fifo" >"$T/dut.log" 2>&1 &
		DUT_PID=$!
		exec {DUT_FD}>"$fifo"
		wait_for 20 test -S "$T/p$((n - 1)).sock"
		return 0
	fi
	rm -rf "$T/state"
	"$BUILD/podwired" --main-core "$GEN_CPU" --worker-cores "$DUT_CPU" \
		--socket "$T/pw.sock" --state-dir "$T/state" --log-level warning \
		>"$T/dut.log" 2>&1 &
	DUT_PID=$!
	wait_for 30 "${ctl[@]}" info
	"${ctl[@]}" network add bench --mode "$sys" >/dev/null
	for i in $(seq 0 $((n - 1))); do
		"${ctl[@]}" port add "p$i" --network bench --socket "$T/p$i.sock" --mac "$(mac_of "$i")" \
			--type "$([ "$iface" = vhost ] && echo vhost-user || echo memif)" >/dev/null
	done
}

# dut_stop: stops the forwarder; returns its exit status.
dut_stop() {
	local rc=0
	[ -n "$DUT_PID" ] || return 0
	if [ -n "$DUT_FD" ]; then
		exec {DUT_FD}>&-
		DUT_FD=""
		wait_for 5 eval "! kill -0 $DUT_PID" || true
	fi
	kill -TERM "$DUT_PID" 2>/dev/null || true
	wait_for 5 eval "! kill -0 $DUT_PID" || kill -KILL "$DUT_PID" 2>/dev/null || true
	wait "$DUT_PID" 2>/dev/null || rc=$?
	DUT_PID=""
	ovs_stop_db
	return $rc
}

# bench IFACE NPODS OUTFILE [podwire-bench options...]: the generator on
# GEN_CPU, one pod per socket; its JSON goes to OUTFILE.
bench() {
	local iface=$1 n=$2 out=$3 i vdevs=() rc=0
	shift 3
	for i in $(seq 0 $((n - 1))); do
		if [ "$iface" = vhost ]; then
			# VHOST_EXTRA: ",server=1" when the forwarder is the client (OVS).
			vdevs+=(--vdev "net_virtio_user$i,path=$T/p$i.sock,mac=$(mac_of "$i"),queues=1${VHOST_EXTRA:-}")
		else
			vdevs+=(--vdev "net_memif$i,role=client,socket=$T/p$i.sock,socket-abstract=no,mac=$(mac_of "$i")")
		fi
	done
	"$BENCH" --lcores "0@$GEN_CPU" --file-prefix "$PFX-gen" --in-memory \
		--single-file-segments --no-pci --log-level '*:notice' "${vdevs[@]}" \
		-- --warmup "$WARMUP" --duration "$DURATION" --json "$@" \
		>"$out" 2>"$T/gen.log" || rc=$?
	if [ $rc -ne 0 ] || ! jq -e . "$out" >/dev/null 2>&1; then
		echo "suite: podwire-bench failed ($rc) for $out; its log:" >&2
		tail -n 20 "$T/gen.log" >&2
		return 1
	fi
}

# one_round NAME SYS IFACE NPODS FILE [podwire-bench options...]: one
# measurement into FILE. A run that received nothing (a link that never
# came up) is tried once more. A forwarder that exits badly leaves its log
# in logs/.
one_round() {
	local name=$1 sys=$2 iface=$3 n=$4 f=$5 try ok rc
	shift 5
	for try in 1 2; do
		[ "$try" = 1 ] || echo "suite: $name again: nothing was received" >&2
		ok=0
		if dut_start "$sys" "$iface" "$n" && bench "$iface" "$n" "$f" "$@"; then ok=1; fi
		rc=0
		dut_stop || rc=$?
		# 143: ended by our SIGTERM (ovs-vswitchd's way), not a crash.
		if [ $rc -ne 0 ] && [ $rc -ne 143 ]; then
			mkdir -p "$OUT/logs"
			cp "$T/dut.log" "$OUT/logs/${name//:/_}-$sys.log"
			echo "suite: $name: the forwarder ($sys) exited with status $rc;" \
				"log: $OUT/logs/${name//:/_}-$sys.log" >&2
		fi
		[ $ok = 1 ] || return 1
		jq -e '.rx_packets == 0' "$f" >/dev/null || return 0
	done
	return 0
}

# cell NAME SYS IFACE NPODS [podwire-bench options...]: ROUNDS measurements,
# the median one saved as cells/NAME.json (":" become "_") with every
# round's figure added as .rounds. The median is over received Mpps, or the
# NDR for a search, or p99 latency for a fixed-rate run. A failed cell is
# recorded as an error and the suite goes on.
cell() {
	local name=$1 sys=$2 iface=$3 n=$4 f r key=.rx_mpps files=()
	shift 4
	f=$OUT/cells/${name//:/_}.json
	case " $* " in
	*" --ndr "*) key=.ndr.ndr_pps ;;
	*" --rate "*) key=.latency_ns.p99 ;;
	esac
	for r in $(seq "$ROUNDS"); do
		echo "suite: $name (round $r of $ROUNDS)" >&2
		one_round "$name" "$sys" "$iface" "$n" "$f.$r" "$@" && files+=("$f.$r")
	done
	if [ ${#files[@]} -eq 0 ]; then
		echo "{\"error\": \"see the suite's output\"}" >"$f"
		return 1
	fi
	jq -s --arg key "$key" '
		(sort_by(getpath($key | ltrimstr(".") | split(".")) // 0)) as $s
		| $s[(length - 1) / 2 | floor]
		+ {rounds: [.[] | {rx_mpps, p99_ns: .latency_ns.p99, ndr_pps: .ndr.ndr_pps}],
		   median_of: $key}' "${files[@]}" >"$f"
	rm -f "${files[@]}"
}

# row NAME: the summary fields of one cell's JSON.
row() {
	jq -c '{mpps: (.rx_mpps // null), gbps: (.rx_gbps // null), loss: (.loss // null),
		p50_ns: (.latency_ns.p50 // null), p99_ns: (.latency_ns.p99 // null),
		offered_pps: (.offered_pps // null), ndr: (.ndr // null), error: (.error // null),
		rounds: ([.rounds[]?.rx_mpps] | if length > 1 then . else null end)}' \
		"$OUT/cells/${1//:/_}.json"
}

RESULTS=$T/results.jsonl # one line per cell: {part, ...keys, ...row}
record() { # PART KEYS-JSON CELL
	jq -c --arg part "$1" --argjson k "$2" --argjson r "$(row "$3")" \
		-n '{part: $part} + $k + $r' >>"$RESULTS"
}
: >"$RESULTS"

# ---- 1. main comparison -----------------------------------------------------
for iface in vhost memif; do
	for size in $SIZES; do
		for sys in testpmd bridge xconnect; do
			name=main:$iface:$sys:$size
			want "$name" || continue
			cell "$name" "$sys" "$iface" 2 --size "$size" || true
			record main "{\"iface\":\"$iface\",\"system\":\"$sys\",\"size\":$size}" "$name"
		done
	done
done

# ---- 2. scaling -------------------------------------------------------------
for n in $PODS_LIST; do
	name=scale:$n
	want "$name" || continue
	# Smaller rings so that 128 pods' mbufs fit in the generator's hugepages.
	cell "$name" bridge vhost "$n" --size 64 --ring 256 || true
	record scale "{\"pods\":$n}" "$name"
done

# ---- 3. latency at a fraction of the NDR ------------------------------------
LAT_PCTS=""
for pct in 10 50 90; do want "latency:$pct" && LAT_PCTS+=" $pct"; done
if [ -n "$LAT_PCTS" ]; then
	if cell latency:ndr bridge vhost 2 --size 64 --ndr --trial "$TRIAL" \
		--resolution "$RESOLUTION"; then
		ndr=$(jq -r .ndr.ndr_pps "$OUT/cells/latency_ndr.json")
	else
		ndr=0
	fi
	record latency '{"pct":100}' latency:ndr
	for pct in $LAT_PCTS; do
		rate=$(awk -v n="$ndr" -v p="$pct" 'BEGIN {printf "%.0f", n * p / 100}')
		if [ "$rate" -gt 0 ]; then
			cell "latency:$pct" bridge vhost 2 --size 64 --rate "$rate" || true
		else
			echo '{"error": "no NDR"}' >"$OUT/cells/latency_$pct.json"
		fi
		record latency "{\"pct\":$pct,\"rate_pps\":$rate}" "latency:$pct"
	done
fi

# ---- 4. Open vSwitch with DPDK ----------------------------------------------
OVS_NOTE=""
OVS_SIZES=""
for size in $SIZES; do want "ovs:$size" && OVS_SIZES+=" $size"; done
if [ -n "$OVS_SIZES" ] && ! ovs_installed; then
	OVS_NOTE="ovs: skipped, openvswitch-switch-dpdk is not installed (apt-get install openvswitch-switch-dpdk)"
	echo "suite: $OVS_NOTE" >&2
elif [ -n "$OVS_SIZES" ]; then
	OVS_NOTE="ovs: ovs-vswitchd-dpdk $(ovs-vsctl --version | sed -n '1s/.* //p'), NORMAL action, dpdkvhostuserclient ports"
	for size in $OVS_SIZES; do
		VHOST_EXTRA=,server=1 cell "ovs:$size" ovs vhost 2 --size "$size" || true
		record main "{\"iface\":\"vhost\",\"system\":\"ovs\",\"size\":$size}" "ovs:$size"
	done
fi

# ---- summary ----------------------------------------------------------------
jq -s --arg note "$OVS_NOTE" --arg host "$(hostname)" --arg date "$(date -u +%FT%TZ)" \
	--argjson dur "$DURATION" --argjson quick "$QUICK" --argjson rounds "$ROUNDS" '
	def ratio($a; $b): if ($a != null and $b != null and $b > 0) then $a / $b else null end;
	(map(select(.part == "main"))) as $m
	| {date: $date, host: $host, quick: ($quick == 1), duration_s: $dur, rounds: $rounds,
	   cores: {generator: 0, forwarder: 1},
	   main: [$m[] | . as $r
		| ([$m[] | select(.iface == $r.iface and .size == $r.size and .system == "testpmd")
		   | .mpps] | first) as $base
		| $r + {ratio_to_testpmd: ratio($r.mpps; $base)}],
	   scaling: [.[] | select(.part == "scale") | del(.part)],
	   latency: [.[] | select(.part == "latency") | del(.part)],
	   ovs: {skipped: ($note | startswith("ovs: skipped") or . == ""), note: $note,
		 bridge_over_ovs: [$m[] | select(.system == "ovs") | . as $o
			| {size: .size, ratio: ratio([$m[] | select(.iface == "vhost" and
				.size == $o.size and .system == "bridge") | .mpps] | first; $o.mpps)}]}}' "$RESULTS" >"$OUT/summary.json"

jq -e '.main | length > 0' "$OUT/summary.json" >/dev/null &&
	printf '\n%-6s %-9s %5s %8s %8s %9s %9s %9s %7s\n' IFACE SYSTEM SIZE MPPS GBIT/S LOSS P50-US P99-US RATIO
jq -r '.main[] | [.iface, .system, .size, (.mpps // "err"), (.gbps // "-"), (.loss // "-"),
	(.p50_ns // "-"), (.p99_ns // "-"), (.ratio_to_testpmd // "-")] | @tsv' "$OUT/summary.json" |
	awk -F'\t' '
	# f(value, width, precision, divisor): a number formatted, anything else as is.
	function f(v, w, p, d) { return v ~ /^-?[0-9]/ ? sprintf("%" w "." p "f", v / d) : sprintf("%" w "s", v) }
	{ printf "%-6s %-9s %5s %s %s %s %s %s %s\n", $1, $2, $3, f($4, 8, 3, 1), f($5, 8, 3, 1),
		f($6, 9, 5, 1), f($7, 9, 2, 1000), f($8, 9, 2, 1000), f($9, 7, 3, 1) }'
if jq -e '.scaling | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\nscaling (podwired bridge, vhost-user, 64 B, one worker)\n%6s %8s %8s\n' PODS MPPS LOSS
	jq -r '.scaling[] | "\(.pods) \(.mpps // 0) \(.loss // 0)"' "$OUT/summary.json" |
		while read -r a b c; do printf '%6s %8.3f %8.5f\n' "$a" "$b" "$c"; done
	jq -r '.scaling[] | select(.mpps != null) | "\(.pods) \(.mpps)"' "$OUT/summary.json" \
		>"$OUT/scaling.dat"
	if command -v gnuplot >/dev/null; then
		gnuplot -e "set terminal png size 800,500; set output '$OUT/scaling.png';
			set logscale x 2; set xlabel 'pods'; set ylabel 'aggregate Mpps';
			set yrange [0:*]; set title 'podwired bridge, vhost-user, 64 B, one worker';
			plot '$OUT/scaling.dat' with linespoints title 'Mpps'"
	else
		echo "(no plot: gnuplot is not installed; apt-get install gnuplot-nox, data in $OUT/scaling.dat)"
	fi
fi
if jq -e '.latency | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\nlatency (podwired bridge, vhost-user, 64 B)\n%8s %10s %8s %8s %9s\n' \
		%NDR RATE-MPPS P50-US P99-US LOSS
	jq -r '.latency[] | "\(.pct) \((.rate_pps // .ndr.ndr_pps // 0) / 1e6) \((.p50_ns // 0) / 1000) \((.p99_ns // 0) / 1000) \(.loss // 0)"' \
		"$OUT/summary.json" | while read -r a b c d e; do
		printf '%8s %10.3f %8.2f %8.2f %9.5f\n' "$a" "$b" "$c" "$d" "$e"
	done
	jq -e '.latency[] | select(.pct == 100) | .ndr.ndr_loss > 0' "$OUT/summary.json" \
		>/dev/null 2>&1 && echo "(the search found no zero-loss rate: the NDR row is its" \
		"lowest trial rate, so the percentages are of that rate, not of an NDR)"
fi
[ -z "$OVS_NOTE" ] || echo "$OVS_NOTE"
echo "results: $OUT/summary.json"
