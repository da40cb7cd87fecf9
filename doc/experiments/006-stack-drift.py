"""Why Gauss-Seidel crawls on a box stack's step: the analysis half of
doc/experiments/006-stack-drift.sh (see there), on a problem that
`proxima compare --at` saved with its warm start.

    006-stack-drift.py LABEL PROBLEM.dat WARM.txt SWEEPS SUMMARY.csv CONTACTS.csv

appends one row to SUMMARY.csv (the header first when the file is new):
the label; contacts; rank of W (eigenvalues above 1e-9 of the largest)
and the dimension of its null space; ||q||, ||P q|| (P the orthogonal
projector on the null space of W) and their ratio; then, for the default
config run from the warm start for SWEEPS and SWEEPS + 10000 sweeps
(abs_tol = rel_tol = 0: it never stops early), the change d of lambda
between the two, ||d||, ||W d|| / (||W|| ||d||) (0 when d is a direction
of the null space), ||lambda|| and the fc3d error after SWEEPS sweeps.
CONTACTS.csv gets, per contact where P q is not negligible (above 1e-3 of
its largest, where that is above 1e-9 ||q||), the normal component of q,
of P q and of d.
"""
import os
import sys

import numpy as np

import proxima


def sweeps(problem, warm, n):
    config = proxima.Config(**{"solver.max_sweeps": n, "solver.abs_tol": 0.0,
                               "solver.rel_tol": 0.0,
                               "solver.stall_sweeps": 0})
    r = proxima.solve(problem, config, lam0=warm, history=False)
    return np.asarray(r.lam, dtype=float).ravel(), r.fc3d_error


def append(path, header, rows):
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write(header + "\n")
        for row in rows:
            f.write(",".join(str(x) for x in row) + "\n")


def main(label, problem_path, warm_path, n, summary, contacts):
    problem = proxima.Problem.read(problem_path)
    warm = np.loadtxt(warm_path)
    W = problem.dense()
    q = np.asarray(problem.q, dtype=float).ravel()
    ev, V = np.linalg.eigh((W + W.T) / 2)
    null = V[:, ev <= 1e-9 * ev.max()]
    qn = null @ (null.T @ q)
    a, fc3d = sweeps(problem, warm, n)
    b, _ = sweeps(problem, warm, n + 10000)
    d = b - a
    norm_w = np.linalg.norm(W, 2)
    wd = np.linalg.norm(W @ d) / (norm_w * np.linalg.norm(d)) \
        if np.linalg.norm(d) > 0 else 0.0
    append(summary,
           "case,contacts,rank,null_dim,q,q_null,q_null_rel,sweeps,"
           "d_per_1e4_sweeps,Wd_rel,lambda,fc3d",
           [[label, problem.n_contacts, W.shape[0] - null.shape[1],
             null.shape[1], "%.4g" % np.linalg.norm(q),
             "%.3g" % np.linalg.norm(qn),
             "%.3g" % (np.linalg.norm(qn) / np.linalg.norm(q)), n,
             "%.4g" % np.linalg.norm(d), "%.2g" % wd,
             "%.4g" % np.linalg.norm(b), "%.3g" % fc3d]])
    q3, qn3, d3 = q.reshape(-1, 3), qn.reshape(-1, 3), d.reshape(-1, 3)
    big = np.abs(qn3[:, 0]).max()
    rows = [[label, k, "%.6g" % q3[k, 0], "%.3g" % qn3[k, 0],
             "%.4g" % d3[k, 0]]
            for k in range(problem.n_contacts)
            if big > 1e-9 * np.linalg.norm(q) and abs(qn3[k, 0]) > 1e-3 * big]
    append(contacts, "case,contact,q_n,Pq_n,d_n", rows)


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__.split("\n\n")[1])
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]),
         sys.argv[5], sys.argv[6])
