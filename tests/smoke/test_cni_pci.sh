#!/bin/bash
# iftype pci: the CNI plugin borrows SR-IOV VFs from podwired's pools, end to
# end against a fake sysfs tree (tests/sriov/fake_sysfs.sh: PF enp1s0f0 with
# 4 VFs, enp1s0f1 with 2, and a fake kernel acting on driver binds) and a
# real podwired started with --sysfs-root and --physnets.
#
# One pod gets VFs of two physnets (two ifnames): device-info files follow
# the spec's pci type, the result carries pciID, the pools' counts move and
# the fake kernel's journal shows each VF going to vfio-pci and back to its
# original driver on DEL. Then: DEL twice, DEL with podwired down (released
# once podwired is back), CHECK (whole and broken), exhaustion, bad physnet,
# bad vlan and misplaced fields (clear errors, pools and files unchanged),
# STATUS and GC.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"

FAKE_SYSFS=$ROOT/tests/sriov/fake_sysfs.sh
[ -f "$FAKE_SYSFS" ] || skip "tests/sriov/fake_sysfs.sh is missing"
command -v cc >/dev/null || skip "no C compiler for the fake kernel (apt-get install gcc)"

SYS=$T/sys
bash "$FAKE_SYSFS" create "$SYS" >/dev/null
KERNEL_PID=$(bash "$FAKE_SYSFS" start "$SYS")

# podwired goes before the fake kernel it may still write to; then lib.sh's
# own cleanup (which also dumps podwired's state on failure).
_pci_cleanup() {
	local rc=$1 d
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		echo "---- vf list"
		ctl pw vf list 2>&1
		echo "---- fake kernel journal"
		tail -n 30 "$SYS/fake_kernel.journal" 2>/dev/null
		_dump
	fi
	for d in "${!DAEMON_PID[@]}"; do daemon_stop "$d"; done
	_stop_pid "$KERNEL_PID"
}
on_exit _pci_cleanup

PHYSNETS=physnet2:enp1s0f0,physnet3:enp1s0f1
pw_start() { daemon_start pw --sysfs-root "$SYS" --physnets "$PHYSNETS"; }
pw_start

PF2=0000:01:00.0 PF3=0000:01:00.1
DEVINFO=$T/devinfo/cni

# Network A: physnet2 with IPAM, VLAN 100, spoof check off. Network B:
# physnet3, layer 2 only, trust on. Each attachment's device-info file is
# $DEVINFO/<pod>-<ifname>.json, as Multus names them.
cni_conf ".iftype = \"pci\" | .physnet = \"physnet2\" | del(.network) | .vlan = 100 |
	.spoofChk = \"off\"" >"$T/a.json"
cni_conf ".name = \"sriovb\" | .iftype = \"pci\" | .physnet = \"physnet3\" | del(.network) |
	del(.ipam) | .trust = \"on\"" >"$T/b.json"
# with_devinfo CONF POD IFNAME [MAC]: CONF with runtimeConfig for that attachment.
with_devinfo() {
	jq --arg f "$DEVINFO/$2-$3.json" --arg mac "${4:-}" \
		'.runtimeConfig = {CNIDeviceInfoFile: $f} |
		 if $mac != "" then .runtimeConfig.mac = $mac else . end' "$1" >"$T/$2-$3.json"
	echo "$T/$2-$3.json"
}

# ---- helpers -------------------------------------------------------------------
# vf_n PHYSNET free|used|total: a count from `podwirectl vf list`.
vf_n() { ctlj pw vf list --physnet "$1" | jq -r ".physnets[0].$2"; }
# vf_owned OWNER: the PCI addresses lent to OWNER, one per line.
vf_owned() { ctlj pw vf list | jq -r --arg o "$1" '.physnets[].vfs[] | select(.owner == $o) | .pci'; }
# driver PCI: the driver the fake kernel has the device bound to.
driver() {
	local l
	l=$(readlink "$SYS/bus/pci/devices/$1/driver" 2>/dev/null) || {
		echo none
		return
	}
	basename "$l"
}
driver_is() { [ "$(driver "$1")" = "$2" ]; }
journal_has() { grep -qxF "$1" "$SYS/fake_kernel.journal"; }
# pools_are F2 F3: free VFs of physnet2 and physnet3.
pools_are() {
	expect_eq "$1: free VFs of physnet2" "$2" "$(vf_n physnet2 free)"
	expect_eq "$1: free VFs of physnet3" "$3" "$(vf_n physnet3 free)"
}
# devinfo_pci FILE VF PF: FILE is the spec's pci device-info for that VF.
devinfo_pci() {
	jq -e --arg vf "$2" --arg pf "$3" '
		def bdf: type == "string" and test("^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$");
		(keys == ["pci", "type", "version"]) and .type == "pci" and .version == "1.1.0" and
		(.pci | type == "object") and (.pci["pci-address"] | bdf) and
		(.pci["pf-pci-address"] | bdf) and
		.pci["pci-address"] == $vf and .pci["pf-pci-address"] == $pf and
		((.pci | keys) - ["pci-address", "pf-pci-address", "vhost-net", "rdma-device",
			"representor-device"] == [])' "$1" >/dev/null ||
		fail "device-info $1 is not the spec's pci type for VF $2 of PF $3: $(cat "$1")"
	ok "device-info $(basename "$1"): $(jq -c . "$1")"
}
# of_attachment POD IFNAME FILE...: those of the JSON files (records,
# podwire.json) that are about attachment POD/IFNAME.
of_attachment() {
	local pod=$1 ifn=$2 f
	shift 2
	for f in "$@"; do
		[ -f "$f" ] || continue
		jq -e --arg c "$pod" --arg i "$ifn" '.containerID == $c and .ifname == $i' "$f" \
			>/dev/null 2>&1 && echo "$f"
	done
	return 0
}
# nothing_of POD IFNAME: no record, directory, device-info file or VF.
nothing_of() {
	local left
	[ ! -e "$DEVINFO/$1-$2.json" ] || fail "$1/$2: device-info file left"
	[ -z "$(vf_owned "$1/$2")" ] || fail "$1/$2 still holds VF $(vf_owned "$1/$2")"
	left=$(of_attachment "$1" "$2" "$T"/cnidata/*.json)
	[ -z "$left" ] || fail "$1/$2: record left: $left"
	left=$(of_attachment "$1" "$2" "$T"/pods/*/podwire.json)
	[ -z "$left" ] || fail "$1/$2: attachment directory left: $left"
	ok "nothing of $1/$2 is left"
}

expect_eq "physnet2 VFs" 4 "$(vf_n physnet2 total)"
expect_eq "physnet3 VFs" 2 "$(vf_n physnet3 total)"
pools_are "at start" 4 2

# ---- ADD: one pod, a VF of each physnet ----------------------------------------
cni ADD pod1 net1 "$(with_devinfo "$T/a.json" pod1 net1 02:00:00:00:00:0a)"
cni_ok "ADD pod1/net1 (physnet2)"
cp "$T/cni.out" "$T/res-pod1-net1.json"
cni ADD pod1 net2 "$(with_devinfo "$T/b.json" pod1 net2)" "CNI_ARGS=IgnoreUnknown=1;MAC=02:00:00:00:00:0b"
cni_ok "ADD pod1/net2 (physnet3)"
cp "$T/cni.out" "$T/res-pod1-net2.json"

VF1=$(vf_owned pod1/net1)
VF2=$(vf_owned pod1/net2)
[ -n "$VF1" ] && [ "$(echo "$VF1" | wc -l)" = 1 ] || fail "pod1/net1 should hold one VF: '$VF1'"
[ -n "$VF2" ] && [ "$(echo "$VF2" | wc -l)" = 1 ] || fail "pod1/net2 should hold one VF: '$VF2'"
case "$VF1" in 0000:01:10.*) ;; *) fail "pod1/net1's VF $VF1 is not one of enp1s0f0's" ;; esac
case "$VF2" in 0000:01:11.*) ;; *) fail "pod1/net2's VF $VF2 is not one of enp1s0f1's" ;; esac
ok "pod1 holds $VF1 (physnet2) and $VF2 (physnet3)"
pools_are "after two ADDs" 3 1

# The result: our interface with pciID and MAC, the IP only on network A.
r=$T/res-pod1-net1.json
expect_eq "result cniVersion" 1.1.0 "$(jq -r .cniVersion "$r")"
expect_eq "net1 result name" net1 "$(jq -r '.interfaces[0].name' "$r")"
expect_eq "net1 result pciID" "$VF1" "$(jq -r '.interfaces[0].pciID' "$r")"
expect_eq "net1 result mac" 02:00:00:00:00:0a "$(jq -r '.interfaces[0].mac' "$r")"
expect_eq "net1 result sandbox" /var/run/netns/pod1 "$(jq -r '.interfaces[0].sandbox' "$r")"
expect_eq "net1 result: no socketPath" null "$(jq -r '.interfaces[0].socketPath' "$r")"
expect_eq "net1 result ip" 10.77.0.2/24 "$(jq -r '.ips[0].address' "$r")"
expect_eq "net1 ip is on interface" 0 "$(jq -r '.ips[0].interface' "$r")"
r=$T/res-pod1-net2.json
expect_eq "net2 result pciID" "$VF2" "$(jq -r '.interfaces[0].pciID' "$r")"
expect_eq "net2 result mac (CNI_ARGS)" 02:00:00:00:00:0b "$(jq -r '.interfaces[0].mac' "$r")"
expect_eq "net2 result: no IP (no ipam)" 0 "$(jq '.ips | length' "$r")"

# device-info files, per the spec.
devinfo_pci "$DEVINFO/pod1-net1.json" "$VF1" "$PF2"
devinfo_pci "$DEVINFO/pod1-net2.json" "$VF2" "$PF3"

# The fake kernel saw each VF leave iavf for vfio-pci.
for vf in "$VF1" "$VF2"; do
	journal_has "bus/pci/drivers/iavf/unbind $vf" || fail "journal: $vf was not unbound from iavf"
	journal_has "bus/pci/drivers/vfio-pci/bind $vf" || fail "journal: $vf was not bound to vfio-pci"
	expect_eq "$vf's driver" vfio-pci "$(driver "$vf")"
done

# podwire.json tells the app its VF and the EAL argument.
pj=$(of_attachment pod1 net1 "$T"/pods/*/podwire.json)
expect_eq "podwire.json pci" "$VF1" "$(jq -r .pci "$pj")"
expect_eq "podwire.json pfPci" "$PF2" "$(jq -r .pfPci "$pj")"
expect_eq "podwire.json eal" "--allow=$VF1" "$(jq -r '.eal[0]' "$pj")"
expect_eq "podwire.json vfioDevice" "/dev/vfio/$(ctlj pw vf list | jq -r --arg p "$VF1" \
	'.physnets[].vfs[] | select(.pci == $p) | .iommu_group')" "$(jq -r .vfioDevice "$pj")"
expect_eq "podwire.json ips" 10.77.0.2/24 "$(jq -r '.ips[0]' "$pj")"

# A pod with VFs and a vhost-user socket: podwire-vdev over all its
# podwire.json files gives the socket's vdev and skips the VFs.
cni_conf '.name = "vhostnet" | .network = "vhostnet" | del(.ipam)' >"$T/v.json"
cni ADD pod1 net3 "$T/v.json"
cni_ok "ADD pod1/net3 (vhost-user)"
args=$("$PODWIRE_VDEV" --container pod1 "$T"/pods/*/podwire.json) ||
	fail "podwire-vdev over pod1's podwire.json files failed"
case "$args" in
"--vdev=net_virtio_user0,path=$T/pods/"*"/vhost.sock,"*"server=0 --single-file-segments") ;;
*) fail "podwire-vdev for pod1: $args" ;;
esac
ok "podwire-vdev for pod1: $args"
cni DEL pod1 net3 "$T/v.json"
cni_ok "DEL pod1/net3"

# ---- CHECK -----------------------------------------------------------------------
check_conf() { jq --slurpfile r "$2" '.prevResult = $r[0]' "$1" >"$T/check.json"; }
check_conf "$T/pod1-net1.json" "$T/res-pod1-net1.json"
cni CHECK pod1 net1 "$T/check.json"
cni_ok "CHECK pod1/net1"
check_conf "$T/pod1-net2.json" "$T/res-pod1-net2.json"
cni CHECK pod1 net2 "$T/check.json"
cni_ok "CHECK pod1/net2"
jq '.prevResult.interfaces[0].pciID = "0000:01:10.6"' "$T/check.json" >"$T/check-bad.json"
cni CHECK pod1 net2 "$T/check-bad.json"
cni_err "CHECK with another pciID in prevResult" 103 "prevResult says interface net2 is VF 0000:01:10.6"
jq '.physnet = "physnet2"' "$T/check.json" >"$T/check-bad.json"
cni CHECK pod1 net2 "$T/check-bad.json"
cni_err "CHECK with another physnet" 103 'holds a VF of physnet "physnet3", the config says "physnet2"'
# Something unbinds the VF behind podwired's back; CHECK says so. Rebound, it is whole again.
timeout 5 sh -c "echo $VF2 >'$SYS/bus/pci/drivers/vfio-pci/unbind'"
wait_for 5 "$VF2 to leave vfio-pci" driver_is "$VF2" none
cni CHECK pod1 net2 "$T/check.json"
cni_err "CHECK of an unbound VF" 103 "VF $VF2 of pod1/net2 is bound to \"no driver\", not vfio-pci"
echo vfio-pci >"$SYS/bus/pci/devices/$VF2/driver_override"
timeout 5 sh -c "echo $VF2 >'$SYS/bus/pci/drivers/vfio-pci/bind'"
wait_for 5 "$VF2 back on vfio-pci" driver_is "$VF2" vfio-pci
: >"$SYS/bus/pci/devices/$VF2/driver_override"
cni CHECK pod1 net2 "$T/check.json"
cni_ok "CHECK after the VF is rebound"

# ---- exhaustion: physnet3 has one VF left ---------------------------------------
cni ADD pod2 net1 "$(with_devinfo "$T/b.json" pod2 net1)"
cni_ok "ADD pod2/net1 takes physnet3's last VF"
pools_are "physnet3 exhausted" 3 0
jq '.ipam = {type: "host-local", subnet: "10.78.0.0/24", dataDir: "'"$T"'/ipam"}' \
	"$(with_devinfo "$T/b.json" pod3 net1)" >"$T/b-ipam.json"
cni ADD pod3 net1 "$T/b-ipam.json"
cni_err "ADD on an exhausted physnet" 11 'physnet "physnet3" has no free VF'
nothing_of pod3 net1
[ -z "$(ls "$T/ipam/sriovb" 2>/dev/null | grep -E '^[0-9.]+$' || true)" ] || fail "exhaustion left an IP"
pools_are "after the refused ADD" 3 0
cni DEL pod2 net1 "$T/pod2-net1.json"
cni_ok "DEL pod2/net1"
pools_are "physnet3 has one again" 3 1

# ---- bad input: clear errors, nothing changes -----------------------------------
jq '.physnet = "physnet9"' "$(with_devinfo "$T/a.json" pod3 net1)" >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "unknown physnet" 7 '"physnet": physnet "physnet9" is not configured'
grep -q 'podwired knows physnet2, physnet3' "$T/cni.out" || fail "the error should list podwired's physnets"
nothing_of pod3 net1
jq '.vlan = 4095' "$T/a.json" >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "VLAN out of range" 7 '"vlan" is 4095, it must be 0-4094 (VLAN id)'
jq '.vlan = "100"' "$T/a.json" >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "VLAN not a number" 7 '"vlan" must be an integer'
jq 'del(.physnet)' "$T/a.json" >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "no physnet" 7 '"physnet" is missing'
jq '.spoofChk = true' "$T/a.json" >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "spoofChk as a boolean" 7 '"spoofChk" is true; give "on" or "off"'
jq '.mtu = 9000' "$T/a.json" >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "mtu on a VF" 2 '"mtu": 9000 does not apply to iftype "pci"'
jq '.mode = "server"' "$T/a.json" >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "mode on a VF" 2 '"mode": "server" does not apply to iftype "pci"'
cni_conf '.physnet = "physnet2"' >"$T/bad.json"
cni ADD pod3 net1 "$T/bad.json"
cni_err "physnet on vhost-user" 2 '"physnet": "physnet2" does not apply to iftype "vhost-user"'
nothing_of pod3 net1
pools_are "after bad input" 3 1
ctl pw info >/dev/null || fail "podwired stopped serving"

# ---- STATUS ----------------------------------------------------------------------
cni STATUS "" "" "$T/a.json"
cni_ok "STATUS of network A"
jq '.physnet = "physnet9"' "$T/a.json" >"$T/bad.json"
cni STATUS "" "" "$T/bad.json"
cni_err "STATUS with an unknown physnet" 50 'physnet "physnet9" cannot be served'

# ---- DEL: the VF goes back to iavf ------------------------------------------------
n=$(grep -c "bus/pci/drivers_probe $VF1" "$SYS/fake_kernel.journal" || true)
cni DEL pod1 net1 "$T/pod1-net1.json"
cni_ok "DEL pod1/net1"
journal_has "bus/pci/drivers/vfio-pci/unbind $VF1" || fail "journal: $VF1 was not unbound from vfio-pci"
[ "$(grep -c "bus/pci/drivers_probe $VF1" "$SYS/fake_kernel.journal")" -gt "$n" ] ||
	fail "journal: $VF1 was not probed for its original driver"
wait_for 5 "$VF1 back on iavf" driver_is "$VF1" iavf
ok "$VF1 is back on iavf"
nothing_of pod1 net1
expect_eq "pod1/net1's IP released" "" "$(ipam_held)"
pools_are "after DEL pod1/net1" 4 1
cni DEL pod1 net1 "$T/pod1-net1.json"
cni_ok "DEL pod1/net1 again"
pools_are "after the second DEL" 4 1
# The other attachment of the pod is untouched.
expect_eq "pod1/net2 still holds" "$VF2" "$(vf_owned pod1/net2)"
[ -s "$DEVINFO/pod1-net2.json" ] || fail "DEL of net1 removed net2's device-info file"

# ---- DEL with podwired down: released when podwired is back ----------------------
cni ADD pod4 net1 "$(with_devinfo "$T/a.json" pod4 net1)"
cni_ok "ADD pod4/net1"
VF4=$(vf_owned pod4/net1)
daemon_stop pw
cni DEL pod4 net1 "$T/pod4-net1.json"
cni_ok "DEL pod4/net1 with podwired down"
[ ! -e "$DEVINFO/pod4-net1.json" ] || fail "device-info of pod4/net1 left"
ls "$T"/cnidata/pending/*.json >/dev/null 2>&1 || fail "no pending release was written"
cni DEL pod4 net1 "$T/pod4-net1.json"
cni_ok "DEL pod4/net1 again, podwired still down"
pw_start
expect_eq "pod4/net1 still holds its VF after podwired's restart" "$VF4" "$(vf_owned pod4/net1)"
cni DEL nobody net1 "$T/a.json"
cni_ok "a DEL reaching podwired"
expect_eq "pod4/net1's VF, released by the pending entry" "" "$(vf_owned pod4/net1)"
[ ! -d "$T/cnidata/pending" ] || fail "pending entries left: $(ls "$T/cnidata/pending")"
wait_for 5 "$VF4 back on iavf" driver_is "$VF4" iavf
nothing_of pod4 net1
pools_are "after the pending release" 4 1

# ---- GC ----------------------------------------------------------------------------
cni ADD pod5 net1 "$(with_devinfo "$T/a.json" pod5 net1)"
cni_ok "ADD pod5/net1"
cni ADD pod6 net1 "$(with_devinfo "$T/a.json" pod6 net1)"
cni_ok "ADD pod6/net1"
ctl pw vf alloc --physnet physnet2 --owner ghost/net7 >/dev/null # an attachment without a record
ctl pw vf alloc --physnet physnet2 --owner uplink:test >/dev/null # not the CNI's
pools_are "before GC" 0 1
jq '."cni.dev/valid-attachments" = [{containerID: "pod6", ifname: "net1"}] | del(.runtimeConfig)' \
	"$T/a.json" >"$T/gc.json"
cni GC "" "" "$T/gc.json"
cni_ok "GC keeping pod6/net1"
nothing_of pod5 net1
expect_eq "GC released the unrecorded VF of ghost/net7" "" "$(vf_owned ghost/net7)"
[ -n "$(vf_owned pod6/net1)" ] || fail "GC released the valid pod6/net1"
[ -n "$(vf_owned uplink:test)" ] || fail "GC released a VF that is not the CNI's"
expect_eq "GC left physnet3 (another network) alone" "$VF2" "$(vf_owned pod1/net2)"
pools_are "after GC" 2 1
ctl pw vf release --owner uplink:test >/dev/null

# ---- the end: everything back ------------------------------------------------------
cni DEL pod6 net1 "$T/pod6-net1.json"
cni_ok "DEL pod6/net1"
cni DEL pod1 net2 "$T/pod1-net2.json"
cni_ok "DEL pod1/net2"
wait_for 5 "$VF2 back on iavf" driver_is "$VF2" iavf
pools_are "at the end" 4 2
expect_clean "at the end"
for vf in 0000:01:10.0 0000:01:10.2 0000:01:10.4 0000:01:10.6 0000:01:11.0 0000:01:11.2; do
	expect_eq "$vf's driver at the end" iavf "$(driver "$vf")"
done
ctl pw info >/dev/null || fail "podwired stopped serving"
log "done"
