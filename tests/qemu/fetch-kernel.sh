#!/bin/bash
# Unpacks Debian's cloud kernel (linux-image-cloud-amd64: virtio_net as a
# module, a small image) into DIR for tests/qemu/build-guest.sh, when the
# host's own kernel cannot boot a guest (none in /boot, as in a container
# or a microVM). Unpacked, never installed: installing a kernel package
# would add a boot entry to the machine and run its initramfs hooks.
# Idempotent: a DIR that already holds a kernel is left alone.
# Usage: tests/qemu/fetch-kernel.sh [DIR]   (default /var/cache/podwire/guest-kernel)
set -euo pipefail
DIR=${1:-/var/cache/podwire/guest-kernel}

if compgen -G "$DIR/boot/vmlinuz-*" >/dev/null; then
	echo "fetch-kernel: $(basename "$DIR"/boot/vmlinuz-*) already in $DIR"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt's download user (_apt) must be able to write where it downloads.
chmod 755 "$tmp"
# download: the current image package (the meta package's only Depends),
# into $tmp; prints the .deb's path.
download() {
	local pkg
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	[ -n "$pkg" ] || return 1
	# (apt warns that it downloads as root: not news here.)
	(cd "$tmp" && { apt-get download -qq "$pkg" 2>&1 | grep -v 'unsandboxed' >&2; })
	compgen -G "$tmp/${pkg}_*.deb"
}
# Package lists that are missing or older than the mirror: updated once.
deb=$(download) || { apt-get update -qq && deb=$(download); } || {
	echo "fetch-kernel: cannot download Debian's linux-image-cloud-amd64" >&2
	exit 1
}
mkdir -p "$tmp/x"
dpkg-deb -x "$deb" "$tmp/x"
# Only what a guest needs: the image, its config and the modules.
rm -rf "$DIR.new"
mkdir -p "$DIR.new/boot" "$DIR.new/lib"
cp "$tmp"/x/boot/vmlinuz-* "$tmp"/x/boot/config-* "$DIR.new/boot/"
cp -a "$tmp/x/lib/modules" "$DIR.new/lib/"
rm -rf "$DIR"
mv "$DIR.new" "$DIR"
echo "fetch-kernel: $(basename "$deb") unpacked in $DIR"
