"""The rigid and factorized forms of W from Python (Problem.rigid,
Problem.factorized): W equals J M^-1 J^T built here with numpy from the
same bodies, frames and lever arms; the three forms of one problem solve
to the same lambda, each meeting Coulomb's law; bad input refused with
exact messages."""

import numpy as np
import pytest

import proxima
from conftest import coulomb, fc3d

# bodies 0, 1, 2 in a ring: contacts 0, 2, 4 of bodies 0, 1, 2 on the
# ground (-1: the static world), 1, 3, 5 between bodies 0-1, 1-2, 2-0
BODY_A = np.array([0, 0, 1, 1, 2, 2])
BODY_B = np.array([-1, 1, -1, 2, -1, 0])
N, NB = 6, 3


def geometry():
    """Per-body inverse mass and inertia (full, symmetric positive
    definite), per-contact frames (orthonormal, rows n, s, t) and lever
    arms, fixed by a seeded generator."""
    rng = np.random.default_rng(31)
    inv_mass = np.array([1.0, 0.5, 2.0])
    inv_inertia = np.empty((NB, 3, 3))
    for b in range(NB):
        r, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        m = r @ np.diag(rng.uniform(1.0, 4.0, 3)) @ r.T
        inv_inertia[b] = (m + m.T) / 2  # exactly symmetric
    frames = np.empty((N, 3, 3))
    for k in range(N):
        f, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        frames[k] = f.T
        if frames[k][0][2] < 0:  # the normal points up, more or less
            frames[k][0] *= -1
    lever = rng.uniform(-0.5, 0.5, (N, 2, 3))
    lever[BODY_B < 0, 1] = 0.0
    return inv_mass, inv_inertia, frames, lever


def jacobian(frames, lever):
    """J (3N x 6NB) of problem.h: contact k's row d is (d, r_a x d) on
    body a's (v, omega) and -(d, r_b x d) on body b's."""
    J = np.zeros((3 * N, 6 * NB))
    for k in range(N):
        for side, body in ((0, BODY_A[k]), (1, BODY_B[k])):
            if body < 0:
                continue
            sign = -1.0 if side else 1.0
            for r in range(3):
                d = frames[k][r]
                J[3 * k + r, 6 * body:6 * body + 3] = sign * d
                J[3 * k + r, 6 * body + 3:6 * body + 6] = sign * np.cross(
                    lever[k, side], d)
    return J


def minv(inv_mass, inv_inertia):
    m = np.zeros((6 * NB, 6 * NB))
    for b in range(NB):
        m[6 * b:6 * b + 3, 6 * b:6 * b + 3] = inv_mass[b] * np.eye(3)
        m[6 * b + 3:6 * b + 6, 6 * b + 3:6 * b + 6] = inv_inertia[b]
    return m


def problem_data():
    """The geometry, W = J M^-1 J^T by numpy, and q = J v + gravity's
    approach at the ground contacts (a world's free velocity)."""
    im, ii, fr, lv = geometry()
    J = jacobian(fr, lv)
    W = J @ minv(im, ii) @ J.T
    v = np.tile([0.1, -0.2, -0.3, 0.2, 0.1, -0.1], NB)
    q = J @ v
    q[0:18:6] -= 0.5
    return im, ii, fr, lv, J, W, q, np.array([0.3, 0.5, 0.4, 0.3, 0.6, 0.2])


def rigid():
    im, ii, fr, lv, _, _, q, mu = problem_data()
    return proxima.Problem.rigid(im, ii, BODY_A, BODY_B, fr, lv, q, mu)


def factorized():
    im, ii, fr, lv, J, _, q, mu = problem_data()
    MJt = minv(im, ii) @ J.T
    jac = np.zeros((N, 2, 3, 6))
    mjt = np.zeros((N, 2, 6, 3))
    for k in range(N):
        for side, body in ((0, BODY_A[k]), (1, BODY_B[k])):
            if body >= 0:
                jac[k, side] = J[3 * k:3 * k + 3, 6 * body:6 * body + 6]
                mjt[k, side] = MJt[6 * body:6 * body + 6, 3 * k:3 * k + 3]
    return proxima.Problem.factorized(NB, BODY_A, BODY_B, jac, mjt, q, mu)


def test_rigid_W_is_J_Minv_Jt():
    *_, W, q, mu = problem_data()
    p = rigid()
    assert (p.form, p.n_contacts, p.n_bodies) == ("rigid", N, NB)
    scale = np.abs(W).max()
    assert np.abs(p.dense() - W).max() <= 1e-14 * scale
    assert np.abs(p.W.toarray() - W).max() <= 1e-14 * scale
    assert np.array_equal(p.W.toarray(), p.dense())
    assert np.array_equal(p.q, q) and np.array_equal(p.mu, mu)
    # blocks only where contacts share a body: a ground contact with the
    # 3 of its body, a contact between two bodies with 5
    assert not p.W.toarray()[0:3, 6:15].any()
    assert p.W.nnz == 9 * (3 * 3 + 3 * 5)


def test_factorized_W_is_the_same():
    *_, W, _, _ = problem_data()
    p = factorized()
    assert (p.form, p.n_bodies) == ("factorized", NB)
    assert np.abs(p.dense() - W).max() <= 1e-14 * np.abs(W).max()
    assert np.array_equal(p.W.toarray(), p.dense())


# The three kernels (rigid 3-row, factorized, assembled) round
# differently: their lambdas agree to 1e-8 of the largest impulse at a
# solve to an fc3d error of 1e-12 (W is positive definite here, smallest
# eigenvalue 1.1e-3: the solution is unique).
AGREE = 1e-8


def test_three_forms_solve_to_the_same_lambda():
    *_, W, q, mu = problem_data()
    cfg = proxima.Config(**{"solver.merit": "fc3d", "solver.abs_tol": 1e-12,
                            "solver.max_sweeps": 20000})
    assert np.linalg.eigvalsh(W)[0] > 1e-3
    lams = {}
    for name, p in (("rigid", rigid()), ("factorized", factorized()),
                    ("assembled", proxima.Problem(W, q, mu))):
        r = proxima.solve(p, cfg)
        assert r.converged, (name, r)
        assert fc3d(W, q, mu, r.lam) <= 1e-10, name
        coulomb(W, q, mu, r.lam, 1e-8)
        assert np.allclose(r.u, W @ r.lam + q, rtol=0, atol=1e-12)
        lams[name] = r.lam
    scale = np.abs(lams["assembled"]).max()
    assert scale > 0.1
    for name in ("rigid", "factorized"):
        assert np.abs(lams[name] - lams["assembled"]).max() <= AGREE * scale


def test_kept_solver_and_write_of_a_rigid_problem(tmp_path):
    *_, W, q, mu = problem_data()
    p = rigid()
    one = proxima.solve(p, None)
    s = proxima.Solver(p)
    kept = s.solve()
    assert np.array_equal(kept.lam, one.lam) and kept.sweeps == one.sweeps
    assert p.form == "rigid" and np.array_equal(p.q, q)
    p.write(tmp_path / "rigid.dat")
    back = proxima.Problem.read(tmp_path / "rigid.dat")
    assert back.form == "assembled"
    assert np.array_equal(back.dense(), p.W.toarray())


def test_inputs_are_copied():
    im, ii, fr, lv, _, W, q, mu = problem_data()
    p = proxima.Problem.rigid(im, ii, BODY_A, BODY_B, fr, lv, q, mu)
    before = p.dense()
    im[:] = 5.0
    ii[:] = 0.0
    lv[:] = 1.0
    q[:] = 0.0
    assert np.array_equal(p.dense(), before) and p.q.any()


def bad_rigid(**change):
    im, ii, fr, lv, _, _, q, mu = problem_data()
    args = dict(inv_mass=im, inv_inertia=ii, body_a=BODY_A, body_b=BODY_B,
                frames=fr, lever=lv, q=q, mu=mu)
    args.update(change)
    with pytest.raises(proxima.Error) as e:
        proxima.Problem.rigid(**args)
    return str(e.value)


def test_rigid_refusals():
    im, ii, fr, lv, _, _, q, _ = problem_data()
    assert bad_rigid(inv_mass=[1.0, -2.0, 1.0]) == (
        "inv_mass[1] = -2.0: expected an inverse mass >= 0")
    assert bad_rigid(inv_mass=[1.0, np.nan, 1.0]) == (
        "inv_mass[1] = nan: expected a finite number")
    assert bad_rigid(inv_mass=[]) == (
        "inv_mass: expected a 1-D array of one inverse mass per body (at "
        "least one body)")
    asym = ii.copy()
    asym[2, 0, 1] += 0.25
    assert bad_rigid(inv_inertia=asym) == (
        f"inv_inertia[2] is not symmetric: [0, 1] = {asym[2, 0, 1]!r}, "
        f"[1, 0] = {asym[2, 1, 0]!r}")
    assert bad_rigid(inv_inertia=-ii).startswith(
        "inv_inertia[0] is not positive semi-definite: an eigenvalue -")
    assert bad_rigid(inv_inertia=ii[:2]) == (
        "inv_inertia: expected shape (3, 3, 3) (3 bodies x 3 x 3), got "
        "shape (2, 3, 3)")
    skew = fr.copy()
    skew[4, 1] *= 1.001
    assert bad_rigid(frames=skew).startswith(
        "frames[4]: rows n, s, t are not orthonormal (F F^T differs from I "
        "by 0.002")
    nan = fr.copy()
    nan[1, 2, 0] = np.inf
    assert bad_rigid(frames=nan) == "frames[1, 2, 0] = inf: expected a finite number"
    assert bad_rigid(frames=fr[:, :2]) == (
        "frames: expected shape (6, 3, 3) (6 contacts x 3 x 3), got shape "
        "(6, 2, 3)")
    assert bad_rigid(lever=lv.reshape(6, 6)) == (
        "lever: expected shape (6, 2, 3) (6 contacts x (r_a, r_b)), got "
        "shape (6, 6)")
    assert bad_rigid(body_a=[0, 0, 3, 1, 2, 2]) == (
        "body_a[2] = 3: expected a body index in 0 .. 2 or -1 (static) (3 "
        "bodies)")
    assert bad_rigid(body_b=[-1, -2, -1, 2, -1, 0]) == (
        "body_b[1] = -2: expected a body index in 0 .. 2 or -1 (static) (3 "
        "bodies)")
    assert bad_rigid(body_b=[-1, 1, -1, 1, -1, 0]) == (
        "contact 3: both sides are body 1 (body_a and body_b must differ)")
    assert bad_rigid(body_a=[-1, 0, 1, 1, 2, 2]) == (
        "contact 0: both sides are the static world (body_a and body_b must "
        "differ)")
    assert bad_rigid(body_a=[0.5] * 6) == (
        "body_a: expected a 1-D array of body indices (integers, -1 for the "
        "static world)")
    assert bad_rigid(body_b=[-1, -1]) == (
        "body_b: expected 6 body indices (one per contact, as body_a), got 2")
    assert bad_rigid(q=q[:-1]) == (
        "q: expected 18 numbers (6 contacts x 3 rows), got 17")
    assert bad_rigid(mu=-0.1) == "mu[0] = -0.1: expected mu >= 0"
    assert bad_rigid(positions=np.zeros((6, 2))) == (
        "positions: expected shape (6, 3) (6 contacts x 3), got shape (6, 2)")


def test_factorized_refusals():
    im, ii, fr, lv, J, _, q, mu = problem_data()
    jac = np.zeros((N, 2, 3, 6))
    mjt = np.zeros((N, 2, 6, 3))
    args = dict(n_bodies=NB, body_a=BODY_A, body_b=BODY_B, jac=jac,
                minv_jt=mjt, q=q, mu=mu)

    def bad(**change):
        with pytest.raises(proxima.Error) as e:
            proxima.Problem.factorized(**dict(args, **change))
        return str(e.value)

    assert bad(n_bodies=-1) == "n_bodies: expected an integer >= 0, got -1"
    assert bad(n_bodies=2) == (
        "body_a[4] = 2: expected a body index in 0 .. 1 or -1 (static) (2 "
        "bodies)")
    assert bad(jac=jac[:, :1]) == (
        "jac: expected shape (6, 2, 3, 6) (6 contacts x (J_a, J_b)), got "
        "shape (6, 1, 3, 6)")
    nan = mjt.copy()
    nan[3, 1, 5, 2] = np.nan
    assert bad(minv_jt=nan) == (
        "minv_jt[3, 1, 5, 2] = nan: expected a finite number")
    assert bad(mu=[0.1] * 5) == "mu: expected 6 numbers (one per contact), got 5"


def test_core_refuses_direct_calls_without_a_crash():
    from proxima import _core
    im, ii, fr, lv, _, _, q, mu = problem_data()
    u32 = np.uint32
    with pytest.raises(proxima.Error) as e:
        _core.Problem.rigid(im, ii.ravel(), BODY_A.astype(u32),
                            BODY_B.astype(u32), fr.ravel()[:-1], lv.ravel(),
                            q, mu)
    assert str(e.value) == "frames: expected 54 numbers, got 53"
    bad_frame = fr.copy()
    bad_frame[0] *= 2
    static = np.where(BODY_B < 0, 0xFFFFFFFF, BODY_B).astype(u32)
    with pytest.raises(proxima.Error) as e:
        _core.Problem.rigid(im, ii.ravel(), BODY_A.astype(u32), static,
                            bad_frame.ravel(), lv.ravel(), q, mu)
    assert str(e.value) == ("contact 0: no orthonormal frame (set its "
                            "geometry first)")
    with pytest.raises(proxima.Error) as e:
        _core.Problem.factorized(2, BODY_A.astype(u32), static,
                                 np.zeros(216), np.zeros(216), q, mu)
    assert str(e.value) == "contact 3: body out of range (2 bodies)"
