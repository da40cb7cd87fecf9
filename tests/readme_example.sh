#!/bin/sh
# The plugin example in README.md and in proxima-plugin(7) is
# examples/friction_capped.c from its first #include on (the file adds only
# its top comment), so what `make installcheck` builds is what both show.
# The man page's copy is escaped for roff: \e for a backslash, \- for a
# minus, \& before a line that starts with a period.
set -u
src=${srcdir:-.}
example=$(sed -n '/^#include/,$p' "$src/examples/friction_capped.c")
readme=$(sed -n '/^```c$/,/^```$/p' "$src/README.md" | sed '1d;$d')
man=$(sed -n '/^\.\\" example begin$/,/^\.\\" example end$/p' \
	"$src/doc/proxima-plugin.7" | sed '1d;$d' |
	sed 's/^\\&//; s/\\-/-/g; s/\\e/\\/g')
pass=0 fail=0
for copy in README.md doc/proxima-plugin.7; do
	case $copy in
	README.md) text=$readme ;;
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
