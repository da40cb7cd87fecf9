#!/bin/sh
# Issue 23: substeps and soft contact (Box2D v3's soft step) against plain
# steps at equal work on doc/scenes.md's stacks, wall, tower, card house and
# heavy-on-light, with Bullet where it has the scene; writes
# doc/experiments/005-substepping.md:
#
#   doc/experiments/005-substepping.sh [--quick|--full]
#
# The runs are bench/substep.sh's (see there: dt 1/60 s, 600 steps, work
# W = sweeps x solves per step of 10, 20, 50, 100; --quick: 120 steps,
# boxstack-10 and -20, W 10 and 20). Run it under
# flock /tmp/proxima-bench.lock on a quiet machine.
set -eu
. "$(dirname "$0")/common.sh"
exp_init 005-substepping "$@"

if [ "$quick" = 1 ]; then
	sh "$top/bench/substep.sh" --quick > "$data/runs.csv"
else
	sh "$top/bench/substep.sh" > "$data/runs.csv"
fi

page_header "005: substeps and soft contact at equal work (issue 23)"
page "Each scene (scenes/SCENE.ini, its own settings but dt 1/60 s, 600" \
	"steps = 10 s) is stepped by bench/world at a work W = sweeps x solves" \
	"per step, sequential Gauss-Seidel with disc friction and exactly the" \
	"sweeps asked, identity ordering: *today* is one solve of W sweeps with the scene's" \
	"stabilization (Baumgarte, or none for the tower); *sub1* W substeps of" \
	"1 sweep; *sub5* W/5 substeps of 5 sweeps; *today_r*, *sub1_r*," \
	"*sub5_r* the same with the random ordering (a fresh permutation every" \
	"solve, its default)" \
	"instead of identity; *soft* and *soft240*" \
	"stabilization = soft at contact_hertz 30 (Box2D v3's default) and 240," \
	"W/2 substeps of two solves (soft, then the relaxation) of 1 sweep." \
	"*bullet* is bench/bullet_world (btSequentialImpulseConstraintSolver," \
	"W iterations, one step per 1/60 s) where it has the scene." \
	"" \
	"*stands*: the highest body (the top box; for the wall the first brick" \
	"of the top row in proxima, doc/scenes.md's tracked brick in Bullet) stays" \
	"within 1 cm of its start at every step of the run; *top_drift* its" \
	"distance from its start at the end (m), *top_drift_max* the largest" \
	"over the run; *max_drop*" \
	"the largest drop of any body (m); *energy_drift* (E_end - E_start) /" \
	"|E_start| with potential energy from z = 0; *ms_per_step* the" \
	"process's CPU time per step (the machine is shared: wall time is" \
	"not); *x_today* its ratio to today's at the same work in this run" \
	"(one run each: bench/substep_pairs.sh times the targets in runs" \
	"taken in turn)." ""
page "## All runs" ""
md_table "$data/runs.csv"
page "" "## The targets of issue 23" ""
awk -F, 'NR > 1 && (($1 == "boxstack-40" && $2 == 100) || ($1 == "boxstack-20" && $2 == 20)) {
	printf "- %s at work %s, %s (%s x %s): stands %s, top drift %s m (at most %s m), %s x today'"'"'s time per step\n", $1, $2, $3, $4, $5, $6, $7, $8, $12
}' "$data/runs.csv" >> "$page.tmp"
page "" "Target: the 40-box column stands 10 s at work 100 and the 20-box at" \
	"work 20, at most 1.5 x today's time per step at the same work." ""
page "## What the runs show" "" \
	"Positions and energies are deterministic (the same on every rerun);" \
	"only the times move with the machine's load." "" \
	"- One solve per step loses the 20-box and the 40-box column at every" \
	"  work up to 100, and so does Bullet (at 100 today's 20-box column" \
	"  does not fall, no box drops 1.5 cm, but its top wanders 0.68 m)." \
	"  Substeps hold both: 1 sweep in each of 20 substeps with the random" \
	"  ordering holds the 20-box column at work 20 (its top at most 7 mm" \
	"  off), 20 substeps of 5 sweeps with the random ordering the 40-box" \
	"  column at work 100 (6.5 mm), as do 100 substeps of 1 sweep either" \
	"  way." \
	"- The stand rule is the top's distance at every step, not at the end:" \
	"  with identity, 20 substeps of 1 sweep keep the 20-box column up but" \
	"  its top sways up to 2.9 cm and ends 2.4 cm off; before this rule it" \
	"  passed on an end 4 mm off, which a change of the depth update's" \
	"  rounding alone turned into 2.4 cm. The random ordering's verdicts" \
	"  hold across its seed: over seeds 1 to 6 (bench/world --seed) the" \
	"  40-box column at 5 x 20 stands with every seed (top at most 7.4 mm" \
	"  off), the 20-box column at 1 x 20 with five of six (seed 5: 10.8" \
	"  mm, no box drops 6 mm)." \
	"- Time: the substeps of a step share one solver (px_solver): the" \
	"  diagonal blocks, the kernel, rfactor.init and scheduler.prepare are" \
	"  made once per step, a substep solve starts from the body velocities" \
	"  the last one ended with, and the bodies take their velocity change" \
	"  from it. What a substep adds to its sweeps is its depth update (R^T" \
	"  n and n . x once per manifold), its b and the integration. Over all" \
	"  scenes and works, in two runs of this script at this code (the" \
	"  table's and one before it), W/5 substeps of 5 sweeps cost 0.8 to" \
	"  1.6 times one solve of W sweeps, W substeps of 1 sweep 0.9 to 2.4" \
	"  times (either ordering)." \
	"  In runs taken in turn (bench/substep_pairs.sh 11) the 40-box" \
	"  target (5 x 20, random) took a median 1.11 times today's (1.06 to" \
	"  1.16) and the 20-box target (1 x 20, random) 1.35 times (1.33 to" \
	"  1.49): both within issue 23's 1.5 x. Today's columns fall, so their" \
	"  steps carry fewer contacts than the standing ones' (boxstack-20:" \
	"  67.6 against 80 on average), which makes today's steps cheaper." \
	"- Baumgarte's feedback runs at beta/dt in every substep: at beta/h (N" \
	"  times as stiff) 100 substeps of 1 sweep blew the card house up." \
	"- Soft contact at Box2D's 30 Hz sags: a contact's spring is k = m_eff" \
	"  omega^2 with the effective mass of its own two boxes, so the load of" \
	"  the boxes above compresses it by load / k, the slop comes on top, and" \
	"  a column's sag grows with the square of its height (20 boxes: about" \
	"  0.18 m; 40 boxes fall). At 240 Hz the tower holds and the columns" \
	"  sag 1.1 (10 boxes) to 5.2 cm (40), about the slop, 1 mm, per level." \
	"  At 30 Hz it keeps the card house's top card within 1 cm at works 10" \
	"  and 20 (1.0 and 1.3 cm at 50 and 100); one solve" \
	"  loses the card house at every work (at 50 and 100 the top card" \
	"  ends 6 cm off: Baumgarte pushing out the initial overlaps). Its" \
	"  solve of A + Gamma runs on the rigid form with Gamma as the" \
	"  problem's normal shift (px_problem_set_normal_shift), so W/2 soft" \
	"  substeps of two 1-sweep solves cost 1.0 to 1.9 times W substeps of" \
	"  1 sweep (the same two runs)." ""
exp_finish
