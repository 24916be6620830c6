#!/bin/bash
# The API socket against clients that are not allowed, or that misbehave:
# - a user that is not root and not in the socket's group is refused by
#   the filesystem (mode 0660), with a message saying what to do; a member
#   of the group (--socket-group) is served;
# - a line over 1 MiB (whether its newline comes with it or never), a
#   request ended by a hang-up instead of a newline, and one left
#   unfinished for 10 s each get one JSON-RPC error and are disconnected;
# - a client that goes away mid-request changes nothing;
# - 1,000 idle connections do not stop other clients from being served,
#   and 5,000 (past the server's 4,096) neither: the one idle longest
#   makes room;
# - clients that connect, send and close at once, by the hundred, and
#   idle clients that send just as new ones evict them (one epoll batch
#   then carries events of clients closed earlier in it): podwired keeps
#   serving (under tests/sanitize.sh: no use-after-free).
. "$(dirname "$0")/lib.sh"

chmod 0711 "$T" # others may pass through to the socket; its mode decides
daemon_start pw --socket-group daemon
ctl pw network add net1 >/dev/null
SOCK=$T/pw.sock
expect_eq "socket mode and group" "660 daemon" "$(stat -c '%a %G' "$SOCK")"

# ---- who may connect -------------------------------------------------------
set +e
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$PODWIRECTL" --socket "$SOCK" info 2>&1)
rc=$?
set -e
expect_eq "podwirectl as nobody: exit status (3: cannot reach podwired)" 3 "$rc"
for w in "cannot connect to podwired at $SOCK" "Permission denied" "--socket-group"; do
	grep -qF -- "$w" <<<"$out" || fail "podwirectl as nobody: \"$w\" missing: $out"
done
ok "nobody (not in group daemon) is refused: $out"
out=$(setpriv --reuid=nobody --regid=nogroup --groups=daemon "$PODWIRECTL" --socket "$SOCK" \
	network list) || fail "a member of group daemon was refused: $out"
grep -q '^net1 ' <<<"$out" || fail "a member of group daemon: $out"
ok "a member of the socket's group is served"

# ---- requests that cannot be read --------------------------------------------
# rpc_raw PYTHON-ACTION: connects, does ACTION (python, with socket s),
# then prints every answer line and "closed" if the server hung up.
cat >"$T/raw.py" <<-'EOF'
	import socket, sys, time
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.settimeout(30)
	s.connect(sys.argv[1])
	exec(sys.argv[2])
	buf = b""
	while True:
	    try:
	        chunk = s.recv(65536)
	    except (ConnectionResetError, socket.timeout):
	        chunk = b""
	    if not chunk:
	        print(buf.decode(errors="replace").strip())
	        print("closed")
	        break
	    buf += chunk
EOF
raw_action() { /usr/bin/python3 "$T/raw.py" "$SOCK" "$1"; }
snapshot() { ctlj pw network list | jq -c .; ctlj pw port list | jq -c .; }
# refused WHAT WORDS ACTION: one error answer with WORDS, then the hang-up;
# nothing changed and podwired still serves.
refused() {
	local what=$1 words=$2 out before
	before=$(snapshot)
	out=$(raw_action "$3")
	expect_eq "$what: answers" 1 "$(head -n -1 <<<"$out" | grep -c .)"
	expect_eq "$what: error code" -32600 "$(head -n1 <<<"$out" | jq .error.code)"
	grep -qF -- "$words" <<<"$(head -n1 <<<"$out" | jq -r .error.message)" ||
		fail "$what: \"$words\" not in $(head -n1 <<<"$out")"
	expect_eq "$what: disconnected" closed "$(tail -n1 <<<"$out")"
	expect_eq "$what: nothing changed" "$before" "$(snapshot)"
	ok "$what: $(head -n1 <<<"$out" | jq -r .error.message)"
}
CREATE='{"jsonrpc":"2.0","id":1,"method":"port.create","params":{"name":"sneaky","network":"net1","type":"null"}'
# Over 1 MiB with the newline in the same write: refused, not run.
refused "a 1 MiB + 1 line whose newline came with it" "longer than 1 MiB" \
	"s.sendall(b'$CREATE' + b' ' * (1 << 20) + b'}\\n')"
refused "a request ended by a hang-up, not a newline" "did not end with a newline" \
	"s.sendall(b'$CREATE}'); s.shutdown(socket.SHUT_WR)"
refused "a request left unfinished" "not ended by a newline within 10 s" \
	"s.sendall(b'$CREATE')"
# Gone mid-request: nothing is run.
before=$(snapshot)
raw_action "s.sendall(b'$CREATE'); s.close(); sys.exit(0)" >/dev/null || true
expect_eq "a client gone mid-request changed nothing" "$before" "$(snapshot)"
# Two requests in one write, the second unfinished: the first is answered.
out=$(raw_action "s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"network.list\"}\\n$CREATE'); s.shutdown(socket.SHUT_WR)")
expect_eq "a whole request before an unfinished one: answered" 5 "$(head -n1 <<<"$out" | jq .id)"
expect_eq "then the unfinished one is refused" -32600 "$(sed -n 2p <<<"$out" | jq .error.code)"
ctlj pw port list | jq -e '.ports | length == 0' >/dev/null || fail "a port was created"

# ---- many idle connections ---------------------------------------------------
# idle N: N connections that say nothing, held while podwirectl runs.
idle_then() {
	/usr/bin/python3 - "$SOCK" "$1" "$PODWIRECTL" <<-'EOF'
		import resource, socket, subprocess, sys, time
		path, n, ctl = sys.argv[1], int(sys.argv[2]), sys.argv[3]
		resource.setrlimit(resource.RLIMIT_NOFILE, (n + 256, n + 256))
		held = []
		for _ in range(n):
		    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		    s.connect(path)
		    held.append(s)
		time.sleep(0.5)  # podwired accepted them all
		t = time.monotonic()
		r = subprocess.run([ctl, "--socket", path, "--json", "network", "list"],
		                   capture_output=True, text=True, timeout=30)
		ms = int((time.monotonic() - t) * 1000)
		print(r.returncode, ms, r.stdout.strip().replace("\n", " "), r.stderr.strip())
	EOF
}
for n in 1000 5000; do
	read -r rc ms json <<<"$(idle_then $n)"
	expect_eq "podwirectl beside $n idle connections: exit status" 0 "$rc"
	jq -e '.networks[0].name == "net1"' <<<"$json" >/dev/null ||
		fail "podwirectl beside $n idle connections: $json"
	ok "served beside $n idle connections, in $ms ms"
done
grep -q "API clients: closing the one idle longest" "$T/pw.log" ||
	fail "podwired did not say it made room past 4096 clients"

# ---- clients closed while their events wait -----------------------------------
# 400 threads each connect, send a request and close without reading,
# five times (the answer meets a closed socket); meanwhile 4,096 idle
# connections are held, and each sends a request just as a new client
# arrives (accepting it evicts an idle one, maybe that one).
/usr/bin/python3 - "$SOCK" <<-'EOF' || fail "the burst of clients failed"
	import resource, socket, sys, threading
	path = sys.argv[1]
	resource.setrlimit(resource.RLIMIT_NOFILE, (12000, 12000))
	req = b'{"jsonrpc":"2.0","id":1,"method":"network.list"}\n'
	def hit_and_run():
	    for _ in range(5):
	        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	        try:
	            s.connect(path)
	            s.sendall(req)
	        except OSError:
	            pass
	        s.close()
	threads = [threading.Thread(target=hit_and_run) for _ in range(400)]
	held = []
	for _ in range(4096):
	    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	    s.connect(path)
	    held.append(s)
	for t in threads:
	    t.start()
	fresh = []
	for s in held:
	    n = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	    try:
	        n.connect(path)
	        s.send(req)
	    except OSError:
	        pass  # evicted already: reset
	    fresh.append(n)
	for t in threads:
	    t.join()
	for s in held + fresh:
	    s.close()
EOF
out=$(ctl pw network list) || fail "podwired does not serve after the burst: $out"
grep -q '^net1 ' <<<"$out" || fail "after the burst: $out"
ok "served after 2,000 clients sent and closed at once and 4,096 were evicted while sending"
daemon_alive pw || fail "podwired died"
