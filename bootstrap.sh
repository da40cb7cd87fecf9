#!/bin/sh
# Set up proxima on a fresh Debian 12 machine (as root) and run the default
# job, the test suite or the comparison with Siconos:
#
#   ./bootstrap.sh run     install packages, build, install, run `proxima`
#   ./bootstrap.sh check   install packages, build, run `make check` and
#                          `make distcheck`
#   ./bootstrap.sh bench [ARG...]
#                          install packages, Siconos numerics and Bullet
#                          (the peers of `make bench'), build, run
#                          bench/siconos.sh ARG... (every problem in
#                          ../shared/problems, proxima against Siconos NSGS)
set -eu

mode=${1:-}
case "$mode" in
run|check|bench) shift ;;
*) echo "usage: $0 run|check|bench [ARG...]" >&2; exit 2 ;;
esac

cd "$(dirname "$0")"

packages="build-essential autoconf automake libtool pkg-config libinih-dev libcriterion-dev libfclib-dev libhdf5-dev"
# run, check: gnuplot draws proxima compare's plots (and test_compare's)
[ "$mode" != bench ] && packages="$packages gnuplot-nox"
packages="$packages libsuitesparse-dev"  # issue 20: UMFPACK for the Newton accelerator ssn
# bench: the peers; bench/bullet_world (Bullet) is C++
[ "$mode" = bench ] && packages="$packages libsiconos-numerics-dev g++ libbullet-dev"
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
elif [ "$mode" = bench ]; then
	cd ..
	bench/siconos.sh "$@"
else
	make -j"$(nproc)" check
	make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror
fi
