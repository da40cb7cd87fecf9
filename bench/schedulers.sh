#!/bin/sh
# The schedulers on the thesis's scenes (Poulsen 2010, sec. 3.8):
#
#   bench/schedulers.sh [OPTION...] [SCENE...]
#
# builds bench/schedulers (`make bench') and runs it on SCENEs (default:
# grid-8 grid-24 grid-40 pile-8 pile-24 pile-40); OPTIONs go to it
# (bench/schedulers --help).
set -eu
. "$(dirname "$0")/env.sh"
case "$*" in
*grid-* | *pile-*) ;;
*) set -- "$@" grid-8 grid-24 grid-40 pile-8 pile-24 pile-40 ;;
esac
exec "$build/bench/schedulers" "$@"
