"""Shared fixtures of the Python module's tests: the build's command (for
answers to compare with), the source tree's scenes and configs, the shared
problem files, and an fc3d error computed here with numpy, independently
of libproxima (as tests/json_output.py does).

make check runs them (python/tests/run.sh) with PYTHONPATH at the build's
python/; by hand: PYTHONPATH=build/python /usr/bin/python3 -m pytest
python/tests, from the source tree."""

import math
import os
import subprocess

import numpy as np
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


def project_cone(mu, y):
    nt = math.hypot(y[1], y[2])
    if mu * nt <= -y[0]:
        return np.zeros(3)
    if nt <= mu * y[0]:
        return y.copy()
    rn = (mu * nt + y[0]) / (mu * mu + 1)
    return np.array([rn, mu * rn * y[1] / nt, mu * rn * y[2] / nt])


def fc3d(w, q, mu, r):
    """Siconos's fc3d_compute_error of r: ||F(r)|| / max(||q||, ||r||,
    ||u||), F_k(r) = r_k - proj_cone(r_k - (u_k + mu ||u_t|| e_n))."""
    u = w @ r + q
    f2 = 0.0
    for k, m in enumerate(mu):
        rk, uk = r[3 * k:3 * k + 3], u[3 * k:3 * k + 3]
        y = rk - uk
        y[0] -= m * math.hypot(uk[1], uk[2])
        f = rk - project_cone(m, y)
        f2 += float(f @ f)
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return math.sqrt(f2) / scale


def coulomb(w, q, mu, r, tol):
    """Coulomb's law at every contact within tol (relative to the scale of
    the problem): lam_n >= 0, u_n >= 0, lam_n u_n = 0, ||lam_t|| <= mu
    lam_n, and where the contact slides (u_t != 0) friction at the cone's
    edge against the sliding: lam_t = -mu lam_n u_t / ||u_t||."""
    u = w @ r + q
    s = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    for k, m in enumerate(mu):
        rn, rt = r[3 * k], r[3 * k + 1:3 * k + 3]
        un, ut = u[3 * k], u[3 * k + 1:3 * k + 3]
        assert rn >= -tol * s, f"contact {k}: lambda_n = {rn}"
        assert un >= -tol * s, f"contact {k}: u_n = {un}"
        assert abs(rn * un) <= tol * s * s, f"contact {k}: complementarity"
        assert np.linalg.norm(rt) <= m * rn + tol * s, f"contact {k}: cone"
        if np.linalg.norm(ut) > tol * s:
            slide = -m * rn * ut / np.linalg.norm(ut)
            assert np.linalg.norm(rt - slide) <= tol * s, \
                f"contact {k}: sliding friction"
