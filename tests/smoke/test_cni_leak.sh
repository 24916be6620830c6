#!/bin/bash
# 40 concurrent ADDs then DELs, then 1,000 vhost-user and 1,000 memif
# ADD/DEL cycles of the podwire CNI plugin (host-local IPAM) leave nothing
# behind: no port in podwired, no attachment directory, record, lock or IP,
# no extra file descriptor in podwired and no extra hugepage memory mapped
# by it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"

CYCLES=${CNI_LEAK_CYCLES:-1000}

daemon_start pw
PID=${DAEMON_PID[pw]}
cni_conf >"$T/vhost.json"
cni_conf '.iftype = "memif"' >"$T/memif.json"

# podwired's own count: asked over the API, after podwired has seen the
# previous client (the CNI plugin) hang up, which /proc read from here
# could count before.
fds() { ctlj pw info | jq .memory.fds; }
# Hugepage memory podwired has mapped, in kB.
huge_kb() { awk '/^(Private|Shared)_Hugetlb:/ {s += $2} END {print s + 0}' "/proc/$PID/smaps_rollup"; }

# cycle CONF N: one ADD and one DEL of attachment N.
cycle() {
	cni ADD "leak$2" net1 "$1"
	[ "$CNI_RC" = 0 ] || fail "ADD #$2 failed: $(cat "$T/cni.out")"
	cni DEL "leak$2" net1 "$1"
	[ "$CNI_RC" = 0 ] || fail "DEL #$2 failed: $(cat "$T/cni.out")"
}

# phase KIND N: N cycles of one port kind after a warm-up (DPDK's
# allocators grow to their working size on the first ports), then the
# checks; each kind is judged on its own so that a failure names it.
# Nothing may grow.
phase() {
	local kind=$1 n=$2 conf=$T/$1.json fds0 huge0 huge1
	local start ms i
	for i in $(seq 1 20); do cycle "$conf" "$kind-w$i"; done
	fds0=$(fds)
	huge0=$(huge_kb)
	start=$(date +%s%N)
	for i in $(seq 1 "$n"); do
		cycle "$conf" "$kind-$i"
		if [ $((i % 250)) = 0 ]; then
			[ "$(ctlj pw port list | jq '.ports | length')" = 0 ] ||
				fail "$kind: ports left after $i cycles"
			log "$kind: $i cycles, $(fds) fds (from $fds0), $(huge_kb) kB hugepage memory (from $huge0)"
		fi
	done
	ms=$((($(date +%s%N) - start) / 1000000))
	log "$kind: $n cycles in ${ms} ms ($((ms / n)) ms per ADD+DEL)"
	expect_clean "$kind: after $n cycles"
	left=$(find "$T/cnidata" "$T/pods" -mindepth 1 ! -name ipam-versions.json 2>/dev/null |
		tr '\n' ' ' || true)
	[ -z "$left" ] || fail "$kind: files or directories left: $left"
	huge1=$(huge_kb)
	expect_eq "$kind: podwired's hugepage memory after $n cycles (kB)" "$huge0" "$huge1"
	expect_eq "$kind: podwired's fds after $n cycles" "$fds0" "$(fds)"
}

# Concurrent ADDs and DELs of many pods (runtimes do run different pods
# at once): all succeed, with distinct slots, ports and IPs.
concurrent() {
	local n=$1 verb=$2 i pids=()
	for i in $(seq 1 "$n"); do
		(
			env -i PATH="$PATH" CNI_COMMAND="$verb" CNI_CONTAINERID="conc$i" \
				CNI_NETNS="/var/run/netns/conc$i" CNI_IFNAME=net1 CNI_PATH="$CNI_PATH_ALL" \
				"$PODWIRE_CNI" <"$T/vhost.json" >"$T/conc$i.out" 2>&1
			echo $? >"$T/conc$i.rc"
		) &
		pids+=($!)
	done
	wait "${pids[@]}" # not podwired, a child too
	for i in $(seq 1 "$n"); do
		[ "$(cat "$T/conc$i.rc")" = 0 ] || fail "concurrent $verb #$i: $(cat "$T/conc$i.out")"
	done
}
concurrent 40 ADD
expect_eq "ports after 40 concurrent ADDs" 40 "$(ctlj pw port list | jq '.ports | length')"
expect_eq "distinct IPs" 40 "$(cat "$T"/conc*.out | jq -r '.ips[0].address' | sort -u | wc -l)"
concurrent 40 DEL
expect_clean "after 40 concurrent ADDs and DELs"

# vhost-user: the full count, and nothing may grow.
phase vhost "$CYCLES"
# memif: the same strict check (podwire's own memif leaves nothing; DPDK
# 22.11's net_memif, used before, kept an fd and ~60 KiB per port).
phase memif "$CYCLES"
expect_eq "podwired networks" 1 "$(ctlj pw network list | jq '.networks | length')"
ctl pw info >/dev/null || fail "podwired stopped serving"
