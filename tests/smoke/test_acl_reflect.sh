#!/bin/bash
# permit+reflect end to end, kernel pods A and B (veth ports in network
# namespaces) on one bridge, two workers: A's port is polled by worker 0,
# B's by worker 1, so the session A's frames record on worker 0 is looked
# up by worker 1 when B's replies leave through A's port.
#   A's ingress: permit ARP, permit+reflect tcp and udp, default deny;
#   A's egress:  permit ARP, default deny.
#   - A opens TCP to B and data flows both ways (the replies pass A's
#     egress on the session: session_hits > 0; acl.sessions counts it);
#   - B cannot open TCP to A: its SYNs are acl_deny drops at A's egress;
#   - with acl.timeouts tcp 1 s, B's data on an old flow idle for 2.5 s
#     is dropped (with 30 s it arrives); the same for UDP with its own timeout;
#   - timeouts survive a restart (acl.json); Prometheus has the series.
# shellcheck disable=SC2034 # lib.sh starts podwired with it
WORKER_CPU=0,1
. "$(dirname "$0")/lib.sh"

NA=pwrf-a$$
NB=pwrf-b$$
A_IP=10.98.0.1
B_IP=10.98.0.2
netns_add $NA $NB

# The pods' programs. srv: TCP and UDP on PORT; a message "echo N" gets N
# bytes echoed (TCP), "late S" gets "now" at once and "late" S seconds
# later. cli: prints what it got ("echo ok", "now late", "now none",
# "refused"/"timeout" when it cannot connect).
cat >"$T/rf.py" <<'PY'
import socket, sys, time, threading
def tcp_srv(port):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port)); s.listen(8)
    while True:
        c, _ = s.accept()
        threading.Thread(target=tcp_conn, args=(c,), daemon=True).start()
def tcp_conn(c):
    f = c.makefile("rb")
    cmd = f.readline().split()
    if cmd[0] == b"echo":
        n = int(cmd[1]); left = n
        while left:
            d = f.read1(min(left, 65536))
            if not d: return
            c.sendall(d); left -= len(d)
    else:
        c.sendall(b"now\n"); time.sleep(float(cmd[1])); c.sendall(b"late\n"); time.sleep(30)
def udp_srv(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", port))
    while True:
        d, a = s.recvfrom(100)
        cmd = d.split()
        s.sendto(b"now", a)
        threading.Timer(float(cmd[1]), lambda a=a: s.sendto(b"late", a)).start()
def cli(proto, host, port, what, arg):
    if proto == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3)
        s.sendto(("late %s" % arg).encode(), (host, port))
        try: r = s.recv(100)
        except socket.timeout: print("none"); return
        s.settimeout(float(arg) + 1.5)
        try: r2 = s.recv(100); print("now late")
        except socket.timeout: print("now none")
        return
    s = socket.socket(); s.settimeout(3)
    try: s.connect((host, port))
    except socket.timeout: print("timeout"); return
    except OSError as e: print("refused %s" % e); return
    if what == "echo":
        n = int(arg); data = bytes(i % 251 for i in range(n))
        s.sendall(b"echo %d\n" % n)
        threading.Thread(target=s.sendall, args=(data,), daemon=True).start()
        got = b""
        while len(got) < n:
            d = s.recv(65536)
            if not d: break
            got += d
        print("echo ok" if got == data else "echo bad %d" % len(got)); return
    s.sendall(b"late %s\n" % arg.encode())
    f = s.makefile("rb")
    if f.readline() != b"now\n": print("none"); return
    s.settimeout(float(arg) + 1.5)
    try: print("now late" if f.readline() == b"late\n" else "now none")
    except socket.timeout: print("now none")
if sys.argv[1] == "srv":
    port = int(sys.argv[2])
    threading.Thread(target=udp_srv, args=(port,), daemon=True).start()
    tcp_srv(port)
else:
    cli(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
PY
SRV=()
srv_cleanup() { local p; for p in "${SRV[@]}"; do _stop_pid "$p"; done; }
on_exit srv_cleanup
srv() { # NETNS PORT
	ip netns exec "$1" taskset -c "$POD_CPU" python3 "$T/rf.py" srv "$2" >>"$T/srv.log" 2>&1 &
	SRV+=($!)
}
cli() { ip netns exec "$1" taskset -c "$POD_CPU" timeout 30 python3 "$T/rf.py" cli "${@:2}"; }
deny() { port_stat pw ka .drops.acl_deny; }
sess() { ctlj pw acl sessions | jq -r "$1"; }

start() {
	daemon_start pw
	expect_eq "workers' cores" "0 1" "$(ctlj pw acl sessions | jq -r '[.workers[].lcore] | map(tostring) | join(" ")')"
}
start
ctl pw network add n >/dev/null
ctl pw port add ka --network n --type veth --iface "pwrfa$$" --mac 02:00:00:98:00:0a --rxq-pins 0:0 >/dev/null
ctl pw port add kb --network n --type veth --iface "pwrfb$$" --mac 02:00:00:98:00:0b --rxq-pins 0:1 >/dev/null
veth_into_ns pw ka $NA $A_IP/24
veth_into_ns pw kb $NB $B_IP/24
wait_link pw ka up
wait_link pw kb up
expect_eq "ka's and kb's queues on workers" "0 1" \
	"$(ctlj pw queue list | jq -r '[.queues[] | select(.port == "ka" or .port == "kb") | .worker] | map(tostring) | join(" ")')"

ctl pw acl set a_in --default deny --rule '{"action":"permit","ethertype":"0x0806"}' \
	--rule '{"action":"permit+reflect","proto":"tcp"}' \
	--rule '{"action":"permit+reflect","proto":"udp"}' >/dev/null
ctl pw acl set a_out --default deny --rule '{"action":"permit","ethertype":"0x0806"}' >/dev/null
ctl pw acl attach a_in --port ka --direction ingress >/dev/null
ctl pw acl attach a_out --port ka --direction egress >/dev/null
srv $NA 5001
srv $NB 5000
sleep 1

# ---- A opens, replies come back --------------------------------------------
expect_eq "A -> B TCP, 2 MB echoed" "echo ok" "$(cli $NA tcp $B_IP 5000 echo 2000000)"
hits=$(ctlj pw acl show a_out | jq -r .session_hits)
[ "$hits" -gt 0 ] || fail "a_out's session_hits is $hits after B's replies"
ok "B's replies passed A's egress on the session ($hits session hits)"
expect_eq "sessions recorded by worker 0 (A's), none by worker 1" "true 0" \
	"$(sess '"\(.workers[0].created > 0) \(.workers[1].created)"')"
[ "$(sess .max)" = 131072 ] || fail "acl sessions max: $(sess .max)"
out=$(ctl pw acl sessions)
grep -qE '^LCORE +LIVE +CREATED +EXPIRED +FULL$' <<<"$out" || fail "podwirectl acl sessions: $out"
grep -qE '^ +1 +0 +0 +0 +0$' <<<"$out" || fail "podwirectl acl sessions, worker 1: $out"

# ---- B cannot open ------------------------------------------------------------
d0=$(deny)
out=$(cli $NB tcp $A_IP 5001 echo 10)
[ "$out" = timeout ] || fail "B -> A TCP: $out (expected the SYN dropped)"
d1=$(deny)
[ "$d1" -gt "$d0" ] || fail "B's SYNs are not acl_deny drops at ka ($d0 -> $d1)"
ok "B cannot open TCP to A ($((d1 - d0)) frames denied at A's egress)"

# ---- expiry ---------------------------------------------------------------------
out=$(ctl pw acl timeouts)
grep -q "tcp 3600 s, udp 120 s, other 60 s" <<<"$out" || fail "default timeouts: $out"
ctl pw acl timeouts --tcp 30 --udp 30 >/dev/null
expect_eq "TCP idle 2.5 s under a 30 s timeout" "now late" "$(cli $NA tcp $B_IP 5000 late 2.5)"
expect_eq "UDP idle 2.5 s under a 30 s timeout" "now late" "$(cli $NA udp $B_IP 5000 late 2.5)"
out=$(ctl pw acl timeouts --tcp 1)
grep -q "tcp 1 s, udp 30 s" <<<"$out" || fail "acl timeouts --tcp 1: $out"
exp0=$(sess '[.workers[].expired] | add')
d0=$(deny)
expect_eq "TCP idle 2.5 s under a 1 s timeout" "now none" "$(cli $NA tcp $B_IP 5000 late 2.5)"
expect_eq "UDP (30 s) idle 2.5 s while TCP's is 1 s" "now late" "$(cli $NA udp $B_IP 5000 late 2.5)"
d1=$(deny)
[ "$d1" -gt "$d0" ] || fail "B's late TCP data is not an acl_deny drop at ka ($d0 -> $d1)"
ctl pw acl timeouts --udp 1 >/dev/null
expect_eq "UDP idle 2.5 s under a 1 s timeout" "now none" "$(cli $NA udp $B_IP 5000 late 2.5)"
exp1=$(sess '[.workers[].expired] | add')
[ "$exp1" -gt "$exp0" ] || fail "acl sessions: expired stayed $exp0"
ok "sessions expire by protocol ($((exp1 - exp0)) expired)"

# ---- metrics, bad input, restart -----------------------------------------------
out=$(rpc pw acl.timeouts '{"tcp": 0}')
grep -qF '\"tcp\" is 0, it must be 1-604800 (seconds)' <<<"$out" || fail "tcp 0 accepted: $out"
out=$(ctl pw acl timeouts)
grep -q "tcp 1 s, udp 1 s, other 60 s" <<<"$out" || fail "a refused change changed: $out"
daemon_stop pw
start
out=$(ctl pw acl timeouts)
grep -q "tcp 1 s, udp 1 s, other 60 s" <<<"$out" || fail "timeouts after a restart: $out"
ok "timeouts kept in acl.json"
daemon_stop pw
mport=$((20000 + $$ % 20000))
daemon_start pw --metrics 127.0.0.1:$mport --acl-sessions 4096
[ "$(sess .max)" = 4096 ] || fail "--acl-sessions 4096: max $(sess .max)"
m=$(curl -s "http://127.0.0.1:$mport/metrics")
for s in 'podwire_acl_sessions{worker="1",lcore="1"} ' 'podwire_acl_sessions_full_total{worker="0",lcore="0"} 0'; do
	grep -qF "$s" <<<"$m" || fail "metrics lack $s"
done
ok "metrics and --acl-sessions"
