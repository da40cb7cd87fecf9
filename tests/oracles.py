"""Oracles of the Coulomb law written with numpy alone, independent of
libproxima, for the Python-side tests (tests/json_output.py, python/tests)
and benchmarks: a solution is judged by what these compute from W, q, mu
and lambda, never by the solver's own report. W is dense (3n x 3n)."""
import math

import numpy as np


def project_cone(mu, y):
    """The Euclidean projection of y (3: normal, two tangents) on the cone
    {||y_t|| <= mu y_n}."""
    nt = math.hypot(y[1], y[2])
    if mu * nt <= -y[0]:
        return np.zeros(3)
    if nt <= mu * y[0]:
        return y.copy()
    rn = (mu * nt + y[0]) / (mu * mu + 1)
    return np.array([rn, mu * rn * y[1] / nt, mu * rn * y[2] / nt])


def fc3d_norms(w, q, mu, r):
    """Siconos's fc3d_compute_error of r: (||F(r)|| / max(||q||, ||r||,
    ||u||), ||F(r)||), F_k(r) = r_k - proj_cone(r_k - (u_k + mu ||u_t||
    e_n)), u = W r + q."""
    u = w @ r + q
    f2 = 0.0
    for k, m in enumerate(mu):
        rk, uk = r[3 * k:3 * k + 3], u[3 * k:3 * k + 3]
        y = rk - uk
        y[0] -= m * math.hypot(uk[1], uk[2])
        f = rk - project_cone(m, y)
        f2 += float(f @ f)
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return math.sqrt(f2) / scale, math.sqrt(f2)


def fc3d(w, q, mu, r):
    """The relative fc3d error of r (fc3d_norms' first)."""
    return fc3d_norms(w, q, mu, r)[0]


def natural(w, q, mu, r):
    """The certificate of a stop test other than fc3d (px_merit_check_ws):
    ||r - prox(r - u)|| / max(||q||, ||r||, ||u||), the disc law, unit r."""
    u = w @ r + q
    z = r - u
    for k, m in enumerate(mu):
        zk = z[3 * k:3 * k + 3]
        zk[0] = max(zk[0], 0.0)
        t = math.hypot(zk[1], zk[2])
        if t > m * zk[0]:
            zk[1:] *= m * zk[0] / t
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return np.linalg.norm(r - z) / scale


def coulomb(w, q, mu, r, tol):
    """Assert Coulomb's law at every contact within tol (relative to the
    scale of the problem): lam_n >= 0, u_n >= 0, lam_n u_n = 0, ||lam_t||
    <= mu lam_n, and where the contact slides (u_t != 0) friction at the
    cone's edge against the sliding: lam_t = -mu lam_n u_t / ||u_t||."""
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
