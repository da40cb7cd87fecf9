/* The solve driver (DESIGN.md section 4).
 *
 *   ordering.prepare, rfactor.init, scheduler.prepare
 *   loop: part = ordering.next; scheduler.sweep (relax -> friction.project);
 *         delta = ||lambda_{k+1} - lambda_k||_inf;
 *         rfactor.adapt may reject the sweep (lambda and w rolled back, R shrunk);
 *         stop when the merit is small enough, or after max_sweeps sweeps
 *         (rejected ones count).
 *
 * Merits (config.h): fc3d, natural or minmap <= abs_tol; or, for delta,
 * delta <= abs_tol or delta <= rel_tol ||lambda||_inf. With delta, a sweep
 * that visits only one part (staggered orderings) stops the solve only when
 * the latest sweep of the other part met the tolerance too. Whatever the
 * merit, a normal-only sweep never ends a solve: it leaves the friction
 * impulses outside the friction set of the new normal impulses, so the
 * solve goes on to the next sweep that projects them. Back-tracking
 * always compares deltas of the same part; after max_backtracks rejections
 * R stays and sweeps are accepted (a non-finite sweep is still rolled
 * back).
 *
 * Certificate: a small delta (or natural, minmap) does not prove a solution:
 * after back-tracking shrank R, delta is small anywhere. When such a stop
 * test passes, the driver computes the fixed-point residual of the
 * configured friction set with unit r, ||lambda - prox(lambda - v)||_2 /
 * max(||b||, ||lambda||, ||v||), and reports convergence only if it is at
 * most check_tol; otherwise it stops with check_failed set. fc3d is itself
 * such a residual and needs no certificate. */
#ifndef PROXIMA_SOLVER_H
#define PROXIMA_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/config.h>
#include <proxima/error.h>
#include <proxima/problem.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

struct px_sweep_record {
	double residual; /* delta of this sweep */
	double merit;    /* the stop test's merit after it (NAN if rejected) */
	double seconds;  /* since the start of the solve */
	int part;        /* enum px_part visited */
	int accepted;    /* 0: rejected and rolled back */
};

struct px_report {
	uint64_t sweeps;   /* all sweeps run, rejected ones included */
	uint64_t rejected; /* sweeps rolled back by the rfactor plugin */
	double residual;   /* delta of the last accepted sweep */
	double merit;      /* the stop test's merit after it (NAN if none) */
	double check;      /* the certificate when the stop test passed with a
			      merit other than fc3d (NAN otherwise) */
	int check_failed;  /* the stop test passed at least once while the
			      certificate did not */
	int converged;
	double seconds;    /* wall time of the solve */
	size_t work_bytes; /* the driver's and kernel's working memory (lambda,
			      the problem and the plugins' buffers excluded) */
	double prepare_seconds; /* of it, ordering prepare + rfactor init +
				   scheduler prepare (e.g. a coloring) */
	struct px_sweep_record *history; /* one per sweep; free with px_report_free */
	size_t n_history;
};

/* Solve p with cfg's settings and plugins. lambda (n_contacts * bs) holds
 * the warm start on entry and the last accepted iterate on return. Returns
 * PX_OK whether or not it converged (see rep->converged), or an error. */
int px_solve(const struct px_problem *p, const struct px_config *cfg,
	     double *lambda, struct px_report *rep, struct px_error *err);
void px_report_free(struct px_report *rep);

/* One line from cfg's scheduler about its last prepare (e.g. a coloring:
 * colors, sizes, cost, whether it was reused) into buf (len bytes, NUL
 * terminated). Returns 1, or 0 with buf = "" when the scheduler has
 * nothing to say or no describe operation (plugin ABI older than 1.2). */
int px_scheduler_describe(const struct px_config *cfg, char *buf, size_t len);

/* Siconos's fc3d_compute_error (problems README sec. 3.2) on the (n, s, t)
 * rows: ||F(r)||_2 / max(||q||_2, ||r||_2, ||W r + q||_2), with ||F(r)||_2
 * in *abs_out when not NULL. */
double px_merit_fc3d(const struct px_problem *p, const double *lambda,
		     double *abs_out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
