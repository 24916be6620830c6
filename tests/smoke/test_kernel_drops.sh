#!/bin/bash
# Frames the kernel drops on their way to podwired (issue 24) are
# podwired's to report: per port, "kernel_drops" in `podwirectl --json
# stats`, a KDROPS column in `podwirectl stats`, KDROPS/S in `top`,
# podwire_port_kernel_drops_total in /metrics and "kernel_drops" in
# telemetry. Kinds that read through no kernel socket (null, vhost-user,
# memif) have none: absent from the JSON and the metrics, "-" in tables.
#
# How the kernel is made to drop, every time: podwired is stopped (SIGSTOP)
# while a namespace sends FLOOD frames into a veth port; the kernel keeps
# redirecting them to the port's AF_XDP socket (XDP runs in the kernel's
# softirq, not in podwired) until its rx ring is full, then drops the rest
# and counts them (XDP_STATISTICS). After SIGCONT podwired reads what the
# ring held: every frame sent is then either received or a kernel drop.
#
#   netns $NS: peer of k1 --- k1 (veth, AF_XDP) = podwired --- idle (null)
#   netns $NS: $UPP       --- $UP (uplink af_xdp) = podwired
#
# Checked: counts exact (rx + kernel drops = frames sent), never going
# backwards, equal in stats, metrics (promtool clean) and telemetry;
# stats.clear baselines them like the other counters; an af_xdp uplink
# counts them too; and, where podwirectl has --io, a veth port on
# podwired's own AF_PACKET I/O (PACKET_STATISTICS, which resets on read).
. "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null || fail "promtool is not installed (apt-get install prometheus)"
command -v curl >/dev/null || fail "curl is not installed"
NS=pwk$$ K=pwk$$h UP=pwk$$u UPP=pwk$$p
M=02:00:00:00:0c:01 # the pod's (the container end's) MAC
FLOOD=20000
MPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

ip netns add $NS 2>/dev/null || skip "cannot create network namespaces"
# podwired goes before the namespace (and the veths with it); a stopped
# podwired is let go on first.
cleanup_ns() {
	[ -z "${DAEMON_PID[pw]:-}" ] || kill -CONT "${DAEMON_PID[pw]}" 2>/dev/null
	[ -z "${DAEMON_PID[pw]:-}" ] || daemon_stop pw
	ip netns del $NS 2>/dev/null
	ip link del $UP 2>/dev/null
}
on_exit cleanup_ns
ip netns exec $NS sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

# send.py IFACE COUNT [SRC]: COUNT UDP frames from SRC (M) to idle's MAC, as fast as a raw
# socket goes (nothing else crosses the link: IPv6 is off in $NS). A frame
# the veth itself refuses (its ring to the XDP side full: ENOBUFS) is sent
# again, so that COUNT frames reach the XDP program.
cat >"$T/send.py" <<'EOF'
import errno, socket, struct, sys
ifname, count = sys.argv[1], int(sys.argv[2])
src = sys.argv[3] if len(sys.argv) > 3 else "02:00:00:00:0c:01"
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
eth = bytes.fromhex("020000000c03" + src.replace(":", "")) + b"\x08\x00"
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, 0, 0, 64, 17, 0,
                 socket.inet_aton("10.78.0.2"), socket.inet_aton("10.78.0.1"))
frame = eth + ip + struct.pack("!HHHH", 1000, 9000, 26, 0) + bytes(18)
sent = 0
while sent < count:
    try:
        s.send(frame)
        sent += 1
    except OSError as e:
        if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
            raise
EOF
send() { ip netns exec $NS python3 "$T/send.py" "$@"; } # IFACE COUNT [SRC-MAC]
PW() { echo "${DAEMON_PID[pw]}"; }
# flood IFACE [SRC-MAC]: FLOOD frames into IFACE while podwired is stopped.
flood() {
	kill -STOP "$(PW)"
	send "$1" $FLOOD "${2:-$M}" || {
		kill -CONT "$(PW)"
		fail "sending $FLOOD frames on $1 failed"
	}
	kill -CONT "$(PW)"
}
kd() { port_stat pw "$1" .kernel_drops; }
rx() { port_stat pw "$1" .rx_packets; }
# settled PORT WANT: rx_packets + kernel_drops of PORT reached WANT.
settled() { [ $(($(rx "$1") + $(kd "$1"))) -ge "$2" ]; }
# prime PORT IFACE [SRC-MAC]: a frame at a time until PORT receives one
# (the link may be up a moment before the socket takes frames: those
# before went to the kernel's stack), then PORT's counters cleared.
took() {
	send "$2" 1 "${3:-$M}"
	port_stat_ge pw "$1" .rx_packets 1
}
prime() {
	wait_for 10 "$1 to take frames" took "$@"
	ctl pw stats clear "$1" >/dev/null
}
url=http://127.0.0.1:$MPORT/metrics
metric() { # PORT KIND NETWORK: its podwire_port_kernel_drops_total, "" when none
	curl -sf "$url" >"$T/m.txt" || fail "curl $url failed"
	awk -v k="podwire_port_kernel_drops_total{port=\"$1\",network=\"$3\",kind=\"$2\"}" \
		'$1 == k {print $2}' "$T/m.txt"
}

daemon_start pw --metrics "127.0.0.1:$MPORT"
ctl pw network add net1 >/dev/null
ctl pw port add idle --network net1 --type null --mac 02:00:00:00:0c:03 >/dev/null
# veth_port NAME IFACE IO: a veth port reading through IO (xdp: AF_XDP,
# packet: podwired's AF_PACKET I/O), its container end ($peer) in $NS. A
# podwirectl without --io has AF_XDP veths only.
veth_port() {
	local io=(--io "$3") drv want=af_packet
	[ "$HAVE_IO" = 1 ] || io=()
	[ "$3" != xdp ] || want=af_xdp
	ctl pw port add "$1" --network net1 --type veth --iface "$2" --mac $M "${io[@]}" >/dev/null
	peer=$(ctlj pw port show "$1" | jq -r .veth.peer)
	ip link set "$peer" netns $NS
	ip -n $NS link set "$peer" up
	wait_link pw "$1" up
	drv=$(ctlj pw port show "$1" | jq -r .veth.driver)
	[ "$drv" = "$want" ] || fail "veth port $1 (io $3) reads through \"$drv\", not $want"
}
HAVE_IO=1
out=$(ctl pw port add probe --io xdp 2>&1 || true)
! grep -q 'unknown port add option "--io"' <<<"$out" || HAVE_IO=0
veth_port k1 $K xdp

# ---- kinds without a kernel socket: nothing to count ----------------------------------
expect_eq "k1's kernel_drops before any traffic" 0 "$(kd k1)"
expect_eq "idle (null) has no kernel_drops in stats" null "$(port_stat pw idle .kernel_drops)"
expect_eq "idle (null) has no kernel drops series" "" "$(metric idle null net1)"
grep -q '^# TYPE podwire_port_kernel_drops_total counter$' "$T/m.txt" ||
	fail "no TYPE line for podwire_port_kernel_drops_total: $(grep kernel "$T/m.txt")"
expect_eq "k1's series before any traffic" 0 "$(metric k1 veth net1)"
ok "kernel_drops: 0 on the veth port, absent on the null port"

prime k1 "$peer"

# ---- paced: the kernel drops nothing -------------------------------------------------------
send "$peer" 500
wait_for 10 "k1 to receive 500 frames" port_stat_ge pw k1 .rx_packets 500
expect_eq "k1's kernel drops after 500 frames podwired kept up with" 0 "$(kd k1)"

# ---- podwired stopped: the kernel drops, and podwired says how many ---------------------------
flood "$peer"
wait_for 20 "k1's frames to be counted" settled k1 $((500 + FLOOD))
d1=$(kd k1) r1=$(rx k1)
[ "$d1" -gt 0 ] || fail "the kernel dropped nothing of $FLOOD frames sent while podwired was stopped (rx $r1)"
expect_eq "k1's rx + kernel drops: every frame sent" $((500 + FLOOD)) $((r1 + d1))
ok "stopped podwired: of $FLOOD frames, $((r1 - 500)) waited in the ring, the kernel dropped $d1"
expect_eq "k1's kernel drops in /metrics" "$d1" "$(metric k1 veth net1)"
promtool check metrics <"$T/m.txt" >"$T/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(cat "$T/promtool.out")"
ok "/metrics: podwire_port_kernel_drops_total equals stats, promtool clean"

# DPDK telemetry: the socket of podwired's file prefix (as test_telemetry).
tel() { # COMMAND: the answer's value (JSON)
	python3 - "$T/pw.sock" "$1" <<'PY'
import json, socket, sys
h = 5381
for c in sys.argv[1].encode():
    h = (h * 33 + c) & 0xffffffffffffffff
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect("/var/run/dpdk/podwired-%08x/dpdk_telemetry.v2" % (h & 0xffffffff))
json.loads(s.recv(1 << 16))  # the greeting
s.send(sys.argv[2].encode())
print(json.dumps(json.loads(s.recv(1 << 20))[sys.argv[2].split(",")[0]]))
PY
}
expect_eq "k1's kernel drops in telemetry" "$d1" "$(tel /podwire/port_stats,k1 | jq .kernel_drops)"
expect_eq "idle's kernel drops in telemetry" null "$(tel /podwire/port_stats,idle | jq .kernel_drops)"
ok "telemetry: /podwire/port_stats has k1's kernel_drops, none for idle"

# Tables: KDROPS, "-" where nothing is counted.
out=$(ctl pw stats)
head -n1 <<<"$out" | grep -qE '^PORT +RX-PKTS +RX-BYTES +TX-PKTS +TX-BYTES +DROPS +KDROPS$' ||
	fail "stats: header: $out"
grep -qE "^k1 +$r1 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +$d1$" <<<"$out" || fail "stats: k1's row: $out"
grep -qE '^idle +0 +0 +[0-9]+ +[0-9]+ +0 +-$' <<<"$out" || fail "stats: idle's row: $out"
ctl pw port show k1 | grep -qE "^kdrops: +$d1$" || fail "port show k1: $(ctl pw port show k1)"
ok "podwirectl stats and port show: KDROPS $d1 for k1, - for idle"

# ---- never backwards; more drops add up -----------------------------------------------------
prev=$d1
for _ in 1 2 3; do
	now=$(kd k1)
	[ "$now" -ge "$prev" ] || fail "k1's kernel drops went back from $prev to $now"
	prev=$now
	sleep 0.2
done
flood "$peer"
wait_for 20 "k1's frames to be counted" settled k1 $((500 + 2 * FLOOD))
d2=$(kd k1)
[ "$d2" -gt "$d1" ] || fail "a second flood added no kernel drops ($d1, then $d2)"
expect_eq "k1's rx + kernel drops after two floods" $((500 + 2 * FLOOD)) $(($(rx k1) + d2))
ok "a second flood: kernel drops $d1 -> $d2, rx + drops still every frame sent"

# ---- top: KDROPS/S ----------------------------------------------------------------------
# Its two snapshots 3 s apart; the flood between them (podwired stopped
# meanwhile: top's second call waits for it).
ctl pw top --interval 3 --count 1 >"$T/top.txt" 2>&1 &
TOP_PID=$!
sleep 1
flood "$peer"
wait $TOP_PID || fail "top failed: $(cat "$T/top.txt")"
grep -qE '^PORT +RX-PPS +RX-MBIT/S +TX-PPS +TX-MBIT/S +DROPS/S +KDROPS/S +DROPS/S BY REASON$' "$T/top.txt" ||
	fail "top: header: $(cat "$T/top.txt")"
awk '$1 == "k1" && $7 > 0 { f = 1 } END { exit !f }' "$T/top.txt" || fail "top: no KDROPS/S for k1: $(cat "$T/top.txt")"
awk '$1 == "idle" && $7 == "-" { f = 1 } END { exit !f }' "$T/top.txt" || fail "top: idle's KDROPS/S: $(cat "$T/top.txt")"
ok "top: k1 $(awk '$1 == "k1" {print $7}' "$T/top.txt") kernel drops/s, idle -"
wait_for 20 "k1's frames to be counted" settled k1 $((500 + 3 * FLOOD))

# ---- stats.clear baselines them ------------------------------------------------------------
ctl pw stats clear k1 >/dev/null
expect_eq "k1's kernel drops after stats clear" 0 "$(kd k1)"
expect_eq "k1's series after stats clear" 0 "$(metric k1 veth net1)"
flood "$peer"
wait_for 20 "k1's frames to be counted after the clear" settled k1 $FLOOD
d3=$(kd k1)
[ "$d3" -gt 0 ] || fail "no kernel drops counted after stats clear"
expect_eq "k1's rx + kernel drops since the clear" $FLOOD $(($(rx k1) + d3))
ok "stats clear: kernel drops from 0 again ($d3 after one more flood)"

# ---- an af_xdp uplink counts them too ------------------------------------------------------
ip link add $UP numtxqueues 1 numrxqueues 1 type veth peer name $UPP netns $NS numtxqueues 1 numrxqueues 1 ||
	skip "cannot create a veth pair for the uplink"
sysctl -qw "net.ipv6.conf.$UP.disable_ipv6=1"
ip link set $UP up
ip -n $NS link set $UPP up
ctl pw network add net2 >/dev/null
ctl pw port add up1 --network net2 --type af_xdp --iface $UP >/dev/null
wait_link pw up1 up
updrv=$(ctlj pw port show up1 | jq -r .uplink.driver)
[ "$updrv" = af_xdp ] || fail "uplink up1 reads through \"$updrv\", not AF_XDP"
expect_eq "up1's kernel drops before any traffic" 0 "$(kd up1)"
prime up1 $UPP
flood $UPP
wait_for 20 "up1's frames to be counted" settled up1 $FLOOD
du=$(kd up1)
[ "$du" -gt 0 ] || fail "the kernel dropped nothing of $FLOOD frames for the uplink"
expect_eq "up1's rx + kernel drops" $FLOOD $(($(rx up1) + du))
expect_eq "up1's kernel drops in /metrics" "$du" "$(metric up1 af_xdp net2)"
ok "af_xdp uplink: $du kernel drops of $FLOOD frames, in stats and metrics"

# ---- podwired's own AF_PACKET I/O: PACKET_STATISTICS --------------------------------------
if [ "$HAVE_IO" = 0 ]; then
	log "podwirectl has no --io: veth ports read through AF_XDP only (checked above)"
	exit 0
fi
M=02:00:00:00:0c:02
veth_port k2 pwk$$k packet
expect_eq "k2's kernel drops before any traffic" 0 "$(kd k2)"
prime k2 "$peer" $M
flood "$peer" $M
wait_for 20 "k2's frames to be counted" settled k2 $FLOOD
dp=$(kd k2)
[ "$dp" -gt 0 ] || fail "the kernel dropped nothing of $FLOOD frames for k2 (packet I/O) while podwired was stopped"
expect_eq "k2's rx + kernel drops" $FLOOD $(($(rx k2) + dp))
# PACKET_STATISTICS resets on every read: a second read neither loses
# nor adds any.
expect_eq "k2's kernel drops read again" "$dp" "$(kd k2)"
expect_eq "k2's kernel drops in /metrics" "$dp" "$(metric k2 veth net1)"
ok "packet I/O: $dp kernel drops of $FLOOD frames, in stats and metrics"
