#!/bin/sh
# Time on 2 ranks against 1 (issue 21's target: 1.7x on grid-40), in
# runs taken in turn so that the machine's other load hits all three
# alike:
#
#   bench/mpi_pairs.sh [RUNS [SCENE]]   (default 7 ballgrid-40)
#
# Each run solves the scene's first step with 200 sweeps (bench/mpi.sh's
# t200) on one rank, on 2 ranks exchanging every sweep (E1, a global test
# every 10) and every 5 (E5, a test every 2), and prints the slowest
# rank's time of each and the speed-ups; then the speed-ups' minimum,
# median and maximum. Run it under flock /tmp/proxima-bench.lock.
set -eu
. "$(dirname "$0")/env.sh"
runs=${1:-7}
scene=${2:-ballgrid-40}
. "$(dirname "$0")/mpi_env.sh"
printf '[solver]\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = 200\n' > "$tmp/t200.ini"
# t NP [OPTION...]: the slowest rank's time (status 1, not converged, is fine)
t() {
	np=$1
	shift
	mpirun -q --oversubscribe --bind-to none -np "$np" "$prog" run --steps 1 \
		-c "$tmp/t200.ini" "$top/scenes/$scene.ini" "$@" > "$tmp/out" || [ $? -eq 1 ]
	sed -n 's/^time *\([0-9.]*\) s on the slowest.*/\1/p' "$tmp/out"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "run 1-rank-s E1-s E5-s E1-speedup E5-speedup"
i=1
while [ "$i" -le "$runs" ]; do
	a=$(t 1)
	b=$(t 2 --check-every 10)
	c=$(t 2 --exchange-every 5 --check-every 2)
	echo "$i $a $b $c" | awk '{ printf "%d %s %s %s %.2f %.2f\n", $1, $2, $3, $4, $2 / $3, $2 / $4 }'
	i=$((i + 1))
done | tee "$tmp/rows"
for col in 5 6; do
	sort -n -k "$col" "$tmp/rows" | awk -v c="$col" '{ v[NR] = $c } END {
		printf "%s: min %.2fx, median %.2fx, max %.2fx over %d runs\n",
			c == 5 ? "E1" : "E5", v[1], v[int((NR + 1) / 2)], v[NR], NR }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
