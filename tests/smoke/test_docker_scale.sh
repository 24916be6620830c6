#!/bin/bash
# 50 containers created and removed at once, with a real dockerd: dockerd
# sends the driver its calls in parallel. DOCKER_SCALE_KERNEL (default 10)
# of them are kernel containers (a veth port each, read with AF_XDP) on one
# podwire network, the rest DPDK containers (iftype vhost-user: a
# vhost-user port, a socket directory and a placeholder interface each) on
# another. Every container comes up with its interface; the kernel ones
# reach the first; each DPDK one has its own podwire.json with its MAC.
# After removal nothing is left (ports, interfaces, directories, state
# entries) and the driver and podwired hold no more file descriptors than
# before.
# Why not 50 kernel containers: each kernel container's port is a DPDK
# ethdev (Debian's DPDK 22.11 allows 32 per process) with an AF_XDP
# socket, and on this machine (RLIMIT_MEMLOCK 8 MiB, which root cannot
# raise without CAP_SYS_RESOURCE) AF_XDP setup fails from about the 16th
# port: see the README's Docker limits.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/docker_lib.sh"

TOTAL=${DOCKER_SCALE_N:-50}
K=${DOCKER_SCALE_KERNEL:-10}
D=$((TOTAL - K))
docker_setup net
dk network create -d podwire --subnet 10.96.0.0/22 scale >/dev/null
dk network create -d podwire --subnet 10.97.0.0/22 -o podwire.iftype=vhost-user dscale >/dev/null
# Open files but sockets (dockerd keeps a varying number of connections).
fds() { ls -l "/proc/$1/fd" | grep -vc "socket:"; }
# A warm-up round, so that fds opened once (libraries, podwired's first
# veth) are counted in the baseline.
ct_run w0 scale
ct_run w1 dscale
dk rm -f w0 w1 >/dev/null
no_leftovers() { [ "$(leftovers)" = "ports=0 ifaces=0 dirs=0 endpoints=0" ]; }
wait_for 30 "w0's and w1's endpoints to go" no_leftovers
fd_driver=$(fds "$DRIVER_PID")
fd_pw=$(fds "${DAEMON_PID[pw]}")
ls -l "/proc/${DAEMON_PID[pw]}/fd" | grep -v "socket:" | awk '{print $NF}' | sort >"$T/pw-fds.before"

start=$(date +%s)
# Only the jobs started here are waited for (a bare wait would wait for
# the daemons too).
jobs_wait() { for pid in "$@"; do wait "$pid" || true; done; }
pids=()
# Interleaved, so that both kinds of calls overlap.
for i in $(seq "$TOTAL"); do
	if [ "$i" -le "$K" ]; then net=scale name=s$i; else net=dscale name=d$i; fi
	dk run -d --name "$name" --network "$net" podwire/net sleep 100000 >"$T/run$i.out" 2>&1 &
	pids+=($!)
done
jobs_wait "${pids[@]}"
names() { for i in $(seq "$TOTAL"); do if [ "$i" -le "$K" ]; then echo "s$i"; else echo "d$i"; fi; done; }
for n in $(names); do
	[ "$(dk inspect -f '{{.State.Running}}' "$n" 2>/dev/null)" = true ] ||
		fail "container $n is not running: $(cat "$T/run${n#?}.out")"
done
ok "$TOTAL containers ($K kernel, $D DPDK) started at once in $(($(date +%s) - start)) s"
# On the host: a veth's host end per kernel container, a placeholder's
# other end per DPDK container; a directory with its podwire.json per DPDK one.
got=$(leftovers)
expect_eq "ports, interfaces, endpoints" "ports=$TOTAL ifaces=$TOTAL endpoints=$TOTAL" \
	"$(sed 's/ dirs=[0-9]*//' <<<"$got")"
expect_eq "DPDK endpoint directories" "$D" "$(ls "$DK_SOCKDIR"/*/podwire.json | wc -l)"
# Each DPDK container finds its own port and no other.
for i in $(seq $((K + 1)) "$TOTAL"); do
	mac=$(ct_mac "d$i" dscale)
	found=$(grep -l "\"$mac\"" "$DK_SOCKDIR"/*/podwire.json 2>/dev/null | wc -l)
	[ "$found" = 1 ] || fail "d$i (MAC $mac): $found podwire.json files with its MAC, not 1"
done
ok "each of the $D DPDK containers has its own podwire.json"

links_up() { [ "$(ctlj pw port list | jq '[.ports[] | select(.type == "veth" and .link == "up")] | length')" = "$K" ]; }
wait_for 60 "all $K veth ports' links up" links_up
# Each reaches s1.
ip1=$(ct_ip s1 scale)
pids=()
for i in $(seq 2 "$K"); do
	dk exec "s$i" ping -c 3 -W 5 "$ip1" >"$T/ping$i.out" 2>&1 &
	pids+=($!)
done
jobs_wait "${pids[@]}"
for i in $(seq 2 "$K"); do
	grep -qE " [1-3] packets received" "$T/ping$i.out" ||
		fail "s$i cannot reach s1: $(cat "$T/ping$i.out"); stats: $(ctl pw stats)"
done
ok "all $K kernel containers reach s1"

start=$(date +%s)
pids=()
for n in $(names); do
	dk rm -f "$n" >/dev/null 2>&1 &
	pids+=($!)
done
jobs_wait "${pids[@]}"
ok "$TOTAL containers removed at once in $(($(date +%s) - start)) s"
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
expect_eq "driver fds" "$fd_driver" "$(fds "$DRIVER_PID")"
ls -l "/proc/${DAEMON_PID[pw]}/fd" | grep -v "socket:" | awk '{print $NF}' | sort >"$T/pw-fds.after"
[ "$(fds "${DAEMON_PID[pw]}")" = "$fd_pw" ] ||
	fail "podwired fds: $fd_pw before, $(fds "${DAEMON_PID[pw]}") after; more open: $(comm -13 "$T/pw-fds.before" "$T/pw-fds.after" | uniq -c | tr '\n' ' ')"
ok "podwired fds = $fd_pw"
dk network rm scale dscale >/dev/null
expect_eq "podwired networks" 0 "$(ctlj pw network list | jq '.networks | length')"
