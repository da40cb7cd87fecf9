#!/bin/sh
# Set up proxima on a fresh Debian 12 machine (as root) and either run the
# default job or the test suite:
#
#   ./bootstrap.sh run     install packages, build, install, run `proxima`
#   ./bootstrap.sh check   install packages, build, run `make check` and
#                          `make distcheck`
set -eu

mode=${1:-}
case "$mode" in
run|check) ;;
*) echo "usage: $0 run|check" >&2; exit 2 ;;
esac

cd "$(dirname "$0")"

packages="build-essential autoconf automake libtool pkg-config libinih-dev libcriterion-dev"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends $missing
fi

autoreconf -fi
# Out of tree: configure's link tests run "rm -f core", which complains when
# the current directory holds our core/ source directory.
mkdir -p build
cd build
../configure --enable-werror
make -j"$(nproc)"

if [ "$mode" = run ]; then
	make install
	ldconfig
	proxima
else
	make -j"$(nproc)" check
	make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror
fi
