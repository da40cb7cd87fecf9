#!/bin/sh
# Mutation check: does the test suite catch wrong answers? Each mutant is
# one deliberate bug in the solver; the script applies them one at a time
# to a clone of HEAD, builds, runs `make check` and reports which test
# programs fail. A mutant that no test kills is a hole in the suite.
#
#   tools/mutate.sh [NAME...]     every mutant, or the ones named
#   tools/mutate.sh --list        the mutants, one line each
#
# It works on a clone of the committed HEAD (uncommitted changes are not
# seen) in a scratch folder under ${TMPDIR:-/var/tmp}, configured as the
# bootstrap does (every optional part required, so that the distributed,
# Siconos and ssn tests run), with the problem files of ../shared/problems
# beside this checkout. The unmutated suite must pass first. Prints a table
# (mutant, where, killed, the failing test programs with the first case
# that failed in each) and exits 1 if a mutant survives or no longer
# applies. Each test program stops at its first failure and is killed
# after MUTATE_TIMEOUT seconds (default 300): a mutant may keep a solve
# from stopping. Two to eight minutes per mutant on 2 cores.
#
# A mutant is NAME|FILE|PATTERN|REPLACEMENT|WHAT: the Perl regular
# expression PATTERN must match FILE exactly once (the script says so when
# the code has moved on: update it here) and is replaced by REPLACEMENT
# (literal text; \n and \t in it are a newline and a tab).
set -eu

mutants() {
	cat <<'EOF'
disc-sign|include/proxima/plugin.h|z\[1\] = z\[1\] / len \* rad;|z[1] = -z[1] / len * rad;|the disc projection flips the sign of the t friction impulse on the rim
ordering-permutation|plugins/ordering/random.c|const uint32_t j = below\(state, i\);|const uint32_t j = below(state, i - 1);|off by one in the random ordering's shuffle (only cyclic permutations, Sattolo's)
rfactor-update|include/proxima/plugin.h|r\[i\] \*= nu;|r[i] /= nu;|back-tracking grows r by 1/nu after a rejected sweep instead of shrinking it by nu
fc3d-friction-row|core/merit.c|f2 \+= f \* f;|f2 += i == 2 ? 0.0 : f * f;|px_merit_fc3d drops the t friction row of every contact
rigid-body-swap|core/kernel_rigid3.c|double \*lam = lambda \+ 3 \* \(size_t\)k;\n\tconst uint32_t ba = s->body_a\[k\], bb = s->body_b\[k\];|double *lam = lambda + 3 * (size_t)k;\n\tconst uint32_t ba = s->body_b[k], bb = s->body_a[k];|the rigid kernel applies a contact's impulse change to its two bodies swapped
ghost-exchange|mpi/exchange.c|d->total\[6 \* L->mine\[i\] \+ q\] \+= L->rbuf\[6 \* i \+ q\];|(void)L->rbuf;|the distributed solve's owners drop the velocity changes that the ranks holding copies of their bodies sent
EOF
}

if [ "${1:-}" = --list ]; then
	mutants | awk -F'|' '{ printf "%-22s %-30s %s\n", $1, $2, $5 }'
	exit 0
fi

src=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$src/.." && pwd)/shared/problems
[ -d "$shared" ] || { echo "mutate: $shared is absent: the suite would skip its tests on the problem files" >&2; exit 2; }
for name in "$@"; do
	mutants | grep -q "^$name|" || { echo "mutate: no mutant '$name' (tools/mutate.sh --list)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/proxima-mutate.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q "$src" "$work/src"
cd "$work/src"
autoreconf -fi > "$work/autoreconf.log" 2>&1
mkdir build
cd build
../configure --enable-werror --with-siconos --with-umfpack --with-fclib \
	--with-mpi --with-shared-problems="$shared" > "$work/configure.log" 2>&1
j=$(nproc)

# check: make check, every test program run whatever fails, each stopping
# at its first failed case (CRITERION_FAIL_FAST) and killed after $limit s
# (a mutant can keep a solve from ever stopping: the tests' own solves and
# the commands they run have no time limit); the failing test programs,
# one per line, each with its first failed case or its time-out
limit=${MUTATE_TIMEOUT:-300}
check() {
	make -j"$j" > "$work/make.log" 2>&1 || { echo "build failed"; return 0; }
	CRITERION_FAIL_FAST=1 make -k -j"$j" check \
		LOG_COMPILER="timeout -k 10 $limit" > "$work/check.log" 2>&1 || true
	# what a killed test left running (a command under a timeout of its
	# own is in another process group)
	pkill -KILL -f "$work/src/build/" || true
	for t in tests/*.trs; do
		grep -q '^:test-result: \(FAIL\|ERROR\)' "$t" || continue
		prog=${t%.trs}
		first=$(sed -n 's/^\[FAIL\] \([^:]*::[^:]*\):.*/\1/p' "$prog.log" | head -n 1)
		if grep -q "exit status: 12[45]\|exit status: 137" "$prog.log" && [ -z "$first" ]; then
			first="timed out after $limit s"
		fi
		echo "${prog#tests/} (${first:-exit status $(sed -n 's/.*(exit status: \([0-9]*\)).*/\1/p' "$prog.log" | tail -n 1)})"
	done
}

echo "mutate: the unmutated suite"
base=$(check < /dev/null)
if [ -n "$base" ]; then
	echo "mutate: the unmutated suite fails: $base" >&2
	exit 1
fi

status=0
printf '| mutant | file | killed | failing test programs (first failed case) |\n|---|---|---|---|\n' > "$work/table"
mutants | while IFS='|' read -r name file pat rep what; do
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "mutate: $name: $what" >&2
	n=$(P=$pat perl -0ne '$n = () = /$ENV{P}/g; print $n' "../$file")
	if [ "$n" != 1 ]; then
		echo "| $name | $file | no longer applies ($n matches): update tools/mutate.sh | |" >> "$work/table"
		echo 1 > "$work/failed"
		continue
	fi
	R=$(printf '%s' "$rep" | sed 's/\\n/\n/g; s/\\t/\t/g') P=$pat \
		perl -0pi -e 's/$ENV{P}/$ENV{R}/' "../$file"
	# (no stdin for the suite: it would read the list of mutants)
	failing=$(check < /dev/null | paste -sd' ' -)
	git -C .. checkout -q -- "$file"
	if [ -n "$failing" ]; then
		echo "| $name | $file | yes | $failing |" >> "$work/table"
	else
		echo "| $name | $file | **no** | |" >> "$work/table"
		echo 1 > "$work/failed"
	fi
done
cat "$work/table"
[ ! -f "$work/failed" ] || status=1
exit $status
