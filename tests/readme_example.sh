#!/bin/sh
# The plugin example in the manual's plugin chapter (doc/plugins.md) and
# in proxima-plugin(7) is examples/friction_capped.c from its first
# #include on (the file adds only its top comment), so what `make
# installcheck` builds is what both show. The man page's copy is escaped
# for roff: \e for a backslash, \- for a minus, \& before a line that
# starts with a period.
set -u
src=${srcdir:-.}
example=$(sed -n '/^#include/,$p' "$src/examples/friction_capped.c")
chapter=$(sed -n '/^```c$/,/^```$/p' "$src/doc/plugins.md" | sed '1d;$d')
man=$(sed -n '/^\.\\" example begin$/,/^\.\\" example end$/p' \
	"$src/doc/proxima-plugin.7" | sed '1d;$d' |
	sed 's/^\\&//; s/\\-/-/g; s/\\e/\\/g')
pass=0 fail=0
for copy in doc/plugins.md doc/proxima-plugin.7; do
	case $copy in
	doc/plugins.md) text=$chapter ;;
	*) text=$man ;;
	esac
	if [ "$text" = "$example" ]; then
		pass=$((pass + 1))
	else
		echo "$copy's example differs from examples/friction_capped.c:"
		printf '%s\n' "$text" > readme_example.tmp
		printf '%s\n' "$example" | diff -u readme_example.tmp - ; rm -f readme_example.tmp
		fail=$((fail + 1))
	fi
done

# The figures the manual (doc/*.md) states about short runs are what
# proxima prints today: each check names a piece of a chapter's text ($doc
# before the check; it must still be there: change both together) and what
# the command must print; the README's tour is checked the same way. Checks on
# the shared problems ($PX_SHARED_PROBLEMS, else ../shared/problems beside
# the source tree) skip without them, the MPI ones without a proxima-mpi
# and mpirun. About 12 s on two shared cores.
cli=${top_builddir:-.}/cli/proxima
problems=${PX_SHARED_PROBLEMS:-$src/../shared/problems}
work=$(mktemp -d /tmp/px_readme_XXXXXX)
trap 'rm -rf "$work"' EXIT
# Open MPI's session directories under this test's own folder: mpiruns
# of tests run side by side race on one shared tree in /tmp ("ORTE_ERROR_LOG:
# Error in file util/session_dir.c", seen under make -j2 check)
export OMPI_MCA_orte_tmpdir_base="$work"
skipped=0
# figure TEXT EXPECTED COMMAND...: the chapter $doc holds TEXT and the
# command's output holds EXPECTED (fixed strings; TEXT is one line of the
# chapter).
figure() {
	text=$1 want=$2
	shift 2
	if ! grep -qF -- "$text" "$src/$doc"; then
		echo "FAIL $doc no longer says: $text"
		fail=$((fail + 1))
		return
	fi
	# a command runs once, its output is kept for the other checks
	key=$(printf '%s\n' "$@" | cksum | tr ' ' _)
	[ -f "$work/$key.out" ] || "$@" > "$work/$key.out" 2>&1
	got=$(cat "$work/$key.out")
	if printf '%s\n' "$got" | grep -qF -- "$want"; then
		pass=$((pass + 1))
	else
		echo "FAIL $doc says '$text', but $* did not print '$want':"
		printf '%s\n' "$got"
		fail=$((fail + 1))
	fi
}
ini() { printf "$2" > "$work/$1.ini"; }
# README.md, the tour's first solve (no shared problem needed)
if [ -x "$cli" ]; then
	doc=README.md
	figure 'result      converged after 46 sweeps (0 rejected), last delta 7.44e-10' \
		'result      converged after 46 sweeps (0 rejected), last delta 7.44e-10' \
		"$cli" solve "$src/scenes/two-boxes.dat"
	figure 'fc3d error  3.347e-09 (||F|| = 3.411e-09;' \
		'fc3d error  3.347e-09 (||F|| = 3.411e-09;' "$cli" solve "$src/scenes/two-boxes.dat"
fi
if [ -x "$cli" ] && [ -d "$problems" ]; then
	nes=$problems/NESpheres_10_1.dat caps=$problems/Capsules-i122-1617.dat
	kap=$problems/KaplasTower-i1061-4.hdf5.dat
	# doc/guide.md, "Solving a problem": the transcripts
	doc=doc/guide.md
	figure 'result      converged after 20 sweeps (0 rejected), last delta 1.52e-07' \
		'result      converged after 20 sweeps (0 rejected), last delta 1.52e-07' \
		"$cli" solve "$nes"
	figure 'fc3d error  3.086e-09 (||F|| = 1.111e-08;' \
		'fc3d error  3.086e-09 (||F|| = 1.111e-08;' "$cli" solve "$nes"
	doc=doc/config.md
	figure 'now converges after 42207)' 'converged after 42207 sweeps' \
		"$cli" solve "$caps"
	doc=doc/guide.md
	ini colored '[scheduler]\nplugin = colored\n'
	figure '3 safe colors (sizes 7 1 1), no unsafe color, 1 thread (27 rows < serial_below 1024); conflict graph (4 edges)' \
		'3 safe colors (sizes 7 1 1), no unsafe color, 1 thread (27 rows < serial_below 1024); conflict graph (4 edges)' \
		"$cli" solve -c "$work/colored.ini" "$nes"
	figure 'BoxesStack1-i100000-32.hdf5.dat` (53 sweeps' \
		'converged after 53 sweeps' \
		"$cli" solve -c "$src/conf/pgssm.ini" "$problems/BoxesStack1-i100000-32.hdf5.dat"
	figure 'accelerator pgssm: 2 calls (1 replaced the iterate), 659 products' \
		'accelerator pgssm: 2 calls (1 replaced the iterate), 659 products' \
		"$cli" solve -c "$src/conf/pgssm.ini" "$problems/BoxesStack1-i100000-32.hdf5.dat"
	figure '10 subspace steps, 647 CG iterations; calls that met an indefinite reduced system 0, a singular one 0, hit the CG limit 1, fell back to an earlier iterate 1; last 101 of 156 rows free' \
		'10 subspace steps, 647 CG iterations; calls that met an indefinite reduced system 0, a singular one 0, hit the CG limit 1, fell back to an earlier iterate 1; last 101 of 156 rows free' \
		"$cli" solve -c "$src/conf/pgssm.ini" "$problems/BoxesStack1-i100000-32.hdf5.dat"
	# doc/guide.md, "Comparing configurations": the table's sweeps and errors
	ini global '[solver]\nmerit = fc3d\nabs_tol = 1e-10\nmax_sweeps = 2000\n[rfactor]\nplugin = global\nr = 0.5\n'
	"$cli" compare -c "$src/conf/default.ini" -c "$work/global.ini" \
		"$src/scenes/two-boxes.dat" --out "$work/cmp" --no-plot \
		> "$work/cmp.txt" 2>&1
	for row in 'default   fc3d        yes      46         0             21' \
		'global    fc3d        yes     116         2             42'; do
		figure "$row" "$row" cat "$work/cmp.txt"
	done
	figure '33  4.81e-05            44  6.04e-05   3.347e-09' '3.347e-09' cat "$work/cmp.txt"
	figure '67  7.76e-05            91  0.000103   9.742e-11' '9.742e-11' cat "$work/cmp.txt"
	# doc/fclib.md: a warm start from the file's guess, from its solution
	doc=doc/fclib.md
	figure 'result      converged after 632 sweeps (0 rejected), last delta 4.2e-09' \
		'result      converged after 632 sweeps (0 rejected), last delta 4.2e-09' \
		"$cli" solve -c "$src/conf/default.ini" --warm-start guess \
		--save-fclib "$work/solved.hdf5" "$problems/Capsules-i125-1213.hdf5"
	if [ -f "$work/solved.hdf5" ]; then
		figure 'result      converged after 1 sweeps (0 rejected), last delta 4.19e-09' \
			'result      converged after 1 sweeps (0 rejected), last delta 4.19e-09' \
			"$cli" solve -c "$src/conf/default.ini" --warm-start solution "$work/solved.hdf5"
	fi
	figure '(from zero the same solve takes 2549 sweeps.)' 'converged after 2549 sweeps' \
		"$cli" solve -c "$src/conf/default.ini" "$problems/Capsules-i125-1213.hdf5"
	# doc/config.md: back-tracking on Capsules-i122, Erleben 2017's rule
	# (growth 1) against growth 1.1
	doc=doc/config.md
	ini rule001 '[rfactor]\nplugin = local\nnu = 0.9\ngrowth = 1\n[solver]\nmax_backtracks = 1000\nmerit = delta\nabs_tol = 1e-10\nmax_sweeps = 10000\n'
	figure 'it falls to 1e-13 with an fc3d error of 3.5e-7' '(149 rejected), last delta 1.05e-13' \
		"$cli" solve -c "$work/rule001.ini" "$caps"
	figure '(`growth = 1`, `max_backtracks = 1000`: fc3d 3.5e-7 after 10000 sweeps, 149 rejections' \
		'fc3d error  3.506e-07' "$cli" solve -c "$work/rule001.ini" "$caps"
	ini rule001f '[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 10000\n[rfactor]\nplugin = local\nnu = 0.9\ngrowth = 1\n'
	figure '(Capsules-i122: 100 rejections in 10000 sweeps, fc3d stuck' '(100 rejected)' \
		"$cli" solve -c "$work/rule001f.ini" "$caps"
	figure 'at 3.5e-7; now 0 rejections' 'fc3d error  3.505e-07' \
		"$cli" solve -c "$work/rule001f.ini" "$caps"
	ini growth '[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 100000\n[rfactor]\nplugin = local\nnu = 0.9\n'
	figure 'now 0 rejections and 1.4e-8, and converged after 20477 sweeps' \
		'converged after 20477 sweeps (0 rejected)' "$cli" solve -c "$work/growth.ini" "$caps"
	ini growth10k '[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 10000\n[rfactor]\nplugin = local\nnu = 0.9\n'
	figure 'now 0 rejections and 1.4e-8' 'fc3d error  1.406e-08' \
		"$cli" solve -c "$work/growth10k.ini" "$caps"
	# exact local solves
	ini newton '[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 100000\nlocal_solve = newton\n[rfactor]\nplugin = local\nnu = 1\n'
	figure 'Capsules-i122 converges after 16435 sweeps' 'converged after 16435 sweeps' \
		"$cli" solve -c "$work/newton.ini" "$caps"
	ini stag001 '[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 10000\n[rfactor]\nplugin = local\nnu = 0.9\ngrowth = 1\n[ordering]\nplugin = staggered\n'
	figure 'stall at 6.5e-8 after 10000 sweeps' 'fc3d error  6.477e-08' \
		"$cli" solve -c "$work/stag001.ini" "$nes"
	ini stag '[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 10000\n[ordering]\nplugin = staggered\n'
	figure 'reach it too, in 42 sweeps' 'converged after 42 sweeps' \
		"$cli" solve -c "$work/stag.ini" "$nes"
	# blocked against local (nu = 1), to 1e-8
	for rf in blocked local; do
		ini $rf "[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 100000\n[rfactor]\nplugin = $rf\nnu = 1\n"
	done
	figure '(Rover1040: 13 against' 'converged after 13 sweeps' \
		"$cli" solve -c "$work/blocked.ini" "$problems/Rover1040.dat"
	figure 'KaplasTower 1132 against' 'converged after 1132 sweeps' \
		"$cli" solve -c "$work/blocked.ini" "$kap"
	figure 'OneObject 1037 against' 'converged after 1037 sweeps' \
		"$cli" solve -c "$work/blocked.ini" "$problems/OneObject-i1028-138.hdf5.dat"
	figure 'needs 542 on Rover1040' 'converged after 542 sweeps' \
		"$cli" solve -c "$work/local.ini" "$problems/Rover1040.dat"
	# "Why merge_below defaults to 0": conf/default.ini with colored
	colored() {
		{ grep -v '^\[scheduler\]\|^plugin = sequential' "$src/conf/default.ini"
		  printf '[scheduler]\nplugin = colored\nthreads = 1\n%s\n' "$2"; } > "$work/$1.ini"
	}
	figure '1243 sweeps (`sequential`: 1445)' 'converged after 1445 sweeps' \
		"$cli" solve -c "$src/conf/default.ini" "$kap"
	for v in 'greedy:1243 sweeps' 'balanced:balanced, 1335'; do
		colored "${v%%:*}" "coloring = ${v%%:*}"
		figure "${v#*:}" "converged after $(printf '%s' "${v#*:}" | grep -o '[0-9][0-9]*' | head -1) sweeps" \
			"$cli" solve -c "$work/${v%%:*}.ini" "$kap"
	done
	colored merged "merge_below = 40"
	figure '(14 of 18 colors, 392 of 570 contacts,' 'unsafe color of 392 contacts from 14 colors' \
		"$cli" solve -c "$work/merged.ini" "$kap"
	figure 'no longer finite at sweep 697' 'diverged    at sweep 697: the iterate turned non-finite' \
		"$cli" solve -c "$work/merged.ini" "$kap"
	# doc/world.md, "Substeps": boxstack-20 at a work of 20 (today's one
	# solve of 20 sweeps against 20 substeps of 1 sweep, random ordering) and
	# ipp with 1, 2 and 3 sweeps per substep (the built-in defaults otherwise)
	doc=doc/world.md
	awk '{ print } /^\[world\]/ { print "substeps = 20" }' \
		"$src/scenes/boxstack-20.ini" > "$work/bs20s.ini"
	ini today20 '[solver]\nmax_sweeps = 20\nabs_tol = 0\nrel_tol = 0\n[rfactor]\nplugin = local\nnu = 1\n'
	figure 'carry fewer contacts (boxstack-20: 67.6 against 80)' \
		'contacts    67.6 per step on average' \
		"$cli" run -c "$work/today20.ini" "$src/scenes/boxstack-20.ini" --quiet
	sed 's/^max_sweeps = 5$/max_sweeps = 1/' "$src/conf/substeps.ini" > "$work/sub1.ini"
	figure 'carry fewer contacts (boxstack-20: 67.6 against 80)' \
		'contacts    80.0 per step on average, at most 80' \
		"$cli" run -c "$work/sub1.ini" "$work/bs20s.ini" --quiet
	for s in 1 2 3; do
		for d in ascending descending; do
			ini ipp$s$d "[solver]\nmax_sweeps = $s\n[ordering]\nplugin = ipp\ndirection = $d\n"
		done
	done
	figure 'to 2.3e10 J within the sixth step' '129492 J at the start, 2.31601e+10 J at the end' \
		"$cli" run -c "$work/ipp1ascending.ini" "$work/bs20s.ini" --quiet --steps 6
	figure '(71.4 of its 80 contacts on average, 4.7 cm deep)' \
		'contacts    71.4 per step on average, at most 80; deepest penetration 0.0469 m' \
		"$cli" run -c "$work/ipp2ascending.ini" "$work/bs20s.ini" --quiet
	figure 'with 3 it keeps all 80 (0.3 mm deep)' \
		'contacts    80.0 per step on average, at most 80; deepest penetration 0.000287 m' \
		"$cli" run -c "$work/ipp3ascending.ini" "$work/bs20s.ini" --quiet
	figure 'ipp descending lets it fall with 1' '129492 J at the start, 14675.4 J at the end' \
		"$cli" run -c "$work/ipp1descending.ini" "$work/bs20s.ini" --quiet
	figure '(79.7 on average, 1.6 mm deep)' \
		'contacts    79.7 per step on average, at most 80; deepest penetration 0.00164 m' \
		"$cli" run -c "$work/ipp2descending.ini" "$work/bs20s.ini" --quiet
	# doc/config.md: PGS-SM on KaplasTower, to 1e-10
	doc=doc/config.md
	ini pgssm '[solver]\nmerit = fc3d\nabs_tol = 1e-10\nmax_sweeps = 20000\n[rfactor]\nplugin = local\nnu = 1\n[accelerator]\nplugin = pgssm\n'
	figure '(KaplasTower 1077 sweep equivalents' 'converged after 65 sweeps' \
		"$cli" solve -c "$work/pgssm.ini" "$kap"
	figure 'error of 1e-10, 100 takes 1012' '1012 products with A' \
		"$cli" solve -c "$work/pgssm.ini" "$kap"
	# doc/mpi.md: the distributed solve and run
	doc=doc/mpi.md
	mpi=${top_builddir:-.}/mpi/proxima-mpi
	if [ -x "$mpi" ] && command -v mpirun >/dev/null 2>&1; then
		export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
		export PROXIMA_MPI="$mpi"
		run="timeout $((60 * ${PX_TEST_SLOWDOWN:-1})) mpirun -q --oversubscribe --bind-to none"
		figure 'result      converged after 1590 sweeps (0 rejected; 1590 exchanges, 1590 global tests), last delta 2.98e-10' \
			'result      converged after 1590 sweeps (0 rejected; 1590 exchanges, 1590 global tests), last delta 2.98e-10' \
			$run -np 3 "$cli" solve "$kap"
		figure '3: contacts per rank 191 195 184 (imbalance 1.026); ghost contacts (copies) 141' \
			'3: contacts per rank 191 195 184 (imbalance 1.026); ghost contacts (copies) 141' \
			$run -np 3 "$cli" solve "$kap"
		figure 'after 10000 sweeps, `--set solver.max_sweeps=10000`).' 'fc3d error  6.008e-01' \
			$run -np 3 "$cli" solve "$kap" --combine sum --set solver.max_sweeps=10000
		box="run -c $src/conf/default.ini $src/scenes/boxstack-10.ini"
		figure 'it takes 51 sweeps per step on 2 ranks' '50.9 per step; 0 of 600 steps stopped' \
			$run -np 2 "$cli" $box
		figure 'and 61 on 3, against' '61.3 per step; 0 of 600 steps stopped' \
			$run -np 3 "$cli" $box
		figure '41 serially, and stands 10 s' '41.1 per step; 0 of 600 steps stopped' \
			"$cli" $box --quiet
	else
		echo "[SKIP] readme_example.sh: the distributed figures: no $mpi or no mpirun"
		skipped=$((skipped + 1))
	fi
else
	echo "[SKIP] readme_example.sh: the manual's figures: no $cli or no $problems"
	skipped=$((skipped + 1))
fi
echo "$pass passed, $fail failed, $skipped groups skipped"
[ "$fail" -eq 0 ]
