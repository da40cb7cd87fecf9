#!/bin/sh
# Issue 23's two time targets, in runs taken in turn so that the machine's
# other load hits both sides alike (a single run's ratio moves by 10 %):
#
#   bench/substep_pairs.sh [RUNS]   (default 7)
#
# boxstack-20 at work 20: today (20 sweeps, one solve) against sub1_r (1
# sweep in each of 20 substeps, the random ordering: with identity the
# column's top sways 2.9 cm); boxstack-40 at work 100: today (100 sweeps)
# against sub5_r (5 sweeps in each of 20 substeps, the random ordering);
# as bench/substep.sh runs them (bench/world, dt 1/60 s, 600
# steps). Prints each run's CPU ms per step and ratio, then the ratios'
# minimum, median and maximum. Target: at most 1.5. Run it under
# flock /tmp/proxima-bench.lock.
set -eu
. "$(dirname "$0")/env.sh"
runs=${1:-7}
dt=0.016666666666666666
key() { # key NAME LINE: the value of NAME=... in LINE
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
ms() { # ms SCENE SWEEPS SUBSTEPS [OPTION...]: CPU ms per step
	scene=$1 sweeps=$2 sub=$3
	shift 3
	key cpu_ms_per_step "$("$build/bench/world" "$top/scenes/$scene.ini" \
		--steps 600 --warmup 1 --dt "$dt" --iterations "$sweeps" \
		--substeps "$sub" "$@")"
}
pairs() { # pairs LABEL SCENE WORK SWEEPS SUBSTEPS [OPTION...]
	label=$1 scene=$2 work=$3 sweeps=$4 sub=$5
	shift 5
	echo "$label: $scene at work $work, today ($work x 1) against $sweeps x $sub $*"
	i=1
	while [ "$i" -le "$runs" ]; do
		a=$(ms "$scene" "$work" 1)
		b=$(ms "$scene" "$sweeps" "$sub" "$@")
		echo "$a $b" | awk '{ printf "  %s ms %s ms %.3f\n", $1, $2, $2 / $1 }'
		i=$((i + 1))
	done | tee "$tmp"
	awk '{ print $5 }' "$tmp" | sort -n | awk -v l="$label" '{ v[NR] = $1 } END {
		printf "%s: min %.2fx, median %.2fx, max %.2fx over %d runs\n",
			l, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
pairs sub1_r boxstack-20 20 1 20 --ordering random
pairs sub5_r boxstack-40 100 5 20 --ordering random
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
