"""proxima.World: a rigid-body world, read from a scene file or built body
by body, stepped as `proxima run` steps it (libproxima's proxima/sim.h).

    world = proxima.World.read("scenes/boxstack-10.ini")
    world.step(50)
    world.positions, world.contacts.impulses, world.stats["sweeps"]
"""

import os

import numpy as np

from . import Config, Error, _core

__all__ = ["World", "Contacts", "SHAPES", "STATS_COLUMNS"]

#: The shapes of a body, as scene files name them.
SHAPES = ("sphere", "box", "capsule", "plane")
#: The keys of each shape's size.
_SIZE = {"sphere": ("radius",), "box": ("half",),
         "capsule": ("radius", "half_length"), "plane": ("normal",)}
_STEPPING = ("semi-implicit", "moreau")
_STABILIZATION = ("none", "baumgarte", "post", "soft")
#: The columns of `proxima run --csv`, in order (the stages' times,
#: broad_s .. post_s, after max_depth): the keys of World.stats.
STATS_COLUMNS = ("step", "time", "contacts", "cache_hits", "sweeps", "merit",
                 "converged", "collide_s", "build_s", "solve_s", "stab_s",
                 "total_s", "kinetic", "potential", "max_depth", "broad_s",
                 "narrow_s", "cache_s", "problem_s", "integrate_s", "post_s")
#: A body's surface keys: the world's defaults for bodies that do not set
#: them, as a scene's [world] gives them.
_SURFACE = {"mu": 0.5, "mu_tau": 0.0, "restitution": 0.0}


def _config(config):
    if config is None:
        return Config()
    if isinstance(config, Config):
        return config
    if isinstance(config, (str, os.PathLike)):
        return Config.read(config)
    if hasattr(config, "items"):
        return Config(config)
    raise Error(f"config: expected a proxima.Config, a config file's path "
                f"or name, or a mapping of settings, got "
                f"{type(config).__name__}")


def _choice(key, value, words):
    if value in words:
        return words.index(value)
    raise Error(f"{key}: {value!r} is not one of {', '.join(words)}")


def _settings_in(settings):
    """The settings for _core.World: names checked, words as numbers."""
    known = tuple(_core.World.defaults())
    out = {}
    for key, value in settings.items():
        if key not in known:
            raise Error(f"{key}: not a setting of a world (expected one of "
                        f"{', '.join(known + tuple(_SURFACE))})")
        if key == "stepping":
            value = _choice(key, value, _STEPPING)
        elif key == "stabilization":
            value = _choice(key, value, _STABILIZATION)
        elif key in ("warm_start", "gyroscopic"):
            value = bool(value)
        elif key in ("steps", "substeps"):
            if isinstance(value, bool) or not isinstance(
                    value, (int, np.integer)) or value < 0:
                raise Error(f"{key} = {value!r}: expected a whole number "
                            ">= 0")
        out[key] = value
    return out


def _settings_out(d):
    d = dict(d)
    d["stepping"] = _STEPPING[d["stepping"]]
    d["stabilization"] = _STABILIZATION[d["stabilization"]]
    return d


class Contacts:
    """The contacts of a world's last step, one row per contact (new
    arrays, copies of what the world holds):

    bodies    (n, 2) uint32: the two bodies a, b of each contact
    points    (n, 3): midway between the two surfaces (world)
    normals   (n, 3): unit, from a to b
    depths    (n,): penetration (> 0) or minus a gap (< 0: a speculative
              contact within the margin)
    impulses  (n, 3): the impulse a gave b in the step (N s, world; the
              sum over its substeps); its normal part impulses . normals
              is >= 0
    torsion   (n,): the torsional impulse about the normal (0 without
              mu_tau)
    mu        (n,): the contact's friction coefficient, sqrt(mu_a mu_b)
    """

    __slots__ = ("bodies", "points", "normals", "depths", "impulses",
                 "torsion", "mu")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    @property
    def normal_impulses(self):
        """impulses . normals, per contact."""
        return np.einsum("ij,ij->i", self.impulses, self.normals)

    @property
    def tangent_impulses(self):
        """The impulses less their normal part, (n, 3)."""
        return self.impulses - self.normal_impulses[:, None] * self.normals

    def __len__(self):
        return len(self.depths)

    def __repr__(self):
        return f"<proxima.Contacts: {len(self)}>"


class World:
    """A rigid-body world: bodies (spheres, boxes, capsules, static planes),
    gravity and a time step, stepped by proxima's contact solve.

    World.read(scene, config=None) reads a scene file as `proxima run
    SCENE` does (a path; proxima.conf(5) and the scenes/ folder document
    the format). World(config=None, **settings) is an empty world with a
    scene's [world] keys as settings: gravity, dt, steps, stepping
    ("semi-implicit" or "moreau"), stabilization ("baumgarte", "post",
    "none", "soft"), beta, slop, margin, restitution_threshold,
    warm_start, gyroscopic, substeps, contact_hertz,
    contact_damping_ratio, contact_push_velocity, and mu, mu_tau,
    restitution: the surface of bodies added without their own. Unset
    settings are a scene's defaults. add_body() adds bodies.

    config is the solver config of every step: a Config, a config file's
    path or installed name, a mapping (Config(mapping)), or None (the
    defaults); world.config changes it between steps.

    step(n) takes n steps, each `proxima run`'s step bit for bit, with the
    GIL released (Ctrl-C cuts the running step's solve short, stops the
    steps and raises KeyboardInterrupt; the steps taken stay taken). The
    state is read as copies (new arrays): positions, orientations (unit
    quaternions w, x, y, z, body to world), velocities,
    angular_velocities (world), one row per body in the order they were
    added (a scene's: its file order); contacts (the last step's);
    stats (one entry per step, the columns of `proxima run --csv`);
    kinetic_energy, potential_energy.

    Bad values raise proxima.Error naming the body, the field and the
    value; a scene file that cannot be opened proxima.FileError.
    """

    __slots__ = ("_w", "_config", "_surface")

    def __init__(self, config=None, **settings):
        surface = {k: settings.pop(k) for k in _SURFACE if k in settings}
        self._config = _config(config)
        self._w = _core.World(_settings_in(settings))
        self._surface = dict(_SURFACE, **surface)

    @classmethod
    def read(cls, scene, config=None):
        """The world of a scene file (a path), as `proxima run SCENE`
        reads it, stepped with config (see World)."""
        self = cls.__new__(cls)
        self._config = _config(config)
        self._w = _core.World.read(os.fspath(scene))
        self._surface = dict(_SURFACE)
        return self

    @property
    def config(self):
        """The solver config of the steps (a Config)."""
        return self._config

    @config.setter
    def config(self, config):
        self._config = _config(config)

    @property
    def settings(self):
        """The world's settings: a dict of a scene's [world] keys (a
        copy)."""
        return _settings_out(self._w.info()["settings"])

    def add_body(self, shape, *, radius=None, half=None, half_length=None,
                 normal=None, position=(0.0, 0.0, 0.0),
                 orientation=(1.0, 0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0),
                 angular_velocity=(0.0, 0.0, 0.0), mass=None, density=None,
                 inertia=None, mu=None, mu_tau=None, restitution=None,
                 static=False):
        """Add a body and return its index.

        shape "sphere" (radius), "box" (half: the 3 half extents along
        the body axes), "capsule" (radius, half_length: the segment along
        the body z axis) or "plane" (normal, pointing out of the solid,
        normalized; always static; its surface passes through position).
        position: the centre of mass; orientation: a quaternion (w, x, y,
        z), normalized; velocity, angular_velocity (world). Exactly one of
        mass (kg) and density (kg/m^3) unless static; inertia: the 3
        principal moments (default: a solid of uniform density). mu,
        mu_tau, restitution: its surface (default: the world's).
        """
        index = len(self)
        if shape not in SHAPES:
            raise Error(f"body {index}: shape {shape!r} is not a shape "
                        f"(expected {', '.join(SHAPES[:-1])} or "
                        f"{SHAPES[-1]})")
        size = {"radius": radius, "half": half, "half_length": half_length,
                "normal": normal}
        for key, value in size.items():
            if key in _SIZE[shape] and value is None:
                raise Error(f"body {index}: {key} missing (a {shape} "
                            f"needs {' and '.join(_SIZE[shape])})")
            if key not in _SIZE[shape] and value is not None:
                raise Error(f"body {index}: a {shape} has no {key} (its "
                            f"size: {' and '.join(_SIZE[shape])})")
        for key, value in (("mass", mass), ("density", density)):
            # 0 means "not set" in C: refuse it here
            if value is not None and not isinstance(value, str) and \
                    float(value) == 0:
                raise Error(f"body {index}: {key} = 0: expected a "
                            "positive, finite number")
        surface = {"mu": mu, "mu_tau": mu_tau, "restitution": restitution}
        surface = {k: self._surface[k] if v is None else v
                   for k, v in surface.items()}
        kw = {k: v for k, v in size.items() if v is not None}
        return self._w.add_body(
            SHAPES.index(shape), position=position, orientation=orientation,
            velocity=velocity, angular_velocity=angular_velocity,
            mass=0.0 if mass is None else mass,
            density=0.0 if density is None else density, inertia=inertia,
            static=bool(static), **kw, **surface)

    def body(self, i):
        """Body i as the world holds it now: a dict of add_body's keys
        (shape by name; mass and inertia as computed)."""
        d = self._w.body(i)
        d["shape"] = SHAPES[d["shape"]]
        for key in ("radius", "half", "half_length", "normal"):
            if key not in _SIZE[d["shape"]]:
                del d[key]
        return d

    def __len__(self):
        return self._w.info()["bodies"]

    def step(self, n=1):
        """Take n steps with the world's config; return their statistics
        (a dict of arrays as stats gives them, n entries)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) \
                or n < 0:
            raise Error(f"n = {n!r}: expected a whole number of steps >= 0")
        first = self.steps_done
        self._w.step(self._config._c, int(n))
        return self._stats(first)

    def _stats(self, first):
        d = self._w.stats(first)
        return {k: d[k] for k in STATS_COLUMNS}

    def run(self):
        """Step until the scene's number of steps (settings["steps"]) is
        done, as `proxima run` does; return their statistics."""
        return self.step(max(0, self.settings["steps"] - self.steps_done))

    @property
    def stats(self):
        """The statistics of every step taken: a dict of numpy arrays
        (new), one entry per step, keyed by the columns of `proxima run
        --csv` (STATS_COLUMNS): step, contacts, cache_hits, sweeps
        (uint64), converged (bool), the others float64 (seconds of the
        step's parts and stages *_s, energies after it, max_depth)."""
        return self._stats(0)

    @property
    def positions(self):
        """The bodies' centres of mass, (n, 3), a copy."""
        return self._w.states()[0]

    @property
    def orientations(self):
        """The bodies' orientations, (n, 4) unit quaternions (w, x, y, z),
        body to world, a copy."""
        return self._w.states()[1]

    @property
    def velocities(self):
        """The bodies' linear velocities, (n, 3), a copy."""
        return self._w.states()[2]

    @property
    def angular_velocities(self):
        """The bodies' angular velocities (world), (n, 3), a copy."""
        return self._w.states()[3]

    @property
    def contacts(self):
        """The last step's contacts (Contacts: arrays, copies); none
        before the first step."""
        return Contacts(self._w.contacts())

    @property
    def steps_done(self):
        """The number of steps taken so far."""
        return self._w.info()["steps_done"]

    @property
    def time(self):
        """Simulated time (s)."""
        return self._w.info()["time"]

    @property
    def kinetic_energy(self):
        """1/2 m v.v + 1/2 w.I w summed over the moving bodies (J)."""
        return self._w.info()["kinetic"]

    @property
    def potential_energy(self):
        """-m g.x summed over the moving bodies (J)."""
        return self._w.info()["potential"]

    def __repr__(self):
        return (f"<proxima.World: {len(self)} bodies, {self.steps_done} "
                f"steps, t = {self.time:g} s>")
