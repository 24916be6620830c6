#!/bin/bash
# A port that cannot be restored when podwired starts (its socket directory
# is gone) is not lost: it is listed as failed with the reason, stays in
# the state file, is tried again at the next start (and comes back once
# its directory is there), and an operator can delete it. The other ports
# are restored as usual.
. "$(dirname "$0")/lib.sh"

STATE=$T/pw.state/state.json
PODS=$T/pods # the pod's directory, and its socket directory under it

daemon_start pw
ctl pw network add net1 >/dev/null
ctl pw network add net2 >/dev/null
mkdir -p "$PODS/p1"
ctl pw port add gone --network net1 --type memif --socket "$PODS/p1/m.sock" --secret s3 >/dev/null
ctl pw port add stays --network net1 --type memif --socket "$T/s.sock" >/dev/null
ctl pw port add vgone --network net2 --type vhost-user --socket "$PODS/p1/v.sock" >/dev/null
daemon_stop pw

# The pod's whole directory went (podwired remakes one missing level only).
rm -rf "$PODS"
daemon_start pw
daemon_alive pw || fail "podwired did not start"
for p in gone vgone; do
	expect_eq "$p: link" failed "$(ctlj pw port show $p | jq -r .link)"
	reason=$(ctlj pw port show $p | jq -r .reason)
	grep -qF "$PODS/p1" <<<"$reason" || fail "$p: the reason does not name the socket: $reason"
	ok "$p is listed as failed: $reason"
done
expect_eq "the other port is restored" down "$(ctlj pw port show stays | jq -r .link)"
ctl pw port list | tee "$T/list.out"
grep -qE '^gone .* failed ' "$T/list.out" || fail "port list does not show gone as failed"
grep -q '^  gone failed: .*m.sock' "$T/list.out" || fail "port list does not say why gone failed"
expect_eq "ports in the state file" "gone stays vgone" "$(jq -r '[.ports[].name] | sort | join(" ")' "$STATE")"
expect_eq "secret of the failed port kept" s3 "$(jq -r '.ports[] | select(.name=="gone") | .secret' "$STATE")"

# A change saves the state: the failed ports must still be in it.
ctl pw port add other --network net1 --type null >/dev/null
expect_eq "ports in the state file after a change" "gone other stays vgone" \
	"$(jq -r '[.ports[].name] | sort | join(" ")' "$STATE")"
# Their names and sockets are taken until they are deleted.
out=$(ctl pw port add gone --network net1 --type null 2>&1) && fail "a second port named gone was made"
grep -q "failed to restore" <<<"$out" || fail "port add gone: $out"
mkdir -p "$PODS/p1"
out=$(ctl pw port add g2 --network net1 --type memif --socket "$PODS/p1/m.sock" 2>&1) &&
	fail "a port on the failed port's socket was made"
grep -q "its socket is already used by port \"gone\", which failed to restore" <<<"$out" ||
	fail "port add g2: $out"
out=$(ctl pw network del net2 2>&1) && fail "net2 was deleted under its failed port"
grep -q "failed to restore" <<<"$out" || fail "network del net2: $out"
ok "a failed port's name, socket and network stay taken: $out"

# Its directory is back (made above): the next start restores it.
daemon_stop pw
daemon_start pw
for p in gone vgone; do
	expect_eq "$p after its directory came back" down "$(ctlj pw port show $p | jq -r .link)"
done
[ -S "$PODS/p1/m.sock" ] || fail "the memif socket was not made"
grep -q 'restored 2 network(s) and 4 port(s)' "$T/pw.log" || fail "not every port was restored"
ok "the failed ports came back once their directory was there"

# Failed again, then deleted by the operator.
daemon_stop pw
rm -rf "$PODS"
daemon_start pw
expect_eq "gone failed again" failed "$(ctlj pw port show gone | jq -r .link)"
ctl pw port del gone
ctl pw port del vgone
expect_eq "ports in the state file after the deletes" "other stays" \
	"$(jq -r '[.ports[].name] | sort | join(" ")' "$STATE")"
ctl pw port show gone >/dev/null 2>&1 && fail "gone is still there"
ctl pw port del other >/dev/null
ctl pw port del stays >/dev/null
ctl pw network del net1 >/dev/null
ctl pw network del net2 >/dev/null
daemon_stop pw
daemon_start pw
expect_eq "ports after a restart" 0 "$(ctlj pw port list | jq '.ports | length')"
daemon_alive pw || fail "podwired died"
ok "a failed port is deleted with port del, for good"
