"""proxima: rigid-body frictional contact problems, from Python.

A contact problem is W, q, mu: find impulses lam and velocities
u = W lam + q that obey Coulomb's law at every contact (3 rows per contact:
normal, then two tangents). proxima solves it by a proximal-point
Gauss-Seidel iteration whose parts (friction set, ordering, r-factors,
scheduler, accelerator) are plugins named in a config.

    import numpy as np, proxima
    problem = proxima.Problem.read("two-boxes.dat")      # or Problem(W, q, mu)
    result = proxima.solve(problem, proxima.Config(**{"solver.abs_tol": 1e-10}))
    result.converged, result.sweeps, result.fc3d_error, result.lam

This module is libproxima's C API (proxima/proxima.h) under Python: the
solves are the command's (`proxima solve`), bit for bit. Plugins are found
on PROXIMA_PLUGIN_PATH, then in the installed plugin folder; installed
configs ("robust", ...) in $PROXIMA_DATA_DIR/conf, then the installed
data folder.
"""

import numbers
import os

import numpy as np

from . import _core

__all__ = ["Error", "FileError", "Problem", "Config", "Solver", "Result",
           "History", "Plugin", "Param", "Info", "solve", "plugins",
           "refused_plugins", "SECTIONS", "FULL", "NORMAL", "FRICTION",
           "World", "Contacts", "STATS_COLUMNS"]

Error = _core.Error
FileError = _core.FileError
Info = _core.Info

#: What a Python ordering returns for the part of the contacts a sweep
#: visits (None is FULL); History.part holds the same numbers.
FULL, NORMAL, FRICTION = 0, 1, 2

# A layer of a Python ordering or rfactor: (_PY, section, object).
_PY = "python"

#: The sections of a config, in the order of proxima's INI files.
SECTIONS = ("solver", "friction", "ordering", "rfactor", "scheduler",
            "accelerator")


def _fail(msg):
    return Error(msg)


def _real(x):
    """A number of a message as Python writes it (nan, inf, -0.5)."""
    return repr(float(x))


def _vector(x, what, n, unit):
    """x as a float64 vector of n finite numbers (a new array)."""
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(f"{what}: expected an array of numbers") from None
    if a.ndim != 1:
        raise _fail(f"{what}: expected a 1-D array of {n} numbers, got an "
                    f"array of shape {a.shape}")
    if a.size != n:
        raise _fail(f"{what}: expected {n} numbers ({unit}), got {a.size}")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        i = int(bad[0])
        raise _fail(f"{what}[{i}] = {_real(a[i])}: expected a finite number")
    return a


def _check_shape(shape):
    rows, cols = shape
    if rows != cols:
        raise _fail(f"W: expected a square matrix, got {rows} x {cols}")
    if rows == 0:
        raise _fail("W: a problem needs at least one contact, got a 0 x 0 "
                    "matrix")
    if rows % 3:
        raise _fail(f"W: {rows} rows do not make contacts of 3 rows "
                    "(expected a multiple of 3)")
    return rows // 3


def _dense_bsr(W):
    """(rowptr, cols, blocks) of a dense W: its blocks that hold a non-zero,
    and the diagonal ones."""
    try:
        a = np.asarray(W)
    except (TypeError, ValueError):
        raise _fail("W: expected a matrix of numbers") from None
    if a.ndim != 2:
        raise _fail(f"W: expected a matrix (2-D), got an array of shape "
                    f"{a.shape}")
    if a.dtype.kind not in "biuf":
        raise _fail(f"W: expected real numbers, got an array of {a.dtype}")
    n = _check_shape(a.shape)
    a = np.ascontiguousarray(a, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        raise _fail(f"W[{i}, {j}] = {_real(a[i, j])}: expected a finite "
                    "number")
    blocks = a.reshape(n, 3, n, 3).transpose(0, 2, 1, 3)
    mask = blocks.any(axis=(2, 3)) | np.eye(n, dtype=bool)
    r, c = np.nonzero(mask)
    rowptr = np.zeros(n + 1, dtype=np.uintp)
    np.cumsum(mask.sum(axis=1), out=rowptr[1:])
    return rowptr, c.astype(np.uint32), np.ascontiguousarray(blocks[r, c])


def _sparse_bsr(W):
    """(rowptr, cols, blocks) of a scipy.sparse W (CSR, CSC, or BSR with
    3 x 3 blocks), duplicates summed as scipy does."""
    fmt = W.format
    if fmt not in ("csr", "csc", "bsr"):
        raise _fail(f"W: a scipy.sparse {fmt.upper()} matrix: expected CSR, "
                    "CSC or BSR (convert it with .tocsr())")
    if W.dtype.kind not in "biuf":
        raise _fail(f"W: expected real numbers, got a matrix of {W.dtype}")
    if len(W.shape) != 2:
        raise _fail(f"W: expected a matrix (2-D), got shape {W.shape}")
    _check_shape(W.shape)
    if fmt == "bsr" and tuple(W.blocksize) != (3, 3):
        r, c = W.blocksize
        raise _fail(f"W: BSR blocks of {r} x {c} do not fit contacts of 3 "
                    "rows (expected 3 x 3 blocks)")
    b = W.tobsr(blocksize=(3, 3), copy=True)
    b.sum_duplicates()
    data = np.ascontiguousarray(b.data, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(data))
    if bad.size:
        k, i, j = (int(v) for v in bad[0])
        row = int(np.searchsorted(b.indptr, k, side="right")) - 1
        col = int(b.indices[k])
        raise _fail(f"W[{3 * row + i}, {3 * col + j}] = "
                    f"{_real(data[k, i, j])}: expected a finite number")
    return (b.indptr.astype(np.uintp), b.indices.astype(np.uint32),
            data.reshape(-1, 3, 3))


def _array(x, what, shape, unit):
    """x as a C-contiguous float64 array of the given shape (or flat of its
    size) holding finite numbers (a new array)."""
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(f"{what}: expected an array of numbers") from None
    size = int(np.prod(shape))
    if a.shape != tuple(shape) and not (a.ndim == 1 and a.size == size):
        raise _fail(f"{what}: expected shape {tuple(shape)} ({unit}), got "
                    f"shape {a.shape}")
    a = a.reshape(shape)
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        i = tuple(int(v) for v in bad[0])
        at = ", ".join(str(v) for v in i)
        raise _fail(f"{what}[{at}] = {_real(a[i])}: expected a finite "
                    "number")
    return a


def _contacts(q, mu, n):
    """q (3n) and mu (n, or one number) checked, as float64 vectors."""
    qv = _vector(q, "q", 3 * n, f"{n} contacts x 3 rows")
    if np.ndim(mu) == 0:
        try:
            mu = np.full(n, float(mu))
        except (TypeError, ValueError):
            raise _fail("mu: expected a number or an array of numbers") \
                from None
    muv = _vector(mu, "mu", n, "one per contact")
    neg = np.flatnonzero(muv < 0)
    if neg.size:
        k = int(neg[0])
        raise _fail(f"mu[{k}] = {_real(muv[k])}: expected mu >= 0")
    return qv, muv


def _bodies(body_a, body_b, n_bodies):
    """body_a, body_b (-1 for the static world) as libproxima's uint32
    indices (PX_STATIC for -1), checked: in range, the two sides of a
    contact different. The number of contacts is len(body_a)."""
    out = []
    for what, b in (("body_a", body_a), ("body_b", body_b)):
        try:
            a = np.array(b)
        except (TypeError, ValueError):
            a = np.array([None])
        if a.dtype.kind not in "iub" or a.ndim != 1:
            raise _fail(f"{what}: expected a 1-D array of body indices "
                        "(integers, -1 for the static world)")
        out.append(a.astype(np.int64))
    a, b = out
    if a.size == 0:
        raise _fail("body_a: a problem needs at least one contact")
    if b.size != a.size:
        raise _fail(f"body_b: expected {a.size} body indices (one per "
                    f"contact, as body_a), got {b.size}")
    for what, x in (("body_a", a), ("body_b", b)):
        bad = np.flatnonzero((x < -1) | (x >= n_bodies))
        if bad.size:
            k = int(bad[0])
            raise _fail(f"{what}[{k}] = {int(x[k])}: expected a body index "
                        f"in 0 .. {n_bodies - 1} or -1 (static) "
                        f"({n_bodies} bodies)")
    same = np.flatnonzero(a == b)
    if same.size:
        k = int(same[0])
        side = "the static world" if a[k] == -1 else f"body {int(a[k])}"
        raise _fail(f"contact {k}: both sides are {side} (body_a and "
                    "body_b must differ)")
    static = np.uint32(0xFFFFFFFF)
    return (np.where(a < 0, static, a).astype(np.uint32),
            np.where(b < 0, static, b).astype(np.uint32))


class Problem:
    """A frictional contact problem: find lam, u = W lam + q with Coulomb's
    law at every contact of friction coefficient mu.

    Problem(W, q, mu) takes W as a dense numpy array (3n x 3n) or a
    scipy.sparse matrix (CSR, CSC, or BSR with 3 x 3 blocks), q as n * 3
    numbers (per contact: normal, then two tangents) and mu as n numbers
    (or one for all). Everything is copied: libproxima keeps its own
    block-sparse (BSR) arrays of W with the block columns of each row
    sorted, the diagonal blocks always present, and of a dense W only the
    3 x 3 blocks that hold a non-zero (the conversion costs a pass over the
    dense matrix and memory for the kept blocks); q and mu are copied too,
    so changing the arrays afterwards does not change the problem.

    Problem.rigid(...) and Problem.factorized(...) give W in the rigid and
    factorized forms a world builds (W = J M^-1 J^T, never assembled for
    the solve); form says which a problem has.

    Wrong shapes, non-finite numbers, a negative mu, a non-square W or
    blocks that are not 3 x 3 raise proxima.Error (a ValueError) with a
    one-line message.
    """

    __slots__ = ("_p",)

    def __init__(self, W, q, mu):
        if hasattr(W, "tobsr") and hasattr(W, "format"):
            rowptr, cols, blocks = _sparse_bsr(W)
        else:
            rowptr, cols, blocks = _dense_bsr(W)
        n = len(rowptr) - 1
        qv, muv = _contacts(q, mu, n)
        self._p = _core.Problem(rowptr, cols, blocks.reshape(-1), qv, muv)

    @classmethod
    def rigid(cls, inv_mass, inv_inertia, body_a, body_b, frames, lever, q,
              mu, positions=None):
        """A problem of rigid bodies in contact, W = J M^-1 J^T held in
        the compact rigid form (problem.h): per body, inv_mass (n_bodies
        numbers >= 0) and inv_inertia (n_bodies x 3 x 3, the world-frame
        inverse inertia, symmetric positive semi-definite); per contact
        k, body_a[k] and body_b[k] (body indices, -1 for the static
        world), frames[k] (3 x 3, rows n, s, t: orthonormal to 1e-9),
        lever[k] (2 x 3: r_a then r_b, from each body's centre to the
        contact point; a static side's is ignored), q (3n) and mu (n or
        one number); positions (n x 3, default zeros) are kept with the
        frames as the contacts' geometry and do not enter W.

        Contact k's row d of J (d = n, s, t) is (d, r_a x d) on body a's
        (linear, angular) velocity and -(d, r_b x d) on body b's: u is the
        velocity of body a's point relative to body b's, in the frame.
        Every array is copied (flat float64 and uint32 copies, then
        libproxima's own: the inertias as their upper triangles).
        """
        if np.ndim(inv_mass) != 1 or np.size(inv_mass) == 0:
            raise _fail("inv_mass: expected a 1-D array of one inverse mass "
                        "per body (at least one body)")
        nb = int(np.size(inv_mass))
        im = _array(inv_mass, "inv_mass", (nb,), "one per body")
        neg = np.flatnonzero(im < 0)
        if neg.size:
            b = int(neg[0])
            raise _fail(f"inv_mass[{b}] = {_real(im[b])}: expected an "
                        "inverse mass >= 0")
        ii = _array(inv_inertia, "inv_inertia", (nb, 3, 3),
                    f"{nb} bodies x 3 x 3")
        for b in range(nb):
            m = ii[b]
            for i, j in ((0, 1), (0, 2), (1, 2)):
                if m[i, j] != m[j, i]:
                    raise _fail(f"inv_inertia[{b}] is not symmetric: "
                                f"[{i}, {j}] = {_real(m[i, j])}, "
                                f"[{j}, {i}] = {_real(m[j, i])}")
            low = float(np.linalg.eigvalsh(m)[0])
            if low < -1e-12 * max(1.0, float(np.abs(m).max())):
                raise _fail(f"inv_inertia[{b}] is not positive "
                            f"semi-definite: an eigenvalue {low:.6g}")
        ba, bb = _bodies(body_a, body_b, nb)
        n = ba.size
        fr = _array(frames, "frames", (n, 3, 3), f"{n} contacts x 3 x 3")
        off = np.abs(np.einsum("kij,klj->kil", fr, fr) - np.eye(3))
        bad = np.flatnonzero(off.max(axis=(1, 2)) > 1e-9)
        if bad.size:
            k = int(bad[0])
            raise _fail(f"frames[{k}]: rows n, s, t are not orthonormal "
                        f"(F F^T differs from I by {off[k].max():.3g}, "
                        "more than 1e-9)")
        lv = _array(lever, "lever", (n, 2, 3), f"{n} contacts x (r_a, r_b)")
        pos = None if positions is None else _array(
            positions, "positions", (n, 3), f"{n} contacts x 3")
        qv, muv = _contacts(q, mu, n)
        self = cls.__new__(cls)
        self._p = _core.Problem.rigid(
            im, ii.reshape(-1), ba, bb, fr.reshape(-1), lv.reshape(-1), qv,
            muv, None if pos is None else pos.reshape(-1))
        return self

    @classmethod
    def factorized(cls, n_bodies, body_a, body_b, jac, minv_jt, q, mu):
        """A problem with W = J M^-1 J^T in the factorized form
        (problem.h): per contact k, body_a[k] and body_b[k] (indices
        below n_bodies, -1 for the static world), jac[k] (2 x 3 x 6: J_a
        then J_b, rows n, s, t on a body's 6 velocities) and minv_jt[k]
        (2 x 6 x 3: (M^-1 J^T)_a then _b), q (3n) and mu (n or one
        number). W's block (i, j) is the sum over the bodies b that
        contacts i and j share of J_i,b (M^-1 J^T)_j,b; a static side's
        blocks are ignored. Every array is copied (a float64 copy, then
        libproxima's own: 72 numbers per contact)."""
        if isinstance(n_bodies, bool) or not isinstance(
                n_bodies, numbers.Integral) or n_bodies < 0:
            raise _fail(f"n_bodies: expected an integer >= 0, got "
                        f"{n_bodies!r}")
        nb = int(n_bodies)
        ba, bb = _bodies(body_a, body_b, nb)
        n = ba.size
        jc = _array(jac, "jac", (n, 2, 3, 6), f"{n} contacts x (J_a, J_b)")
        mj = _array(minv_jt, "minv_jt", (n, 2, 6, 3),
                    f"{n} contacts x ((M^-1 J^T)_a, (M^-1 J^T)_b)")
        qv, muv = _contacts(q, mu, n)
        self = cls.__new__(cls)
        self._p = _core.Problem.factorized(nb, ba, bb, jc.reshape(-1),
                                           mj.reshape(-1), qv, muv)
        return self

    @classmethod
    def read(cls, path):
        """Read a problem file: Siconos .dat (dense or sparse blocks) or an
        FCLib HDF5 file (local, or global condensed to W = H^T M^-1 H),
        told apart by content. Raises proxima.FileError when the file
        cannot be opened, proxima.Error naming the file and what is wrong
        when it is malformed."""
        self = cls.__new__(cls)
        self._p = _core.Problem.read(os.fspath(path))
        return self

    def write(self, path):
        """Write the problem as a Siconos .dat file (by the name's
        extension .dat, every real with %.17g: it reads back bit for bit)
        or an FCLib local problem (.hdf5 or .h5), as `proxima convert`
        does; a factorized or rigid W is assembled first, as W gives it."""
        self._p.write(os.fspath(path))

    @property
    def n_contacts(self):
        """The number of contacts n."""
        return self._p.n_contacts

    @property
    def block_size(self):
        """Rows per contact (3: normal, then two tangents)."""
        return self._p.block_size

    @property
    def q(self):
        """q (the free velocity), a copy: 3n numbers."""
        return self._p.q()

    @property
    def mu(self):
        """The friction coefficients, a copy: n numbers."""
        return self._p.mu()

    @property
    def form(self):
        """How libproxima holds W: "assembled" (BSR blocks: Problem(W, q,
        mu) and files), "factorized" or "rigid"."""
        return self._p.form

    @property
    def n_bodies(self):
        """The bodies of a factorized or rigid W (0 for an assembled one)."""
        return self._p.n_bodies

    @property
    def W(self):
        """W as a scipy.sparse BSR matrix with 3 x 3 blocks: a copy of
        the stored blocks (sorted, diagonal blocks present), or for a
        factorized or rigid problem W assembled on each access
        (px_problem_assemble: the blocks of contacts sharing a body, in
        time and memory of those blocks). Needs scipy; dense() gives a
        numpy array without it."""
        import scipy.sparse
        p = self._p if self._p.form == "assembled" else self._p.assemble()
        rowptr, cols, blocks = p.bsr()
        m = self.n_contacts * self.block_size
        return scipy.sparse.bsr_matrix(
            (blocks, cols.astype(np.int32), rowptr.astype(np.int32)),
            shape=(m, m))

    def dense(self):
        """W as a dense numpy array (3n x 3n), of any form (a factorized or
        rigid W through 3n products W e_i)."""
        return self._p.dense()

    @property
    def nbytes(self):
        """Bytes libproxima holds for the problem."""
        return self._p.nbytes

    def __repr__(self):
        return (f"<proxima.Problem: {self.n_contacts} contacts of "
                f"{self.block_size} rows, {self.form}>")


def _format_value(key, value):
    if isinstance(value, (bool, np.bool_)):
        return "on" if value else "off"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, str):
        if "\n" in value or "\r" in value:
            raise _fail(f"{key}: a value of one line expected, got "
                        f"{value!r}")
        return value
    raise _fail(f"{key}: expected a number, a bool or a string, got "
                f"{type(value).__name__}")


def _heuristic(section, value):
    """The layer of a Python ordering or rfactor, or None when value is
    not one."""
    if section in ("ordering", "rfactor") and isinstance(value, type):
        raise _fail(f"{section}: the class {value.__qualname__}: expected "
                    f"an instance of it ({value.__qualname__}(...)) or a "
                    "function")
    if section == "ordering" and callable(value):
        return (_PY, section, value)
    if section == "rfactor" and (callable(value) or hasattr(value, "init")):
        return (_PY, section, value)
    if section in SECTIONS[1:] and callable(value):
        raise _fail(f"{section}: a Python callable can be an ordering or "
                    f"an rfactor only, not a {section}")
    return None


def _set_layer(key, value):
    if not isinstance(key, str):
        raise _fail(f"{key!r}: expected a key SECTION.KEY (a string)")
    section = key[:-len(".plugin")] if key.endswith(".plugin") else key
    if not isinstance(value, str):
        py = _heuristic(section, value)
        if py:
            return py
    if "." not in key:
        if key in SECTIONS and key != "solver":
            key = key + ".plugin"
        else:
            raise _fail(f"{key}: expected SECTION.KEY, or a plugin's "
                        f"section ({', '.join(SECTIONS[1:])}) for its "
                        "plugin")
    return (_core.LAYER_SET, f"{key}={_format_value(key, value)}", None)


class Config:
    """A solver config: layers over the compiled defaults, as the command's
    -c and --set build it.

    Config() is the defaults; Config(friction="box",
    **{"solver.max_sweeps": 500}) adds one layer per key, SECTION.KEY =
    value ("friction=box" means friction.plugin = box); a mapping as the
    first argument does the same. Config.read(path or installed name) and
    Config.from_string(ini_text) start from a file or INI text. Each layer
    replaces the same key of the earlier ones; a layer naming another
    plugin for a section drops the earlier layers' keys of that section.

    Values are written as the INI reads them: floats by repr (which reads
    back exactly), bools as on/off. Every change builds the config in C
    at once (px_config_build, loading its plugins): a bad key, value or
    plugin raises proxima.Error with libproxima's message and leaves the
    config as it was. str(cfg) is the config in effect as INI text, which
    Config.from_string reads back to the same config.

    A Python ordering or r-factor strategy takes a plugin's place:
    Config(ordering=order, rfactor=rf), or set("ordering", order).

    ordering  order(perm, info), called before every sweep: perm is the
              permutation of the contacts the sweep visits, a writable
              numpy array (uint32, n) that it may rewrite in place; it
              returns None or the part to visit (proxima.FULL, NORMAL or
              FRICTION). When order also has prepare(perm, info), that is
              called once per solve, perm set to the identity before.
    rfactor   rf.init(r, info) once per solver fills r (float64, n x 3,
              the r-factors of each contact's rows, writable);
              rf.adapt(r, residual_prev, residual_new), when rf has it,
              after every sweep returns True or None (accept the sweep)
              or False (reject it, r shrunk in place); a plain function
              is init alone (every sweep accepted).

    info is a proxima.Info: n_contacts, block_size, sweep, delta_normal,
    delta_friction, separable, lam (the current iterate, n x 3,
    read-only; None in init) and read-only copies, made once per solve,
    of q, diag (W's diagonal blocks, n x 3 x 3) and mu;
    info.apply(x, add_q=False) gives W x (+ q) during a call. perm, r and
    lam are arrays of their own, copies of the solver's made before each
    call (perm and r copied back after it when the answer is good), so
    whatever a callable keeps of them, slices too, stays valid; an array
    it kept is not handed out again.

    An exception in the object, or a wrong answer (a part that is none,
    perm no longer a permutation, an r not finite or not > 0), stops the
    solve at the next sweep boundary and proxima.solve (Solver.solve,
    World.step) raises that exception, or a proxima.Error naming the
    object and what was wrong.
    Such a section has no parameters. str(cfg) writes it as a comment
    and "plugin = in-process:NAME", which no config can read back:
    Config.from_string of that text raises proxima.Error saying so.
    """

    __slots__ = ("_layers", "_c")

    def __init__(self, overrides=None, **settings):
        self._layers = ()
        self._c = None
        layers = []
        for key, value in dict(overrides or {}, **settings).items():
            layers.append(_set_layer(key, value))
        self._build(tuple(layers))

    def _build(self, layers):
        c_layers, held = [], {}
        for layer in layers:
            if layer[0] == _PY:
                held[layer[1]] = layer[2]
                continue
            if layer[0] == _core.LAYER_SET:
                key = layer[1].split("=", 1)[0]
                section, _, k = (x.strip() for x in key.partition("."))
                if section in held and k == "plugin":
                    del held[section]
                elif section in held:
                    raise _fail(f"{key.strip()}: the {section} is a Python "
                                "object, which has no parameters (name a "
                                f"plugin first: {section}=NAME)")
            c_layers.append(layer)
        heur = [(SECTIONS.index(k), obj) for k, obj in held.items()]
        c = _core.Config(tuple(c_layers), heur)
        self._layers, self._c = layers, c
        return self

    @classmethod
    def read(cls, path, overrides=None, **settings):
        """A config from a file: a path, or an installed config's name
        ("robust", "pgssm", ...) found as NAME.ini in the installed
        configs; then the overrides, as Config() takes them."""
        self = cls.__new__(cls)
        self._layers = ()
        layers = [(_core.LAYER_FILE, os.fspath(path), None)]
        for key, value in dict(overrides or {}, **settings).items():
            layers.append(_set_layer(key, value))
        return self._build(tuple(layers))

    @classmethod
    def from_string(cls, text, name=None, overrides=None, **settings):
        """A config from INI text (name: what messages call it, default
        "(text)"); then the overrides, as Config() takes them."""
        self = cls.__new__(cls)
        self._layers = ()
        layers = [(_core.LAYER_TEXT, text, name)]
        for key, value in dict(overrides or {}, **settings).items():
            layers.append(_set_layer(key, value))
        return self._build(tuple(layers))

    def set(self, key, value):
        """Set SECTION.KEY to value (a layer over the earlier ones) and
        return the config; "friction" alone means friction.plugin."""
        return self._build(self._layers + (_set_layer(key, value),))

    def update(self, overrides=None, **settings):
        """set() for every key of a mapping and the keywords; returns the
        config."""
        layers = [_set_layer(k, v)
                  for k, v in dict(overrides or {}, **settings).items()]
        return self._build(self._layers + tuple(layers))

    def copy(self):
        """A config of the same layers."""
        return type(self).__new__(type(self))._build(self._layers)

    @property
    def layers(self):
        """The layers, in order: (kind, text, name) with kind
        "file", "text" or "set", and ("python", section, object) for a
        Python ordering or rfactor."""
        kinds = {_core.LAYER_FILE: "file", _core.LAYER_TEXT: "text",
                 _core.LAYER_SET: "set", _PY: _PY}
        return tuple((kinds[k], t, n) for k, t, n in self._layers)

    @property
    def source(self):
        """Where the config came from: its layers' names joined by " + "
        (files by path, "--set K=V"), or "(defaults)"."""
        return self._c.source

    def plugin(self, section):
        """The plugin of a section ("friction", ...), "none" for no
        accelerator."""
        kind = SECTIONS.index(section) if section in SECTIONS[1:] else None
        if kind is None:
            raise _fail(f"{section}: not a plugin's section (expected one "
                        f"of {', '.join(SECTIONS[1:])})")
        return self._c.plugin(kind) or "none"

    def params(self):
        """The parameters in effect: {section: {key: value}}, values typed
        (int, float, bool, str; a choice by its word); a plugin's section
        starts with "plugin": its name."""
        out = {}
        for k, section in enumerate(SECTIONS):
            d = {} if k == 0 else {"plugin": self.plugin(section)}
            for key, _type, value in self._c.params(k):
                d[key] = value
            out[section] = d
        return out

    def __str__(self):
        return self._c.write()

    def __repr__(self):
        return f"<proxima.Config: {self.source}>"


class History:
    """The sweeps of a solve, one entry per sweep (numpy arrays):
    residual (the sweep's delta, ||lam_{k+1} - lam_k||_inf), merit (the
    stop test's merit after it, nan when rejected), accepted (bool),
    part (0 full, 1 normal rows only, 2 friction rows only) and seconds
    (since the solve started)."""

    __slots__ = ("residual", "merit", "accepted", "part", "seconds")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    def __len__(self):
        return len(self.residual)

    def __repr__(self):
        return f"<proxima.History: {len(self)} sweeps>"


class Result:
    """What a solve gives back.

    lam        the impulses (3n), the last accepted iterate; after a
               "time limit" the lowest-merit one the solve saw
               (best_sweep: the sweep after which it was reached; 0
               when it is the last)
    u          W lam + q, computed by libproxima (px_problem_apply)
    status     why it stopped: "converged", "not converged", "diverged",
               "stalled", "time limit" or "interrupted" (px_stop_name)
    converged  bool
    sweeps     sweeps run, rejected ones included; rejected: of them
               rolled back
    residual   delta of the last accepted sweep; merit: the stop test's
    fc3d_error Siconos's fc3d error of lam (px_merit_fc3d), fc3d_abs its
               ||F(lam)||
    time       wall seconds of the solve
    scheduler, accelerator   their one-line reports ("" if none)
    history    a History, or None when solve(..., history=False)
    """

    __slots__ = ("lam", "u", "stop", "status", "converged", "sweeps",
                 "rejected", "residual", "merit", "fc3d_error", "fc3d_abs",
                 "time", "scheduler", "accelerator", "history", "diverged",
                 "check_failed", "accel_steps", "best_sweep")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])
        if self.history is not None:
            self.history = History(self.history)

    def __repr__(self):
        return (f"<proxima.Result: {self.status} after {self.sweeps} "
                f"sweeps, fc3d error {self.fc3d_error:.3g}>")


def _config(config):
    if config is None:
        return Config()
    if not isinstance(config, Config):
        raise _fail(f"config: expected a proxima.Config, got "
                    f"{type(config).__name__}")
    return config


def _problem(problem):
    if not isinstance(problem, Problem):
        raise _fail(f"problem: expected a proxima.Problem, got "
                    f"{type(problem).__name__}")
    return problem


def solve(problem, config=None, lam0=None, history=True):
    """Solve a Problem with a Config (None: the defaults) from lam0 (None:
    zeros; copied) and return a Result. The same solve as `proxima solve`,
    bit for bit.

    The GIL is released while it runs. Ctrl-C stops it between sweeps
    (checked every 50 ms) and raises KeyboardInterrupt once it has
    stopped. A config runs one solve at a time: a solve in another thread
    needs its own Config.
    """
    problem = _problem(problem)
    cfg = _config(config)
    return Result(_core.solve(problem._p, cfg._c, lam0, bool(history)))


class Solver:
    """A solver kept for repeated solves of one problem whose q changes
    (px_solver): what depends on W and the plugins (validation, diagonal
    blocks, r-factors, a coloring) is done once, here.

    Solver(problem, config=None) copies the problem (its W, q and mu), so
    solve(q=...) never changes the Problem given. Each solve is that of
    proxima.solve on the problem with that q; a solve from the lam the
    last one ended with starts from its body velocities."""

    __slots__ = ("_s", "_config", "problem")

    def __init__(self, problem, config=None):
        self.problem = _problem(problem)
        self._config = _config(config)
        self._s = _core.Solver(problem._p, self._config._c)

    @property
    def config(self):
        """The config the solver was made with (later changes to it do not
        reach the solver)."""
        return self._config

    @property
    def q(self):
        """The q of the last solve (a copy)."""
        return self._s.q()

    def solve(self, q=None, lam0=None, history=True):
        """Solve with q (None: the last q; copied) from lam0 (None: zeros)
        and return a Result; as proxima.solve for Ctrl-C and the GIL."""
        return Result(self._s.solve(q, lam0, bool(history)))


class Param:
    """A declared parameter of a plugin: key, type ("int", "real", "bool",
    "choice", "string"), default (as INI text), help (one line), min and
    max (numbers, or None when unbounded or not a number), choices (the
    words of a choice, else None)."""

    __slots__ = ("key", "type", "default", "help", "min", "max", "choices")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])
        if self.choices is not None:
            self.choices = tuple(self.choices.split("|"))

    def __repr__(self):
        return f"<proxima.Param {self.key} ({self.type}) = {self.default}>"


class Plugin:
    """A plugin file found on the search path: kind ("friction",
    "ordering", "rfactor", "scheduler", "accelerator"), name, summary (one
    line), doc (its documentation, or None), path, params (Param list)."""

    __slots__ = ("kind", "name", "summary", "doc", "path", "params")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])
        self.params = [Param(p) for p in self.params]

    def __repr__(self):
        return f"<proxima.Plugin {self.kind} {self.name}>"


def plugins():
    """Every plugin found on the search path (PROXIMA_PLUGIN_PATH, then
    the installed folder), as Plugin values, in the loader's order; files
    the loader refuses are left out (refused_plugins() lists them)."""
    return [Plugin(d) for d in _core.plugins()[0]]


def refused_plugins():
    """The plugin files the loader refused: (path, reason) pairs."""
    return list(_core.plugins()[1])


# the rigid-body world (world.py) uses Config and Error from above
from .world import STATS_COLUMNS, Contacts, World  # noqa: E402
