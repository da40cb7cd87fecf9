#!/bin/sh
# The configuration reference cannot drift from the code (issue 32):
# doc/config-reference.md and doc/proxima.conf.5 are made by
# tools/reference.sh from the build's [solver] declarations and plugins;
# this remakes both into a scratch folder and compares them with the
# committed files, one line per file that differs, naming the command that
# brings it up to date. SKIP (77) in a build without UMFPACK, whose
# plugins lack ssn. Under a second on two shared cores.
set -u
src=$(cd "${srcdir:-.}" && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
if [ ! -f "$build/plugins/.libs/accelerator_ssn.so" ]; then
	echo "[SKIP] reference.sh: a build without UMFPACK has no ssn plugin, which the reference documents"
	exit 77
fi
work=$(mktemp -d /tmp/px_reference_XXXXXX)
trap 'rm -rf "$work"' EXIT
sh "$src/tools/reference.sh" "$build" "$src" "$work" || {
	echo "FAIL tools/reference.sh did not make the reference"
	exit 1
}
fail=0
for f in config-reference.md proxima.conf.5; do
	if cmp -s "$work/$f" "$src/doc/$f"; then
		echo "PASS doc/$f is what the declarations give"
	else
		echo "FAIL doc/$f is stale: run 'make reference' in the build directory and commit doc/$f"
		diff -u "$src/doc/$f" "$work/$f" | head -40
		fail=$((fail + 1))
	fi
done
echo "$((2 - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
