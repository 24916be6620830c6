#!/bin/bash
# Port mirroring (issue 25): kernel pods on one bridge, each a veth port
# whose container end is eth0 in a namespace of its own:
#
#   NA pa (mirrored) ---+
#   NB pb --------------+-- net --- pm: NM, the mirror's destination
#   NC pc --------------+       \-- pf: a memif testpmd pod that never reads
#   NU eth0 --- up1: an af_packet uplink of network netv (VLAN 100)
#
# Checked: with a mirror of pa to pm, what tcpdump sees on pm is exactly
# (byte for byte, as a multiset) what it sees on pa: every frame for
# "both", those pa's pod sent for "ingress", those it was sent for
# "egress"; with a second mirror of pa to the uplink, the same frames
# leave it tagged with netv's VLAN (and padded to 60 bytes); nothing else reaches pm (pb and pc's own traffic, floods);
# what pm's pod sends is dropped (no_route) and reaches nobody; the
# mirror's copies equal the frames pm got. A destination that never reads
# (pf) drops copies, counted on the mirror, while pa and pb lose nothing.
# Bad requests name the field and change nothing; /metrics carries the
# mirror's series (promtool clean); a restart keeps the mirror; deleting
# a mirrored port shrinks it, deleting its destination removes it. A
# mirror filtered by an access list (ICMP only) copies exactly pa's ICMP
# frames; the list counts nothing for it and cannot be deleted under it.
. "$(dirname "$0")/lib.sh"

for c in tcpdump promtool curl; do
	command -v $c >/dev/null || skip "$c is not installed"
done
NA=pwmi-a$$ NB=pwmi-b$$ NC=pwmi-c$$ NM=pwmi-m$$ NU=pwmi-u$$ UP=pwmiu$$
MA=02:00:00:77:00:0a MB=02:00:00:77:00:0b MC=02:00:00:77:00:0c MM=02:00:00:77:00:0d
MF=02:00:00:77:00:0f
MPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

netns_add $NA $NB $NC $NM $NU

daemon_start pw --metrics 127.0.0.1:$MPORT
ctl pw network add net
kpod() { # PORT NETNS MAC [ADDR]
	local peer
	ctl pw port add "$1" --network net --type veth --iface "pwm$1$$" --mac "$3" >/dev/null
	peer=$(ctlj pw port show "$1" | jq -r .veth.peer)
	# Neither end speaks IPv6 (both were made here, where it is on):
	# the kernel's own frames on a veth would reach one capture only.
	sysctl -qw "net.ipv6.conf.pwm$1$$.disable_ipv6=1" "net.ipv6.conf.$peer.disable_ipv6=1"
	ip link set "$peer" netns "$2"
	ip -n "$2" link set "$peer" name eth0
	[ -z "${4:-}" ] || ip -n "$2" addr add "$4" dev eth0
	# Checksums complete in the frames as sent, so both ends capture the
	# same bytes.
	ip netns exec "$2" ethtool -K eth0 tx off >/dev/null 2>&1 || true
	ip -n "$2" link set eth0 up
}
kpod pa $NA $MA 10.77.0.1/24
kpod pb $NB $MB 10.77.0.2/24
kpod pc $NC $MC 10.77.0.3/24
kpod pm $NM $MM
for p in pa pb pc pm; do wait_link pw $p up; done

# ---- captures -----------------------------------------------------------------

CAP_PIDS=()
# cap NETNS FILE: tcpdump on eth0 in NETNS, until cap_stop.
cap() {
	# --immediate-mode: each frame as it comes (not a block of them at a
	# timeout, which a tcpdump told to stop would never write).
	ip netns exec "$1" tcpdump -i eth0 -n -U --immediate-mode -s 0 -w "$2" 2>"$2.err" &
	CAP_PIDS+=($!)
	wait_for 10 "tcpdump in $1" grep -q "listening on" "$2.err"
}
cap_stop() {
	sleep 0.5 # the last copies on their way
	for p in "${CAP_PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${CAP_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	CAP_PIDS=()
}
kill_caps() { for p in "${CAP_PIDS[@]}"; do kill "$p" 2>/dev/null; done; }
on_exit kill_caps

# compare WHICH MAC PORT.pcap MIRROR.pcap [VLAN]: prints "port=N
# expected=E mirror=M missing=X extra=Y", WHICH "all" (every frame of the
# port), "from" (those with source MAC: what the pod sent) or "to" (the
# others); with VLAN, each expected as an uplink of that VLAN sends it.
cat >"$T/compare.py" <<'EOF'
import collections, struct, sys
def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack(e + "IIII", data[off:off + 16])[2]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out
which, mac = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", ""))
port, mirror = frames(sys.argv[3]), frames(sys.argv[4])
if which == "icmp":  # IPv4 ICMP only, both ways (a mirror filtered by a list)
    want = [f for f in port if f[12:14] == b"\x08\x00" and f[23] == 1]
else:
    want = [f for f in port if which == "all" or (f[6:12] == mac) == (which == "from")]
if len(sys.argv) > 5:  # VLAN: as an uplink sends them, tagged and padded
    tag = b"\x81\x00" + struct.pack("!H", int(sys.argv[5]))
    want = [(f[:12] + tag + f[12:]).ljust(60, b"\0") for f in want]
a, b = collections.Counter(want), collections.Counter(mirror)
print("port=%d expected=%d mirror=%d missing=%d extra=%d" % (
    len(port), len(want), len(mirror), sum((a - b).values()), sum((b - a).values())))
EOF

# traffic: pa and pb both ways (ARP, ICMP, UDP answered by ICMP), then pb
# and pc, which is none of pa's business but for the ARP broadcast.
traffic() {
	for n in $NA $NB $NC; do ip -n $n neigh flush dev eth0; done
	ip netns exec $NA ping -q -c 3 -i 0.2 -W 1 10.77.0.2 >/dev/null || fail "pa cannot ping pb"
	ip netns exec $NB python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5):
    s.sendto(bytes(range(100)), ("10.77.0.1", 9))'
	ip netns exec $NB ping -q -c 3 -i 0.2 -W 1 10.77.0.3 >/dev/null || fail "pb cannot ping pc"
}
# show PCAP...: what each capture holds, for a failure.
show() {
	for f in "$@"; do
		echo "---- $(basename "$f")"
		tshark -r "$f" -T fields -e eth.src -e eth.dst -e _ws.col.Protocol -e _ws.col.Info \
			2>/dev/null | head -n 40
	done
}
copies() { ctlj pw mirror list | jq -r ".mirrors[] | select(.name == \"$1\") | .$2"; }

# round DIRECTION WHICH: mirror m1 of pa to pm, the traffic, the captures
# compared.
round() {
	local r
	ctl pw mirror create m1 --ports pa --to pm --direction "$1" >/dev/null
	cap $NA "$T/a-$1.pcap"
	cap $NM "$T/m-$1.pcap"
	traffic
	cap_stop
	r=$(python3 "$T/compare.py" "$2" $MA "$T/a-$1.pcap" "$T/m-$1.pcap")
	log "$1: $r"
	case "$r" in
	*" missing=0 extra=0") ;;
	*)
		ip -n $NM -s link show eth0
		ip -s link show pwmpm$$
		ctlj pw stats pm | jq -c .ports[0]
		show "$T/a-$1.pcap" "$T/m-$1.pcap"
		fail "$1: the mirror's frames are not those of pa ($2): $r"
		;;
	esac
	[ "$(echo "$r" | sed -E "s/.*expected=([0-9]+).*/\1/")" -ge 5 ] ||
		fail "$1: too few frames to tell: $r"
	expect_eq "$1: copies counted = frames pm got" \
		"$(echo "$r" | sed -E 's/.*mirror=([0-9]+).*/\1/')" "$(copies m1 copies)"
	expect_eq "$1: dropped" 0 "$(copies m1 dropped)"
	ok "$1: pm got exactly pa's frames ($2), nothing else"
}

round both all
# Between rounds: what pm's pod sends goes nowhere, counted.
before=$(port_stat pw pb .tx_packets)
ip netns exec $NM python3 -c 'import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
for i in range(10):
    s.send(bytes.fromhex("ffffffffffff" + "02000077000d" + "88b5") + bytes(50))'
wait_for 5 "pm's frames counted" port_stat_ge pw pm .drops.no_route 10
expect_eq "pm's frames dropped as no_route" 10 "$(port_stat pw pm .drops.no_route)"
expect_eq "frames podwired sent pb meanwhile" "$before" "$(port_stat pw pb .tx_packets)"
expect_eq "MACs learned on pm" 0 "$(ctlj pw mac list net | jq "[.entries[] | select(.port == \"pm\")] | length")"
ctl pw mirror del m1 >/dev/null
round ingress from
ctl pw mirror del m1 >/dev/null
round egress to

# ---- a mirror filtered by an access list -------------------------------------------

# Only ICMP is copied (the pings), both ways; ARP and UDP are forwarded
# as ever (traffic fails otherwise) but not copied.
ctl pw mirror del m1 >/dev/null
ctl pw acl set icmp --default deny --rule '{"action":"permit","proto":"icmp"}' >/dev/null
ctl pw mirror create m1 --ports pa --to pm --acl icmp >/dev/null
expect_eq "mirror list: the list" icmp "$(copies m1 acl)"
expect_eq "mirrors.json keeps the list" icmp \
	"$(jq -r '.mirrors[] | select(.name == "m1") | .acl' "$T/pw.state/mirrors.json")"
cap $NA "$T/a-acl.pcap"
cap $NM "$T/m-acl.pcap"
traffic
cap_stop
r=$(python3 "$T/compare.py" icmp $MA "$T/a-acl.pcap" "$T/m-acl.pcap")
log "acl icmp: $r"
case "$r" in
*" missing=0 extra=0") ;;
*)
	show "$T/a-acl.pcap" "$T/m-acl.pcap"
	fail "acl icmp: the mirror's frames are not pa's ICMP frames: $r"
	;;
esac
# pa saw ARP and UDP too: the list did select.
[ "$(echo "$r" | sed -E 's/.*expected=([0-9]+).*/\1/')" -ge 6 ] &&
	[ "$(echo "$r" | sed -E 's/port=([0-9]+).*/\1/')" -gt "$(echo "$r" | sed -E 's/.*expected=([0-9]+).*/\1/')" ] ||
	fail "acl icmp: nothing to tell ICMP from the rest: $r"
expect_eq "acl icmp: copies counted = frames pm got" \
	"$(echo "$r" | sed -E 's/.*mirror=([0-9]+).*/\1/')" "$(copies m1 copies)"
expect_eq "acl icmp: dropped" 0 "$(copies m1 dropped)"
expect_eq "the list counts nothing for a mirror" 0 \
	"$(ctlj pw acl show icmp | jq '[.rules[].hits] + [.default_hits] | add')"
if out=$(ctl pw acl del icmp 2>&1); then fail "acl del of a list a mirror uses was accepted"; fi
case "$out" in *'mirror "m1"'*) ;; *) fail "acl del icmp: \"$out\" does not name mirror m1" ;; esac
ok "acl icmp: pm got exactly pa's ICMP frames, both ways, nothing else"
ctl pw mirror del m1 >/dev/null
ctl pw mirror create m1 --ports pa --to pm --direction egress >/dev/null

# ---- metrics --------------------------------------------------------------------

curl -sf "http://127.0.0.1:$MPORT/metrics" >"$T/metrics.txt" || fail "GET /metrics failed"
promtool check metrics <"$T/metrics.txt" || fail "promtool finds fault with /metrics"
grep -q "^podwire_mirror_copies_total{mirror=\"m1\",to=\"pm\"} $(copies m1 copies)\$" \
	"$T/metrics.txt" || fail "no podwire_mirror_copies_total for m1: $(grep mirror "$T/metrics.txt")"
grep -q '^podwire_mirror_dropped_total{mirror="m1",to="pm"} 0$' "$T/metrics.txt" ||
	fail "no podwire_mirror_dropped_total for m1"
ok "metrics: the mirror's series, promtool clean"

# ---- bad requests ---------------------------------------------------------------

bad() { # EXPECTED-TEXT ARGS...
	local want=$1 out
	shift
	if out=$(ctl pw mirror create "$@" 2>&1); then
		fail "mirror create $* was accepted"
	fi
	case "$out" in *"$want"*) ;; *) fail "mirror create $*: \"$out\" does not say \"$want\"" ;; esac
}
bad '"to") does not exist' bad --ports pa --to nope
bad 'named twice' bad --ports pa,pa --to pc
bad 'is not ingress' bad --ports pa --to pc --direction sideways
bad 'already the destination of mirror "m1"' bad --ports pb --to pm
bad 'is the destination of mirror "m1"' bad --ports pm --to pc
bad 'is copied by mirror "m1"' bad --ports pb --to pa
bad 'exists' m1 --ports pb --to pc
bad '--to PORT is required' bad --ports pb
rpc pw mirror.create '{"name":"x","ports":"pb","to":"pc","filter":"l"}' | grep -q '"filter"' ||
	fail "an unknown field is not named"
bad 'access list "nolist" ("acl") does not exist' bad --ports pb --to pc --acl nolist
expect_eq "mirrors after the bad requests" '["m1"]' "$(ctlj pw mirror list | jq -c '[.mirrors[].name]')"
expect_eq "pc still in its network: no mirror state" false \
	"$(ctlj pw mirror list | jq '[.mirrors[].to] | index("pc") != null')"

# ---- an uplink as a destination --------------------------------------------------

ip link add $UP type veth peer name eth0 netns $NU || fail "cannot make a veth pair"
sysctl -qw "net.ipv6.conf.$UP.disable_ipv6=1"
ip netns exec $NU sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
ip link set $UP up
ip -n $NU link set eth0 up
ctl pw network add netv --vlan 100 >/dev/null
ctl pw port add up1 --network netv --type af_packet --iface $UP >/dev/null
wait_link pw up1 up
# pa is in two mirrors now: m1 (egress, to pm) and mu.
ctl pw mirror create mu --ports pa --to up1 --direction ingress >/dev/null
cap $NA "$T/a-up.pcap"
cap $NU "$T/u-up.pcap"
traffic
cap_stop
r=$(python3 "$T/compare.py" from $MA "$T/a-up.pcap" "$T/u-up.pcap" 100)
case "$r" in
*" missing=0 extra=0") ok "uplink destination: pa's frames, tagged with VLAN 100: $r" ;;
*)
	show "$T/a-up.pcap" "$T/u-up.pcap"
	fail "uplink destination: $r"
	;;
esac
ctl pw mirror del mu >/dev/null

# ---- a destination that never reads ---------------------------------------------

ctl pw port add pf --network net --type memif --socket "$T/f.sock" --mac $MF
# The pod reads for a moment (its ring then has room for a ring's worth
# of frames), then never again.
pod_up pw pf f "$(vdev_memif "$T/f.sock" $MF)"
pod_cmd f stop
ctl pw mirror create full --ports pb --to pf --direction ingress >/dev/null
for n in $NA $NB; do ip -n $n neigh flush dev eth0; done
ip netns exec $NB ping -q -c 1 -W 1 10.77.0.1 >/dev/null || fail "pb cannot ping pa"
rx0=$(port_stat pw pb .rx_packets) tx0=$(port_stat pw pa .tx_packets)
c0=$(copies full copies) d0=$(copies full dropped) tf0=$(port_stat pw pf .drops.tx_full)
kd0=$(port_stat pw pb .kernel_drops)
# Paced (50 frames a millisecond at most) so that the kernel's socket
# ring to podwired keeps up: what is measured is podwired's delivery.
N=4000
ip netns exec $NB python3 -c "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range($N):
    s.sendto(bytes(60), ('10.77.0.1', 9))
    if i % 50 == 49:
        time.sleep(0.001)"
seen() { [ $(($(port_stat pw pb .rx_packets) + $(port_stat pw pb .kernel_drops))) -ge $((rx0 + kd0 + N)) ]; }
wait_for 20 "pb's frames received" seen
sleep 0.5
rx=$(($(port_stat pw pb .rx_packets) - rx0)) tx=$(($(port_stat pw pa .tx_packets) - tx0))
c=$(($(copies full copies) - c0)) d=$(($(copies full dropped) - d0))
log "pb sent $rx, pa was sent $tx; mirror full: $c copies, $d dropped"
expect_eq "frames to pa (every one pb sent)" "$rx" "$tx"
expect_eq "pb's drops" 0 "$(ctlj pw stats pb | jq '[.ports[0].drops[]] | add')"
[ "$d" -gt 0 ] && [ "$c" -gt 0 ] || fail "the full destination took $c copies, dropped $d"
expect_eq "copies + dropped = frames pb sent" "$rx" $((c + d))
expect_eq "pf's tx_full = the mirror's dropped" "$d" $(($(port_stat pw pf .drops.tx_full) - tf0))
ok "a destination that never reads: $d copies dropped and counted, pa got all $tx"
ctl pw mirror del full >/dev/null
pod_stop f 2>/dev/null || true

# ---- restart, ports deleted -----------------------------------------------------

ctl pw mirror create m2 --ports pb,pc --to pf --direction egress --acl icmp >/dev/null
daemon_stop pw
daemon_start pw --metrics 127.0.0.1:$MPORT
expect_eq "mirrors after a restart" '["m1:pa:egress:pm:","m2:pb,pc:egress:pf:icmp"]' \
	"$(ctlj pw mirror list | jq -c '[.mirrors[] | "\(.name):\(.ports | join(",")):\(.direction):\(.to):\(.acl // "")"]')"
wait_link pw pa up
wait_link pw pm up
cap $NA "$T/a-restart.pcap"
cap $NM "$T/m-restart.pcap"
traffic
cap_stop
r=$(python3 "$T/compare.py" to $MA "$T/a-restart.pcap" "$T/m-restart.pcap")
case "$r" in
*" missing=0 extra=0") ok "after the restart: $r" ;;
*)
	show "$T/a-restart.pcap" "$T/m-restart.pcap"
	fail "after the restart: $r"
	;;
esac

ctl pw port del pb
expect_eq "m2 without pb" '["pc"]' "$(ctlj pw mirror list | jq -c '.mirrors[] | select(.name == "m2") | .ports')"
grep -q 'mirror "m2": port "pb" is deleted' "$T/pw.log" || fail "no log line for m2 shrunk"
ctl pw port del pm
expect_eq "mirrors once pm is gone" '["m2"]' "$(ctlj pw mirror list | jq -c '[.mirrors[].name]')"
grep -q 'mirror "m1": its destination, port "pm", is deleted: the mirror is removed' "$T/pw.log" ||
	fail "no log line for m1 removed"
expect_eq "mirrors.json" '["m2:pc"]' \
	"$(jq -c '[.mirrors[] | "\(.name):\(.ports)"]' "$T/pw.state/mirrors.json")"
ctl pw mirror del m2 >/dev/null
expect_eq "mirrors at the end" 0 "$(ctlj pw mirror list | jq '.mirrors | length')"
