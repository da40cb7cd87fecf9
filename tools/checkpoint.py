#!/usr/bin/env python3
"""Read a proxima checkpoint (doc/checkpoint.md) with numpy.

    python3 tools/checkpoint.py FILE             a summary
    python3 tools/checkpoint.py FILE --bodies    also one line per body

As a module: read(path) returns a dict: 'version', 'sections' (tag ->
bytes), 'step', 'time', the hashes, 'scene' and 'config' (names),
'bodies' (a numpy structured array, one record per body: kind, static,
radius, half, half_length, normal, x, q, v, w, mass, inertia, mu, mu_tau,
restitution), 'cache' (one record per cached contact: a, b, feature, p,
impulse, tau), 'plugins' (a list of (kind, name, bytes)) and 'totals'
(proxima run's TOTS section, or None). Every CRC-32 is checked; a bad file
raises ValueError naming what is wrong.
"""
import sys
import zlib

import numpy as np

MAGIC = b"\x89PXCKPT\n"
VERSION = 1
KINDS = {1: "friction", 2: "ordering", 3: "rfactor", 4: "scheduler",
         5: "accelerator"}

BODY = np.dtype([("kind", "<u4"), ("static", "<u4"), ("radius", "<f8"),
                 ("half", "<f8", 3), ("half_length", "<f8"),
                 ("normal", "<f8", 3), ("x", "<f8", 3), ("q", "<f8", 4),
                 ("v", "<f8", 3), ("w", "<f8", 3), ("mass", "<f8"),
                 ("inertia", "<f8", 3), ("mu", "<f8"), ("mu_tau", "<f8"),
                 ("restitution", "<f8")])
CACHE = np.dtype([("a", "<u4"), ("b", "<u4"), ("feature", "<u4"),
                  ("reserved", "<u4"), ("p", "<f8", 3),
                  ("impulse", "<f8", 3), ("tau", "<f8")])
HEADER = np.dtype([("magic", "S8"), ("version", "<u4"), ("header_size", "<u4"),
                   ("n", "<u4"), ("entry_size", "<u4"), ("flags", "<u4"),
                   ("crc", "<u4")])
ENTRY = np.dtype([("tag", "S4"), ("count", "<u4"), ("record_size", "<u4"),
                  ("crc", "<u4"), ("offset", "<u8"), ("length", "<u8")])


class Cursor:
    """Little-endian values one after the other."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        if self.at + n > len(self.data):
            raise ValueError("a section ends early")
        b = self.data[self.at:self.at + n]
        self.at += n
        return b

    def u32(self):
        return int.from_bytes(self.take(4), "little")

    def u64(self):
        return int.from_bytes(self.take(8), "little")

    def f64(self):
        return float(np.frombuffer(self.take(8), "<f8")[0])

    def text(self):
        return self.take(self.u32()).decode("utf-8", "replace")


def read_sections(path):
    """The format version and the sections (tag -> bytes), checked."""
    data = open(path, "rb").read()
    if data[:8] != MAGIC:
        raise ValueError(f"{path}: not a proxima checkpoint")
    if len(data) < 32:
        raise ValueError(f"{path}: truncated")
    h = np.frombuffer(data, HEADER, 1)[0]
    if h["version"] > VERSION:
        raise ValueError(f"{path}: format version {h['version']}, "
                         f"this reader knows 1 to {VERSION}")
    n = int(h["n"])
    if len(data) < 32 + 32 * n:
        raise ValueError(f"{path}: truncated")
    if zlib.crc32(data[:28] + data[32:32 + 32 * n]) != h["crc"]:
        raise ValueError(f"{path}: the header's CRC-32 does not match")
    sections = {}
    for e in np.frombuffer(data, ENTRY, n, 32):
        off, length = int(e["offset"]), int(e["length"])
        body = data[off:off + length]
        if len(body) != length:
            raise ValueError(f"{path}: truncated")
        if zlib.crc32(body) != e["crc"]:
            raise ValueError(f"{path}: section {e['tag'].decode()}'s "
                             "CRC-32 does not match")
        sections[e["tag"].decode()] = body
    return int(h["version"]), sections


def read(path):
    version, sections = read_sections(path)
    out = {"version": version, "sections": sections}
    m = Cursor(sections["META"])
    out.update(step=m.u64(), time=m.f64(), scene_hash=m.u64(),
               settings_hash=m.u64(), config_hash=m.u64())
    n_bodies, n_cache = m.u64(), m.u64()
    out.update(scene=m.text(), config=m.text())
    out["bodies"] = np.frombuffer(sections["BODY"], BODY, n_bodies)
    out["cache"] = np.frombuffer(sections["CACH"], CACHE, n_cache)
    p = Cursor(sections["PLUG"])
    out["plugins"] = []
    for _ in range(p.u32()):
        kind = KINDS.get(p.u32(), "?")
        name = p.text()
        out["plugins"].append((kind, name, p.take(p.u64())))
    out["totals"] = None
    if "TOTS" in sections:
        t = Cursor(sections["TOTS"])
        keys = ["sweeps", "unconverged", "contacts", "contacts_max"]
        tot = {k: t.u64() for k in keys}
        for k in ["max_depth", "seconds", "solve", "collide",
                  "energy_start"]:
            tot[k] = t.f64()
        tot["static_impulse"] = np.frombuffer(
            t.take(8 * t.u64()), "<f8").reshape(-1, 3)
        out["totals"] = tot
    return out


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    try:
        c = read(argv[1])
    except (OSError, ValueError, KeyError) as e:
        print(f"checkpoint.py: {e}", file=sys.stderr)
        return 2
    b = c["bodies"]
    print(f"format      {c['version']}")
    print(f"step        {c['step']}")
    print(f"time        {c['time']!r} s")
    print(f"scene       {c['scene']} (hash {c['scene_hash']:016x})")
    print(f"config      {c['config']} (hash {c['config_hash']:016x})")
    print(f"bodies      {len(b)}")
    print(f"static      {int(b['static'].sum())}")
    print(f"cache       {len(c['cache'])}")
    for kind, name, state in c["plugins"]:
        print(f"plugin      {kind} {name}: {len(state)} bytes")
    if c["totals"]:
        print(f"sweeps      {c['totals']['sweeps']}")
    if "--bodies" in argv[2:]:
        for i, r in enumerate(b):
            print(i, " ".join(repr(float(x)) for x in r["x"]),
                  " ".join(repr(float(x)) for x in r["v"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
