#!/bin/bash
# Crash recovery, measured: podwired killed with SIGKILL and started again,
# under traffic and under API churn.
#
# Traffic: 8 pods in one podwire-bench (--reconnect), every pod sending to
# every other (56 directions): 3 virtio-user pods on vhost-user ports
# podwired serves (the generator re-opens them), 3 virtio-user pods with
# server=1 on client-role ports (podwired reconnects; they reconnect by
# themselves) and 2 memif pods (the generator's own memif clients,
# re-opened). podwired is killed and started
# again CRASH_RESTARTS times (default 5): each time every network and port
# must come back identical (`port list` without its live fields), and
# every direction must carry a frame sent after the restart within
# CRASH_BOUND_S (default 15 s, generous: the machine is shared). The
# restart-to-first-frame figures (per pair p50/max, overall) are printed;
# perf/bench_crash.sh runs this at full size and reports them.
#
# Churn: 4 clients create and delete ports of every kind as fast as
# podwired answers, and podwired is killed at a random moment, then started
# again, CRASH_CHURN_KILLS times (default 5). podwired must start every
# time, its state must be exactly one the answered requests (plus any of
# those in flight) leave, every port present whole (tests/crash/churn.py),
# the state file valid JSON; a kill that found a temporary state file
# (killed while writing it) is counted, and once a temporary file cut short
# is planted on purpose.
#
# CRASH_OUT=DIR keeps the raw data (events, restart times, figures).
. "$(dirname "$0")/lib.sh"

RESTARTS=${CRASH_RESTARTS:-5}
CHURN_KILLS=${CRASH_CHURN_KILLS:-5}
BOUND_S=${CRASH_BOUND_S:-15}
RATE=${CRASH_RATE:-56000} # 1,000 frames/s per direction: a gap is seen to the ms
STEADY_S=${CRASH_STEADY_S:-1}
BULK=${CRASH_BULK_PORTS:-100}
SEED=${CRASH_SEED:-$RANDOM}
OUT=${CRASH_OUT:-}
BENCH=$BUILD/podwire-bench
CRASH=$ROOT/tests/crash
STATE=$T/pw.state/state.json
EVENTS=$T/events.jsonl
[ -x "$BENCH" ] || fail "$BENCH is not built; run: ninja -C $BUILD"
command -v taskset >/dev/null || fail "taskset is not installed (util-linux)"
log "restarts $RESTARTS, churn kills $CHURN_KILLS, seed $SEED"

now_ns() { echo "${EPOCHREALTIME/./}000"; }

# What must survive a restart: everything but the live fields.
config_now() {
	ctlj pw network list | jq -S '.networks | sort_by(.name)'
	ctlj pw port list | jq -S '.ports | map(del(.link, .worker, .memif, .vhost_user)) | sort_by(.name)'
}

check_config() { # WHEN
	local now
	now=$(config_now)
	[ "$now" = "$CONFIG" ] || {
		diff <(echo "$CONFIG") <(echo "$now") || true
		fail "$1: networks and ports differ from before (diff above)"
	}
}

# ---- the pods ---------------------------------------------------------------
# p0-p2: podwired serves, p3-p5: podwired connects to the pod (server=1),
# p6-p7: memif, podwired serves.
mac_of() { printf '02:00:00:00:%02x:01' $(($1 + 1)); }
daemon_start pw
ctl pw network add net1 >/dev/null
VDEVS=()
for i in 0 1 2; do
	ctl pw port add p$i --network net1 --type vhost-user --socket "$T/p$i.sock" \
		--mac "$(mac_of $i)" >/dev/null
	VDEVS+=(--vdev "net_virtio_user$i,path=$T/p$i.sock,mac=$(mac_of $i),queues=1")
done
for i in 3 4 5; do
	ctl pw port add p$i --network net1 --type vhost-user --client --socket "$T/p$i.sock" \
		--mac "$(mac_of $i)" >/dev/null
	VDEVS+=(--vdev "net_virtio_user$i,path=$T/p$i.sock,mac=$(mac_of $i),queues=1,server=1")
done
# The memif pods are podwire-bench's own clients (--memif), not net_memif:
# DPDK 22.11's net_memif unmaps its rings on the interrupt thread when the
# server hangs up, under the burst the generator may be in (the defect
# that took net_memif out of podwired), and the generator died of it here.
MEMIFS=()
for i in 6 7; do
	ctl pw port add p$i --network net1 --type memif --socket "$T/p$i.sock" \
		--mac "$(mac_of $i)" >/dev/null
	MEMIFS+=(--memif "$T/p$i.sock,mac=$(mac_of $i)")
done
CONFIG=$(config_now)

# The generator on core 0, beside podwired's control thread; the worker has
# core 1. It runs until SIGUSR1.
"$BENCH" --lcores "0@$POD_CPU,1@$POD_CPU" --main-lcore 0 \
	--file-prefix "pwt$$-bench" --in-memory --single-file-segments --no-pci \
	--log-level '*:notice' "${VDEVS[@]}" \
	-- "${MEMIFS[@]}" --rate "$RATE" --duration 86400 --warmup 0.5 --reconnect --events "$EVENTS" --json \
	>"$T/bench.json" 2>"$T/pod-bench.log" &
POD_PID[bench]=$!

bench_alive() { kill -0 "${POD_PID[bench]}" 2>/dev/null || fail "podwire-bench died"; }
measuring() { bench_alive && grep -q '"event": "measure"' "$EVENTS"; }
# resumed_all MARK: every direction has carried a frame sent after MARK.
resumed_all() {
	bench_alive
	[ "$(grep -c "\"event\": \"resumed\", [^}]*\"mark\": $1," "$EVENTS")" -ge 56 ]
}
mark=0
set_mark() {
	mark=$((mark + 1))
	kill -USR2 "${POD_PID[bench]}"
}

wait_for 60 "the generator to start measuring" measuring
for i in $(seq 0 7); do wait_link pw p$i up 30; done
set_mark
wait_for 30 "every direction to carry traffic" resumed_all $mark
ok "8 pods up, 56 directions carry traffic"

# ---- SIGKILL and restart, under traffic --------------------------------------
: >"$T/restarts"
for r in $(seq "$RESTARTS"); do
	sleep "$STEADY_S"
	daemon_alive pw || fail "podwired died before restart $r"
	K=$(now_ns)
	daemon_kill pw
	set_mark
	R=$(now_ns)
	daemon_start pw
	echo "$r $K $R $mark" >>"$T/restarts"
	check_config "restart $r"
	wait_for "$BOUND_S" "every direction to resume after restart $r" resumed_all $mark
	ok "restart $r: configuration identical; 56 directions resumed"
done

kill -USR1 "${POD_PID[bench]}"
rc=0
wait "${POD_PID[bench]}" || rc=$?
unset "POD_PID[bench]"
[ $rc = 0 ] || fail "podwire-bench exited with status $rc"
jq -e . "$T/bench.json" >/dev/null || fail "podwire-bench's output is not JSON"
jq -e '.foreign == 0' "$T/bench.json" >/dev/null ||
	fail "frames that were not the generator's: $(jq .foreign "$T/bench.json")"
# Every pod saw every outage; the ones the generator re-opens were
# re-opened each time, the server=1 ones never.
jq -e --argjson n "$RESTARTS" '[.per_pod[] | select(.link_downs < $n or
	(if (.device | test("virtio_user[345]")) then .reopens != 0 else .reopens != .link_downs end))]
	| length == 0' "$T/bench.json" >/dev/null ||
	fail "outages seen by the pods: $(jq -c '[.per_pod[] | {device, link_downs, reopens}]' "$T/bench.json")"
ok "pods: $(jq -c '[.per_pod[] | [.device, .link_downs, .reopens, .open_attempts]]' "$T/bench.json")"
python3 "$CRASH/recovery.py" "$EVENTS" "$T/restarts" --json "$T/recovery.json" --bound "$BOUND_S" ||
	fail "a direction did not resume within ${BOUND_S}s (above)"
ok "every direction resumed after each of $RESTARTS restarts; configuration lost: 0"

# ---- SIGKILL during API churn ---------------------------------------------------
ctl pw network add churn >/dev/null
for i in $(seq "$BULK"); do
	# A bigger state file: each write takes longer, more kills land in one.
	ctl pw port add "bulk$i" --network churn --type null --mac "$(printf '02:00:00:01:%02x:%02x' $((i >> 8)) $((i & 255)))" >/dev/null
done
mkdir -p "$T/ch"
midwrite=0
: >"$T/churn.jsonl"
for k in $(seq "$CHURN_KILLS"); do
	pid=${DAEMON_PID[pw]}
	# The clients on core 0 too: the worker keeps core 1.
	taskset -c "$POD_CPU" python3 "$CRASH/churn.py" run --socket "$T/pw.sock" --pid "$pid" \
		--sockdir "$T/ch" --round "$k" --plan "$T/plan$k.json" --seed $((SEED + k)) \
		>"$T/churn-run$k.json" || fail "churn round $k failed"
	wait "$pid" 2>/dev/null || true
	unset "DAEMON_PID[pw]"
	if [ -e "$STATE.tmp" ]; then
		midwrite=$((midwrite + 1))
		log "kill $k landed while the state file was being written"
	fi
	jq -e . "$STATE" >/dev/null || fail "kill $k: $STATE is not valid JSON"
	if [ "$k" = "$CHURN_KILLS" ]; then
		# A write cut short, on purpose: the temporary file, half written.
		head -c $(($(stat -c %s "$STATE") / 2)) "$STATE" >"$STATE.tmp"
	fi
	daemon_start pw
	last=$(grep 'restored .* port(s)' "$T/pw.log" | tail -n 1)
	case $last in *"some failed"*) fail "kill $k: $last" ;; esac
	python3 "$CRASH/churn.py" check --socket "$T/pw.sock" --plan "$T/plan$k.json" \
		>"$T/churn-check$k.json" || fail "kill $k: the restored state is not one the requests left (above)"
	jq -c -s '.[0] + .[1]' "$T/churn-run$k.json" "$T/churn-check$k.json" | tee -a "$T/churn.jsonl"
done
# The next change writes over the planted file, through it.
ctl pw port del bulk1 >/dev/null
[ ! -e "$STATE.tmp" ] || fail "the planted temporary state file is still there after a change"
jq -e '[.ports[].name] | index("bulk1") == null' "$STATE" >/dev/null ||
	fail "the change after the planted temporary file did not reach $STATE"
ok "$CHURN_KILLS kills during churn ($midwrite while writing the state file, 1 half-written temporary file planted): podwired started every time, every state exact"
jq -s '{kills: length, requests_answered: (map(.requests.ok + .requests.refused) | add),
	requests_in_flight: (map(.requests.unknown) | add), in_flight_done: (map(.in_flight_done) | add),
	in_flight_not_done: (map(.in_flight_not_done) | add), ports_checked: (map(.present + .absent +
	.in_flight_done + .in_flight_not_done) | add)}' "$T/churn.jsonl" |
	jq --argjson m "$midwrite" '. + {kills_while_writing: $m, configuration_lost: 0}' >"$T/churn.json"
ok "churn: $(jq -c . "$T/churn.json")"

# The traffic pods' ports went through the churn kills too.
check_config_pods() {
	[ "$(ctlj pw port list --network net1 | jq -S '.ports | map(del(.link, .worker, .memif, .vhost_user)) | sort_by(.name)')" = "$(echo "$CONFIG" | jq -s -S '.[1]')" ]
}
check_config_pods || fail "the pods' ports changed during the churn kills"
daemon_stop pw

if [ -n "$OUT" ]; then
	mkdir -p "$OUT"
	cp "$EVENTS" "$T/restarts" "$T/recovery.json" "$T/bench.json" "$T/churn.json" \
		"$T/churn.jsonl" "$OUT/"
fi
