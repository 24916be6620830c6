#!/bin/bash
# SR-IOV VF pools with the real podwired against a fake sysfs tree and its
# fake kernel (tests/sriov/fake_sysfs.sh): start-up refusals of bad
# --physnets, `vf list` counts, allocation until exhaustion, the order of
# the binding writes, release back to iavf through drivers_probe, bad input
# changing nothing, allocations kept across a restart and a crash, a VF
# rebound behind podwired's back dropped at start-up, vfio-pci missing, and
# a kernel netdev named like the PF (no SR-IOV) refusing the VLAN: alloc
# fails cleanly and the binding is rolled back.
#
# podwired runs in its own network namespace, so the interface named like
# the PF exists there only.
. "$(dirname "$0")/lib.sh"

FAKE=$ROOT/tests/sriov/fake_sysfs.sh
SYS=$T/sys
STATE=$T/pw.state/vfs.json
PHYSNETS=physnet2:enp1s0f0,physnet3:enp1s0f1
NS=pwvf$$
KPID=

command -v ip >/dev/null || skip "ip (iproute2) is not installed"
command -v cc >/dev/null || skip "no C compiler for the fake kernel (tests/sriov/fake_kernel.c)"

_vf_cleanup() {
	local rc=$1
	[ -z "$KPID" ] || kill -TERM "$KPID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || {
		echo "---- fake kernel journal"
		cat "$SYS/fake_kernel.journal" 2>/dev/null
	}
}
on_exit _vf_cleanup

ip netns add "$NS" || skip "cannot create a network namespace (ip netns add)"
# podwired in the namespace: `ip netns exec` execs it, so the PID is podwired's.
cat >"$T/podwired-ns" <<EOF
#!/bin/sh
exec ip netns exec $NS "$BUILD/podwired" "\$@"
EOF
chmod +x "$T/podwired-ns"
PODWIRED=$T/podwired-ns

"$FAKE" create "$SYS" --netdev-up 0000:01:11.2
KPID=$("$FAKE" start "$SYS")
JOURNAL=$SYS/fake_kernel.journal
drv() { basename "$(readlink "$SYS/bus/pci/devices/$1/driver" 2>/dev/null)" 2>/dev/null || true; }
journal_of() { grep -F "$1" "$JOURNAL" 2>/dev/null || true; }

# ---- bad --physnets: podwired refuses to start, names the option and fix ----
start_refused() {
	local what=$1 words=$2 out rc=0 w
	shift 2
	out=$(timeout 20 "$PODWIRED" --main-core "$POD_CPU" --worker-cores "$WORKER_CPU" \
		--socket "$T/bad.sock" --state-dir "$T/bad.state" --cdi-dir "$T/bad.cdi" \
		--sysfs-root "$SYS" "$@" 2>&1) ||
		rc=$?
	[ $rc -ne 0 ] || fail "$what: podwired started; output: $out"
	IFS=';' read -ra list <<<"$words"
	for w in "${list[@]}"; do
		grep -qF -- "$w" <<<"$out" || fail "$what: message lacks \"$w\": $out"
	done
	ok "$what: $out"
}
start_refused "unknown PF" '--physnets;unknown PF "enp9s0"' --physnets physnet2:enp9s0
start_refused "PF without SR-IOV" '--physnets;"eno1";no SR-IOV' --physnets physnet2:eno1
start_refused "range beyond numvfs" '--physnets;goes beyond;sriov_numvfs 2;give #0-1' \
	--physnets physnet3:enp1s0f1#0-7
start_refused "PF in two physnets" '--physnets;PF enp1s0f0 is in physnet physnet2 and in physnet physnet3' \
	--physnets physnet2:enp1s0f0,physnet3:enp1s0f0
start_refused "bad syntax" '--physnets;"physnet2" is not physnet:PF' --physnets physnet2
start_refused "bad range" '--physnets;#3-1 is backwards' --physnets physnet2:enp1s0f0#3-1
start_refused "sysfs root missing" '--sysfs-root;is not a directory' --physnets "$PHYSNETS" \
	--sysfs-root "$T/nowhere"
echo '{"physnets": "physnet2:enp9s0"}' >"$T/bad.json"
start_refused "bad physnets in --config" '"physnets";unknown PF "enp9s0"' --config "$T/bad.json"
[ ! -s "$JOURNAL" ] || fail "a refused start-up wrote to sysfs: $(cat "$JOURNAL")"
ok "refused start-ups wrote nothing to sysfs"

# ---- list ----------------------------------------------------------------
daemon_start pw --sysfs-root "$SYS" --physnets "$PHYSNETS"
counts() { ctlj pw vf list | jq -r ".physnets[] | select(.physnet==\"$1\") | \"\(.total) \(.free) \(.used) \(.unavailable)\""; }
expect_eq "physnet2 total/free/used/unavailable" "4 4 0 0" "$(counts physnet2)"
expect_eq "physnet3 total/free/used/unavailable" "2 1 0 1" "$(counts physnet3)"
expect_eq "why 0000:01:11.2 is unavailable" "in use by the kernel: its netdev enp1s0f1v1 is up" \
	"$(ctlj pw vf list --physnet physnet3 | jq -r '.physnets[0].vfs[] | select(.pci=="0000:01:11.2") | .reason')"
expect_eq "physnets listed with --physnet" 1 "$(ctlj pw vf list --physnet physnet3 | jq '.physnets | length')"
out=$(ctl pw vf list)
echo "$out"
grep -q '^physnet physnet2: 4 VFs, 4 free, 0 used, 0 unavailable' <<<"$out" || fail "vf list: no physnet2 header"
grep -Eq '^enp1s0f0 +0 +0000:01:10.0 +iavf +10 +free' <<<"$out" || fail "vf list: no row for 0000:01:10.0"

# ---- alloc until exhausted ------------------------------------------------
VF=()
for i in 1 2 3 4; do
	r=$(ctlj pw vf alloc --physnet physnet2 --owner "c$i/net1")
	VF[i]=$(jq -r .pci <<<"$r")
	expect_eq "c$i: driver in the result" vfio-pci "$(jq -r .driver <<<"$r")"
	expect_eq "c$i: driver in sysfs" vfio-pci "$(drv "${VF[$i]}")"
	expect_eq "c$i: original driver" iavf "$(jq -r .original_driver <<<"$r")"
	expect_eq "c$i: vfio device" "/dev/vfio/$(jq -r .iommu_group <<<"$r")" "$(jq -r .vfio_device <<<"$r")"
done
expect_eq "allocated VFs" "0000:01:10.0 0000:01:10.2 0000:01:10.4 0000:01:10.6" "${VF[*]}"
r=$(ctlj pw vf alloc --physnet physnet3 --owner c5/net1 --vlan 100)
expect_eq "vf_config when the PF has no kernel netdev" "skipped: PF enp1s0f1 has no kernel netdev" \
	"$(jq -r .vf_config <<<"$r")"
expect_eq "pf_pci" 0000:01:00.1 "$(jq -r .pf_pci <<<"$r")"
expect_eq "physnet2 after 4 allocations" "4 0 4 0" "$(counts physnet2)"

expect_eq "journal of the first bind" \
	"bus/pci/drivers/iavf/unbind 0000:01:10.0
devices/pci0000:00/0000:01:10.0/driver_override vfio-pci
bus/pci/drivers/vfio-pci/bind 0000:01:10.0
devices/pci0000:00/0000:01:10.0/driver_override " "$(journal_of 0000:01:10.0)"

snapshot() {
	ctlj pw vf list | jq -S .
	cat "$STATE"
	wc -l <"$JOURNAL"
}
# refused WHAT CODE 'WORD;...' METHOD PARAMS: a raw request must fail with
# CODE and a message naming every WORD, and change nothing.
refused() {
	local what=$1 code=$2 words=$3 before out w
	before=$(snapshot)
	out=$(rpc pw "$4" "$5")
	expect_eq "$what: error code" "$code" "$(jq -r .error.code <<<"$out")"
	IFS=';' read -ra list <<<"$words"
	for w in "${list[@]}"; do
		jq -r .error.message <<<"$out" | grep -qF -- "$w" || fail "$what: message lacks \"$w\": $out"
	done
	[ "$(snapshot)" = "$before" ] || fail "$what: the request changed the pool, state or sysfs"
	daemon_alive pw || fail "$what: podwired died"
}
refused "exhausted" 1005 "physnet physnet2 has no free VF: 4 VF(s), 4 used;podwirectl vf release" \
	vf.alloc '{"physnet": "physnet2", "owner": "c9/net1"}'
out=$(ctl pw vf alloc --physnet physnet2 --owner c9/net1 2>&1) && fail "podwirectl: alloc from an exhausted pool succeeded"
grep -q "has no free VF" <<<"$out" || fail "podwirectl: unclear exhaustion error: $out"
ok "exhausted pool: $out"

# ---- bad input changes nothing -------------------------------------------
refused "unknown physnet" 1001 'physnet "physnet9" is not configured;physnet2, physnet3' \
	vf.alloc '{"physnet": "physnet9", "owner": "x"}'
refused "owner missing" -32602 owner vf.alloc '{"physnet": "physnet3"}'
refused "owner with a space" -32602 "owner" vf.alloc '{"physnet": "physnet3", "owner": "a b"}'
refused "vlan out of range" -32602 '"vlan" is 5000, it must be 0-4094 (VLAN id)' vf.alloc '{"physnet": "physnet3", "owner": "x", "vlan": 5000}'
refused "multicast mac" -32602 "MAC \"01:00:5e:00:00:01\" is a multicast address" vf.alloc '{"physnet": "physnet3", "owner": "x", "mac": "01:00:5e:00:00:01"}'
refused "spoof_check not a bool" -32602 spoof_check vf.alloc '{"physnet": "physnet3", "owner": "x", "spoof_check": "yes"}'
refused "unknown field" -32602 iface vf.alloc '{"physnet": "physnet3", "owner": "x", "iface": "eth0"}'
refused "release: both" -32602 "exactly one" vf.release '{"pci": "0000:01:10.0", "owner": "c1/net1"}'
refused "release: neither" -32602 "exactly one" vf.release '{}'
refused "release: bad address" -32602 'PCI address "zz"' vf.release '{"pci": "zz"}'
refused "list: unknown physnet" 1001 'physnet "nope"' vf.list '{"physnet": "nope"}'
out=$(ctl pw vf alloc --physnet physnet3 --owner x --spoof-check maybe 2>&1) && fail "--spoof-check maybe accepted"
grep -q 'not on or off' <<<"$out" || fail "podwirectl: unclear --spoof-check error: $out"
ok "bad input refused, pool unchanged"

# ---- release ---------------------------------------------------------------
out=$(ctl pw vf release --pci 0000:01:10.0)
echo "$out"
expect_eq "driver after release" iavf "$(drv 0000:01:10.0)"
[ -e "$SYS/class/net/enp1s0f0v0" ] || fail "iavf did not bring the netdev back"
expect_eq "journal of the release" \
	"bus/pci/drivers/vfio-pci/unbind 0000:01:10.0
devices/pci0000:00/0000:01:10.0/driver_override 
bus/pci/drivers_probe 0000:01:10.0" "$(journal_of 0000:01:10.0 | tail -n 3)"
expect_eq "released by owner" 0000:01:10.2 \
	"$(ctlj pw vf release --owner c2/net1 | jq -r '.released[].pci')"
expect_eq "release again (CNI DEL twice)" 0 "$(ctlj pw vf release --owner c2/net1 | jq '.released | length')"
ctl pw vf release --pci 0000:01:10.2 | grep -q "nothing to release" || fail "vf release of a free VF"
expect_eq "physnet2 after releases" "4 2 2 0" "$(counts physnet2)"
grep -q '"c3/net1"' "$STATE" || fail "$STATE lacks the allocation of c3/net1"
grep -q '"c1/net1"' "$STATE" && fail "$STATE still lists the released c1/net1"
ok "state file follows the pool"

# The same owner asking again (a retried CNI ADD) gets the VF it holds.
expect_eq "alloc retried by c3/net1" 0000:01:10.4 \
	"$(ctlj pw vf alloc --physnet physnet2 --owner c3/net1 | jq -r .pci)"
expect_eq "physnet2 after the retry" "4 2 2 0" "$(counts physnet2)"

# ---- pci uplink ports: the device must exist and be bound to vfio-pci -------
# (No real VF here: a VF bound in the fake tree passes podwired's checks
# and then DPDK, which scans the real PCI bus, cannot probe it.)
ctl pw network add up >/dev/null
pci_refused() {
	local what=$1 pci=$2 want=$3 out
	out=$(ctl pw port add upl --network up --type pci --pci "$pci" 2>&1) &&
		fail "pci port on $what was created"
	grep -qF -- "$want" <<<"$out" || fail "pci port on $what: unclear error: $out"
	expect_eq "pci port on $what: ports" 0 "$(ctlj pw port list | jq '.ports | length')"
	ok "pci port on $what: $out"
}
pci_refused "a missing device" 0000:07:00.0 'there is no PCI device 0000:07:00.0'
pci_refused "a VF on iavf" 0000:01:10.2 'is bound to iavf, not vfio-pci'
pci_refused "a VF DPDK cannot probe" 0000:01:10.4 'DPDK could not probe 0000:01:10.4'
daemon_alive pw || fail "podwired died on a pci port"
ctl pw network del up >/dev/null

# ---- restart and crash keep allocations -------------------------------------
owners() { ctlj pw vf list | jq -r '[.physnets[].vfs[] | select(.state=="used") | "\(.pci)=\(.owner)"] | join(" ")'; }
BEFORE=$(owners)
expect_eq "allocations before the restart" "0000:01:10.4=c3/net1 0000:01:10.6=c4/net1 0000:01:11.0=c5/net1" "$BEFORE"
daemon_stop pw
daemon_start pw --sysfs-root "$SYS" --physnets "$PHYSNETS"
expect_eq "allocations after a restart" "$BEFORE" "$(owners)"
daemon_kill pw
daemon_start pw --sysfs-root "$SYS" --physnets "$PHYSNETS"
expect_eq "allocations after a crash" "$BEFORE" "$(owners)"
grep -q 'restored 3 VF allocation(s)' "$T/pw.log" || fail "the log does not report the restored allocations"

# A VF rebound to iavf while podwired was down is no longer allocated.
daemon_stop pw
echo 0000:01:10.6 >"$SYS/bus/pci/drivers/vfio-pci/unbind"
wait_for 15 "the fake kernel to unbind 0000:01:10.6" test -z "$(drv 0000:01:10.6)"
echo 0000:01:10.6 >"$SYS/bus/pci/drivers_probe"
wait_for 15 "iavf to take 0000:01:10.6" test "$(drv 0000:01:10.6)" = iavf
daemon_start pw --sysfs-root "$SYS" --physnets "$PHYSNETS"
expect_eq "allocations after the rebind" "0000:01:10.4=c3/net1 0000:01:11.0=c5/net1" "$(owners)"
grep -q 'VF 0000:01:10.6 was allocated to c4/net1 but is now bound to iavf' "$T/pw.log" ||
	fail "the dropped allocation is not logged"
grep -q c4/net1 "$STATE" && fail "$STATE still lists the dropped allocation"
ok "a VF rebound behind podwired's back is dropped and logged"

# ---- a kernel netdev named like the PF, without SR-IOV ----------------------
# dummy when the kernel has it, else a veth: neither has VFs.
if ip -n "$NS" link add enp1s0f0 type dummy 2>/dev/null ||
	ip -n "$NS" link add enp1s0f0 type veth peer name pwvfpeer; then
	SNAP=$(snapshot)
	out=$(rpc pw vf.alloc '{"physnet": "physnet2", "owner": "k1/net1", "vlan": 100}')
	expect_eq "kernel refusal: error code" 1005 "$(jq -r .error.code <<<"$out")"
	jq -r .error.message <<<"$out" | grep -q 'the kernel refused VF 0 settings on PF enp1s0f0: Operation not supported' ||
		fail "kernel refusal: unclear message: $out"
	ok "kernel refusal: $(jq -r .error.message <<<"$out")"
	expect_eq "rolled back: driver of 0000:01:10.0" iavf "$(drv 0000:01:10.0)"
	expect_eq "rollback in the journal" \
		"bus/pci/drivers/iavf/unbind 0000:01:10.0
devices/pci0000:00/0000:01:10.0/driver_override vfio-pci
bus/pci/drivers/vfio-pci/bind 0000:01:10.0
devices/pci0000:00/0000:01:10.0/driver_override 
bus/pci/drivers/vfio-pci/unbind 0000:01:10.0
devices/pci0000:00/0000:01:10.0/driver_override 
bus/pci/drivers_probe 0000:01:10.0" "$(journal_of 0000:01:10.0 | tail -n 7)"
	AFTER=$(snapshot)
	# The journal grew by the rollback; the pool and the state did not change.
	[ "$(head -n -1 <<<"$AFTER")" = "$(head -n -1 <<<"$SNAP")" ] ||
		fail "a refused alloc changed the pool or the state file"
	r=$(ctlj pw vf alloc --physnet physnet2 --owner k1/net1)
	expect_eq "without settings the same VF is allocated" 0000:01:10.0 "$(jq -r .pci <<<"$r")"
	expect_eq "vf_config" "none requested" "$(jq -r .vf_config <<<"$r")"
	ip -n "$NS" link del enp1s0f0
else
	echo "note: cannot create a netdev in $NS; the kernel-refusal case is not run"
fi

# ---- vfio-pci not loaded ---------------------------------------------------
daemon_stop pw
"$FAKE" create "$T/sys2" --no-vfio
daemon_start pw2 --sysfs-root "$T/sys2" --physnets physnet2:enp1s0f0
out=$(rpc pw2 vf.alloc '{"physnet": "physnet2", "owner": "x"}')
expect_eq "no vfio-pci: error code" 1005 "$(jq -r .error.code <<<"$out")"
jq -r .error.message <<<"$out" | grep -q 'modprobe vfio-pci' || fail "no vfio-pci: unclear message: $out"
ok "no vfio-pci: $(jq -r .error.message <<<"$out")"
expect_eq "no vfio-pci: physnet2 still free" "4 4 0 0" \
	"$(ctlj pw2 vf list | jq -r '.physnets[0] | "\(.total) \(.free) \(.used) \(.unavailable)"')"
daemon_stop pw2
