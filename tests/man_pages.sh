#!/bin/sh
# The manual pages in doc/: groff formats each without a warning (-ww: all
# warnings), and proxima(1) documents every option that `proxima --help'
# and the commands' --help show. proxima.conf(5)'s keys are
# tests/test_man.c's.
# A --help that fails (or prints no option) fails the test. Without groff
# (Debian: groff-base, in Build-Depends) the option check still runs, and
# the test then reports SKIP (exit 77) with the reason, unless it failed.
set -u
src=${srcdir:-.}
cli=${top_builddir:-.}/cli/proxima
pass=0 fail=0 skip=
if command -v groff >/dev/null 2>&1; then
	for page in "$src/doc/proxima.1" "$src/doc/proxima.conf.5" \
		"$src/doc/proxima-plugin.7"; do
		out=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
		if [ -n "$out" ]; then
			echo "FAIL groff warns on $page:"
			printf '%s\n' "$out"
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
	done
else
	skip="groff is not installed (Debian: groff-base): the pages were not formatted"
fi
# --option in the usage texts -> \-\-option in proxima.1
usage=
for cmd in "" run solve compare config; do
	# shellcheck disable=SC2086 # "" is no argument: proxima --help
	if text=$("$cli" $cmd --help 2>&1); then
		usage="$usage
$text"
	else
		echo "FAIL proxima ${cmd:+$cmd }--help exits with status $?:"
		printf '%s\n' "$text"
		fail=$((fail + 1))
	fi
done
opts=$(printf '%s\n' "$usage" | grep -o -- '--[a-z][a-z-]*' | sort -u)
if [ -z "$opts" ]; then
	echo "FAIL the --help texts name no option"
	fail=$((fail + 1))
fi
for opt in $opts; do
	roff=$(printf '%s' "$opt" | sed 's/-/\\-/g')
	if grep -qF -- "$roff" "$src/doc/proxima.1"; then
		pass=$((pass + 1))
	else
		echo "FAIL proxima.1 does not document $opt (expected $roff)"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1
if [ -n "$skip" ]; then
	echo "SKIP $skip"
	exit 77
fi
exit 0
