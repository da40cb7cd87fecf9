"""Shared fixtures of the Python module's tests: the build's command (for
answers to compare with), the source tree's scenes and configs, the shared
problem files, and the numpy oracles of the Coulomb law (tests/oracles.py,
independent of libproxima; also tests/json_output.py's).

make check runs them (python/tests/run.sh) with PYTHONPATH at the build's
python/; by hand: PYTHONPATH=build/python /usr/bin/python3 -m pytest
python/tests, from the source tree."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))
BUILD = os.path.abspath(os.environ.get("top_builddir")
                        or os.path.join(os.environ["PYTHONPATH"].split(":")[0],
                                        ".."))
# the build's plugins and the source tree's configs, as make check sets them
os.environ.setdefault("PROXIMA_PLUGIN_PATH",
                      os.path.join(BUILD, "plugins", ".libs"))
os.environ.setdefault("PROXIMA_DATA_DIR", SRC)
SHARED = os.environ.get("PX_SHARED_PROBLEMS") or os.path.join(
    SRC, "..", "shared", "problems")
sys.path.insert(0, os.path.join(SRC, "tests"))
from oracles import coulomb, fc3d, fc3d_norms, natural  # noqa: E402,F401

TWO_BOXES = os.path.join(SRC, "scenes", "two-boxes.dat")
CLI = os.path.join(BUILD, "cli", "proxima")


def cli(*args, check=True):
    """Run the build's command: (exit status, stdout, stderr)."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True,
                       timeout=120)
    if check and p.returncode not in (0, 1):
        raise AssertionError(f"proxima {' '.join(args)}: exit "
                             f"{p.returncode}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def shared(name):
    """A shared problem file, or skip with the reason."""
    path = os.path.join(SHARED, name)
    if not os.path.exists(path):
        pytest.skip(f"{path}: not found (the shared problems, "
                    "PX_SHARED_PROBLEMS)")
    return path
