#!/bin/sh
# proxima's world against Bullet on doc/scenes.md's scenes (issue 7):
#
#   bench/world.sh [ITERATIONS] [SCENE:STEPS...]
#
# steps each scene in proxima (bench/world, scenes/SCENE.ini, sequential
# Gauss-Seidel with exactly ITERATIONS sweeps per step, default 10) and in
# Bullet (bench/bullet_world, btSequentialImpulseConstraintSolver, the same
# iteration count), one after the other in this script, leaving the first
# step out of the means (Bullet builds its pair cache then), and prints the
# per-step breakdown and proxima/Bullet ratios. Default scenes:
# ballgrid-24:50 ballgrid-40:50 boxstack-10:600.
set -eu
. "$(dirname "$0")/env.sh"
iters=10
case "${1:-}" in
'' | *[!0-9]*) ;;
*) iters=$1; shift ;;
esac
[ $# -gt 0 ] || set -- ballgrid-24:50 ballgrid-40:50 boxstack-10:600
if [ ! -x "$build/bench/bullet_world" ]; then
	echo "$0: bench/bullet_world was not built (Debian: apt-get install g++ libbullet-dev, then rerun configure)" >&2
	exit 2
fi
key() { # key NAME LINE: the value of NAME=... in LINE
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
printf '%-13s %-8s %9s %9s %9s %9s %9s %10s %s\n' scene engine contacts \
	collide build solve total 'ns/c-it' 'verdict (final)'
printf '%-13s %-8s %9s %9s %9s %9s %9s %10s\n' '' '' '(mean)' 'ms/step' \
	'ms/step' 'ms/step' 'ms/step' ''
for arg in "$@"; do
	scene=${arg%%:*}
	steps=${arg#*:}
	[ "$steps" != "$arg" ] || steps=50
	px=$("$build/bench/world" "$top/scenes/$scene.ini" --name "$scene" \
		--steps "$steps" --warmup 1 --iterations "$iters")
	bt=$("$build/bench/bullet_world" "$scene" --steps "$steps" \
		--warmup 1 --iterations "$iters")
	for line in "$px" "$bt"; do
		printf '%-13s %-8s %9s %9s %9s %9s %9s %10s %s\n' "$scene" \
			"${line%% *}" "$(key contacts_mean "$line")" \
			"$(key collide_ms_per_step "$line")" \
			"$(key build_ms_per_step "$line")" \
			"$(key solve_ms_per_step "$line")" \
			"$(key total_ms_per_step "$line")" \
			"$(key solve_ns_per_contact_iteration "$line")" \
			"collapsed=$(key collapsed "$line") leaning=$(key leaning "$line") max_drop=$(key max_drop "$line")"
	done
	printf '%-13s %-8s %9s %9s %9s %9s %9s %10s\n' "$scene" 'ratio' \
		"$(ratio "$(key contacts_mean "$px")" "$(key contacts_mean "$bt")")" \
		"$(ratio "$(key collide_ms_per_step "$px")" "$(key collide_ms_per_step "$bt")")" \
		"$(ratio "$(key build_ms_per_step "$px")" "$(key build_ms_per_step "$bt")")" \
		"$(ratio "$(key solve_ms_per_step "$px")" "$(key solve_ms_per_step "$bt")")" \
		"$(ratio "$(key total_ms_per_step "$px")" "$(key total_ms_per_step "$bt")")" \
		"$(ratio "$(key solve_ns_per_contact_iteration "$px")" "$(key solve_ns_per_contact_iteration "$bt")")"
done
echo "ratio = proxima / Bullet (below 1: proxima faster). A proxima contact has 3 rows (normal, 2 friction), Bullet's 2 (normal, 1 friction)."
