#!/bin/bash
# podwired refuses to start on bad options, configuration files and
# places, with a message that names the problem, and leaves nothing
# running: no process, no API socket, and a running podwired undisturbed.
#
# Starting without free hugepages is tested only where the machine is this
# test's alone (CI=true, or PODWIRE_TEST_HUGEPAGES=1): it takes the free
# hugepages away for a moment.
. "$(dirname "$0")/lib.sh"

CORES=(--main-core "$POD_CPU" --worker-cores "$WORKER_CPU")

# podwired_run LABEL ARGS...: runs a podwired that must refuse to start.
# Sets RC and OUT (stdout and stderr). One that comes up or hangs instead
# is stopped by PID and fails the test.
podwired_run() {
	local label=$1 pid
	shift
	"$PODWIRED" --cdi-dir "$T/$label.cdi" "$@" >"$T/$label.out" 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		kill -0 $pid 2>/dev/null || break
		grep -q 'ready: API' "$T/$label.out" && break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		_stop_pid $pid
		wait $pid 2>/dev/null || true
		tail -n 5 "$T/$label.out"
		fail "$label: podwired $* was still running after 20s (output above); it must exit"
	fi
	RC=0
	wait $pid || RC=$?
	OUT=$(cat "$T/$label.out")
}

# refuses LABEL RC 'WORD;...' ARGS...: podwired exits with RC (nz: any
# non-zero) and its output names every WORD; nothing is left behind.
refuses() {
	local label=$1 rc=$2 words=$3 w list
	shift 3
	podwired_run "$label" "$@"
	case $rc in
	nz) [ $RC != 0 ] || fail "$label: podwired $* exited 0; expected a failure" ;;
	*) [ $RC = "$rc" ] || fail "$label: podwired $* exited $RC, expected $rc; output: $OUT" ;;
	esac
	[ $RC -lt 128 ] || fail "$label: podwired $* died of signal $((RC - 128)); output: $OUT"
	IFS=';' read -ra list <<<"$words"
	for w in "${list[@]}"; do
		grep -qF -- "$w" <<<"$OUT" || fail "$label: the output lacks \"$w\": $OUT"
	done
	[ ! -e "$T/x.sock" ] || fail "$label: a refused podwired left its socket $T/x.sock"
	daemon_alive pw || fail "$label: the running podwired died"
	ctl pw info >/dev/null || fail "$label: the running podwired stopped answering"
	ok "$label: exit $RC: $(grep -m1 '^podwired:' <<<"$OUT" || head -n1 <<<"$OUT")"
}

daemon_start pw
ctl pw network add net1
PW_PID=$(ctlj pw info | jq .pid)
STATE_BEFORE=$(cat "$T/pw.state/state.json")
X=(--socket "$T/x.sock" --state-dir "$T/x.state")

# ---- another podwired is there -----------------------------------------------
refuses "same socket and state dir" nz "another podwired;$PW_PID" \
	"${CORES[@]}" --socket "$T/pw.sock" --state-dir "$T/pw.state"
refuses "same socket, other state dir" nz "another podwired;$T/pw.sock" \
	"${CORES[@]}" --socket "$T/pw.sock" --state-dir "$T/other.state"
refuses "same state dir, other socket" nz "another podwired;$PW_PID;$T/pw.state" \
	"${CORES[@]}" --socket "$T/x.sock" --state-dir "$T/pw.state"
[ -S "$T/pw.sock" ] || fail "the running podwired's socket was removed"
expect_eq "state of the running podwired" "$STATE_BEFORE" "$(cat "$T/pw.state/state.json")"
expect_eq "pid in the lock file" "$PW_PID" "$(cat "$T/pw.state/podwired.lock")"

# ---- places it cannot use ------------------------------------------------------
echo "a file" >"$T/file"
refuses "socket dir under a regular file" nz "$T/file;not a directory" \
	"${CORES[@]}" --socket "$T/file/x.sock" --state-dir "$T/x.state"
refuses "state dir under a regular file" nz "$T/file/state;not a directory" \
	"${CORES[@]}" --socket "$T/x.sock" --state-dir "$T/file/state"
refuses "relative socket path" 2 '--socket;"x.sock";absolute' \
	"${CORES[@]}" --socket x.sock --state-dir "$T/x.state"
refuses "socket path of 108 bytes" 2 '--socket;107' \
	"${CORES[@]}" --socket "$T/$(printf 'y%.0s' $(seq $((108 - ${#T} - 1))))" \
	--state-dir "$T/x.state"

# ---- cores ---------------------------------------------------------------------
refuses "worker cores not a number" 2 '--worker-cores;"abc"' \
	--main-core "$POD_CPU" --worker-cores abc "${X[@]}"
# A worker on the main core is accepted with a warning (test_queues.sh
# runs one).
refuses "worker cores listed twice" 2 "--worker-cores;$WORKER_CPU" \
	--main-core "$POD_CPU" --worker-cores "$WORKER_CPU,$WORKER_CPU" "${X[@]}"
refuses "empty worker core list" 2 '--worker-cores' \
	--main-core "$POD_CPU" --worker-cores , "${X[@]}"
refuses "main core not a number" 2 '--main-core;"x"' \
	--main-core x --worker-cores "$WORKER_CPU" "${X[@]}"
NCPU=$(nproc --all)
refuses "worker core the machine does not have" 2 "--worker-cores;$((NCPU + 5))" \
	--main-core "$POD_CPU" --worker-cores $((NCPU + 5)) "${X[@]}"
grep -q "^podwired: .*$((NCPU + 5))" <<<"$OUT" ||
	fail "no podwired message names the missing core $((NCPU + 5)): $OUT"

# ---- other options -------------------------------------------------------------
refuses "unknown option" 2 '--bogus' "${CORES[@]}" "${X[@]}" --bogus
refuses "stray argument" 2 '"stray"' "${CORES[@]}" "${X[@]}" stray
refuses "option without its value" 2 '--state-dir' "${CORES[@]}" --socket "$T/x.sock" --state-dir
refuses "unknown log level" 2 '--log-level;"bogus"' "${CORES[@]}" "${X[@]}" --log-level bogus
refuses "unknown socket group" 2 '--socket-group;"nosuchgroup-pw"' \
	"${CORES[@]}" "${X[@]}" --socket-group nosuchgroup-pw

# ---- configuration file --------------------------------------------------------
C=$T/conf.json
refuses "missing config file" 2 "--config;$T/none.json;does not exist" \
	--config "$T/none.json" "${CORES[@]}" "${X[@]}"
echo '{"main_core": 0,' >"$C"
refuses "config file not JSON" 2 "$C;not valid JSON" --config "$C" "${CORES[@]}" "${X[@]}"
grep -q 'state' <<<"$OUT" && fail "the message about a bad config file talks about the state: $OUT"
echo '{"main_core": 0, "colour": "red"}' >"$C"
refuses "config file with an unknown key" 2 "$C;\"colour\"" --config "$C" "${CORES[@]}" "${X[@]}"
echo '{"mbufs": 10}' >"$C"
refuses "config file with a bad value" 2 "$C;\"mbufs\"" --config "$C" "${CORES[@]}" "${X[@]}"
echo '[1, 2]' >"$C"
refuses "config file holding an array" 2 "$C;object" --config "$C" "${CORES[@]}" "${X[@]}"
echo '42' >"$C"
refuses "config file holding a number" 2 "$C;object" --config "$C" "${CORES[@]}" "${X[@]}"
refuses "config file that is a directory" 2 "$T;directory" --config "$T" "${CORES[@]}" "${X[@]}"

# ---- help and version ------------------------------------------------------------
podwired_run help --help
expect_eq "podwired --help exit code" 0 "$RC"
grep -q -- '--worker-cores' <<<"$OUT" || fail "podwired --help does not list --worker-cores"
podwired_run version --version
expect_eq "podwired --version exit code" 0 "$RC"
expect_eq "podwired --version" "podwired $(ctlj pw info | jq -r .version)" "$OUT"

daemon_alive pw || fail "the running podwired died"
expect_eq "networks of the running podwired" net1 "$(ctlj pw network list | jq -r '.networks[].name')"

# ---- no free hugepages -----------------------------------------------------------
if [ "${CI:-}" = true ] || [ -n "${PODWIRE_TEST_HUGEPAGES:-}" ]; then
	saved=$(cat /proc/sys/vm/nr_hugepages)
	# Only free pages go; those of the running podwired stay.
	echo 0 >/proc/sys/vm/nr_hugepages
	podwired_run "no free hugepages" "${CORES[@]}" "${X[@]}"
	echo "$saved" >/proc/sys/vm/nr_hugepages
	expect_eq "hugepages given back" "$saved" "$(cat /proc/sys/vm/nr_hugepages)"
	[ "$RC" = 1 ] || fail "no free hugepages: podwired exited $RC, expected 1: $OUT"
	grep -q "hugepages are free" <<<"$OUT" || fail "no free hugepages: unclear message: $OUT"
	grep -q "reserve more" <<<"$OUT" || fail "no free hugepages: the message gives no fix: $OUT"
	[ ! -e "$T/x.sock" ] || fail "no free hugepages: a socket was left"
	ok "no free hugepages: $(grep -m1 '^podwired:' <<<"$OUT")"
	daemon_alive pw || fail "the running podwired died"
fi
