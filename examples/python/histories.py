#!/usr/bin/python3
"""Solve one contact problem with two configs and plot how each converged.

    histories.py [PROBLEM] [--out FILE]

PROBLEM is a Siconos .dat or FCLib .hdf5 file (by default the two boxes
that proxima ships); FILE is where the figure goes (histories.png; the
extension picks the format: .pdf, .svg, ...). The two configs are the
default and the installed `robust`; each line is the fc3d error after
every sweep, the merit both stop on, so the lines compare directly; a dot
marks the error the solve ended with."""
import argparse
import os

import matplotlib
matplotlib.use("Agg")  # a file, no window
import matplotlib.pyplot as plt  # noqa: E402

import proxima  # noqa: E402


def shipped(name):
    """A file of proxima's data folder (PROXIMA_DATA_DIR, else installed)."""
    root = os.environ.get("PROXIMA_DATA_DIR") or "/usr/share/proxima"
    return os.path.join(root, "scenes", name)


args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
args.add_argument("problem", nargs="?", default=shipped("two-boxes.dat"))
args.add_argument("--out", default="histories.png")
a = args.parse_args()

problem = proxima.Problem.read(a.problem)
configs = {"default": proxima.Config(),
           "robust": proxima.Config.read("robust")}

fig, ax = plt.subplots(figsize=(6, 4))
for (name, config), style in zip(configs.items(), ["-", "--"]):
    r = proxima.solve(problem, config)
    h = r.history
    line, = ax.loglog(range(1, len(h) + 1), h.merit, style, label=f"{name}: "
                      f"{r.status} after {r.sweeps} sweeps")
    # an accelerator (robust's ssn) may replace lambda after the last
    # sweep: the solve's own error is the end point
    ax.plot([r.sweeps], [r.fc3d_error], "o", color=line.get_color())
    print(f"{name}: {r.status}, {r.sweeps} sweeps, fc3d error "
          f"{r.fc3d_error:.2e}, {r.time * 1e3:.2f} ms")
ax.axhline(5e-9, color="grey", linewidth=0.8, label="tolerance 5e-9")
ax.set_xlabel("sweep")
ax.set_ylabel("fc3d error")
ax.set_title(os.path.basename(a.problem))
ax.legend()
fig.tight_layout()
fig.savefig(a.out)
print(f"wrote {a.out}")
