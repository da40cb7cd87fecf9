#!/bin/sh
# Every ordering plugin on a box column built in code and on the problem
# files that a sweep-count race to 1e-6 finishes in seconds:
#
#   bench/orderings.sh [OPTION...]
#
# builds bench/orderings (`make bench') and runs it; OPTIONs go to it
# (bench/orderings --help), e.g. --scheduler jacobi or --boxes 40.
set -eu
. "$(dirname "$0")/env.sh"
for f in Capsules-i122-1617 KaplasTower-i1061-4.hdf5 OneObject-i1028-138.hdf5 \
	Rover4516 BoxesStack1-i100000-32.hdf5; do
	[ -f "$problems/$f.dat" ] && set -- "$@" "$problems/$f.dat"
done
exec "$build/bench/orderings" "$@"
