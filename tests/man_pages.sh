#!/bin/sh
# The manual pages in doc/: groff formats each without a warning (-ww: all
# warnings; skipped when groff is not installed), and proxima(1) documents
# every option that `proxima --help' and the commands' --help show.
# proxima.conf(5)'s keys are tests/test_man.c's.
set -u
src=${srcdir:-.}
cli=${top_builddir:-.}/cli/proxima
pass=0 fail=0
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
	echo "SKIP groff is not installed: the pages are not formatted"
fi
# --option in the usage texts -> \-\-option in proxima.1
opts=$({ "$cli" --help; "$cli" run --help; "$cli" solve --help;
	"$cli" compare --help; } 2>&1 |
	grep -o -- '--[a-z][a-z-]*' | sort -u)
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
[ "$fail" -eq 0 ]
