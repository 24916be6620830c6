#!/bin/bash
# Builds a tiny QEMU guest for tests/smoke/test_qemu_guest.sh: a kernel
# with virtio_net (built in, or a module put into the initramfs) and an
# initramfs of a static busybox and tests/qemu/init. Made at test time,
# in OUT: OUT/vmlinuz, OUT/initrd.gz, OUT/kernel (which one was taken).
#
# The kernel, first that has virtio_net and virtio_pci:
#   - PODWIRE_GUEST_KERNEL (a vmlinuz), its modules in PODWIRE_GUEST_MODULES;
#   - the host's own, /boot/vmlinuz-$(uname -r) and /lib/modules/$(uname -r);
#   - Debian's cloud kernel unpacked by tests/qemu/fetch-kernel.sh (.ci/setup
#     runs it) in PODWIRE_GUEST_KERNEL_DIR (/var/cache/podwire/guest-kernel).
# Exits 2 when there is none, saying how to get one.
# Usage: tests/qemu/build-guest.sh OUT
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build-guest.sh OUT}
BUSYBOX=${PODWIRE_BUSYBOX:-/bin/busybox}
KDIR=${PODWIRE_GUEST_KERNEL_DIR:-/var/cache/podwire/guest-kernel}
WANT="virtio_pci virtio_net"

# mod_file MODDIR NAME: the module's file (names differ in - and _ only).
mod_file() {
	local re=${2//[-_]/[-_]}
	find "$1" -regextype posix-extended -regex ".*/${re}\.ko(\.(xz|zst|gz))?" -print -quit
}

# mod_cat FILE: the module, uncompressed (busybox's insmod takes plain .ko).
mod_cat() {
	case "$1" in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# builtin CONFIG MODDIR NAME: whether NAME is part of the kernel image.
builtin() {
	local sym
	sym=CONFIG_$(echo "$3" | tr '[:lower:]' '[:upper:]')
	{ [ -f "$1" ] && grep -q "^$sym=y" "$1"; } ||
		{ [ -f "$2/modules.builtin" ] && grep -Eq "/$3\.ko$" "$2/modules.builtin"; }
}

# has_all VMLINUZ CONFIG MODDIR: the kernel can drive a virtio-net-pci NIC.
has_all() {
	local m
	[ -r "$1" ] || return 1
	for m in $WANT; do
		builtin "$2" "$3" "$m" || { [ -d "$3" ] && [ -n "$(mod_file "$3" "$m")" ]; } ||
			return 1
	done
}

kernel='' config='' moddir=''
if [ -n "${PODWIRE_GUEST_KERNEL:-}" ]; then
	kernel=$PODWIRE_GUEST_KERNEL
	moddir=${PODWIRE_GUEST_MODULES:-/nonexistent}
	has_all "$kernel" /nonexistent "$moddir" || {
		echo "build-guest: PODWIRE_GUEST_KERNEL=$kernel: no $WANT in $moddir" \
			"(PODWIRE_GUEST_MODULES)" >&2
		exit 2
	}
fi
r=$(uname -r)
if [ -z "$kernel" ] && has_all "/boot/vmlinuz-$r" "/boot/config-$r" "/lib/modules/$r"; then
	kernel=/boot/vmlinuz-$r config=/boot/config-$r moddir=/lib/modules/$r
fi
if [ -z "$kernel" ]; then
	for k in "$KDIR"/boot/vmlinuz-*; do
		v=${k##*/vmlinuz-}
		if has_all "$k" "$KDIR/boot/config-$v" "$KDIR/lib/modules/$v"; then
			kernel=$k config=$KDIR/boot/config-$v moddir=$KDIR/lib/modules/$v
			break
		fi
	done
fi
if [ -z "$kernel" ]; then
	echo "build-guest: no kernel with $WANT: not the host's (/boot/vmlinuz-$r)," \
		"none in $KDIR; run: bash tests/qemu/fetch-kernel.sh" >&2
	exit 2
fi
# ldd fails on a static executable: the initramfs has no libraries.
if [ ! -x "$BUSYBOX" ] || ldd "$BUSYBOX" >/dev/null 2>&1; then
	echo "build-guest: $BUSYBOX is not a static busybox; apt-get install busybox-static" >&2
	exit 2
fi

root=$OUT/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,etc,lib/modules}
cp "$BUSYBOX" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 755 "$HERE/init" "$root/init"

# Modules, each after those it depends on (its .modinfo "depends=").
declare -A done_mod=()
order=()
add_mod() {
	local name=$1 f dep deps
	[ -z "${done_mod[$name]:-}" ] || return 0
	done_mod[$name]=1
	builtin "$config" "$moddir" "$name" && return 0
	f=$(mod_file "$moddir" "$name")
	[ -n "$f" ] || {
		echo "build-guest: module $name (needed for $WANT) is not in $moddir" >&2
		exit 2
	}
	mod_cat "$f" >"$root/lib/modules/$name.ko"
	deps=$(tr '\0' '\n' <"$root/lib/modules/$name.ko" | sed -n 's/^depends=//p' | head -n 1)
	for dep in ${deps//,/ }; do add_mod "$dep"; done
	order+=("$name.ko")
}
for m in $WANT; do add_mod "$m"; done
printf '%s\n' "${order[@]}" >"$root/etc/modules.load"

(cd "$root" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -1 >"$OUT/initrd.gz"
cp "$kernel" "$OUT/vmlinuz"
echo "$kernel (modules: ${order[*]:-none, built in})" >"$OUT/kernel"
rm -rf "$root"
