#!/bin/bash
# The memif tx ring lock's cost: podwired with one worker (cpu 1) against
# two workers (cpus 0 and 1) with both pods' queues pinned on cpu 1. With
# two workers each memif pod's single ring is shared by two possible
# senders, so every tx burst takes the ring's (uncontended) lock; with
# one worker it takes none. Prints the forwarding worker's busy cycles
# per frame, interleaved rounds (the VM's placement flips between rounds:
# compare rounds of similar figures only).
# Usage: perf/lock_cost.sh [ROUNDS]   (BUILD=dir, default ./build)
B=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
T=$(mktemp -d)
trap 'rm -rf $T' EXIT
run() { # workers -> prints cyc/frame Mpps
	local wc=$1
	rm -rf "$T/st"
	$B/podwired --main-core 0 --worker-cores $wc --idle-sleep-max 1000 --socket $T/pw.sock --state-dir $T/st --cdi-dir "" >$T/pw.log 2>&1 &
	local pid=$!
	for i in $(seq 100); do $B/podwirectl --socket $T/pw.sock info >/dev/null 2>&1 && break; sleep 0.1; done
	$B/podwirectl --socket $T/pw.sock network add n >/dev/null
	for p in a b; do
		python3 - $T/pw.sock $p $T <<'PY'
import json,socket,sys
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
p=sys.argv[2]; mac={"a":"02:00:00:00:00:0a","b":"02:00:00:00:00:0b"}[p]
s.sendall((json.dumps({"jsonrpc":"2.0","id":1,"method":"port.create","params":{"name":p,"network":"n","type":"memif","socket":sys.argv[3]+"/"+p+".sock","mac":mac,"rxq_pins":"0:1"}})+"\n").encode()); s.recv(65536)
PY
	done
	$B/podwire-bench --lcores 0@0 --main-lcore 0 --file-prefix lc$$ --in-memory --no-pci -- --memif $T/a.sock,mac=02:00:00:00:00:0a --memif $T/b.sock,mac=02:00:00:00:00:0b --duration 1 --warmup 1 >/dev/null 2>&1
	$B/podwirectl --socket $T/pw.sock stats clear >/dev/null 2>&1
	s0=$($B/podwirectl --socket $T/pw.sock --json stats)
	$B/podwire-bench --lcores 0@0 --main-lcore 0 --file-prefix lc$$ --in-memory --no-pci -- --memif $T/a.sock,mac=02:00:00:00:00:0a --memif $T/b.sock,mac=02:00:00:00:00:0b --duration 5 --warmup 1 --json > $T/bench.json 2>/dev/null
	s1=$($B/podwirectl --socket $T/pw.sock --json stats)
	python3 - "$s0" "$s1" $T/bench.json <<'PY'
import json,sys
a=json.loads(sys.argv[1]); b=json.loads(sys.argv[2])
def busy(s): return sum(w["busy_cycles"] for w in s["workers"] if w["lcore"]==1)
def rx(s): return sum(p["rx_packets"] for p in s["ports"])
f=rx(b)-rx(a); c=busy(b)-busy(a)
print("%.1f cyc/frame, %.2f Mpps fwd (%d frames)"%(c/max(f,1), f/6e6, f))
PY
	kill $pid; wait $pid 2>/dev/null
}
for r in $(seq "${1:-3}"); do
	echo "round $r: 1 worker:  $(run 1)"
	echo "round $r: 2 workers: $(run 0,1)"
done
