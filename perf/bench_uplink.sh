#!/bin/bash
# Uplink throughput: AF_XDP against AF_PACKET uplinks, same generator, same
# cores, same frames.
#
#   pod 0 --vhost-user-- podwired --uplink, VLAN 100-- veth --uplink-- podwired --vhost-user-- pod 1
#
# The generator is podwire-bench acting as both pods (each sends to the
# other, so both directions cross the uplink), on its own core. Two
# topologies, each cell with fresh namespaces, veth pair and podwireds:
#   two-nodes   two network namespaces, a podwired in each, one veth end in
#               each: node A's pod -> podwired A -> va -> vb -> podwired B
#               -> node B's pod (and back). Both workers on WORKER_CPU.
#   one-worker  one namespace and one podwired holding both veth ends (two
#               networks, an uplink on each end): the same path, both
#               "nodes" served by one worker, so nothing but the forwarding
#               shares its core.
# On a machine with 2 cores the two workers of two-nodes take turns on one
# core: each uplink's receive ring (1024 frames for both drivers) must hold
# everything that arrives while its worker waits for the other's time
# slice, so that topology measures ring depth over the scheduler period,
# the same for both drivers. one-worker measures what the drivers cost.
# With 3 cores or more, WORKER_B_CPU=2 gives node B its own core.
#
# Usage: perf/bench_uplink.sh [--rounds N] [--duration SEC] [--sizes "64 1518"]
#          [--modes "af_xdp af_packet"] [--topologies "one-worker two-nodes"]
#          [--rate PPS] [--quick] [--json FILE]
#   --quick  one round of 1 s cells, for a smoke run; the figures mean nothing
# Cores: GEN_CPU (generator, default 0), CTL_CPU (podwireds' control
# threads, default 0), WORKER_CPU (default 1), WORKER_B_CPU (node B's
# worker in two-nodes, default WORKER_CPU).
# It is a report, not a test: it prints figures and ratios and asserts nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PODWIRE_BUILD:-$ROOT/build}
BENCH=$BUILD/podwire-bench
GEN_CPU=${GEN_CPU:-0}
CTL_CPU=${CTL_CPU:-0}
WORKER_CPU=${WORKER_CPU:-1}
WORKER_B_CPU=${WORKER_B_CPU:-$WORKER_CPU}
ROUNDS=5
DURATION=5
WARMUP=1
SIZES="64 1518"
MODES="af_xdp af_packet"
TOPOLOGIES="one-worker two-nodes"
RATE=""
JSON_OUT=""
usage() {
	sed -n '/^# Usage/,/^# It is/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
	--modes) MODES=$2; shift 2 ;;
	--topologies) TOPOLOGIES=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--quick) ROUNDS=1 DURATION=1 WARMUP=0.3; shift ;;
	--json) JSON_OUT=$2; shift 2 ;;
	*) usage ;;
	esac
done
JSON_OUT=${JSON_OUT:-$ROOT/perf/results/uplink-$(date -u +%Y%m%dT%H%M%SZ).json}

for f in "$BENCH" "$BUILD/podwired" "$BUILD/podwirectl"; do
	[ -x "$f" ] || { echo "bench_uplink: $f is not built; run: ninja -C $BUILD" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "bench_uplink: jq is missing (apt-get install jq)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench_uplink: run as root (network namespaces, AF_XDP)" >&2; exit 1; }

T=$(mktemp -d /tmp/pwu.XXXXXX)
PFX=pwu$$
NA=${PFX}a
NB=${PFX}b
declare -A PW_PID=()
GEN_PID=""
MAC0=02:00:00:00:0a:01
MAC1=02:00:00:00:0b:01

stop_pid() {
	local i
	kill -TERM "$1" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
# nodes_down: stops what a cell started (by PID) and removes its namespaces
# (and with them the veth pair).
nodes_down() {
	local n
	[ -z "$GEN_PID" ] || stop_pid "$GEN_PID"
	GEN_PID=""
	for n in "${!PW_PID[@]}"; do stop_pid "${PW_PID[$n]}"; done
	PW_PID=()
	ip netns del $NA 2>/dev/null || true
	ip netns del $NB 2>/dev/null || true
	rm -rf "$T"/*.state "$T"/*.sock
}
cleanup() {
	set +e
	nodes_down
	rm -rf "$T" /var/run/dpdk/"$PFX"-*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() { # SECONDS COMMAND...
	local i
	for i in $(seq $(($1 * 10))); do
		"${@:2}" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
ctl() { "$BUILD/podwirectl" --socket "$T/$1.sock" "${@:2}"; }
link_up() { [ "$(ctl "$1" --json port show "$2" | jq -r .link)" = up ]; }

# pw_start NAME NETNS WORKER_CPU: a podwired in a namespace (`ip netns
# exec` execs it, so the PID is podwired's).
pw_start() {
	ip netns exec "$2" "$BUILD/podwired" --main-core "$CTL_CPU" --worker-cores "$3" \
		--socket "$T/$1.sock" --state-dir "$T/$1.state" --cdi-dir "$T/$1.cdi" --log-level warning \
		>"$T/$1.log" 2>&1 &
	PW_PID[$1]=$!
	wait_for 30 ctl "$1" info || { echo "bench_uplink: podwired $1 did not start:" >&2; tail -n 20 "$T/$1.log" >&2; return 1; }
}

# nodes_up TOPOLOGY MODE: namespaces, a veth pair (one queue each way, as
# AF_XDP needs), podwired(s), network(s) with VLAN 100, the uplinks, and
# vhost-user ports p0 (pod 0, node A) and p1 (pod 1, node B).
# Sets UP_A/UP_B ("daemon port") for the stats.
nodes_up() {
	local topo=$1 mode=$2 ns
	for ns in $NA $NB; do
		ip netns add "$ns"
		# No IPv6 chatter from the kernels on the uplink.
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
	done
	if [ "$topo" = two-nodes ]; then
		ip -n $NA link add va numtxqueues 1 numrxqueues 1 type veth \
			peer name vb netns $NB numtxqueues 1 numrxqueues 1
		ip -n $NA link set va up
		ip -n $NB link set vb up
		pw_start a $NA "$WORKER_CPU"
		pw_start b $NB "$WORKER_B_CPU"
		ctl a network add net --vlan 100 >/dev/null
		ctl b network add net --vlan 100 >/dev/null
		ctl a port add up --network net --type "$mode" --iface va >/dev/null
		ctl b port add up --network net --type "$mode" --iface vb >/dev/null
		ctl a port add p0 --network net --type vhost-user --socket "$T/p0.sock" --mac $MAC0 >/dev/null
		ctl b port add p1 --network net --type vhost-user --socket "$T/p1.sock" --mac $MAC1 >/dev/null
		UP_A="a up"
		UP_B="b up"
	else
		ip -n $NA link add va numtxqueues 1 numrxqueues 1 type veth \
			peer name vb numtxqueues 1 numrxqueues 1
		ip -n $NA link set va up
		ip -n $NA link set vb up
		pw_start a $NA "$WORKER_CPU"
		# Two networks, one per "node": frames cross the veth between them.
		ctl a network add net-a --vlan 100 >/dev/null
		ctl a network add net-b --vlan 100 >/dev/null
		ctl a port add up-a --network net-a --type "$mode" --iface va >/dev/null
		ctl a port add up-b --network net-b --type "$mode" --iface vb >/dev/null
		ctl a port add p0 --network net-a --type vhost-user --socket "$T/p0.sock" --mac $MAC0 >/dev/null
		ctl a port add p1 --network net-b --type vhost-user --socket "$T/p1.sock" --mac $MAC1 >/dev/null
		UP_A="a up-a"
		UP_B="a up-b"
	fi
	# shellcheck disable=SC2086
	wait_for 20 link_up $UP_A && wait_for 20 link_up $UP_B ||
		{ echo "bench_uplink: uplink link not up" >&2; return 1; }
}

# uplink_json "DAEMON PORT": the port's uplink object and counters.
uplink_json() {
	# shellcheck disable=SC2086
	set -- $1
	ctl "$1" --json port show "$2" | jq -c '{driver: .uplink.driver, rx: .stats.rx_packets,
		tx: .stats.tx_packets, tx_full: .stats.drops.tx_full, unknown_vlan: .uplink.unknown_vlan}'
}

# cell TOPOLOGY MODE SIZE ROUND: one measurement; appends a line to
# $T/cells.jsonl. A cell that fails is kept with "error" set.
cell() {
	local topo=$1 mode=$2 size=$3 round=$4 out=$T/gen.json err="" ua ub cyc frames c f d
	echo "bench_uplink: round $round $topo $mode ${size}B" >&2
	if nodes_up "$topo" "$mode"; then
		"$BENCH" --lcores "0@$GEN_CPU" --file-prefix "$PFX-gen" --in-memory \
			--single-file-segments --no-pci --log-level '*:notice' \
			--vdev "net_virtio_user0,path=$T/p0.sock,mac=$MAC0,queues=1" \
			--vdev "net_virtio_user1,path=$T/p1.sock,mac=$MAC1,queues=1" \
			-- --warmup "$WARMUP" --duration "$DURATION" --size "$size" --json \
			${RATE:+--rate "$RATE"} >"$out" 2>"$T/gen.log" &
		GEN_PID=$!
		wait "$GEN_PID" || err="podwire-bench exited with status $?: $(tail -n 3 "$T/gen.log" | tr '\n' ' ')"
		GEN_PID=""
		jq -e . "$out" >/dev/null 2>&1 || err=${err:-"podwire-bench wrote no JSON"}
	else
		err="setup failed: $(tail -n 3 "$T"/*.log 2>/dev/null | tr '\n' ' ')"
	fi
	if [ -z "$err" ]; then
		ua=$(uplink_json "$UP_A")
		ub=$(uplink_json "$UP_B")
		# AF_XDP may fall back to AF_PACKET: such a cell is not an AF_XDP figure.
		for d in "$ua" "$ub"; do
			[ "$(jq -r .driver <<<"$d")" = "$mode" ] ||
				err="uplink driver is \"$(jq -r .driver <<<"$d")\", not $mode"
		done
		# Worker busy cycles per frame received on any port, over the
		# podwireds of the cell (see perf/README.md for what it includes).
		cyc=0 frames=0
		for d in "${!PW_PID[@]}"; do
			read -r c f < <(ctl "$d" --json stats |
				jq -r '"\([.workers[].busy_cycles] | add) \([.ports[].rx_packets] | add)"')
			cyc=$((cyc + c)) frames=$((frames + f))
		done
		jq -c -n --arg topo "$topo" --arg mode "$mode" --argjson size "$size" \
			--argjson round "$round" --argjson a "$ua" --argjson b "$ub" \
			--argjson cyc "$cyc" --argjson frames "$frames" --arg err "$err" \
			--slurpfile g "$out" '
			$g[0] as $g | ($a.tx + $b.tx) as $sent | ($a.rx + $b.rx) as $got |
			{topology: $topo, mode: $mode, size: $size, round: $round,
			 driver: $a.driver, mpps: $g.rx_mpps, gbps: $g.rx_gbps, loss: $g.loss,
			 offered_mpps: $g.tx_mpps, tx_ring_full: $g.tx_ring_full,
			 p50_ns: $g.latency_ns.p50, p99_ns: $g.latency_ns.p99,
			 uplink_sent: $sent, uplink_received: $got,
			 uplink_loss: (if $sent > 0 then ($sent - $got) / $sent else null end),
			 uplink_tx_full: ($a.tx_full + $b.tx_full),
			 unknown_vlan: ($a.unknown_vlan + $b.unknown_vlan),
			 cycles_per_frame: (if $frames > 0 then ($cyc / $frames | floor) else null end),
			 directions: $g.directions,
			 error: (if $err == "" then null else $err end)}' >>"$T/cells.jsonl"
	else
		echo "bench_uplink: $topo $mode ${size}B: $err" >&2
		jq -c -n --arg topo "$topo" --arg mode "$mode" --argjson size "$size" \
			--argjson round "$round" --arg err "$err" \
			'{topology: $topo, mode: $mode, size: $size, round: $round, error: $err}' \
			>>"$T/cells.jsonl"
	fi
	nodes_down
}

: >"$T/cells.jsonl"
START=$(date +%s)
# Rounds: every cell once per round, so a ratio compares runs made under the
# same conditions (a shared VM's speed drifts over minutes).
for round in $(seq "$ROUNDS"); do
	for topo in $TOPOLOGIES; do
		for size in $SIZES; do
			for mode in $MODES; do
				cell "$topo" "$mode" "$size" "$round"
			done
		done
	done
done

# Medians over rounds; the ratio is the median of per-round ratios of each
# mode's Mpps to af_packet's (same topology, size and round).
mkdir -p "$(dirname "$JSON_OUT")"
jq -s --arg date "$(date -u +%FT%TZ)" --arg kernel "$(uname -r)" --argjson cores "$(nproc)" \
	--argjson rounds "$ROUNDS" --argjson duration "$DURATION" --argjson gen "$GEN_CPU" \
	--argjson ctl "$CTL_CPU" --argjson wa "$WORKER_CPU" --argjson wb "$WORKER_B_CPU" \
	--arg rate "$RATE" --argjson secs $(($(date +%s) - START)) '
	def median: sort | if length == 0 then null
		elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	. as $cells |
	[$cells[] | select(.error == null)] as $ok |
	{date: $date, kernel: $kernel, cores: $cores, rounds: $rounds, duration_sec: $duration,
	 rate_pps: (if $rate == "" then null else ($rate | tonumber) end), wall_sec: $secs,
	 pinning: {generator_cpu: $gen, control_cpu: $ctl, worker_cpu: $wa, node_b_worker_cpu: $wb},
	 summary: [$ok | group_by([.topology, .size, .mode])[] | . as $g |
		{topology: $g[0].topology, size: $g[0].size, mode: $g[0].mode,
		 runs: ($g | length),
		 mpps: ([$g[].mpps] | median), gbps: ([$g[].gbps] | median),
		 loss: ([$g[].loss] | median), uplink_loss: ([$g[].uplink_loss] | median),
		 cycles_per_frame: ([$g[].cycles_per_frame] | median),
		 p50_ns: ([$g[].p50_ns] | median),
		 best_mpps: ([$g[].mpps] | max),
		 ratio_to_af_packet: ([$g[] | . as $c |
			($ok[] | select(.topology == $c.topology and .size == $c.size and
				.round == $c.round and .mode == "af_packet") | .mpps) as $p |
			select($p > 0) | $c.mpps / $p] | median)}],
	 errors: [$cells[] | select(.error != null)],
	 cells: $cells}' "$T/cells.jsonl" >"$JSON_OUT"

printf '\n%-11s %5s %-10s %8s %8s %7s %7s %8s %8s %11s\n' TOPOLOGY SIZE UPLINK MPPS 'GBIT/S' LOSS \
	UP-LOSS CYC/FRM BEST 'VS-PACKET'
jq -r '.summary[] | [.topology, .size, .mode, .mpps, .gbps, .loss, .uplink_loss,
	.cycles_per_frame, .best_mpps, .ratio_to_af_packet] | @tsv' "$JSON_OUT" |
	while IFS=$'\t' read -r topo size mode mpps gbps loss uloss cyc best ratio; do
		printf '%-11s %5s %-10s %8.3f %8.3f %6.1f%% %6.1f%% %8s %8.3f %11s\n' "$topo" "$size" \
			"$mode" "$mpps" "$gbps" "$(awk -v l="$loss" 'BEGIN {print l * 100}')" \
			"$(awk -v l="${uloss:-0}" 'BEGIN {print (l == "null" ? 0 : l) * 100}')" \
			"${cyc:-null}" "$best" "$(awk -v r="$ratio" 'BEGIN {if (r == "null" || r == "") print "-"; else printf "%.2f", r}')"
	done
nerr=$(jq '.errors | length' "$JSON_OUT")
[ "$nerr" = 0 ] || echo "($nerr cell(s) failed; see \"errors\" in the JSON)"
cat <<EOT
(podwire-bench as 2 pods, one per side, each sending to the other at full speed${RATE:+ (--rate $RATE)};
 $ROUNDS round(s) of ${DURATION}s per cell after ${WARMUP}s warm-up; medians over rounds.
 Pinning on this $(nproc)-core machine: generator on core $GEN_CPU, podwired control threads on
 core $CTL_CPU, worker(s) on core $WORKER_CPU$([ "$WORKER_B_CPU" = "$WORKER_CPU" ] || echo ", node B's on core $WORKER_B_CPU");
 in two-nodes both podwireds' workers $([ "$WORKER_B_CPU" = "$WORKER_CPU" ] && echo "share core $WORKER_CPU" || echo "have a core each").
 The kernel's half of each uplink (veth, XDP, AF_XDP/AF_PACKET copies) runs on
 the workers' core, in their send calls and in softirq.
 MPPS, GBIT/S: received by the pods (both directions, frame bytes with FCS);
 LOSS: of what the generator offered (full speed: mostly refused by full rings);
 UP-LOSS: frames one podwired sent on its uplink that the other never got;
 CYC/FRM: worker busy cycles per frame received on any port (includes the
 kernel's uplink work, and time slices lost to the other worker when shared);
 VS-PACKET: median per-round ratio of MPPS to af_packet's. The figure to read
 is one-worker's VS-PACKET; with a shared worker core, two-nodes is bounded by
 receive ring depth over the scheduler period, the same for both drivers.)
JSON: $JSON_OUT
EOT
