#!/bin/sh
# A fresh minimal Debian 12 root, for CI (.ci/run) and the package build
# (./bootstrap.sh deb): nothing in it but Debian's minbase, git and
# ca-certificates, so a package that the project's scripts do not install is
# missing there as on a new machine.
#
#   tools/cleanroot.sh new DIR          a fresh root in DIR, copied from the
#                                       cache (made first when absent)
#   tools/cleanroot.sh exec DIR CMD     run the shell command CMD as root in
#                                       DIR, with /proc, /sys and /dev mounted
#                                       for it and unmounted after
#   tools/cleanroot.sh rm DIR           unmount what is left and remove DIR
#
# The cache is a tarball made by mmdebstrap (Debian package, installed here
# when absent) from bookworm, bookworm-updates and bookworm-security:
# $PROXIMA_ROOT_CACHE, default /var/cache/proxima/bookworm-minbase.tar. It
# never receives anything of the project's: every root is a new copy.
# Remove the tarball to make it anew. Needs root (chroot and mount).
set -eu

cache=${PROXIMA_ROOT_CACHE:-/var/cache/proxima/bookworm-minbase.tar}
mirror=${PROXIMA_DEBIAN_MIRROR:-http://deb.debian.org}

die() { echo "cleanroot: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] ||
	die "making a root needs root (chroot and mount); run as root"

make_cache() {
	if ! command -v mmdebstrap > /dev/null; then
		echo "cleanroot: installing mmdebstrap" >&2
		DEBIAN_FRONTEND=noninteractive apt-get update -q > /dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends mmdebstrap > /dev/null ||
			die "could not install mmdebstrap (apt-get install mmdebstrap)"
	fi
	mkdir -p "$(dirname "$cache")"
	start=$(date +%s)
	mmdebstrap --quiet --format=tar --variant=minbase --include=git,ca-certificates \
		bookworm "$cache.new" \
		"deb $mirror/debian bookworm main" \
		"deb $mirror/debian bookworm-updates main" \
		"deb $mirror/debian-security bookworm-security main" ||
		{ rm -rf "$cache.new"
		  die "mmdebstrap failed to make $cache (no privileges for chroot and mount, or no network to $mirror?)"; }
	mv "$cache.new" "$cache"
	echo "cleanroot: made $cache in $(($(date +%s) - start)) s" >&2
}

unmount_all() {
	for m in sys proc dev; do
		if mountpoint -q "$1/$m" 2> /dev/null; then
			umount -R "$1/$m" || umount -lR "$1/$m"
		fi
	done
}

cmd=${1:-}
dir=${2:-}
[ -n "$dir" ] || die "usage: $0 new|exec|rm DIR [CMD]"
case $cmd in
new)
	[ -f "$cache" ] || make_cache
	if [ -e "$dir" ]; then
		unmount_all "$dir"
		rm -rf "$dir"
	fi
	mkdir -p "$dir"
	start=$(date +%s)
	tar -C "$dir" -xf "$cache" || die "could not unpack $cache into $dir"
	cp /etc/resolv.conf "$dir/etc/resolv.conf"
	echo "cleanroot: fresh root in $dir ($(($(date +%s) - start)) s from $cache)" >&2
	;;
exec)
	[ $# -eq 3 ] || die "usage: $0 exec DIR CMD"
	[ -x "$dir/bin/sh" ] || die "$dir is not a root (make it with: $0 new $dir)"
	trap 'unmount_all "$dir"' EXIT
	trap 'exit 130' INT TERM
	mount -t proc proc "$dir/proc" &&
		mount -t sysfs sysfs "$dir/sys" &&
		mount --rbind /dev "$dir/dev" ||
		die "could not mount /proc, /sys and /dev in $dir (no privileges?)"
	chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive CI="${CI:-}" /bin/sh -c "$3"
	;;
rm)
	unmount_all "$dir"
	rm -rf "$dir"
	;;
*)
	die "usage: $0 new|exec|rm DIR [CMD]"
	;;
esac
