#!/bin/sh
# ./bootstrap.sh deb: proxima's Debian packages, built and checked the way a
# Debian maintainer would, each stage in a fresh minimal Debian 12 root
# (tools/cleanroot.sh):
#
#   root        a fresh root (tools/cleanroot.sh) with the tracked files of
#               this checkout
#   build-deps  `apt-get build-dep ./`: Build-Depends alone, so that the
#               build proves them complete
#   build       `dpkg-buildpackage -us -uc -b`, which runs `make check`
#   lintian     lintian on the built packages; any error or warning fails
#   autopkgtest debian/tests on the *installed* packages, in a second fresh
#               root (autopkgtest's null virtualization server inside it)
#
# The .deb files and every stage's log land in debs/ (or $PROXIMA_DEBS). A
# failing stage ends the command with status 1 and one line naming the
# stage and its log.
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
out=${PROXIMA_DEBS:-$src/debs}
# the roots, new for each run (several runs may go on at once)
mkdir -p /var/tmp/proxima
work=$(mktemp -d /var/tmp/proxima/debs.XXXXXX)
build_root=$work/build
test_root=$work/test

rm -rf "$out"
mkdir -p "$out/logs"
cleanup() {
	tools/cleanroot.sh rm "$build_root"
	tools/cleanroot.sh rm "$test_root"
	rmdir "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stage NAME CMD...: run CMD with its output in debs/logs/NAME.log, print
# the time, or one line naming the stage and its log and exit 1. (set -e
# does not hold inside a condition: the stages chain their steps with &&.)
stage() {
	name=$1
	shift
	log=$out/logs/$name.log
	start=$(date +%s)
	if "$@" > "$log" 2>&1; then
		echo "deb: $name: $(($(date +%s) - start)) s (log: $log)"
	else
		tail -n 30 "$log" >&2
		echo "deb: stage '$name' failed after $(($(date +%s) - start)) s; its log is $log" >&2
		exit 1
	fi
}

root_with_source() {
	tools/cleanroot.sh new "$build_root" &&
	mkdir -p "$build_root/build/proxima" &&
	git ls-files -z | tar --null -T - -cf - |
		tar -C "$build_root/build/proxima" -xf -
}

build_deps_in_root() {
	tools/cleanroot.sh exec "$build_root" '
		set -e
		apt-get update -q
		cd /build/proxima
		apt-get build-dep -y -q --no-install-recommends ./'
}

build_in_root() {
	tools/cleanroot.sh exec "$build_root" '
		cd /build/proxima && dpkg-buildpackage -us -uc -b -j"$(nproc)"' &&
	cp "$build_root"/build/*.deb "$build_root"/build/*.changes \
		"$build_root"/build/*.buildinfo "$out/"
}

lintian_in_root() {
	tools/cleanroot.sh exec "$build_root" '
		set -e
		apt-get install -y -q --no-install-recommends lintian > /dev/null
		cd /build
		lintian --version
		lintian --display-info --fail-on error,warning *.changes
		echo "lintian: no error, no warning"'
}

autopkgtest_in_root() {
	tools/cleanroot.sh new "$test_root" &&
	mkdir -p "$test_root/debs" "$test_root/src" &&
	cp "$out"/*.deb "$test_root/debs/" &&
	cp -r "$build_root/build/proxima/debian" "$test_root/src/" &&
	tools/cleanroot.sh exec "$test_root" '
		set -e
		apt-get update -q
		apt-get install -y -q --no-install-recommends autopkgtest > /dev/null
		autopkgtest --no-built-binaries /debs/*.deb /src/ -- null'
}

stage root root_with_source
stage build-deps build_deps_in_root
stage build build_in_root
stage lintian lintian_in_root
cp "$out/logs/lintian.log" "$out/lintian.txt"
stage autopkgtest autopkgtest_in_root
echo "deb: packages in $out:"
ls "$out"/*.deb
echo "deb: autopkgtest summary:"
awk '/@@@@ summary$/ { on = 1; next } /^autopkgtest \[/ { on = 0 } on' \
	"$out/logs/autopkgtest.log"
