#!/bin/sh
# The plugin example in README.md is examples/friction_capped.c from its first
# #include on (the file adds only its top comment), so what `make
# installcheck` builds is what the README shows.
set -u
src=${srcdir:-.}
readme=$(sed -n '/^```c$/,/^```$/p' "$src/README.md" | sed '1d;$d')
example=$(sed -n '/^#include/,$p' "$src/examples/friction_capped.c")
if [ "$readme" = "$example" ]; then
	echo "1 passed, 0 failed"
else
	echo "README.md's example differs from examples/friction_capped.c:"
	printf '%s\n' "$readme" > readme_example.tmp
	printf '%s\n' "$example" | diff -u readme_example.tmp - ; rm -f readme_example.tmp
	echo "0 passed, 1 failed"
	exit 1
fi
