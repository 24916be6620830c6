#!/bin/bash
# A fake sysfs tree with SR-IOV PFs and VFs, and a "fake kernel" that acts on
# driver (un)binding writes, for podwired's --sysfs-root in tests.
#
# Usage
#   fake_sysfs.sh create DIR [--no-vfio] [--no-iommu VF]... [--netdev-up VF]...
#       Builds the tree in DIR (made if missing; must be empty). VF is a PCI
#       address (0000:01:10.2) or a VF netdev name (enp1s0f0v1).
#         --no-vfio      no bus/pci/drivers/vfio-pci (as without `modprobe vfio-pci`)
#         --no-iommu VF  that VF has no iommu_group link (as with the IOMMU off)
#         --netdev-up VF that VF's kernel netdev is up (flags has IFF_UP)
#   fake_sysfs.sh kernel DIR
#       Runs the fake kernel in the foreground (exec: `... kernel DIR &` makes
#       $! its PID). Ready once DIR/fake_kernel.pid exists. Stop it by PID
#       with SIGTERM; it removes the pid file.
#   fake_sysfs.sh start DIR
#       Starts the fake kernel in the background, waits until it is ready and
#       prints its PID (kill -TERM PID when done).
#   fake_sysfs.sh netdev DIR IFNAME up|down
#       Sets a netdev's IFF_UP in DIR/class/net/IFNAME/flags.
#
# The tree (all under DIR; PCI devices under devices/pci0000:00/BDF):
#   eno1      0000:00:19.0  e1000e, no SR-IOV                       iommu group 0
#   enp1s0f0  0000:01:00.0  ice, sriov_totalvfs 8, sriov_numvfs 4    group 1
#     VF 0-3  0000:01:10.0 .2 .4 .6  iavf, enp1s0f0v0-v3 (down)      groups 10-13
#   enp1s0f1  0000:01:00.1  ice, sriov_totalvfs 8, sriov_numvfs 2    group 2
#     VF 0-1  0000:01:11.0 .2        iavf, enp1s0f1v0-v1 (down)      groups 14-15
#   class/net/IF -> ../../devices/pci0000:00/BDF/net/IF (flags, device link)
#   bus/pci/devices/BDF -> ../../../devices/pci0000:00/BDF, with driver,
#     iommu_group, physfn / virtfnN links, vendor, device, driver_override
#   bus/pci/drivers/{e1000e,ice,iavf,vfio-pci}/{bind,unbind}, and links to
#     their devices; bus/pci/drivers_probe; kernel/iommu_groups/N/devices/BDF;
#     module/vfio/parameters/enable_unsafe_noiommu_mode (N) with vfio-pci.
#
# The fake kernel: bind, unbind (of every driver) and drivers_probe are FIFOs
# it serves; driver_override is a plain file it watches (inotify). Writes to
# a FIFO without the kernel running fail at once (ENXIO) for writers that
# open with O_NONBLOCK, and block otherwise. Like the PCI core it:
#   unbind BDF      removes the driver link (and a netdev driver's netdev);
#   bind BDF        binds if the device is unbound and matches the driver:
#                   driver_override names it, or (no override) the driver's
#                   ID table does (iavf/ice/e1000e; vfio-pci has no IDs);
#                   vfio-pci also needs an iommu_group. Netdev drivers bring
#                   the netdev back, down. A refused bind changes nothing.
#   drivers_probe   binds an unbound device to the matching driver.
# Its effects are asynchronous: a writer must wait for the driver link to
# change (podwired polls it). Every write is appended to the journal
# DIR/fake_kernel.journal as "<file> <value>", file relative to DIR with
# symlinks resolved, value without its newline, e.g.
#   bus/pci/drivers/iavf/unbind 0000:01:10.0
#   devices/pci0000:00/0000:01:10.0/driver_override vfio-pci
#   bus/pci/drivers/vfio-pci/bind 0000:01:10.0
#   devices/pci0000:00/0000:01:10.0/driver_override        (cleared: empty value)
#   bus/pci/drivers_probe 0000:01:10.0
# The fake kernel is a small C program (fake_kernel.c), compiled by `create`
# into DIR/fake_kernel.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
	echo "fake_sysfs.sh: $*" >&2
	exit 2
}

[ $# -ge 2 ] || die "usage: fake_sysfs.sh create|kernel|start|netdev DIR ... (see the top of $0)"
cmd=$1 dir=$2
shift 2

case "$cmd" in
create)
	mkdir -p "$dir"
	[ -z "$(ls -A "$dir")" ] || die "create: $dir is not empty"
	cc -std=gnu11 -O1 -Wall -I"$HERE" -o "$dir/fake_kernel" \
		"$HERE/fake_kernel.c" "$HERE/fake_kernel_main.c" ||
		die "create: cannot compile $HERE/fake_kernel.c (is a C compiler installed?)"
	"$dir/fake_kernel" create "$dir" "$@"
	;;
kernel)
	[ -x "$dir/fake_kernel" ] || die "kernel: $dir was not made by \`fake_sysfs.sh create\`"
	exec "$dir/fake_kernel" serve "$dir"
	;;
start)
	[ -x "$dir/fake_kernel" ] || die "start: $dir was not made by \`fake_sysfs.sh create\`"
	rm -f "$dir/fake_kernel.pid"
	"$dir/fake_kernel" serve "$dir" </dev/null >>"$dir/fake_kernel.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[ -s "$dir/fake_kernel.pid" ] && {
			echo $pid
			exit 0
		}
		kill -0 $pid 2>/dev/null || die "start: the fake kernel exited: $(cat "$dir/fake_kernel.log")"
		sleep 0.05
	done
	kill -TERM $pid 2>/dev/null || true
	die "start: the fake kernel did not get ready in 5s"
	;;
netdev)
	[ $# -eq 2 ] || die "usage: fake_sysfs.sh netdev DIR IFNAME up|down"
	[ -e "$dir/class/net/$1/flags" ] || die "netdev: no netdev $1 in $dir"
	case "$2" in
	up) echo 0x1003 >"$dir/class/net/$1/flags" ;;
	down) echo 0x1002 >"$dir/class/net/$1/flags" ;;
	*) die "netdev: say up or down, not \"$2\"" ;;
	esac
	;;
*)
	die "unknown command \"$cmd\"; use create, kernel, start or netdev"
	;;
esac
