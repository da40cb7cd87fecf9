#!/bin/sh
# The distributed solve (issue 21) on doc/scenes.md's ball grid and ball pile,
# the first step of each scene, every rank generating its own region:
#
#   bench/mpi.sh [SCENE...]   (default ballgrid-24 ballpile-24 ballgrid-40
#                               ballpile-40, the files in scenes/)
#
# Per scene, one markdown row each of:
#   quality  the fc3d error E50 of 50 sequential sweeps (one rank), and the
#            sweeps 2 ranks need to reach it with each combination rule
#            (sum: block Jacobi; split: mass splitting), testing after
#            every sweep, and their ratio to 50;
#   time     200 sweeps: one rank sequential, one rank `colored' on 2
#            OpenMP threads with patches = 2 (the in-rank peer, its
#            fastest on 2 cores: doc/benchmarks.md), 2 ranks exchanging after
#            every sweep (E1) and after every 5 (E5), tests every 10
#            exchanges; speed-ups against the sequential rank, from each
#            run's own solve time (scene generation and collision left out);
#   memory   the largest rank's max RSS (MiB) on 1, 2, 3 and 4 ranks, and
#            the bytes the busiest rank sends per sweep.
# Runs under mpirun --oversubscribe (as root it sets OMPI_ALLOW_RUN_AS_ROOT);
# run it under flock /tmp/proxima-bench.lock on a shared machine.
set -eu
. "$(dirname "$0")/env.sh"
[ $# -gt 0 ] || set -- ballgrid-24 ballpile-24 ballgrid-40 ballpile-40
. "$(dirname "$0")/mpi_env.sh"
# oversubscribed cores: OpenMP threads that wait sleep rather than spin
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

ini() { printf '[solver]\n%s\n' "$2" > "$tmp/$1.ini"; }
# run NP SCENE CONF [OPTION...]: the report (status 1, not converged, is fine)
run() {
	np=$1 scene=$2 conf=$3
	shift 3
	mpirun -q --oversubscribe --bind-to none -np "$np" "$prog" run --steps 1 \
		-c "$tmp/$conf.ini" "$top/scenes/$scene.ini" "$@" > "$tmp/out" || [ $? -eq 1 ]
	cat "$tmp/out"
}
field() { sed -n "s/^$1 *//p" | head -1; }
sweeps() { field result | sed 's/.* after \([0-9]*\) sweeps.*/\1/'; }
fc3d() { field 'fc3d error' | sed 's/ .*//'; }
solve_s() { field time | sed 's/.*rank 0: solves \([0-9.]*\) s.*/\1/'; }
rss() { field memory | sed 's/largest rank \([0-9.]*\) MiB.*/\1/'; }
bytes() { field traffic | sed 's/.*most by one rank: [0-9.]* messages, \([0-9]*\) bytes/\1/'; }

ini q50 'merit = fc3d
abs_tol = 0
max_sweeps = 50'
ini t200 'abs_tol = 0
rel_tol = 0
max_sweeps = 200'
printf '[solver]\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = 200\n[scheduler]\nplugin = colored\nthreads = 2\npatches = 2\n' > "$tmp/t200c.ini"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "| scene | contacts | E50 | sweeps sum | x50 | sweeps split | x50 | 1 rank s | colored 2 threads | 2 ranks E1 | 2 ranks E5 | MiB 1/2/3/4 ranks | bytes per sweep, busiest rank |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for s in "$@"; do
	r1=$(run 1 "$s" q50)
	e50=$(echo "$r1" | fc3d)
	contacts=$(echo "$r1" | field ranks | sed 's/.*contacts per rank \([0-9]*\).*/\1/')
	ini q "merit = fc3d
abs_tol = $e50
max_sweeps = 2000"
	nsum=$(run 2 "$s" q --combine sum | sweeps)
	nsplit=$(run 2 "$s" q --combine split | sweeps)
	seq=$(run 1 "$s" t200)
	t1=$(echo "$seq" | solve_s)
	m1=$(echo "$seq" | rss)
	tc=$(run 1 "$s" t200c | solve_s)
	two=$(run 2 "$s" t200 --check-every 10)
	t2=$(echo "$two" | field time | sed 's/ s on the slowest.*//')
	m2=$(echo "$two" | rss)
	b2=$(echo "$two" | bytes)
	t5=$(run 2 "$s" t200 --exchange-every 5 --check-every 2 | field time | sed 's/ s on the slowest.*//')
	m3=$(run 3 "$s" t200 --check-every 10 | rss)
	m4=$(run 4 "$s" t200 --check-every 10 | rss)
	awk -v s="$s" -v c="$contacts" -v e="$e50" -v ns="$nsum" -v np="$nsplit" \
	    -v t1="$t1" -v tc="$tc" -v t2="$t2" -v t5="$t5" -v m="$m1/$m2/$m3/$m4" -v b="$b2" \
	    'BEGIN { printf "| %s | %s | %s | %s | %.2f | %s | %.2f | %.3f | %.2fx | %.2fx | %.2fx | %s | %s |\n",
		     s, c, e, ns, ns / 50, np, np / 50, t1, t1 / tc, t1 / t2, t1 / t5, m, b }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
