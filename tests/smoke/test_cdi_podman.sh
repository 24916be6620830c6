#!/bin/bash
# Real podman 4.3 (CDI 0.5 built in) applying podwired's CDI specs from
# /var/run/cdi, the directory podman reads:
# - two containers started with --device podwire.io/port=... (and nothing
#   else: no -v, no --device /dev/...) run dpdk-testpmd from $(podwire-vdev)
#   on the hugetlbfs the device mounted, and exchange frames through
#   podwired (one vhost-user, one memif);
# - a VF of a fake sysfs tree (fake kernel, fake /dev/vfio nodes under
#   --dev-root) given by --device podwire.io/vf=ADDRESS or =PHYSNET-N: the
#   container sees its nodes and PCIDEVICE_* variables;
# - a deleted port's device is gone: podman refuses it with its own error;
# - hugepages=default alone.
# Only podwire.io-*.json files are written in /var/run/cdi (the test skips
# when another podwired has them there) and all are gone at the end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cdi_lib.sh"

command -v podman >/dev/null || skip "podman is not installed (apt-get install podman runc)"
command -v runc >/dev/null || skip "runc is not installed (apt-get install runc)"
[ -x /bin/busybox ] || skip "busybox is not installed (apt-get install busybox-static)"

CDI=/var/run/cdi
mkdir -p "$CDI"
# One test at a time writes podwire.io-*.json there (concurrent runs).
exec {LOCKFD}>/run/lock/podwire-cdi-test.lock
flock -w 300 "$LOCKFD" || fail "another test held /run/lock/podwire-cdi-test.lock for 300s"
if ls "$CDI"/podwire.io-*.json >/dev/null 2>&1; then
	skip "$CDI has podwire.io spec files of another podwired: $(ls "$CDI"/podwire.io-*.json)"
fi

FAKE=$ROOT/tests/sriov/fake_sysfs.sh
SYS=$T/sys
KPID=
cat >"$T/containers.conf" <<-EOF
	[containers]
	default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
	[engine]
	runtime = "runc"
	[network]
	network_backend = "cni"
EOF
export CONTAINERS_CONF=$T/containers.conf
PODMAN=(podman --root "$T/storage" --runroot "$T/run" --storage-driver vfs
	--cgroup-manager cgroupfs --events-backend none)
"${PODMAN[@]}" info >"$T/podman-info.log" 2>&1 ||
	skip "podman cannot run here: $(tail -n 1 "$T/podman-info.log")"
CPREFIX=pwt$$
cdi_exit() {
	local c n
	for c in $("${PODMAN[@]}" ps -a --format '{{.Names}}' 2>/dev/null | grep "^$CPREFIX-"); do
		"${PODMAN[@]}" rm -f -t 1 "$c" >/dev/null 2>&1
	done
	[ -z "$KPID" ] || kill -TERM "$KPID" 2>/dev/null
	for n in "${!DAEMON_PID[@]}"; do _stop_pid "${DAEMON_PID[$n]}"; done
	# A podwired that did not stop cleanly leaves its files: ours, removed.
	rm -f "$CDI"/podwire.io-port.json "$CDI"/podwire.io-vf.json \
		"$CDI"/podwire.io-hugepages.json "$CDI"/podwire.io-*.json.tmp.*
}
on_exit cdi_exit

# ---- the image: busybox, dpdk-testpmd and what it loads, podwire-vdev -------------
# Hard links to the host's files (the container runs with --read-only, so
# it cannot change them), no bind mount: nothing of the host under $T.
R=$T/rootfs
mkdir -p "$R"/{bin,proc,sys,dev,etc,tmp,run,var,usr/lib}
ln -s ../run "$R/var/run"
ln -s usr/lib "$R/lib" # merged /usr, as Debian's
cp /bin/busybox "$R/bin/"
for c in sh cat ls env grep hostname mount sleep; do ln -s busybox "$R/bin/$c"; done
cp "$BUILD/podwire-vdev" "$R/bin/"
link_in() { # PATH...: into $R at the same path; a symlink is copied and followed
	local f t
	for f in "$@"; do
		f=${f/#\/lib\//\/usr\/lib\/}
		[ -e "$R$f" ] || [ -L "$R$f" ] && continue
		mkdir -p "$R$(dirname "$f")"
		if [ -L "$f" ]; then
			cp -a "$f" "$R$f"
			t=$(readlink -f "$f")
			link_in "$t"
		else
			ln "$f" "$R$f" 2>/dev/null || cp -a "$f" "$R$f"
		fi
	done
}
PMDS=$(find /usr/lib/x86_64-linux-gnu/dpdk -name '*.so*')
# shellcheck disable=SC2086
mapfile -t FILES < <(
	{
		echo /usr/bin/dpdk-testpmd
		echo /usr/bin/stdbuf
		echo /usr/libexec/coreutils/libstdbuf.so
		echo /lib64/ld-linux-x86-64.so.2
		echo /lib/x86_64-linux-gnu/libgcc_s.so.1 # pthread_cancel at exit
		echo "$PMDS"
		ldd /usr/bin/dpdk-testpmd /usr/bin/stdbuf "$BUILD/podwire-vdev" $PMDS 2>/dev/null |
			awk '$2 == "=>" && $3 ~ /^\// {print $3}'
	} | sort -u
)
mkdir -p "$R/lib64"
link_in "${FILES[@]}"
ok "image: $(find "$R" -type f | wc -l) files"

# ---- podwired writing /var/run/cdi, with a VF pool on a fake sysfs tree ---------------
"$FAKE" create "$SYS" >/dev/null
KPID=$("$FAKE" start "$SYS")
mkdir -p "$T/dev/vfio"
mknod "$T/dev/vfio/vfio" c 1 3
mknod "$T/dev/vfio/10" c 1 3
daemon_start pw --cdi-dir "$CDI" --sysfs-root "$SYS" --dev-root "$T/dev" \
	--physnets physnet2:enp1s0f0
ctl pw network add n1 >/dev/null
mkdir -p "$T/pods/a" "$T/pods/b"
ctl pw port add pod-a --network n1 --type vhost-user --socket "$T/pods/a/vhost.sock" \
	--mac 02:00:00:cd:01:0a >/dev/null
ctl pw port add pod-b --network n1 --type memif --socket "$T/pods/b/memif.sock" \
	--mac 02:00:00:cd:01:0b >/dev/null
ctl pw vf alloc --physnet physnet2 --owner "$CPREFIX-vf" >/dev/null
cdi_validate "$CDI"/podwire.io-*.json
expect_eq "VF devices: by address and by physnet" "0000-01-10.0 physnet2-0" "$(cdi_devices "$CDI" vf)"
expect_eq "VF spec version (hostPath, a name starting with a digit)" 0.5.0 \
	"$(jq -r .cdiVersion "$CDI/podwire.io-vf.json")"

# ---- two DPDK containers, given only their CDI devices, exchange frames ------------------
# podcdi_spawn NAME DEVICE PEER-MAC: interactive testpmd in a container,
# fed through a FIFO like lib.sh's pods (pod_cmd, pod_stats work on it).
podcdi_spawn() {
	local name=$1 dev=$2 peer=$3 fifo=$T/pod-$1.in fd
	mkfifo "$fifo"
	"${PODMAN[@]}" run -i --rm --name "$CPREFIX-$name" --privileged --read-only \
		--network none --device "$dev" --rootfs "$R" /bin/sh -c '
		grep " /dev/hugepages " /proc/mounts
		echo "PODWIRE_VDEV: $PODWIRE_VDEV"
		ARGS=$(podwire-vdev) || exit 1
		echo "podwire-vdev: $ARGS"
		exec stdbuf -oL -eL dpdk-testpmd $ARGS --lcores 0@'"$POD_CPU,1@$POD_CPU"' \
			--file-prefix $(hostname) --no-pci --log-level "*:notice" \
			-- -i --nb-cores=1 --forward-mode=rxonly --total-num-mbufs=4096 \
			--eth-peer=0,'"$peer" <"$fifo" >"$T/pod-$name.log" 2>&1 &
	POD_PID[$name]=$!
	exec {fd}>"$fifo"
	POD_FD[$name]=$fd
	POD_SEEN[$name]=0
}
podcdi_spawn a podwire.io/port=pod-a 02:00:00:cd:01:0b
podcdi_spawn b podwire.io/port=pod-b 02:00:00:cd:01:0a
pod_ready a 90
pod_ready b 90
for p in a b; do
	grep -q '^hugetlbfs /dev/hugepages hugetlbfs' "$T/pod-$p.log" ||
		fail "container $p has no hugetlbfs at /dev/hugepages: $(head -n 3 "$T/pod-$p.log")"
	V=$(sed -n 's/^PODWIRE_VDEV: //p' "$T/pod-$p.log")
	expect_eq "container $p: \$(podwire-vdev) = \$PODWIRE_VDEV" "$V" \
		"$(sed -n 's/^podwire-vdev: //p' "$T/pod-$p.log")"
done
grep -qF 'path=/var/run/podwire/a/vhost.sock,mac=02:00:00:cd:01:0a,server=0' "$T/pod-a.log" ||
	fail "container a's vdev: $(grep podwire-vdev "$T/pod-a.log")"
grep -qF 'net_memif0,role=client,socket=/var/run/podwire/b/memif.sock' "$T/pod-b.log" ||
	fail "container b's vdev: $(grep podwire-vdev "$T/pod-b.log")"
wait_link pw pod-a up 30
wait_link pw pod-b up 30
wait_for 20 "container a to see its link up" pod_link_up a
wait_for 20 "container b to see its link up" pod_link_up b
pod_cmd a start
pod_cmd b start
pod_send b 1
wait_for 20 "a to receive b's 32 frames" pod_rx_ge a 32
pod_send a 8
wait_for 20 "b to receive a's 256 frames" pod_rx_ge b 256
expect_eq "container a rx" 32 "$(pod_rx a)"
expect_eq "container b rx" 256 "$(pod_rx b)"
expect_eq "podwired pod-a rx" 256 "$(port_stat pw pod-a .rx_packets)"
expect_eq "podwired pod-b rx" 32 "$(port_stat pw pod-b .rx_packets)"
pod_stop a
pod_stop b

# ---- a VF: its nodes and variables, by address and by physnet --------------------------
for dev in podwire.io/vf=0000-01-10.0 podwire.io/vf=physnet2-0; do
	OUT=$("${PODMAN[@]}" run --rm --name "$CPREFIX-vf" --read-only --network none \
		--device "$dev" --rootfs "$R" /bin/sh -c \
		'ls -l /dev/vfio; env | grep -E "^(PCIDEVICE|PODWIRE)" | sort; grep " /dev/hugepages " /proc/mounts' 2>&1) ||
		fail "podman run --device $dev: $OUT"
	echo "$OUT"
	for n in 'PCIDEVICE_PODWIRE_IO_PHYSNET2=0000:01:10.0' \
		'PCIDEVICE_PODWIRE_IO_PHYSNET2_INFO={"0000:01:10.0":{"generic":{"deviceID":"0000:01:10.0"},"vfio":{"dev-mount":"/dev/vfio/10","mount":"/dev/vfio/vfio"}}}' \
		'"pci-address":"0000:01:10.0","pf-pci-address":"0000:01:00.0"' 'hugetlbfs /dev/hugepages'; do
		grep -qF -- "$n" <<<"$OUT" || fail "$dev: the container lacks $n"
	done
	grep -qE '^crw.* 1, +3 .* 10$' <<<"$OUT" || fail "$dev: no char device /dev/vfio/10"
	grep -qE '^crw.* 1, +3 .* vfio$' <<<"$OUT" || fail "$dev: no char device /dev/vfio/vfio"
	ok "$dev: nodes and variables in the container"
done
# Released: the device is gone.
ctl pw vf release --owner "$CPREFIX-vf" >/dev/null
[ ! -e "$CDI/podwire.io-vf.json" ] || fail "the vf spec outlived the last allocation"

# ---- a deleted port's device is refused by podman ----------------------------------------
ctl pw port del pod-a >/dev/null
cdi_validate "$CDI"/podwire.io-*.json
expect_eq "port devices after deleting pod-a" pod-b "$(cdi_devices "$CDI" port)"
OUT=$("${PODMAN[@]}" run --rm --name "$CPREFIX-gone" --network none \
	--device podwire.io/port=pod-a --rootfs "$R" /bin/true 2>&1) &&
	fail "podman ran a container with a deleted port's device"
grep -qF 'unresolvable CDI devices podwire.io/port=pod-a' <<<"$OUT" || fail "podman said: $OUT"
ok "podman refuses the deleted port: $OUT"

# ---- hugepages alone -------------------------------------------------------------------
OUT=$("${PODMAN[@]}" run --rm --name "$CPREFIX-hp" --read-only --network none \
	--device podwire.io/hugepages=default --rootfs "$R" /bin/sh -c \
	'echo $PODWIRE_HUGEPAGES; grep " /dev/hugepages " /proc/mounts; ls /dev/hugepages | wc -l' 2>&1) ||
	fail "podman run --device podwire.io/hugepages=default: $OUT"
grep -q '^hugetlbfs /dev/hugepages hugetlbfs' <<<"$OUT" || fail "no hugetlbfs: $OUT"
expect_eq "a private hugetlbfs (no other process's files)" "0" "$(tail -n 1 <<<"$OUT")"

# ---- a clean stop removes podwired's files from /var/run/cdi ------------------------------
daemon_stop pw
expect_eq "podwire.io files in $CDI after the stop" "" "$(ls "$CDI" | grep '^podwire\.io-' || true)"
ok "podman and CDI"
