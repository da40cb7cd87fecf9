"""proxima.solve and proxima.Solver: the command's lambda bit for bit,
Coulomb's law checked here with numpy, the history, warm starts, kept
solvers with a changing q, stops, and Ctrl-C."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import proxima
from conftest import TWO_BOXES, cli, coulomb, fc3d, shared


def cli_lambda(tmp_path, path, *args):
    out = tmp_path / "lam.npy"
    cli("solve", path, "--out", str(out), *args)
    return np.load(out)


@pytest.mark.parametrize("name", [None, "Rover1040.dat",
                                  "Capsules-i125-1213.hdf5"])
def test_lambda_bit_for_bit_as_the_command(tmp_path, name):
    path = TWO_BOXES if name is None else shared(name)
    r = proxima.solve(proxima.Problem.read(path))
    assert r.converged and r.status == "converged"
    assert np.array_equal(r.lam, cli_lambda(tmp_path, path))


def test_with_a_config_as_the_command(tmp_path):
    cfg = proxima.Config.read("robust", **{"solver.abs_tol": 1e-10})
    r = proxima.solve(proxima.Problem.read(TWO_BOXES), cfg)
    assert np.array_equal(r.lam, cli_lambda(tmp_path, TWO_BOXES, "-c",
                                            "robust", "--set",
                                            "solver.abs_tol=1e-10"))


def test_result_meets_coulombs_law():
    p = proxima.Problem.read(TWO_BOXES)
    w, q, mu = p.dense(), p.q, p.mu
    r = proxima.solve(p, proxima.Config(**{"solver.abs_tol": 1e-12}))
    assert r.converged
    err = fc3d(w, q, mu, r.lam)
    assert err <= 1e-12 and abs(err - r.fc3d_error) <= 1e-3 * err + 1e-16
    assert np.allclose(r.u, w @ r.lam + q, rtol=0, atol=1e-14)
    coulomb(w, q, mu, r.lam, 1e-10)
    assert r.lam[0::3].sum() > 0  # the boxes rest on something


def test_problem_from_arrays_gives_the_files_answer():
    p = proxima.Problem.read(TWO_BOXES)
    import scipy.sparse as sp
    from_arrays = proxima.Problem(sp.csr_matrix(p.dense()), p.q, p.mu)
    assert np.array_equal(proxima.solve(from_arrays).lam,
                          proxima.solve(p).lam)


def test_history_and_report():
    r = proxima.solve(proxima.Problem.read(TWO_BOXES))
    h = r.history
    assert len(h) == r.sweeps == h.residual.size == h.merit.size
    assert h.accepted.dtype == bool and h.accepted.sum() == r.sweeps - r.rejected
    assert np.all(np.diff(h.seconds) >= 0) and h.seconds[-1] <= r.time
    assert h.merit[-1] == r.merit <= 5e-9
    assert np.all(h.part == 0)
    assert r.scheduler == "" and r.accelerator == ""
    assert proxima.solve(proxima.Problem.read(TWO_BOXES),
                         history=False).history is None
    cfg = proxima.Config(scheduler="colored", accelerator="pgssm")
    r = proxima.solve(proxima.Problem.read(TWO_BOXES), cfg)
    assert r.scheduler and r.accelerator


def test_warm_start_from_the_solution():
    p = proxima.Problem.read(TWO_BOXES)
    r = proxima.solve(p)
    lam0 = r.lam.copy()
    again = proxima.solve(p, lam0=lam0)
    assert again.converged and again.sweeps <= 2
    assert np.array_equal(lam0, r.lam)  # lam0 is copied, not written
    with pytest.raises(proxima.Error) as e:
        proxima.solve(p, lam0=np.zeros(5))
    assert str(e.value) == ("lam0: expected 24 numbers (8 contacts x 3 rows), "
                            "got 5")
    bad = np.zeros(24)
    bad[7] = np.nan
    with pytest.raises(proxima.Error) as e:
        proxima.solve(p, lam0=bad)
    assert str(e.value) == "lam0[7] = nan: expected a finite number"
    with pytest.raises(proxima.Error) as e:
        proxima.solve("x.dat")
    assert str(e.value) == "problem: expected a proxima.Problem, got str"


def test_stops_named():
    p = proxima.Problem.read(TWO_BOXES)
    r = proxima.solve(p, proxima.Config(**{"solver.max_sweeps": 3}))
    assert (r.status, r.converged, r.sweeps) == ("not converged", False, 3)
    r = proxima.solve(p, proxima.Config(friction="box", **{
        "solver.abs_tol": 1e-300}))
    assert r.status == "stalled"


def test_kept_solver_with_a_changing_q():
    p = proxima.Problem.read(TWO_BOXES)
    q0 = p.q
    s = proxima.Solver(p)
    for scale in [1.0, 2.0, 0.5]:
        q = q0 * scale
        r = s.solve(q=q)
        fresh = proxima.solve(proxima.Problem(p.W, q, p.mu))
        assert r.converged and np.array_equal(r.lam, fresh.lam)
        assert np.array_equal(s.q, q)
        assert fc3d(p.dense(), q, p.mu, r.lam) <= 5e-9 * 1.01
    assert np.array_equal(p.q, q0)  # the problem given is not changed
    with pytest.raises(proxima.Error) as e:
        s.solve(q=np.zeros(3))
    assert str(e.value) == "q: expected 24 numbers (8 contacts x 3 rows), got 3"


def long_config():
    # never converges (abs_tol 0), never stalls: runs until stopped
    return proxima.Config(**{"solver.abs_tol": 0.0, "solver.rel_tol": 0.0,
                             "solver.stall_sweeps": 0,
                             "solver.max_sweeps": 10**12})


def test_time_limit():
    r = proxima.solve(proxima.Problem.read(TWO_BOXES),
                      long_config().set("solver.time_limit", 0.1))
    assert r.status == "time limit" and 0.1 <= r.time < 5
    # lam is the lowest-merit iterate the solve saw (fc3d, the default
    # merit): the last one's, or that of the sweep best_sweep
    low = np.nanmin(r.history.merit)
    assert r.merit == low and r.fc3d_error == low
    assert 0 <= r.best_sweep < r.sweeps
    if r.best_sweep:
        assert r.history.merit[r.best_sweep - 1] == low


def test_ctrl_c_stops_the_solve_and_raises():
    p = proxima.Problem.read(TWO_BOXES)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            proxima.solve(p, long_config())
    finally:
        timer.cancel()
    assert time.monotonic() - start < 5
    assert proxima.solve(p).converged  # the interpreter goes on


def test_solve_in_threads_with_their_own_configs():
    p = proxima.Problem.read(TWO_BOXES)
    want = proxima.solve(p).lam
    got = [None] * 4

    def work(i):
        got[i] = proxima.solve(p, proxima.Config()).lam

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(g, want) for g in got)


def test_one_solve_at_a_time_per_config():
    p = proxima.Problem.read(TWO_BOXES)
    cfg = long_config().set("solver.time_limit", 1.0)
    t = threading.Thread(target=proxima.solve, args=(p, cfg))
    t.start()
    time.sleep(0.2)
    with pytest.raises(proxima.Error) as e:
        proxima.solve(p, cfg)
    t.join()
    assert str(e.value).startswith("this config is in use by another solve")


def test_readme_example_runs(tmp_path, monkeypatch, capsys):
    import re
    from conftest import SRC
    # the tour's one Python block
    text = open(os.path.join(SRC, "README.md")).read()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(code.splitlines()) <= 12
    (tmp_path / "scenes").mkdir()
    os.symlink(TWO_BOXES, tmp_path / "scenes" / "two-boxes.dat")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("converged ") and out[-1] == "True"
