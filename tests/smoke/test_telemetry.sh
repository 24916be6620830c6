#!/bin/bash
# DPDK telemetry: /podwire/ports gives every port's name even past the 512
# entries a telemetry array holds (a page at a time, with the total and
# where the next page starts), /podwire/port_stats,NAME a port's counters;
# a bad parameter is an error, and podwired keeps serving.
. "$(dirname "$0")/lib.sh"

N=600 # more than one page (512)

daemon_start pw
ctl pw network add tnet
for i in $(seq $N); do
	printf '{"jsonrpc":"2.0","id":%d,"method":"port.create","params":{"name":"t%d","network":"tnet","type":"null"}}\n' "$i" "$i"
done >"$T/create.jsonl"
python3 - "$T/pw.sock" "$T/create.jsonl" <<'PY' || fail "creating $N null ports"
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rwb")
for line in open(sys.argv[2], "rb"):
    f.write(line)
    f.flush()
    r = json.loads(f.readline())
    if "error" in r:
        sys.exit("port.create: %s" % r["error"])
PY
expect_eq "ports in podwired" $N "$(ctlj pw port list | jq '.ports | length')"

# The telemetry socket of podwired's DPDK file prefix (podwired-<hash of
# the API socket path>, as eal_start derives it).
TEL=$(python3 - "$T/pw.sock" <<'PY'
import sys
h = 5381
for c in sys.argv[1].encode():
    h = (h * 33 + c) & 0xffffffffffffffff
print("/var/run/dpdk/podwired-%08x/dpdk_telemetry.v2" % (h & 0xffffffff))
PY
)
[ -S "$TEL" ] || fail "no telemetry socket at $TEL"
# tel COMMAND: the answer's value for COMMAND (JSON).
tel() {
	python3 - "$TEL" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
json.loads(s.recv(1 << 16))  # the greeting
s.send(sys.argv[2].encode())
print(json.dumps(json.loads(s.recv(1 << 20))[sys.argv[2].split(",")[0]]))
PY
}

P0=$(tel /podwire/ports)
expect_eq "first page: total, from, names, next" "$N 0 512 512" \
	"$(jq -r '"\(.total) \(.from) \(.ports | length) \(.next)"' <<<"$P0")"
P1=$(tel /podwire/ports,512)
expect_eq "second page: the rest, no next" "$N 512 $((N - 512)) null" \
	"$(jq -r '"\(.total) \(.from) \(.ports | length) \(.next)"' <<<"$P1")"
[ "$(ctlj pw port list | jq -c '[.ports[].name] | sort')" = "$(jq -sc '[.[].ports[]] | sort' <<<"$P0 $P1")" ] ||
	fail "the two pages are not every port once: $P0 $P1"
ok "every port once, over both pages"
expect_eq "past the end: an empty page" "$N 0 null" \
	"$(tel /podwire/ports,$N | jq -r '"\(.total) \(.ports | length) \(.next)"')"
expect_eq "a parameter that is no number: an error" null "$(tel /podwire/ports,x)"
expect_eq "a port of the second page has counters" up "$(tel /podwire/port_stats,t$N | jq -r .link)"
expect_eq "no such port: an error" null "$(tel /podwire/port_stats,nope)"
ctl pw info >/dev/null || fail "podwired stopped serving"
ok "telemetry lists all $N ports"
