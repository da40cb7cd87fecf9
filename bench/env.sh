# Sourced by the bench/*.sh scripts (and doc/experiments/common.sh, which
# sets PX_TOP first): sets $top (the checkout), $problems
# ($PROXIMA_PROBLEMS, default ../shared/problems beside the checkout) and
# $build ($PROXIMA_BUILD_DIR, else build/ when configured there, as
# ./bootstrap.sh does, else the checkout itself), builds the benchmarks
# (`make bench') and puts the built plugins first on PROXIMA_PLUGIN_PATH.
top=${PX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
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
make -s -C "$build" bench >&2
PROXIMA_PLUGIN_PATH="$build/plugins/.libs${PROXIMA_PLUGIN_PATH:+:$PROXIMA_PLUGIN_PATH}"
export PROXIMA_PLUGIN_PATH
