#!/bin/bash
# Every bad input gets a clear error and changes nothing. Through
# podwirectl: exit code 1 and a message naming the object and the fix.
# Through raw JSON-RPC lines: the documented error code. For each case the
# networks, the ports, the state file and the files under $T must be the
# same before and after, and the daemon must go on serving.
. "$(dirname "$0")/lib.sh"

S=$T/s # the directory for port sockets
STATE=$T/pw.state/state.json

snapshot() {
	ctlj pw network list
	ctlj pw port list
	cat "$STATE"
	find "$T" -mindepth 1 -not -name '*.log' -printf '%p %y %s\n' | sort
	md5sum "$S/file"
}

# _check_unchanged WHAT: compares with the snapshot taken before the case.
_check_unchanged() {
	local after
	after=$(snapshot)
	[ "$after" = "$SNAP" ] || {
		diff <(echo "$SNAP") <(echo "$after") || true
		fail "$1: the request changed the daemon's state or files (diff above)"
	}
}

# _has_words WHAT TEXT 'WORD;WORD;...': every word appears in TEXT.
_has_words() {
	local w list
	IFS=';' read -ra list <<<"$3"
	for w in "${list[@]}"; do
		grep -qF -- "$w" <<<"$2" || fail "$1: message lacks \"$w\": $2"
	done
}

# refused WHAT 'WORD;...' PODWIRECTL-ARGS...: podwirectl must exit 1 with
# an error naming every WORD, and nothing may change.
refused() {
	local what=$1 words=$2 out rc=0
	shift 2
	SNAP=$(snapshot)
	out=$(ctl pw "$@" 2>&1) || rc=$?
	[ $rc = 1 ] || fail "$what: podwirectl $* exited $rc, expected 1; output: $out"
	_has_words "$what" "$out" "$words"
	_check_unchanged "$what"
	ok "$what: $out"
}

# usage_refused WHAT 'WORD;...' PODWIRECTL-ARGS...: the same for command
# lines podwirectl itself rejects (exit 2); the daemon is not asked.
usage_refused() {
	local what=$1 words=$2 out rc=0
	shift 2
	SNAP=$(snapshot)
	out=$(ctl pw "$@" 2>&1) || rc=$?
	[ $rc = 2 ] || fail "$what: podwirectl $* exited $rc, expected 2; output: $out"
	_has_words "$what" "$(head -n1 <<<"$out")" "$words"
	_check_unchanged "$what"
	ok "$what: $(head -n1 <<<"$out")"
}

# raw LINE: sends one line to the API socket, prints the answer line.
raw() {
	python3 - "$T/pw.sock" "$1" <<-'EOF'
		import socket, sys
		s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		s.settimeout(10)
		s.connect(sys.argv[1])
		s.sendall(sys.argv[2].encode() + b"\n")
		buf = b""
		while b"\n" not in buf:
		    chunk = s.recv(65536)
		    if not chunk:
		        break
		    buf += chunk
		sys.stdout.write(buf.decode())
	EOF
}

# refused_raw WHAT CODE 'WORD;...' LINE: the answer must be an error with
# CODE whose message names every WORD, and nothing may change.
refused_raw() {
	local what=$1 code=$2 words=$3 line=$4 resp
	SNAP=$(snapshot)
	resp=$(raw "$line")
	jq -e . >/dev/null <<<"$resp" || fail "$what: the answer is not JSON: $resp"
	[ "$(jq -r .error.code <<<"$resp")" = "$code" ] ||
		fail "$what: expected error code $code, got: $resp"
	[ "$(jq -r .result <<<"$resp")" = null ] || fail "$what: an error answer has a result: $resp"
	_has_words "$what" "$(jq -r .error.message <<<"$resp")" "$words"
	_check_unchanged "$what"
	ok "$what: $code $(jq -r .error.message <<<"$resp")"
}

# req METHOD PARAMS-JSON: a well-formed request line with id 7.
req() { jq -nc --arg m "$1" --argjson p "$2" '{jsonrpc: "2.0", id: 7, method: $m, params: $p}'; }

# A path of exactly LEN bytes in $S.
path_of_len() {
	local p=$S/
	while [ ${#p} -lt $(($1 - 5)) ]; do p+=x; done
	echo "$p.sock"
}

daemon_start pw
mkdir "$S"
echo "not a socket" >"$S/file"
ctl pw network add net1
ctl pw port add p1 --network net1 --type vhost-user --socket "$S/p1.sock"
ctl pw port add n1 --network net1 --type null
SEQ=$S/seq.sock LIVE=$S/live.sock

# ---- objects that do or do not exist ---------------------------------------
refused "unknown network" 'network "nonet" does not exist;network add nonet' \
	port add x --network nonet --type null
refused_raw "unknown network (raw)" 1001 'network "nonet" does not exist' \
	"$(req port.create '{"name":"x","network":"nonet","type":"null"}')"
refused "port name taken" 'port "p1" already exists' \
	port add p1 --network net1 --type null
refused_raw "port name taken (raw)" 1002 'port "p1" already exists' \
	"$(req port.create '{"name":"p1","network":"net1","type":"null"}')"
refused "network name taken" 'network "net1" already exists' network add net1
refused_raw "network name taken (raw)" 1002 'network "net1" already exists' \
	"$(req network.create '{"name":"net1"}')"
refused "network delete with ports" 'network "net1";"p1";delete them first' network del net1
refused_raw "network delete with ports (raw)" 1003 '"p1"' "$(req network.delete '{"name":"net1"}')"
refused "port del of an unknown port" 'port "ghost" does not exist' port del ghost
refused "port show of an unknown port" 'port "ghost" does not exist' port show ghost
refused_raw "port show of an unknown port (raw)" 1001 'port "ghost" does not exist' \
	"$(req port.get '{"name":"ghost"}')"
refused "stats of an unknown port" 'port "ghost" does not exist' stats ghost
refused "stats clear of an unknown port" 'port "ghost" does not exist' stats clear ghost
refused "network del of an unknown network" 'network "ghost" does not exist' network del ghost
refused "mac list of an unknown network" 'network "ghost" does not exist' mac list ghost
refused "port list of an unknown network" 'network "ghost" does not exist' port list --network ghost

# ---- socket paths ----------------------------------------------------------
LONG=$(path_of_len 108)
refused "socket path of 108 bytes" 'port "x";108 bytes;the limit is 107' \
	port add x --network net1 --type vhost-user --socket "$LONG"
refused "socket path of 300 bytes" 'port "x";300 bytes;the limit is 107' \
	port add x --network net1 --type memif --socket "$(path_of_len 300)"
refused "socket directory missing" "port \"x\";$T/nodir;does not exist;create it" \
	port add x --network net1 --type vhost-user --socket "$T/nodir/x.sock"
refused_raw "socket directory missing (raw)" 1004 "$T/nodir" \
	"$(req port.create "{\"name\":\"x\",\"network\":\"net1\",\"type\":\"memif\",\"socket\":\"$T/nodir/x.sock\"}")"
refused "socket directory missing, client role" "port \"x\";$T/nodir;does not exist" \
	port add x --network net1 --type vhost-user --client --socket "$T/nodir/x.sock"
refused "socket path is a regular file" "port \"x\";$S/file;exists and is not a socket" \
	port add x --network net1 --type vhost-user --socket "$S/file"
refused "socket path is a regular file, memif" "port \"x\";$S/file;exists and is not a socket" \
	port add x --network net1 --type memif --socket "$S/file"
refused "socket path is a directory" "port \"x\";$S" \
	port add x --network net1 --type vhost-user --socket "$S"
refused "relative socket path" 'port "x";"s/x.sock" is relative;absolute' \
	port add x --network net1 --type vhost-user --socket s/x.sock
refused "socket path with .." 'port "x";".."' \
	port add x --network net1 --type vhost-user --socket "$S/../x.sock"
refused "vhost-user port without a socket" 'port "x";"socket"' \
	port add x --network net1 --type vhost-user
refused "null port with a socket" 'port "x";type null has no socket' \
	port add x --network net1 --type null --socket "$S/x.sock"
refused "two ports on one socket path" "port \"p2\";$S/p1.sock;already used by port \"p1\"" \
	port add p2 --network net1 --type vhost-user --socket "$S/p1.sock"
refused "two ports on one socket path, memif" "port \"p2\";already used by port \"p1\"" \
	port add p2 --network net1 --type memif --socket "$S/p1.sock"
refused_raw "two ports on one socket path (raw)" 1003 '"p1"' \
	"$(req port.create "{\"name\":\"p2\",\"network\":\"net1\",\"type\":\"vhost-user\",\"socket\":\"$S/p1.sock\"}")"

# Sockets that another process listens on (stream, as vhost-user; seqpacket,
# as memif) belong to it: podwired must neither remove nor take them.
python3 - "$LIVE" "$SEQ" <<-'EOF' &
	import socket, sys, time
	socks = []
	for path, t in ((sys.argv[1], socket.SOCK_STREAM), (sys.argv[2], socket.SOCK_SEQPACKET)):
	    s = socket.socket(socket.AF_UNIX, t)
	    s.bind(path)
	    s.listen(4)
	    socks.append(s)
	time.sleep(600)
EOF
LISTENER=$!
wait_for 10 "the other process's sockets" test -S "$SEQ"
refused "socket in use by another process (stream)" "port \"x\";$LIVE;in use by another process" \
	port add x --network net1 --type vhost-user --socket "$LIVE"
refused "socket in use by another process (seqpacket), vhost-user" \
	"port \"x\";$SEQ;in use by another process" \
	port add x --network net1 --type vhost-user --socket "$SEQ"
refused "socket in use by another process (seqpacket), memif" \
	"port \"x\";$SEQ;in use by another process" \
	port add x --network net1 --type memif --socket "$SEQ"
kill "$LISTENER"
wait "$LISTENER" 2>/dev/null || true
rm -f "$LIVE" "$SEQ"

# ---- values ----------------------------------------------------------------
refused "malformed MAC" 'port "x";MAC "02:00:00:00:00";aa:bb:cc:dd:ee:ff' \
	port add x --network net1 --type null --mac 02:00:00:00:00
refused "MAC with bad digits" 'port "x";MAC "02:00:00:00:00:zz"' \
	port add x --network net1 --type null --mac 02:00:00:00:00:zz
refused "MAC too long" 'port "x";MAC "02:00:00:00:00:01:02"' \
	port add x --network net1 --type null --mac 02:00:00:00:00:01:02
refused "multicast MAC" 'port "x";01:00:5e:00:00:01;multicast;unicast' \
	port add x --network net1 --type null --mac 01:00:5e:00:00:01
refused "broadcast MAC" 'port "x";multicast' \
	port add x --network net1 --type null --mac ff:ff:ff:ff:ff:ff
refused "zero MAC" 'port "x";00:00:00:00:00:00' \
	port add x --network net1 --type null --mac 00:00:00:00:00:00
refused "MTU 67" 'port.create;port "x";"mtu" is 67;68-9000 (bytes)' port add x --network net1 --type null --mtu 67
refused "MTU 9001" 'port "x";"mtu" is 9001;68-9000 (bytes)' port add x --network net1 --type null --mtu 9001
refused "VLAN 4095" 'network "netv";"vlan" is 4095;0-4094 (VLAN id);0 for none' network add netv --vlan 4095
refused "VLAN -1" 'network "netv";"vlan" is -1;0-4094 (VLAN id)' network add netv --vlan -1
refused "unknown port type" 'port "x";unknown type "tap";vhost-user;memif;null' \
	port add x --network net1 --type tap
refused "unknown network mode" 'network "netm";mode "hub";bridge;xconnect' \
	network add netm --mode hub
refused_raw "unknown port mode (raw)" -32602 'port "x";mode "listen";server;client' \
	"$(req port.create "{\"name\":\"x\",\"network\":\"net1\",\"type\":\"vhost-user\",\"socket\":\"$S/x.sock\",\"mode\":\"listen\"}")"
refused "memif secret on a vhost-user port" 'port "x";"secret";memif' \
	port add x --network net1 --type vhost-user --socket "$S/x.sock" --secret abc
refused "memif secret on a null port" 'port "x";"secret";memif' \
	port add x --network net1 --type null --secret abc
refused "memif secret too long" 'port "x";secret;24' \
	port add x --network net1 --type memif --socket "$S/x.sock" --secret 0123456789012345678901234
refused "memif secret with a comma" 'port "x";secret' \
	port add x --network net1 --type memif --socket "$S/x.sock" --secret a,b

ctl pw network add xc --mode xconnect
ctl pw port add xc1 --network xc --type null
ctl pw port add xc2 --network xc --type null
refused "third port on a cross-connect network" 'port "xc3";"xc";two ports' \
	port add xc3 --network xc --type null

# ---- names -----------------------------------------------------------------
NAME64=$(printf 'n%.0s' $(seq 64))
refused "port name with a slash" '"bad/name";'"'/'"';[A-Za-z0-9._-]' \
	port add bad/name --network net1 --type null
refused "port name with a space" '"bad name";[A-Za-z0-9._-]' \
	port add "bad name" --network net1 --type null
refused "port name too long" 'port.create;"name" is 64 bytes;the limit is 63' \
	port add "$NAME64" --network net1 --type null
refused "port name starting with a dot" '".x";start with a letter or digit' \
	port add .x --network net1 --type null
refused "network name with a colon" '"bad:net";'"':'" network add bad:net
refused "network name too long" 'network.create;"name" is 64 bytes;the limit is 63' network add "$NAME64"
refused_raw "empty port name (raw)" -32602 'port name is empty' \
	"$(req port.create '{"name":"","network":"net1","type":"null"}')"

# ---- command lines podwirectl rejects itself (exit 2) ---------------------
usage_refused "port add without --type" 'port add;--type' port add x --network net1
usage_refused "MTU that is not a number" '--mtu;"abc"' port add x --network net1 --type null --mtu abc
usage_refused "unknown option" '"--colour"' port add x --network net1 --type null --colour red
usage_refused "--server and --client" '--client;conflicts' \
	port add x --network net1 --type vhost-user --socket "$S/x.sock" --server --client
usage_refused "unknown command" '"frobnicate"' frobnicate

# ---- raw JSON-RPC ----------------------------------------------------------
refused_raw "malformed JSON" -32700 'not valid JSON' '{"jsonrpc":"2.0","id":7,'
refused_raw "not JSON at all" -32700 'not valid JSON' 'hello'
refused_raw "not JSON-RPC: no jsonrpc member" -32600 '"jsonrpc":"2.0"' \
	'{"id":7,"method":"system.info"}'
refused_raw "not JSON-RPC: version 1.0" -32600 '"jsonrpc":"2.0"' \
	'{"jsonrpc":"1.0","id":7,"method":"system.info"}'
refused_raw "not JSON-RPC: method not a string" -32600 'method' \
	'{"jsonrpc":"2.0","id":7,"method":5}'
refused_raw "not JSON-RPC: an array" -32600 'JSON-RPC' '[1,2,3]'
refused_raw "unknown method" -32601 'unknown method "port.explode"' \
	"$(req port.explode '{}')"
refused_raw "unknown field in params" -32602 \
	'port.create;unknown field "colour";known fields: name, network, type, socket, mode, mac, mtu, secret' \
	"$(req port.create '{"name":"x","network":"net1","type":"null","colour":"red"}')"
refused_raw "unknown field for a method without params" -32602 'unknown field "verbose"' \
	"$(req system.info '{"verbose":true}')"
refused_raw "wrong type: mtu as a string" -32602 'field "mtu" must be an integer' \
	"$(req port.create '{"name":"x","network":"net1","type":"null","mtu":"1500"}')"
refused_raw "wrong type: mtu not whole" -32602 'field "mtu" must be an integer' \
	"$(req port.create '{"name":"x","network":"net1","type":"null","mtu":1500.5}')"
refused_raw "wrong type: name as a number" -32602 'field "name" must be a string' \
	"$(req port.create '{"name":5,"network":"net1","type":"null"}')"
refused_raw "wrong type: vlan as a bool" -32602 'field "vlan" must be an integer' \
	"$(req network.create '{"name":"netv","vlan":true}')"
refused_raw "params not an object" -32602 '"params" must be an object' \
	'{"jsonrpc":"2.0","id":7,"method":"port.create","params":[1]}'
refused_raw "required field missing" -32602 'field "type" is required' \
	"$(req port.create '{"name":"x","network":"net1"}')"
resp=$(raw "$(req port.get '{"name":"ghost"}')")
expect_eq "id of an error answer" 7 "$(jq .id <<<"$resp")"

# A 2 MiB line without a newline: the sender gets one error and is cut off;
# a client connected all along is still served.
SNAP=$(snapshot)
out=$(python3 - "$T/pw.sock" <<-'EOF'
	import json, socket, sys
	other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	other.settimeout(10)
	other.connect(sys.argv[1])
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.settimeout(10)
	s.connect(sys.argv[1])
	try:
	    s.sendall(b"x" * (2 << 20))
	except (BrokenPipeError, ConnectionResetError):
	    pass
	buf, closed = b"", False
	while not closed:
	    try:
	        chunk = s.recv(65536)
	    except ConnectionResetError:
	        chunk = b""
	    closed = not chunk
	    buf += chunk
	print(json.dumps({"answer": buf.decode(), "closed": closed}))
	other.sendall(b'{"jsonrpc":"2.0","id":9,"method":"system.info"}\n')
	buf = b""
	while b"\n" not in buf:
	    chunk = other.recv(65536)
	    if not chunk:
	        break
	    buf += chunk
	print(buf.decode().strip())
EOF
)
answer=$(head -n1 <<<"$out" | jq -r .answer)
expect_eq "answers to the 2 MiB line" 1 "$(grep -c . <<<"$answer")"
expect_eq "error code for the 2 MiB line" -32600 "$(head -n1 <<<"$answer" | jq .error.code)"
_has_words "2 MiB line" "$(head -n1 <<<"$answer" | jq -r .error.message)" '1 MiB'
expect_eq "the 2 MiB sender was disconnected" true "$(head -n1 <<<"$out" | jq .closed)"
expect_eq "the other client is still served" "$(ctlj pw info | jq .networks)" \
	"$(sed -n 2p <<<"$out" | jq '.result.networks')"
_check_unchanged "2 MiB line"

# ---- the state file cannot be written ----------------------------------------
# (podwired runs as root here, so permissions cannot stop it; a directory
# where the temporary file goes does.) The change is undone.
mkdir "$STATE.tmp"
refused "port add when the state cannot be saved" 'state.json;cannot write' \
	port add x --network net1 --type vhost-user --socket "$S/x.sock"
refused "network add when the state cannot be saved" 'state.json;cannot write' network add netx
refused_raw "port add when the state cannot be saved (raw)" -32603 'cannot write' \
	"$(req port.create '{"name":"x","network":"net1","type":"null"}')"
rmdir "$STATE.tmp"

# ---- after all that --------------------------------------------------------
daemon_alive pw || fail "podwired died"
ctl pw info >/dev/null || fail "podwired does not answer any more"
P107=$(path_of_len 107)
ctl pw port add good --network net1 --type vhost-user --socket "$P107" --mac 02:00:00:00:00:07 \
	--mtu 9000 || fail "a valid port add (socket path of 107 bytes) was refused"
[ -S "$P107" ] || fail "the 107-byte socket $P107 was not created"
ctl pw port add good2 --network net1 --type memif --socket "$S/good2.sock" --secret abc
ctl pw network add netv --vlan 4094
ok "valid requests still work"
expect_eq "ports at the end" "good good2 n1 p1 xc1 xc2" \
	"$(ctlj pw port list | jq -r '[.ports[].name] | sort | join(" ")')"
