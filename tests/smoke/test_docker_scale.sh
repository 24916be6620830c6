#!/bin/bash
# Many containers created and removed at once, with a real dockerd: dockerd
# sends the driver its calls in parallel. DOCKER_SCALE_KERNEL (default 200)
# kernel containers (a veth port each) on one podwire network and
# DOCKER_SCALE_DPDK (default 20) DPDK containers (iftype vhost-user: a
# vhost-user port, a socket directory and a placeholder interface each) on
# another, started DOCKER_SCALE_PAR (default 25) at a time. Every container
# comes up with its interface; every kernel one reaches the first; each
# DPDK one has its own podwire.json with its MAC. After removal nothing is
# left: no podwired port, no interface on the host, no endpoint directory,
# no entry in the driver's state, and podwired (sockets included) and the
# driver hold no more file descriptors than before.
# A veth port is one packet socket (podwire's own AF_PACKET I/O, no DPDK
# ethdev). Over AF_XDP (podwired --veth-io xdp) each is an ethdev with an
# AF_XDP socket: DPDK allows 32 per process, and AF_XDP setup fails from
# about the 16th port on this machine (RLIMIT_MEMLOCK 8 MiB): run with
# DOCKER_SCALE_KERNEL=10 there. About 85 s on this 2-vCPU machine.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/docker_lib.sh"

K=${DOCKER_SCALE_KERNEL:-200}
D=${DOCKER_SCALE_DPDK:-20}
PAR=${DOCKER_SCALE_PAR:-25}
TOTAL=$((K + D))
docker_setup net
dk network create -d podwire --subnet 10.96.0.0/22 scale >/dev/null
dk network create -d podwire --subnet 10.97.0.0/22 -o podwire.iftype=vhost-user dscale >/dev/null
# The driver's open files but sockets (dockerd keeps a varying number of
# connections to it); all of podwired's (a port's socket is one of them).
fds_driver() { ls -l "/proc/$DRIVER_PID/fd" | grep -vc "socket:"; }
fds_pw() { ls "/proc/${DAEMON_PID[pw]}/fd" | wc -l; }
fd_list() { ls -l "/proc/${DAEMON_PID[pw]}/fd" | awk 'NR > 1 {print $NF}' | sed 's/\[[0-9]*\]//' | sort; }
# A warm-up round, so that fds opened once (libraries, podwired's first
# veth) are counted in the baseline.
ct_run w0 scale
ct_run w1 dscale
dk rm -f w0 w1 >/dev/null
no_leftovers() { [ "$(leftovers)" = "ports=0 ifaces=0 dirs=0 endpoints=0" ]; }
wait_for 30 "w0's and w1's endpoints to go" no_leftovers
fd_driver=$(fds_driver)
fd_pw=$(fds_pw)
fd_list >"$T/pw-fds.before"

# Kernel containers k1..kK, DPDK ones d1..dD, interleaved so that both
# kinds of calls overlap.
names=()
for i in $(seq "$(((K > D ? K : D)))"); do
	[ "$i" -gt "$K" ] || names+=("k$i")
	[ "$i" -gt "$D" ] || names+=("d$i")
done
net_of() { case $1 in k*) echo scale ;; *) echo dscale ;; esac; }
# batches FUNC ARG...: FUNC ARG for every ARG, PAR at a time (only the jobs
# started here are waited for: a bare wait would wait for the daemons too).
batches() {
	local f=$1 pids=() a p
	shift
	for a in "$@"; do
		"$f" "$a" &
		pids+=($!)
		if [ ${#pids[@]} -ge "$PAR" ]; then
			for p in "${pids[@]}"; do wait "$p" || true; done
			pids=()
		fi
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
}
start_one() { dk run -d --name "$1" --network "$(net_of "$1")" podwire/net sleep 100000 >"$T/run-$1.out" 2>&1; }
rm_one() { dk rm -f "$1" >"$T/rm-$1.out" 2>&1; }

start=$(date +%s)
batches start_one "${names[@]}"
dk inspect -f '{{.Name}} {{.State.Running}} {{.State.Pid}}' "${names[@]}" >"$T/state" 2>&1 || true
for n in "${names[@]}"; do
	grep -q "^/$n true " "$T/state" || fail "container $n is not running: $(cat "$T/run-$n.out")"
done
ok "$TOTAL containers ($K kernel, $D DPDK) started, $PAR at a time, in $(($(date +%s) - start)) s"
# On the host: a veth's host end per kernel container, a placeholder's
# other end per DPDK container; a directory with its podwire.json per DPDK one.
got=$(leftovers)
expect_eq "ports, interfaces, endpoints" "ports=$TOTAL ifaces=$TOTAL endpoints=$TOTAL" \
	"$(sed 's/ dirs=[0-9]*//' <<<"$got")"
if [ "$D" -gt 0 ]; then
	expect_eq "DPDK endpoint directories" "$D" "$(ls "$DK_SOCKDIR"/*/podwire.json | wc -l)"
fi
# Each DPDK container finds its own port and no other.
for i in $(seq "$D"); do
	mac=$(ct_mac "d$i" dscale)
	found=$(grep -l "\"$mac\"" "$DK_SOCKDIR"/*/podwire.json 2>/dev/null | wc -l)
	[ "$found" = 1 ] || fail "d$i (MAC $mac): $found podwire.json files with its MAC, not 1"
done
[ "$D" = 0 ] || ok "each of the $D DPDK containers has its own podwire.json"

veth_up() { ctlj pw port list | jq '[.ports[] | select(.type == "veth" and .link == "up")] | length'; }
links_up() { [ "$(veth_up)" = "$K" ]; }
wait_for 60 "all $K veth ports' links up" links_up
# Each reaches k1: busybox's ping in the container's namespace (from the
# host: a docker exec each would cost more than the rest of the test).
ip1=$(ct_ip k1 scale)
ping_one() {
	local pid
	pid=$(awk -v n="/$1" '$1 == n {print $3}' "$T/state")
	nsenter -t "$pid" -n /bin/busybox ping -c 3 -W 5 "$ip1" >"$T/ping-$1.out" 2>&1
}
kernels=()
for n in "${names[@]}"; do case $n in k1) ;; k*) kernels+=("$n") ;; esac; done
PAR=$((PAR * 2)) batches ping_one "${kernels[@]}"
for n in "${kernels[@]}"; do
	grep -qE " [1-3] packets received" "$T/ping-$n.out" ||
		fail "$n cannot reach k1: $(cat "$T/ping-$n.out"); stats: $(ctl pw stats)"
done
ok "all $K kernel containers reach k1"

start=$(date +%s)
batches rm_one "${names[@]}"
for n in "${names[@]}"; do
	[ ! -s "$T/rm-$n.out" ] || grep -qx "$n" "$T/rm-$n.out" || fail "docker rm -f $n: $(cat "$T/rm-$n.out")"
done
ok "$TOTAL containers removed, $PAR at a time, in $(($(date +%s) - start)) s"
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
expect_eq "driver fds" "$fd_driver" "$(fds_driver)"
# podwired may close a port's last fds after its workers let go of it.
for _ in $(seq 100); do
	[ "$(fds_pw)" = "$fd_pw" ] && break
	sleep 0.1
done
if [ "$(fds_pw)" != "$fd_pw" ]; then
	fd_list >"$T/pw-fds.after"
	fail "podwired fds: $fd_pw before, $(fds_pw) after; more open: $(comm -13 "$T/pw-fds.before" "$T/pw-fds.after" | uniq -c | tr '\n' ' ')"
fi
ok "podwired fds = $fd_pw, sockets included"
dk network rm scale dscale >/dev/null
expect_eq "podwired networks" 0 "$(ctlj pw network list | jq '.networks | length')"
expect_eq "driver's networks and endpoints" "0 0" \
	"$(jq -r '"\(.networks | length) \(.endpoints | length)"' "$T/dk-state/state.json")"
