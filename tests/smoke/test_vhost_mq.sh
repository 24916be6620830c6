#!/bin/bash
# vhost-user multi-queue: two ports of 2 queue pairs each on a bridge, two
# testpmd pods with virtio-user queues=2 (--rxq 2 --txq 2), podwired with
# two workers. Each port's two rx queues are polled by different workers,
# every queue carries frames both ways, and podwired's per-queue counters
# agree exactly with testpmd's per-queue xstats.
#
# Then pod a goes from 2 queue pairs to 1, to 2, to 1 again (port stop,
# port config rxq/txq, port start: virtio-user's MQ_VQ_PAIRS_SET disables
# and enables vrings 2 and 3) while frames bounce between the pods (macswap): its link
# stays up, traffic goes on each time, and while pair 1 is disabled
# nothing is sent to it or taken from it; frames of both workers reach
# pair 0 (none dropped: a worker that kept sending on pair 1 would see
# every burst refused). Last, a pod asking for more pairs than its port
# offers is refused and told why.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01
# Two workers, on both cores (the pods and the control thread share
# core 0 with the first).
WORKER_CPU=0,1
# Frames each pod sends per tx queue in a counted round: tx_first bursts of
# 32, well within a ring of 256.
BURSTS=4

daemon_start pw --idle-sleep-max 100
ctl pw network add net1 >/dev/null
for x in a b; do
	mac=MAC_${x^^}
	out=$(rpc pw port.create "{\"name\":\"pod-$x\",\"network\":\"net1\",\"type\":\"vhost-user\",
		\"socket\":\"$T/$x.sock\",\"mac\":\"${!mac}\",\"queues\":2}")
	echo "$out" | jq -e .result >/dev/null || fail "port.create pod-$x with 2 queues: $out"
done

# qjson: queue.list of every port. qval JSON PORT Q FIELD.
qjson() { rpc pw queue.list; }
qval() { echo "$1" | jq -r ".result.queues[] | select(.port==\"$2\" and .queue==$3) | .$4"; }
q_enabled() { [ "$(qval "$(qjson)" "$1" "$2" enabled)" = "$3" ]; }

j=$(qjson)
for x in a b; do
	expect_eq "pod-$x: rx queues" 2 "$(echo "$j" | jq "[.result.queues[] | select(.port==\"pod-$x\")] | length")"
	w0=$(qval "$j" pod-$x 0 worker)
	w1=$(qval "$j" pod-$x 1 worker)
	[ "$w0" != "$w1" ] || fail "pod-$x: both rx queues are on the worker of core $w0"
	ok "pod-$x: queue 0 on the worker of core $w0, queue 1 on core $w1"
	# Queue 0 is polled as soon as the link is up; queue 1 once the pod
	# enables it.
	expect_eq "pod-$x queue 0 enabled before a pod connects" true "$(qval "$j" pod-$x 0 enabled)"
	expect_eq "pod-$x queue 1 enabled before a pod connects" false "$(qval "$j" pod-$x 1 enabled)"
done

# ---- what a frontend is offered -----------------------------------------------------

# probe SOCKET: a bare vhost-user frontend asks for the features, the
# protocol features and the queue pairs; prints the three answers.
probe() {
	python3 - "$1" <<-'EOF'
		import socket, struct, sys
		s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		s.settimeout(10)
		s.connect(sys.argv[1])
		def ask(req):
		    s.sendall(struct.pack("<III", req, 1, 0))
		    _, _, size = struct.unpack("<III", s.recv(12, socket.MSG_WAITALL))
		    return struct.unpack("<Q", s.recv(size, socket.MSG_WAITALL)[:8])[0]
		print(ask(1), ask(15), ask(17))  # GET_FEATURES, GET_PROTOCOL_FEATURES, GET_QUEUE_NUM
	EOF
}
ctl pw network add net2 >/dev/null
for n in 1 4; do
	rpc pw port.create "{\"name\":\"probe-$n\",\"network\":\"net2\",\"type\":\"vhost-user\",
		\"socket\":\"$T/probe-$n.sock\",\"queues\":$n}" | jq -e .result >/dev/null ||
		fail "port.create probe-$n"
done
read -r f1 p1 n1 <<<"$(probe "$T/probe-1.sock")"
read -r f4 p4 n4 <<<"$(probe "$T/probe-4.sock")"
expect_eq "queue pairs offered by a port of 1 (GET_QUEUE_NUM)" 1 "$n1"
expect_eq "queue pairs offered by a port of 4 (GET_QUEUE_NUM)" 4 "$n4"
# The same features whatever the queues (VIRTIO_NET_F_MQ and the MQ
# protocol feature were offered before ports had queues).
expect_eq "features of a port of 4 pairs, as of 1" "$f1" "$f4"
expect_eq "protocol features of a port of 4 pairs, as of 1" "$p1" "$p4"
expect_eq "VIRTIO_NET_F_MQ offered" 1 $(((f1 >> 22) & 1))
expect_eq "VHOST_USER_PROTOCOL_F_MQ offered" 1 $((p1 & 1))
for n in 1 4; do ctl pw port del probe-$n >/dev/null; done

# ---- pods: testpmd, virtio-user with 2 queue pairs ---------------------------------

vdev_mq() { echo "net_virtio_user0,path=$1,mac=$2,queues=$3"; }
pod_up pw pod-a a "$(vdev_mq "$T/a.sock" $MAC_A 2)" --eth-peer=0,$MAC_B --rxq=2 --txq=2
pod_up pw pod-b b "$(vdev_mq "$T/b.sock" $MAC_B 2)" --eth-peer=0,$MAC_A --rxq=2 --txq=2
for x in a b; do
	for q in 0 1; do
		wait_for 10 "pod-$x queue $q enabled by its pod" q_enabled pod-$x $q true
	done
done
ok "both queue pairs of both ports enabled"

# pod_xstats NAME: the pod's per-queue packet counters, "rx.Q N" and
# "tx.Q N" lines (testpmd shows the queues the port is configured with).
_xstats_count() { grep -c 'NIC extended statistics for port 0' "$T/pod-$1.log" || true; }
pod_xstats() {
	local n
	n=$(_xstats_count "$1")
	pod_cmd "$1" "show port xstats 0"
	# Commands run in order: once the port stats are out, so are the xstats.
	_pod_show_stats "$1"
	awk -v n=$((n + 1)) -F': ' '/NIC extended statistics for port 0/ {k++; next}
		k == n && $1 ~ /^(rx|tx)_q[0-9]+_good_packets$/ {
			split($1, f, "_"); print f[1] "." substr(f[2], 2), $2 }' "$T/pod-$1.log"
}

# snap: every counter the rounds compare, "KEY VALUE" lines: podwired's
# per-queue rx and tx totals and tx_full drops, the pods' xstats.
snap() {
	qjson | jq -r '.result.queues[] |
		"pw.\(.port).rx.\(.queue) \(.rx_packets_total)", "pw.\(.port).tx.\(.queue) \(.tx_packets_total)"'
	for x in a b; do
		echo "pw.pod-$x.tx_full $(port_stat pw pod-$x .drops.tx_full)"
		pod_xstats $x | sed "s/^/pod.$x./"
	done
}
# delta SNAP0 SNAP1: "KEY CHANGE" for every key of SNAP1 (0 before when
# SNAP0 lacks it). d KEY: its change in $D, 0 when absent.
delta() { awk 'NR == FNR {a[$1] = $2; next} {print $1, $2 - ($1 in a ? a[$1] : 0)}' <(echo "$1") <(echo "$2"); }
d() { echo "$D" | awk -v k="$1" '$1 == k {v = $2} END {print v + 0}'; }

# podwired's port counters as one line: unchanged while nothing moves.
pw_counts() { ctlj pw stats | jq -c '[.ports[] | .rx_packets, .tx_packets]'; }
pw_still() {
	local a b c
	a=$(pw_counts)
	sleep 0.3
	b=$(pw_counts)
	sleep 0.3
	c=$(pw_counts)
	[ "$a" = "$b" ] && [ "$b" = "$c" ]
}
pods_still() {
	local a b
	a=$(pod_xstats a; pod_xstats b)
	b=$(pod_xstats a; pod_xstats b)
	[ "$a" = "$b" ]
}
# rxonly: both pods stop sending and go on receiving; returns once nothing
# moves any more.
rxonly() {
	for x in a b; do
		pod_cmd $x stop
		pod_cmd $x "set fwd rxonly"
		pod_cmd $x start
	done
	wait_for 60 "traffic to stop in podwired" pw_still
	wait_for 60 "the pods to have taken every frame" pods_still
}
# bounce: frames go back and forth between the pods as fast as they can
# (macswap: each pod returns what it receives, on the queue pair it came
# in on), 8 bursts of 32 per queue pair of each pod to start with.
bounce() {
	for x in a b; do
		pod_cmd $x stop
		pod_cmd $x "set fwd macswap"
		pod_cmd $x "start tx_first 8"
	done
}

# agree: podwired's per-queue deltas in $D match the pods' (rx on one side
# is tx on the other), for every queue pair of both ports.
agree() {
	local x q
	for x in a b; do
		for q in 0 1; do
			[ "$(d pw.pod-$x.rx.$q)" = "$(d pod.$x.tx.$q)" ] || return 1
			[ "$(d pw.pod-$x.tx.$q)" = "$(d pod.$x.rx.$q)" ] || return 1
		done
	done
}
round_done() {
	D=$(delta "$S0" "$(snap)")
	agree
}

# round WHAT QA QB: a counted round with pod a on QA queue pairs and b on
# QB: both pods (rxonly, all still) send BURSTS x 32 frames on each of
# their tx queues; every frame arrives (no tx_full drop), and the
# counters of podwired's queues and the pods' agree exactly.
round() {
	local what=$1 qa=$2 qb=$3 x q
	S0=$(snap)
	for x in a b; do
		pod_cmd $x stop
		pod_cmd $x "start tx_first $BURSTS"
	done
	D=
	if ! wait_for_soft 60 round_done; then
		echo "$D" | sed 's/^/  /'
		fail "$what: podwired's per-queue counters and the pods' do not agree"
	fi
	for x in a b; do
		expect_eq "$what: pod-$x frames dropped on a full ring" 0 "$(d pw.pod-$x.tx_full)"
	done
	for x in a b; do
		local n=qa other=qb
		[ $x = b ] && n=qb other=qa
		for q in 0 1; do
			if [ "$q" -lt "${!n}" ]; then
				expect_eq "$what: pod $x sent on its tx queue $q" $((BURSTS * 32)) "$(d pod.$x.tx.$q)"
				# Each worker sends on a pair of its own: with both
				# pods on 2 pairs (taken by 2 workers), both carry.
				[ "$qa$qb" != 22 ] || [ "$(d pw.pod-$x.tx.$q)" -gt 0 ] ||
					fail "$what: podwired sent nothing on pod-$x queue pair $q"
			else
				expect_eq "$what: podwired took from disabled pod-$x queue $q" 0 "$(d pw.pod-$x.rx.$q)"
				expect_eq "$what: podwired sent to disabled pod-$x queue $q" 0 "$(d pw.pod-$x.tx.$q)"
			fi
		done
		# Every frame of the other pod, whichever worker took it.
		expect_eq "$what: frames podwired sent to pod $x" $((BURSTS * 32 * ${!other})) \
			$(($(d pw.pod-$x.tx.0) + $(d pw.pod-$x.tx.1)))
	done
	ok "$what: per-queue counters agree: $(echo "$D" | grep -v tx_full | tr '\n' ' ')"
}
# wait_for without failing: 0 once COMMAND succeeds, 1 after SECONDS.
wait_for_soft() {
	local end=$(($(date +%s%N) + $1 * 1000000000))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s%N)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

round "2+2 pairs" 2 2

# ---- pod a: 2 pairs, 1, 2, 1 under traffic --------------------------------------------

# pod_pairs NAME N: the pod reconfigures its port to N queue pairs, and
# starts bouncing again with frames of its own (those in flight at the
# switch went: virtio drops what it had received at port start).
pod_pairs() {
	pod_cmd "$1" stop
	pod_cmd "$1" "port stop all"
	pod_cmd "$1" "port config all rxq $2"
	pod_cmd "$1" "port config all txq $2"
	pod_cmd "$1" "port start all"
	pod_cmd "$1" "start tx_first 8"
}
# grown KEY N: podwired's counter KEY moved by more than N since $S0.
grown() {
	D=$(delta "$S0" "$(qjson | jq -r '.result.queues[] |
		"pw.\(.port).rx.\(.queue) \(.rx_packets_total)", "pw.\(.port).tx.\(.queue) \(.tx_packets_total)"')")
	[ "$(d "$1")" -gt "$2" ]
}

switch() {
	local n=$1 on
	[ "$n" = 2 ] && on=true || on=false
	bounce
	S0=$(snap)
	wait_for 60 "traffic through pod-a before the switch" grown pw.pod-a.tx.0 1000
	pod_pairs a "$n"
	wait_for 30 "pod-a queue 1 enabled=$on" q_enabled pod-a 1 $on
	expect_eq "pod-a link with $n pair(s)" up "$(port_link pw pod-a)"
	# From here on, under traffic: pair 0 carries on, pair 1 only if on.
	S0=$(snap)
	wait_for 60 "traffic both ways on pod-a pair 0 after the switch to $n" \
		eval "grown pw.pod-a.tx.0 1000 && grown pw.pod-a.rx.0 1000"
	if [ "$n" = 2 ]; then
		wait_for 60 "traffic both ways on pod-a pair 1 after the switch to 2" \
			eval "grown pw.pod-a.tx.1 1000 && grown pw.pod-a.rx.1 1000"
	else
		expect_eq "pod-a frames sent to disabled pair 1 under traffic" 0 "$(d pw.pod-a.tx.1)"
		expect_eq "pod-a frames taken from disabled pair 1 under traffic" 0 "$(d pw.pod-a.rx.1)"
	fi
	ok "pod-a on $n pair(s): traffic resumed: $(echo "$D" | grep pod-a | tr '\n' ' ')"
	rxonly
	round "pod a on $n pair(s)" "$n" 2
}
switch 1
switch 2
switch 1

expect_eq "pod-a link changes: still connected once" 1 \
	"$(grep -c 'port "pod-a": peer connected' "$T/pw.log")"
if grep -qiE 'invalid virtqueue|virtqueue idx|VHOST_DATA.*(ERR|error)' "$T/pw.log"; then
	fail "librte_vhost complained about a burst: $(grep -m1 -iE 'invalid virtqueue|virtqueue idx|VHOST_DATA' "$T/pw.log")"
fi
ok "no burst on a ring librte_vhost does not have"

# ---- a pod asking for more pairs than its port offers ---------------------------------

pod_stop b
pod_spawn c "$(vdev_mq "$T/b.sock" $MAC_B 3)" --rxq=3 --txq=3
refused() { [ "$(ctlj pw port show pod-b | jq -r .vhost_user.refused_messages)" -ge 1 ]; }
wait_for 30 "pod-b to refuse a frontend with 3 queue pairs" refused
reason=$(ctlj pw port show pod-b | jq -r .vhost_user.last_disconnect)
case $reason in
*"vring 4"*"2 queue pair"*) ok "3 pairs on a port of 2 refused: $reason" ;;
*) fail "3 pairs on a port of 2: reason \"$reason\"" ;;
esac
expect_eq "pod-b link with a refused frontend" down "$(port_link pw pod-b)"
pod_kill c
