#!/bin/sh
# Substeps and soft contact against plain steps at equal work (issue 23):
#
#   bench/substep.sh [--quick] [SCENE...]
#
# steps each scene (scenes/SCENE.ini, dt 1/60 s, 600 steps = 10 s; --quick:
# 120 steps, boxstack-10 and -20, works 10 and 20) with bench/world at a
# work W = sweeps x solves per step of 10, 20, 50 and 100, in eight ways:
#   today    W sweeps, one solve (the scene's stabilization)
#   sub1     1 sweep in each of W substeps (the scene's stabilization)
#   sub5     5 sweeps in each of W/5 substeps
#   today_r, sub1_r, sub5_r  the same with the random ordering (its
#            default: a fresh permutation every solve) instead of identity
#   soft     stabilization = soft (30 Hz, Box2D v3's), 1 sweep in each of
#            the 2 solves of W/2 substeps
#   soft240  the same at contact_hertz = 240
# and, where bench/bullet_world was built and has the scene, Bullet with W
# iterations. Prints CSV: scene, work, variant, sweeps, substeps, stands
# (the highest body within 1 cm of its start at every step of the run),
# top_drift (its distance from its start at the end, m), top_drift_max
# (the largest over the run, m), max_drop (the largest drop of any body,
# m), energy_drift ((E_end - E_start) / |E_start|, potential from z = 0;
# Bullet: -), ms_per_step (CPU time of the process per step: the machine
# may be shared) and x_today (time per step over today's at the same
# work, in this run).
# Sequential Gauss-Seidel, disc friction, identity ordering unless _r,
# exactly the sweeps asked (bench/world's config). Run it under flock /tmp/proxima-bench.lock.
set -eu
. "$(dirname "$0")/env.sh"
steps=600
works="10 20 50 100"
scenes="boxstack-10 boxstack-20 boxstack-40 wall tower cardhouse heavyonlight"
if [ "${1:-}" = --quick ]; then
	shift
	steps=120
	works="10 20"
	scenes="boxstack-10 boxstack-20"
fi
[ $# -eq 0 ] || scenes="$*"
dt=0.016666666666666666
key() { # key NAME LINE: the value of NAME=... in LINE
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
echo "scene,work,variant,sweeps,substeps,stands,top_drift,top_drift_max,max_drop,energy_drift,ms_per_step,x_today"
for scene in $scenes; do
	for w in $works; do
		today=
		for variant in today sub1 sub5 today_r sub1_r sub5_r soft soft240; do
			case $variant in
			today) sw=$w; sub=1; extra= ;;
			sub1) sw=1; sub=$w; extra= ;;
			sub5) sw=5; sub=$((w / 5)); extra= ;;
			today_r) sw=$w; sub=1; extra="--ordering random" ;;
			sub1_r) sw=1; sub=$w; extra="--ordering random" ;;
			sub5_r) sw=5; sub=$((w / 5)); extra="--ordering random" ;;
			soft) sw=1; sub=$((w / 2)); extra="--stabilization soft --hertz 30" ;;
			soft240) sw=1; sub=$((w / 2)); extra="--stabilization soft --hertz 240" ;;
			esac
			# shellcheck disable=SC2086
			line=$("$build/bench/world" "$top/scenes/$scene.ini" \
				--name "$scene" --steps "$steps" --warmup 1 \
				--dt "$dt" --iterations "$sw" --substeps "$sub" $extra)
			ms=$(key cpu_ms_per_step "$line")
			[ -n "$today" ] || today=$ms
			printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$scene" "$w" \
				"$variant" "$sw" "$sub" "$(key stands "$line")" \
				"$(key top_drift "$line")" \
				"$(key top_drift_max "$line")" "$(key max_drop "$line")" \
				"$(key energy_drift "$line")" "$ms" \
				"$(awk -v a="$ms" -v b="$today" 'BEGIN { printf "%.2f", a / b }')"
		done
		case $scene in
		boxstack-* | wall | heavyonlight) ;;
		*) continue ;;
		esac
		[ -x "$build/bench/bullet_world" ] || continue
		line=$("$build/bench/bullet_world" "$scene" --steps "$steps" \
			--warmup 1 --iterations "$w")
		ms=$(key cpu_ms_per_step "$line")
		printf '%s,%s,bullet,%s,1,%s,%s,%s,%s,-,%s,%s\n' "$scene" "$w" "$w" \
			"$(key stands "$line")" "$(key top_drift "$line")" \
			"$(key top_drift_max "$line")" "$(key max_drop "$line")" \
			"$ms" \
			"$(awk -v a="$ms" -v b="$today" 'BEGIN { printf "%.2f", a / b }')"
	done
done
