#!/bin/sh
# Performance profiles of proxima configs against Siconos numerics (issue
# 20) on every problem file:
#
#   bench/profiles.sh [OPTION...]
#
# builds bench/profiles if needed (`make bench') and runs it, under the
# bench lock (/tmp/proxima-bench.lock), on every *.dat, *.hdf5 and *.h5 in
# $PROXIMA_PROBLEMS (default ../shared/problems beside this checkout), with
# the configs conf/default.ini, conf/pgssm.ini, conf/robust.ini,
# conf/prox.ini and conf/auto.ini (when the ssn, prox and auto plugins
# were built) and Siconos's
# NSGS, NSGS with local projection iterations, PROX and NSN-AC, at fc3d
# 1e-8 and 1e-4 with a 10 s limit per solve, each solve in a child process
# capped at 4 GiB and killed 1 s past the limit (--mem-limit, --margin).
# The profiles' data and gnuplot script go to $PROFILES_OUT
# (default bench-profiles/ in the build directory), drawn when gnuplot is
# installed. OPTIONs go to bench/profiles (see bench/profiles --help).
set -eu

. "$(dirname "$0")/env.sh"
[ -x "$build/bench/profiles" ] || {
	echo "$0: bench/profiles was not built: install libsiconos-numerics-dev and rerun configure" >&2
	exit 2
}
files=
for f in "$problems"/*.dat "$problems"/*.hdf5 "$problems"/*.h5; do
	[ -e "$f" ] && files="$files $f"
done
[ -n "$files" ] || { echo "$0: no problem files in $problems" >&2; exit 2; }
out=${PROFILES_OUT:-"$build/bench-profiles"}
mkdir -p "$out"
configs="--config default=$top/conf/default.ini --config pgssm=$top/conf/pgssm.ini"
[ -e "$build/plugins/.libs/accelerator_ssn.so" ] &&
	configs="$configs --config robust=$top/conf/robust.ini"
[ -e "$build/plugins/.libs/accelerator_prox.so" ] &&
	configs="$configs --config prox=$top/conf/prox.ini"
[ -e "$build/plugins/.libs/accelerator_auto.so" ] &&
	configs="$configs --config auto=$top/conf/auto.ini"
# shellcheck disable=SC2086 # word splitting of the lists is wanted
flock /tmp/proxima-bench.lock "$build/bench/profiles" $configs \
	--time-limit 10 --plot "$out/profile" "$@" $files
if command -v gnuplot >/dev/null 2>&1; then
	(cd "$out" && gnuplot profile.gp) && echo "plots: $out/profile-*.png" >&2
fi
