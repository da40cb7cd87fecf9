"""Orderings and r-factor strategies written in Python (issue 31 item 5):
the same sweeps and lambda, bit for bit, as the C plugins that do the same
(identity, the example ordering impulse of examples/ordering_impulse.c,
local), answers checked with numpy's fc3d; what the callables see; and
every fault (an exception, a wrong return) stopping the solve with its
exact message, the interpreter usable after it."""

import os

import numpy as np
import pytest

import proxima
from conftest import BUILD, TWO_BOXES, fc3d, shared


@pytest.fixture
def examples_plugins(monkeypatch):
    """The build's example plugins (examples/.libs) on the search path."""
    path = os.environ["PROXIMA_PLUGIN_PATH"]
    monkeypatch.setenv("PROXIMA_PLUGIN_PATH",
                       path + ":" + os.path.join(BUILD, "examples", ".libs"))


def same_solve(a, b):
    assert a.status == b.status and a.sweeps == b.sweeps
    assert a.rejected == b.rejected
    assert np.array_equal(a.history.residual, b.history.residual)
    assert np.array_equal(a.history.accepted, b.history.accepted)
    assert np.array_equal(a.lam, b.lam)


def identity(perm, info):
    return None


def by_impulse(perm, info):
    """doc/python.md's Python half of examples/ordering_impulse.c."""
    perm[:] = np.argsort(-info.lam[:, 0], kind="stable")


class Local:
    """The C plugin local's rule (plugins/rfactor/local.c), gamma = 1."""

    def __init__(self, nu=1.0, growth=1.1):
        self.nu, self.growth = nu, growth

    def init(self, r, info):
        d = np.diagonal(info.diag, axis1=1, axis2=2)
        r[:] = 1.0 / d
        if not info.separable:
            r[:, 1:] = (1.0 / d[:, 1:].max(axis=1))[:, None]

    def adapt(self, r, residual_prev, residual_new):
        if self.nu >= 1.0 or not residual_new > self.growth * residual_prev:
            return True
        r *= self.nu
        return False


@pytest.mark.parametrize("name", [None, "OneObject-i1028-138.hdf5.dat"])
def test_python_identity_is_the_c_identity_bit_for_bit(name):
    p = proxima.Problem.read(TWO_BOXES if name is None else shared(name))
    c = proxima.solve(p, proxima.Config(ordering="identity"))
    py = proxima.solve(p, proxima.Config(ordering=identity))
    same_solve(c, py)
    assert c.converged


@pytest.mark.parametrize("name", [None, "OneObject-i1028-138.hdf5.dat"])
def test_one_heuristic_written_both_ways(examples_plugins, name):
    p = proxima.Problem.read(TWO_BOXES if name is None else shared(name))
    c = proxima.solve(p, proxima.Config(ordering="impulse"))
    py = proxima.solve(p, proxima.Config(ordering=by_impulse))
    same_solve(c, py)
    assert c.converged
    assert fc3d(p.dense(), p.q, p.mu, py.lam) <= 5e-9
    # not the identity's sweeps: the order matters
    assert c.sweeps != proxima.solve(p).sweeps


@pytest.mark.parametrize("name,nu,growth", [
    (None, 1.0, 1.1), ("OneObject-i1028-138.hdf5.dat", 0.9, 1.0)])
def test_python_local_is_the_c_local_bit_for_bit(name, nu, growth):
    p = proxima.Problem.read(TWO_BOXES if name is None else shared(name))
    c = proxima.solve(p, proxima.Config(**{"rfactor.nu": nu,
                                           "rfactor.growth": growth}))
    py = proxima.solve(p, proxima.Config(rfactor=Local(nu, growth)))
    same_solve(c, py)
    assert c.converged and (nu == 1.0 or c.rejected > 0)


def test_an_init_function_alone_keeps_r():
    p = proxima.Problem.read(TWO_BOXES)

    def r_of_one(r, info):
        r[:] = 0.5 / np.diagonal(info.diag, axis1=1, axis2=2).max()

    py = proxima.solve(p, proxima.Config(rfactor=r_of_one))
    assert py.converged and py.rejected == 0
    assert fc3d(p.dense(), p.q, p.mu, py.lam) <= 5e-9


def test_a_kept_solver_with_python_heuristics():
    p = proxima.Problem.read(TWO_BOXES)
    c = proxima.Solver(p, proxima.Config())
    py = proxima.Solver(p, proxima.Config(ordering=identity, rfactor=Local()))
    for q in (None, 2 * p.q, p.q):
        same_solve(c.solve(q=q), py.solve(q=q))


def test_what_the_callables_see():
    p = proxima.Problem.read(TWO_BOXES)
    w, n = p.dense(), p.n_contacts
    seen = {}

    class Order:
        def prepare(self, perm, info):
            seen["prepare"] = perm.copy()
            x = np.arange(3 * n, dtype=float)
            seen["apply"] = (info.apply(x), info.apply(x, add_q=True))

        def __call__(self, perm, info):
            seen.setdefault("sweeps", []).append(info.sweep)
            if info.sweep == 2:
                assert perm.dtype == np.uint32 and perm.shape == (n,)
                assert info.n_contacts == n and info.block_size == 3
                assert np.array_equal(info.q.ravel(), p.q)
                assert np.array_equal(info.mu, p.mu)
                for k in range(n):
                    assert np.array_equal(info.diag[k],
                                          w[3 * k:3 * k + 3, 3 * k:3 * k + 3])
                assert np.all(np.isfinite(info.lam))
                assert 0 < info.delta_normal < np.inf
                with pytest.raises(ValueError):
                    info.lam[0, 0] = 1.0
                seen["info"] = info
            return proxima.FULL

    r = proxima.solve(p, proxima.Config(ordering=Order()))
    assert np.array_equal(seen["prepare"], np.arange(n))
    x = np.arange(3 * n, dtype=float)
    assert np.allclose(seen["apply"][0], w @ x, rtol=1e-14, atol=1e-14)
    assert np.allclose(seen["apply"][1], w @ x + p.q, rtol=1e-14,
                       atol=1e-14)
    # one call per sweep, none rejected here
    assert seen["sweeps"] == list(range(r.sweeps))
    with pytest.raises(proxima.Error, match=r"^info\.apply: only during a "
                       r"call from the solve \(info is not valid after "
                       r"it\)$"):
        seen["info"].apply(x)


def test_reversing_each_sweep_changes_the_order_and_still_solves():
    p = proxima.Problem.read(TWO_BOXES)

    def reverse(perm, info):
        perm[:] = perm[::-1].copy()

    r = proxima.solve(p, proxima.Config(ordering=reverse))
    assert r.converged
    assert fc3d(p.dense(), p.q, p.mu, r.lam) <= 5e-9
    assert r.sweeps != proxima.solve(p).sweeps


def test_parts_staggered_from_python():
    p = proxima.Problem.read(TWO_BOXES)

    def staggered(perm, info):
        return (proxima.NORMAL, proxima.FRICTION)[info.sweep % 2]

    r = proxima.solve(p, proxima.Config(ordering=staggered,
                                        **{"solver.max_sweeps": 20}))
    assert list(r.history.part[:4]) == [1, 2, 1, 2]


def test_str_names_the_callable_and_does_not_read_back():
    cfg = proxima.Config(ordering=by_impulse)
    text = str(cfg)
    assert ("[ordering]\n; given in-process by the program (the Python "
            "ordering test_heuristics.by_impulse): no file holds it, "
            "reading this back fails here\nplugin = in-process:by_impulse\n"
            in text)
    assert cfg.source == "(defaults) + ordering in-process:by_impulse"
    assert cfg.plugin("ordering") == "by_impulse"
    line = text.splitlines().index("plugin = in-process:by_impulse") + 1
    with pytest.raises(proxima.Error) as e:
        proxima.Config.from_string(text)
    assert str(e.value) == (
        f"(text):{line}: [ordering] plugin: ordering plugin "
        "'in-process:by_impulse' was given in-process by the program that "
        "wrote this config (from Python, a callable): no file holds it, so "
        "a config cannot load it; name a plugin file, or give it again "
        "from the program")


def test_layers_over_a_python_section():
    cfg = proxima.Config(ordering=identity, rfactor=Local())
    assert cfg.plugin("rfactor") == "Local"
    with pytest.raises(proxima.Error) as e:
        cfg.set("ordering.seed", 3)
    assert str(e.value) == ("ordering.seed: the ordering is a Python "
                            "object, which has no parameters (name a plugin "
                            "first: ordering=NAME)")
    assert cfg.plugin("ordering") == "identity"  # the callable, unchanged
    cfg.set("ordering", "random").set("ordering.seed", 3)
    assert cfg.plugin("ordering") == "random"
    assert cfg.copy().plugin("rfactor") == "Local"
    with pytest.raises(proxima.Error) as e:
        proxima.Config(rfactor=Local)
    assert str(e.value) == ("rfactor: the class Local: expected an instance "
                            "of it (Local(...)) or a function")
    with pytest.raises(proxima.Error) as e:
        proxima.Config(friction=identity)
    assert str(e.value) == ("friction: a Python callable can be an ordering "
                            "or an rfactor only, not a friction")


# ---- faults -------------------------------------------------------------

def fails(cfg, exc=proxima.Error, problem=None):
    """The exception the solve raised; then the interpreter and the same
    config still solve."""
    p = problem or proxima.Problem.read(TWO_BOXES)
    with pytest.raises(exc) as e:
        proxima.solve(p, cfg)
    assert proxima.solve(p).converged
    return e.value


def test_an_exception_stops_the_solve_at_the_next_sweep():
    calls = []

    def order(perm, info):
        calls.append(info.sweep)
        if info.sweep == 3:
            raise KeyError("no such contact")

    e = fails(proxima.Config(ordering=order), KeyError)
    assert e.args == ("no such contact",)
    assert e.__notes__ == ["in the ordering "
                           "test_an_exception_stops_the_solve_at_the_next_"
                           "sweep.<locals>.order, before sweep 3"]
    assert calls == [0, 1, 2, 3]  # none after it: the solve stopped


def test_exceptions_of_prepare_init_and_adapt():
    class Order:
        def prepare(self, perm, info):
            raise ZeroDivisionError("in prepare")

        def __call__(self, perm, info):
            pass

    e = fails(proxima.Config(ordering=Order()), ZeroDivisionError)
    assert e.__notes__ == ["in the ordering test_exceptions_of_prepare_"
                           "init_and_adapt.<locals>.Order.prepare"]

    def init(r, info):
        raise RuntimeError("in init")

    e = fails(proxima.Config(rfactor=init), RuntimeError)
    assert str(e) == "in init"
    p = proxima.Problem.read(TWO_BOXES)
    with pytest.raises(RuntimeError, match="^in init$"):
        proxima.Solver(p, proxima.Config(rfactor=init))

    class Adapt(Local):
        def adapt(self, r, prev, new):
            raise OverflowError("in adapt")

    e = fails(proxima.Config(rfactor=Adapt()), OverflowError)
    assert e.__notes__ == ["in the rfactor test_exceptions_of_prepare_init_"
                           "and_adapt.<locals>.Adapt.adapt"]


@pytest.mark.parametrize("ret,shown", [(7, "7"), (-1, "-1"), ("full",
                                       "'full'"), (True, "True"),
                                       (1.0, "1.0")])
def test_a_wrong_part(ret, shown):
    def order(perm, info):
        return ret

    e = fails(proxima.Config(ordering=order))
    assert str(e) == (f"the ordering test_a_wrong_part.<locals>.order "
                      f"returned {shown}: expected None, proxima.FULL (0), "
                      "proxima.NORMAL (1) or proxima.FRICTION (2)")


@pytest.mark.parametrize("bad,why", [
    (lambda perm: perm.__setitem__(2, 99),
     "perm[2] = 99 is not a contact (8 contacts)"),
    (lambda perm: perm.__setitem__(5, perm[1]),
     "perm[5] = 1 repeats perm[1]"),
    (lambda perm: perm.__setitem__(slice(0, 1), np.array([-1])),
     "perm[0] = 4294967295 is not a contact (8 contacts)")])
def test_perm_no_longer_a_permutation(bad, why):
    def order(perm, info):
        if info.sweep == 1:
            bad(perm)

    def prep(perm, info):
        bad(perm)

    order.prepare = prep
    e = fails(proxima.Config(ordering=order))
    assert str(e) == ("the ordering test_perm_no_longer_a_permutation."
                      f"<locals>.order.prepare left perm no longer a "
                      f"permutation: {why}")
    del order.prepare
    e = fails(proxima.Config(ordering=order))
    assert str(e) == ("the ordering test_perm_no_longer_a_permutation."
                      f"<locals>.order left perm no longer a permutation: "
                      f"{why}")


def test_a_wrong_r():
    def leaves_one(r, info):
        r[:] = 1.0
        r[3, 2] = np.nan

    e = fails(proxima.Config(rfactor=leaves_one))
    assert str(e) == ("the rfactor test_a_wrong_r.<locals>.leaves_one left "
                      "r[3, 2] = nan: expected a finite number > 0")

    class Shrinks(Local):
        def adapt(self, r, prev, new):
            r[0, 1] = -1.0 if new < prev else 1.0

    e = fails(proxima.Config(rfactor=Shrinks()))
    assert str(e) == ("the rfactor test_a_wrong_r.<locals>.Shrinks.adapt "
                      "left r[0, 1] = -1: expected a finite number > 0")

    class Says(Local):
        def adapt(self, r, prev, new):
            return "yes"

    e = fails(proxima.Config(rfactor=Says()))
    assert str(e) == ("the rfactor test_a_wrong_r.<locals>.Says.adapt "
                      "returned 'yes': expected True or None (accept the "
                      "sweep) or False (reject it)")


def test_one_config_for_problems_of_other_sizes():
    """Kept solvers of two problems share the config's Python plugins."""
    small = proxima.Problem.read(TWO_BOXES)
    w = np.kron(np.eye(40), small.dense()[:3, :3])
    big = proxima.Problem(w, np.tile(small.q[:3], 40), 0.5)
    calls = []

    def order(perm, info):
        calls.append(len(perm))
        perm[:] = perm[::-1].copy()

    cfg = proxima.Config(ordering=order, rfactor=Local(),
                         **{"solver.max_sweeps": 1000})
    a, b = proxima.Solver(small, cfg), proxima.Solver(big, cfg)
    for s, p in ((a, small), (b, big), (a, small), (b, big)):
        r = s.solve()
        assert r.converged
        assert fc3d(p.dense(), p.q, p.mu, r.lam) <= 5e-9
    assert set(calls) == {small.n_contacts, big.n_contacts}
    assert proxima.solve(big, cfg).converged
    assert proxima.solve(small, cfg).converged


def test_arrays_kept_past_the_solve_stay_valid():
    """perm, r and info.lam are arrays of their own, copies of the
    solver's: what a callable keeps of them (the arrays, slices, info)
    outlives the solver's memory, and a kept array is not reused."""
    p = proxima.Problem.read(TWO_BOXES)
    kept = {"perms": [], "lams": []}

    def order(perm, info):
        kept["perms"].append(perm)
        kept["lams"].append(info.lam)
        kept["slice"], kept["info"] = perm[2:5], info
        perm[:] = perm[::-1].copy()

    def init(r, info):
        r[:] = 0.2
        kept["r"] = r[1:]

    r = proxima.solve(p, proxima.Config(ordering=order, rfactor=init))
    del r.lam  # nothing else holds the solve's memory
    junk = [np.full(1000, 7.0) for _ in range(100)]
    perms, lams = kept["perms"], kept["lams"]
    assert len(perms) == r.sweeps
    assert len({id(a) for a in perms}) == len(perms)  # none reused
    n = p.n_contacts
    for k, a in enumerate(perms):  # each as the callable left it
        assert list(a) == (list(range(n)) if k % 2 else
                           list(range(n))[::-1]), k
    assert np.all(np.isfinite(lams[-1])) and not lams[-1].flags.writeable
    assert not np.array_equal(lams[0], lams[-1])
    assert list(kept["slice"]) == list(perms[-1][2:5])
    assert kept["info"].lam is lams[-1]
    assert np.all(kept["r"] == 0.2)
    kept["slice"][0] = 5  # memory of its own: nothing breaks
    kept["perms"][0][0] = 5
    assert len(junk) == 100


def test_the_manuals_heuristic_is_the_c_plugins(examples_plugins):
    import re
    from conftest import SRC
    section = open(os.path.join(SRC, "doc", "python.md")).read()
    code = [c for c in re.findall(r"```python\n(.*?)```", section, re.S)
            if "def by_impulse" in c]
    assert len(code) == 1
    p = proxima.Problem.read(TWO_BOXES)
    env = {"np": np, "proxima": proxima, "problem": p}
    exec(compile(code[0], "doc/python.md", "exec"), env)
    same_solve(env["r"], proxima.solve(p, proxima.Config(ordering="impulse")))


def test_a_world_steps_with_python_heuristics(examples_plugins):
    scene = os.path.join(os.path.dirname(TWO_BOXES), "boxstack-10.ini")
    kept = []

    def order(perm, info):
        kept.append(perm)  # the step's solver goes: it becomes a copy
        return by_impulse(perm, info)

    c = proxima.World.read(scene, proxima.Config(ordering="impulse"))
    py = proxima.World.read(scene, proxima.Config(ordering=order,
                                                  rfactor=Local()))
    c.step(5)
    py.step(5)
    assert np.array_equal(c.positions, py.positions)
    assert np.array_equal(c.stats["sweeps"], py.stats["sweeps"])
    assert len(kept) == py.stats["sweeps"].sum() and all(
        sorted(k) == list(range(len(k))) for k in kept)

    calls = []

    def fails(perm, info):
        calls.append(info.sweep)
        if len(calls) == 3:
            raise ValueError("third call")

    py.config = proxima.Config(ordering=fails)
    with pytest.raises(ValueError, match="^third call$"):
        py.step(5)
    # by now a step takes one sweep: the third step raised, it ended (as
    # on Ctrl-C) and no step ran after it
    assert calls == [0, 0, 0] and py.steps_done == 8
    assert list(py.stats["sweeps"][5:]) == [1, 1, 1]
