#!/bin/sh
# examples/solve_arrays, the C program example built against the build's
# libproxima, runs and passes its own checks (exit 0), and what it prints
# obeys the laws it claims, checked here on the printed numbers alone: the
# box of mass 2 kg, half extents (0.4, 0.3, 0.2) m, sliding at 1 m/s with
# mu 0.5 for a step of 0.01 s under g = 9.81 m/s^2 gets a total normal
# impulse m g dt = 0.1962 N s, a friction impulse mu m g dt = 0.0981 N s
# against the motion and none across it, no net moment about its centre,
# and leaves the step at 1 - mu g dt = 0.95095 m/s.
set -u
prog=${top_builddir:-.}/examples/solve_arrays
if [ ! -x "$prog" ]; then
	echo "FAIL no $prog: make check builds it"
	exit 1
fi
out=$("$prog" 2>&1)
rc=$?
printf '%s\n' "$out"
fail=0
if [ "$rc" -ne 0 ]; then
	echo "FAIL examples/solve_arrays exited with $rc"
	fail=1
fi
printf '%s\n' "$out" | grep -q '^result      converged after ' || {
	echo "FAIL no 'result      converged after' line"
	fail=1
}
# contact k sits at x = (k & 1 ? 0.4 : -0.4), y = (k & 2 ? 0.3 : -0.3),
# z = -0.2 from the centre; rows (n, s, t) are along (z, x, y)
printf '%s\n' "$out" | awk '
	function abs(x) { return x < 0 ? -x : x }
	function want(what, got, value) {
		if (abs(got - value) > 1e-5) {
			printf "FAIL %s is %.7g, not %.7g\n", what, got, value
			bad = 1
		}
	}
	$1 ~ /^[0-3]$/ && NF == 4 {
		k = $1; n++
		x = k % 2 ? 0.4 : -0.4
		y = int(k / 2) ? 0.3 : -0.3
		z = -0.2
		sn += $2; ss += $3; st += $4
		# moment r x (s, t, n) of the impulse (x, y, z components)
		mx += y * $2 - z * $4
		my += z * $3 - x * $2
		mz += x * $4 - y * $3
		if ($2 < -1e-9) {
			printf "FAIL contact %d pulls (normal impulse %s)\n", k, $2
			bad = 1
		}
	}
	$1 == "velocity" { split(substr($2, 2), v, ","); vx = v[1]; seen = 1 }
	END {
		if (n != 4 || !seen) {
			print "FAIL not four contacts and a velocity printed"
			exit 1
		}
		want("the total normal impulse", sn, 2 * 9.81 * 0.01)
		want("the friction impulse along the motion", ss,
		     -0.5 * 2 * 9.81 * 0.01)
		want("the friction impulse across it", st, 0)
		want("the moment about x", mx, 0)
		want("the moment about y", my, 0)
		want("the moment about z", mz, 0)
		want("the speed after the step", vx, 1 - 0.5 * 9.81 * 0.01)
		exit bad
	}' || fail=1
[ "$fail" -eq 0 ] && echo "PASS examples/solve_arrays"
exit "$fail"
