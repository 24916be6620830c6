#!/bin/bash
# Many kernel pods on one node: N veth ports (default 500: the issue's
# node; VETH_SCALE_N to change it) on one network, made and deleted
# through the API. The veth kind's own AF_PACKET I/O has no per-process
# cap (an ethdev per port had DPDK's 32): every port is made, the first
# and the last forward a ping between two namespaces, podwired's fds
# and memory per port are reported, and deleting them all leaves no
# veth, no fd and no port behind.
. "$(dirname "$0")/lib.sh"

N=${VETH_SCALE_N:-500}
NA=pwvs-a$$
NB=pwvs-b$$
netns_cleanup() { ip netns del $NA 2>/dev/null; ip netns del $NB 2>/dev/null; }
on_exit netns_cleanup
for n in $NA $NB; do
	ip netns add $n || skip "cannot create network namespaces"
	ip -n $n link set lo up
done

daemon_start pw
ctl pw network add many
fds() { ls "/proc/${DAEMON_PID[pw]}/fd" | wc -l; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/${DAEMON_PID[pw]}/status"; }
hostends() { ip -o link show | grep -c ": pwvs$$-[0-9]*@" || true; }
# Container ends left on the host (named pwc<hash>; others' may exist).
peers() { ip -o link show | grep -c ": pwc[0-9a-f]\{8\}@" || true; }
PEERS0=$(peers)
# The pairs outlive podwired by design (a restart finds them): a test that
# fails midway deletes its own.
cleanup_pairs() {
	local l
	for l in $(ip -o link show | grep -o ": pwvs$$-[0-9]*@" | sed 's/^: //; s/@$//'); do
		ip link del "$l" 2>/dev/null || true
	done
}
on_exit cleanup_pairs
FDS0=$(fds)
RSS0=$(rss_kb)

# api METHOD PARAMS-TEMPLATE: the method for i = 1..N, on one connection
# each, %d in the template replaced by i; stops at the first error.
api_each() {
	python3 - "$T/pw.sock" "$1" "$2" "$N" <<-'EOF'
		import json, socket, sys
		path, method, tmpl, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
		for i in range(1, n + 1):
		    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		    s.settimeout(30)
		    s.connect(path)
		    req = {"jsonrpc": "2.0", "id": i, "method": method, "params": json.loads(tmpl.replace("%d", str(i)))}
		    s.sendall((json.dumps(req) + "\n").encode())
		    buf = b""
		    while not buf.endswith(b"\n"):
		        chunk = s.recv(65536)
		        if not chunk:
		            break
		        buf += chunk
		    s.close()
		    ans = json.loads(buf)
		    if "error" in ans:
		        print(f"{method} #{i}: {ans['error']}")
		        sys.exit(1)
	EOF
}

start=$(date +%s%N)
api_each port.create "{\"name\":\"k%d\",\"network\":\"many\",\"type\":\"veth\",\"iface\":\"pwvs$$-%d\"}" ||
	fail "could not make $N veth ports"
made_ms=$((($(date +%s%N) - start) / 1000000))
expect_eq "ports in podwired" "$N" "$(ctlj pw port list | jq '.ports | length')"
expect_eq "veth host ends" "$N" "$(hostends)"
FDS1=$(fds)
RSS1=$(rss_kb)
ok "$N veth ports made in ${made_ms} ms; podwired: $(((FDS1 - FDS0) * 100 / N / 100)).$(((FDS1 - FDS0) * 100 / N % 100)) fds per port, $(((RSS1 - RSS0) / N)) kB RSS per port (its rx ring, mapped)"
[ "$FDS1" -le $((FDS0 + 2 * N)) ] || fail "podwired holds $((FDS1 - FDS0)) fds for $N ports"

# The first and the last port carry a ping between two namespaces.
for pair in "1 $NA 10.98.0.1" "$N $NB 10.98.0.2"; do
	read -r i ns ip <<<"$pair"
	veth_into_ns pw "k$i" "$ns" "$ip/24"
	wait_link pw "k$i" up
done
ip netns exec $NA ping -c 3 -i 0.2 -W 2 10.98.0.2 >"$T/ping.log" 2>&1 ||
	fail "no ping from port k1 to port k$N: $(tail -n 3 "$T/ping.log")"
ok "ping from port k1 to port k$N"

start=$(date +%s%N)
api_each port.delete '{"name":"k%d"}' || fail "could not delete the ports"
ok "$N veth ports deleted in $((($(date +%s%N) - start) / 1000000)) ms"
expect_eq "ports left in podwired" 0 "$(ctlj pw port list | jq '.ports | length')"
expect_eq "veth host ends left" 0 "$(hostends)"
expect_eq "container ends left on the host" "$PEERS0" "$(peers)"
expect_eq "podwired's fds after" "$FDS0" "$(fds)"
expect_eq "veth ends left in the namespaces" "" \
	"$(ip -n $NA -o link show type veth; ip -n $NB -o link show type veth)"
