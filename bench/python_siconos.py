#!/usr/bin/python3
"""proxima and Siconos numerics side by side from Python (issue 31 item 7).

    bench/python_siconos.py [--quick] [--time-limit S] [--min-time S]
                            [--max-sweeps N] [--calls N] [PROBLEM...]

On every problem (default: every *.dat, *.hdf5 and *.h5 in
$PROXIMA_PROBLEMS, else ../shared/problems beside the checkout), read by
proxima.Problem.read and by Siconos's own reader (an FCLib file reaches
Siconos, built without FCLib in Debian, as the .dat proxima writes of it,
bit for bit), each solver starts from r = 0 and stops at an fc3d error of
1e-8:

  px-default  proxima.solve, the default config
  px-robust   proxima.solve, conf/robust.ini
              (both with [solver] merit = fc3d, abs_tol = 1e-8,
              max_sweeps = N, time_limit = S)
  sc-nsgs     siconos.numerics.fc3d_driver, SICONOS_FRICTION_3D_NSGS at its
              default local solver, tol 1e-8, the full error after every
              sweep, at most N sweeps (as bench/siconos_compare)
  sc-prox     fc3d_driver, SICONOS_FRICTION_3D_PROX at its defaults but tol
              1e-8 (as bench/profiles)

Each solve runs in a forked child process, killed a little after S
seconds (default 20), so a hard problem cannot hang the benchmark. A
solve shorter than --min-time (default 0.05 s) is run again, after that
first untimed run, until the runs total --min-time; the time is the mean
of one, wall clock around the call. The error of every answer is
computed by one numpy function here (fc3d_error: Siconos's
fc3d_compute_error, ||F(r)|| / max(||q||, ||r||, ||u||)), not by the
solvers. Status "ok": that error is at most 1e-8 within the time limit;
"NO": above it; "late": at most 1e-8 but past the limit (a solve that
ended in the child's grace period). ratio: the proxima config's time
over the best time of the Siconos solvers that were "ok" (below 1:
proxima is faster), "-" when proxima or no Siconos solver was.

Then the call overhead: proxima.solve on a 1-contact problem (the default
config; with and without the history) against px_solve called from C on
the same problem and config (bench/solve_overhead, built by `make
bench`), microseconds per call, the best of 5 repeats.

--quick: a time limit of 5 s and a min-time of 0.01 s.
"""

import argparse
import glob
import math
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

TOL = 1e-8
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def build_dir():
    """The build as bench/env.sh finds it: $PROXIMA_BUILD_DIR, else build/
    when configured there, else the checkout."""
    if os.environ.get("PROXIMA_BUILD_DIR"):
        return os.environ["PROXIMA_BUILD_DIR"]
    if os.path.exists(os.path.join(TOP, "build", "Makefile")):
        return os.path.join(TOP, "build")
    return TOP


BUILD = build_dir()
# the build's module, plugins and (the source tree's) configs, when built
if os.path.exists(os.path.join(BUILD, "python", "proxima", "_core.so")):
    sys.path.insert(0, os.path.join(BUILD, "python"))
    plugins = os.path.join(BUILD, "plugins", ".libs")
    old = os.environ.get("PROXIMA_PLUGIN_PATH")
    os.environ["PROXIMA_PLUGIN_PATH"] = plugins + (":" + old if old else "")
    os.environ.setdefault("PROXIMA_DATA_DIR", TOP)

import proxima  # noqa: E402
import siconos.numerics as sn  # noqa: E402


def fc3d_error(W, q, mu, r):
    """Siconos's fc3d error of r (fc3d_compute_error), vectorized:
    ||F(r)|| / max(||q||, ||r||, ||u||), u = W r + q, F_k = r_k -
    proj_K(r_k - (u_k + mu_k ||u_k,t|| e_n)) with K the cone ||t|| <=
    mu n (the numpy twin of python/tests/conftest.py's fc3d)."""
    u = W @ r + q
    R, U = r.reshape(-1, 3), u.reshape(-1, 3)
    y = R - U
    y[:, 0] -= mu * np.hypot(U[:, 1], U[:, 2])
    nt = np.hypot(y[:, 1], y[:, 2])
    polar = mu * nt <= -y[:, 0]
    inside = ~polar & (nt <= mu * y[:, 0])
    edge = ~polar & ~inside
    P = np.where(inside[:, None], y, 0.0)
    rn = (mu[edge] * nt[edge] + y[edge, 0]) / (mu[edge] ** 2 + 1)
    P[edge, 0] = rn
    P[edge, 1:] = (mu[edge] * rn / nt[edge])[:, None] * y[edge, 1:]
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return float(np.linalg.norm(R - P) / scale) if scale > 0 else 0.0


def status(out):
    """ok, NO or late (see the top of this file)."""
    if out["error"] > TOL:
        return "NO"
    return "late" if out["late"] else "ok"


def check(path, name, out):
    """Warn when libproxima's fc3d error of its answer (px_merit_fc3d)
    and fc3d_error's differ by more than rounding (as
    bench/siconos_compare): a check of this file's function."""
    e, rep = out["error"], out.get("reported")
    if rep is not None and abs(e - rep) > max(1e-10 * max(e, rep),
                                              64 * np.finfo(float).eps):
        print(f"python_siconos: warning: {os.path.basename(path)}: {name}: "
              f"fc3d error {e:.6e} here, {rep:.6e} by px_merit_fc3d",
              file=sys.stderr)


def repeat(solve, min_time):
    """Run solve() (-> (seconds, iterations, converged, r)); when it took
    less than min_time, run it again until the times of the runs after
    the first (which warmed the caches) add up to min_time: the last
    outcome with the mean time."""
    seconds, iters, converged, r = solve()
    if seconds >= min_time:
        return {"seconds": seconds, "iters": iters, "converged": converged,
                "r": r, "runs": 1}
    total, runs = 0.0, 0
    while True:
        seconds, iters, converged, r = solve()
        total += seconds
        runs += 1
        if total >= min_time:
            return {"seconds": total / runs, "iters": iters,
                    "converged": converged, "r": r, "runs": runs}


def proxima_solver(cfg):
    def run(case, min_time):
        def once():
            t0 = time.perf_counter()
            res = proxima.solve(case["px"], cfg, history=False)
            t = time.perf_counter() - t0
            once.reported = res.fc3d_error
            return t, res.sweeps, res.converged, res.lam
        out = repeat(once, min_time)
        out["reported"] = once.reported
        return out
    return run


def siconos_solver(sid, max_sweeps):
    def run(case, min_time):
        sc, m = case["sc"], 3 * case["px"].n_contacts

        def once():
            so = sn.SolverOptions(sid)
            so.dparam[sn.SICONOS_DPARAM_TOL] = TOL
            if sid == sn.SICONOS_FRICTION_3D_NSGS:
                so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = max_sweeps
                so.iparam[sn.SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] = \
                    sn.SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL
                so.iparam[
                    sn.SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION_FREQUENCY] \
                    = 0
            r, u = np.zeros(m), np.zeros(m)
            t0 = time.perf_counter()
            info = sn.fc3d_driver(sc, r, u, so)
            t = time.perf_counter() - t0
            return t, int(so.iparam[sn.SICONOS_IPARAM_ITER_DONE]), info == 0, r
        return repeat(once, min_time)
    return run


def _child(run, case, min_time, conn):
    try:
        conn.send(run(case, min_time))
    except BaseException as e:  # the parent reports it
        conn.send({"failed": f"{type(e).__name__}: {e}"})
    conn.close()


def in_child(run, case, min_time, limit):
    """run(case, min_time) in a forked child, killed a little after limit
    seconds: its outcome, or {"timeout": True}."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(run, case, min_time, child))
    proc.start()
    child.close()
    # a margin over proxima's own time limit, which returns its answer
    wait = limit + max(2.0, 0.2 * limit)
    out = parent.recv() if parent.poll(wait) else {"timeout": True}
    if proc.is_alive():
        proc.kill()
    proc.join()
    return out


def read_case(path, tmp):
    px = proxima.Problem.read(path)
    dat = path
    if not path.endswith(".dat"):
        dat = os.path.join(tmp, os.path.basename(path) + ".dat")
        px.write(dat)
    sc = sn.frictionContact_new_from_filename(dat)
    if sc is None or sc.numberOfContacts != px.n_contacts or \
            sc.dimension != 3:
        raise SystemExit(f"python_siconos: {path}: Siconos did not read a 3D "
                         f"problem of {px.n_contacts} contacts")
    return {"path": path, "px": px, "sc": sc,
            "W": px.W.tocsr(), "q": px.q, "mu": px.mu}


def benchmark(files, args):
    solvers = [
        ("px-default", proxima_solver(_settings(proxima.Config(), args))),
        ("px-robust", proxima_solver(_settings(proxima.Config.read(
            os.path.join(TOP, "conf", "robust.ini")), args))),
        ("sc-nsgs", siconos_solver(sn.SICONOS_FRICTION_3D_NSGS,
                                   args.max_sweeps)),
        ("sc-prox", siconos_solver(sn.SICONOS_FRICTION_3D_PROX,
                                   args.max_sweeps)),
    ]
    print(f"tolerance: fc3d error {TOL:g} from r = 0; time limit "
          f"{args.time_limit:g} s per solve; times: wall seconds per solve "
          f"(mean over solves totalling >= {args.min_time:g} s after a "
          "first one); error: "
          "numpy's fc3d_error of the answer; ok: error <= tol in the time "
          "limit; ratio: "
          "time / best Siconos time that reached tol\n")
    head = (f"{'problem':34} {'nc':>5}  {'solver':10} {'iters':>7} "
            f"{'time s':>10} {'error':>9} {'':4} {'ratio':>6}")
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            case = read_case(path, tmp)
            rows = []
            for name, run in solvers:
                out = in_child(run, case, args.min_time, args.time_limit)
                if "r" in out:
                    out["error"] = fc3d_error(case["W"], case["q"],
                                              case["mu"], out["r"])
                    out["late"] = out["seconds"] > args.time_limit
                    out["ok"] = out["error"] <= TOL and not out["late"]
                    check(path, name, out)
                rows.append((name, out))
            best = min((o["seconds"] for n, o in rows
                        if n.startswith("sc-") and o.get("ok")),
                       default=None)
            for i, (name, o) in enumerate(rows):
                base = os.path.basename(path) if i == 0 else ""
                nc = str(case["px"].n_contacts) if i == 0 else ""
                if "r" not in o:
                    what = ("timeout" if o.get("timeout")
                            else o.get("failed", "?"))
                    print(f"{base:34} {nc:>5}  {name:10} {'-':>7} "
                          f"{'>' + format(args.time_limit, 'g'):>10} "
                          f"{'-':>9} {what}")
                    continue
                ratio = "-"
                if name.startswith("px-") and o["ok"] and best:
                    ratio = f"{o['seconds'] / best:.3g}"
                print(f"{base:34} {nc:>5}  {name:10} {o['iters']:>7} "
                      f"{o['seconds']:>10.3e} {o['error']:>9.2e} "
                      f"{status(o):4} "
                      f"{ratio:>6}")
            sys.stdout.flush()


def _settings(cfg, args):
    return cfg.update({"solver.merit": "fc3d", "solver.abs_tol": TOL,
                       "solver.max_sweeps": args.max_sweeps,
                       "solver.time_limit": float(args.time_limit)})


def overhead(args):
    """proxima.solve's time per call on a 1-contact problem against the C
    API's px_solve (bench/solve_overhead) on the same problem and
    config."""
    W = np.array([[2.0, 0.1, 0.0], [0.1, 1.0, 0.0], [0.0, 0.0, 1.0]])
    p = proxima.Problem(W, [-1.0, 0.3, 0.1], 0.5)
    cfg = proxima.Config()
    times = {}
    for hist in (True, False):
        best = math.inf
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(args.calls):
                r = proxima.solve(p, cfg, history=hist)
            best = min(best, (time.perf_counter() - t0) / args.calls)
        times[hist] = best
    print(f"\ncall overhead, 1 contact ({r.sweeps} sweeps, {r.status}), "
          f"default config, microseconds per call (best of 5 x "
          f"{args.calls} calls):")
    print(f"  proxima.solve(p, cfg)                 {1e6 * times[True]:8.2f}")
    print(f"  proxima.solve(p, cfg, history=False)  {1e6 * times[False]:8.2f}")
    prog = os.path.join(BUILD, "bench", "solve_overhead")
    if not os.access(prog, os.X_OK):
        print(f"  px_solve from C: {prog} is not built (make bench)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        ini, dat = os.path.join(tmp, "cfg.ini"), os.path.join(tmp, "one.dat")
        with open(ini, "w") as f:
            f.write(str(cfg))
        p.write(dat)
        out = subprocess.run([prog, ini, dat, str(args.calls), "5"],
                             capture_output=True, text=True, check=True)
    c = dict(kv.split("=") for kv in out.stdout.split())
    cus = float(c["px_solve_us"])
    print(f"  px_solve from C (bench/solve_overhead) {cus:8.2f}  "
          f"({c['sweeps']} sweeps)")
    print(f"  overhead of the Python call: {1e6 * times[True] - cus:.2f} us "
          f"with the history, {1e6 * times[False] - cus:.2f} without")


def main():
    ap = argparse.ArgumentParser(
        description="proxima.solve against siconos.numerics.fc3d_driver "
        "(NSGS, PROX) on problem files, and the call overhead of "
        "proxima.solve (see the top of this file)")
    ap.add_argument("problems", nargs="*", help="problem files (default: "
                    "every problem in $PROXIMA_PROBLEMS or ../shared/problems)")
    ap.add_argument("--time-limit", type=float, default=20.0,
                    help="seconds per solve (default 20)")
    ap.add_argument("--min-time", type=float, default=0.05,
                    help="repeat short solves until they total this")
    ap.add_argument("--max-sweeps", type=int, default=100000,
                    help="proxima's and NSGS's sweep cap (default 100000)")
    ap.add_argument("--calls", type=int, default=20000,
                    help="calls per repeat of the overhead measure")
    ap.add_argument("--quick", action="store_true",
                    help="--time-limit 5 --min-time 0.01")
    args = ap.parse_args()
    if args.quick:
        args.time_limit, args.min_time = 5.0, 0.01
    files = args.problems
    if not files:
        folder = os.environ.get("PROXIMA_PROBLEMS") or os.path.join(
            TOP, "..", "shared", "problems")
        files = sorted(f for ext in ("dat", "hdf5", "h5")
                       for f in glob.glob(os.path.join(folder, "*." + ext)))
        if not files:
            raise SystemExit(f"python_siconos: no problem files in {folder}")
    print(f"proxima module: {os.path.dirname(proxima.__file__)}; "
          f"siconos.numerics: {sn.__file__}")
    benchmark(files, args)
    overhead(args)


if __name__ == "__main__":
    main()
