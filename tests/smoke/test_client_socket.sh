#!/bin/bash
# Client role: podwired connects to a socket the pod makes in its own
# directory, which the pod can write. A symbolic link or a hard link there
# could lead to another port's socket (podwired's own server socket: two
# networks joined), and a socket of another owner is not the pod's: podwired
# refuses them all and says why; then a socket the pod made is connected to.
# memif checks before every try, and connects through the descriptor it
# checked; vhost-user (librte_vhost connects by path) checks at port add
# and again at every connection librte_vhost makes.
. "$(dirname "$0")/lib.sh"

HOSTILE=$BUILD/memif-hostile
[ -x "$HOSTILE" ] || fail "$HOSTILE is not built"

daemon_start pw
ctl pw network add net1 >/dev/null
ctl pw network add net2 >/dev/null
# Server ports on net1: what a planted link would lead to.
ctl pw port add ms --network net1 --type memif --socket "$T/ms.sock" >/dev/null
ctl pw port add vs --network net1 --type vhost-user --socket "$T/vs.sock" >/dev/null

memif_show() { ctlj pw port show "$1" | jq -r ".memif$2"; }
reason_has() { memif_show "$1" .last_disconnect | grep -qF -- "$2"; }

# listener PATH UID:GID SECONDS: a unix socket of that owner, listening
# (nobody accepts); prints how many connections waited on it at the end.
listener() {
	python3 - "$@" <<-'EOF2'
		import os, socket, sys, time
		path, owner, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
		s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
		s.bind(path)
		uid, gid = (int(x) for x in owner.split(":"))
		os.chown(path, uid, gid)
		s.listen(8)
		time.sleep(secs)
		s.setblocking(False)
		n = 0
		try:
		    while True:
		        s.accept()
		        n += 1
		except BlockingIOError:
		    pass
		print(n)
	EOF2
}

# ---- memif -------------------------------------------------------------------
ctl pw port add mc --network net2 --type memif --client --socket "$T/pod/mc.sock" 2>/dev/null &&
	fail "a client port in a missing directory was made"
mkdir "$T/pod"
ln -s "$T/ms.sock" "$T/pod/mc.sock"
ctl pw port add mc --network net2 --type memif --client --socket "$T/pod/mc.sock" >/dev/null
wait_for 10 "mc to refuse the symbolic link" reason_has mc "is a symbolic link"
sleep 2 # a few tries more
expect_eq "ms connections (the link leads there)" 0 "$(memif_show ms .connects)"
expect_eq "ms state" listening "$(memif_show ms .state)"
expect_eq "mc state" connecting "$(memif_show mc .state)"
ok "symbolic link refused: $(memif_show mc .last_disconnect)"

rm "$T/pod/mc.sock"
ln "$T/ms.sock" "$T/pod/mc.sock"
wait_for 10 "mc to refuse the hard link" reason_has mc "has 2 hard links"
expect_eq "ms connections (the hard link is its socket)" 0 "$(memif_show ms .connects)"
ok "hard link refused: $(memif_show mc .last_disconnect)"

rm "$T/pod/mc.sock"
listener "$T/pod/mc.sock" 4242:4242 4 >"$T/listener.out" &
LPID=$!
wait_for 10 "mc to refuse a socket of uid 4242" reason_has mc "belongs to uid 4242, gid 4242"
wait "$LPID"
expect_eq "connections podwired made to the socket of uid 4242" 0 "$(cat "$T/listener.out")"
ok "socket of another owner refused: $(memif_show mc .last_disconnect)"

# The pod's own socket: connected.
rm -f "$T/pod/mc.sock"
out=$("$HOSTILE" --wait 700 --server "$T/pod/mc.sock" srv-good) || fail "good server: $out"
grep -q '^connected' <<<"$out" || fail "good server: $out"
expect_eq "mc connections" 1 "$(memif_show mc .connects)"
ok "the pod's own socket is connected to"

# ---- vhost-user --------------------------------------------------------------
ln -s "$T/vs.sock" "$T/pod/vc.sock"
out=$(ctl pw port add vc --network net2 --type vhost-user --client --socket "$T/pod/vc.sock" 2>&1) &&
	fail "a vhost-user client port on a symbolic link was made"
grep -q "is a symbolic link" <<<"$out" || fail "port add vc: $out"
ok "vhost-user, symbolic link: $out"
rm "$T/pod/vc.sock"
ln "$T/vs.sock" "$T/pod/vc.sock"
out=$(ctl pw port add vc --network net2 --type vhost-user --client --socket "$T/pod/vc.sock" 2>&1) &&
	fail "a vhost-user client port on a hard link was made"
grep -q "has 2 hard links" <<<"$out" || fail "port add vc: $out"
ok "vhost-user, hard link: $out"
rm "$T/pod/vc.sock"
listener "$T/pod/vc.sock" 4242:4242 3 >/dev/null &
LPID=$!
sleep 0.5
out=$(ctl pw port add vc --network net2 --type vhost-user --client --socket "$T/pod/vc.sock" 2>&1) &&
	fail "a vhost-user client port on a socket of uid 4242 was made"
grep -q "belongs to uid 4242" <<<"$out" || fail "port add vc: $out"
ok "vhost-user, socket of another owner: $out"
wait "$LPID"
expect_eq "vs link (nothing connected to it)" down "$(port_link pw vs)"
# No socket yet is fine: librte_vhost connects when the pod makes it.
rm -f "$T/pod/vc.sock"
ctl pw port add vc --network net2 --type vhost-user --client --socket "$T/pod/vc.sock" >/dev/null
expect_eq "ports" "mc ms vc vs" "$(ctlj pw port list | jq -r '[.ports[].name] | sort | join(" ")')"
daemon_alive pw || fail "podwired died"

# A link planted after the port was made: librte_vhost keeps connecting
# by path, and each connection it makes is checked again and refused.
vhost_reason_has() { ctlj pw port show vc | jq -r .vhost_user.last_disconnect | grep -qF -- "$1"; }
ln -s "$T/vs.sock" "$T/pod/vc.sock"
wait_for 20 "vc to refuse the link planted after port add" vhost_reason_has "is a symbolic link"
sleep 2 # librte_vhost tries again every second
expect_eq "vs link (the planted link leads there)" down "$(port_link pw vs)"
expect_eq "vc link" down "$(port_link pw vc)"
ok "vhost-user, link planted later: $(ctlj pw port show vc | jq -r .vhost_user.last_disconnect)"
daemon_alive pw || fail "podwired died"
