#!/bin/bash
# Many containers created and removed at once on one podwire network, with a
# real dockerd: dockerd sends the driver its calls in parallel. Every
# container comes up with its interface and reaches the first one; after
# removal nothing is left (ports, interfaces, directories, state entries)
# and the driver and podwired hold no more file descriptors than before.
# DOCKER_SCALE_N containers (default 14). Each kernel container's port is a
# DPDK ethdev (Debian's DPDK 22.11 allows 32 per process) with an AF_XDP
# socket; on this machine (RLIMIT_MEMLOCK 8 MiB, which root cannot raise
# without CAP_SYS_RESOURCE) AF_XDP setup fails from about the 16th port
# and traffic stops: see the report in perf/README.md.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/docker_lib.sh"

N=${DOCKER_SCALE_N:-14}
docker_setup net
dk network create -d podwire --subnet 10.96.0.0/22 scale >/dev/null
# Open files but sockets (dockerd keeps a varying number of connections).
fds() { ls -l "/proc/$1/fd" | grep -vc "socket:"; }
# A warm-up round, so that fds opened once (libraries, podwired's first
# veth) are counted in the baseline.
ct_run w0 scale
dk rm -f w0 >/dev/null
no_leftovers() { [ "$(leftovers)" = "ports=0 ifaces=0 dirs=0 endpoints=0" ]; }
wait_for 30 "w0's endpoint to go" no_leftovers
fd_driver=$(fds "$DRIVER_PID")
fd_pw=$(fds "${DAEMON_PID[pw]}")

start=$(date +%s)
# Only the jobs started here are waited for (a bare wait would wait for
# the daemons too).
jobs_wait() { for pid in "$@"; do wait "$pid" || true; done; }
pids=()
for i in $(seq "$N"); do
	dk run -d --name "s$i" --network scale podwire/net sleep 100000 >"$T/run$i.out" 2>&1 &
	pids+=($!)
done
jobs_wait "${pids[@]}"
for i in $(seq "$N"); do
	[ "$(dk inspect -f '{{.State.Running}}' "s$i" 2>/dev/null)" = true ] ||
		fail "container s$i is not running: $(cat "$T/run$i.out")"
done
ok "$N containers started at once in $(($(date +%s) - start)) s"
expect_eq "ports and endpoints" "ports=$N ifaces=$N dirs=0 endpoints=$N" "$(leftovers)"

links_up() { [ "$(ctlj pw port list | jq '[.ports[] | select(.link == "up")] | length')" = "$N" ]; }
wait_for 60 "all $N ports' links up" links_up
# Each reaches s1.
ip1=$(ct_ip s1 scale)
pids=()
for i in $(seq 2 "$N"); do
	dk exec "s$i" ping -c 3 -W 5 "$ip1" >"$T/ping$i.out" 2>&1 &
	pids+=($!)
done
jobs_wait "${pids[@]}"
for i in $(seq 2 "$N"); do
	grep -qE " [1-3] packets received" "$T/ping$i.out" ||
		fail "s$i cannot reach s1: $(cat "$T/ping$i.out"); stats: $(ctl pw stats)"
done
ok "all $N containers reach s1"

start=$(date +%s)
pids=()
for i in $(seq "$N"); do
	dk rm -f "s$i" >/dev/null 2>&1 &
	pids+=($!)
done
jobs_wait "${pids[@]}"
ok "$N containers removed at once in $(($(date +%s) - start)) s"
expect_eq "left behind" "ports=0 ifaces=0 dirs=0 endpoints=0" "$(leftovers)"
expect_eq "driver fds" "$fd_driver" "$(fds "$DRIVER_PID")"
expect_eq "podwired fds" "$fd_pw" "$(fds "${DAEMON_PID[pw]}")"
dk network rm scale >/dev/null
expect_eq "podwired networks" 0 "$(ctlj pw network list | jq '.networks | length')"
