#!/bin/sh
# The --json reports of solve, run and compare and --out's .npy, read by
# Python's json module and numpy (tests/json_output.py says what it
# checks). Debian's /usr/bin/python3, named explicitly: python3-numpy is a
# Debian package (Build-Depends), and a python3 found first on PATH (a
# virtualenv, pyenv) may not have it. Without it the test reports SKIP
# (exit 77) with the reason.
set -u
src=${srcdir:-.}
python=/usr/bin/python3
if ! [ -x "$python" ]; then
	echo "SKIP $python is not installed (Debian: python3, python3-numpy)"
	exit 77
fi
if ! "$python" -c 'import numpy' 2>/dev/null; then
	echo "SKIP $python has no numpy (Debian: python3-numpy)"
	exit 77
fi
srcdir=$src top_builddir=${top_builddir:-.} exec "$python" \
	"$src/tests/json_output.py"
