# Sourced by every smoke test: a real podwired and real dpdk-testpmd pods.
#
# Daemons and pods are named; their sockets, logs and state live in a fresh
# short temp dir ($T). Everything started here is stopped by PID on exit,
# and on failure the daemon's state and logs are dumped.
#
# Cores (this machine has 2): podwired's worker on core 1; its control
# thread and every pod on core 0 (pods map two lcores onto cpu 0).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${PODWIRE_BUILD:-$ROOT/build}" 2>/dev/null && pwd || echo "${PODWIRE_BUILD:-$ROOT/build}")
PODWIRED=$BUILD/podwired
PODWIRECTL=$BUILD/podwirectl
TEST_NAME=$(basename "$0" .sh)
T=$(mktemp -d /tmp/pw.XXXXXX)
POD_CPU=${POD_CPU:-0}
WORKER_CPU=${WORKER_CPU:-1}

declare -A DAEMON_PID=() POD_PID=() POD_FD=() POD_SEEN=()

log() { echo "[$(date +%T)] $*"; }
ok() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}

_dump() {
	local d
	for d in "${!DAEMON_PID[@]}"; do
		echo "---- podwired $d: port list / stats / log tail"
		ctl "$d" port list 2>&1 || true
		ctl "$d" stats 2>&1 || true
		tail -n 30 "$T/$d.log" 2>/dev/null || true
	done
	for d in "${!POD_PID[@]}"; do
		echo "---- pod $d: log tail"
		tail -n 20 "$T/pod-$d.log" 2>/dev/null || true
	done
}

_stop_pid() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

# on_exit STEP: STEP (a function) runs when the test ends, pass or fail,
# before the daemons and pods of this library are stopped: steps in the
# reverse order of their registration, each called with the test's exit
# status as $1, with errexit off, so that a failing command in one neither
# ends the cleanup nor changes the test's status. A test registers its own
# cleanup here instead of replacing the EXIT trap.
ON_EXIT=()
on_exit() { ON_EXIT+=("$1"); }

_cleanup() {
	local rc=$? n i
	set +e
	for ((i = ${#ON_EXIT[@]} - 1; i >= 0; i--)); do
		"${ON_EXIT[$i]}" "$rc"
		set +e
	done
	# podwired checks every answer against control/api.h and logs a
	# mismatch: any test that made one fails.
	for n in "$T"/*.log; do
		if [ -f "$n" ] && grep -q "does not match control/api.h" "$n"; then
			echo "FAIL: $(basename "$n"): $(grep -m1 'does not match control/api.h' "$n")"
			[ $rc -eq 0 ] && rc=1
		fi
	done
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || _dump
	for n in "${!POD_PID[@]}"; do _stop_pid "${POD_PID[$n]}"; done
	for n in "${!DAEMON_PID[@]}"; do _stop_pid "${DAEMON_PID[$n]}"; done
	# Under a sanitizer build (tests/sanitize.sh) a report in any log is a
	# failure, even from a daemon that then exited as asked.
	for n in "$T"/*.log; do
		if [ -f "$n" ] && grep -qE "$SANITIZER_REPORT" "$n"; then
			echo "FAIL: $(basename "$n"): a sanitizer report:"
			grep -m1 -A40 -E "$SANITIZER_REPORT" "$n"
			[ $rc -eq 0 ] && rc=1
		fi
	done
	# A podwired that died of a signal left a core in its directory: the
	# failure shows where it died, and a crash fails the test even if the
	# test itself did not notice.
	if [ -n "$(_cores)" ]; then
		_backtraces
		{ [ $rc -eq 0 ] || [ $rc -eq 77 ]; } && rc=1
	fi
	rm -f /dev/hugepages/pwt"$$"-* 2>/dev/null
	rm -rf /var/run/dpdk/pwt"$$"-* 2>/dev/null
	rm -rf "$T"
	exit $rc
}
# Core files of the daemons this test started (daemon_start runs each in
# $T/cores.NAME, where the kernel's default core_pattern "core" puts them).
_cores() { find "$T" -maxdepth 2 -path "$T/cores.*" -name 'core*' -type f 2>/dev/null; }

_backtraces() {
	local c
	for c in $(_cores); do
		echo "---- podwired dumped core ($c): backtrace of every thread"
		if command -v gdb >/dev/null; then
			timeout 120 gdb -q -batch -ex 'info threads' -ex 'thread apply all bt 20' \
				"$PODWIRED" "$c" 2>&1 |
				sed -E 's/ ?warning: Section [^ ]+ in core file too small\.//' |
				grep -vE '^\[New LWP|^warning: |^$' | head -n 200
		else
			echo "(gdb is not installed: apt-get install gdb)"
		fi
	done
}

SANITIZER_REPORT='^(==[0-9]+==ERROR: [A-Za-z]+Sanitizer|.*: runtime error: )'
trap _cleanup EXIT
trap 'exit 130' INT TERM

# wait_for SECONDS DESCRIPTION COMMAND...: polls until COMMAND succeeds.
wait_for() {
	local secs=$1 what=$2 end
	shift 2
	end=$(($(date +%s%N) + secs * 1000000000))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s%N)" -lt "$end" ] || fail "timed out after ${secs}s waiting for $what"
		sleep 0.1
	done
}

[ -x "$PODWIRED" ] || fail "$PODWIRED is not built; run: meson setup build && ninja -C build"
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd is not installed (apt-get install dpdk-dev)"
command -v jq >/dev/null || fail "jq is not installed"

# ---- podwired --------------------------------------------------------------

# daemon_start NAME [podwired options...]: socket $T/NAME.sock, state dir
# $T/NAME.state, CDI specs in $T/NAME.cdi (never the host's /var/run/cdi
# unless a test says so), log $T/NAME.log. Returns when the API answers.
daemon_start() {
	local name=$1
	shift
	# Started in a directory of its own, with cores allowed: a crash
	# leaves a core there that _cleanup turns into a backtrace. (A core
	# without DPDK's shared hugepages: the default coredump_filter.)
	mkdir -p "$T/cores.$name"
	(cd "$T/cores.$name" && ulimit -c unlimited && exec "$PODWIRED" \
		--main-core "$POD_CPU" --worker-cores "$WORKER_CPU" \
		--socket "$T/$name.sock" --state-dir "$T/$name.state" --cdi-dir "$T/$name.cdi" "$@") \
		>>"$T/$name.log" 2>&1 &
	DAEMON_PID[$name]=$!
	wait_for 30 "podwired $name to answer" ctl "$name" info
}

daemon_stop() {
	_stop_pid "${DAEMON_PID[$1]}"
	wait "${DAEMON_PID[$1]}" 2>/dev/null || true
	unset "DAEMON_PID[$1]"
}

# daemon_kill NAME: abrupt end (SIGKILL), as when podwired crashes.
daemon_kill() {
	kill -KILL "${DAEMON_PID[$1]}" 2>/dev/null || true
	wait "${DAEMON_PID[$1]}" 2>/dev/null || true
	unset "DAEMON_PID[$1]"
}

daemon_alive() { kill -0 "${DAEMON_PID[$1]}" 2>/dev/null; }

# daemon_memory NAME: "fds dpdk_heap_bytes dpdk_allocs heap_bytes hugetlb_kB"
# of daemon NAME (system.info's memory, and the hugepages it maps).
daemon_memory() {
	ctlj "$1" info | jq -r '.memory | "\(.fds) \(.dpdk_heap_bytes) \(.dpdk_allocs) \(.heap_bytes)"' |
		tr '\n' ' '
	awk '/^(Private|Shared)_Hugetlb:/ {s += $2} END {print s + 0}' "/proc/${DAEMON_PID[$1]}/smaps_rollup"
}

# ctl NAME ARGS...: podwirectl against daemon NAME. ctlj adds --json.
ctl() {
	local name=$1
	shift
	"$PODWIRECTL" --socket "$T/$name.sock" "$@"
}
ctlj() {
	local name=$1
	shift
	"$PODWIRECTL" --socket "$T/$name.sock" --json "$@"
}

# rpc DAEMON METHOD [PARAMS-JSON]: one raw JSON-RPC call; prints the whole
# answer (result or error object), for tests that check error codes.
rpc() {
	python3 - "$T/$1.sock" "$2" "${3:-null}" <<-'EOF'
		import json, socket, sys
		s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		s.settimeout(10)
		s.connect(sys.argv[1])
		req = {"jsonrpc": "2.0", "id": 1, "method": sys.argv[2]}
		params = json.loads(sys.argv[3])
		if params is not None:
		    req["params"] = params
		s.sendall((json.dumps(req) + "\n").encode())
		buf = b""
		while not buf.endswith(b"\n"):
		    chunk = s.recv(65536)
		    if not chunk:
		        break
		    buf += chunk
		sys.stdout.write(buf.decode())
	EOF
}

# port_stat DAEMON PORT JQ-PATH: one counter, e.g. .rx_packets or .drops.tx_full
port_stat() { ctlj "$1" stats "$2" | jq -r ".ports[0]$3"; }
port_link() { ctlj "$1" port show "$2" | jq -r .link; }
link_is() { [ "$(port_link "$1" "$2")" = "$3" ]; }
wait_link() { wait_for "${4:-20}" "port $2 link $3" link_is "$1" "$2" "$3"; }

# ---- pods: dpdk-testpmd in interactive mode, fed through a FIFO ------------

# pod_start NAME VDEV [testpmd app options...]: one port, rxonly, not yet
# started (see pod_up). Returns at testpmd's prompt.
pod_start() {
	pod_spawn "$@"
	pod_ready "$1"
}

# pod_spawn NAME VDEV [testpmd app options...]: pod_start without waiting
# for the prompt, for pods whose start blocks on their peer (virtio-user
# with server=1 waits in accept() until podwired connects). See pod_ready.
# POD_EAL (word-split) adds EAL options, e.g. a second --vdev; VDEV stays
# port 0, the one pod_stats reads.
pod_spawn() {
	local name=$1 vdev=$2 fifo=$T/pod-$1.in fd
	shift 2
	mkfifo "$fifo"
	# stdbuf: testpmd writes to a file here, and its output must not wait in a buffer.
	stdbuf -oL -eL dpdk-testpmd --lcores "0@$POD_CPU,1@$POD_CPU" --main-lcore 0 \
		--file-prefix "pwt$$-$name" --in-memory --single-file-segments --no-pci \
		--log-level '*:notice' --vdev "$vdev" ${POD_EAL:-} -- -i --nb-cores=1 \
		--forward-mode=rxonly --total-num-mbufs=4096 "$@" \
		<"$fifo" >"$T/pod-$name.log" 2>&1 &
	POD_PID[$name]=$!
	exec {fd}>"$fifo"
	POD_FD[$name]=$fd
	POD_SEEN[$name]=0
}

# pod_prompt FILE: whether testpmd's prompt is in FILE. The pod's stdout
# and stderr share FILE, and testpmd writes its prompt in pieces: a line
# on stderr can land inside it ("test", "Error during enabling
# promiscuous mode ... - ignore", newline, "pmd> "), so a prompt split by
# one such line counts too.
pod_prompt() {
	grep -q 'testpmd>' "$1" || grep -Pzq 'test[^\n]*\npmd>' "$1"
}

# pod_ready NAME [SECONDS]: waits for the pod's testpmd prompt.
pod_ready() {
	wait_for "${2:-30}" "pod $1 to start" pod_prompt "$T/pod-$1.log"
}

# pod_up DAEMON PORT NAME VDEV [testpmd options...]: starts the pod, waits
# for podwired to see its link up, then starts receiving. (Forwarding
# started before the vhost device is ready can leave testpmd's rx idle.)
pod_up() {
	local daemon=$1 port=$2 name=$3
	shift 3
	pod_start "$name" "$@"
	wait_link "$daemon" "$port" up
	# The pod's own side may come up a little later (memif finishes its
	# handshake on the pod's interrupt thread): frames sent before that
	# would be dropped by the pod itself.
	wait_for 20 "pod $name to see its link up" pod_link_up "$name"
	pod_cmd "$name" start
}

_pod_link_count() { grep -c 'Link status:' "$T/pod-$1.log" || true; }
_pod_link_more() { [ "$(_pod_link_count "$1")" -gt "$2" ]; }
# pod_link_up NAME: asks the pod for its port's link status; true when up.
pod_link_up() {
	local n
	n=$(_pod_link_count "$1")
	pod_cmd "$1" "show port info 0"
	wait_for 10 "port info of pod $1" _pod_link_more "$1" "$n"
	grep 'Link status:' "$T/pod-$1.log" | tail -n 1 | grep -q 'up'
}

# pod_send NAME BURSTS: the pod sends BURSTS x 32 frames (64 bytes, to its
# --eth-peer) and goes on receiving.
pod_send() {
	pod_cmd "$1" stop
	pod_cmd "$1" "start tx_first $2"
}

pod_cmd() { echo "$2" >&"${POD_FD[$1]}"; }

# pod_txpkts NAME LEN[,LEN...]: size of the pod's next pod_send frames; a
# list makes each frame a chain of segments of these sizes.
pod_txpkts() {
	pod_cmd "$1" stop
	pod_cmd "$1" "set txpkts $2"
	pod_cmd "$1" start
}

# pod_peer NAME MAC: destination of the pod's next pod_send frames.
# (testpmd refuses the change while forwarding.)
pod_peer() {
	pod_cmd "$1" stop
	pod_cmd "$1" "set eth-peer 0 $2"
	pod_cmd "$1" start
}

pod_stop() {
	local name=$1 i
	pod_cmd "$name" quit 2>/dev/null || true
	for i in $(seq 50); do
		kill -0 "${POD_PID[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	_stop_pid "${POD_PID[$name]}"
	wait "${POD_PID[$name]}" 2>/dev/null || true
	exec {POD_FD[$name]}>&-
	rm -f "$T/pod-$name.in"
	unset "POD_PID[$name]" "POD_FD[$name]"
}

# pod_kill NAME: abrupt end (SIGKILL), as when a pod crashes.
pod_kill() {
	kill -KILL "${POD_PID[$1]}" 2>/dev/null || true
	wait "${POD_PID[$1]}" 2>/dev/null || true
	exec {POD_FD[$1]}>&-
	rm -f "$T/pod-$1.in"
	unset "POD_PID[$1]" "POD_FD[$1]"
}

_pod_stats_count() { grep -c 'RX-packets:.*RX-missed' "$T/pod-$1.log" || true; }
_pod_stats_more() { [ "$(_pod_stats_count "$1")" -gt "${POD_SEEN[$1]}" ]; }

# _pod_show_stats NAME: asks the pod for its port stats and waits for them.
_pod_show_stats() {
	POD_SEEN[$1]=$(_pod_stats_count "$1")
	pod_cmd "$1" "show port stats 0"
	wait_for 10 "stats of pod $1" _pod_stats_more "$1"
}

# pod_stats NAME: prints "RX TX" packet counts of the pod's port.
pod_stats() {
	local name=$1 rx tx
	_pod_show_stats "$name"
	rx=$(grep 'RX-packets:.*RX-missed' "$T/pod-$name.log" | tail -n1 | awk '{print $2}')
	tx=$(grep 'TX-packets:.*TX-errors' "$T/pod-$name.log" | tail -n1 | awk '{print $2}')
	echo "$rx $tx"
}
# pod_bytes NAME: prints "RX TX" byte counts of the pod's port.
pod_bytes() {
	local name=$1 rx tx
	_pod_show_stats "$name"
	rx=$(grep 'RX-packets:.*RX-bytes' "$T/pod-$name.log" | tail -n1 | awk '{print $6}')
	tx=$(grep 'TX-packets:.*TX-bytes' "$T/pod-$name.log" | tail -n1 | awk '{print $6}')
	echo "$rx $tx"
}
pod_rx() { pod_stats "$1" | cut -d' ' -f1; }
pod_tx() { pod_stats "$1" | cut -d' ' -f2; }
# For wait_for, which evaluates its command each time:
pod_rx_ge() { [ "$(pod_rx "$1")" -ge "$2" ]; }
pod_tx_ge() { [ "$(pod_tx "$1")" -ge "$2" ]; }
port_stat_ge() { [ "$(port_stat "$1" "$2" "$3")" -ge "$4" ]; }

# vdev strings for the three peer kinds.
vdev_virtio() { echo "net_virtio_user0,path=$1,mac=$2,queues=1${3:+,$3}"; }
vdev_memif() { echo "net_memif0,role=client,socket=$1,socket-abstract=no,mac=$2${3:+,$3}"; }

# frame_hex DST SRC LEN [VLAN]: an Ethernet frame in hex, LEN bytes
# untagged (ethertype 0x88b5, zero payload); with VLAN, an 802.1Q tag makes
# it LEN+4 bytes.
frame_hex() {
	local hex tag=
	[ -z "${4:-}" ] || tag=$(printf '8100%04x' "$4")
	hex="${1//:/}${2//:/}${tag}88b5"
	printf '%s%0*d\n' "$hex" $((2 * $3 - 28)) 0
}

# pcap_write FILE COUNT HEX...: a pcap file with COUNT rounds of the given
# frames, for a pod that replays it (net_pcap rx_pcap=FILE, see POD_EAL).
pcap_write() {
	python3 - "$@" <<-'EOF'
		import struct, sys
		path, count, frames = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
		with open(path, "wb") as f:
		    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
		    for _ in range(count):
		        for h in frames:
		            b = bytes.fromhex(h)
		            f.write(struct.pack("<IIII", 0, 0, len(b), len(b)) + b)
	EOF
}

# netns_add NS...: network namespaces for kernel pods, quiet (no IPv6:
# no router solicitations or MLD reports beside the test's own frames)
# with lo up, deleted when the test ends; the test skips when none can be
# made.
NETNS_ADDED=()
_netns_cleanup() {
	local n
	for n in "${NETNS_ADDED[@]}"; do ip netns del "$n" 2>/dev/null; done
}
netns_add() {
	local n
	[ ${#NETNS_ADDED[@]} -ne 0 ] || on_exit _netns_cleanup
	for n in "$@"; do
		ip netns add "$n" || skip "cannot create network namespace $n"
		NETNS_ADDED+=("$n")
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
		ip -n "$n" link set lo up
	done
}

# veth_into_ns DAEMON PORT NETNS ADDR/PREFIX: the container end of veth
# port PORT (podwired made it: port show's veth.peer) becomes eth0 in
# NETNS with that address, up.
veth_into_ns() {
	local peer
	peer=$(ctlj "$1" port show "$2" | jq -r .veth.peer)
	ip link set "$peer" netns "$3"
	ip -n "$3" link set "$peer" name eth0
	ip -n "$3" addr add "$4" dev eth0
	ip -n "$3" link set eth0 up
}

# pcap_check FILE MAXLEN: what a capture of IPv4 TCP and UDP holds, as
# "frames=N valid=V partial=P bad=B over=O largest=L": L4 checksums that
# verify; that hold the pseudo-header sum a sender with checksum offload
# leaves for the device (CHECKSUM_PARTIAL: a veth passes such a frame on as
# it is, and a receiver's stack trusts it; tshark calls it bad); that are
# neither, or an IPv4 header checksum that does not verify; frames longer
# than MAXLEN bytes (Ethernet header included), and the longest; and
# frames captured short (a snaplen) whose checksum cannot be verified. A
# fragment's UDP checksum is checked on the datagram tshark reassembles.
pcap_check() {
	tshark -r "$1" -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-o ip.check_checksum:TRUE -T fields -E occurrence=f -e frame.len -e ip.src -e ip.dst \
		-e ip.proto -e ip.len -e ip.hdr_len -e ip.checksum.status -e tcp.checksum \
		-e tcp.checksum.status -e udp.checksum -e udp.checksum.status -e udp.length \
		-e frame.cap_len 2>/dev/null |
		awk -F'\t' -v max="$2" '
		function words(ip,   a) { split(ip, a, "."); return (a[1] * 256 + a[2]) + (a[3] * 256 + a[4]) }
		function fold(s) { while (s > 65535) s = (s % 65536) + int(s / 65536); return s }
		function hex(h,   i, v) {
			h = tolower(h); sub(/^0x/, "", h); v = 0
			for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v
		}
		# Fields: 1 frame.len 2 ip.src 3 ip.dst 4 ip.proto 5 ip.len 6 ip.hdr_len
		# 7 ip.checksum.status 8 tcp.checksum 9 tcp.checksum.status
		# 10 udp.checksum 11 udp.checksum.status 12 udp.length 13 frame.cap_len.
		# Checksum status: 0 bad, 1 good, 2 unverified, 3 not present.
		{
			n++
			if ($1 + 0 > max) over++
			if ($1 + 0 > big) big = $1 + 0
			if ($2 == "") next
			if ($7 == "0") { bad++; next }
			if ($4 == 6) { ck = $8; st = $9; l4 = $5 - $6 }
			else if ($4 == 17) { ck = $10; st = $11; l4 = $12 }
			else next
			if (ck == "") next
			if (st == "1" || st == "3") { valid++; next }
			p = fold(words($2) + words($3) + $4 + l4)
			if (hex(ck) == p || (p == 65535 && hex(ck) == 0)) partial++
			else if ($13 + 0 < $1 + 0) unchecked++
			else bad++
		}
		END { printf "frames=%d valid=%d partial=%d bad=%d over=%d largest=%d unchecked=%d\n", n, valid, partial, bad, over, big, unchecked }'
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected $2, got $3"
	ok "$1 = $3"
}
