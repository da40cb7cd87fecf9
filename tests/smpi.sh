#!/bin/sh
# proxima-mpi under SimGrid's SMPI (issue 36, doc/mpi.md "1,024 ranks in
# simulation"): mpi/proxima-smpi steps scenes/ballpile-8.ini 3 steps on 4
# simulated ranks of bench/platforms/fattree-8-100g.xml and ends in the
# states, bit for bit (--state's %a text), of proxima-mpi on 4 ranks under
# mpirun (the same partition, exchanges and fixed-order reduction: SMPI
# changes the clock, not the arithmetic); its report's time is the
# platform's, so faster links give a shorter run for the same states; bad
# input is one line and exit status 2 under smpirun too. SKIP (77) without
# mpi/proxima-smpi (configure without SimGrid's smpicc: apt-get install
# libsimgrid-dev); the comparison with mpirun is left out without mpirun.
set -u
src=${srcdir:-.}
build=${top_builddir:-.}
prog=$build/mpi/proxima-smpi
platforms=$src/bench/platforms
if [ ! -x "$prog" ] || ! command -v smpirun > /dev/null 2>&1; then
	echo "SKIP: no $prog or no smpirun (apt-get install libsimgrid-dev, configure --with-smpi)"
	exit 77
fi
# SMPI loads the program as a library into smpirun, which ASan refuses
# ("ASan runtime does not come first"): the sanitizer build skips this
if ldd "$prog" 2>/dev/null | grep -q libasan; then
	echo "SKIP: $prog is built with ASan, which SMPI cannot load"
	exit 77
fi
work=$(mktemp -d /tmp/px_smpi_XXXXXX)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
seq 0 7 | sed 's/^/host-/' > "$work/hosts"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# smpi NP PLATFORM ARG...: smpirun's own log (--log=...) kept off stdout
smpi() {
	np=$1 platform=$2
	shift 2
	timeout 120 smpirun -np "$np" -platform "$platform" -hostfile "$work/hosts" \
		--cfg=smpi/host-speed:1Gf --log=root.thres:warning "$prog" "$@"
}
scene=$src/scenes/ballpile-8.ini

smpi 4 "$platforms/fattree-8-100g.xml" run --steps 3 --state "$work/smpi.state" \
	"$scene" > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 0 ] || bad "smpirun -np 4: exit status $rc: $(cat "$work/err")"
grep -q '^ranks       4: ' "$work/out" || bad "no 4-rank report: $(cat "$work/out")"
t100=$(sed -n 's/^wall time   \([0-9.e+-]*\) s for the run.*/\1/p' "$work/out")
[ -n "$t100" ] || bad "no wall time in the report: $(cat "$work/out")"

if command -v mpirun > /dev/null 2>&1 && [ -x "$build/mpi/proxima-mpi" ]; then
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		timeout 120 mpirun -q --oversubscribe --bind-to none -np 4 \
		"$build/mpi/proxima-mpi" run --steps 3 --state "$work/mpi.state" \
		"$scene" > "$work/mpi.out" 2>&1 || bad "mpirun -np 4: $(cat "$work/mpi.out")"
	cmp -s "$work/smpi.state" "$work/mpi.state" ||
		bad "the simulated run's states differ from mpirun's: $(diff "$work/smpi.state" "$work/mpi.state" | head -4)"
else
	echo "no mpirun or proxima-mpi: the comparison with mpirun is left out"
fi

# the same run on a slower network: the same states, a longer time
sed 's/100Gbps/1Gbps/; s/lat="1us"/lat="50us"/' "$platforms/fattree-8-100g.xml" > "$work/slow.xml"
smpi 4 "$work/slow.xml" run --steps 3 --state "$work/slow.state" "$scene" \
	> "$work/out" 2> "$work/err" || bad "the slow platform: $(cat "$work/err")"
cmp -s "$work/smpi.state" "$work/slow.state" || bad "the slow platform's states differ"
tslow=$(sed -n 's/^wall time   \([0-9.e+-]*\) s for the run.*/\1/p' "$work/out")
awk -v a="$t100" -v b="$tslow" 'BEGIN { exit !(b > a) }' ||
	bad "the slow platform's time $tslow s is not above the fast one's $t100 s"

# bad input: one line from rank 0, exit status 2
printf '[world]\ndt = -1\n' > "$work/bad.ini"
smpi 2 "$platforms/fattree-8-100g.xml" run "$work/bad.ini" > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 2 ] || bad "a bad scene: exit status $rc, not 2"
n=$(grep -c "bad.ini" "$work/err")
[ "$n" -eq 1 ] || bad "a bad scene: $n lines naming the file, not 1: $(cat "$work/err")"

[ $fail -eq 0 ] && echo "PASS: smpirun: 4 ranks as mpirun's bit for bit, $t100 s at 100 Gb/s, $tslow s at 1 Gb/s; bad input exit 2"
exit $fail
