#!/bin/sh
# The Python module's tests (python/tests/test_*.py) by pytest, on the
# module this build made (build/python on PYTHONPATH), never an installed
# one, with the Python configure built it for ($PX_PYTHON, by default
# Debian's /usr/bin/python3). SKIP (exit 77) with the reason when the
# module was not built or pytest is missing.
set -u
src=${srcdir:-.}
top=${top_builddir:-.}
python=${PX_PYTHON:-/usr/bin/python3}
if ! [ -e "$top/python/proxima/_core.so" ]; then
	echo "SKIP the Python module was not built (configure says why; Debian: apt-get install python3-dev python3-numpy)"
	exit 77
fi
if ! "$python" -c 'import pytest' 2>/dev/null; then
	echo "SKIP $python has no pytest (Debian: python3-pytest)"
	exit 77
fi
PYTHONPATH=$(cd "$top" && pwd)/python
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE
# A sanitizer build (configure --enable-sanitizers) links the module with
# ASan, whose runtime must come first in a process: preload it into the
# interpreter, which is not instrumented; the interpreter's own allocations
# outlive it, so leaks are not reported here (test_cli and test_faults
# check the command's).
asan=$(ldd "$top/python/proxima/_core.so" 2>/dev/null |
	awk '/libasan\.so/ { print $3; exit }')
if [ -n "$asan" ]; then
	LD_PRELOAD=$asan
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
	export LD_PRELOAD ASAN_OPTIONS
fi
exec "$python" -m pytest -q -p no:cacheprovider "$src/python/tests"
