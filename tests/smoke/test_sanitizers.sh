#!/bin/bash
# Under AddressSanitizer and UndefinedBehaviorSanitizer (tests/sanitize.sh,
# build-asan): the unit tests and a representative set of smoke tests,
# chosen for the code untrusted input reaches (a hostile memif peer, bad
# API input and a misbehaving API client, the CNI plugin's inputs, pods of
# every kind on one bridge, a restart, a capture, the Docker driver's
# protocol, and podwired killed and restarted while pods reconnect: the
# crash recovery test). The whole smoke suite runs clean
# under it too (tests/sanitize.sh with no argument; see README).
. "$(dirname "$0")/lib.sh"

rc=0
out=$(bash "$ROOT/tests/sanitize.sh" memif_hostile bad_input api_socket cni_bad_input mixed \
	daemon_restart capture docker_bad_input crash_recovery 2>&1) || rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "a test failed under the sanitizers (see above)"
grep -q '^sanitize: 10 passed, 0 failed' <<<"$out" || fail "not every part ran: $(tail -n1 <<<"$out")"
