#!/bin/sh
# Set up proxima on a fresh Debian 12 machine (as root) and run the default
# job, the test suite, the comparison with Siconos, or build its Debian
# packages:
#
#   ./bootstrap.sh run     install packages, build, install, run `proxima`
#   ./bootstrap.sh check   install packages, build, run `make check` and
#                          `make distcheck`
#   ./bootstrap.sh bench [ARG...]
#                          install packages, Siconos numerics (C and
#                          Python) and Bullet
#                          (the peers of `make bench'), build, run
#                          bench/siconos.sh ARG... (every problem in
#                          ../shared/problems, proxima against Siconos NSGS)
#   ./bootstrap.sh harden  install packages, clang's libFuzzer, libomp and
#                          valgrind, run tests/hardening.sh: make check
#                          under ASan and UBSan, the command's tests under
#                          valgrind, every fuzz target for $FUZZ_SECONDS
#                          (default 60) and the OpenMP schedulers under
#                          ThreadSanitizer
#   ./bootstrap.sh deb     build the Debian packages in a fresh minimal
#                          Debian 12 root holding only their Build-Depends,
#                          run lintian on them and autopkgtest on them in a
#                          second fresh root; the .deb files land in debs/
#
# The packages that the build and the tests need are named in one place:
# Build-Depends in debian/control, installed here by `apt-get build-dep`.
set -eu

mode=${1:-}
case "$mode" in
run|check|bench|harden|deb) shift ;;
*) echo "usage: $0 run|check|bench|harden|deb [ARG...]" >&2; exit 2 ;;
esac

cd "$(dirname "$0")"

if [ "$mode" = deb ]; then
	exec tools/debs.sh "$@"
fi

export DEBIAN_FRONTEND=noninteractive
apt_updated=no
apt_install() {
	[ $apt_updated = yes ] || apt-get update -q
	apt_updated=yes
	apt-get install -y -q --no-install-recommends "$@"
}

# Build-Depends (debian/control); dpkg-checkbuilddeps comes with them
if ! command -v dpkg-checkbuilddeps > /dev/null ||
	! dpkg-checkbuilddeps 2> /dev/null; then
	apt-get update -q
	apt_updated=yes
	apt-get build-dep -y -q --no-install-recommends ./
fi
# check and bench: SimGrid's SMPI (smpicc, smpirun) for mpi/proxima-smpi,
# tests/smpi.sh and bench/smpi.sh;
# bench: the peers (Siconos numerics, and its Python module for
# bench/python_siconos.py; bench/bullet_world is C++ on Bullet), and the
# counters of bench/roofline.sh (perf stat, else cachegrind);
# harden: clang with libFuzzer and the sanitizers' runtimes, clang's OpenMP
# (libomp, with Archer for ThreadSanitizer) and valgrind
extra=""
[ "$mode" = check ] && extra="libsimgrid-dev"
[ "$mode" = bench ] && extra="libsiconos-numerics-dev python3-siconos g++ libbullet-dev libsimgrid-dev linux-perf valgrind"
[ "$mode" = harden ] && extra="clang libclang-rt-14-dev libomp-dev valgrind"
if [ -n "$extra" ]; then
	missing=""
	for p in $extra; do
		dpkg-query -W -f='${Status}' "$p" 2> /dev/null |
			grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] || apt_install $missing
fi

autoreconf -fi
if [ "$mode" = harden ]; then
	exec tests/hardening.sh asan valgrind fuzz tsan
fi
# The optional parts are required here: the bootstrap installed what they
# need, and a part that configure dropped would silently drop its tests.
with_all="--with-siconos --with-umfpack --with-fclib --with-mpi --with-python"
[ "$mode" = run ] || with_all="$with_all --with-smpi"
# Out of tree: configure's link tests run "rm -f core", which complains when
# the current directory holds our core/ source directory.
mkdir -p build
cd build
../configure --enable-werror $with_all
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
	make -j"$(nproc)" distcheck \
		DISTCHECK_CONFIGURE_FLAGS="--enable-werror $with_all"
fi
