#!/usr/bin/python3
"""The per-sweep cost of an ordering written in Python (issue 31 item 5):
the same problems solved with the C plugin identity and with a Python
ordering that does what it does (returns None), each for a fixed number of
sweeps (abs_tol = 0: no sweep stops early), best of a few runs taken in
turns; and, when the example plugin impulse is on the search path
(build/examples/.libs), examples/ordering_impulse.c against its Python
half by_impulse (numpy's argsort every sweep). Prints per
problem the microseconds per sweep of each, the extra of the Python call
and the ratio; the two solves' lambda must be equal bit for bit.

    PYTHONPATH=build/python \\
        PROXIMA_PLUGIN_PATH=build/plugins/.libs:build/examples/.libs \\
        /usr/bin/python3 bench/python_heuristics.py [--sweeps N] \\
        [--repeat R] PROBLEM...

(default: scenes/two-boxes.dat). Times are of the whole proxima.solve
call, by the clock around it. The extra is the call itself: taking the
GIL, the call, the part's check and the permutation's check and copy
(O(n), n contacts); what the ordering computes comes on top."""

import argparse
import os
import time

import numpy as np

import proxima


def identity(perm, info):
    return None


def by_impulse(perm, info):
    """examples/ordering_impulse.c in Python (doc/python.md's example)."""
    perm[:] = np.argsort(-info.lam[:, 0], kind="stable")


def per_sweep(problem, cfgs, repeat):
    """[(best seconds per sweep, lambda)] of each config over repeat
    solves, taken in turns (a drift of the machine's speed hits both)."""
    best, lam = [float("inf")] * len(cfgs), [None] * len(cfgs)
    for _ in range(repeat):
        for i, cfg in enumerate(cfgs):
            t = time.perf_counter()
            r = proxima.solve(problem, cfg, history=False)
            best[i] = min(best[i], (time.perf_counter() - t) / r.sweeps)
            lam[i] = r.lam
    return list(zip(best, lam))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("problems", nargs="*",
                    default=[os.path.join(here, "..", "scenes",
                                          "two-boxes.dat")])
    ap.add_argument("--sweeps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    fixed = {"solver.abs_tol": 0.0, "solver.max_sweeps": a.sweeps,
             "solver.stall_sweeps": 0}
    print(f"{'problem':<40} {'contacts':>8} {'C us/sweep':>10} "
          f"{'Py us/sweep':>11} {'extra us':>9} {'ratio':>6}")
    pairs = [("identity", "identity", identity)]
    try:
        proxima.Config(ordering="impulse")
        pairs.append(("impulse", "impulse", by_impulse))
    except proxima.Error:
        print("(ordering impulse not found: put build/examples/.libs on "
              "PROXIMA_PLUGIN_PATH to time it against by_impulse too)")
    for path in a.problems:
        p = proxima.Problem.read(path)
        for what, plugin, fn in pairs:
            (c, lc), (py, lp) = per_sweep(
                p, [proxima.Config(ordering=plugin, **fixed),
                    proxima.Config(ordering=fn, **fixed)], a.repeat)
            if not np.array_equal(lc, lp):
                raise SystemExit(f"{path}: {what}: the two solves' lambda "
                                 "differ")
            name = f"{os.path.basename(path)} {what}"
            print(f"{name:<40} {p.n_contacts:>8} {1e6 * c:>10.2f} "
                  f"{1e6 * py:>11.2f} {1e6 * (py - c):>9.2f} "
                  f"{py / c:>6.2f}")


if __name__ == "__main__":
    main()
