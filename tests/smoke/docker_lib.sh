# Sourced after lib.sh by the Docker driver's smoke tests: a real dockerd
# (Debian's docker.io) with its own data root, exec root and socket, the
# driver podwire-docker on /run/docker/plugins/podwire.sock (where dockerd
# looks for plugins), and podwire's images (docker/images.sh). Everything
# is stopped by PID and removed on exit.

PODWIRE_DOCKER=$BUILD/podwire-docker
DOCKER_BIN=/usr/bin/docker
PLUGIN_SOCK=${PLUGIN_SOCK:-/run/docker/plugins/podwire.sock}
DK_SOCK=$T/docker.sock
DK_DATA=$T/dk-data
# containerd's sockets live under the exec root: keep it short.
DK_EXEC=$T/x
# DPDK containers' directories on the host; containers mount it here.
DK_SOCKDIR=$T/dks
DK_CONTAINER_SOCKDIR=/run/podwire/docker
DOCKERD_PID="" DRIVER_PID=""

[ -x "$PODWIRE_DOCKER" ] || fail "$PODWIRE_DOCKER is not built; run: ninja -C $BUILD"
command -v dockerd >/dev/null || skip "dockerd is not installed (apt-get install docker.io)"
[ -x "$DOCKER_BIN" ] || skip "$DOCKER_BIN is not installed (apt-get install docker.io)"

dk() { "$DOCKER_BIN" -H "unix://$DK_SOCK" "$@"; }

# The host interfaces the driver names (pwd/pwc/pwp/pwq + endpoint id).
# Those already there when this test began are not its own: a test killed
# by its timeout leaves its own behind, and they must not fail the next
# test's "left behind" check (they are reported, not removed: another run
# on this host may own them).
dk_ifaces() {
	ip -o link show | { grep -oE ': (pwd|pwc|pwp|pwq)[0-9a-f]{8,12}[@:]' || true; } |
		tr -d ' :@' | sort -u
}
DK_IFACES_BEFORE=$(dk_ifaces)
[ -z "$DK_IFACES_BEFORE" ] ||
	log "note: $(echo "$DK_IFACES_BEFORE" | wc -l) driver interface(s) from an earlier run are here; not counted as this test's"

# dockerd_start [dockerd options...]: returns when the API answers.
dockerd_start() {
	mkdir -p "$DK_DATA" "$DK_EXEC"
	dockerd --data-root "$DK_DATA" --exec-root "$DK_EXEC" -H "unix://$DK_SOCK" \
		--pidfile "$T/dockerd.pid" --bridge none --iptables=false --ip-forward=false \
		"$@" >>"$T/dockerd.log" 2>&1 &
	DOCKERD_PID=$!
	wait_for 60 "dockerd to answer" dk version
}

# dockerd_stop [KILL]: TERM (a clean stop) or KILL (a crash), and wait.
dockerd_stop() {
	[ -n "$DOCKERD_PID" ] || return 0
	if [ "${1:-}" = KILL ]; then
		kill -KILL "$DOCKERD_PID" 2>/dev/null || true
	else
		kill -TERM "$DOCKERD_PID" 2>/dev/null || true
	fi
	local i
	for i in $(seq 300); do
		kill -0 "$DOCKERD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$DOCKERD_PID" 2>/dev/null || true
	wait "$DOCKERD_PID" 2>/dev/null || true
	DOCKERD_PID=""
	# A crashed dockerd's containerd dies with it (parent-death signal) but
	# may stay a zombie (this machine's init reaps late); the next dockerd
	# would take it for alive and wait for its socket forever.
	local pidf=$DK_EXEC/containerd/containerd.pid cpid
	if [ -f "$pidf" ]; then
		cpid=$(cat "$pidf")
		wait_for 10 "containerd $cpid to end" _dead_or_zombie "$cpid"
		rm -f "$pidf"
	fi
}
_dead_or_zombie() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }

# driver_start [podwire-docker options...]: returns when dockerd could
# reach it (the socket answers Plugin.Activate).
driver_start() {
	# DRIVER_WRAP (word-split), e.g. "gdb -batch -ex run -ex bt --args", to debug.
	${DRIVER_WRAP:-} "$PODWIRE_DOCKER" --socket "$PLUGIN_SOCK" --podwired-socket "$T/pw.sock" \
		--state-dir "$T/dk-state" --socket-dir "$DK_SOCKDIR" \
		--container-socket-dir "$DK_CONTAINER_SOCKDIR" --gc-interval 1 --verbose "$@" \
		>>"$T/driver.log" 2>&1 &
	DRIVER_PID=$!
	wait_for 20 "podwire-docker to answer" plugin_call Plugin.Activate ''
}

driver_stop() {
	[ -n "$DRIVER_PID" ] || return 0
	_stop_pid "$DRIVER_PID"
	wait "$DRIVER_PID" 2>/dev/null || true
	DRIVER_PID=""
}

driver_kill() {
	kill -KILL "$DRIVER_PID" 2>/dev/null || true
	wait "$DRIVER_PID" 2>/dev/null || true
	DRIVER_PID=""
}

# plugin_call CALL BODY: POSTs BODY to the driver as dockerd does (no
# Content-Type); prints the body, then the HTTP status on its own line.
plugin_call() {
	curl -sS --max-time 20 --unix-socket "$PLUGIN_SOCK" -H 'Content-Type:' -H 'Accept:' \
		-X POST --data-binary "$2" -w '\n%{http_code}\n' "http://localhost/$1"
}

# images NAME...: podwire's images in this dockerd.
images() {
	bash "$ROOT/docker/images.sh" --docker "$DOCKER_BIN -H unix://$DK_SOCK" --build "$BUILD" "$@"
}

# The container's IPv4 address / MAC on NETWORK.
ct_ip() { dk inspect -f "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" "$1"; }
ct_mac() { dk inspect -f "{{(index .NetworkSettings.Networks \"$2\").MacAddress}}" "$1"; }
# The podwired port of container CT on NETWORK.
ct_port() {
	echo "docker-$(dk inspect -f "{{(index .NetworkSettings.Networks \"$2\").EndpointID}}" "$1" | cut -c1-12)"
}
# A busybox container (podwire/net) on NETWORK, idle: ct_run NAME NETWORK [docker run options]
ct_run() {
	local name=$1 net=$2
	shift 2
	dk run -d --name "$name" --network "$net" "$@" podwire/net sleep 100000 >/dev/null
}

# What the driver leaves on the node: podwired ports named docker-*,
# interfaces pwd*/pwc*/pwp*/pwq*, endpoint directories, state entries.
leftovers() {
	local ports ifs dirs eps
	ports=$(ctlj pw port list | jq -r '.ports[].name | select(startswith("docker-"))' | wc -l)
	ifs=$(comm -13 <(echo "$DK_IFACES_BEFORE") <(dk_ifaces) | grep -c . || true)
	dirs=$(find "$DK_SOCKDIR" -mindepth 1 2>/dev/null | wc -l)
	eps=$(jq '.endpoints | length' "$T/dk-state/state.json" 2>/dev/null || echo 0)
	echo "ports=$ports ifaces=$ifs dirs=$dirs endpoints=$eps"
}

_docker_cleanup() {
	set +e
	if [ -n "$DOCKERD_PID" ]; then
		# shellcheck disable=SC2046
		dk rm -f $(dk ps -aq) >/dev/null 2>&1
		dockerd_stop
	fi
	driver_stop
	# Container shims of a dockerd that could not stop them (by PID: the
	# ones serving this test's containerd socket).
	ps -eo pid=,args= | grep "containerd-shim.*-address $DK_EXEC/" | grep -v grep |
		while read -r pid _; do
			for child in $(ps -o pid= --ppid "$pid"); do kill -KILL "$child"; done
			kill -KILL "$pid"
		done
	# dockerd unmounts on a clean stop; a crashed one may leave mounts.
	grep -E " ($DK_DATA|$DK_EXEC)[/ ]" /proc/mounts | awk '{print $2}' | sort -r |
		while read -r m; do umount -l "$m"; done
	# Our own interfaces only (the names carry this run's endpoints).
	ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E '^pw[dcpq][0-9a-f]{8,12}$' |
		while read -r i; do
			case "$(cat /sys/class/net/"$i"/ifalias 2>/dev/null)" in
			podwire*) ip link del "$i" 2>/dev/null ;;
			esac
		done
	[ -S "$PLUGIN_SOCK" ] && [ -z "$DRIVER_PID" ] && rm -f "$PLUGIN_SOCK"
}

_dk_exit() {
	local rc=$1
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		echo "---- podwire-docker log tail"
		tail -n 40 "$T/driver.log" 2>/dev/null
		echo "---- dockerd log tail"
		tail -n 20 "$T/dockerd.log" 2>/dev/null
		if [ -n "$DOCKERD_PID" ]; then
			for c in $(dk ps -aq 2>/dev/null); do
				echo "---- container $(dk inspect -f '{{.Name}} {{.State.Status}}' "$c"): log tail"
				dk logs --tail 15 "$c" 2>&1
			done
		fi
	fi
	_docker_cleanup
}
on_exit _dk_exit

# docker_setup: podwired "pw", the driver, dockerd, and images (NAME...).
docker_setup() {
	daemon_start pw
	mkdir -p "$DK_SOCKDIR"
	driver_start
	dockerd_start
	images "$@" >/dev/null
}

# ---- kernel containers: offloads and captures --------------------------------

# ct_pid CONTAINER: its first process, whose network namespace nsenter enters.
ct_pid() { dk inspect -f '{{.State.Pid}}' "$1"; }

# in_ns WHERE COMMAND...: COMMAND in the network namespace WHERE names: a
# PID's, ns:NAME (ip netns), or - (the host's).
in_ns() {
	local where=$1
	shift
	case $where in
	-) "$@" ;;
	ns:*) ip netns exec "${where#ns:}" "$@" ;;
	*) nsenter -t "$where" -n "$@" ;;
	esac
}

# offloads WHERE IFACE: "tx=on tso=on gso=on" of IFACE (checksum offload,
# TSO, GSO; ethtool's words) in the namespace WHERE (see in_ns).
offloads() {
	in_ns "$1" ethtool -k "$2" | awk -F': ' '
		$1 == "tx-checksumming" { t = $2 } $1 == "tcp-segmentation-offload" { s = $2 }
		$1 == "generic-segmentation-offload" { g = $2 }
		END { sub(/ .*/, "", t); sub(/ .*/, "", s); sub(/ .*/, "", g); printf "tx=%s tso=%s gso=%s\n", t, s, g }'
}

# offloads_are WANT WHERE IFACE: succeeds when IFACE's offloads (see
# offloads) are as a veth port kind that WANTs them on or off leaves them:
# on, all three; off, checksum offload and GSO (Linux 6.18's legacy ethtool
# TSO command, which podwired uses, leaves tx-tcp-accecn-segmentation on,
# and ethtool then reports TSO on; with checksum offload off it is unused).
offloads_are() {
	local got
	got=$(offloads "$2" "$3")
	case $1 in
	on) [ "$got" = "tx=on tso=on gso=on" ] ;;
	*) [ "$(sed 's/ tso=[a-z]*//' <<<"$got")" = "tx=off gso=off" ] ;;
	esac || { echo "$3: $got, not as a veth port with offloads $1 has them" >&2; return 1; }
}

# veth_offloads PORT: "on" or "off": the offloads podwired's veth port kind
# leaves on both ends of PORT's pair, by the I/O it reports: AF_XDP (and the
# net_af_packet ethdev it falls back to) takes frames as they are on the
# wire, so it turns them off; podwire's own AF_PACKET I/O with virtio-net
# headers carries super-frames and partial checksums, so it leaves them on.
veth_offloads() {
	case "$(ctlj pw port show "$1" | jq -r '.veth.driver // ""')" in
	*[xX][dD][pP]*) echo off ;;
	*) echo on ;;
	esac
}

# capture_start NAME WHERE IFACE FILTER: tshark writing $T/NAME.pcap, in
# the network namespace WHERE names: a PID's, ns:NAME (ip netns), or - (the
# host's); returns once it captures.
declare -A CAPTURE_PID=()
capture_start() {
	local name=$1 run=()
	rm -f "$T/$name.pcap"
	# A simple command, so that $! is tshark itself (nsenter and ip netns
	# exec exec it), to be signalled: not a subshell, which would not pass
	# the signal on.
	case $2 in
	-) ;;
	ns:*) run=(ip netns exec "${2#ns:}") ;;
	*) run=(nsenter -t "$2" -n) ;;
	esac
	"${run[@]}" tshark -i "$3" -f "$4" -w "$T/$name.pcap" >"$T/$name.tshark" 2>&1 &
	CAPTURE_PID[$name]=$!
	wait_for 20 "tshark on $3 to capture" grep -q "^Capturing on" "$T/$name.tshark"
}

# capture_stop NAME: lets tshark write what it has, and waits for it.
# (TERM: a background job of a script starts with SIGINT ignored.)
capture_stop() {
	sleep 0.5
	kill -TERM "${CAPTURE_PID[$1]}" 2>/dev/null || true
	wait "${CAPTURE_PID[$1]}" 2>/dev/null || true
	unset "CAPTURE_PID[$1]"
}
_capture_cleanup() { local n; for n in "${!CAPTURE_PID[@]}"; do kill -KILL "${CAPTURE_PID[$n]}" 2>/dev/null; done; }
on_exit _capture_cleanup

# snmp WHERE PROTO FIELD: a counter of /proc/net/snmp in the namespace
# WHERE (see in_ns), e.g. Udp RcvbufErrors, Tcp InCsumErrors.
snmp() {
	in_ns "$1" cat /proc/net/snmp |
		awk -v p="$2:" -v f="$3" '$1 == p { if (!h) { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1 }
			else print $c + 0 }'
}
