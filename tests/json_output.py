"""The --json reports of `proxima solve`, `run` and `compare`, and --out's
formats, read back by Python (tests/json_output.sh runs this with Debian's
/usr/bin/python3 and python3-numpy).

Each report is parsed strictly (json.loads refusing NaN and Infinity, which
are not JSON) and its fields are checked against what the command computed
by other means: the fc3d error recomputed here with numpy from the problem
file and the .npy solution, the sweeps and the last delta against the
--history rows, the run's totals against its --csv rows, compare's rows
against its histories, the text report's figures, and the config's
parameters against `proxima plugins --describe`'s tables. Prints one line
per failed check and closes with "N passed, N failed"; exits 1 on a
failure."""
import configparser
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from oracles import fc3d_norms, natural

SRC = os.environ.get("srcdir", ".")
CLI = os.path.join(os.environ.get("top_builddir", "."), "cli", "proxima")
TEST_PLUGINS = os.path.join(os.environ.get("top_builddir", "."), "tests",
                            "plugins", ".libs")
TWO_BOXES = os.path.join(SRC, "scenes", "two-boxes.dat")
INCLINE = os.path.join(SRC, "scenes", "incline.ini")
PGSSM = os.path.join(SRC, "conf", "pgssm.ini")
DEFAULT = os.path.join(SRC, "conf", "default.ini")

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)
    return cond


def run(*args, plugins=None):
    env = dict(os.environ)
    if plugins:
        env["PROXIMA_PLUGIN_PATH"] = plugins + ":" + env.get(
            "PROXIMA_PLUGIN_PATH", "")
    p = subprocess.run([CLI] + list(args), capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL, check=False)
    return p.returncode, p.stdout, p.stderr


def refuse_constant(name):
    raise ValueError("not JSON: " + name)


def parse(text, what):
    """The one JSON object of text, or None (a failed check)."""
    try:
        return json.loads(text, parse_constant=refuse_constant)
    except ValueError as e:
        check(False, "%s: not one JSON object: %s\n%s" % (what, e, text))
        return None


def close(a, b, rel):
    return a is not None and b is not None and \
        abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


# ---- the problem, read independently of proxima ------------------------

def read_dat(path):
    """W, q, mu of a Siconos .dat file (dense or sparse block storage)."""
    tok = open(path).read().split()
    pos = 0

    def take(n=1):
        nonlocal pos
        v = tok[pos:pos + n]
        pos += n
        return v

    d, nc, storage = (int(x) for x in take(3))
    n = d * nc
    take(2)  # size0 size1
    w = np.zeros((n, n))
    if storage == 0:
        take(2)
        w[:, :] = np.array(take(n * n), float).reshape(n, n).T
    else:
        nb, bn0, bn1 = (int(x) for x in take(3))
        take(bn0 + bn1)  # cumulative row and column sizes: 3, 6, ...
        filled1, filled2 = (int(x) for x in take(2))
        rowptr = [int(x) for x in take(filled1)]
        bcol = [int(x) for x in take(filled2)]
        for i in range(filled1 - 1):
            for b in range(rowptr[i], rowptr[i + 1]):
                take()  # its sequence number
                blk = np.array(take(9), float).reshape(3, 3).T
                j = bcol[b]
                w[3 * i:3 * i + 3, 3 * j:3 * j + 3] = blk
        assert nb == filled2
    q = np.array(take(n), float)
    mu = np.array(take(nc), float)
    return w, q, mu


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ---- the config's parameters, from `proxima plugins --describe` --------

def declared(name):
    """{key: (type, default text, choices)} of a plugin or 'solver'."""
    rc, out, _ = run("plugins", "--describe", name)
    keys = {}
    table = out.split("\nparameters\n", 1)
    if rc != 0 or len(table) != 2:
        return keys
    for line in table[1].splitlines()[1:]:
        f = line.split()
        if len(f) >= 4:
            keys[f[0]] = (f[1], f[2], f[3])
    return keys


def typed(kind, text):
    """An INI value as its JSON value."""
    if kind == "int":
        return int(float(text))
    if kind == "real":
        return float(text)
    if kind == "bool":
        return text in ("on", "true", "yes", "1")
    return text


def check_config(cfg, source, sections, what):
    """cfg: the report's config object; sections: {section: (plugin, {key:
    value as set}) }, every other key at its declared default."""
    if not check(isinstance(cfg, dict), what + ": config is an object"):
        return
    check(cfg.get("source") == source,
          "%s: config.source %r, expected %r" % (what, cfg.get("source"),
                                                 source))
    for sec in ("solver", "friction", "ordering", "rfactor", "scheduler",
                "accelerator"):
        plugin, set_ = sections.get(sec, (None, {}))
        got = cfg.get(sec, "absent")
        if sec == "accelerator" and plugin is None:
            check(got is None, "%s: config.accelerator %r, expected null"
                  % (what, got))
            continue
        if not check(isinstance(got, dict), "%s: config.%s is an object"
                     % (what, sec)):
            continue
        got = dict(got)
        if sec != "solver":
            check(got.pop("plugin", None) == plugin,
                  "%s: config.%s.plugin, expected %s" % (what, sec, plugin))
        decl = declared(plugin if sec != "solver" else "solver")
        check(set(got) == set(decl),
              "%s: config.%s's keys %s, declared %s" % (what, sec, sorted(got),
                                                        sorted(decl)))
        for key, (kind, default, choices) in decl.items():
            v = got.get(key)
            want = typed(kind, set_.get(key, default))
            types = {"int": int, "real": (int, float), "bool": bool,
                     "choice": str, "string": str}[kind]
            ok = isinstance(v, types) and not (kind == "int" and
                                               isinstance(v, bool))
            check(ok and v == want,
                  "%s: config.%s.%s = %r, expected %s %r"
                  % (what, sec, key, v, kind, want))
            if kind == "choice":
                check(v in choices.split("|"), "%s: config.%s.%s = %r not in %s"
                      % (what, sec, key, v, choices))


def ini_sections(path):
    """{section: (plugin, {key: value})} as a config file writes them."""
    ini = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    ini.read(path)
    out = dict(DEFAULT_PLUGINS)
    for sec in ini.sections():
        keys = dict(ini[sec])
        plugin = keys.pop("plugin", None)
        if sec != "solver" and plugin is None:
            plugin = out[sec][0]
        out[sec] = (plugin, keys)
    return out


DEFAULT_PLUGINS = {"friction": ("disc", {}), "ordering": ("identity", {}),
                   "rfactor": ("local", {}), "scheduler": ("sequential", {})}


# ---- proxima solve ---------------------------------------------------------

def solve_one(tmp):
    npy, txt = os.path.join(tmp, "x.npy"), os.path.join(tmp, "x.txt")
    hist = os.path.join(tmp, "h.csv")
    # merit delta: the stop test has a certificate to check, and --set
    # shows in the config's source
    rc, out, err = run("solve", "--json", TWO_BOXES, "--out", npy,
                       "--history", hist, "--set", "solver.merit=delta")
    r = parse(out, "solve --json")
    if not r:
        return
    check(rc == 0 and err == "", "solve --json: exit %d, stderr %r" % (rc, err))
    check(r["schema"] == "proxima-solve/1", "solve: schema %r" % r["schema"])
    w, q, mu = read_dat(TWO_BOXES)
    p = r["problem"]
    check(p == {"path": TWO_BOXES, "contacts": len(mu), "rows_per_contact": 3,
                "form": "assembled"}, "solve: problem %r" % p)
    check(r["start"] == "zero", "solve: start")
    check(r["status"] == "converged" and r["converged"] is True
          and r["exit_status"] == rc, "solve: status %r" % r["status"])
    sections = dict(DEFAULT_PLUGINS)
    sections["solver"] = (None, {"merit": "delta"})
    check_config(r["config"], "--set solver.merit=delta", sections, "solve")
    # the solution: NumPy reads it, the fc3d error recomputed from it
    lam = np.load(npy)
    check(lam.dtype == np.dtype("<f8") and lam.shape == (3 * len(mu),),
          "solve --out .npy: dtype %s shape %s" % (lam.dtype, lam.shape))
    # F is a difference of numbers ~1e9 times larger at a solution: its
    # rounding, and so the agreement, is absolute
    e, f = fc3d_norms(w, q, mu, lam)
    check(abs(r["fc3d"]["error"] - e) < 1e-14,
          "solve: fc3d.error %r, recomputed %r" % (r["fc3d"]["error"], e))
    check(abs(r["fc3d"]["F_norm"] - f) < 1e-14,
          "solve: fc3d.F_norm %r, recomputed %r" % (r["fc3d"]["F_norm"], f))
    check(e < 1e-8, "solve: the recomputed fc3d error %g >= 1e-8" % e)
    # the history: one row per sweep
    h = read_csv(hist)
    acc = [x for x in h if x["accepted"] == "1"]
    check(r["sweeps"] == len(h), "solve: sweeps %d, history rows %d"
          % (r["sweeps"], len(h)))
    check(r["rejected"] == len(h) - len(acc), "solve: rejected")
    check(r["last_delta"] == float(acc[-1]["residual"]),
          "solve: last_delta %r, history %s" % (r["last_delta"],
                                                acc[-1]["residual"]))
    check(r["merit"] == {"name": "delta", "value": float(acc[-1]["merit"])},
          "solve: merit %r" % r["merit"])
    t = r["time"]
    check(close(t["us_per_sweep"],
                1e6 * (t["seconds"] - t["prepare_seconds"]) / r["sweeps"],
                1e-9), "solve: time.us_per_sweep %r" % t)
    check(r["outputs"] == {"history": hist, "out": npy, "save_fclib": None},
          "solve: outputs %r" % r["outputs"])
    check(r["fc3d"]["of_config_law"] is True, "solve: fc3d.of_config_law")
    check(r["diverged"] is None and r["accelerator"] is None and
          r["error"] is None and r["scheduler"] is None,
          "solve: diverged, accelerator, error or scheduler not null")
    # merit delta: the stop test's certificate, recomputed (failed may be
    # true: the stop test may have been met before, at an iterate whose
    # certificate did not pass)
    c = r["check"]
    check(c and isinstance(c["failed"], bool) and c["tol"] == 1e-9 and
          c["value"] <= c["tol"] and
          abs(c["value"] - natural(w, q, mu, lam)) < 1e-14,
          "solve: check %r, recomputed %r" % (c, natural(w, q, mu, lam)))
    # the text report says the same, and --out .txt holds the same numbers
    rc, out, err = run("solve", TWO_BOXES, "--out", txt, "--set",
                       "solver.merit=delta")
    m = re.search(r"^result      converged after (\d+) sweeps \((\d+) rejected\), "
                  r"last delta (\S+)$", out, re.M)
    check(m and int(m.group(1)) == r["sweeps"] and int(m.group(2)) ==
          r["rejected"] and m.group(3) == "%.3g" % r["last_delta"],
          "solve: the text's result line differs from the JSON:\n" + out)
    check("fc3d error  %.3e (||F|| = %.3e;" % (r["fc3d"]["error"],
                                               r["fc3d"]["F_norm"]) in out,
          "solve: the text's fc3d line differs from the JSON:\n" + out)
    check(np.array_equal(np.loadtxt(txt), lam),
          "solve: --out .txt and .npy differ")


def solve_accelerator(tmp):
    rc, out, _ = run("solve", "--json", "-c", PGSSM, TWO_BOXES)
    r = parse(out, "solve --json -c pgssm.ini")
    rc2, text, _ = run("solve", "-c", PGSSM, TWO_BOXES)
    if not r:
        return
    a = r["accelerator"]
    m = re.search(r"^accelerator pgssm: (\d+) calls \((\d+) replaced the "
                  r"iterate\), (\d+) products with A", text, re.M)
    check(rc == rc2 == r["exit_status"] == 0, "pgssm: exit statuses")
    check(a and m and a["plugin"] == "pgssm" and
          [a["calls"], a["replaced"], a["products"]] ==
          [int(m.group(i)) for i in (1, 2, 3)] and a["calls"] >= 1,
          "pgssm: accelerator %r against\n%s" % (a, text))
    check(a and a["describe"] and "; " + a["describe"] + "\n" in text,
          "pgssm: accelerator.describe is not the text's")
    check(r["merit"]["name"] == "fc3d" and
          close(r["merit"]["value"], r["fc3d"]["error"], 1e-12),
          "pgssm: merit %r, fc3d %r" % (r["merit"], r["fc3d"]))
    # the config file's keys in effect, the others at their defaults
    check_config(r["config"], PGSSM, ini_sections(PGSSM), "pgssm")


def solve_refusals(tmp):
    for name, why in (("x.npz", "cannot write .npz"),
                      ("x", "no extension to say the format")):
        rc, out, err = run("solve", TWO_BOXES, "--out", name)
        check(rc == 2 and out == "" and err ==
              "proxima solve: --out '%s': %s (writes .txt, .csv or .npy)\n"
              % (name, why), "--out %s: exit %d, %r %r" % (name, rc, out, err))
    rc, out, err = run("solve", TWO_BOXES, TWO_BOXES, "--out",
                       os.path.join(tmp, "y.txt"))
    check(rc == 2 and out == "" and err.count("\n") == 1 and "--out" in err,
          "--out with two problems: exit %d, %r" % (rc, err))
    # a non-finite number is null, and the report still parses strictly
    nan = os.path.join(tmp, "nan.ini")
    with open(nan, "w") as f:
        f.write("[friction]\nplugin = nanproject\n")
    rc, out, err = run("solve", "--json", "-c", nan, TWO_BOXES,
                       plugins=TEST_PLUGINS)
    r = parse(out, "solve --json, a NaN projection")
    if r:
        check(rc == 1 and r["status"] == "diverged" and r["exit_status"] == 1
              and r["diverged"]["cause"] == "nonfinite"
              and r["diverged"]["sweep"] == 1 and r["merit"]["value"] is None
              and r["last_delta"] is None,
              "NaN projection: %r" % {k: r[k] for k in ("status", "diverged",
                                                         "merit",
                                                         "last_delta")})


def solve_list(tmp):
    d = os.path.join(tmp, "problems")
    os.makedirs(os.path.join(d, "sub"))
    shutil.copy(TWO_BOXES, os.path.join(d, "b.dat"))
    shutil.copy(TWO_BOXES, os.path.join(d, "sub", "c.dat"))  # not entered
    with open(os.path.join(d, "notes.txt"), "w") as f:
        f.write("not a problem\n")
    with open(os.path.join(d, "a.dat"), "w") as f:  # W = I, one contact
        f.write("3\n1\n0\n3 3\n3 3\n1 0 0\n0 1 0\n0 0 1\n-1 0.5 0\n0.3\n")
    missing = os.path.join(tmp, "missing.dat")
    args = ["solve", d, missing, INCLINE]
    rc, out, err = run(*args, "--json")
    r = parse(out, "solve --json with several problems")
    if not r:
        return
    res = r["results"]
    check(r["schema"] == "proxima-solve-list/1", "list: schema")
    check([x["problem"]["path"] for x in res] ==
          [os.path.join(d, "a.dat"), os.path.join(d, "b.dat"), missing,
           INCLINE], "list: problems %r" % [x["problem"]["path"] for x in res])
    check([x["status"] for x in res] ==
          ["converged", "converged", "error", "error"],
          "list: statuses %r" % [x["status"] for x in res])
    check(all(x["schema"] == "proxima-solve/1" for x in res),
          "list: results' schema")
    check(res[2]["error"].startswith(missing + ": ") and
          res[3]["error"].startswith(INCLINE + ": a scene"),
          "list: errors %r %r" % (res[2]["error"], res[3]["error"]))
    check(err.splitlines() == ["proxima: " + res[2]["error"],
                               "proxima: " + res[3]["error"]],
          "list: stderr %r" % err)
    # W = I, q = (-1, 0.5, 0), mu = 0.3: r = (1, -0.3, 0), sticking
    check(res[0]["fc3d"]["error"] < 1e-12, "list: a.dat's fc3d error")
    s = r["summary"]
    check(s["problems"] == 4 and s["converged"] == 2 and
          s["not_converged"] == 0 and s["errors"] == 2 and
          s["exit_status"] == 2 == rc and
          close(s["solve_seconds"], res[0]["time"]["seconds"] +
                res[1]["time"]["seconds"], 1e-9), "list: summary %r" % s)
    # the text: one row each and the summary
    rc, out, err = run(*args)
    rows = [l for l in out.splitlines() if l.startswith((d, missing,
                                                         INCLINE))]
    check(rc == 2 and len(rows) == 4 and
          rows[0].split()[1:4] == ["1", "converged", str(res[0]["sweeps"])]
          and rows[2].split()[1:3] == ["-", "error"],
          "list, text: exit %d, rows\n%s" % (rc, out))
    check(re.search(r"^summary     2 of 4 converged \(0 not converged, "
                    r"2 errors\); solves ", out, re.M) is not None,
          "list, text: the summary line\n" + out)
    # the worst status: 1 when a problem does not converge and none fails
    few = os.path.join(tmp, "few.ini")
    with open(few, "w") as f:
        f.write("[solver]\nmax_sweeps = 3\n")
    rc, out, err = run("solve", "--json", "-c", few, d)
    r = parse(out, "solve --json, a folder, max_sweeps = 3")
    if r:
        st = [x["exit_status"] for x in r["results"]]
        check(rc == 1 and st == [0, 1] and r["summary"]["exit_status"] == 1
              and r["results"][1]["status"] == "not converged",
              "list, max_sweeps 3: exit %d, statuses %r" % (rc, st))


# ---- proxima run -------------------------------------------------------------

def run_scene(tmp):
    stats = os.path.join(tmp, "s.csv")
    rc, out, err = run("run", INCLINE, "--steps", "5", "--csv", stats,
                       "--json", "--quiet")
    r = parse(out, "run --json")
    if not r:
        return
    rows = read_csv(stats)
    check(rc == 0 == r["exit_status"] and r["schema"] == "proxima-run/1" and
          r["status"] == "completed", "run: exit %d, %r" % (rc, err))
    sc = r["scene"]
    check(sc["path"] == INCLINE and sc["steps"] == 5 and sc["dt"] == 0.01 and
          sc["stepping"] == "semi-implicit" and sc["contact_cache"] is True
          and sc["contact_hertz"] is None, "run: scene %r" % sc)
    check(r["steps_done"] == len(rows) == 5, "run: steps_done")
    contacts = [int(x["contacts"]) for x in rows]
    sweeps = [int(x["sweeps"]) for x in rows]
    check(r["contacts"]["max"] == max(contacts) and
          close(r["contacts"]["per_step"], sum(contacts) / 5, 1e-12) and
          close(r["contacts"]["deepest_penetration"],
                max(float(x["max_depth"]) for x in rows), 1e-6),
          "run: contacts %r" % r["contacts"])
    check(r["solves"]["sweeps"] == sum(sweeps) and
          r["solves"]["unconverged_steps"] ==
          sum(x["converged"] == "0" for x in rows),
          "run: solves %r" % r["solves"])
    check(close(r["energy"]["end"], float(rows[-1]["kinetic"]) +
                float(rows[-1]["potential"]), 1e-10),
          "run: energy %r" % r["energy"])
    check(close(r["time"]["solve_seconds"],
                sum(float(x["solve_s"]) for x in rows), 1e-5),
          "run: time %r" % r["time"])
    # the stages: each with its seconds (the CSV's column summed) and ns
    # per contact; with the solve they add up to the steps' time
    st = r["time"].get("stages") or {}
    cols = {"broad_phase": "broad_s", "narrow_phase": "narrow_s",
            "contact_cache": "cache_s", "problem": "problem_s",
            "solve": "solve_s", "integration": "integrate_s",
            "post_stabilization": "post_s"}
    check(sorted(st) == sorted(cols) and all(
        close(st[k]["seconds"], sum(float(x[c]) for x in rows), 1e-5) and
        close(st[k]["ns_per_contact"],
              1e9 * st[k]["seconds"] / sum(contacts), 1e-9)
        for k, c in cols.items()), "run: time.stages %r" % st)
    check(close(sum(g["seconds"] for g in st.values()), r["time"]["seconds"],
                1e-4) and st["post_stabilization"]["seconds"] == 0,
          "run: the stages do not add up to time.seconds: %r" % r["time"])
    check(r["outputs"] == {"csv": stats, "vtk": None, "state": None},
          "run: outputs %r" % r["outputs"])
    check(r["signal"] is None and r["time_limit"] is None,
          "run: signal %r, time_limit %r" % (r["signal"], r["time_limit"]))
    check_config(r["config"], "(defaults)", DEFAULT_PLUGINS, "run")
    rc, text, _ = run("run", INCLINE, "--steps", "5", "--quiet")
    check("solves      %d sweeps in all" % r["solves"]["sweeps"] in text,
          "run: the text's solves line differs from the JSON:\n" + text)
    # a deadline passed before the first step: no step, status 1
    rc, out, err = run("run", INCLINE, "--steps", "5", "--time-limit",
                       "1e-9", "--json", "--quiet")
    r = parse(out, "run --json --time-limit 1e-9")
    if r:
        check(rc == 1 == r["exit_status"] and r["status"] == "time limit"
              and r["time_limit"] == 1e-9 and r["steps_done"] == 0 and
              r["solves"]["sweeps"] == 0,
              "run, time limit: exit %d, %r" % (rc, {k: r[k] for k in (
                  "status", "time_limit", "steps_done")}))


# ---- proxima compare ---------------------------------------------------------

def compare(tmp):
    d = os.path.join(tmp, "cmp")
    rc, out, err = run("compare", "-c", DEFAULT, "-c", PGSSM, TWO_BOXES,
                       "--out", d, "--no-plot", "--json", "--tol", "1e-4,1e-8")
    r = parse(out, "compare --json")
    if not r:
        return
    check(rc == 0 == r["exit_status"] and r["schema"] == "proxima-compare/1"
          and r["mode"] == "problem" and r["target"] == TWO_BOXES and
          r["tolerances"] == [1e-4, 1e-8] and r["plots"] is None,
          "compare: head, exit %d" % rc)
    check([c["label"] for c in r["configs"]] == ["default", "pgssm"] and
          [c["config"]["source"] for c in r["configs"]] == [DEFAULT, PGSSM],
          "compare: configs")
    for row in r["rows"]:
        h = read_csv(os.path.join(d, row["config"] + ".csv"))
        check(row["history"] == os.path.join(d, row["config"] + ".csv"),
              "compare: history path")
        check(row["sweeps"] == len(h) and row["converged"] is True,
              "compare %s: sweeps %d, history rows %d"
              % (row["config"], row["sweeps"], len(h)))
        # the accelerator's replaced iterates count too: after sweep k
        acc = os.path.join(d, row["config"] + "-accel.csv")
        calls = read_csv(acc) if os.path.exists(acc) else []
        for reach in row["reached"]:
            at = [i + 1 for i, x in enumerate(h) if x["accepted"] ==
                  "1" and float(x["merit"]) <= reach["tol"]]
            at += [int(a["after_sweep"]) for a in calls if a["replaced"] ==
                   "1" and float(a["merit"]) <= reach["tol"]]
            first = min(at) if at else None
            check(reach["sweep"] == first,
                  "compare %s: reached %r, history says sweep %r"
                  % (row["config"], reach, first))
    rc, text, _ = run("compare", "-c", DEFAULT, "-c", PGSSM, TWO_BOXES,
                      "--out", d, "--no-plot", "--tol", "1e-4,1e-8")
    for row in r["rows"]:
        m = re.search(r"^%s\s+(\S+)\s+(yes|no)\s+(\d+)\s+(\d+)" % row["config"],
                      text, re.M)
        check(m and m.group(1) == row["merit"] and int(m.group(3)) ==
              row["sweeps"] and int(m.group(4)) == row["rejected"],
              "compare %s: the text's row differs:\n%s" % (row["config"], text))


def main():
    tmp = tempfile.mkdtemp(prefix="px_json_")
    try:
        for part in (solve_one, solve_accelerator, solve_refusals,
                     solve_list, run_scene, compare):
            try:
                part(tmp)
            except (KeyError, TypeError, IndexError, OSError,
                    ValueError) as e:
                check(False, "%s: %s: %s" % (part.__name__,
                                             type(e).__name__, e))
    finally:
        shutil.rmtree(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
