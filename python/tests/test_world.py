"""proxima.World: scenes stepped as `proxima run` steps them (its --csv
statistics and --state's exact states), a world built from Python equal
to its scene file, free fall and Coulomb's law checked here with numpy,
energies recomputed from the states, and the error messages."""

import math
import os
import re

import numpy as np
import pytest

import proxima
from conftest import SRC, cli

SCENES = os.path.join(SRC, "scenes")
G = 9.81

# the columns of `proxima run --csv` that do not depend on the clock, and
# how cli/../sim/world_csv.c prints them
CSV_FORMAT = {"step": "{}", "time": "%.9g", "contacts": "{}",
              "cache_hits": "{}", "sweeps": "{}", "merit": "%.6e",
              "converged": "{}", "kinetic": "%.12g", "potential": "%.12g",
              "max_depth": "%.6e"}


def as_printed(column, x):
    f = CSV_FORMAT[column]
    if f == "{}":
        return str(int(x))
    return f % x


def run_cli(tmp_path, scene, steps, *args):
    """`proxima run` on scene: (its CSV rows as dicts, its --state rows as
    arrays of floats)."""
    csv, state = tmp_path / "stats.csv", tmp_path / "state.csv"
    cli("run", scene, "--steps", str(steps), "--csv", str(csv), "--state",
        str(state), "--quiet", *args)
    head, *rows = csv.read_text().splitlines()
    stats = [dict(zip(head.split(","), r.split(","))) for r in rows]
    body = [[float.fromhex(x) for x in r.split(",")[1:]]
            for r in state.read_text().splitlines()[1:]]
    return stats, np.array(body)


def assert_as_the_command(world, stats, state):
    s = world.stats
    assert tuple(s) == proxima.STATS_COLUMNS
    assert len(s["step"]) == len(stats)
    for k, row in enumerate(stats):
        assert tuple(row) == proxima.STATS_COLUMNS
        for column in CSV_FORMAT:
            assert as_printed(column, s[column][k]) == row[column], \
                f"step {k + 1}: {column}"
    # the stages (px_sim_stage_seconds) add up to each step's total
    stages = sum(s[c] for c in ("broad_s", "narrow_s", "cache_s",
                                "problem_s", "solve_s", "integrate_s",
                                "post_s"))
    assert all(s[c].min() >= 0 for c in proxima.STATS_COLUMNS
               if c.endswith("_s"))
    assert np.allclose(stages, s["total_s"], rtol=1e-9, atol=1e-12)
    # every number of the final states, bit for bit (hexadecimal floats)
    assert np.array_equal(world.positions, state[:, 1:4])
    assert np.array_equal(world.orientations, state[:, 4:8])
    assert np.array_equal(world.velocities, state[:, 8:11])
    assert np.array_equal(world.angular_velocities, state[:, 11:14])


@pytest.mark.parametrize("scene,steps,overrides", [
    ("boxstack-10.ini", 8, {}),
    ("incline.ini", 20, {"solver.abs_tol": 1e-10}),
    ("spin-sphere.ini", 10, {"friction": "ellipsoid"}),
])
def test_scene_steps_as_the_command(tmp_path, scene, steps, overrides):
    path = os.path.join(SCENES, scene)
    args = [a for k, v in overrides.items()
            for a in ("--set", f"{k if '.' in k else k + '.plugin'}={v}")]
    stats, state = run_cli(tmp_path, path, steps, *args)
    world = proxima.World.read(path, proxima.Config(overrides))
    out = world.step(steps)
    assert world.steps_done == steps and len(out["step"]) == steps
    assert np.array_equal(out["step"], np.arange(1, steps + 1))
    assert_as_the_command(world, stats, state)


def test_steps_in_pieces_and_run(tmp_path):
    path = os.path.join(SCENES, "incline.ini")
    stats, state = run_cli(tmp_path, path, 300)
    world = proxima.World.read(path)
    assert world.settings["steps"] == 300
    world.step(7)
    world.step(0)
    assert len(world.run()["step"]) == 293 and world.steps_done == 300
    assert world.time == pytest.approx(3.0, abs=1e-12)
    assert_as_the_command(world, stats, state)


SCENE = """[world]
gravity = 0, 0.5, -9.81
dt = 0.005
steps = 40
mu = 0.4
restitution = 0.2
beta = 0.1

[body ground]
shape = plane
normal = 0, 0, 1
position = 0, 0, 0

[body ball]
shape = sphere
radius = 0.5
position = 0.1, 0, 0.52
velocity = 1, 0, -0.5
angular_velocity = 0, 2, 0
mass = 2

[body brick]
shape = box
half = 0.4, 0.3, 0.2
position = 1.2, 0.2, 0.21
velocity = -0.5, 0, 0
density = 500
mu = 0.7

[body pill]
shape = capsule
radius = 0.2
half_length = 0.3
position = -1, 0, 0.2
mass = 1.5
restitution = 0
"""


def test_built_world_steps_as_its_scene(tmp_path):
    (tmp_path / "s.ini").write_text(SCENE)
    scene = proxima.World.read(tmp_path / "s.ini")
    built = proxima.World(gravity=(0, 0.5, -9.81), dt=0.005, steps=40,
                          mu=0.4, restitution=0.2, beta=0.1)
    assert built.settings == scene.settings
    built.add_body("plane", normal=(0, 0, 1))
    built.add_body("sphere", radius=0.5, position=(0.1, 0, 0.52),
                   velocity=(1, 0, -0.5), angular_velocity=(0, 2, 0), mass=2)
    built.add_body("box", half=(0.4, 0.3, 0.2), position=(1.2, 0.2, 0.21),
                   velocity=(-0.5, 0, 0), density=500, mu=0.7)
    assert built.add_body("capsule", radius=0.2, half_length=0.3,
                          position=(-1, 0, 0.2), mass=1.5,
                          restitution=0) == 3
    assert [built.body(i) for i in range(4)] == \
        [scene.body(i) for i in range(4)]
    assert built.body(2)["mass"] == 500 * 0.8 * 0.6 * 0.4
    a, b = built.run(), scene.run()
    assert a["contacts"].sum() > 0
    for column in CSV_FORMAT:
        assert np.array_equal(a[column], b[column]), column
    for name in ("positions", "orientations", "velocities",
                 "angular_velocities"):
        assert np.array_equal(getattr(built, name), getattr(scene, name))
    ca, cb = built.contacts, scene.contacts
    for name in Contacts_fields():
        assert np.array_equal(getattr(ca, name), getattr(cb, name)), name


def Contacts_fields():
    return proxima.Contacts.__slots__


def test_free_fall_until_contact():
    """Semi-implicit Euler: v_k = -g k dt, z_k = z_0 - g dt^2 k (k + 1) / 2
    while the ball is in the air; then it rests on the ground, the ground
    pushing it up by m g dt a step."""
    dt, r, m, z0 = 0.01, 0.25, 3.0, 1.0
    world = proxima.World(dt=dt)
    world.add_body("plane", normal=(0, 0, 1))
    ball = world.add_body("sphere", radius=r, mass=m, position=(0, 0, z0))
    for k in range(1, 200):
        stats = world.step()
        z = world.positions[ball, 2]
        if stats["contacts"][0]:
            break
        assert z == pytest.approx(z0 - G * dt * dt * k * (k + 1) / 2,
                                  rel=0, abs=1e-12)
        assert world.velocities[ball, 2] == pytest.approx(-G * dt * k,
                                                          rel=0, abs=1e-12)
        assert np.all(world.velocities[ball, :2] == 0)
        assert world.kinetic_energy == pytest.approx(
            0.5 * m * (G * dt * k) ** 2, rel=1e-12)
        assert world.potential_energy == pytest.approx(m * G * z, rel=1e-12)
        assert len(world.contacts) == 0
    # the first contact comes when the gap is within the margin of a step
    assert 0 < k < 199 and z < r + 1e-3 + G * dt * dt * k
    world.step(200)
    # resting, sunk by at most the slop (1e-3 m: Baumgarte leaves it)
    assert r - 1e-3 - 1e-6 <= world.positions[ball, 2] <= r
    assert np.linalg.norm(world.velocities[ball]) < 1e-4  # from 4.4 m/s
    c = world.contacts
    assert len(c) == 1 and tuple(c.bodies[0]) == (0, 1)
    assert c.normal_impulses.sum() == pytest.approx(m * G * dt, rel=1e-4)
    assert np.allclose(c.normals[0], (0, 0, 1), rtol=0, atol=1e-15)


def slip_oracle(world, before, tol):
    """Coulomb's law at every contact of the last step, from the contacts'
    impulses and the bodies' kinematics alone: normal impulse >= 0, no
    approach, friction in the cone, and where a contact slides, friction
    at the cone's edge against the sliding. before: the positions the
    step started from (the contacts' lever arms)."""
    c = world.contacts
    v, w = world.velocities, world.angular_velocities
    assert len(c) > 0
    assert np.allclose(np.linalg.norm(c.normals, axis=1), 1, rtol=0,
                       atol=1e-14)
    scale = np.abs(c.impulses).max()
    sliding = 0
    for k in range(len(c)):
        a, b = c.bodies[k]
        n, p, f = c.normals[k], c.points[k], c.impulses[k]
        ua = v[a] + np.cross(w[a], p - before[a])
        ub = v[b] + np.cross(w[b], p - before[b])
        u = ub - ua
        un, ut = u @ n, u - (u @ n) * n
        fn, ft = f @ n, f - (f @ n) * n
        assert fn >= -tol * scale, f"contact {k}: normal impulse {fn}"
        assert un >= -1e-6, f"contact {k}: approaching at {un}"
        assert np.linalg.norm(ft) <= c.mu[k] * fn + tol * scale, \
            f"contact {k}: outside the cone"
        if np.linalg.norm(ut) > 1e-6:
            sliding += 1
            edge = -c.mu[k] * fn * ut / np.linalg.norm(ut)
            assert np.linalg.norm(ft - edge) <= tol * scale, \
                f"contact {k}: friction not against the sliding"
    return sliding


def test_sliding_box_obeys_coulombs_law():
    """A box on a 30 degree slope with mu 0.2 < tan 30 slides down: every
    contact's friction at the cone's edge, against the sliding."""
    t = math.radians(30)
    world = proxima.World({"solver.abs_tol": 1e-12}, mu=0.2)
    world.add_body("plane", normal=(-math.sin(t), 0, math.cos(t)))
    world.add_body("box", half=(0.5, 0.4, 0.2), mass=2,
                   orientation=(math.cos(-t / 2), 0, math.sin(-t / 2), 0),
                   position=(0.2 * -math.sin(t), 0, 0.2 * math.cos(t)))
    world.step(5)
    slides = 0
    for _ in range(10):
        before = world.positions
        world.step()
        slides += slip_oracle(world, before, 1e-7)
    assert slides >= 30
    # down the slope, with the acceleration g (sin - mu cos)
    along = np.array([math.cos(t), 0, math.sin(t)])
    a = G * (math.sin(t) - 0.2 * math.cos(t))
    assert world.velocities[1] @ along == pytest.approx(-a * 0.15, rel=1e-3)


def test_resting_boxes_obey_coulombs_law():
    """incline.ini: mu 0.5 > tan 20, the boxes hold (static friction,
    inside the cone, no sliding)."""
    world = proxima.World.read(os.path.join(SCENES, "incline.ini"),
                               {"solver.abs_tol": 1e-12})
    world.step(20)
    before = world.positions
    world.step()
    assert slip_oracle(world, before, 1e-7) == 0
    assert len(world.contacts) == 16
    assert np.all(np.linalg.norm(world.contacts.tangent_impulses, axis=1)
                  > 0)


def test_energies_from_the_states():
    world = proxima.World.read(os.path.join(SCENES, "boxstack-10.ini"))
    e0 = world.kinetic_energy + world.potential_energy
    out = world.step(5)
    x, q, v, w = (world.positions, world.orientations, world.velocities,
                  world.angular_velocities)
    kin = pot = 0.0
    for i in range(len(world)):
        b = world.body(i)
        if b["static"]:
            continue
        qw, qx, qy, qz = q[i]
        rot = np.array([
            [1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz),
             2 * (qx * qz + qw * qy)],
            [2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz),
             2 * (qy * qz - qw * qx)],
            [2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx),
             1 - 2 * (qx * qx + qy * qy)]])
        wb = rot.T @ w[i]
        kin += 0.5 * b["mass"] * v[i] @ v[i] + 0.5 * wb @ (
            np.array(b["inertia"]) * wb)
        pot += b["mass"] * G * x[i, 2]
    assert world.kinetic_energy == pytest.approx(kin, rel=1e-9, abs=1e-12)
    assert world.potential_energy == pytest.approx(pot, rel=1e-12)
    assert out["kinetic"][-1] == world.kinetic_energy
    assert out["potential"][-1] == world.potential_energy
    # a resting stack: no energy made, none lost to speak of
    assert world.kinetic_energy + world.potential_energy <= e0 + 1e-9
    assert world.potential_energy == pytest.approx(e0, rel=1e-6)
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1, atol=1e-15)


def test_state_arrays_are_copies():
    world = proxima.World.read(os.path.join(SCENES, "incline.ini"))
    x = world.positions
    x[:] = 7
    assert not np.any(world.positions == 7)
    assert world.positions.shape == (5, 3)
    assert world.orientations.shape == (5, 4)
    assert world.contacts.bodies.shape == (0, 2)
    assert world.stats["step"].shape == (0,)


def test_config_between_steps():
    world = proxima.World.read(os.path.join(SCENES, "boxstack-10.ini"),
                               "robust")
    assert world.config.source.endswith("robust.ini")
    world.config = {"solver.max_sweeps": 3}
    out = world.step()
    assert out["sweeps"][0] == 3 and not out["converged"][0]


def test_errors():
    w = proxima.World()
    bad = [
        (lambda: w.add_body("cone", radius=1, mass=1),
         "body 0: shape 'cone' is not a shape (expected sphere, box, "
         "capsule or plane)"),
        (lambda: w.add_body("sphere", radius=1, mass=float("nan")),
         "body 0: mass = nan: expected a positive, finite number"),
        (lambda: w.add_body("sphere", radius=1, mass=-1),
         "body 0: mass = -1: expected a positive, finite number"),
        (lambda: w.add_body("sphere", radius=1, mass=0),
         "body 0: mass = 0: expected a positive, finite number"),
        (lambda: w.add_body("sphere", radius=1, mass=1,
                            position=(0, 0, float("nan"))),
         "body 0: position[2] = nan: expected a finite number"),
        (lambda: w.add_body("sphere", radius=1, mass=1, position=(1, 2)),
         "body 0: position: expected 3 numbers"),
        (lambda: w.add_body("sphere", radius=-2, mass=1),
         "body 0: radius = -2: expected a positive, finite number"),
        (lambda: w.add_body("box", half=(1, 0, 1), mass=1),
         "body 0: half[1] = 0: expected a positive, finite number"),
        (lambda: w.add_body("sphere", mass=1),
         "body 0: radius missing (a sphere needs radius)"),
        (lambda: w.add_body("box", radius=1, mass=1),
         "body 0: a box has no radius (its size: half)"),
        (lambda: w.add_body("sphere", radius=1),
         "body 0: mass missing: expected exactly one of mass and density"),
        (lambda: w.add_body("sphere", radius=1, mass=1, density=2),
         "body 0: mass 1 and density 2: expected exactly one of mass and "
         "density"),
        (lambda: w.add_body("sphere", radius=1, mass=1, mu=-0.5),
         "body 0: mu = -0.5: expected a finite number >= 0"),
        (lambda: w.add_body("sphere", radius=1, mass=1,
                            orientation=(0, 0, 0, 0)),
         "body 0: orientation (0, 0, 0, 0): expected a non-zero quaternion"),
        (lambda: w.add_body("plane", normal=(0, 0, 0)),
         "body 0: normal (0, 0, 0): expected a non-zero vector"),
        (lambda: w.add_body("plane", normal=(0, 0, 1), velocity=(1, 0, 0)),
         "body 0: a static body does not move (expected zero velocity and "
         "angular_velocity)"),
        (lambda: proxima.World(dt=-1), "dt = -1: expected a positive, "
         "finite number"),
        (lambda: proxima.World(gravity=(0, 0, float("inf"))),
         "gravity[2] = inf: expected a finite number"),
        (lambda: proxima.World(stepping="euler"),
         "stepping: 'euler' is not one of semi-implicit, moreau"),
        (lambda: proxima.World(steps=-1),
         "steps = -1: expected a whole number >= 0"),
        (lambda: proxima.World(config=3),
         "config: expected a proxima.Config, a config file's path or "
         "name, or a mapping of settings, got int"),
        (lambda: proxima.World({"solver.max_sweeps": -1}),
         "--set solver.max_sweeps=-1: [solver] max_sweeps: '-1' is out of "
         "range [1, 1e+15]"),
        (lambda: w.step(-1), "n = -1: expected a whole number of steps "
         ">= 0"),
    ]
    for f, msg in bad:
        with pytest.raises(proxima.Error) as e:
            f()
        assert str(e.value) == msg
    assert len(w) == 0
    with pytest.raises(proxima.Error) as e:
        proxima.World(dtt=1)
    assert str(e.value).startswith("dtt: not a setting of a world "
                                   "(expected one of gravity, dt, ")
    with pytest.raises(IndexError) as e:
        w.body(0)
    assert str(e.value) == "body 0: the world has 0 bodies"


def test_file_errors(tmp_path):
    missing = str(tmp_path / "none.ini")
    with pytest.raises(proxima.FileError) as e:
        proxima.World.read(missing)
    assert str(e.value) == f"{missing}: cannot open: No such file or " \
        "directory"
    assert isinstance(e.value, OSError)
    with pytest.raises(proxima.FileError) as e:
        proxima.World.read(os.path.join(SCENES, "incline.ini"),
                           "no-such-config")
    assert str(e.value).startswith("config 'no-such-config' not found: ")
    bad = tmp_path / "bad.ini"
    bad.write_text("[body b]\nshape = cone\n")
    with pytest.raises(proxima.Error) as e:
        proxima.World.read(bad)
    assert re.match(rf"{re.escape(str(bad))}:2: \[body b\] shape: ",
                    str(e.value)), str(e.value)


def test_the_manuals_world_example(tmp_path, monkeypatch, capsys):
    section = open(os.path.join(SRC, "doc", "python.md")).read()
    code = [c for c in re.findall(r"```python\n(.*?)```", section, re.S)
            if "World" in c][0]
    assert len(code.splitlines()) <= 6
    monkeypatch.chdir(SRC)
    exec(compile(code, "doc/python.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert len(out) >= 1


def long_config(**more):
    # never converges, never stalls: each solve runs until stopped
    return proxima.Config(**{"solver.abs_tol": 0.0, "solver.rel_tol": 0.0,
                             "solver.stall_sweeps": 0,
                             "solver.max_sweeps": 10**12}, **more)


def test_ctrl_c_ends_the_step_and_raises():
    import signal
    import threading
    import time
    world = proxima.World.read(os.path.join(SCENES, "boxstack-10.ini"),
                               long_config())
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            world.step(5)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 5
    # the step that was running ended, its solve cut short
    assert world.steps_done == 1 and not world.stats["converged"][0]
    # and the world goes on from the iterate it kept. How many sweeps the
    # next step needs depends on how far the cut solve got, which the
    # timer decides (boxstack-10's second step after a first one cut at
    # 5,000 sweeps takes the default config over 10^6 sweeps, one cut at
    # 10,000 takes it 293): a bounded step, not its convergence, is what
    # this can check.
    world.config = proxima.Config(**{"solver.max_sweeps": 200})
    stats = world.step()
    assert world.steps_done == 2 and stats["contacts"][0] == 40
    assert 1 <= stats["sweeps"][0] <= 200 and np.isfinite(stats["merit"][0])


def test_one_call_at_a_time_per_world():
    import threading
    import time
    world = proxima.World.read(os.path.join(SCENES, "boxstack-10.ini"),
                               long_config(**{"solver.time_limit": 1.0}))
    t = threading.Thread(target=world.step)
    t.start()
    time.sleep(0.2)
    with pytest.raises(proxima.Error) as e:
        world.add_body("sphere", radius=1, mass=1)
    t.join()
    assert str(e.value) == "this world is stepping in another thread (one " \
        "call at a time per world)"
    assert world.steps_done == 1 and len(world) == 11
