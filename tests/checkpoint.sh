#!/bin/sh
# Checkpoints and restarts of `proxima run' (issue 35, doc/checkpoint.md):
# a run restarted from a checkpoint goes on bit for bit as the run that
# wrote it (the --state file, every number exact, and the CSV rows from
# the restart on, timings aside, identical to the uninterrupted run's):
# - a box column (boxstack-10), checkpoints every 25 steps;
# - a ball pile (ballpile-8) with the random ordering and 2 substeps;
# - soft contact (boxstack-10 with stabilization = soft, 2 substeps);
# - SIGUSR1 (a checkpoint, the run goes on) and SIGTERM (a checkpoint, the
#   run stops with 143);
# - SIGKILL at a step drawn from a seeded generator, a restart from the
#   last checkpoint the killed run left;
# and each refusal, exact line, exit 2, nothing overwritten: another
# scene, another config, other world settings, a truncated, a corrupt, a
# newer-format file, a file that is no checkpoint. 6 s of CPU, 30 s
# on two cores shared by a load of 15 (2026-11).
set -u
src=$(cd "${srcdir:-.}" && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
cli=$build/cli/proxima
PROXIMA_PLUGIN_PATH=${PROXIMA_PLUGIN_PATH:-$build/plugins/.libs}
PROXIMA_DATA_DIR=${PROXIMA_DATA_DIR:-$src}
export PROXIMA_PLUGIN_PATH PROXIMA_DATA_DIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0

ok() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# The CSV rows of steps > $2 of file $1 without the timing columns
# (collide_s .. total_s, 8-12, and the stages', broad_s .. post_s, 16-21),
# which no two runs share.
rows_after() {
	awk -F, -v k="$2" 'NR > 1 && $1 > k' "$1" | cut -d, -f1-7,13-15
}

# The step a checkpoint was taken after (META's first u64: META is the
# first of 5 sections, at byte 192).
ckpt_step() {
	od -An -tu8 -j192 -N8 "$1" | tr -d ' '
}

# same NAME SCENE STEPS EVERY CUT [OPTIONS...]: the run of STEPS steps,
# the run of CUT steps with checkpoints every EVERY, its restart to STEPS:
# same --state, same CSV rows after the checkpoint's step.
same() {
	name=$1 scene=$2 steps=$3 every=$4 cut=$5
	shift 5
	"$cli" run "$scene" "$@" --steps "$steps" -q --csv "$name.full.csv" \
		--state "$name.full.state" >/dev/null ||
		{ bad "$name: the full run"; return; }
	"$cli" run "$scene" "$@" --steps "$cut" -q --checkpoint "$name.ckpt" \
		--checkpoint-every "$every" >/dev/null ||
		{ bad "$name: the cut run"; return; }
	from=$(ckpt_step "$name.ckpt")
	"$cli" run "$scene" "$@" --steps "$steps" -q --restart "$name.ckpt" \
		--csv "$name.rest.csv" --state "$name.rest.state" >/dev/null ||
		{ bad "$name: the restart"; return; }
	if cmp -s "$name.full.state" "$name.rest.state" &&
	   [ "$(rows_after "$name.full.csv" "$from")" = \
	     "$(rows_after "$name.rest.csv" "$from")" ] &&
	   [ "$(rows_after "$name.rest.csv" "$from" | wc -l)" -eq \
	     $((steps - from)) ]; then
		ok "$name: restart after step $from of $steps is bit for bit the run"
	else
		bad "$name: restart after step $from differs from the run"
	fi
}

boxes=$src/scenes/boxstack-10.ini
same boxstack "$boxes" 120 25 60

sed 's/^restitution = 0$/restitution = 0\nsubsteps = 2/' \
	"$src/scenes/ballpile-8.ini" >pile.ini
grep -q '^substeps = 2' pile.ini || bad "pile.ini has no substeps"
random="--set ordering.plugin=random --set ordering.seed=11 --set solver.max_sweeps=40"
# shellcheck disable=SC2086
same pile pile.ini 60 10 35 $random

sed 's/^restitution = 0$/restitution = 0\nstabilization = soft\nsubsteps = 2/' \
	"$boxes" >soft.ini
grep -q '^stabilization = soft' soft.ini || bad "soft.ini is not soft"
same soft soft.ini 90 30 45 --set solver.max_sweeps=50

# Signals, on the pile: its 200 steps take about a second.
# shellcheck disable=SC2086
"$cli" run pile.ini $random --steps 200 -q --state sig.full.state >/dev/null
# A signal is sent once the run says it is armed: its header is out.
armed() {
	while ! grep -q '^scene' "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do
		sleep 0.01
	done
}
# shellcheck disable=SC2086
"$cli" run pile.ini $random --steps 200 -q --checkpoint usr1.ckpt \
	--state usr1.state >usr1.out &
pid=$!
armed usr1.out $pid
kill -USR1 $pid
while [ ! -s usr1.ckpt ] && kill -0 $pid 2>/dev/null; do
	sleep 0.005
done
from=$(ckpt_step usr1.ckpt)
wait $pid 2>/dev/null
st=$?
# a checkpoint mid-run, and the run went on unchanged to the end
if [ $st -eq 0 ] && [ "$from" -lt 200 ] && cmp -s sig.full.state usr1.state &&
   [ "$(ckpt_step usr1.ckpt)" = 200 ]; then
	ok "SIGUSR1: a checkpoint after step $from and the run goes on unchanged"
else
	bad "SIGUSR1: status $st, checkpoint after step '$from', or the run changed"
fi

# shellcheck disable=SC2086
"$cli" run pile.ini $random --steps 200 -q --checkpoint term.ckpt \
	>term.out 2>&1 &
pid=$!
armed term.out $pid
sleep 0.1
kill -TERM $pid
wait $pid 2>/dev/null
st=$?
from=$(ckpt_step term.ckpt 2>/dev/null)
# shellcheck disable=SC2086
if [ $st -eq 143 ] && [ -n "$from" ] && [ "$from" -lt 200 ] &&
   grep -q "^result      interrupted after $from of 200 steps (SIGTERM)$" term.out &&
   "$cli" run pile.ini $random --steps 200 -q --restart term.ckpt \
	--state term.state >/dev/null &&
   cmp -s sig.full.state term.state; then
	ok "SIGTERM: status 143 after step $from's checkpoint, the restart is the run"
else
	bad "SIGTERM: status $st, checkpoint after step '$from'"
	cat term.out
fi

# SIGKILL at a seeded random step in [40, 150): the killed run leaves its
# last checkpoint (every 7 steps) whole, and at most a temporary file.
kill_at=$(awk 'BEGIN { srand(35); print 40 + int(rand() * 110) }')
# shellcheck disable=SC2086
"$cli" run pile.ini $random --steps 200 -q --checkpoint kill.ckpt \
	--checkpoint-every 7 >/dev/null &
pid=$!
while kill -0 $pid 2>/dev/null; do
	if [ -s kill.ckpt ] && [ "$(ckpt_step kill.ckpt)" -ge "$kill_at" ]; then
		kill -KILL $pid
		break
	fi
	sleep 0.01
done
wait $pid 2>/dev/null
st=$?
from=$(ckpt_step kill.ckpt)
# shellcheck disable=SC2086
if [ $st -eq 137 ] && [ "$from" -lt 200 ] &&
   "$cli" run pile.ini $random --steps 200 -q --restart kill.ckpt \
	--state kill.state >/dev/null &&
   cmp -s sig.full.state kill.state; then
	ok "SIGKILL after step $from (aimed at $kill_at): the restart from its last checkpoint is the run"
else
	bad "SIGKILL: status $st (137 expected), checkpoint after step $from"
fi

# Refusals: one line, exit 2, the outputs untouched.
printf 'keep\n' >keep.csv
cp pile.ckpt pile.ckpt.orig
refused() {
	want=$1
	shift
	"$cli" run "$@" --csv keep.csv >refused.out 2>refused.err
	st=$?
	if [ $st -eq 2 ] && [ "$(cat refused.err)" = "$want" ] &&
	   [ "$(cat keep.csv)" = keep ] && cmp -s pile.ckpt pile.ckpt.orig; then
		ok "refused: $want"
	else
		bad "refusal: status $st, said '$(cat refused.err)', expected '$want'"
	fi
}
# shellcheck disable=SC2086
refused "proxima: pile.ckpt: checkpoint of another scene (pile.ini), not of $boxes" \
	"$boxes" $random --restart pile.ckpt --checkpoint pile.ckpt
refused "proxima: pile.ckpt: checkpoint of another solver config (--set ordering.plugin=random + --set ordering.seed=11 + --set solver.max_sweeps=40), not of this run's (--set ordering.plugin=random)" \
	pile.ini --set ordering.plugin=random --restart pile.ckpt
# shellcheck disable=SC2086
refused "proxima: pile.ckpt: checkpoint of other world settings: this run's (the scene's [world], --cache) change the steps" \
	pile.ini $random --cache off --restart pile.ckpt
# shellcheck disable=SC2086
refused "proxima: pile.ckpt: checkpoint after step 35, and the run ends at step 35 (--steps N to go on)" \
	pile.ini $random --steps 35 --restart pile.ckpt
size=$(wc -c <pile.ckpt)
head -c $((size - 100)) pile.ckpt >short.ckpt
# shellcheck disable=SC2086
refused "proxima: short.ckpt: truncated checkpoint: $((size - 100)) bytes, section TOTS needs $size" \
	pile.ini $random --restart short.ckpt
cp pile.ckpt flip.ckpt
printf '\377' | dd of=flip.ckpt bs=1 seek=1000 conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
refused "proxima: flip.ckpt: not a valid checkpoint: section BODY's CRC-32 does not match" \
	pile.ini $random --restart flip.ckpt
cp pile.ckpt newer.ckpt
printf '\002' | dd of=newer.ckpt bs=1 seek=8 conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
refused "proxima: newer.ckpt: checkpoint format version 2; this proxima reads versions 1 to 1" \
	pile.ini $random --restart newer.ckpt
# shellcheck disable=SC2086
refused "proxima: pile.ini: not a proxima checkpoint (no checkpoint magic)" \
	pile.ini $random --restart pile.ini
refused "proxima run: --checkpoint-every needs --checkpoint FILE" \
	pile.ini --checkpoint-every 5

# The reader for users (Debian's python3 and numpy) reads what proxima
# wrote: the step, the bodies' positions, the cache, the generator.
python=/usr/bin/python3
if "$python" -c 'import numpy' 2>/dev/null; then
	if out=$("$python" "$src/tools/checkpoint.py" pile.ckpt) &&
	   echo "$out" | grep -q '^step *35$' &&
	   echo "$out" | grep -q '^bodies *513$' &&
	   echo "$out" | grep -q '^plugin *ordering random: 8 bytes$'; then
		ok "tools/checkpoint.py reads a checkpoint"
	else
		bad "tools/checkpoint.py: $out"
	fi
else
	echo "[SKIP] checkpoint.sh: $python has no numpy (Debian: python3-numpy)"
fi
exit $fail
