#!/usr/bin/env python3
"""Read a distributed run's checkpoint set (doc/checkpoint.md, "On MPI
ranks") with numpy: its manifest, and whether each rank file it names is
there, whole and of the set.

    python3 tools/checkpoint_set.py FILE      FILE: the manifest

Prints the set's ranks, step, slot and id, then per rank its file, size,
CRC-32, step, bodies (own of them) and cached contacts; exit status 0
when the set is complete (every file as the manifest names it), 1 when
it is not, 2 when FILE is not a manifest. As a module: read(path)
returns a dict: 'ranks', 'slot', 'step', 'set_id' and 'files' (a list
of (path, size, crc)).
"""
import os
import sys
import zlib

import numpy as np

import checkpoint

FILE = np.dtype([("size", "<u8"), ("crc", "<u4"), ("zero", "<u4")])


def read(path):
    _, s = checkpoint.read_sections(path)
    if "DSET" not in s or "DFIL" not in s:
        raise ValueError(f"{path}: not a checkpoint set's manifest "
                         "(no DSET or DFIL section)")
    d = checkpoint.Cursor(s["DSET"])
    ranks, slot, step, set_id = d.u32(), chr(d.u32()), d.u64(), d.u64()
    files = np.frombuffer(s["DFIL"], FILE, ranks)
    return {"ranks": ranks, "slot": slot, "step": step, "set_id": set_id,
            "files": [(f"{path}.{slot}.rank{r}", int(f["size"]),
                       int(f["crc"])) for r, f in enumerate(files)]}


def check(name, size, crc, m):
    """What is wrong with rank file name of manifest m, or its line."""
    if not os.path.exists(name):
        return f"{name}: missing"
    data = open(name, "rb").read()
    if len(data) != size or zlib.crc32(data) != crc:
        return (f"{name}: {len(data)} bytes, CRC-32 {zlib.crc32(data):08x};"
                f" the manifest names {size} bytes, {crc:08x}")
    c = checkpoint.read(name)
    r = checkpoint.Cursor(c["sections"]["DRNK"])
    rank, _, step, set_id, n = r.u32(), r.u32(), r.u64(), r.u64(), r.u64()
    owners = np.frombuffer(r.take(12 * n), [("gid", "<u8"), ("owner", "<u4")])
    if step != m["step"] or set_id != m["set_id"]:
        return f"{name}: of another set"
    return (f"rank {rank}: {name}, {size} bytes, CRC-32 {crc:08x}, step "
            f"{step}, {n} bodies ({int((owners['owner'] == rank).sum())} "
            f"own), {len(c['cache'])} cached contacts")


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    try:
        m = read(argv[1])
    except (OSError, ValueError, KeyError) as e:
        print(f"checkpoint_set.py: {e}", file=sys.stderr)
        return 2
    print(f"set         {m['ranks']} ranks, step {m['step']}, slot "
          f"{m['slot']}, id {m['set_id']:016x}")
    whole = True
    for name, size, crc in m["files"]:
        try:
            line = check(name, size, crc, m)
        except (OSError, ValueError, KeyError) as e:
            line = f"{name}: {e}"
        whole = whole and line.startswith("rank ")
        print(line)
    print("complete" if whole else "NOT complete")
    return 0 if whole else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
