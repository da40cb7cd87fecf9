#!/bin/sh
# Checkpoint sets of a distributed run (doc/checkpoint.md, "On MPI ranks"):
# `mpirun -np P proxima run SCENE --checkpoint FILE --checkpoint-every N`
# and `--restart FILE`. It checks:
#  1. a restart from a set reaches the uninterrupted run's final state
#     (--state: every number as %a) bit for bit, and its CSV rows after
#     the set's step are the uninterrupted run's but the timing columns:
#     a pile of 125 balls with the random ordering on 2 ranks and 3 (balls
#     change rank before and after the set), and balls that slide across
#     the cut on 2 (the set before they cross), a pile with 3 substeps
#     of soft contact on 2, the pile re-partitioned every 4 steps on 3
#     (--rebalance-every: the sets hold the current boxes); a restart
#     checkpointing
#     to its own set's FILE writes the other slot;
#  2. one rank SIGKILLed at a seeded step (PX_KILL_SEED): mpirun says so
#     and fails; the last complete set restarts to the same final state;
#  3. SIGUSR1 to one rank: every rank writes the same step's part and the
#     run goes on to the same end; SIGTERM to one rank: the set, then exit
#     status 143, and the set restarts to the same final state;
#  4. refusals, one line and exit status 2, the set and the outputs
#     (--csv, --state) left as they were:
#     another rank count, a damaged or missing rank file, a missing or
#     truncated manifest, a file that is not a manifest, another scene,
#     other physics (a solver key, a distributed option); and a set
#     given to the serial `proxima run --restart`;
#  5. tools/checkpoint_set.py (with Debian's python3 and numpy) says a set
#     is complete, and that a set with a damaged rank file is not.
set -u
src=$(cd "${srcdir:-.}" && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
cli=$build/cli/proxima
if ! [ -x "$build/mpi/proxima-mpi" ] || ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP no $build/mpi/proxima-mpi or no mpirun (a build without MPI)"
	exit 77
fi
# mpirun as root, more ranks than cores, unbound (tests/test_mpi.c's)
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
PROXIMA_MPI=$build/mpi/proxima-mpi
ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 # as tests/test_mpi.c's mpi()
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
	OMPI_MCA_rmaps_base_oversubscribe OMPI_MCA_hwloc_base_binding_policy \
	PROXIMA_MPI ASAN_OPTIONS
work=$(mktemp -d /tmp/px_mpickpt_XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
# Open MPI's session directories under this test's own folder: mpiruns
# of tests run side by side race on one shared tree in /tmp ("ORTE_ERROR_LOG:
# Error in file util/session_dir.c", seen under make -j2 check)
export OMPI_MCA_orte_tmpdir_base="$work"
cd "$work" || exit 1

fail() {
	echo "FAIL: $*"
	for f in out err; do [ -s $f ] && sed "s/^/  $f: /" $f; done
	exit 1
}

# run NP ARGS...: `mpirun -np NP proxima run ARGS` (out, err); its status
run() {
	np=$1
	shift
	timeout $((60 * ${PX_TEST_SLOWDOWN:-1})) mpirun -q -np "$np" "$cli" run "$@" >out 2>err
}

# The CSV rows of $1 after step $2 but the timing columns (8-12).
rows_after() {
	awk -F, -v k="$2" 'NR > 1 && $1 > k' "$1" | cut -d, -f1-7,13-
}

# same NAME STATE CSV K: the run's final state and its rows after step K
# are the uninterrupted run's (full.txt, full.csv).
same() {
	cmp -s full.txt "$2" || fail "$1: the final state differs from the uninterrupted run's"
	rows_after full.csv "$4" >want.rows
	rows_after "$3" "$4" >got.rows
	[ -s want.rows ] && cmp -s want.rows got.rows ||
		fail "$1: the CSV rows after step $4 differ from the uninterrupted run's"
}

# case NAME NP STEPS K ARGS...: the uninterrupted run of STEPS steps; a
# run of K steps with a set every K/2 (slots A then B); its restart to
# STEPS. The pile's files stay for the refusals.
case_restart() {
	name=$1 np=$2 steps=$3 k=$4
	shift 4
	run "$np" "$@" --steps "$steps" --state full.txt --csv full.csv ||
		fail "$name: the uninterrupted run"
	run "$np" "$@" --steps "$k" --checkpoint "$name" --checkpoint-every $((k / 2)) ||
		fail "$name: the checkpointed run"
	for f in "$name" "$name.A.rank0" "$name.B.rank$((np - 1))"; do
		[ -s "$f" ] || fail "$name: no $f"
	done
	run "$np" "$@" --steps "$steps" --restart "$name" --state re.txt --csv re.csv ||
		fail "$name: the restart"
	grep -q "^scene .*: $steps steps" out || fail "$name: the restart's report"
	same "$name" re.txt re.csv "$k"
	echo "ok $name: $np ranks, restarted from step $k of $steps bit for bit"
}

# scenes/ballpile-8.ini's pile, 5 planes of 5 x 5 balls
printf '%s\n' '[world]' 'gravity = 0, 0, -9.81' 'dt = 0.01' 'steps = 200' \
	'mu = 0.5' 'restitution = 0' '[pile balls]' 'n = 5' 'seed = 12345' \
	'ground = true' >pile.ini
pile="pile.ini --check-every 10"
random="--set ordering.plugin=random --set ordering.reshuffle=once"
case_restart pile2 2 40 20 $pile $random
grep -q '^migration   [1-9]' out || fail "pile2: no body changed rank after the restart"
cp full.txt pile2.full.txt
cp full.csv pile2.full.csv
case_restart pile3 3 30 16 $pile $random
# a restart that checkpoints to its own set's FILE writes the other slot
run 3 $pile $random --steps 30 --restart pile3 --checkpoint pile3 --state re.txt ||
	fail "pile3: the restart that checkpoints"
grep -qx 'checkpoint  pile3: after step 30 (pile3.A.rank0 to rank2)' out &&
	cmp -s full.txt re.txt ||
	fail "pile3: the restart's own set not in slot A, or its state differs"
echo "ok pile3: a restart's sets go to the other slot"
printf '%s\n' '[world]' 'gravity = 0, 0, -9.81' 'dt = 0.01' 'steps = 200' \
	'mu = 0' 'restitution = 0' '[body ground]' 'shape = box' \
	'half = 40, 10, 1' 'position = 10, 0, -1' 'static = true' \
	'[body a]' 'shape = sphere' 'radius = 0.5' 'mass = 1' \
	'position = 0, 0, 0.5' 'velocity = 5, 0, 0' '[body b]' 'shape = sphere' \
	'radius = 0.5' 'mass = 1' 'position = 2, 0, 0.5' 'velocity = 5, 0, 0' \
	'[body c]' 'shape = sphere' 'radius = 0.5' 'mass = 1' \
	'position = 10, 0, 0.5' '[body d]' 'shape = sphere' 'radius = 0.5' \
	'mass = 1' 'position = 12, 0, 0.5' >slide.ini
case_restart slide 2 120 60 -c "$src/conf/default.ini" slide.ini
grep -q '^migration   [1-9]' out || fail "slide: no body changed rank after the restart"
# substeps and soft contact (issue 36) add no state across steps: the
# pile with 3 substeps of soft contact restarts bit for bit on 2 ranks
sed 's/^restitution = 0$/restitution = 0\nsubsteps = 3\nstabilization = soft/' \
	pile.ini >softpile.ini
grep -q '^stabilization = soft' softpile.ini || fail "softpile.ini is not soft"
case_restart softpile 2 30 16 softpile.ini --check-every 10 $random
# re-balancing (issue 36): the pile re-partitioned every 4 steps on 3
# ranks, before and after the sets (steps 8 and 16): the sets hold the
# boxes of the last re-partition, not the scene's, and restart bit for bit
rebal="--rebalance-every 4 --rebalance-threshold 1"
case_restart rebal3 3 30 16 $pile $random $rebal
grep -q '^rebalance   every 4 steps .*: 7 re-partitions' out ||
	fail "rebal3: the restart's report does not count the run's 7 re-partitions"

# ---- signals and SIGKILL: rank R of the run marked $work ------------------
cp pile2.full.txt full.txt
cp pile2.full.csv full.csv

# start FILE ARGS...: the pile on 2 ranks in the background (timeout's
# pid in $job), its CSV to FILE; with mpirun's banners (no -q).
start() {
	csv=$1
	shift
	timeout $((60 * ${PX_TEST_SLOWDOWN:-1})) mpirun -np 2 "$cli" run $pile $random --steps 40 \
		--csv "$csv" "$@" >out 2>err &
	job=$!
}

# The pids of the children of process $1, from /proc (no procps in a
# minimal root: pgrep is not there).
children() {
	awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null
}

# The pid of rank $1 of the job: a child of mpirun, timeout's child.
rank_pid() {
	for m in $(children "$job"); do
		for p in $(children "$m"); do
			if tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" |
				grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
				echo "$p"
				return
			fi
		done
	done
}

# signal SIG RANK CSV STEP: once CSV holds step STEP's row, SIG to RANK,
# deterministically: the ranks' pids are found first, both ranks are
# stopped (SIGSTOP) as soon as the row is there, the run is checked not to
# have ended meanwhile (a loaded machine), and only then SIG goes to RANK
# and the ranks go on (SIGCONT). A signal that came after the last step
# would test nothing (and once made the SIGUSR1 check fail).
signal() {
	i=0
	while p0=$(rank_pid 0) && p1=$(rank_pid 1) &&
		{ [ -z "$p0" ] || [ -z "$p1" ]; }; do
		i=$((i + 1))
		[ $i -lt 600 ] || fail "the ranks' pids not found in 60 s"
		sleep 0.1
	done
	i=0
	while ! [ -f "$3" ] || [ "$(wc -l <"$3")" -le "$4" ]; do
		i=$((i + 1))
		[ $i -lt 6000 ] || fail "step $4 not reached in 60 s"
		sleep 0.01
	done
	kill -STOP "$p0" "$p1"
	[ "$(wc -l <"$3")" -le 40 ] ||
		fail "the run ended before $1 could be sent (step $4's row seen too late)"
	[ "$2" -eq 0 ] && p=$p0 || p=$p1
	kill -"$1" "$p"
	kill -CONT "$p0" "$p1" 2>/dev/null
	:
}

seed=${PX_KILL_SEED:-35}
step=$(awk -v s="$seed" 'BEGIN { srand(s); print 3 + int(rand() * 30) }')
start kill.csv --checkpoint killed --checkpoint-every 2
signal KILL 1 kill.csv "$step"
wait $job
st=$?
[ $st -ne 0 ] || fail "a run with a rank killed exited 0"
grep -q 'exited on signal 9' err || fail "mpirun did not say a rank was killed"
run 2 $pile $random --steps 40 --restart killed --state re.txt --csv re.csv ||
	fail "the restart of the killed run"
cmp -s full.txt re.txt || fail "the killed run's restart: the final state differs"
k=$(sed -n 's/^restart     killed: after step \([0-9]*\)$/\1/p' out)
echo "ok SIGKILL to rank 1 after step $step (seed $seed; mpirun exit status $st): the last complete set, of step $k, restarts bit for bit"

# SIGUSR1's set is the run's first (slot A); the last step's (B) follows
# and its manifest: the ranks' files in A are of one step, the signal's
start usr1.csv --checkpoint usr1 --state usr1.txt
signal USR1 1 usr1.csv 6
wait $job || fail "SIGUSR1: the run failed"
cmp -s full.txt usr1.txt || fail "SIGUSR1: the run's final state differs"
grep -qx 'checkpoint  usr1: after step 40 (usr1.B.rank0 to rank1)' out ||
	fail "SIGUSR1: the last step's set is not in slot B"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	for r in 0 1; do
		/usr/bin/python3 "$src/tools/checkpoint.py" usr1.A.rank$r >out.$r ||
			fail "SIGUSR1: usr1.A.rank$r"
	done
	k=$(sed -n 's/^step *//p' out.0)
	[ -n "$k" ] && [ "$k" -ge 6 ] && [ "$k" -lt 40 ] &&
		grep -qx "step        $k" out.1 ||
		fail "SIGUSR1: the ranks' files are not of one step >= 6: $(grep step out.0 out.1)"
	echo "ok SIGUSR1 to rank 1: every rank's part of step $k, the run goes on to the same end"
else
	echo "ok SIGUSR1 to rank 1: a set, the run goes on to the same end (the set's step not read: no numpy)"
fi

start term.csv --checkpoint term --state term.txt
signal TERM 0 term.csv 6
wait $job
st=$?
[ $st -eq 143 ] || fail "SIGTERM: exit status $st, not 143"
grep -q "^proxima: pile.ini: SIGTERM: stopped after step [0-9]*, checkpoint set term written$" err ||
	fail "SIGTERM: no line saying the run stopped"
grep -q "^checkpoint  term: after step [0-9]* (term\.[AB]\.rank0 to rank1)$" out ||
	fail "SIGTERM: the report does not name the set"
run 2 $pile $random --steps 40 --restart term --state re.txt --csv re.csv ||
	fail "SIGTERM: the restart"
cmp -s full.txt re.txt || fail "SIGTERM: the restart's final state differs"
echo "ok SIGTERM to rank 0: a set and exit status 143; it restarts bit for bit"

# ---- refusals --------------------------------------------------------------
# refuse NAME LINE NP ARGS...: exit status 2 and the one line LINE (a
# grep -x pattern) on stderr; pile2's set and the outputs unchanged.
echo kept >kept.csv
echo kept >kept.txt
mkdir keep
cp pile2* kept.* keep/
refuse() {
	name=$1 line=$2 np=$3
	shift 3
	run "$np" "$@" --csv kept.csv --state kept.txt
	st=$?
	[ $st -eq 2 ] || fail "$name: exit status $st, not 2"
	[ "$(wc -l <err)" -eq 1 ] && grep -qx -- "$line" err ||
		fail "$name: not the line '$line'"
	for f in keep/*; do
		cmp -s "$f" "${f#keep/}" || fail "$name: ${f#keep/} changed"
	done
	echo "ok refused: $name"
}
pile2="$pile $random --steps 40"
refuse "another rank count" \
	"proxima: pile2: a checkpoint set of 2 ranks: restart it on as many (mpirun -np 2), not 3" \
	3 $pile2 --restart pile2 --checkpoint pile2
refuse "a missing manifest" \
	"proxima: none: cannot read: No such file or directory" \
	2 $pile2 --restart none
refuse "not a manifest" \
	"proxima: pile2.A.rank0: not the manifest of a distributed run's checkpoint set (no DSET section): a checkpoint of \`proxima run\` restarts without mpirun" \
	2 $pile2 --restart pile2.A.rank0
refuse "another scene" \
	"proxima: pile2.B.rank0: checkpoint of another scene (pile.ini), not of slide.ini" \
	2 slide.ini --steps 200 --restart pile2
refuse "another solver key" \
	"proxima: pile2.B.rank0: checkpoint of another solver config (--set ordering.plugin=random + --set ordering.reshuffle=once, --combine split --exchange-every 1 --check-every 10), not of this run's (--set ordering.plugin=random + --set ordering.reshuffle=once + --set solver.abs_tol=1e-7, --combine split --exchange-every 1 --check-every 10)" \
	2 $pile2 --set solver.abs_tol=1e-7 --restart pile2
refuse "another distributed option" \
	"proxima: pile2.B.rank0: checkpoint of another solver config (--set ordering.plugin=random + --set ordering.reshuffle=once, --combine split --exchange-every 1 --check-every 10), not of this run's (--set ordering.plugin=random + --set ordering.reshuffle=once, --combine sum --exchange-every 1 --check-every 10)" \
	2 $pile2 --combine sum --restart pile2
refuse "re-balancing another way" \
	"proxima: rebal3.B.rank0: checkpoint of another solver config (--set ordering.plugin=random + --set ordering.reshuffle=once, --combine split --exchange-every 1 --check-every 10 --rebalance-every 4 --rebalance-threshold 1), not of this run's (--set ordering.plugin=random + --set ordering.reshuffle=once, --combine split --exchange-every 1 --check-every 10 --rebalance-every 5 --rebalance-threshold 1)" \
	3 $pile $random --steps 30 --rebalance-every 5 --rebalance-threshold 1 --restart rebal3
mkdir bad
cp pile2 pile2.B.rank0 pile2.B.rank1 bad/
printf 'X' | dd of=bad/pile2.B.rank1 bs=1 seek=300 conv=notrunc 2>/dev/null
refuse "a damaged rank file" \
	"proxima: bad/pile2.B.rank1: not the file the manifest bad/pile2 names ([0-9]* bytes, CRC-32 [0-9a-f]*; it names [0-9]* bytes, [0-9a-f]*): damaged, or of another set" \
	2 $pile2 --restart bad/pile2
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	tool="/usr/bin/python3 $src/tools/checkpoint_set.py"
	$tool pile2 >out || fail "checkpoint_set.py: pile2 is not complete"
	grep -q '^set         2 ranks, step 20, slot B, id [0-9a-f]*$' out &&
		grep -q '^rank 1: pile2.B.rank1, [0-9]* bytes, CRC-32 [0-9a-f]*, step 20, [0-9]* bodies ([0-9]* own), [0-9]* cached contacts$' out &&
		grep -qx complete out || fail "checkpoint_set.py: $(cat out)"
	$tool bad/pile2 >out
	[ $? -eq 1 ] && grep -qx 'NOT complete' out ||
		fail "checkpoint_set.py: a damaged set is complete"
	echo "ok tools/checkpoint_set.py: a set complete, a damaged one not"
else
	echo "(tools/checkpoint_set.py not run: no numpy for /usr/bin/python3)"
fi
rm bad/pile2.B.rank1
refuse "a missing rank file" \
	"proxima: bad/pile2.B.rank1: cannot read: No such file or directory" \
	2 $pile2 --restart bad/pile2
refuse "a set of the run's last step" \
	"proxima: pile2: checkpoint set after step 20, and the run ends at step 20 (--steps N to go on)" \
	2 $pile $random --steps 20 --restart pile2
refuse "--checkpoint-every without --checkpoint" \
	"proxima: run: --checkpoint-every needs --checkpoint FILE" \
	2 $pile2 --checkpoint-every 2
"$cli" run pile.ini $random --steps 40 --restart pile2 --csv kept.csv >out 2>err
st=$?
[ $st -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
	grep -qx "proxima: pile2: the manifest of a distributed run's checkpoint set: restart it under mpirun, on as many ranks" err &&
	cmp -s kept.csv keep/kept.csv ||
	fail "a serial restart of a set: status $st"
echo "ok refused: a set restarted without mpirun"
head -c 100 pile2 >bad/pile2
refuse "a truncated manifest" \
	"proxima: bad/pile2: truncated checkpoint: .*" \
	2 $pile2 --restart bad/pile2
echo "PASS"
