#!/bin/bash
# Rx queues on two workers (issue 23), with podwired's workers on both
# cores of this machine (--main-core 0 --worker-cores 0,1: accepted with
# a warning):
# - a memif pod with 2 queue pairs: each ring is a queue of its own,
#   placed on workers, both polled;
# - the balancer: a pod much busier than the others, every queue pinned
#   on one worker, then all unpinned but one: within two intervals the
#   busy pod's free queue moves to the idle worker; the pinned one never
#   moves; the log says what moved with the loads before and after;
# - pins are checked (unknown port, queue out of range, a core with no
#   worker) and kept in the state file across a restart;
# - idle naps: with --idle-sleep-max an idle worker's CPU time over 10 s
#   is a small share of it (from /proc), and traffic sent afterwards is
#   delivered.
# Nothing here waits for luck: every condition is polled with a bound,
# and the balancer's threshold is set low enough that a loaded worker
# passes it on a busy machine.
. "$(dirname "$0")/lib.sh"

A=02:00:00:00:23:0a B=02:00:00:00:23:0b C=02:00:00:00:23:0c
W0=$POD_CPU W1=$WORKER_CPU
INTERVAL=2

# queue_worker DAEMON PORT Q: the core of the worker polling queue Q.
queue_worker() {
	rpc "$1" queue.list "{\"port\": \"$2\"}" | jq -r ".result.queues[] | select(.queue == $3) | .worker"
}
queue_field() {
	rpc "$1" queue.list "{\"port\": \"$2\"}" | jq -r ".result.queues[] | select(.queue == $3) | .$4"
}
queue_on() { [ "$(queue_worker "$1" "$2" "$3")" = "$4" ]; }
queue_carries() { [ "$(queue_field "$1" "$2" "$3" rx_packets_total)" -gt "$4" ]; }
# refused DAEMON METHOD PARAMS FIELD: the call fails naming FIELD.
refused() {
	local out
	out=$(rpc "$1" "$2" "$3")
	echo "$out" | jq -e ".error.data.field == \"$4\"" >/dev/null ||
		fail "$2 $3: not refused naming $4: $out"
	ok "$2 $3: refused naming $4 ($(echo "$out" | jq -r .error.message))"
}

daemon_start pw --worker-cores "$W0,$W1" --rebalance on --rebalance-interval $INTERVAL \
	--rebalance-threshold 30
grep -q "worker 0 runs on main core $W0" "$T/pw.log" ||
	fail "no warning about a worker on the main core in $T/pw.log"
ok "a worker on the main core: accepted, with a warning"
expect_eq "workers" 2 "$(ctlj pw info | jq '.workers | length')"

ctl pw network add net >/dev/null
for p in a b c; do
	mac=${p^^}
	rpc pw port.create "{\"name\": \"pod-$p\", \"network\": \"net\", \"type\": \"memif\",
		\"socket\": \"$T/$p.sock\", \"mac\": \"${!mac}\",
		\"rxq_pins\": \"0:$W0,1:$W0\"}" | jq -e .result >/dev/null ||
		fail "cannot create pod-$p"
done
expect_eq "pod-a's queues, rx queues" "1 8" \
	"$(ctlj pw port show pod-a | jq -r '"\(.queues) \(.rx_queues)"')"
for q in 0 1; do
	expect_eq "pod-a queue $q pinned" "$W0 true" \
		"$(queue_worker pw pod-a $q) $(queue_field pw pod-a $q pinned)"
done

# A memif port polls no ring before a peer brings one.
expect_eq "pod-a's enabled queues before a peer" "false false" \
	"$(for q in 0 1; do queue_field pw pod-a $q enabled; done | xargs)"
# A new interval measures afresh: a check before its first sixth says so.
rpc pw queue.balance '{"interval": 60, "run": true}' |
	jq -e '.result.last | test("no load measured yet")' >/dev/null ||
	fail "a balancer check before any load was measured does not say so"
rpc pw queue.balance "{\"interval\": $INTERVAL}" | jq -e ".result.interval == $INTERVAL" >/dev/null ||
	fail "cannot set the interval back"

# ---- bad pins, changing nothing ----------------------------------------------
refused pw queue.pin '{"port": "nope", "queue": 0, "worker": 0}' port
refused pw queue.pin "{\"port\": \"pod-a\", \"queue\": 8, \"worker\": $W0}" queue
refused pw queue.pin '{"port": "pod-a", "queue": 0, "worker": 77}' worker
refused pw queue.pin "{\"port\": \"pod-a\", \"queue\": 16, \"worker\": $W0}" queue
refused pw port.create "{\"name\": \"x\", \"network\": \"net\", \"type\": \"memif\",
	\"socket\": \"$T/x.sock\", \"rxq_pins\": \"0:77\"}" rxq_pins
refused pw port.create "{\"name\": \"x\", \"network\": \"net\", \"type\": \"vhost-user\",
	\"socket\": \"$T/x.sock\", \"queues\": 2, \"rxq_pins\": \"2:0\"}" rxq_pins
refused pw port.create "{\"name\": \"x\", \"network\": \"net\", \"type\": \"memif\",
	\"socket\": \"$T/x.sock\", \"rxq_pins\": \"0:$W0,0:$W1\"}" rxq_pins
refused pw port.create "{\"name\": \"x\", \"network\": \"net\", \"type\": \"null\",
	\"queues\": 2}" queues
refused pw port.create "{\"name\": \"x\", \"network\": \"net\", \"type\": \"memif\",
	\"socket\": \"$T/x.sock\", \"queues\": 9}" queues
expect_eq "pod-a queue 0 after refused pins" "$W0" "$(queue_worker pw pod-a 0)"
expect_eq "ports after refused creates" 3 "$(ctlj pw port list | jq '.ports | length')"

# ---- traffic: a busy pod with 2 queue pairs ------------------------------------
pod_up pw pod-b b "$(vdev_memif "$T/b.sock" $B)" --eth-peer=0,$A
pod_up pw pod-c c "$(vdev_memif "$T/c.sock" $C)" --eth-peer=0,$A
# B and C are learned, so A's frames go to B alone.
pod_send b 1
pod_send c 1
pod_up pw pod-a a "$(vdev_memif "$T/a.sock" $A)" --rxq=2 --txq=2 --eth-peer=0,$B \
	--forward-mode=txonly
wait_for 20 "pod-a's queue 0 to carry frames" queue_carries pw pod-a 0 1000
wait_for 20 "pod-a's queue 1 to carry frames" queue_carries pw pod-a 1 1000
expect_eq "pod-a's enabled queues" "true true false" \
	"$(for q in 0 1 2; do queue_field pw pod-a $q enabled; done | xargs)"
ok "pod-a's 2 rings: 2 enabled rx queues, both polled"
wait_for 20 "pod-b to receive" pod_rx_ge b 100000

# Every queue is on worker 0 and pinned, so the balancer may move none.
sleep $((INTERVAL * 2))
expect_eq "queues on worker 0 while pinned" "$W0 $W0 $W0" \
	"$(queue_worker pw pod-a 0) $(queue_worker pw pod-a 1) $(queue_worker pw pod-b 0)"

# Unpinned but pod-a's queue 1: the balancer moves what it may.
moves0=$(rpc pw queue.balance | jq .result.moves)
rpc pw queue.unpin '{"port": "pod-a", "queue": 0}' | jq -e .result >/dev/null || fail "unpin"
rpc pw queue.unpin '{"port": "pod-b", "queue": 0}' | jq -e .result >/dev/null || fail "unpin"
wait_for $((INTERVAL * 2 + 1)) "the balancer to move pod-a's queue 0 to worker $W1" \
	queue_on pw pod-a 0 "$W1"
ok "busy queue moved to the idle worker within two intervals"
expect_eq "pinned pod-a queue 1" "$W0 true" \
	"$(queue_worker pw pod-a 1) $(queue_field pw pod-a 1 pinned)"
[ "$(rpc pw queue.balance | jq .result.moves)" -gt "$moves0" ] || fail "no move counted"
grep -q "rebalance: moved .* before, .* expected after" "$T/pw.log" ||
	fail "the move is not in the log with its loads"
grep "rebalance: moved" "$T/pw.log" | tail -n1
# Both workers now carry pod-a's frames; later checks never move the pin.
wait_for 20 "queue 0 to carry frames on worker $W1" queue_carries pw pod-a 0 \
	"$(($(queue_field pw pod-a 0 rx_packets_total) + 1000))"
sleep $((INTERVAL * 2))
expect_eq "pinned pod-a queue 1 after more checks" "$W0" "$(queue_worker pw pod-a 1)"
ok "the pinned queue stayed on worker $W0"
pod_stop a

# ---- podwired as memif client with 2 queue pairs --------------------------------
D=02:00:00:00:23:0d
rpc pw port.create "{\"name\": \"pod-d\", \"network\": \"net\", \"type\": \"memif\",
	\"socket\": \"$T/d.sock\", \"mode\": \"client\", \"mac\": \"$D\", \"queues\": 2}" |
	jq -e .result >/dev/null || fail "cannot create pod-d"
pod_up pw pod-d d "net_memif0,role=server,socket=$T/d.sock,socket-abstract=no,mac=$D" \
	--rxq=2 --txq=2 --eth-peer=0,$B --forward-mode=txonly
wait_for 20 "pod-d's queue 0 to carry frames" queue_carries pw pod-d 0 1000
wait_for 20 "pod-d's queue 1 to carry frames" queue_carries pw pod-d 1 1000
expect_eq "pod-d's enabled queues" "true true false" \
	"$(for q in 0 1 2; do queue_field pw pod-d $q enabled; done | xargs)"
ok "podwired as memif client made 2 queue pairs; both polled"
pod_stop d

# ---- pins kept across a restart --------------------------------------------------
rpc pw queue.pin "{\"port\": \"pod-c\", \"queue\": 3, \"worker\": $W1}" | jq -e .result >/dev/null ||
	fail "pin pod-c queue 3"
pod_stop b
pod_stop c
daemon_stop pw
daemon_start pw --worker-cores "$W0,$W1"
expect_eq "pod-c queue 3 after a restart" "$W1 true" \
	"$(queue_worker pw pod-c 3) $(queue_field pw pod-c 3 pinned)"
expect_eq "pod-a queue 1 after a restart" "$W0 true" \
	"$(queue_worker pw pod-a 1) $(queue_field pw pod-a 1 pinned)"
expect_eq "pod-a queue 0 after a restart (unpinned)" "false" "$(queue_field pw pod-a 0 pinned)"
ok "pins kept in the state file"
daemon_stop pw

# ---- idle naps ------------------------------------------------------------------------
# cpu_ticks PID: utime + stime of PID's worker threads (EAL's lcore threads).
cpu_ticks() {
	local t sum=0
	for t in /proc/"$1"/task/*; do
		case "$(cat "$t/comm")" in lcore-worker-*) ;; *) continue ;; esac
		sum=$((sum + $(awk '{print $14 + $15}' "$t/stat")))
	done
	echo "$sum"
}
HZ=$(getconf CLK_TCK)
rm -rf "$T/pw.state"
daemon_start pw --worker-cores "$W0,$W1" --idle-sleep-max 500
ctl pw network add net >/dev/null
for p in a b; do
	mac=${p^^}
	ctl pw port add "pod-$p" --network net --type memif --socket "$T/$p.sock" \
		--mac "${!mac}" >/dev/null
done
# Ports made before their pods connect: spread over the workers, one
# queue each, not all on the first (no load, so the queue count decides).
expect_eq "pod-a's and pod-b's queue 0, unpinned" "$W0 $W1" \
	"$(queue_worker pw pod-a 0) $(queue_worker pw pod-b 0)"
pod_up pw pod-a a "$(vdev_memif "$T/a.sock" $A)" --eth-peer=0,$B
pod_up pw pod-b b "$(vdev_memif "$T/b.sock" $B)" --eth-peer=0,$A
t0=$(cpu_ticks "${DAEMON_PID[pw]}")
sleep 10
t1=$(cpu_ticks "${DAEMON_PID[pw]}")
used=$(((t1 - t0) * 100 / HZ))
log "two idle napping workers used $((t1 - t0)) ticks in 10 s ($used% of one core)"
# Polling without naps, each would use close to 100% of a core: two
# workers, 200%. Napping up to 500 us, a turn every ~500 us costs well
# under 1%.
[ "$used" -lt 20 ] || fail "idle workers with naps used $used% of a core over 10 s"
naps=$(ctlj pw stats | jq '[.workers[].sleeps] | add')
[ "$naps" -gt 1000 ] || fail "only $naps naps counted"
ok "idle workers napped ($naps naps): $used% of a core over 10 s"
pod_send a 10
wait_for 20 "pod-b to receive what pod-a sent after the naps" pod_rx_ge b 320
ok "traffic after the naps delivered"
