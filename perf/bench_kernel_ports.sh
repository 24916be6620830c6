#!/bin/bash
# Which way should a kernel container's interface reach a DPDK forwarder?
# Measures the candidate mechanisms with one forwarder, dpdk-testpmd in io
# mode, so that only the mechanism differs:
#
#   netns A (iperf3 client) --cA-- [mechanism] -- testpmd io -- [mechanism] --cB-- netns B (iperf3 server)
#
# Candidates (--modes):
#   af_xdp      a veth pair per namespace (one queue each); net_af_xdp on the host end
#   af_packet   the same veth pairs; net_af_packet (TPACKET v2 ring) on the host end
#   net_tap     net_tap makes a tap per namespace, moved into the namespace after start
#   vhost_net   net_virtio_user over /dev/vhost-net (a tap, as VPP's tapv2); needs
#               a kernel with CONFIG_VHOST_NET: reported as unavailable otherwise
#   pw_packet   podwired itself instead of testpmd: two veth ports ("io": "packet",
#               its own AF_PACKET I/O with PACKET_VNET_HDR) on one bridge network;
#               the namespaces keep their offloads (TSO/GSO, checksum), so TCP
#               crosses as super-frames
#   pw_xdp      the same with "io": "xdp" (AF_XDP, offloads off at both ends)
#   kbridge     no forwarder: the kernel's own bridge between the two veths,
#               offloads on (as a CNI bridge network or Docker's leaves them):
#               what pw_packet (two CNI kernel pods' ports) stands against
# The pw_* cells measure podwired's whole path (bridge included), the others
# testpmd io; their cycles/frame are podwired's worker busy cycles over the
# frames its ports received during the UDP run. PODWIRED and PODWIRECTL name
# the binaries (default: build/).
# Each round runs every candidate once (interleaved rounds: this 2-vCPU
# machine changes speed within a run); per cell: iperf3 TCP (Gbit/s),
# iperf3 UDP with 64-byte payloads (pps received), and the forwarder's
# busy cycles per frame (testpmd --record-core-cycles), TCP's
# retransmissions and ping's rtt p99 (200 pings 10 ms apart).
# Cores: testpmd's forwarding lcore on FWD_CPU (default 1), both namespaces'
# iperf3 on APP_CPU (default 0).
#
# Usage: perf/bench_kernel_ports.sh [--rounds N] [--duration SEC] [--modes "..."] [--json FILE]
# It is a report, not a test: it prints figures and asserts nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FWD_CPU=${FWD_CPU:-1}
APP_CPU=${APP_CPU:-0}
ROUNDS=3
DURATION=5
MODES="af_xdp af_packet net_tap vhost_net pw_packet pw_xdp kbridge"
JSON_OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--modes) MODES=$2; shift 2 ;;
	--json) JSON_OUT=$2; shift 2 ;;
	*) sed -n '/^# Usage/p' "$0" >&2; exit 2 ;;
	esac
done
JSON_OUT=${JSON_OUT:-$ROOT/perf/results/kernel-ports-$(date -u +%Y%m%dT%H%M%SZ).json}
for c in dpdk-testpmd iperf3 ethtool jq ip; do
	command -v $c >/dev/null || { echo "bench_kernel_ports: $c is missing" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench_kernel_ports: run as root" >&2; exit 1; }

T=$(mktemp -d /tmp/pwk.XXXXXX)
PFX=pwk$$
NA=${PFX}A NB=${PFX}B
TPMD_PID="" TPMD_FD="" PW_PID=""
PODWIRED=${PODWIRED:-$ROOT/build/podwired}
PODWIRECTL=${PODWIRECTL:-$ROOT/build/podwirectl}
cleanup() {
	set +e
	stop_testpmd
	stop_podwired
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	ip link del "${PFX}hA" 2>/dev/null
	ip link del "${PFX}hB" 2>/dev/null
	ip link del "${PFX}br" 2>/dev/null
	rm -rf "$T" /var/run/dpdk/"$PFX"* 2>/dev/null
}
trap cleanup EXIT

stop_testpmd() {
	[ -n "$TPMD_PID" ] || return 0
	echo quit >&"$TPMD_FD" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$TPMD_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$TPMD_PID" 2>/dev/null || true
	wait "$TPMD_PID" 2>/dev/null || true
	exec {TPMD_FD}>&-
	TPMD_PID=""
}

pw() { "$PODWIRECTL" --socket "$T/pw.sock" "$@"; }

stop_podwired() {
	[ -n "$PW_PID" ] || return 0
	kill -TERM "$PW_PID" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$PW_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$PW_PID" 2>/dev/null || true
	wait "$PW_PID" 2>/dev/null || true
	PW_PID=""
	# A next start would make the ports of its state file again.
	rm -rf "$T/pw.state" "$T/pw.cdi"
}

# podwired with one bridge network and a veth port per namespace (io: packet
# or xdp); the container ends go into the namespaces as c<X>, offloads as
# podwired left them.
setup_podwired() { # IO
	local io=$1 x n peer
	"$PODWIRED" --main-core "$APP_CPU" --worker-cores "$FWD_CPU" --socket "$T/pw.sock" \
		--state-dir "$T/pw.state" --cdi-dir "$T/pw.cdi" --mbufs 16384 >"$T/pw.log" 2>&1 &
	PW_PID=$!
	wait_for 30 pw info || { echo "bench_kernel_ports: podwired did not start: $(tail -n 3 "$T/pw.log")" >&2; return 1; }
	pw network add net1 >/dev/null
	ip netns add "$NA"
	ip netns add "$NB"
	n=1
	for x in A B; do
		pw port add "k$x" --network net1 --type veth --iface "${PFX}h$x" --io "$io" >/dev/null
		peer=$(pw --json port show "k$x" | jq -r .veth.peer)
		ip link set "$peer" netns "$PFX$x"
		ns "$PFX$x" ip link set "$peer" name "c$x"
		ns "$PFX$x" ip link set lo up
		ns "$PFX$x" ip addr add "10.99.0.$n/24" dev "c$x"
		ns "$PFX$x" ip link set "c$x" up
		n=$((n + 1))
	done
}

# podwired's worker busy cycles and the frames its ports received.
pw_counts() {
	pw --json stats | jq -r '"\([.workers[].busy_cycles] | add) \([.ports[].rx_packets] | add)"'
}

wait_for() { # SECONDS COMMAND...
	local end=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

ns() { ip netns exec "$@"; }

# Both namespaces, each with interface c<X> = 10.99.0.<n>/24, offloads off
# (the mechanisms move frames as they are: no TSO superframes, no partial
# checksums, as a DPDK forwarder needs).
ns_setup() { # X N
	local x=$1 n=$2 nsn=$PFX$1
	ns "$nsn" ip link set lo up
	ns "$nsn" ip addr add "10.99.0.$n/24" dev "c$x"
	ns "$nsn" ethtool -K "c$x" tx off tso off gso off gro off >/dev/null 2>&1 || true
	ns "$nsn" ip link set "c$x" up
}

setup_veth() {
	ip netns add "$NA"
	ip netns add "$NB"
	for x in A B; do
		ip link add "${PFX}h$x" numtxqueues 1 numrxqueues 1 type veth peer name "c$x" \
			numtxqueues 1 numrxqueues 1 netns "$PFX$x"
		ethtool -K "${PFX}h$x" tx off tso off gso off gro off >/dev/null 2>&1 || true
		ip link set "${PFX}h$x" up
	done
	ns_setup A 1
	ns_setup B 2
}

# The kernel's bridge between the namespaces, every offload as the kernel
# leaves it (on).
setup_kbridge() {
	local x n=1
	ip netns add "$NA"
	ip netns add "$NB"
	ip link add "${PFX}br" type bridge
	ip link set "${PFX}br" up
	for x in A B; do
		ip link add "${PFX}h$x" type veth peer name "c$x" netns "$PFX$x"
		ip link set "${PFX}h$x" master "${PFX}br" up
		ns "$PFX$x" ip link set lo up
		ns "$PFX$x" ip addr add "10.99.0.$n/24" dev "c$x"
		ns "$PFX$x" ip link set "c$x" up
		n=$((n + 1))
	done
}

start_testpmd() { # VDEV1 VDEV2
	local fifo=$T/tpmd.in
	# stderr apart: a warning there can split the prompt or a stats line.
	rm -f "$fifo" "$T/tpmd.log" "$T/tpmd.err"
	mkfifo "$fifo"
	stdbuf -oL dpdk-testpmd --lcores "0@$APP_CPU,1@$FWD_CPU" --main-lcore 0 \
		--file-prefix "$PFX" --in-memory --no-pci --log-level '*:notice' \
		--vdev "$1" --vdev "$2" -- -i --nb-cores=1 --forward-mode=io \
		--record-core-cycles --total-num-mbufs=16384 --rxd=1024 --txd=1024 \
		<"$fifo" >"$T/tpmd.log" 2>"$T/tpmd.err" &
	TPMD_PID=$!
	exec {TPMD_FD}>"$fifo"
	wait_for 30 grep -q 'testpmd>' "$T/tpmd.log"
}

# Sets up the cell for a mode; returns 1 when the mode is unavailable.
cell_setup() {
	case $1 in
	af_xdp)
		setup_veth
		start_testpmd "net_af_xdp0,iface=${PFX}hA,start_queue=0,queue_count=1,busy_budget=0" \
			"net_af_xdp1,iface=${PFX}hB,start_queue=0,queue_count=1,busy_budget=0" ;;
	af_packet)
		setup_veth
		start_testpmd "net_af_packet0,iface=${PFX}hA,qpairs=1,framesz=2048,framecnt=1024" \
			"net_af_packet1,iface=${PFX}hB,qpairs=1,framesz=2048,framecnt=1024" ;;
	net_tap)
		ip netns add "$NA"
		ip netns add "$NB"
		start_testpmd "net_tap0,iface=${PFX}tA" "net_tap1,iface=${PFX}tB"
		for x in A B; do
			ip link set "${PFX}t$x" netns "$PFX$x"
			ns "$PFX$x" ip link set "${PFX}t$x" name "c$x"
		done
		ns_setup A 1
		ns_setup B 2 ;;
	vhost_net)
		[ -c /dev/vhost-net ] || return 1
		ip netns add "$NA"
		ip netns add "$NB"
		start_testpmd "net_virtio_user0,path=/dev/vhost-net,iface=${PFX}tA,queue_size=1024" \
			"net_virtio_user1,path=/dev/vhost-net,iface=${PFX}tB,queue_size=1024"
		for x in A B; do
			ip link set "${PFX}t$x" netns "$PFX$x"
			ns "$PFX$x" ip link set "${PFX}t$x" name "c$x"
		done
		ns_setup A 1
		ns_setup B 2 ;;
	pw_packet) setup_podwired packet || return 1 ;;
	pw_xdp) setup_podwired xdp || return 1 ;;
	kbridge) setup_kbridge ;;
	esac
	[ -z "$TPMD_PID" ] || echo start >&"$TPMD_FD"
	wait_for 10 ns "$NA" ping -c1 -W1 10.99.0.2
}

cell_teardown() {
	stop_testpmd
	stop_podwired
	ip netns del "$NA" 2>/dev/null || true
	ip netns del "$NB" 2>/dev/null || true
	ip link del "${PFX}hA" 2>/dev/null || true
	ip link del "${PFX}hB" 2>/dev/null || true
	ip link del "${PFX}br" 2>/dev/null || true
	# Namespaces go asynchronously; their interfaces with them.
	wait_for 10 sh -c "! ip link show ${PFX}hA && ! ip link show ${PFX}tA" || true
}

# testpmd's forwarding stats since the last "start": busy cycles per frame.
cycles_per_frame() {
	echo "show fwd stats all" >&"$TPMD_FD"
	sleep 1
	grep -E 'CPU cycles/packet=' "$T/tpmd.log" | tail -n1 | sed 's/.*cycles\/packet=\([0-9.]*\).*/\1/'
}

run_cell() { # MODE -> prints JSON
	local mode=$1 tcp udp cpf before after p99
	if ! cell_setup "$mode"; then
		cell_teardown
		echo "{\"mode\":\"$mode\",\"available\":false}"
		return
	fi
	ns "$NB" taskset -c "$APP_CPU" iperf3 -s -D -1 --logfile "$T/srv.log" -p 5201
	sleep 0.3
	tcp=$(ns "$NA" taskset -c "$APP_CPU" iperf3 -c 10.99.0.2 -p 5201 -t "$DURATION" -J |
		jq -c '{tcp_gbps: (.end.sum_received.bits_per_second / 1e9), tcp_retransmits: .end.sum_sent.retransmits}')
	p99=$(ns "$NA" taskset -c "$APP_CPU" ping -c 200 -i 0.01 10.99.0.2 2>/dev/null |
		grep -o 'time=[0-9.]*' | cut -d= -f2 | jq -s 'sort | if length > 0 then .[(length * 0.99 | ceil) - 1] else null end')
	ns "$NB" taskset -c "$APP_CPU" iperf3 -s -D -1 --logfile "$T/srv.log" -p 5202
	sleep 0.3
	if [ -n "$TPMD_PID" ]; then
		echo "clear fwd stats all" >&"$TPMD_FD" 2>/dev/null || true
		echo "stop" >&"$TPMD_FD"
		echo "start" >&"$TPMD_FD"
	elif [ -n "$PW_PID" ]; then
		before=$(pw_counts)
	fi
	udp=$(ns "$NA" taskset -c "$APP_CPU" iperf3 -c 10.99.0.2 -p 5202 -u -l 64 -b 0 \
		-t "$DURATION" -J | jq '(.end.sum.packets - .end.sum.lost_packets) / .end.sum.seconds')
	if [ -n "$TPMD_PID" ]; then
		echo "stop" >&"$TPMD_FD"
		sleep 1
		cpf=$(grep -E 'CPU cycles/packet=' "$T/tpmd.log" | tail -n1 |
			sed 's/.*cycles\/packet=\([0-9.]*\).*/\1/')
	elif [ -n "$PW_PID" ]; then
		after=$(pw_counts)
		cpf=$(echo "$before $after" | awk '$4 > $2 {printf "%.0f", ($3 - $1) / ($4 - $2)}')
	fi
	cell_teardown
	jq -nc --arg m "$mode" --argjson t "${tcp:-"{}"}" --argjson u "${udp:-0}" \
		--arg c "${cpf:-}" --argjson p "${p99:-null}" '{mode: $m, available: true} + $t +
		{udp64_pps: $u, ping_p99_ms: $p, cycles_per_frame: ($c | tonumber? // null)}'
}

: >"$T/cells.jsonl"
for r in $(seq "$ROUNDS"); do
	for m in $MODES; do
		cell=$(run_cell "$m" | jq -c --argjson r "$r" '. + {round: $r}')
		echo "$cell" >>"$T/cells.jsonl"
		echo "round $r: $cell" >&2
	done
done

mkdir -p "$(dirname "$JSON_OUT")"
# x_kbridge: per round, a mode's figure over kbridge's of the same round,
# the median of those (null without kbridge cells).
jq -s 'def med: map(select(. != null)) | sort | if length > 0 then .[length / 2 | floor] else null end;
	(map(select(.mode == "kbridge")) | map({key: (.round | tostring), value: .}) | from_entries) as $kb |
	def x(f): map(. as $c | $kb[$c.round | tostring] as $b |
		if $b == null or ($c | f) == null or ($b | f // 0) == 0 then null else ($c | f) / ($b | f) end) | med;
	{cells: ., summary: (group_by(.mode) | map({mode: .[0].mode,
	available: .[0].available,
	tcp_gbps_median: (if .[0].available then (map(.tcp_gbps) | med) else null end),
	udp64_pps_median: (if .[0].available then (map(.udp64_pps) | med) else null end),
	ping_p99_ms_median: (if .[0].available then (map(.ping_p99_ms) | med) else null end),
	tcp_retransmits_median: (if .[0].available then (map(.tcp_retransmits) | med) else null end),
	cycles_per_frame_median: (if .[0].available then (map(.cycles_per_frame) | med) else null end),
	tcp_x_kbridge: x(.tcp_gbps), udp64_x_kbridge: x(.udp64_pps), ping_p99_x_kbridge: x(.ping_p99_ms)}))}' \
	"$T/cells.jsonl" >"$JSON_OUT"
FMT='%-10s %10s %12s %8s %8s %12s %6s %6s %6s\n'
# shellcheck disable=SC2059
printf "$FMT" mode "TCP Gbit/s" "UDP 64B pps" retrans "p99 ms" "cycles/frame" "TCP x" "UDP x" "p99 x"
jq -r 'def r(n): if . == null then "-" else (. * n | round / n | tostring) end;
	.summary[] | [.mode, (if .available then (.tcp_gbps_median | r(100)) else "unavailable" end),
	(.udp64_pps_median | r(1)), (.tcp_retransmits_median | r(1)), (.ping_p99_ms_median | r(1000)),
	(.cycles_per_frame_median | r(1)), (.tcp_x_kbridge | r(100)), (.udp64_x_kbridge | r(100)),
	(.ping_p99_x_kbridge | r(100))] | @tsv' "$JSON_OUT" |
	while IFS=$'\t' read -r m t u rt p c xt xu xp; do
		# shellcheck disable=SC2059
		printf "$FMT" "$m" "$t" "$u" "$rt" "$p" "$c" "$xt" "$xu" "$xp"
	done
echo "(x: against kbridge, the median of the rounds' ratios)"
echo "saved $JSON_OUT"
