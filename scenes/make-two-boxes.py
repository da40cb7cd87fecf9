#!/usr/bin/env python3
"""Write two-boxes.dat: the contact problem of one time step of two unit
cubes (1 kg, side 1) stacked on the ground, the top one sliding at 0.5 m/s
along x. Eight contacts at the corners (4 ground-box, 4 box-box), normal +z,
tangents +x, +y, mu = 0.4, dt = 0.01, g = 9.81. A = J M^-1 J^T and
b = J (v + dt M^-1 f), as in doc/design.md, section 2; written in the Siconos
sparse-block .dat format (doc/design.md, section 8)."""
import sys

dt, g, mu, m, side = 0.01, 9.81, 0.4, 1.0, 1.0
inertia = m * side * side / 6.0            # cube: m (a^2 + a^2) / 12
centers = [(0.0, 0.0, 0.5), (0.0, 0.0, 1.5)]
velocity = [(0.0, 0.0, 0.0, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0, 0.0, 0.0)]
frame = [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]   # n, s, t

def cross(a, b):
    return (a[1]*b[2]-a[2]*b[1], a[2]*b[0]-a[0]*b[2], a[0]*b[1]-a[1]*b[0])

contacts = []   # (body a or None, body b, point)
for z, a, b in ((0.0, None, 0), (1.0, 0, 1)):
    for x in (-0.5, 0.5):
        for y in (-0.5, 0.5):
            contacts.append((a, b, (x, y, z)))

def jac_row(body, point, d, sign):
    r = tuple(point[i] - centers[body][i] for i in range(3))
    return [sign * v for v in (*d, *cross(r, d))]

def jac(k):
    """{body: 3x6 block} of contact k; velocity of b relative to a."""
    a, b, p = contacts[k]
    out = {b: [jac_row(b, p, d, 1.0) for d in frame]}
    if a is not None:
        out[a] = [jac_row(a, p, d, -1.0) for d in frame]
    return out

minv = [1.0/m]*3 + [1.0/inertia]*3
nc = len(contacts)
J = [jac(k) for k in range(nc)]
W = {}
for i in range(nc):
    for j in range(nc):
        blk = [[0.0]*3 for _ in range(3)]
        shared = set(J[i]) & set(J[j])
        for body in shared:
            for r in range(3):
                for c in range(3):
                    blk[r][c] += sum(J[i][body][r][d] * minv[d] * J[j][body][c][d]
                                     for d in range(6))
        if shared:
            W[(i, j)] = blk
q = []
for k in range(nc):
    for r in range(3):
        s = 0.0
        for body, rows in J[k].items():
            vf = list(velocity[body])
            vf[2] -= dt * g
            s += sum(rows[r][d] * vf[d] for d in range(6))
        q.append(s)

out = sys.stdout
blocks = sorted(W)
out.write("3\n%d\n1\n%d %d\n%d\n%d %d\n" % (nc, 3*nc, 3*nc, len(blocks), nc, nc))
out.write(" ".join(str(3*(i+1)) for i in range(nc)) + "\n")
out.write(" ".join(str(3*(i+1)) for i in range(nc)) + "\n")
out.write("%d\n%d\n" % (nc + 1, len(blocks)))
ptr = [sum(1 for (i, _) in blocks if i < r) for r in range(nc + 1)]
out.write(" ".join(map(str, ptr)) + "\n")
out.write(" ".join(str(j) for (_, j) in blocks) + "\n")
for n, (i, j) in enumerate(blocks):
    blk = W[(i, j)]
    out.write("%d\n" % n)
    out.write(" ".join("%.17g" % blk[r][c] for c in range(3) for r in range(3)) + "\n")
out.write(" ".join("%.17g" % v for v in q) + "\n")
out.write(" ".join("%.17g" % mu for _ in range(nc)) + "\n")
