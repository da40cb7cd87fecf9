#!/usr/bin/python3
"""Step a scene, with a body added from Python, and plot its energies and
the solver's work per step.

    energy.py [SCENE] [--config CONFIG] [--out FILE]

SCENE is a scene file (by default the ten-box stack that proxima ships),
CONFIG a solver config (a path or an installed name such as `robust`; the
default config when left out), FILE where the figure goes (energy.png).
A ball is thrown at the scene from the side before the first step. The
top plot is the kinetic energy and the change of the potential and total
energy after every step (the impact and friction take energy out, gravity
turns potential into kinetic as boxes fall); the bottom one the sweeps
each step's contact problem took."""
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
args.add_argument("scene", nargs="?", default=shipped("boxstack-10.ini"))
args.add_argument("--config", default=None)
args.add_argument("--out", default="energy.png")
a = args.parse_args()

world = proxima.World.read(a.scene, a.config)
world.add_body("sphere", radius=0.4, mass=50, position=(-4, 0, 2.2),
               velocity=(6, 0, 2))
world.step(300)                # 5 s (the scene asks for 600 steps: run())
s = world.stats                # one entry per step, as `proxima run --csv`
print(f"{world.steps_done} steps, {len(world)} bodies, "
      f"{int(s['sweeps'].sum())} sweeps, "
      f"{int((s['converged'] == 0).sum())} steps not converged, "
      f"{s['total_s'].sum():.3f} s")

fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(6, 5))
# the potential energy of a tall stack dwarfs what moves: plot changes
total = s["kinetic"] + s["potential"]
top.plot(s["time"], s["kinetic"], "-", label="kinetic")
top.plot(s["time"], s["potential"] - s["potential"][0], "--",
         label="potential - its start")
top.plot(s["time"], total - total[0], ":", label="total - its start")
top.set_ylabel("energy (J)")
top.set_title(os.path.basename(a.scene))
top.legend()
bottom.plot(s["time"], s["sweeps"], "-")
bottom.set_yscale("log")
bottom.set_ylabel("sweeps per step")
bottom.set_xlabel("time (s)")
fig.tight_layout()
fig.savefig(a.out)
print(f"wrote {a.out}")
