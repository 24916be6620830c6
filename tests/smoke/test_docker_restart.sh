#!/bin/bash
# Restarts under running containers, with a real dockerd: the driver
# (killed), podwired (stopped), dockerd with live-restore, dockerd without
# it (a clean stop, and a crash). After each the containers reach each
# other again without being recreated, and the driver holds exactly the
# endpoints of the running containers (stale ones collected).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/docker_lib.sh"

daemon_start pw
mkdir -p "$DK_SOCKDIR"
driver_start
dockerd_start --live-restore
images net >/dev/null

dk network create -d podwire --subnet 10.90.0.0/24 knet >/dev/null
dk run -d --name c1 --restart always --network knet podwire/net sleep 100000 >/dev/null
dk run -d --name c2 --restart always --network knet podwire/net sleep 100000 >/dev/null

# Both containers up and reaching each other; the driver holds exactly
# their two endpoints and podwired their two ports.
pings() { dk exec c1 ping -c 1 -W 1 "$(ct_ip c2 knet)"; }
settled() {
	[ "$(dk inspect -f '{{.State.Running}}' c1 c2 | sort -u)" = true ] &&
		[ "$(leftovers)" = "ports=2 ifaces=2 dirs=0 endpoints=2" ] && pings
}
check() {
	wait_for 90 "c1 and c2 to reach each other after $1 (now $(leftovers))" settled
	ok "after $1: c1 reaches c2, $(leftovers)"
}
check "start"

# ---- the driver crashes and comes back --------------------------------------
nid=$(dk network inspect -f '{{.Id}}' knet)
eid=$(dk inspect -f '{{.NetworkSettings.Networks.knet.EndpointID}}' c1)
driver_kill
pings >/dev/null || fail "the datapath stopped with the driver"
driver_start
out=$(plugin_call NetworkDriver.EndpointOperInfo "{\"NetworkID\":\"$nid\",\"EndpointID\":\"$eid\"}")
case "$out" in *'"podwire.port":"docker-'*$'\n200') ;; *) fail "EndpointOperInfo after restart: $out" ;; esac
dk run -d --name c3 --network knet podwire/net sleep 100000 >/dev/null
dk exec c3 ping -c 1 -W 2 "$(ct_ip c1 knet)" >/dev/null || fail "a container started after the driver restart cannot reach c1"
dk rm -f c3 >/dev/null
check "a driver restart (it answered for what it made before, and made and removed c3)"

# ---- podwired restarts underneath -----------------------------------------------
daemon_stop pw
daemon_start pw
check "a podwired restart"

# ---- dockerd restarts with live-restore: the containers keep running --------------
pid1=$(dk inspect -f '{{.State.Pid}}' c1)
ip2=$(ct_ip c2 knet)
dockerd_stop
nsenter -t "$pid1" -n ping -c 1 -W 2 "$ip2" >/dev/null ||
	fail "with dockerd stopped (live-restore), c1 cannot reach c2"
ok "with dockerd stopped (live-restore), c1 still reaches c2"
dockerd_start --live-restore
expect_eq "c1 is the same process after a live-restore restart" "$pid1" \
	"$(dk inspect -f '{{.State.Pid}}' c1)"
check "a dockerd restart with live-restore"

# ---- dockerd restarts without live-restore: containers stop and start again --------
dockerd_stop
dockerd_start
check "a dockerd restart without live-restore (containers restarted)"
dockerd_stop
dockerd_start
check "a clean dockerd stop and start"

# ---- dockerd crashes: its containers are killed and restarted at its next start;
# the endpoints it dropped without telling the driver are collected.
dockerd_stop KILL
dockerd_start
check "a dockerd crash"
grep -q "gc: endpoint" "$T/driver.log" || fail "the garbage collector removed nothing after the crash"
ok "stale endpoints collected: $(grep -c 'gc: endpoint' "$T/driver.log") removals logged"

dk rm -f c1 c2 >/dev/null
dk network rm knet >/dev/null
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
