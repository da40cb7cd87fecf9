#!/bin/sh
# Every ordering plugin on a box column built in code and on the problem
# files that a sweep-count race to 1e-6 finishes in reasonable time:
#
#   bench/orderings.sh [OPTION...]
#
# builds bench/orderings (`make bench') and runs it; OPTIONs go to it
# (bench/orderings --help), e.g. --scheduler jacobi or --boxes 40. The
# problems are $PROXIMA_PROBLEMS (default ../shared/problems beside this
# checkout); the build directory is found as in bench/siconos.sh.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
problems=${PROXIMA_PROBLEMS:-"$top/../shared/problems"}
if [ -n "${PROXIMA_BUILD_DIR:-}" ]; then
	build=$PROXIMA_BUILD_DIR
elif [ -f "$top/build/Makefile" ]; then
	build="$top/build"
elif [ -f "$top/Makefile" ]; then
	build=$top
else
	echo "$0: proxima is not configured: run ./bootstrap.sh bench, or ./configure" >&2
	exit 2
fi

set -- "$@"
for f in Capsules-i122-1617 KaplasTower-i1061-4.hdf5 OneObject-i1028-138.hdf5 \
	Rover4516 BoxesStack1-i100000-32.hdf5; do
	[ -f "$problems/$f.dat" ] && set -- "$@" "$problems/$f.dat"
done

make -s -C "$build" bench >&2

PROXIMA_PLUGIN_PATH="$build/plugins/.libs${PROXIMA_PLUGIN_PATH:+:$PROXIMA_PLUGIN_PATH}"
export PROXIMA_PLUGIN_PATH
exec "$build/bench/orderings" "$@"
