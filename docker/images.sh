#!/bin/bash
# Builds podwire's Docker images from what is installed on this machine
# (Debian packages and podwire's build), with no registry: each image is a
# root file system assembled from installed binaries and the libraries they
# load, then `docker import`ed.
#
#   podwire/net       busybox (sh, ip, ping, ...) and iperf3: a kernel container
#   podwire/dpdk      dpdk-testpmd, podwire-vdev and busybox: a DPDK container
#                     (virtio-user and memif PMDs)
#   podwire/podwired  podwired and podwirectl: podwired itself under Docker
#                     (run it privileged, --network host, with /dev/hugepages,
#                     /run/podwire and /var/lib/podwire mounted; see README.md)
#
# Usage: docker/images.sh [--docker "CMD"] [--build DIR] [--tag TAG] [IMAGE...]
#   --docker  the docker command to use (default: docker), e.g.
#             "docker -H unix:///tmp/d/docker.sock"
#   --build   podwire's build directory (default: build, then the installed binaries)
#   --tag     image tag (default: latest)
# IMAGE: net, dpdk, podwired (default: all three).
# Needs: busybox-static, iperf3, dpdk (dpdk-testpmd), a podwire build.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DOCKER=docker
BUILD=$ROOT/build
TAG=latest
IMAGES=()
while [ $# -gt 0 ]; do
	case $1 in
	--docker) DOCKER=$2; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	--tag) TAG=$2; shift 2 ;;
	-h | --help) sed -n '/^# Usage/,/^# Needs/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	net | dpdk | podwired) IMAGES+=("$1"); shift ;;
	*) echo "images.sh: unknown argument \"$1\"; see --help" >&2; exit 2 ;;
	esac
done
[ ${#IMAGES[@]} -gt 0 ] || IMAGES=(net dpdk podwired)

die() {
	echo "images.sh: $*" >&2
	exit 1
}

# A podwire binary: from the build directory, else the installed one.
podwire_bin() {
	local b
	for b in "$BUILD/$1" "$(command -v "$1" 2>/dev/null || true)"; do
		[ -n "$b" ] && [ -x "$b" ] && { echo "$b"; return; }
	done
	die "$1 is neither built in $BUILD nor installed; run: meson setup build && ninja -C build"
}

# copy_link ROOTFS PATH: PATH into ROOTFS as it is here: each symbolic link
# on the way kept as a link (so the loader sees one file per library, as
# here), then the file itself.
copy_link() {
	local rootfs=$1 p=$2 t
	while [ -L "$p" ]; do
		t=$(readlink "$p")
		mkdir -p "$rootfs$(dirname "$p")"
		[ -e "$rootfs$p" ] || [ -L "$rootfs$p" ] || ln -s "$t" "$rootfs$p"
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
	done
	mkdir -p "$rootfs$(dirname "$p")"
	[ -e "$rootfs$p" ] || cp "$p" "$rootfs$p"
}

# copy_with_libs ROOTFS FILE...: each file at its own path in ROOTFS, and
# every library it loads (as ldd resolves them on this machine).
copy_with_libs() {
	local rootfs=$1 f lib
	shift
	for f in "$@"; do
		copy_link "$rootfs" "$f"
		ldd "$f" 2>/dev/null | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}' |
			while read -r lib; do copy_link "$rootfs" "$lib"; done
	done
}

# install_bin ROOTFS SRC DEST: SRC at DEST in ROOTFS, with its libraries.
install_bin() {
	copy_with_libs "$1" "$2"
	if [ "$2" != "$3" ]; then
		mkdir -p "$1$(dirname "$3")"
		mv "$1$2" "$1$3"
		rmdir -p "$1$(dirname "$2")" 2>/dev/null || true
	fi
}

# The base of every image: busybox as /bin/sh and its applets, /tmp, /etc.
base_rootfs() {
	local rootfs=$1
	[ -x /bin/busybox ] || die "/bin/busybox is missing (apt-get install busybox-static)"
	mkdir -p "$rootfs"/{bin,sbin,etc,tmp,proc,sys,dev,run,var/run,root}
	chmod 1777 "$rootfs/tmp"
	cp /bin/busybox "$rootfs/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ -e "$rootfs/bin/$a" ] || ln -s busybox "$rootfs/bin/$a"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
		>"$rootfs/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
	# copy_with_libs puts libraries at their Debian paths; make the
	# merged-/usr links the loader expects.
	mkdir -p "$rootfs/usr/lib" "$rootfs/usr/bin"
	ln -s usr/lib "$rootfs/lib"
	ln -s usr/lib "$rootfs/lib64"
}

# The EAL loads every PMD of its plugin directory: give it the ones a
# container needs (all of them for podwired).
dpdk_pmds() {
	local rootfs=$1 which=$2 dir f
	dir=$(ls -d /usr/lib/x86_64-linux-gnu/dpdk/pmds-* | head -n1)
	[ -d "$dir" ] || die "no DPDK plugin directory under /usr/lib/x86_64-linux-gnu/dpdk (apt-get install dpdk)"
	mkdir -p "$rootfs$dir"
	for f in "$dir"/*.so; do
		case "$which:$(basename "$f")" in
		all:* | *:librte_net_virtio.so | *:librte_net_memif.so | *:librte_mempool_ring.so | \
			*:librte_bus_vdev.so | *:librte_bus_pci.so | *:librte_net_ring.so) ;;
		*) continue ;;
		esac
		copy_with_libs "$rootfs" "$f"
	done
}

build_image() {
	local name=$1 rootfs=$2
	shift 2
	tar -C "$rootfs" -c . | $DOCKER import "$@" - "podwire/$name:$TAG" >/dev/null
	echo "images.sh: podwire/$name:$TAG ($(du -sh "$rootfs" | cut -f1))"
}

WORK=$(mktemp -d /tmp/pwimg.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

for img in "${IMAGES[@]}"; do
	r=$WORK/$img
	base_rootfs "$r"
	case $img in
	net)
		command -v iperf3 >/dev/null || die "iperf3 is missing (apt-get install iperf3)"
		copy_with_libs "$r" "$(command -v iperf3)"
		build_image net "$r" --change 'CMD ["/bin/sh"]'
		;;
	dpdk)
		command -v dpdk-testpmd >/dev/null || die "dpdk-testpmd is missing (apt-get install dpdk)"
		copy_with_libs "$r" "$(command -v dpdk-testpmd)"
		install_bin "$r" "$(podwire_bin podwire-vdev)" /usr/local/bin/podwire-vdev
		dpdk_pmds "$r" container
		build_image dpdk "$r" --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin'
		;;
	podwired)
		install_bin "$r" "$(podwire_bin podwired)" /usr/local/sbin/podwired
		install_bin "$r" "$(podwire_bin podwirectl)" /usr/local/bin/podwirectl
		dpdk_pmds "$r" all
		build_image podwired "$r" --change 'ENTRYPOINT ["/usr/local/sbin/podwired"]' \
			--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/bin:/bin'
		;;
	esac
done
