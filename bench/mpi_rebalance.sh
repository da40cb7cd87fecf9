#!/bin/sh
# Re-balancing a distributed run (issue 36, item 1): a settling ball pile
# on 3 ranks with and without `--rebalance-every`:
#
#   bench/mpi_rebalance.sh [STEPS [K [SCENE [RANKS]]]]   (default 200 10 ballpile-8 3)
#
# Runs proxima-mpi run SCENE --steps STEPS --check-every 10 on RANKS ranks
# three ways: the boxes of the first bisection kept for the run; re-
# partitioned every K steps when the load imbalance is 1.1 or more (the
# default threshold); every K steps whatever the load (threshold 1). Per
# way, from the CSV's load_imbalance (the most own contacts of a rank over
# the mean, per step): its mean and its maximum over the run and at the
# last step; the re-partitions, the bodies they moved, the energy at the
# end, the sweeps per step and rank 0's wall time of the run. One
# markdown row per way. The runs are deterministic (repeat bit for bit);
# the times are one run's. Run it under flock /tmp/proxima-bench.lock.
set -eu
. "$(dirname "$0")/env.sh"
steps=${1:-200}
k=${2:-10}
scene=${3:-ballpile-8}
np=${4:-3}
. "$(dirname "$0")/mpi_env.sh"

field() { sed -n "s/^$1 *//p" "$tmp/out" | head -1; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "$scene, $steps steps on $np ranks:"
echo "| re-balancing | mean load imbalance | max | at the last step | re-partitions | bodies they moved | energy at the end J | sweeps per step | wall time s |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for way in none default always; do
	case $way in
	none) opts= what="none (the first bisection's boxes)" ;;
	default) opts="--rebalance-every $k" what="every $k steps at 1.1 or more" ;;
	always) opts="--rebalance-every $k --rebalance-threshold 1" what="every $k steps (threshold 1)" ;;
	esac
	# shellcheck disable=SC2086 # $opts: the options, word split
	mpirun -q --oversubscribe --bind-to none -np "$np" "$prog" run \
		"$top/scenes/$scene.ini" --steps "$steps" --check-every 10 \
		--csv "$tmp/run.csv" $opts > "$tmp/out"
	load=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "load_imbalance") c = i; next }
		{ n++; s += $c; if ($c > m) m = $c; last = $c }
		END { printf "%.3f | %.3f | %.3f", s / n, m, last }' "$tmp/run.csv")
	parts=$(field rebalance | sed -n 's/.*: \([0-9]*\) re-partitions.*, \([0-9]*\) bodies changed rank by them/\1 | \2/p')
	[ -n "$parts" ] || parts="0 | 0"
	energy=$(field energy | sed 's/.* start, \([^ ]*\) J at the end.*/\1/')
	sweeps=$(field run | sed 's/.* sweeps in all, \([^ ]*\) per step.*/\1/')
	wall=$(field 'wall time' | sed 's/ s .*//')
	echo "| $what | $load | $parts | $energy | $sweeps | $wall |"
done
