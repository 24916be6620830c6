#!/bin/bash
# podwired restarts, cleanly (SIGTERM) and after a crash (SIGKILL), with the
# same state dir: the same networks and ports come back with the same
# sockets, MACs (given and generated), MTUs and modes, and the pods connect
# again. Pods whose socket podwired creates are restarted, as a pod runtime
# would; the pod of a client-role vhost-user port is the socket's server,
# survives, and podwired reconnects to it.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01 # vhost-user, podwired is the server
MAC_B=02:00:00:00:0b:01 # memif with a secret, on a VLAN network
MAC_C=02:00:00:00:0c:01 # the pod's own MAC behind the client-role port
SECRET=s3cr3t
BCAST=ff:ff:ff:ff:ff:ff
STATE=$T/pw.state/state.json

VDEV_A=$(vdev_virtio "$T/a.sock" $MAC_A)
VDEV_B=$(vdev_memif "$T/b.sock" $MAC_B secret=$SECRET)
VDEV_C=$(vdev_virtio "$T/c.sock" $MAC_C server=1)
SERVER_SOCKETS="$T/a.sock $T/b.sock $T/m2.sock"

# daemon_term: SIGTERM, as daemon_stop, but podwired must exit 0 in time.
daemon_term() {
	local pid=${DAEMON_PID[pw]} rc=0
	kill -TERM "$pid"
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && fail "podwired did not exit within 10s of SIGTERM"
	wait "$pid" || rc=$?
	unset "DAEMON_PID[pw]"
	[ $rc = 0 ] || {
		tail -n 20 "$T/pw.log"
		fail "podwired exited with status $rc on SIGTERM (log tail above)"
	}
	ok "podwired exited 0 on SIGTERM"
}

# What must survive a restart: everything but the live link and worker.
config_now() {
	{
		ctlj pw network list | jq -S '.networks | sort_by(.name)'
		ctlj pw port list | jq -S '.ports | map(del(.link, .worker, .vhost_user)) | sort_by(.name)'
	}
}

check_state_file() {
	jq -e . "$STATE" >/dev/null || fail "$STATE is not valid JSON"
	expect_eq "mode of $STATE" 600 "$(stat -c %a "$STATE")"
	expect_eq "memif secret kept in $STATE" $SECRET \
		"$(jq -r '.ports[] | select(.name=="mb") | .secret' "$STATE")"
}

check_restored() {
	local now
	now=$(config_now)
	[ "$now" = "$CONFIG" ] || {
		diff <(echo "$CONFIG") <(echo "$now") || true
		fail "networks and ports after the restart differ from before (diff above)"
	}
	ok "networks and ports restored identically"
	for s in $SERVER_SOCKETS; do
		[ -S "$s" ] || fail "server socket $s was not recreated"
	done
	ok "server sockets exist again"
	check_state_file
}

# listening PATH: someone accepts connections on the vhost-user socket PATH.
# (memif sockets are not probed this way: see test_pod_restart.sh.)
listening() {
	python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect(sys.argv[1])' "$1" 2>/dev/null
}

# pods_come_back: a and b (podwired's sockets) are started again; c stayed
# and podwired reconnects to it. Frames then flow with exact counts.
pods_come_back() {
	local c_rx
	wait_link pw vc up
	ok "podwired reconnected to pod c"
	pod_up pw va a "$VDEV_A" --eth-peer=0,$BCAST
	pod_up pw mb b "$VDEV_B" --eth-peer=0,$BCAST
	c_rx=$(pod_rx c)
	# c sends first: its forwarding restarts after the reconnection.
	pod_send c 1
	wait_for 15 "a to receive 32 frames" pod_rx_ge a 32
	expect_eq "pod a rx after the restart" 32 "$(pod_rx a)"
	pod_send a 2
	wait_for 15 "c to receive 64 more frames" pod_rx_ge c $((c_rx + 64))
	expect_eq "pod c rx after the restart" $((c_rx + 64)) "$(pod_rx c)"
	expect_eq "podwired va rx" 64 "$(port_stat pw va .rx_packets)"
	expect_eq "podwired vc tx" 64 "$(port_stat pw vc .tx_packets)"
	expect_eq "podwired n1 tx (flooded)" 96 "$(port_stat pw n1 .tx_packets)"
	# The memif pod on the VLAN network is connected too.
	pod_send b 1
	wait_for 15 "podwired to receive b's frames" port_stat_ge pw mb .rx_packets 32
	expect_eq "podwired mb rx" 32 "$(port_stat pw mb .rx_packets)"
	wait_for 15 "b's frames flooded to m2" port_stat_ge pw m2 .drops.link_down 32
	expect_eq "m2 drops.link_down (no pod)" 32 "$(port_stat pw m2 .drops.link_down)"
}

daemon_start pw
ctl pw network add net1
ctl pw network add net2 --vlan 100
ctl pw port add va --network net1 --type vhost-user --socket "$T/a.sock" --mac $MAC_A --mtu 9000
ctl pw port add vc --network net1 --type vhost-user --client --socket "$T/c.sock"
ctl pw port add n1 --network net1 --type null --mtu 68
# The port's MAC is not the pod's: without port security, as a pod that
# is itself a switch would have it.
ctl pw port add mb --network net2 --type memif --socket "$T/b.sock" --mac 02:00:00:00:0b:02 \
	--mtu 1400 --secret $SECRET --no-port-security
ctl pw port add m2 --network net2 --type memif --socket "$T/m2.sock"
CONFIG=$(config_now)
echo "$CONFIG" | jq -c '.[]'
expect_eq "ports configured" 5 "$(echo "$CONFIG" | jq -s '.[1] | length')"
check_state_file

pod_up pw va a "$VDEV_A" --eth-peer=0,$BCAST
pod_up pw mb b "$VDEV_B" --eth-peer=0,$BCAST
pod_up pw vc c "$VDEV_C" --eth-peer=0,$BCAST
pod_send a 1
wait_for 15 "c to receive a's frames" pod_rx_ge c 32

# ---- clean stop -----------------------------------------------------------
daemon_term
for s in $SERVER_SOCKETS "$T/pw.sock"; do
	[ ! -e "$s" ] || fail "$s is still there after podwired stopped"
done
ok "podwired removed its sockets when it stopped"
[ -S "$T/c.sock" ] || fail "pod c's own socket $T/c.sock is gone"
check_state_file
pod_kill a
pod_kill b

daemon_start pw
check_restored
pods_come_back

# ---- crash ----------------------------------------------------------------
daemon_kill pw
for s in $SERVER_SOCKETS; do
	[ -S "$s" ] || fail "expected the crashed podwired's socket $s to remain"
done
listening "$T/a.sock" && fail "$T/a.sock still accepts connections after podwired was killed"
pod_kill a
pod_kill b

daemon_start pw
check_restored
# podwired started although the stale files were there; the vhost-user one
# is live again, and the memif pod connecting below shows that one is.
listening "$T/a.sock" || fail "stale socket $T/a.sock was not replaced by a live one"
ok "stale server sockets replaced"
pods_come_back
grep -q 'restored 2 network(s) and 5 port(s)' "$T/pw.log" ||
	fail "podwired's log does not report the restored state"
daemon_alive pw || fail "podwired died"

# And it stops cleanly with its pods still attached.
daemon_term

# ---- state files of other versions -------------------------------------------
# Version 1 (podwired before port security) wrote every port's MAC, given
# or generated: its ports come back without port security, as they ran.
cat >"$STATE" <<-JSON
	{"version": 1,
	 "networks": [{"name": "old", "mode": "bridge", "vlan": 0}],
	 "ports": [{"name": "p1", "network": "old", "type": "null", "mac": "02:00:00:00:01:01",
	            "mtu": 1500}]}
JSON
daemon_start pw
expect_eq "port of a version 1 state file: port security" false \
	"$(ctlj pw port show p1 | jq .port_security)"
grep -q 'state file of version 1 (no port security yet)' "$T/pw.log" ||
	fail "the log does not say the version 1 ports lost nothing"
daemon_term
expect_eq "version written back" 2 "$(jq .version "$STATE")"
# A file from a newer podwired, or one that is not JSON, is not started
# over (the first change would overwrite it): podwired exits, says why and
# what to do, and leaves the file as it was.
start_refused_by_state() { # WHAT WORDS
	local rc=0
	timeout 60 "$PODWIRED" --main-core "$POD_CPU" --worker-cores "$WORKER_CPU" \
		--socket "$T/pw.sock" --state-dir "$T/pw.state" --cdi-dir "$T/pw.cdi" >"$T/refused.log" 2>&1 || rc=$?
	expect_eq "$1: podwired's exit status" 1 "$rc"
	grep -qF "$2" "$T/refused.log" || fail "$1: no \"$2\" in: $(tail -n 3 "$T/refused.log")"
	grep -qE "move (it|the file) away to start empty" "$T/refused.log" ||
		fail "$1: the message does not say what to do: $(tail -n 3 "$T/refused.log")"
}
jq '.version = 9' "$STATE" >"$STATE.new" && mv "$STATE.new" "$STATE"
cp "$STATE" "$T/state.saved"
start_refused_by_state "state file of version 9" "is of version 9, newer than this podwired's 2"
cmp -s "$STATE" "$T/state.saved" || fail "the newer state file was changed"
printf '{"version": 2, "networks": [' >"$STATE"
start_refused_by_state "state file cut short" "state.json"
expect_eq "the unreadable file is kept" '{"version": 2, "networks": [' "$(cat "$STATE")"
ok "podwired refuses to start over a state file it cannot read, and keeps it"
