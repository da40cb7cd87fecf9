#!/bin/sh
# Stepping a world across ranks (issue 21) against the serial run, at
# equal work (50 sweeps per step, no tolerance), runs taken in turn:
#
#   bench/mpi_run.sh [STEPS [RUNS [SCENE...]]]   (default 20 3 ballgrid-24 ballpile-24)
#
# Per scene and run: `proxima run` (serial), then proxima-mpi run on 1
# rank and on 2 ranks (exchanging every sweep, a global test every 10);
# the time of the steps (serial: its step times' sum; ranks: rank 0's
# wall time of the run), and the speed-ups of 2 ranks over the serial run
# and over 1 rank. One markdown row per scene: the median over the runs
# of each, the energy at the end and the deepest penetration of each (the
# same in every run: the runs are deterministic), and the bodies that
# changed rank. Run it under flock /tmp/proxima-bench.lock.
set -eu
. "$(dirname "$0")/env.sh"
steps=${1:-20}
runs=${2:-3}
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- ballgrid-24 ballpile-24
. "$(dirname "$0")/mpi_env.sh"
printf '[solver]\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = 50\n' > "$tmp/w50.ini"

field() { sed -n "s/^$1 *//p" "$tmp/out" | head -1; }
end_energy() { field energy | sed 's/.* start, \([^ ]*\) J at the end.*/\1/'; }
depth() { field "$1" | sed 's/.*deepest penetration \([^ ]*\) m.*/\1/'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "| scene | steps | serial s | 1 rank s | 2 ranks s | 2 ranks over serial | 2 ranks over 1 rank | energy at the end J (serial / 1 / 2 ranks) | deepest m (serial / 1 / 2) | bodies that changed rank |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for s in "$@"; do
	: > "$tmp/rows"
	i=1
	while [ "$i" -le "$runs" ]; do
		"$build/cli/proxima" run -c "$tmp/w50.ini" "$top/scenes/$s.ini" \
			--steps "$steps" --quiet > "$tmp/out"
		ts=$(field time | sed 's/ s .*//')
		es=$(end_energy)
		ds=$(depth contacts)
		mpirun -q --oversubscribe --bind-to none -np 1 "$prog" run \
			-c "$tmp/w50.ini" "$top/scenes/$s.ini" --steps "$steps" > "$tmp/out"
		t1=$(field 'wall time' | sed 's/ s .*//')
		e1=$(end_energy)
		d1=$(depth run)
		mpirun -q --oversubscribe --bind-to none -np 2 "$prog" run \
			-c "$tmp/w50.ini" "$top/scenes/$s.ini" --steps "$steps" \
			--check-every 10 > "$tmp/out"
		t2=$(field 'wall time' | sed 's/ s .*//')
		e2=$(end_energy)
		d2=$(depth run)
		moved=$(field migration | sed 's/ bodies.*//')
		echo "$ts $t1 $t2" >> "$tmp/rows"
		i=$((i + 1))
	done
	ms=$(cut -d' ' -f1 "$tmp/rows" | median)
	m1=$(cut -d' ' -f2 "$tmp/rows" | median)
	m2=$(cut -d' ' -f3 "$tmp/rows" | median)
	awk -v s="$s" -v n="$steps" -v ts="$ms" -v t1="$m1" -v t2="$m2" \
	    -v e="$es / $e1 / $e2" -v d="$ds / $d1 / $d2" -v m="$moved" \
	    'BEGIN { printf "| %s | %s | %.3f | %.3f | %.3f | %.2fx | %.2fx | %s | %s | %s |\n",
		     s, n, ts, t1, t2, ts / t2, t1 / t2, e, d, m }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
