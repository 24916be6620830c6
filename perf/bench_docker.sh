#!/bin/bash
# Docker containers over podwired against Docker's own bridge, in one run.
#
# A private dockerd (own data root, exec root and socket; tests/smoke's
# docker_lib.sh), podwired and the driver podwire-docker, and per system a
# pair of podwire/net containers: a server (iperf3 -s) and a client.
#
#   podwire       a podwire network (iftype=kernel): each eth0 is a veth whose
#                 host end podwired reads and writes as its veth port kind
#                 does: podwire's own AF_PACKET I/O with virtio-net headers,
#                 offloads left on (TSO/GSO super-frames and partial
#                 checksums cross podwired whole), or AF_XDP, offloads turned
#                 off (frames cross as they are on the wire). The run records
#                 which (the ports' veth.driver) and the offloads both ends had
#   bridge        a Docker bridge network (dk network create -d bridge): veths
#                 on a Linux bridge, offloads as Docker leaves them (on: TSO,
#                 GSO, GRO, checksum offload)
#   bridge-nooff  the same bridge network, its containers' veths (both ends)
#                 with offloads off (tx, tso, gso, gro: as podwire's AF_XDP
#                 veths have them): frames as they are on the wire, so against
#                 podwire over AF_XDP only the path differs
#   dpdk          two podwire/dpdk containers on a podwire network with
#                 iftype=vhost-user: testpmd txonly (64-byte frames) to
#                 testpmd rxonly through podwired; frames per second podwired
#                 delivered to the receiver, from its port counters. Both
#                 busy-poll the one container core, so each runs while the
#                 other waits: the figure is about a ring per scheduler slice
#                 (see perf/README.md), podwired's own is in bench_vhost.sh
#
# Per kernel cell: iperf3 TCP (Gbit/s received), iperf3 UDP with 64-byte
# payloads at full speed (-b 0; packets per second received, loss), and
# ping -c PINGS -i 0.01 (busybox; rtt min/avg/p99/max). Where UDP is lost is
# recorded too: the server's socket (RcvbufErrors) and, for podwire,
# podwired's drop counters, the frames the kernel dropped on their way to
# podwired (the ports' kernel_drops, where podwired reports them) and the XDP
# redirect drops on the veths' host ends (frames the kernel could not put in
# podwired's AF_XDP rings; 0 without AF_XDP).
# Rounds are interleaved (round 1 of every system, then round 2, ...): this
# 2-vCPU machine changes speed within a run. The table shows medians, and
# each system against the bridge (issue 24's targets: TCP >= 1.0x, UDP 64 B
# >= 1.1x, ping p99 <= 1.3x): the median of the rounds' ratios, each round's
# cell over the bridge's cell of the same round. The --json file has every
# round.
# Cores: every container (iperf3 client and server, both testpmds) is pinned
# to core 0 (docker run --cpuset-cpus, POD_CPU); podwired's worker polls core
# 1 (WORKER_CPU), its control thread is on core 0. The bridge systems leave
# core 1 idle: the kernel's softirqs run on the senders' core 0 there.
#
# Usage: perf/bench_docker.sh [--rounds N] [--duration SEC] [--pings N]
#                             [--systems "podwire bridge bridge-nooff dpdk"] [--json FILE]
# PODWIRED_OPTS: more podwired options (e.g. "--idle-sleep-max 50"; the
# JSON records them).
# Needs root, a podwire build (PODWIRE_BUILD, default build/), Debian's
# docker.io, iperf3, busybox-static, dpdk, ethtool, jq. Its own driver socket,
# /run/docker/plugins/podwire-bench<pid>.sock (PLUGIN_SOCK), leaves a
# podwire-docker of the host alone. Everything it starts is stopped by PID
# and removed on exit, also on failure.
# It is a report, not a test: it prints figures and asserts nothing.
set -euo pipefail

ROUNDS=3
DURATION=5
PINGS=200
SYSTEMS="podwire bridge bridge-nooff dpdk"
JSON_OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--pings) PINGS=$2; shift 2 ;;
	--systems) SYSTEMS=$2; shift 2 ;;
	--json) JSON_OUT=$2; shift 2 ;;
	*) sed -n '/^# Usage/,/^#  /p' "$0" >&2; exit 2 ;;
	esac
done
for s in $SYSTEMS; do
	case $s in
	podwire | bridge | bridge-nooff | dpdk) ;;
	*) echo "bench_docker: unknown system \"$s\"; give podwire, bridge, bridge-nooff, dpdk" >&2
	   exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "bench_docker: run as root" >&2; exit 1; }
for c in iperf3 ethtool nsenter jq curl; do
	command -v $c >/dev/null || { echo "bench_docker: $c is missing" >&2; exit 1; }
done
JSON_OUT=${JSON_OUT:-$(cd "$(dirname "$0")" && pwd)/results/docker-$(date -u +%Y%m%dT%H%M%SZ).json}
PLUGIN_SOCK=${PLUGIN_SOCK:-/run/docker/plugins/podwire-bench$$.sock}
DRIVER=$(basename "$PLUGIN_SOCK" .sock)
mkdir -p "$(dirname "$PLUGIN_SOCK")"

# podwired "pw", podwire-docker, dockerd, dk, ct_ip/ct_mac/ct_port,
# wait_link, port_stat; cleanup by PID on exit.
source "$(dirname "$0")/../tests/smoke/lib.sh"
source "$(dirname "$0")/../tests/smoke/docker_lib.sh"

# A Docker bridge network's Linux bridge outlives dockerd: the end of the
# run removes the network; after a failure, its bridge (named for this run)
# goes here, and lib.sh's exit handler runs docker_lib.sh's (logs, dockerd,
# the driver) and stops podwired. (Not a trap of its own: that replaced
# lib.sh's, and every run left podwired, the driver and dockerd running.)
_bench_exit() { ip link del "pwbb$$" 2>/dev/null || true; }
on_exit _bench_exit

has() { case " $SYSTEMS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
OFFLOADS="tx off tso off gso off gro off"

# offloads_off CONTAINER: eth0 inside the container and its peer on the
# host, as podwire's veth ports over AF_XDP have them.
offloads_off() {
	local pid idx host
	pid=$(dk inspect -f '{{.State.Pid}}' "$1")
	# shellcheck disable=SC2086
	nsenter -t "$pid" -n ethtool -K eth0 $OFFLOADS >/dev/null 2>&1 || true
	idx=$(nsenter -t "$pid" -n ip -o link show eth0 | sed -n 's/.*eth0@if\([0-9]*\):.*/\1/p')
	host=$(ip -o link show | awk -F': ' -v i="$idx" '$1 == i {print $2}' | cut -d@ -f1)
	[ -n "$host" ] || fail "$1: no host end of eth0 (peer index \"$idx\")"
	# shellcheck disable=SC2086
	ethtool -K "$host" $OFFLOADS >/dev/null 2>&1 || true
	nsenter -t "$pid" -n ethtool -k eth0 | grep -q '^tcp-segmentation-offload: off' ||
		fail "$1: TSO still on"
}

_listening() { dk logs "$1" 2>&1 | grep -q "Server listening"; }

# kernel_pair SYSTEM NETWORK: its iperf3 server and client containers.
kernel_pair() {
	local sys=$1 net=$2
	dk run -d --name "pwb-$sys-s" --network "$net" --cpuset-cpus "$POD_CPU" podwire/net \
		iperf3 -s --forceflush >/dev/null
	dk run -d --name "pwb-$sys-c" --network "$net" --cpuset-cpus "$POD_CPU" podwire/net \
		sleep 100000 >/dev/null
	if [ "$sys" = podwire ]; then
		PW_PORTS=("$(ct_port "pwb-$sys-s" "$net")" "$(ct_port "pwb-$sys-c" "$net")")
		for p in "${PW_PORTS[@]}"; do
			wait_link pw "$p" up 30
			PW_IFS+=("$(ctlj pw port show "$p" | jq -r .iface)")
		done
	fi
	if [ "$sys" = bridge-nooff ]; then
		offloads_off "pwb-$sys-s"
		offloads_off "pwb-$sys-c"
	fi
	SRV_IP[$sys]=$(ct_ip "pwb-$sys-s" "$net")
	wait_for 20 "$sys: the client to reach the server" \
		dk exec "pwb-$sys-c" ping -c 1 -W 1 "${SRV_IP[$sys]}"
	wait_for 20 "$sys: iperf3 -s to listen" _listening "pwb-$sys-s"
}

# xdp_drops IFACE...: frames the kernel could not hand to podwired's AF_XDP
# sockets (the host ends' rx_queue_N_drops: an XDP redirect into a full
# ring). podwired's own counters do not see them.
xdp_drops() {
	local i
	for i in "$@"; do ethtool -S "$i"; done | awk '/rx_queue_[0-9]+_drops:/ {s += $2} END {print s + 0}'
}

# rcvbuf_errors CONTAINER: UDP datagrams its sockets dropped, receive buffer full.
rcvbuf_errors() {
	nsenter -t "$(dk inspect -f '{{.State.Pid}}' "$1")" -n cat /proc/net/snmp |
		awk '$1 == "Udp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; h = 1 }
			else print $c }'
}

# pw_drops PORT...: podwired's drop counters of these ports, summed per
# reason, and the frames the kernel dropped on their way to podwired
# (kernel_drops, where the port kind reports it) as "kernel".
pw_drops() {
	local p
	for p in "$@"; do ctlj pw stats "$p" | jq -c '.ports[0] | .drops + {kernel: (.kernel_drops // 0)}'; done |
		jq -sc 'reduce (.[] | to_entries[]) as $e ({}; .[$e.key] += $e.value)'
}

# tcp_counters CONTAINER: its namespace's TCP counters (/proc/net/snmp's
# Tcp: and /proc/net/netstat's TcpExt:, nstat's names) as one JSON object.
tcp_counters() {
	nsenter -t "$(ct_pid "$1")" -n cat /proc/net/snmp /proc/net/netstat | awk '
		$1 == "Tcp:" || $1 == "TcpExt:" { if (!($1 in h)) { h[$1] = $0; next }
			n = split(h[$1], k); p = $1 == "Tcp:" ? "Tcp" : "TcpExt"; sub(/:$/, "", p)
			for (i = 2; i <= n; i++) printf "%s%s %s\n", p, k[i], $i }' |
		jq -Rn '[inputs | split(" ") | {key: .[0], value: (.[1] | tonumber)}] | from_entries'
}

# host_end CONTAINER: the host end of its eth0.
host_end() {
	local idx
	idx=$(nsenter -t "$(ct_pid "$1")" -n ip -o link show eth0 | sed -n 's/.*eth0@if\([0-9]*\):.*/\1/p')
	ip -o link show | awk -F': ' -v i="$idx" '$1 == i {print $2}' | cut -d@ -f1
}

# link_drops CONTAINER...: rx and tx drops of both ends of their eth0s
# (a veth counts a frame its peer's backlog refused as a tx drop) and the
# backlog drops of every CPU (/proc/net/softnet_stat's second column), as
# one JSON object of sums.
link_drops() {
	local c rx=0 tx=0 bl=0 a b
	while read -r a b _; do bl=$((bl + 16#$b)); done </proc/net/softnet_stat
	for c in "$@"; do
		read -r a b < <(nsenter -t "$(ct_pid "$c")" -n ip -j -s link show eth0 |
			jq -r '.[0].stats64 | "\(.rx.dropped) \(.tx.dropped)"')
		rx=$((rx + a)) tx=$((tx + b))
		read -r a b < <(ip -j -s link show "$(host_end "$c")" |
			jq -r '.[0].stats64 | "\(.rx.dropped) \(.tx.dropped)"')
		rx=$((rx + a)) tx=$((tx + b))
	done
	jq -nc --argjson r "$rx" --argjson t "$tx" --argjson b "$bl" \
		'{veth_rx_dropped: $r, veth_tx_dropped: $t, backlog_dropped: $b}'
}

# cpu_ticks: per CPU "user sys softirq idle" clock ticks so far
# (/proc/stat; user with nice, idle with iowait), one JSON object by CPU.
cpu_ticks() {
	awk '$1 ~ /^cpu[0-9]+$/ {printf "%s %d %d %d %d\n", $1, $2 + $3, $4, $8, $5 + $6}' /proc/stat |
		jq -Rn '[inputs | split(" ") | {key: .[0], value: {user: (.[1] | tonumber),
			sys: (.[2] | tonumber), softirq: (.[3] | tonumber), idle: (.[4] | tonumber)}}] | from_entries'
}

# cpu_share BEFORE AFTER: each CPU's time between the two, in percent.
cpu_share() {
	jq -nc --argjson a "$1" --argjson b "$2" '$b | with_entries(.key as $c | .value |= (
		with_entries(.value -= $a[$c][.key]) | (map(.) | add) as $t |
		with_entries(.value = (if $t > 0 then (.value * 100 / $t | round) else 0 end))))'
}

# TCP counters that say why a segment was sent again, or that one was lost
# or came out of order, in tcp_diag.
TCP_DIAG='["TcpRetransSegs","TcpInErrs","TcpInCsumErrors","TcpExtTCPLostRetransmit",
	"TcpExtTCPTimeouts","TcpExtTCPSpuriousRTOs","TcpExtTCPFastRetrans","TcpExtTCPSlowStartRetrans",
	"TcpExtTCPSACKReorder","TcpExtTCPRenoReorder","TcpExtTCPTSReorder","TcpExtTCPOFOQueue",
	"TcpExtTCPOFODrop","TcpExtTCPRcvQDrop","TcpExtTCPBacklogDrop","TcpExtPruneCalled",
	"TcpExtTCPRcvPruned","TcpExtTCPDSACKRecv","TcpExtTCPDSACKOldSent","TcpExtTCPDSACKOfoSent",
	"TcpExtTCPSpuriousRtxHostQueues","TcpExtTCPLossProbes","TcpExtTCPLossProbeRecovery",
	"TcpExtTCPSackRecovery","TcpExtTCPSACKReneging","TcpExtTCPWqueueTooBig","TcpExtTCPZeroWindowDrop"]'

# tcp_delta BEFORE AFTER: the TCP_DIAG counters that moved.
tcp_delta() {
	jq -nc --argjson a "$1" --argjson b "$2" --argjson k "$TCP_DIAG" \
		'[$k[] | {key: ., value: (($b[.] // 0) - ($a[.] // 0))} | select(.value != 0)] | from_entries'
}

# worker_sched: "RUN_DELAY_NS PREEMPTIONS" of podwired's worker threads
# (DPDK 22.11 names them rte-worker-N): the time they waited for their core
# while runnable (schedstat) and how often another task took it from
# them (nonvoluntary_ctxt_switches), summed. A busy-polling worker that
# waits for its core holds up every frame it has not read yet.
worker_sched() {
	local t d=0 n=0 a
	for t in /proc/"${DAEMON_PID[pw]}"/task/*; do
		grep -Eq '^(rte|lcore)-worker' "$t/comm" 2>/dev/null || continue
		read -r _ a _ <"$t/schedstat" && d=$((d + a))
		a=$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "$t/status") && n=$((n + a))
	done
	echo "$d $n"
}

# kernel_cell SYSTEM: one round's figures, as a JSON object in $T/cell.json.
kernel_cell() {
	local sys=$1 cli=pwb-$1-c ip=${SRV_IP[$1]} tcp udp ping d0='{}' d1='{}' x0=0 x1=0 rb0 rb1
	if [ "$sys" = podwire ]; then
		d0=$(pw_drops "${PW_PORTS[@]}")
		x0=$(xdp_drops "${PW_IFS[@]}")
	fi
	local tc0 ts0 ld0 tc1 ts1 ld1 pt0='{}' pt1='{}'
	tc0=$(tcp_counters "$cli")
	ts0=$(tcp_counters "pwb-$sys-s")
	ld0=$(link_drops "$cli" "pwb-$sys-s")
	[ "$sys" != podwire ] || pt0=$(pw_drops "${PW_PORTS[@]}")
	local ct0 ct1
	ct0=$(cpu_ticks)
	# A failed run (iperf3's "error" in its JSON) is recorded, not fatal.
	dk exec "$cli" iperf3 -c "$ip" -t "$DURATION" -J >"$T/tcp.json" 2>>"$T/iperf3.err" || true
	ct1=$(cpu_ticks)
	tc1=$(tcp_counters "$cli")
	ts1=$(tcp_counters "pwb-$sys-s")
	ld1=$(link_drops "$cli" "pwb-$sys-s")
	[ "$sys" != podwire ] || pt1=$(pw_drops "${PW_PORTS[@]}")
	# Where TCP's retransmissions come from: the sender's and the
	# receiver's TCP counters, the veths' and the backlogs' drops, and
	# (podwire) podwired's drops, during the TCP run; and where its time
	# went (each CPU's user, sys, softirq and idle shares).
	jq -nc --argjson c "$(tcp_delta "$tc0" "$tc1")" --argjson s "$(tcp_delta "$ts0" "$ts1")" \
		--argjson l0 "$ld0" --argjson l1 "$ld1" --argjson p0 "$pt0" --argjson p1 "$pt1" \
		--argjson cpu "$(cpu_share "$ct0" "$ct1")" \
		'{tcp_diag: {client: $c, server: $s, cpu_pct: $cpu,
		  links: ($l1 | with_entries(.value -= $l0[.key])),
		  podwired_drops: ($p1 | with_entries(.value -= ($p0[.key] // 0)) | with_entries(select(.value != 0)))}}' \
		>"$T/tcpdiag.json"
	tcp=$(jq -c '.end.sum_received.bits_per_second as $b | {tcp_gbps: (if $b then $b / 1e9 else null end),
		tcp_retransmits: .end.sum_sent.retransmits, tcp_error: .error}' "$T/tcp.json" 2>/dev/null ||
		echo '{"tcp_gbps": null, "tcp_error": "no JSON from iperf3"}')
	sleep 1
	rb0=$(rcvbuf_errors "pwb-$sys-s")
	dk exec "$cli" iperf3 -c "$ip" -u -l 64 -b 0 -t "$DURATION" -J >"$T/udp.json" 2>>"$T/iperf3.err" || true
	rb1=$(rcvbuf_errors "pwb-$sys-s")
	# The client's end.sum carries the server's count of lost datagrams.
	udp=$(jq -c '.end.sum as $s | if ($s.seconds // 0) > 0 then
		{udp64_sent_pps: ($s.packets / $s.seconds),
		 udp64_pps: (($s.packets - $s.lost_packets) / $s.seconds),
		 udp64_loss_pct: $s.lost_percent, udp_error: .error}
		else {udp64_pps: null, udp_error: .error} end' "$T/udp.json" 2>/dev/null ||
		echo '{"udp64_pps": null, "udp_error": "no JSON from iperf3"}')
	sleep 1
	local ws0=(0 0) ws1=(0 0)
	[ "$sys" != podwire ] || read -ra ws0 < <(worker_sched)
	dk exec "$cli" ping -c "$PINGS" -i 0.01 "$ip" >"$T/ping.txt" 2>&1 || true
	[ "$sys" != podwire ] || read -ra ws1 < <(worker_sched)
	ping=$(grep -o 'time=[0-9.]*' "$T/ping.txt" | cut -d= -f2 | jq -sc --argjson n "$PINGS" '
		sort | {ping_received: length, ping_sent: $n,
		ping_min_ms: .[0], ping_avg_ms: (if length > 0 then add / length else null end),
		ping_p99_ms: (if length > 0 then .[(length * 0.99 | ceil) - 1] else null end),
		ping_max_ms: .[-1]}')
	if [ "$sys" = podwire ]; then
		d1=$(pw_drops "${PW_PORTS[@]}")
		x1=$(xdp_drops "${PW_IFS[@]}")
	fi
	# podwire only: podwired's drops during the cell (the reasons that
	# moved) and the XDP redirect drops on its veths' host ends.
	jq -nc --arg s "$sys" --argjson a "$tcp" --argjson b "$udp" --argjson c "$ping" \
		--argjson d0 "$d0" --argjson d1 "$d1" --argjson x $((x1 - x0)) --argjson rb $((rb1 - rb0)) \
		--slurpfile td "$T/tcpdiag.json" --argjson wd $((ws1[0] - ws0[0])) \
		--argjson wp $((ws1[1] - ws0[1])) --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
		'{system: $s, loadavg: $load} + $a + $td[0] + $b + $c + {udp_server_rcvbuf_errors: $rb}
		+ (if $s == "podwire" then {ping_worker_wait_ms: ($wd / 1e6), ping_worker_preempted: $wp} else {} end) + (if $s == "podwire" then {podwired_drops:
		($d1 | with_entries(.value -= ($d0[.key] // 0)) | with_entries(select(.value != 0))),
		xdp_redirect_drops: $x} else {} end)' >"$T/cell.json"
}

# dpdk_run NAME MODE [testpmd options...]: testpmd on its own socket
# (podwire-vdev --docker) in a podwire/dpdk container on network dnet.
dpdk_run() {
	local name=$1 mode=$2
	shift 2
	dk run -d --name "$name" --network dnet --cpuset-cpus "$POD_CPU" \
		-v "$DK_SOCKDIR:$DK_CONTAINER_SOCKDIR" -v /dev/hugepages:/dev/hugepages \
		--cap-add SYS_NICE --cap-add IPC_LOCK podwire/dpdk sh -c \
		"ARGS=\$(podwire-vdev --docker) || exit 1; echo \"vdev: \$ARGS\";
		 sleep 100000 | exec dpdk-testpmd \$ARGS --lcores 0@$POD_CPU,1@$POD_CPU --main-lcore 0 \
		   --no-pci --in-memory --file-prefix $name-$$ --log-level '*:notice' -- \
		   --forward-mode=$mode --total-num-mbufs=8192 --nb-cores=1 $*" >/dev/null
}

_now() { date +%s%N; }
_learned() { [ "$(ctlj pw port show "$1" | jq .stats.macs_learned)" -ge 1 ]; }

# dpdk_cell ROUND: txonly -> podwired -> rxonly for DURATION seconds, as a
# JSON object in $T/cell.json; the
# containers live for this cell only (two busy pollers on core 0 would
# take it from the other systems' cells).
dpdk_cell() {
	local rx=pwb-dpdk-rx$1 tx=pwb-dpdk-tx$1 prx ptx mac t0 t1 in0 in1 out0 out1 drops0 drops1
	# --tx-first: one burst out before receiving, for podwired to learn the
	# receiver's MAC (frames to an unknown MAC are flooded, and floods are
	# limited to 10,000/s).
	dpdk_run "$rx" rxonly --tx-first
	prx=$(ct_port "$rx" dnet)
	wait_link pw "$prx" up 60
	wait_for 20 "podwired to learn $rx's MAC" _learned "$prx"
	mac=$(ct_mac "$rx" dnet)
	dpdk_run "$tx" txonly "--eth-peer=0,$mac --txpkts=64"
	ptx=$(ct_port "$tx" dnet)
	wait_link pw "$ptx" up 60
	sleep 2
	t0=$(_now)
	in0=$(port_stat pw "$ptx" .rx_packets)
	out0=$(port_stat pw "$prx" .tx_packets)
	drops0=$(ctlj pw stats "$prx" | jq '[.ports[0].drops[]?] | add // 0')
	sleep "$DURATION"
	t1=$(_now)
	in1=$(port_stat pw "$ptx" .rx_packets)
	out1=$(port_stat pw "$prx" .tx_packets)
	drops1=$(ctlj pw stats "$prx" | jq '[.ports[0].drops[]?] | add // 0')
	dk rm -f "$rx" "$tx" >/dev/null
	jq -nc --argjson s $(((t1 - t0) / 1000000)) --argjson i $((in1 - in0)) \
		--argjson o $((out1 - out0)) --argjson d $((drops1 - drops0)) \
		'{system: "dpdk", frame_bytes: 64, offered_pps: ($i * 1000 / $s),
		  udp64_pps: ($o * 1000 / $s), rx_port_drops: $d,
		  udp64_loss_pct: (if $i > 0 then ($i - $o) * 100 / $i else null end)}' >"$T/cell.json"
}

# ---- set-up -----------------------------------------------------------------
log "podwired (worker on core $WORKER_CPU${PODWIRED_OPTS:+, $PODWIRED_OPTS}), podwire-docker ($DRIVER), dockerd, images"
imgs=(net)
has dpdk && imgs+=(dpdk)
# docker_setup's steps, podwired with PODWIRED_OPTS (e.g. "--idle-sleep-max 50").
# shellcheck disable=SC2086
daemon_start pw ${PODWIRED_OPTS:-}
mkdir -p "$DK_SOCKDIR"
driver_start
dockerd_start
images "${imgs[@]}" >/dev/null
declare -A SRV_IP=()
PW_PORTS=() PW_IFS=() PW_VETH="" PW_OFFLOADS=""
NETS=()
if has podwire; then
	dk network create -d "$DRIVER" --subnet 10.87.0.0/24 pwbench >/dev/null
	NETS+=(pwbench)
	kernel_pair podwire pwbench
	# What the podwire cells measure: the veths' I/O in podwired and the
	# offloads it left on both ends.
	PW_VETH=$(for p in "${PW_PORTS[@]}"; do ctlj pw port show "$p" | jq -r .veth.driver; done |
		sort -u | paste -sd /)
	PW_OFFLOADS="host end $(offloads - "${PW_IFS[0]}"); eth0 $(offloads "$(ct_pid pwb-podwire-c)" eth0)"
	log "podwire: veth I/O $PW_VETH; offloads: $PW_OFFLOADS"
fi
if has bridge || has bridge-nooff; then
	dk network create -d bridge --subnet 10.88.0.0/24 \
		-o com.docker.network.bridge.name="pwbb$$" brbench >/dev/null
	NETS+=(brbench)
	if has bridge; then kernel_pair bridge brbench; fi
	if has bridge-nooff; then kernel_pair bridge-nooff brbench; fi
fi
if has dpdk; then
	dk network create -d "$DRIVER" --subnet 10.89.0.0/24 -o podwire.iftype=vhost-user dnet >/dev/null
	NETS+=(dnet)
fi

# ---- rounds -----------------------------------------------------------------
: >"$T/cells.jsonl"
for r in $(seq "$ROUNDS"); do
	for s in $SYSTEMS; do
		if [ "$s" = dpdk ]; then dpdk_cell "$r"; else kernel_cell "$s"; fi
		cell=$(jq -c --argjson r "$r" '. + {round: $r}' "$T/cell.json")
		echo "$cell" >>"$T/cells.jsonl"
		log "round $r: $cell"
	done
done

# ---- clean end ----------------------------------------------------------------
mapfile -t ids < <(dk ps -aq)
[ ${#ids[@]} -eq 0 ] || dk rm -f "${ids[@]}" >/dev/null
dk network rm "${NETS[@]}" >/dev/null

# ---- report -----------------------------------------------------------------
mkdir -p "$(dirname "$JSON_OUT")"
jq -s --arg date "$(date -u +%FT%TZ)" --arg commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	--argjson rounds "$ROUNDS" --argjson dur "$DURATION" --argjson pings "$PINGS" \
	--argjson ccpu "$POD_CPU" --argjson wcpu "$WORKER_CPU" --arg systems "$SYSTEMS" \
	--arg veth "$PW_VETH" --arg offl "$PW_OFFLOADS" --arg pwopts "${PODWIRED_OPTS:-}" '
	def med(f): map(f) | map(select(. != null)) | sort | if length > 0 then .[length / 2 | floor] else null end;
	# x_bridge(f): the median over rounds of f of this cell over f of the
	# bridge cell of the same round (interleaved rounds: both saw the same
	# machine); null without a bridge cell, for dpdk, or where either is null.
	(map(select(.system == "bridge")) | map({key: (.round | tostring), value: .}) | from_entries) as $br |
	def x_bridge(f): map(. as $c | $br[$c.round | tostring] as $b |
		if $b == null or $c.system == "dpdk" or ($c | f) == null or ($b | f) == null or ($b | f) == 0
		then null else ($c | f) / ($b | f) end) | med(.);
	{date: $date, commit: $commit, podwired_opts: $pwopts, rounds: $rounds, duration_s: $dur, pings: $pings,
	 cores: {containers: $ccpu, podwired_worker: $wcpu},
	 podwire_veth: (if $veth == "" then null else {driver: $veth, offloads: $offl} end), cells: .,
	 summary: [($systems | split(" ") | map(select(. != "")))[] as $s | map(select(.system == $s)) |
		{system: $s, tcp_gbps: med(.tcp_gbps), udp64_pps: med(.udp64_pps),
		 udp64_loss_pct: med(.udp64_loss_pct), ping_avg_ms: med(.ping_avg_ms),
		 ping_p99_ms: med(.ping_p99_ms), ping_max_ms: med(.ping_max_ms),
		 tcp_x_bridge: x_bridge(.tcp_gbps), udp64_x_bridge: x_bridge(.udp64_pps),
		 ping_p99_x_bridge: x_bridge(.ping_p99_ms)}]}' \
	"$T/cells.jsonl" >"$JSON_OUT"

echo
FMT='%-13s %10s %12s %8s %10s %10s %10s %7s %7s %7s\n'
# shellcheck disable=SC2059
printf "$FMT" system "TCP Gbit/s" "UDP 64B pps" "loss %" "rtt avg" "rtt p99" "rtt max" \
	"TCP x" "UDP x" "p99 x"
jq -r '.summary[] | [.system,
	(if .tcp_gbps == null then "-" else (.tcp_gbps * 100 | round / 100 | tostring) end),
	(if .udp64_pps == null then "-" else (.udp64_pps | round | tostring) end),
	(if .udp64_loss_pct == null then "-" else (.udp64_loss_pct * 10 | round / 10 | tostring) end),
	(.ping_avg_ms, .ping_p99_ms, .ping_max_ms | if . == null then "-" else (. * 1000 | round / 1000 | tostring) + " ms" end),
	(.tcp_x_bridge, .udp64_x_bridge, .ping_p99_x_bridge | if . == null then "-" else (. * 100 | round / 100 | tostring) end)]
	| @tsv' "$JSON_OUT" | while IFS=$'\t' read -r s t u l a p m xt xu xp; do
	# shellcheck disable=SC2059
	printf "$FMT" "$s" "$t" "$u" "$l" "$a" "$p" "$m" "$xt" "$xu" "$xp"
done
echo "(medians of $ROUNDS interleaved rounds of ${DURATION}s; every container on core $POD_CPU," \
	"podwired's worker on core $WORKER_CPU, idle in the bridge systems)"
echo "(x: against the bridge, the median of the rounds' ratios; issue 24's targets for podwire:" \
	"TCP >= 1.0, UDP >= 1.1, p99 <= 1.3)"
[ -z "$PW_VETH" ] || echo "(podwire: veth I/O $PW_VETH; offloads $PW_OFFLOADS)"
if has dpdk; then
	echo "(dpdk: 64-byte frames, testpmd txonly to testpmd rxonly, both busy polling core $POD_CPU:" \
		"each runs while the other waits, so what passes is about a ring (256) per scheduler" \
		"slice; it measures the shared core, not podwired: see perf/bench_vhost.sh)"
fi
echo "saved $JSON_OUT"
