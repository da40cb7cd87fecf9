#!/bin/sh
# Compare proxima with Siconos numerics' NSGS on every problem file:
#
#   bench/siconos.sh [CONFIG] [OPTION...]
#
# builds bench/siconos_compare if needed (`make bench') and runs it with
# CONFIG (default conf/default.ini) on every *.dat in $PROXIMA_PROBLEMS
# (default ../shared/problems beside this checkout). OPTIONs go to
# siconos_compare, e.g. --max-sweeps 20000 (see siconos_compare --help).
# The build directory is found as bench/env.sh says.
set -eu

config=
case "${1:-}" in
"" | -*) ;;
*) config=$1; shift ;;
esac

. "$(dirname "$0")/env.sh"
config=${config:-"$top/conf/default.ini"}
[ -x "$build/bench/siconos_compare" ] || {
	echo "$0: bench/siconos_compare was not built: install libsiconos-numerics-dev and rerun configure" >&2
	exit 2
}
for f in "$problems"/*.dat; do
	[ -e "$f" ] || { echo "$0: no *.dat problem files in $problems" >&2; exit 2; }
	break
done
exec "$build/bench/siconos_compare" -c "$config" "$@" "$problems"/*.dat
