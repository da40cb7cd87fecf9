#!/bin/sh
# The hardening runs of issue 22, each in its own build directory beside
# build/, with the seconds each took on one line at the end:
#
#   tests/hardening.sh [asan] [valgrind] [fuzz] [tsan]   (default: the
#                                                         first three)
#   asan      configure --enable-sanitizers (ASan + UBSan), make check
#             aborting on the first report (build-asan/)
#   valgrind  make check-valgrind: the command's tests with every proxima
#             under memcheck, no error and no definite leak (build-valgrind/)
#   fuzz      configure --enable-fuzz, make fuzz FUZZ_SECONDS (default 60)
#             for each target (build-fuzz/)
#   tsan      configure CC=clang --enable-tsan, make check-tsan: the
#             OpenMP schedulers with 2 to 4 threads (build-tsan/)
#
# Run from a tree where autoreconf -fi has run (bootstrap.sh does); MAKEJ
# sets make's -j (default 2). Exits non-zero at the first failing part.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
parts=${*:-asan valgrind fuzz}
j=${MAKEJ:-2}
times=""

# failed: for each failed test of the current build directory (make
# check's output names them only), its log's first lines that say what
# failed and its last lines, short enough that the end of this output,
# which is what CI shows, holds several
failed() {
	for t in tests/*.trs python/tests/*.trs; do
		[ -e "$t" ] && grep -q '^:test-result: FAIL' "$t" || continue
		echo "---- $(pwd)/${t%.trs}.log: what failed, then its end"
		grep -m 8 -E 'FAIL|[Ee]rror|[Aa]ssert|timed out' "${t%.trs}.log"
		echo "...."
		tail -n 8 "${t%.trs}.log"
	done
}

# NAME DIR CFLAGS CONFIGURE-OPTION MAKE-ARG...: configure and build in
# DIR, then make MAKE-ARGs there (on failure, the failed tests' logs);
# its time into $times.
part() {
	name=$1 dir=$2 cflags=$3 option=$4
	shift 4
	t0=$(date +%s)
	mkdir -p "$top/$dir"
	cd "$top/$dir"
	../configure --enable-werror $option CFLAGS="$cflags" >configure.log
	make -j"$j" >make.log
	if ! make -j"$j" "$@"; then
		failed
		exit 1
	fi
	cd "$top"
	echo "hardening: $name took $(($(date +%s) - t0)) s"
	times="$times $name $(($(date +%s) - t0)) s;"
}

for p in $parts; do
	case $p in
	asan) part asan build-asan "-O1 -g" --enable-sanitizers check ;;
	valgrind) part valgrind build-valgrind "-g -O2" "" check-valgrind ;;
	fuzz) part fuzz build-fuzz "-g -O2" --enable-fuzz fuzz \
		FUZZ_SECONDS="${FUZZ_SECONDS:-60}" ;;
	tsan)
		CC=clang
		export CC
		part tsan build-tsan "-O1 -g" --enable-tsan check-tsan
		unset CC ;;
	*) echo "usage: $0 [asan] [valgrind] [fuzz] [tsan]" >&2; exit 2 ;;
	esac
done
echo "hardening:$times"
