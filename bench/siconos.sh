#!/bin/sh
# Compare proxima with Siconos numerics' NSGS on every problem file:
#
#   bench/siconos.sh [CONFIG] [OPTION...]
#
# builds bench/siconos_compare if needed (`make bench') and runs it with
# CONFIG (default conf/default.ini) on every *.dat in $PROXIMA_PROBLEMS
# (default ../shared/problems beside this checkout). OPTIONs go to
# siconos_compare, e.g. --max-sweeps 20000 (see siconos_compare --help).
# The build directory is $PROXIMA_BUILD_DIR, else build/ when configured
# there (./bootstrap.sh does), else the checkout itself.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)

config="$top/conf/default.ini"
case "${1:-}" in
"" | -*) ;;
*) config=$1; shift ;;
esac

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

for f in "$problems"/*.dat; do
	[ -e "$f" ] || { echo "$0: no *.dat problem files in $problems" >&2; exit 2; }
	break
done
set -- "$@" "$problems"/*.dat

make -s -C "$build" bench >&2
[ -x "$build/bench/siconos_compare" ] || {
	echo "$0: bench/siconos_compare was not built: install libsiconos-numerics-dev and rerun configure" >&2
	exit 2
}

PROXIMA_PLUGIN_PATH="$build/plugins/.libs${PROXIMA_PLUGIN_PATH:+:$PROXIMA_PLUGIN_PATH}"
export PROXIMA_PLUGIN_PATH
exec "$build/bench/siconos_compare" -c "$config" "$@"
