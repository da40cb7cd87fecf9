#!/bin/sh
# Every built plugin exports exactly one symbol, px_plugin_query, and does
# not depend on libproxima (doc/design.md, section 5).
set -u
dir="${top_builddir:-.}/plugins/.libs"
pass=0 fail=0
for so in "$dir"/*.so; do
	[ -e "$so" ] || { echo "no plugins in $dir"; exit 1; }
	syms=$(nm -D --defined-only "$so" | awk 'NF == 3 { print $3 }' | tr '\n' ' ')
	if [ "$syms" != "px_plugin_query " ]; then
		echo "FAIL $so exports: $syms"; fail=$((fail + 1)); continue
	fi
	if objdump -p "$so" | grep -q 'NEEDED.*libproxima'; then
		echo "FAIL $so links libproxima"; fail=$((fail + 1)); continue
	fi
	pass=$((pass + 1))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
