"""Build the Python module proxima with pip, against an installed libproxima.

The same C sources as the autotools build (_core/*.c) make proxima._core;
the compile and link flags of libproxima come from `pkg-config proxima`
(set PKG_CONFIG_PATH for a prefix pkg-config does not search), numpy's
headers from the numpy of the Python that builds. See pyproject.toml and
doc/python.md, the manual's Python chapter.
"""

import glob
import os
import shlex
import subprocess
import sys

import numpy
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "proxima"], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        sys.exit("setup.py: `pkg-config " + " ".join(args) + " proxima` "
                 "failed: install libproxima (make install, or Debian's "
                 "libproxima-dev) and set PKG_CONFIG_PATH to its "
                 "PREFIX/lib/pkgconfig")
    return out.strip()


def flags(option, prefix):
    return [f[len(prefix):] for f in shlex.split(pkg_config(option))
            if f.startswith(prefix)]


libdir = pkg_config("--variable=libdir")
# A prefix outside the loader's search path (not /usr, not in ld.so.conf):
# the module finds libproxima there by its run path.
system = libdir in ("/usr/lib", "/lib") or libdir.startswith("/usr/lib/")
core = Extension(
    "proxima._core",
    sources=sorted(os.path.relpath(p, HERE) for p in
                   glob.glob(os.path.join(HERE, "_core", "*.c"))),
    depends=[os.path.join("_core", "core.h")],
    include_dirs=flags("--cflags-only-I", "-I") + [numpy.get_include()],
    library_dirs=flags("--libs-only-L", "-L"),
    libraries=flags("--libs-only-l", "-l"),
    runtime_library_dirs=[] if system else [libdir],
)

setup(
    name="proxima",
    version=pkg_config("--modversion"),
    description="rigid-body frictional contact problems, from Python "
                "(libproxima's C API)",
    license="MIT",
    packages=["proxima"],
    ext_modules=[core],
    install_requires=["numpy"],
    python_requires=">=3.9",
    zip_safe=False,
)
