#!/bin/sh
# `make check-tsan' (tests/sanitize.am), in a --enable-tsan build: the
# OpenMP schedulers with 2, 3 and 4 threads under ThreadSanitizer, through
# the proxima command (Criterion cannot run under ThreadSanitizer: it aborts
# with "Could not initialize inheritable arena", Criterion issue 274).
# Every run must exit as it does without TSan (0 or 1), with no report
# (TSAN_OPTIONS halt_on_error=1 makes a report exit 66). Scenes: a ball pile
# and a box stack stepped a few times (factorized problems: the world's
# bodies shared between contacts), and the two-boxes problem file
# (assembled); the last scheduler runs the wide kernel (kernel = wide: its
# lanes' lists and the groups' cache shared between threads); then exact
# local solves (local_solve = newton) with Jacobi and colored patches.
# Needs top_builddir and srcdir (set by make check's environment or by the
# caller).
set -u
proxima="$top_builddir/cli/proxima"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 runs=0

check() { # CONFIG-TEXT ARGS...
	printf '%b' "$1" >"$tmp/c.ini"
	shift
	runs=$((runs + 1))
	"$proxima" "$@" -c "$tmp/c.ini" >"$tmp/out" 2>&1
	st=$?
	if [ $st -gt 1 ] || grep -q 'ThreadSanitizer' "$tmp/out"; then
		echo "FAIL (exit $st): proxima $* with:"
		cat "$tmp/c.ini"
		cat "$tmp/out"
		fail=$((fail + 1))
	fi
}

for t in 2 3 4; do
	for s in "jacobi" "naive" "colored\ncoloring = greedy" \
		"colored\ncoloring = balanced\nmerge_below = 8" \
		"colored\npatches = 4" "colored\npatches = 4\nkernel = wide"; do
		k=auto
		case $s in *"kernel = wide") k=wide s=${s%\\nkernel = wide} ;; esac
		c="[solver]\nmax_sweeps = 200\nkernel = $k\n[scheduler]\nplugin = $s\nthreads = $t\nserial_below = 0\n"
		check "$c" run "$srcdir/scenes/ballpile-8.ini" --steps 5 --quiet
		check "$c" run "$srcdir/scenes/boxstack-10.ini" --steps 5 --quiet
		check "$c" solve "$srcdir/scenes/two-boxes.dat"
	done
	# exact local solves: each contact's D^-1 and its visit state are
	# written by the thread that visits it (core/kernel.c, local_inverse)
	for s in "jacobi" "colored\npatches = 4"; do
		c="[solver]\nmax_sweeps = 200\nlocal_solve = newton\nlocal_forcing = 0.1\n[scheduler]\nplugin = $s\nthreads = $t\nserial_below = 0\n"
		check "$c" run "$srcdir/scenes/boxstack-10.ini" --steps 5 --quiet
		check "$c" solve "$srcdir/scenes/two-boxes.dat"
	done
done
echo "tsan: $runs runs, $fail failed"
[ $fail -eq 0 ]
