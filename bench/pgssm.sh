#!/bin/sh
# PGS against PGS with the pgssm accelerator (Silcowitz et al. 2010) at equal
# work, on Silcowitz et al.'s (2010) test cases built in code and on the shared
# problems:
#
#   bench/pgssm.sh [OPTION...]
#
# builds bench/pgssm (`make bench') and runs it; OPTIONs go to it
# (bench/pgssm --help), e.g. --friction box or --set cg_max=0.
set -eu
. "$(dirname "$0")/env.sh"
for f in BoxesStack1-i100000-32.hdf5.dat KaplasTower-i1061-4.hdf5.dat \
	OneObject-i1028-138.hdf5.dat Rover1040.dat Rover4516.dat \
	NESpheres_10_1.dat Capsules-i122-1617.dat; do
	[ -f "$problems/$f" ] && set -- "$@" "$problems/$f"
done
exec "$build/bench/pgssm" "$@"
