#!/bin/bash
# Several queues per pod, spread over two workers (issue 23): podwired with
# two workers (--main-core 0 --worker-cores 0,1, worker 0 beside the
# control thread), two memif pods of podwire-bench with 2 queue pairs
# each, both ways. A flow is (source pod, its queue, destination pod);
# podwire-bench counts per flow the frames lost in the switch, delivered
# twice, and out of order (podwire-bench --queues).
#
# 1. Static placements: podwired's own, every rx queue on worker 0, every
#    one on worker 1, and crossed (each pod's two queues on different
#    workers, so both workers deliver to each pod at once, on its two
#    rings). In each: every flow arrives whole, once, in order. This is not
#    timing luck: one worker reads a queue's ring in order, sends the
#    flow's frames in order on one ring of the destination (its own,
#    worker % rings), and the pod reads that ring in order.
# 2. Moves under traffic: pod 0's queue 0 is pinned to the other worker
#    MOVES times (queue.pin), the rest stay. Then:
#    - every flow: nothing lost, nothing duplicated;
#    - every flow of a queue that never moved: nothing out of order (the
#      argument above holds for it throughout);
#    - the moved flow: out of order at most MOVES x (ring + 32). At a move
#      the new worker delivers on another ring of the destination pod,
#      which reads its rings in turn, so frames still on the old path
#      (at most a ring of the pod, plus the burst the old worker holds)
#      can arrive after newer ones: that switch-over, and nothing else.
# The rate is low and the rings long (2048) so that a worker time-sliced
# with the generator on core 0 (tens of ms) never fills a ring: a loss
# here is the switch's.
# As of 2026-11-28 part 2 fails now and then (1 run in 3 at the defaults;
# 1 in 2 with BENCH_QUEUES_STATIC=0 BENCH_QUEUES_MOVES=40): a move
# publishes one view, so the queue's new worker may poll its ring while
# the old one, still in its turn on the old view, does too. Seen as a
# whole ring's worth of frames delivered twice, or as podwired cutting
# the pod off ("s2m ring head ... is more than a ring ahead of ..."). The
# fix is podwired's (unpoll, wait a grace period, then poll on the new
# worker), not this test's.
# Knobs, for reproducing a failure: BENCH_QUEUES_RATE (pps, default
# 60000), BENCH_QUEUES_MOVES (default 20), BENCH_QUEUES_STATIC=0 (moves
# only).
# shellcheck disable=SC2034 # lib.sh starts podwired with it
WORKER_CPU=0,1
. "$(dirname "$0")/lib.sh"

BENCH=$BUILD/podwire-bench
[ -x "$BENCH" ] || fail "$BENCH is not built; run: ninja -C $BUILD"
RING=2048
RATE=${BENCH_QUEUES_RATE:-60000}
MOVES=${BENCH_QUEUES_MOVES:-20}
MAC0=02:00:00:00:0a:01
MAC1=02:00:00:00:0b:01

daemon_start q
expect_eq "workers' cores" "0 1" "$(rpc q queue.list | jq -r '[.result.workers[].lcore] | map(tostring) | join(" ")')"
ctl q network add n >/dev/null
for i in 0 1; do
	mac=$([ $i = 0 ] && echo $MAC0 || echo $MAC1)
	out=$(rpc q port.create "{\"name\": \"p$i\", \"network\": \"n\", \"type\": \"memif\",
		\"socket\": \"$T/p$i.sock\", \"mac\": \"$mac\", \"queues\": 2}")
	jq -e '.result' <<<"$out" >/dev/null || fail "port p$i with 2 queues: $out"
done

# queues: "port q worker enabled rx_total tx_total" per rx queue 0-1.
queues() {
	rpc q queue.list | jq -r '.result.queues[] | select(.queue < 2)
		| "\(.port) \(.queue) \(.worker) \(.enabled) \(.rx_packets_total) \(.tx_packets_total)"'
}
pin() { # PORT QUEUE CORE
	local out
	out=$(rpc q queue.pin "{\"port\": \"$1\", \"queue\": $2, \"worker\": $3}")
	[ "$(jq -r '.result.worker' <<<"$out")" = "$3" ] || fail "queue.pin $1 $2 $3: $out"
}

# bench NAME: podwire-bench in the background, its JSON in $T/NAME.json.
bench() {
	"$BENCH" --lcores "0@0" --file-prefix "pwt$$-b" --in-memory --no-pci \
		--log-level '*:notice' -- --memif "$T/p0.sock,mac=$MAC0" \
		--memif "$T/p1.sock,mac=$MAC1" --queues 2 --ring $RING --rate "$RATE" \
		--warmup 0.5 --duration "$2" --json >"$T/$1.json" 2>"$T/pod-$1.log" &
	POD_PID[$1]=$!
}
bench_wait() {
	local rc=0
	wait "${POD_PID[$1]}" || rc=$?
	unset "POD_PID[$1]"
	[ $rc -eq 0 ] || { cat "$T/pod-$1.log"; fail "podwire-bench ($1) exited with status $rc"; }
}

# flows NAME: "src queue dst tx rx refused lost ooo dup" per flow.
flows() {
	jq -r '.directions[] as $d | $d.queues[] |
		"\($d.src) \(.queue) \($d.dst) \(.tx_packets) \(.rx_packets) \(.refused) \(.lost) \(.out_of_order) \(.duplicates)"' \
		"$T/$1.json"
}

# check_whole NAME: every flow sent, and nothing lost, duplicated or
# unchecked; prints the flows.
check_whole() {
	local src q dst tx rx ref lost ooo dup n=0
	jq -e '.queues == 2 and .foreign == 0 and .unchecked == 0' "$T/$1.json" >/dev/null ||
		fail "$1: $(jq -c '{queues, foreign, unchecked}' "$T/$1.json")"
	while read -r src q dst tx rx ref lost ooo dup; do
		[ "$tx" -gt 1000 ] || fail "$1: flow $src/q$q -> $dst sent only $tx frames"
		[ "$lost" = 0 ] && [ "$dup" = 0 ] ||
			fail "$1: flow $src/q$q -> $dst: tx $tx (refused at the source $ref) rx $rx, lost $lost, duplicates $dup"
		n=$((n + 1))
	done < <(flows "$1")
	expect_eq "$1: flows checked" 4 "$n"
}

# ---- 1. static placements ------------------------------------------------------
place() { # NAME [CORE(p0q0) CORE(p0q1) CORE(p1q0) CORE(p1q1)]; none: podwired's
	[ $# -eq 1 ] || { pin p0 0 "$2"; pin p0 1 "$3"; pin p1 0 "$4"; pin p1 1 "$5"; }
}
PLACEMENTS=("auto" "all0 0 0 0 0" "all1 1 1 1 1" "crossed 0 1 1 0")
[ "${BENCH_QUEUES_STATIC:-1}" != 0 ] || PLACEMENTS=()
for placement in "${PLACEMENTS[@]}"; do
	# shellcheck disable=SC2086
	set -- $placement
	name=$1
	place "$@"
	queues >"$T/$name.before"
	bench "$name" 2
	wait_for 30 "podwire-bench ($name) to measure" grep -q 'measuring' "$T/pod-$name.log"
	queues >"$T/$name.during"
	bench_wait "$name"
	queues >"$T/$name.after"
	# Each rx queue enabled by its pod and carrying frames in this run.
	while read -r port qq worker enabled rx tx; do
		[ "$enabled" = true ] || fail "$name: $port queue $qq not enabled during the run"
		before=$(awk -v p="$port" -v q="$qq" '$1 == p && $2 == q {print $5}' "$T/$name.before")
		after=$(awk -v p="$port" -v q="$qq" '$1 == p && $2 == q {print $5}' "$T/$name.after")
		[ $((after - before)) -gt 1000 ] || fail "$name: $port rx queue $qq carried $((after - before)) frames"
	done <"$T/$name.during"
	where=$(awk '{printf "%s%s/q%s:core %s", (NR > 1 ? ", " : ""), $1, $2, $3}' "$T/$name.during")
	check_whole "$name"
	ooo=$(jq '.out_of_order' "$T/$name.json")
	expect_eq "$name ($where): frames out of order" 0 "$ooo"
	if [ "$name" = crossed ]; then
		# Both workers delivered to each pod, each on its own ring.
		for port in p0 p1; do
			for qq in 0 1; do
				b=$(awk -v p=$port -v q=$qq '$1 == p && $2 == q {print $6}' "$T/$name.before")
				a=$(awk -v p=$port -v q=$qq '$1 == p && $2 == q {print $6}' "$T/$name.after")
				[ $((a - b)) -gt 1000 ] || fail "crossed: $port's tx ring $qq carried $((a - b)) frames; both workers should deliver to it"
			done
		done
		ok "crossed: both workers delivered to each pod at once, on its two rings"
	fi
done

# ---- 2. moves under traffic ------------------------------------------------------
place crossed 0 1 1 0
# The moves, 0.15 s apart, end well within the measured window.
bench moves "$(awk -v m="$MOVES" 'BEGIN {print int(m * 0.15 + 2)}')"
wait_for 30 "podwire-bench (moves) to measure" grep -q 'measuring' "$T/pod-moves.log"
core=0
for _ in $(seq "$MOVES"); do
	core=$((1 - core))
	pin p0 0 $core
	sleep 0.15
done
bench_wait moves
check_whole moves
bound=$((MOVES * (RING + 32)))
while read -r src q dst tx rx ref lost ooo dup; do
	if [ "$src" = 0 ] && [ "$q" = 0 ]; then
		[ "$ooo" -le "$bound" ] ||
			fail "moves: the moved flow 0/q0 -> $dst had $ooo frames out of order, more than $MOVES switch-overs can explain ($bound)"
		ok "moves: the moved flow 0/q0 -> $dst: $rx frames, none lost or duplicated, $ooo out of order over $MOVES switch-overs (at most $bound)"
	else
		expect_eq "moves: flow $src/q$q -> $dst (its queue never moved): frames out of order" 0 "$ooo"
	fi
done < <(flows moves)
ok "every frame of every flow arrived once, in order but for the switch-overs of the moved queue"
