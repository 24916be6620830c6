#!/bin/bash
# podwire's benchmark suite: one command, one machine, one generator.
#
# Every cell runs podwire-bench (the generator, acting as N pods) pinned to
# core 0 against one forwarder (the DUT) whose forwarding lcore is core 1:
#   main     podwired bridge and xconnect, and dpdk-testpmd io forwarding on
#            the same sockets (the ceiling), over vhost-user and memif, at
#            64, 512 and 1518-byte frames: a full-speed run per cell; over
#            vhost-user also bridge-librte and xconnect-librte, podwired
#            with its ports' "rings" at librte (librte_vhost's data path,
#            mbufs) beside its own rings, when podwirectl knows --rings
#   scale    podwired bridge, vhost-user, 64 B, 2/8/32/128 pods on one worker
#   latency  podwired bridge, vhost-user, 64 B: an NDR search, then latency
#            at 10%, 50% and 90% of the NDR
#   ovs      Open vSwitch with DPDK (openvswitch-switch-dpdk, see suite_ovs.sh),
#            NORMAL action, vhost-user, 64/512/1518 B, when installed
#   retries  podwired bridge, vhost-user, 64 B, 2 pods, with the ports'
#            tx_retries at 0 and at 8 (the default): what retrying a full
#            ring costs at full load
#   capture  podwired bridge, vhost-user, 64 B, 2 pods, with no capture and
#            with `podwirectl capture p0 -w /dev/null` (both directions of
#            one of the two ports, every frame copied): what a capture costs
#   queues   podwired bridge, memif, 64 B, 2 pods with 1 or 2 queue pairs
#            each (podwire-bench --queues), one worker (core 1) or two
#            (cores 0 and 1, the first beside the generator): cells
#            queues:WORKERSw:QUEUESq, compared with queues:1w:1q
#   policy   podwired bridge, vhost-user and memif, 64 B, 2 pods, with no
#            policy and with each of: an ingress policer on both ports (a
#            rate no frame reaches: the cost of policing, not of dropping),
#            an ingress access list of 10, 1,000 and 10,000 rules (permit
#            at the end) on both, and a permit+reflect list on both with
#            100,000 UDP flows (50,000 a pod): every frame refreshes a
#            session. Cells policy:IFACE:none|policer|acl10|acl1000|
#            acl10000|reflect
#   mirror   podwired bridge, vhost-user and memif, 64 B, 2 pods, with no
#            mirror and with p0 mirrored (both directions) to a null port:
#            what a mirror costs per mirrored frame
# Parts run in that order. Within a part the cells that are compared with
# each other are measured in interleaved rounds (round 1 of each, then
# round 2 of each, ...), so that ratios pair runs made under the same
# conditions; a round starts the forwarder, runs the generator once and
# stops both.
#
# Usage: perf/suite.sh [--quick] [--only GLOBS] [--out DIR] [--duration SEC] [--rounds N]
#                      [--virtio packed|split] [--memif-gen own|net_memif]
#                      [--vhost-gen virtio_user|own]
#                      [--baseline BUILD] [--placement-ns NS] [--acl-rules N]
#   --only GLOBS  comma-separated shell globs over cell names, e.g.
#                 'main:vhost:*:64,scale:2,latency:*'. Names: main:IFACE:SYS:SIZE
#                 (IFACE vhost|memif, SYS testpmd|bridge|xconnect, and
#                 bridge-librte|xconnect-librte for vhost),
#                 scale:PODS, latency:PCT, ovs:SIZE, retries:N, capture:off|on,
#                 mirror:IFACE:off|on, policy:IFACE:KIND,
#                 queues:1w:1q|1w:2q|2w:1q|2w:2q
#   --quick       about 1 s per cell (search trials of 0.3 s), for a smoke run
#   --rounds N    measure each cell N times (default 5, --quick 1) and keep
#                 the median round; every round's figure is in the cell's JSON
#   --virtio R    the pods' virtio ring layout: packed (default: packed
#                 virtqueues, in-order, no mergeable buffers) or split
#                 (DPDK's virtio-user defaults); the same for every system
#   --memif-gen G the generator's memif pods: own (default: podwire-bench's
#                 own memif client, frames written and read in the shared
#                 buffers) or net_memif (DPDK's driver, which copies every
#                 frame through mbufs and, on one core, caps the generator
#                 near 15 Mpps at 64 B, below what the switches forward)
#   --vhost-gen G the generator's vhost-user pods: virtio_user (default:
#                 DPDK's net_virtio_user, mbufs and the virtio PMD) or own
#                 (podwire-bench --vhost: the rings --virtio says, driven
#                 in place, no mbuf; server role for OVS's client ports)
#   --placement-ns NS  a cache line's round trip between the two cores
#                 above which the vCPUs are taken to be in their slow
#                 placement (default 150; this VM shows ~55 or ~320 ns):
#                 a round waits up to 60 s for the fast one before it
#                 starts, and is measured again (up to 3 more times) when
#                 the probe after it finds the slow one. 0: no probing
#   --acl-rules N every podwired port (not a baseline's) gets an ingress
#                 access list of N rules: N - 1 that no bench frame matches
#                 (UDP to 198.51.x.y/32 port 9, deny), then a permit: what
#                 classifying costs (one librte_acl trie lookup per frame
#                 for N > 4; a rule-by-rule scan below)
#   --baseline B  also run the podwired of another build directory B (say,
#                 of the commit before a datapath change) as systems
#                 bridge-base and xconnect-base in the main groups,
#                 interleaved with the others, and compare it round by round
# Results: OUT/summary.json, OUT/cells/*.json (podwire-bench's own output),
# OUT/scaling.png when gnuplot is installed. It asserts nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PODWIRE_BUILD:-$ROOT/build}
BENCH=$BUILD/podwire-bench
GEN_CPU=0
DUT_CPU=1
QUICK=0
ONLY=""
OUT=""
DURATION=""
VIRTIO=packed
MEMIF_GEN=own
VHOST_GEN=virtio_user
VHOST_OWN_OPTS=""
PLACEMENT_NS=150
SIZES="64 512 1518"
BASE_BUILD=""
PODS_LIST="2 8 32 128"
usage() {
	sed -n '/^# Usage/,/^# OUT/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; shift ;;
	--only) ONLY=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--virtio) VIRTIO=$2; shift 2 ;;
	--memif-gen) MEMIF_GEN=$2; shift 2 ;;
	--vhost-gen) VHOST_GEN=$2; shift 2 ;;
	--placement-ns) PLACEMENT_NS=$2; shift 2 ;;
	--baseline) BASE_BUILD=$2; shift 2 ;;
	--acl-rules) ACL_RULES=$2; shift 2 ;;
	*) usage ;;
	esac
done
if [ "$QUICK" = 1 ]; then
	DURATION=${DURATION:-1} WARMUP=0.3 TRIAL=0.3 RESOLUTION=0.1 ROUNDS=${ROUNDS:-1}
else
	DURATION=${DURATION:-5} WARMUP=1 TRIAL=2 RESOLUTION=0.02 ROUNDS=${ROUNDS:-5}
fi
case $VIRTIO in
packed) VIRTIO_OPTS=,packed_vq=1,in_order=1,mrg_rxbuf=0 ;;
split) VIRTIO_OPTS="" ;;
*) echo "suite: --virtio $VIRTIO: give packed or split" >&2; exit 2 ;;
esac
case $MEMIF_GEN in
own | net_memif) ;;
*) echo "suite: --memif-gen $MEMIF_GEN: give own or net_memif" >&2; exit 2 ;;
esac
case $VHOST_GEN in
virtio_user) ;;
own) VHOST_OWN_OPTS=$([ "$VIRTIO" = packed ] && echo ,packed || true) ;;
*) echo "suite: --vhost-gen $VHOST_GEN: give virtio_user or own" >&2; exit 2 ;;
esac
[[ $PLACEMENT_NS =~ ^[0-9]+$ ]] || { echo "suite: --placement-ns $PLACEMENT_NS: give a whole number of ns" >&2; exit 2; }
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "suite: --rounds $ROUNDS: give a positive integer" >&2; exit 2; }
OUT=${OUT:-$ROOT/perf/results/$(date -u +%Y%m%dT%H%M%SZ)}

for f in "$BENCH" "$BUILD/podwired" "$BUILD/podwirectl" "$BUILD/podwire-jitter" \
	"$BUILD/podwire-placement"; do
	[ -x "$f" ] || { echo "suite: $f is not built; run: ninja -C $BUILD" >&2; exit 1; }
done
for f in ${BASE_BUILD:+"$BASE_BUILD/podwired" "$BASE_BUILD/podwirectl"}; do
	[ -x "$f" ] || { echo "suite: --baseline: $f is not built; run: ninja -C $BASE_BUILD" >&2; exit 1; }
done
command -v dpdk-testpmd >/dev/null || { echo "suite: dpdk-testpmd is missing (apt-get install dpdk)" >&2; exit 1; }
command -v jq >/dev/null || { echo "suite: jq is missing (apt-get install jq)" >&2; exit 1; }
. "$ROOT/perf/suite_ovs.sh"
mkdir -p "$OUT/cells"
T=$(mktemp -d /tmp/pws.XXXXXX)
PFX=pws$$
DUT_PID=""
DUT_FD=""
CAP_PID=""
cleanup() {
	set +e
	dut_stop
	rm -rf "$T" /var/run/dpdk/"$PFX"-*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# want CELL: true when CELL matches --only (or there is no --only).
want() {
	local g
	[ -n "$ONLY" ] || return 0
	for g in ${ONLY//,/ }; do
		# shellcheck disable=SC2053
		[[ $1 == $g ]] && return 0
	done
	return 1
}

mac_of() { printf '02:00:00:00:%02x:%02x' $(($1 >> 8)) $(($1 & 255)); }

wait_for() { # SECONDS COMMAND...
	local i
	for i in $(seq $(($1 * 10))); do
		"${@:2}" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# ---- forwarders (DUT) -------------------------------------------------------

# dut_start SYS IFACE NPODS: SYS testpmd|bridge|xconnect; sockets $T/pI.sock.
dut_start() {
	local sys=$1 iface=$2 n=$3 i vdevs=() fifo=$T/dut.in build=$BUILD
	[[ $sys != *-base ]] || build=$BASE_BUILD
	local ctl=("$build/podwirectl" --socket "$T/pw.sock")
	rm -f "$T"/p*.sock
	[ "$sys" != ovs ] || { ovs_start "$n"; return; }
	if [ "$sys" = testpmd ]; then
		for i in $(seq 0 $((n - 1))); do
			if [ "$iface" = vhost ]; then
				vdevs+=(--vdev "net_vhost$i,iface=$T/p$i.sock,queues=1")
			else
				vdevs+=(--vdev "net_memif$i,role=server,socket=$T/p$i.sock,socket-abstract=no")
			fi
		done
		rm -f "$fifo"
		mkfifo "$fifo"
		# Interactive, forwarding until its stdin closes (dut_stop): its
		# cycles are asked for while the pods are still there (a memif
		# port's counters are reset when its peer leaves).
		dpdk-testpmd -l "$GEN_CPU,$DUT_CPU" --main-lcore "$GEN_CPU" \
			--file-prefix "$PFX-dut" --in-memory --no-pci --log-level '*:notice' \
			"${vdevs[@]}" -- -i --forward-mode=io --nb-cores=1 \
			--record-core-cycles \
			<"$fifo" >"$T/dut.log" 2>&1 &
		DUT_PID=$!
		exec {DUT_FD}>"$fifo"
		echo start >&"$DUT_FD"
		# A net_memif socket appears when testpmd probes the device and
		# refuses its peer until testpmd starts the port, 100-200 ms
		# later (more on a fresh machine): podwire-bench's memif pods
		# try again meanwhile (bench_memif_open), as memif clients do.
		wait_for 20 test -S "$T/p$((n - 1)).sock"
		return 0
	fi
	rm -rf "$T/state"
	# CDI specs under $T, not the host's /var/run/cdi (a base build may
	# predate the option).
	local cdi=()
	grep -q -- --cdi-dir <<<"$("$build/podwired" --help 2>&1)" && cdi=(--cdi-dir "$T/cdi")
	"$build/podwired" --main-core "$GEN_CPU" --worker-cores "${WORKER_CORES:-$DUT_CPU}" \
		--socket "$T/pw.sock" --state-dir "$T/state" "${cdi[@]}" --log-level warning \
		>"$T/dut.log" 2>&1 &
	DUT_PID=$!
	wait_for 30 "${ctl[@]}" info
	local mode=${sys%-base}
	"${ctl[@]}" network add bench --mode "${mode%-librte}" >/dev/null
	for i in $(seq 0 $((n - 1))); do
		if [ "${QUEUES:-1}" != 1 ] || [ -n "${PINS:-}" ]; then
			# shellcheck disable=SC2206 # one word per port
			local pins=(${PINS:-})
			port_create_queues "$T/pw.sock" "p$i" "$T/p$i.sock" "$(mac_of "$i")" \
				"$([ "$iface" = vhost ] && echo vhost-user || echo memif)" "${QUEUES:-1}" \
				"${pins[$i]:--}"
			continue
		fi
		# shellcheck disable=SC2086
		"${ctl[@]}" port add "p$i" --network bench --socket "$T/p$i.sock" --mac "$(mac_of "$i")" \
			--type "$([ "$iface" = vhost ] && echo vhost-user || echo memif)" ${PORT_OPTS:-} \
			>/dev/null
	done
	[[ $sys == *-base ]] || acl_set "${ctl[@]}" "$n"
	[[ $sys == *-base ]] || policy_set "${ctl[@]}" "$n"
	# CAPTURE: podwirectl capture options for p0 (the capture part), run
	# on the generator's core, off the forwarder's.
	if [ -n "${CAPTURE:-}" ]; then
		# shellcheck disable=SC2086
		taskset -c "$GEN_CPU" "${ctl[@]}" capture p0 $CAPTURE -q -w /dev/null \
			2>"$T/capture.log" &
		CAP_PID=$!
		wait_for 10 eval "[ \"\$(${ctl[*]} --json capture list | jq '.captures | length')\" = 1 ]"
	fi
	# MIRROR (the mirror part): off, a null port pm beside the pods; on,
	# and a mirror of p0, both directions, to pm: every frame of the two
	# pods is copied once. Both have pm: a port more to poll changes the
	# worker's loop (fuller bursts), which is not the mirror's doing.
	if [ -n "${MIRROR:-}" ]; then
		"${ctl[@]}" port add pm --network bench --type null >/dev/null
		[ "$MIRROR" != on ] || "${ctl[@]}" mirror create bench --ports p0 --to pm >/dev/null
	fi
}

# acl_set PODWIRECTL... NPODS: with --acl-rules N, list "bench" (N - 1
# rules no bench frame matches, then permit) on every port's ingress.
acl_set() {
	local n=${!#} i
	[ "${ACL_RULES:-0}" -gt 0 ] || return 0
	python3 -c '
import json, sys
n = int(sys.argv[1])
rules = [{"action": "deny", "proto": "udp", "dst": "198.51.%d.%d/32" % (i >> 8, i & 255),
          "dport": 9} for i in range(n - 1)]
print(json.dumps({"default": "deny", "rules": rules + [{"action": "permit"}]}))' \
		"$ACL_RULES" >"$T/acl.json"
	"${@:1:$#-1}" acl set bench --file "$T/acl.json" >/dev/null
	for i in $(seq 0 $((n - 1))); do
		"${@:1:$#-1}" acl attach bench --port "p$i" --direction ingress >/dev/null
	done
}

# policy_set PODWIRECTL... NPODS: the policy part's POLICY on every port:
# policer, aclN (acl_set's list of N rules) or reflect (one permit+reflect
# rule for UDP, default deny).
policy_set() {
	local n=${!#} i
	case ${POLICY:-none} in
	none) ;;
	policer)
		for i in $(seq 0 $((n - 1))); do
			"${@:1:$#-1}" policer set "p$i" --pps 1g --direction ingress >/dev/null
		done
		;;
	acl*) ACL_RULES=${POLICY#acl} acl_set "$@" ;;
	reflect)
		echo '{"default": "deny", "rules": [{"action": "permit+reflect", "proto": "udp"}]}' \
			>"$T/acl.json"
		"${@:1:$#-1}" acl set bench --file "$T/acl.json" >/dev/null
		for i in $(seq 0 $((n - 1))); do
			"${@:1:$#-1}" acl attach bench --port "p$i" --direction ingress >/dev/null
		done
		;;
	*) echo "suite: unknown policy $POLICY" >&2; return 1 ;;
	esac
}

# port_create_queues API-SOCKET NAME SOCKET MAC KIND QUEUES PINS: a port on
# network bench with "queues" (vhost-user: the queue pairs it offers; memif:
# the pod decides, up to 8) and, unless PINS is "-", "rxq_pins" (Q:CORE,...),
# made with the API's port.create, so that no podwirectl option is needed.
port_create_queues() {
	python3 - "$@" <<-'EOF'
		import json, socket, sys
		sock, name, path, mac, kind, queues, pins = sys.argv[1:8]
		s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		s.connect(sock)
		params = {"name": name, "network": "bench", "type": kind, "socket": path,
		          "mac": mac, "queues": int(queues)}
		if pins != "-":
		    params["rxq_pins"] = pins
		s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "port.create",
		                       "params": params}) + "\n").encode())
		buf = b""
		while not buf.endswith(b"\n"):
		    chunk = s.recv(65536)
		    if not chunk:
		        break
		    buf += chunk
		answer = json.loads(buf)
		if "error" in answer:
		    sys.exit("suite: port.create %s with %s queues: %s" % (name, queues, answer["error"]))
	EOF
}

# dut_stop: stops the forwarder; returns its exit status.
dut_stop() {
	local rc=0
	[ -n "$DUT_PID" ] || return 0
	if [ -n "$CAP_PID" ]; then
		kill -INT "$CAP_PID" 2>/dev/null || true
		wait "$CAP_PID" 2>/dev/null || true
		CAP_PID=""
	fi
	if [ -n "$DUT_FD" ]; then
		exec {DUT_FD}>&-
		DUT_FD=""
		wait_for 5 eval "! kill -0 $DUT_PID" || true
	fi
	kill -TERM "$DUT_PID" 2>/dev/null || true
	wait_for 5 eval "! kill -0 $DUT_PID" || kill -KILL "$DUT_PID" 2>/dev/null || true
	wait "$DUT_PID" 2>/dev/null || rc=$?
	DUT_PID=""
	ovs_stop_db
	return $rc
}

# dut_cycles SYS: the forwarder's busy cycles per frame it received (its
# forwarding loop's turns that moved frames, over frames received), or
# null. podwired and OVS are asked once the generator is done; testpmd was
# asked near the generator's end ("show fwd stats all", which prints "CPU
# cycles/packet="), and its log is read once it has exited.
dut_cycles() {
	local v=""
	case $1 in
	bridge* | xconnect*)
		v=$("$BUILD/podwirectl" --socket "$T/pw.sock" --json stats 2>/dev/null | jq '
			([.ports[].rx_packets] | add) as $rx
			| if $rx > 0 then ([.workers[].busy_cycles] | add) / $rx else null end') ;;
	ovs)
		v=$(ovs-appctl -t "$T/ovs/vswitchd.ctl" dpif-netdev/pmd-stats-show 2>/dev/null |
			sed -n 's/.*avg processing cycles per packet: *\([0-9.]*\).*/\1/p' | head -n 1) ;;
	testpmd)
		v=$(sed -n 's/.*CPU cycles\/packet=\([0-9.]*\).*/\1/p' "$T/dut.log" | tail -n 1) ;;
	esac
	echo "${v:-null}"
}

# dut_tx_losses: podwired's tx_full drops and tx_retries summed over its
# ports, as JSON; {} for other forwarders.
dut_tx_losses() {
	"$BUILD/podwirectl" --socket "$T/pw.sock" --json stats 2>/dev/null | jq -c '
		{dut_tx_full: ([.ports[].drops.tx_full] | add),
		 dut_tx_retries: ([.ports[].tx_retries] | add)}' || echo '{}'
}

# dut_rings: which code moves port p0's vhost-user rings ("podwire" or
# "librte", port show's vhost_user.rings_active, there while a pod is
# connected) as JSON, null when the build does not say. Asked from the
# generator's core once the measured window began.
dut_rings() {
	taskset -c "$GEN_CPU" "$BUILD/podwirectl" --socket "$T/pw.sock" --json port show p0 2>/dev/null |
		jq '[.. | objects | .rings_active? // empty] | first // null' 2>/dev/null || echo null
}

# dut_busy_share LOG: how much of the measured window podwired's worker
# spent on turns that moved frames, as a JSON number (null when not read):
# its counters are read once podwire-bench says in LOG (its stderr) that
# the window began, and again near the window's end, by a podwirectl on
# the generator's core. Below 1, the worker waited for frames: the
# generator, not the forwarder, set the pace.
dut_busy_share() {
	local ctl=(taskset -c "$GEN_CPU" "$BUILD/podwirectl" --socket "$T/pw.sock" --json stats) a b
	wait_for 60 grep -q '^podwire-bench: measuring' "$1" || { echo null; return; }
	sleep "$(awk -v d="$DURATION" 'BEGIN {print d * 0.05}')"
	a=$("${ctl[@]}" 2>/dev/null) || { echo null; return; }
	sleep "$(awk -v d="$DURATION" 'BEGIN {print d * 0.85}')"
	b=$("${ctl[@]}" 2>/dev/null) || { echo null; return; }
	jq -n --argjson a "$a" --argjson b "$b" '
		def sum($s; f): [$s.workers[] | f] | add;
		(sum($b; .busy_cycles) - sum($a; .busy_cycles)) as $busy
		| (sum($b; .idle_cycles) - sum($a; .idle_cycles)) as $idle
		| if $busy + $idle > 0 then $busy / ($busy + $idle) else null end'
}

# bench IFACE NPODS OUTFILE [podwire-bench options...]: the generator on
# GEN_CPU, one pod per socket; its JSON goes to OUTFILE.
bench() {
	local iface=$1 n=$2 out=$3 i vdevs=() own=() rc=0
	shift 3
	for i in $(seq 0 $((n - 1))); do
		if [ "$iface" = vhost ] && [ "$VHOST_GEN" = own ]; then
			own+=(--vhost "$T/p$i.sock,mac=$(mac_of "$i")$VHOST_OWN_OPTS${VHOST_EXTRA:+,server}")
		elif [ "$iface" = vhost ]; then
			# VHOST_EXTRA: ",server=1" when the forwarder is the client (OVS).
			vdevs+=(--vdev "net_virtio_user$i,path=$T/p$i.sock,mac=$(mac_of "$i"),queues=${QUEUES:-1},queue_size=$RING$VIRTIO_OPTS${VHOST_EXTRA:-}")
		elif [ "$MEMIF_GEN" = own ]; then
			own+=(--memif "$T/p$i.sock,mac=$(mac_of "$i")")
		else
			vdevs+=(--vdev "net_memif$i,role=client,socket=$T/p$i.sock,socket-abstract=no,mac=$(mac_of "$i")")
		fi
	done
	"$BENCH" --lcores "0@$GEN_CPU" --file-prefix "$PFX-gen" --in-memory \
		--single-file-segments --no-pci --log-level '*:notice' "${vdevs[@]}" \
		-- "${own[@]}" --warmup "$WARMUP" --duration "$DURATION" --ring "$RING" \
		--queues "${QUEUES:-1}" --json "$@" \
		>"$out" 2>"$T/gen.log" || rc=$?
	if [ $rc -ne 0 ] || ! jq -e . "$out" >/dev/null 2>&1; then
		echo "suite: podwire-bench failed ($rc) for $out; its log:" >&2
		tail -n 20 "$T/gen.log" >&2
		return 1
	fi
	# A memif pod that found its switch not serving yet (testpmd's
	# net_memif says "ID not found" until its port is started) and
	# connected once it was: said, not an error.
	grep -h 'not serving it yet' "$T/gen.log" | sed 's/^/suite: /' >&2 || true
}

# placement: a cache line's round trip between the two cores, in ns (a
# JSON number), or null when not probed.
placement() {
	[ "$PLACEMENT_NS" != 0 ] || { echo null; return; }
	"$BUILD/podwire-placement" "$GEN_CPU" "$DUT_CPU" 20000 2>/dev/null | jq '.round_trip_ns' ||
		echo null
}
fast_placement() { [ "$1" = null ] || awk -v p="$1" -v m="$PLACEMENT_NS" 'BEGIN {exit !(p <= m)}'; }
# placement_wait: probes until the vCPUs are in their fast placement, for
# at most 60 s; prints the last probe.
placement_wait() {
	local p i
	for i in $(seq 60); do
		p=$(placement)
		fast_placement "$p" && break
		sleep 1
	done
	echo "$p"
}

# one_round NAME SYS IFACE NPODS ROUND FILE [podwire-bench options...]: as
# one_try, in the vCPUs' fast placement when it can be had: probed before
# and after, and measured again (at most 3 more times) when either probe
# found the slow one. The probes are recorded in FILE.
one_round() {
	local name=$1 f=$6 attempt before after
	for attempt in 1 2 3 4; do
		before=$(placement_wait)
		one_try "$@" || return 1
		after=$(placement)
		if { fast_placement "$before" && fast_placement "$after"; } || [ $attempt = 4 ]; then
			break
		fi
		echo "suite: $name: the vCPUs were in their slow placement (cache line round" \
			"trip $before ns before, $after after): measured again" >&2
	done
	jq --argjson b "$before" --argjson a "$after" --argjson n "$attempt" \
		'. + {placement_ns: {before: $b, after: $a}, attempts: $n}' "$f" >"$f.tmp" &&
		mv "$f.tmp" "$f"
}

# one_try NAME SYS IFACE NPODS ROUND FILE [podwire-bench options...]: one
# measurement into FILE, with the round's number and the forwarder's busy
# cycles per frame added. A run that received nothing (a link that never
# came up) is tried once more. A forwarder that exits badly leaves its log
# in logs/.
one_try() {
	local name=$1 sys=$2 iface=$3 n=$4 round=$5 f=$6 try ok rc cyc losses busy rings
	shift 6
	VHOST_EXTRA=""
	[ "$sys" != ovs ] || VHOST_EXTRA=,server=1
	for try in 1 2; do
		[ "$try" = 1 ] || echo "suite: $name again: nothing was received" >&2
		ok=0 cyc=null busy=null rings=null
		if dut_start "$sys" "$iface" "$n"; then
			if [ "$sys" = testpmd ] && [[ " $* " != *" --ndr "* ]]; then
				# testpmd's counters, and so its cycles per frame, are
				# read while the generator still runs: near its end.
				bench "$iface" "$n" "$f" "$@" &
				local bpid=$!
				sleep "$(awk -v w="$WARMUP" -v d="$DURATION" 'BEGIN {print w + d * 0.9}')"
				echo "show fwd stats all" >&"$DUT_FD"
				if wait "$bpid"; then ok=1; fi
			elif [[ $sys == bridge* || $sys == xconnect* ]] && [[ " $* " != *" --ndr "* ]]; then
				rm -f "$T/gen.log"
				bench "$iface" "$n" "$f" "$@" &
				local gpid=$!
				if [ "$iface" = vhost ] &&
					wait_for 60 grep -q '^podwire-bench: measuring' "$T/gen.log"; then
					rings=$(dut_rings)
				fi
				busy=$(dut_busy_share "$T/gen.log")
				if wait "$gpid"; then ok=1; fi
			elif bench "$iface" "$n" "$f" "$@"; then
				ok=1
			fi
		fi
		losses='{}'
		if [ $ok = 1 ] && [ "$sys" != testpmd ]; then
			cyc=$(dut_cycles "$sys")
			[ "$sys" = ovs ] || losses=$(dut_tx_losses)
			[ "$sys" = ovs ] || [ "$iface" != vhost ] ||
				losses=$(jq -c --argjson r "$rings" '. + {dut_rings_active: $r}' <<<"$losses")
		fi
		rc=0
		dut_stop || rc=$?
		# testpmd's output reaches its log when it exits.
		[ $ok = 0 ] || [ "$sys" != testpmd ] || cyc=$(dut_cycles "$sys")
		# 143: ended by our SIGTERM (ovs-vswitchd's way), not a crash.
		if [ $rc -ne 0 ] && [ $rc -ne 143 ]; then
			mkdir -p "$OUT/logs"
			cp "$T/dut.log" "$OUT/logs/${name//:/_}-$sys.log"
			echo "suite: $name: the forwarder ($sys) exited with status $rc;" \
				"log: $OUT/logs/${name//:/_}-$sys.log" >&2
		fi
		[ $ok = 1 ] || return 1
		jq --argjson r "$round" --argjson c "$cyc" --argjson l "$losses" --argjson b "$busy" \
			'. + {round: $r, dut_cycles_per_frame: $c, dut_busy_share: $b} + $l' \
			"$f" >"$f.tmp" && mv "$f.tmp" "$f"
		jq -e '.rx_packets == 0' "$f" >/dev/null || return 0
	done
	return 0
}

# Cells: define NAME SYS IFACE NPODS [podwire-bench options...]; measure
# NAME... runs ROUNDS rounds, each measuring every named cell once, then
# keeps each cell's median round as cells/NAME.json (":" become "_") with
# every round's figures added as .rounds (with their round numbers, so that
# cells of one group can be compared round by round). The median is over
# received Mpps, or the NDR for a search, or p99 latency for a fixed-rate
# run; dut_cycles_per_frame is the median over rounds. A failed cell is
# recorded as an error and the suite goes on.
# PORT_OPTS set when defining a cell: more podwirectl port add options.
# QUEUES: queue pairs per pod (podwire-bench --queues, the ports' "queues");
# WORKER_CORES: podwired's --worker-cores (default: DUT_CPU); PINS: the
# ports' rxq_pins, one word per port (p0 first), "-" for none.
declare -A C_SYS C_IFACE C_N C_OPTS C_RING C_PORT_OPTS C_CAPTURE C_QUEUES C_WORKERS C_PINS
declare -A C_MIRROR C_POLICY
define() {
	C_SYS[$1]=$2 C_IFACE[$1]=$3 C_N[$1]=$4 C_OPTS[$1]="${*:5}" C_RING[$1]=${RING:-1024}
	C_PORT_OPTS[$1]=${PORT_OPTS:-} C_CAPTURE[$1]=${CAPTURE:-} C_MIRROR[$1]=${MIRROR:-} C_POLICY[$1]=${POLICY:-}
	C_QUEUES[$1]=${QUEUES:-1} C_WORKERS[$1]=${WORKER_CORES:-$DUT_CPU} C_PINS[$1]=${PINS:-}
}
measure() {
	local r name f
	for r in $(seq "$ROUNDS"); do
		for name in "$@"; do
			f=$OUT/cells/${name//:/_}.json
			echo "suite: $name (round $r of $ROUNDS)" >&2
			# shellcheck disable=SC2086
			RING=${C_RING[$name]} PORT_OPTS=${C_PORT_OPTS[$name]} \
				CAPTURE=${C_CAPTURE[$name]} MIRROR=${C_MIRROR[$name]} POLICY=${C_POLICY[$name]} QUEUES=${C_QUEUES[$name]} \
				WORKER_CORES=${C_WORKERS[$name]} PINS=${C_PINS[$name]} one_round "$name" "${C_SYS[$name]}" "${C_IFACE[$name]}" \
				"${C_N[$name]}" "$r" "$f.$r" ${C_OPTS[$name]} || rm -f "$f.$r"
		done
	done
	for name in "$@"; do finish_cell "$name" || true; done
}
finish_cell() {
	local name=$1 f=$OUT/cells/${1//:/_}.json key=.rx_mpps r files=()
	case " ${C_OPTS[$name]} " in
	*" --ndr "*) key=.ndr.ndr_pps ;;
	*" --rate "*) key=.latency_ns.p99 ;;
	esac
	for r in $(seq "$ROUNDS"); do [ ! -f "$f.$r" ] || files+=("$f.$r"); done
	if [ ${#files[@]} -eq 0 ]; then
		echo "{\"error\": \"see the suite's output\"}" >"$f"
		return 1
	fi
	jq -s --arg key "$key" '
		(sort_by(getpath($key | ltrimstr(".") | split(".")) // 0)) as $s
		| def mid: if length > 0 then .[(length - 1) / 2 | floor] else null end;
		([.[].dut_cycles_per_frame | numbers] | sort) as $c
		| ([.[].dut_busy_share | numbers] | sort) as $b
		| $s[(length - 1) / 2 | floor]
		+ {rounds: [.[] | {round, rx_mpps, p99_ns: .latency_ns.p99, ndr_pps: .ndr.ndr_pps,
				   dut_cycles_per_frame, dut_busy_share, dut_tx_full, dut_tx_retries,
				   dut_rings_active, placement_ns, attempts}],
		   median_of: $key, dut_cycles_per_frame: ($c | mid),
		   dut_busy_share: ($b | mid)}' "${files[@]}" >"$f"
	rm -f "${files[@]}"
}

# row NAME: the summary fields of one cell's JSON.
row() {
	jq -c '{mpps: (.rx_mpps // null), gbps: (.rx_gbps // null), loss: (.loss // null),
		p50_ns: (.latency_ns.p50 // null), p99_ns: (.latency_ns.p99 // null),
		offered_pps: (.offered_pps // null), ndr: (.ndr // null), error: (.error // null),
		dut_cycles_per_frame: (.dut_cycles_per_frame // null),
		dut_busy_share: (.dut_busy_share // null),
		dut_tx_full: (.dut_tx_full // null), dut_tx_retries: (.dut_tx_retries // null),
		dut_rings_active: (.dut_rings_active // null), rounds: (.rounds // [])}' \
		"$OUT/cells/${1//:/_}.json"
}

RESULTS=$T/results.jsonl # one line per cell: {part, ...keys, ...row}
record() { # PART KEYS-JSON CELL
	jq -c --arg part "$1" --argjson k "$2" --argjson r "$(row "$3")" \
		-n '{part: $part} + $k + $r' >>"$RESULTS"
}
: >"$RESULTS"
# How much of each core the machine takes away (interrupts, other tasks,
# the hypervisor): 1 s of podwire-jitter on each, before anything runs.
JITTER=$T/jitter.jsonl
: >"$JITTER"
for cpu in "$GEN_CPU" "$DUT_CPU"; do
	"$BUILD/podwire-jitter" "$cpu" 1 >>"$JITTER" 2>/dev/null || echo "{\"cpu\": $cpu, \"error\": \"podwire-jitter failed\"}" >>"$JITTER"
done
OVS_NOTE=""
OVS=0
if ! ovs_installed; then
	OVS_NOTE="ovs: skipped, openvswitch-switch-dpdk is not installed (apt-get install openvswitch-switch-dpdk)"
else
	OVS=1
	OVS_NOTE="ovs: ovs-vswitchd-dpdk $(ovs-vsctl --version | sed -n '1s/.* //p'), NORMAL action, dpdkvhostuserclient ports"
fi
OVS_WANTED=0
for size in $SIZES; do want "ovs:$size" && OVS_WANTED=1; done
[ $OVS_WANTED = 1 ] || OVS_NOTE=""

# ---- 1. main comparison (OVS joins the vhost-user groups) -------------------
# One group per interface and frame size: its systems are interleaved.
# bridge-librte and xconnect-librte (vhost-user only): this podwired with its
# ports' "rings" at librte, librte_vhost's data path (the default), beside its
# own rings (bridge and xconnect, "rings" podwire) in the same rounds; a build whose podwirectl does not know
# --rings has only the one path, and those cells are skipped, said once.
LIBRTE_SYS="bridge-librte xconnect-librte"
# (Asked with a socket nobody serves: an option podwirectl does not know is
# refused before it connects.)
if grep -q 'unknown port add option "--rings"' <<<"$("$BUILD/podwirectl" --socket "$T/none" \
	port add x --network bench --type vhost-user --rings librte 2>&1)"; then
	LIBRTE_SYS=""
	for size in $SIZES; do
		if want "main:vhost:bridge-librte:$size" || want "main:vhost:xconnect-librte:$size"; then
			echo "suite: main:vhost:*-librte cells skipped: $BUILD/podwirectl port add" \
				"does not know --rings (a build before the vhost-user ports' rings field)" >&2
			break
		fi
	done
fi
for iface in vhost memif; do
	for size in $SIZES; do
		group=()
		for sys in testpmd bridge xconnect $([ "$iface" != vhost ] || echo "$LIBRTE_SYS") \
			${BASE_BUILD:+bridge-base xconnect-base} ovs; do
			name=main:$iface:$sys:$size
			[ "$sys" != ovs ] || { name=ovs:$size; [ "$iface" = vhost ] || continue; }
			want "$name" || continue
			if [ "$sys" = ovs ] && [ $OVS = 0 ]; then
				echo "suite: $OVS_NOTE" >&2
				continue
			fi
			opts=""
			[[ $sys != *-librte ]] || opts="--rings librte"
			# bridge and xconnect: podwired's own rings, asked for (librte_vhost's
			# data path is the default).
			if [ "$iface" = vhost ] && [ -n "$LIBRTE_SYS" ] &&
				[[ $sys == bridge || $sys == xconnect ]]; then
				opts="--rings podwire"
			fi
			PORT_OPTS=$opts define "$name" "$sys" "$iface" 2 --size "$size"
			group+=("$name")
		done
		[ ${#group[@]} -gt 0 ] || continue
		measure "${group[@]}"
		for name in "${group[@]}"; do
			record main "{\"iface\":\"$iface\",\"system\":\"${C_SYS[$name]}\",\"size\":$size}" "$name"
		done
	done
done

# ---- 2. scaling -------------------------------------------------------------
group=()
for n in $PODS_LIST; do
	want "scale:$n" || continue
	# Smaller rings so that 128 pods' mbufs fit in the generator's hugepages.
	RING=256 define "scale:$n" bridge vhost "$n" --size 64
	group+=("scale:$n")
done
if [ ${#group[@]} -gt 0 ]; then
	measure "${group[@]}"
	for name in "${group[@]}"; do record scale "{\"pods\":${name#scale:}}" "$name"; done
fi

# ---- 3. latency at a fraction of the NDR ------------------------------------
LAT_PCTS=""
for pct in 10 50 90; do want "latency:$pct" && LAT_PCTS+=" $pct"; done
if [ -n "$LAT_PCTS" ]; then
	define latency:ndr bridge vhost 2 --size 64 --ndr --trial "$TRIAL" --resolution "$RESOLUTION"
	measure latency:ndr
	ndr=$(jq -r '.ndr.ndr_pps // 0' "$OUT/cells/latency_ndr.json")
	record latency '{"pct":100}' latency:ndr
	# podwired and, at the same rate, testpmd io: the zero-work forwarder
	# shows what the machine itself adds (see machine.jitter).
	group=()
	declare -A RATE
	for pct in $LAT_PCTS; do
		rate=$(awk -v n="$ndr" -v p="$pct" 'BEGIN {printf "%.0f", n * p / 100}')
		RATE[$pct]=$rate
		if [ "$rate" -gt 0 ]; then
			define "latency:$pct" bridge vhost 2 --size 64 --rate "$rate"
			define "latency:$pct:testpmd" testpmd vhost 2 --size 64 --rate "$rate"
			group+=("latency:$pct" "latency:$pct:testpmd")
		else
			echo '{"error": "no NDR"}' >"$OUT/cells/latency_$pct.json"
			echo '{"error": "no NDR"}' >"$OUT/cells/latency_${pct}_testpmd.json"
		fi
	done
	[ ${#group[@]} -eq 0 ] || measure "${group[@]}"
	for pct in $LAT_PCTS; do
		rate=${RATE[$pct]}
		tp=$(jq -c '{testpmd_p50_ns: (.latency_ns.p50 // null), testpmd_p99_ns: (.latency_ns.p99 // null)}' \
			"$OUT/cells/latency_${pct}_testpmd.json")
		record latency "$(jq -c -n --argjson t "$tp" "{pct: $pct, rate_pps: $rate} + \$t")" "latency:$pct"
	done
fi

# ---- 5. tx retries ------------------------------------------------------------
# The same cell with the ports' tx_retries at 0 and at the default 8.
group=()
for n in 0 8; do
	want "retries:$n" || continue
	PORT_OPTS="--tx-retries $n" define "retries:$n" bridge vhost 2 --size 64
	group+=("retries:$n")
done
if [ ${#group[@]} -gt 0 ]; then
	measure "${group[@]}"
	for name in "${group[@]}"; do record retries "{\"tx_retries\":${name#retries:}}" "$name"; done
fi

# ---- 6. capture ----------------------------------------------------------------
# The same cell without a capture and with one of its two ports captured
# (both directions, every frame copied to the capture's ring).
group=()
for c in off on; do
	want "capture:$c" || continue
	CAPTURE=$([ $c = on ] && echo "--direction both" || true) define "capture:$c" bridge vhost 2 --size 64
	group+=("capture:$c")
done
if [ ${#group[@]} -gt 0 ]; then
	measure "${group[@]}"
	for name in "${group[@]}"; do record capture "{\"capture\":\"${name#capture:}\"}" "$name"; done
fi

# ---- 7. queues per pod, workers --------------------------------------------------
# The same two memif pods with 1 or 2 queue pairs each, on one worker (core
# 1) or two (cores 0 and 1: worker 0 shares core 0 with the generator and
# the control thread). With one worker, what a second queue costs: one
# more ring polled per pod, frames of both delivered on the worker's own
# ring. With two, each worker polls one rx queue of each pod (2q: podwired's
# own placement, queue 0 on the first worker, queue 1 on the second; 1q:
# pinned, p0's queue on core 1, p1's on core 0, since podwired would put
# both queue 0s on the first worker). See perf/README.md for what the
# figures can and cannot say. QUEUES_RING (environment): the pods' ring
# size in this part (default 1024), to see how much of a difference is the
# rings' footprint in the cache. QUEUES_IFACE=vhost: the same with
# virtio-user pods (queues=N) on vhost-user ports.
group=()
for w in 1 2; do
	for q in 1 2; do
		want "queues:${w}w:${q}q" || continue
		RING=${QUEUES_RING:-1024} QUEUES=$q \
			WORKER_CORES=$([ $w = 1 ] && echo "$DUT_CPU" || echo "$GEN_CPU,$DUT_CPU") \
			PINS=$([ "$w$q" = 21 ] && echo "0:$DUT_CPU 0:$GEN_CPU" || true) \
			define "queues:${w}w:${q}q" bridge "${QUEUES_IFACE:-memif}" 2 --size 64
		group+=("queues:${w}w:${q}q")
	done
done
if [ ${#group[@]} -gt 0 ]; then
	measure "${group[@]}"
	for name in "${group[@]}"; do
		w=${name#queues:}
		record queues "{\"workers\":${w%%w:*},\"queues\":${C_QUEUES[$name]}}" "$name"
	done
fi

# ---- 8. mirror -----------------------------------------------------------------
# The same two pods and a null port, without a mirror and with p0 mirrored
# (both directions) to the null port: every frame is copied once (an mbuf copy on
# vhost-user, an mbuf made from the frame on memif), so the difference in
# cycles per frame is the mirror's cost per mirrored frame.
for ifc in vhost memif; do
	group=()
	for c in off on; do
		want "mirror:$ifc:$c" || continue
		MIRROR=$c define "mirror:$ifc:$c" bridge $ifc 2 --size 64
		group+=("mirror:$ifc:$c")
	done
	if [ ${#group[@]} -gt 0 ]; then
		measure "${group[@]}"
		for name in "${group[@]}"; do
			record mirror "{\"iface\":\"$ifc\",\"mirror\":\"${name##*:}\"}" "$name"
		done
	fi
done

# ---- 9. policy ------------------------------------------------------------------
# The same two pods with no policy and with each kind of policy on both
# ports' ingress, interleaved: the difference in cycles per frame is what
# the policy costs per frame (every frame meets it once).
for ifc in vhost memif; do
	group=()
	for k in none policer acl10 acl1000 acl10000 reflect; do
		want "policy:$ifc:$k" || continue
		flows=()
		[ $k != reflect ] || flows=(--flows 50000)
		POLICY=$k define "policy:$ifc:$k" bridge $ifc 2 --size 64 "${flows[@]}"
		group+=("policy:$ifc:$k")
	done
	if [ ${#group[@]} -gt 0 ]; then
		measure "${group[@]}"
		for name in "${group[@]}"; do
			record policy "{\"iface\":\"$ifc\",\"policy\":\"${name##*:}\"}" "$name"
		done
	fi
done

# ---- summary ----------------------------------------------------------------
# Ratios pair rounds: the median over rounds of this cell's figure over the
# other cell's figure in the same round (throughput: Mpps; efficiency:
# the other's cycles per frame over this one's, so > 1 is better).
jq -s --arg note "$OVS_NOTE" --arg host "$(hostname)" --arg date "$(date -u +%FT%TZ)" \
	--argjson dur "$DURATION" --argjson quick "$QUICK" --argjson rounds "$ROUNDS" \
	--arg virtio "$VIRTIO" --arg memif_gen "$MEMIF_GEN" --arg vhost_gen "$VHOST_GEN" --slurpfile jitter "$JITTER" '
	def median: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def paired($a; $b; f): [$a.rounds[]? as $x | $b.rounds[]? | select(.round == $x.round)
		| [($x | f), (. | f)] | select(.[0] != null and .[1] != null and .[1] > 0)
		| .[0] / .[1]] | median;
	def speed($a; $b): if $a == null or $b == null then null else paired($a; $b; .rx_mpps) end;
	def eff($a; $b): if $a == null or $b == null then null
		else paired($b; $a; .dut_cycles_per_frame) end;
	def cycles($a; $b): if $a == null or $b == null then null
		else paired($a; $b; .dut_cycles_per_frame) end;
	(map(select(.part == "main"))) as $m
	| def pick($iface; $size; $sys): [$m[] | select(.iface == $iface and .size == $size
		and .system == $sys)] | first;
	{date: $date, host: $host, quick: ($quick == 1), duration_s: $dur, rounds: $rounds,
	   virtio: $virtio, memif_generator: $memif_gen, vhost_generator: $vhost_gen, cores: {generator: 0, forwarder: 1}, machine: {jitter: $jitter},
	   main: [$m[] | . as $r | pick($r.iface; $r.size; "testpmd") as $base
		| $r + {ratio_to_testpmd: speed($r; $base), efficiency_to_testpmd: eff($r; $base)}],
	   scaling: ([.[] | select(.part == "scale") | del(.part)] as $sc
		| ([$sc[] | select(.pods == 2)] | first) as $two
		| [$sc[] | . + {ratio_to_2_pods: speed(.; $two),
			cycles_ratio_to_2_pods: cycles(.; $two)}]),
	   baseline: [$m[] | select(.system | endswith("-base")) | . as $b
		| pick($b.iface; $b.size; $b.system | rtrimstr("-base")) as $x
		| {iface, size, system: $x.system, ratio: speed($x; $b), efficiency: eff($x; $b)}],
	   rings: [$m[] | select(.system | endswith("-librte")) | . as $l
		| pick($l.iface; $l.size; $l.system | rtrimstr("-librte")) as $x
		| {iface, size, system: $x.system, rings_active: $x.dut_rings_active,
		   librte_rings_active: $l.dut_rings_active, ratio: speed($x; $l),
		   efficiency: eff($x; $l)}],
	   latency: [.[] | select(.part == "latency") | del(.part)],
	   capture: ([.[] | select(.part == "capture") | del(.part)] as $cp
		| ([$cp[] | select(.capture == "off")] | first) as $off
		| [$cp[] | . + {ratio_to_off: speed(.; $off), efficiency_to_off: eff(.; $off)}]),
	   mirror: ([.[] | select(.part == "mirror") | del(.part)] as $mi
		| [$mi[] | . as $r | ([$mi[] | select(.iface == $r.iface and .mirror == "off")]
			| first) as $off | . + {ratio_to_off: speed(.; $off),
			efficiency_to_off: eff(.; $off), cycles_per_mirrored_frame:
			(if $off == null or .dut_cycles_per_frame == null
				or $off.dut_cycles_per_frame == null then null
			 else .dut_cycles_per_frame - $off.dut_cycles_per_frame end)}]),
	   policy: ([.[] | select(.part == "policy") | del(.part)] as $po
		| [$po[] | . as $r | ([$po[] | select(.iface == $r.iface and .policy == "none")]
			| first) as $none | . + {ratio_to_none: speed(.; $none),
			efficiency_to_none: eff(.; $none), extra_cycles_per_frame:
			(if $none == null or .dut_cycles_per_frame == null
				or $none.dut_cycles_per_frame == null then null
			 else .dut_cycles_per_frame - $none.dut_cycles_per_frame end)}]),
	   queues: ([.[] | select(.part == "queues") | del(.part)] as $qs
		| ([$qs[] | select(.workers == 1 and .queues == 1)] | first) as $one
		| [$qs[] | . + {ratio_to_1w_1q: speed(.; $one), efficiency_to_1w_1q: eff(.; $one)}]),
	   retries: ([.[] | select(.part == "retries") | del(.part)] as $rt
		| ([$rt[] | select(.tx_retries == 0)] | first) as $none
		| [$rt[] | . + {ratio_to_no_retries: speed(.; $none),
				efficiency_to_no_retries: eff(.; $none)}]),
	   ovs: {skipped: ($note | startswith("ovs: skipped") or . == ""), note: $note,
		 bridge_over_ovs: [$m[] | select(.system == "ovs") | . as $o
			| pick("vhost"; $o.size; "bridge") as $b
			| {size: .size, ratio: speed($b; $o), efficiency: eff($b; $o)}]}}' \
	"$RESULTS" >"$OUT/summary.json"

jq -e '.main | length > 0' "$OUT/summary.json" >/dev/null &&
	printf '\n%-6s %-15s %5s %8s %7s %8s %7s %7s %7s %5s %6s %6s\n' IFACE SYSTEM SIZE MPPS GBIT/S \
		LOSS P50-US P99-US CYC/FR BUSY RATIO EFF
jq -r '.main[] | [.iface, .system, .size, (.mpps // "err"), (.gbps // "-"), (.loss // "-"),
	(.p50_ns // "-"), (.p99_ns // "-"), (.dut_cycles_per_frame // "-"),
	(if .dut_busy_share then .dut_busy_share * 100 else "-" end),
	(.ratio_to_testpmd // "-"), (.efficiency_to_testpmd // "-")] | @tsv' "$OUT/summary.json" |
	awk -F'\t' '
	# f(value, width, precision, divisor): a number formatted, anything else as is.
	function f(v, w, p, d) { return v ~ /^-?[0-9]/ ? sprintf("%" w "." p "f", v / d) : sprintf("%" w "s", v) }
	function pct(v) { return v ~ /^[0-9]/ ? sprintf("%4.0f%%", v) : sprintf("%5s", v) }
	{ printf "%-6s %-15s %5s %s %s %s %s %s %s %s %s %s\n", $1, $2, $3, f($4, 8, 3, 1),
		f($5, 7, 3, 1), f($6, 8, 5, 1), f($7, 7, 2, 1000), f($8, 7, 2, 1000), f($9, 7, 0, 1),
		pct($10), f($11, 6, 2, 1), f($12, 6, 2, 1) }'
jq -r '.ovs.bridge_over_ovs[] | "\(.size) \(.ratio // "-") \(.efficiency // "-")"' "$OUT/summary.json" |
	while read -r a b c; do
		awk -v a="$a" -v b="$b" -v c="$c" 'function f(v) { return v ~ /^[0-9]/ ? sprintf("%.2f", v) : v }
			BEGIN { printf "podwired bridge / OVS, %s B: throughput %s, efficiency %s\n", a, f(b), f(c) }'
	done
jq -r '.baseline[] | "\(.iface) \(.system) \(.size) \(.ratio // "-") \(.efficiency // "-")"' \
	"$OUT/summary.json" | while read -r a b c d e; do
	awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v e="$e" -v base="$BASE_BUILD" '
		function f(v) { return v ~ /^[0-9]/ ? sprintf("%.2f", v) : v }
		BEGIN { printf "%s %s %s B, this build / %s: throughput %s, efficiency %s\n", a, b, c,
			base, f(d), f(e) }'
done
jq -r '.rings[] | "\(.iface) \(.system) \(.size) \(.ratio // "-") \(.efficiency // "-") \(.rings_active // "-")"' \
	"$OUT/summary.json" | while read -r a b c d e g; do
	awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v e="$e" -v g="$g" '
		function f(v) { return v ~ /^[0-9]/ ? sprintf("%.2f", v) : v }
		BEGIN { printf "%s %s %s B, own rings / librte_vhost'"'"'s: throughput %s, efficiency %s%s\n",
			a, b, c, f(d), f(e), g == "-" ? "" : " (rings_active: " g ")" }'
done
if jq -e '.scaling | length > 0' "$OUT/summary.json" >/dev/null; then
	# MPPS-VS-2 and CYC-VS-2: medians of round-by-round ratios to the 2-pod
	# cell (aggregate Mpps; cycles per frame, where the issue's targets are).
	printf '\nscaling (podwired bridge, vhost-user, 64 B, one worker)\n%6s %8s %8s %7s %5s %9s %9s\n' \
		PODS MPPS LOSS CYC/FR BUSY MPPS-VS-2 CYC-VS-2
	jq -r '.scaling[] | [.pods, (.mpps // "-"), (.loss // "-"), (.dut_cycles_per_frame // "-"),
		(if .dut_busy_share then .dut_busy_share * 100 else "-" end),
		(.ratio_to_2_pods // "-"), (.cycles_ratio_to_2_pods // "-")] | @tsv' "$OUT/summary.json" |
		awk -F'\t' 'function f(v, w, p) { return v ~ /^-?[0-9]/ ? sprintf("%" w "." p "f", v) : sprintf("%" w "s", v) }
		{ printf "%6s %s %s %s %s %s %s\n", $1, f($2, 8, 3), f($3, 8, 5), f($4, 7, 0),
			($5 ~ /^[0-9]/ ? sprintf("%4.0f%%", $5) : sprintf("%5s", $5)), f($6, 9, 3), f($7, 9, 3) }'
	# pods, Mpps, cycles per frame (0: not read)
	jq -r '.scaling[] | select(.mpps != null) | "\(.pods) \(.mpps) \(.dut_cycles_per_frame // 0)"' \
		"$OUT/summary.json" >"$OUT/scaling.dat"
	if command -v gnuplot >/dev/null; then
		gnuplot -e "set terminal png size 800,500; set output '$OUT/scaling.png';
			set logscale x 2; set xlabel 'pods'; set ylabel 'aggregate Mpps';
			set y2label 'forwarder cycles per frame'; set ytics nomirror; set y2tics;
			set yrange [0:*]; set y2range [0:*]; set key bottom left;
			set title 'podwired bridge, vhost-user, 64 B, one worker';
			plot '$OUT/scaling.dat' using 1:2 axes x1y1 with linespoints title 'Mpps',
			     '' using 1:(\$3 > 0 ? \$3 : NaN) axes x1y2 with linespoints title 'cycles/frame'" ||
			echo "(no plot: gnuplot failed; data in $OUT/scaling.dat)"
	else
		echo "(no plot: gnuplot is not installed; apt-get install gnuplot-nox, data in $OUT/scaling.dat)"
	fi
fi
if jq -e '.latency | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\nlatency (podwired bridge, vhost-user, 64 B; testpmd io at the same rate)\n%8s %10s %8s %8s %9s %11s %11s\n' \
		%NDR RATE-MPPS P50-US P99-US LOSS TP-P50-US TP-P99-US
	jq -r '.latency[] | "\(.pct) \((.rate_pps // .ndr.ndr_pps // 0) / 1e6) \((.p50_ns // 0) / 1000) \((.p99_ns // 0) / 1000) \(.loss // 0) \(.testpmd_p50_ns // -1000) \(.testpmd_p99_ns // -1000)"' \
		"$OUT/summary.json" | while read -r a b c d e f g; do
		printf '%8s %10.3f %8.2f %8.2f %9.5f %11s %11s\n' "$a" "$b" "$c" "$d" "$e" \
			"$(awk -v v="$f" 'BEGIN { print v < 0 ? "-" : sprintf("%.2f", v / 1000) }')" \
			"$(awk -v v="$g" 'BEGIN { print v < 0 ? "-" : sprintf("%.2f", v / 1000) }')"
	done
	jq -r '.machine.jitter[] | select(.stalled_fraction != null) | "core \(.cpu): \(.gaps_over_20us) gaps over 20 us in \(.seconds) s, \(.stalled_fraction * 1000 | round / 10)% of the time taken away, longest \(.max_gap_us) us"' \
		"$OUT/summary.json" | sed 's/^/machine (podwire-jitter): /'
	jq -e '.latency[] | select(.pct == 100) | .ndr.ndr_loss > 0' "$OUT/summary.json" \
		>/dev/null 2>&1 && echo "(the search found no zero-loss rate: the NDR row is its" \
		"lowest trial rate, so the percentages are of that rate, not of an NDR)"
fi
if jq -e '.retries | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\ntx retries (podwired bridge, vhost-user, 64 B, 2 pods)\n%10s %8s %8s %7s %12s %12s %6s %6s\n' \
		TX-RETRIES MPPS LOSS CYC/FR TX-FULL RETRIED RATIO EFF
	jq -r '.retries[] | [.tx_retries, (.mpps // 0), (.loss // 0), (.dut_cycles_per_frame // 0),
		(.dut_tx_full // "-"), (.dut_tx_retries // "-"), (.ratio_to_no_retries // "-"),
		(.efficiency_to_no_retries // "-")] | @tsv' "$OUT/summary.json" |
		awk -F'\t' 'function f(v, p) { return v ~ /^[0-9]/ ? sprintf("%." p "f", v) : v }
		{ printf "%10s %8.3f %8.5f %7.0f %12s %12s %6s %6s\n", $1, $2, $3, $4, $5, $6,
			f($7, 2), f($8, 2) }'
fi
if jq -e '.capture | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\ncapture (podwired bridge, vhost-user, 64 B, 2 pods; on: p0 captured, both directions)\n%8s %8s %8s %7s %6s %6s\n' \
		CAPTURE MPPS LOSS CYC/FR RATIO EFF
	jq -r '.capture[] | [.capture, (.mpps // 0), (.loss // 0), (.dut_cycles_per_frame // 0),
		(.ratio_to_off // "-"), (.efficiency_to_off // "-")] | @tsv' "$OUT/summary.json" |
		awk -F'\t' 'function f(v, p) { return v ~ /^[0-9]/ ? sprintf("%." p "f", v) : v }
		{ printf "%8s %8.3f %8.5f %7.0f %6s %6s\n", $1, $2, $3, $4, f($5, 2), f($6, 2) }'
fi
if jq -e '.policy | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\npolicy (podwired bridge, 64 B, 2 pods; the policy on both ports'"'"' ingress)\n%6s %9s %8s %8s %7s %6s %6s %8s\n' \
		IFACE POLICY MPPS LOSS CYC/FR RATIO EFF +CYC/FR
	jq -r '.policy[] | [.iface, .policy, (.mpps // 0), (.loss // 0), (.dut_cycles_per_frame // 0),
		(.ratio_to_none // 0), (.efficiency_to_none // 0),
		(.extra_cycles_per_frame // "-")] | @tsv' "$OUT/summary.json" |
		awk -F'\t' 'function f(v, p) { return v ~ /^-?[0-9]/ ? sprintf("%." p "f", v) : v }
		{ printf "%6s %9s %8.3f %8.5f %7.0f %6s %6s %8s\n", $1, $2, $3, $4, $5, f($6, 2),
			f($7, 2), f($8, 0) }'
fi
if jq -e '.mirror | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\nmirror (podwired bridge, 64 B, 2 pods; on: p0 mirrored, both directions, to a null port)\n%6s %6s %8s %8s %7s %6s %6s %8s\n' \
		IFACE MIRROR MPPS LOSS CYC/FR RATIO EFF +CYC/FR
	jq -r '.mirror[] | [.iface, .mirror, (.mpps // 0), (.loss // 0), (.dut_cycles_per_frame // 0),
		(.ratio_to_off // "-"), (.efficiency_to_off // "-"),
		(.cycles_per_mirrored_frame // "-")] | @tsv' "$OUT/summary.json" |
		awk -F'\t' 'function f(v, p) { return v ~ /^-?[0-9]/ ? sprintf("%." p "f", v) : v }
		{ printf "%6s %6s %8.3f %8.5f %7.0f %6s %6s %8s\n", $1, $2, $3, $4, $5, f($6, 2),
			f($7, 2), f($8, 0) }'
fi
if jq -e '.queues | length > 0' "$OUT/summary.json" >/dev/null; then
	printf '\nqueues (podwired bridge, memif, 64 B, 2 pods; against 1 worker, 1 queue)\n%8s %7s %8s %8s %7s %5s %6s %6s\n' \
		WORKERS QUEUES MPPS LOSS CYC/FR BUSY RATIO EFF
	jq -r '.queues[] | [.workers, .queues, (.mpps // 0), (.loss // 0), (.dut_cycles_per_frame // 0),
		(if .dut_busy_share then .dut_busy_share * 100 else "-" end),
		(.ratio_to_1w_1q // "-"), (.efficiency_to_1w_1q // "-")] | @tsv' "$OUT/summary.json" |
		awk -F'\t' 'function f(v, p) { return v ~ /^[0-9]/ ? sprintf("%." p "f", v) : v }
		{ printf "%8s %7s %8.3f %8.5f %7.0f %5s %6s %6s\n", $1, $2, $3, $4, $5,
			($6 ~ /^[0-9]/ ? sprintf("%4.0f%%", $6) : $6), f($7, 3), f($8, 3) }'
	echo "(CYC/FR with two workers: both workers' busy cycles over the frames; BUSY: their busy share together)"
fi
[ -z "$OVS_NOTE" ] || echo "$OVS_NOTE"
echo "(virtio rings: $VIRTIO; memif generator: $MEMIF_GEN; vhost generator: $VHOST_GEN; $ROUNDS interleaved rounds of ${DURATION}s; MPPS, P50, P99: the median round;"
echo " CYC/FR: the forwarder's busy cycles per frame; BUSY: the share of the measured window podwired's"
echo " worker spent moving frames (below 100%: the generator set the pace); RATIO and EFF: medians of round-by-round"
echo " ratios of MPPS and of testpmd's CYC/FR over this one's, both against testpmd)"
jq -rs --argjson m "$PLACEMENT_NS" '[.[].rounds[]? | select(.attempts != null)] as $r
	| "placement: \($r | length) rounds probed, \([$r[] | select(.attempts > 1)] | length) measured again after a probe found the",
	  " vCPUs in their slow placement, \([$r[] | select(.placement_ns | .before > $m or .after > $m)] | length) kept from the slow placement"' \
	"$OUT"/cells/*.json 2>/dev/null || true
echo "results: $OUT/summary.json"
