/* The solve driver (doc/design.md, section 4.2).
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
 * such a residual and needs no certificate.
 *
 * Accelerator (optional, [accelerator] in the config, plugin ABI 1.3):
 * after every `every` accepted sweeps that projected the friction rows (the
 * plugin's prepare sets `every`), and only when that sweep did not end the
 * solve, the driver calls its step, which may replace lambda. Its products
 * with A are counted (one product = one sweep equivalent). When it replaced
 * lambda the driver recomputes the body velocities, restarts back-tracking
 * (the next sweep is compared with nothing), and with a merit other than
 * delta evaluates the stop test at the new lambda, which may end the solve.
 * A solve that ends without converging calls the plugin's finish, which may
 * put back the best iterate it saw. Without an accelerator nothing of this
 * runs and every iterate is bit for bit what it was before.
 *
 * A driving accelerator (plugin ABI 1.10, PX_ACCEL_DRIVES: prox) runs the
 * whole solve: no sweep, its step called in a loop, each call followed by
 * the stop test (merit must not be delta), the monitor and the time limit;
 * max_sweeps bounds the calls, a call that leaves lambda as it was stops
 * the solve as stalled, and sweeps stays 0.
 *
 * Other stops (px_report.stop), all between sweeps, lambda then the last
 * accepted iterate (or the accelerator's):
 *   stalled     stall_sweeps accepted sweeps in a row missed the stop test
 *               with delta <= stall_rel ||lambda||_inf (exactly 0 when
 *               stall_rel = 0), and no accelerator call replaced lambda
 *               among them: a fixed point of the sweeps that the merit does
 *               not accept (e.g. a friction set other than the disc with
 *               merit = fc3d), where more sweeps change nothing;
 *   interrupted the config's monitor (px_config_set_monitor) returned
 *               non-zero;
 *   time limit  the solve's wall time reached time_limit, or the
 *               accelerator found no time left between its inner steps
 *               (ABI 1.9, px_accel_host.time_left: a Newton run stops
 *               between two Newton steps). Unlike the other stops, lambda
 *               is then the lowest-merit iterate the solve saw (after an
 *               accepted sweep or an accelerator's call), which may be an
 *               earlier one than the last (px_report.best_sweep says so).
 *               With merit = delta, which measures a change and not an
 *               iterate, it is the last.
 * Each sweep that does not end the solve is followed by the accelerator
 * (when due), then the monitor, then the time limit's test. */
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

/* One call of the accelerator. */
struct px_accel_record {
	uint64_t after_sweep; /* rep->sweeps when it ran */
	uint64_t products;    /* products with A it made (sweep equivalents) */
	uint64_t inner;       /* its inner iterations (e.g. CG) */
	uint32_t substeps;    /* its inner steps (e.g. subspace solves) */
	uint32_t flags;       /* PX_ACCEL_* (plugin.h) */
	int replaced;         /* lambda was replaced */
	int finish;           /* 1: the end-of-solve call (finish) */
	double merit_in, merit_last, merit_out; /* the plugin's merit */
	double merit;         /* the stop test's merit after it (NAN when
				 lambda was not replaced or merit = delta) */
	double seconds;       /* its wall time */
};

enum px_divergence {
	PX_DIVERGED_NONE = 0,
	PX_DIVERGED_NONFINITE = 1, /* the sweep's iterate was not finite and
				      the rfactor plugin kept R */
	PX_DIVERGED_R = 2,         /* the rfactor plugin shrank an r-factor
				      to 0 (underflow) or made it non-finite */
};

/* Why a solve stopped (px_report.stop; a zeroed report reads "not
 * converged"). */
enum px_stop {
	PX_STOP_MAX_SWEEPS = 0,  /* max_sweeps ran out: "not converged" */
	PX_STOP_CONVERGED = 1,   /* the stop test passed (and its certificate) */
	PX_STOP_DIVERGED = 2,    /* could not go on, see px_report.diverged */
	PX_STOP_STALLED = 3,     /* the iterate stopped changing while the
				    merit missed the tolerance (stall_sweeps,
				    stall_rel) */
	PX_STOP_TIME_LIMIT = 4,  /* [solver] time_limit ran out (between
				    sweeps, or inside the accelerator) */
	PX_STOP_INTERRUPTED = 5, /* the config's monitor asked to stop */
};

/* "not converged", "converged", "diverged", "stalled", "time limit",
 * "interrupted"; NULL for a value not in enum px_stop. */
const char *px_stop_name(int stop);

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
	double sweep_seconds;   /* of it, inside the scheduler's sweeps (the
				   rest: set-up, stop tests, roll-backs) */
	int rigid_kernel;  /* full sweeps ran the kernel of rigid 3-row
			      contacts ([solver] kernel = auto): 1, or 2 in
			      SIMD lanes ([solver] kernel = wide); 0: the
			      general kernel */
	struct px_sweep_record *history; /* one per sweep; free with px_report_free */
	size_t n_history;
	/* The accelerator's calls (all zero without one). */
	uint64_t accel_steps;    /* calls of step */
	uint64_t accel_replaced; /* of them, calls that replaced lambda */
	uint64_t accel_products; /* products with A in step and finish: the
				    accelerator's work in sweep equivalents */
	uint64_t accel_substeps; /* inner steps (subspace solves) */
	uint64_t accel_inner;    /* inner iterations (CG) */
	uint64_t accel_not_spd;  /* calls that met a non-SPD reduced system */
	uint64_t accel_fallbacks; /* calls that returned an earlier iterate */
	int accel_restored;      /* finish put back an earlier iterate */
	double accel_seconds;    /* wall time in step and finish */
	struct px_accel_record *accel; /* one per call, free with px_report_free */
	size_t n_accel;
	/* A solve that could not go on (then converged is 0): why (enum
	 * px_divergence) and the sweep that ended it; lambda holds the last
	 * finite iterate (the sweep was rolled back). */
	int diverged;
	uint64_t diverged_sweep;
	int stop; /* enum px_stop: why the solve ended */
	/* A time limit's stop put back the lowest-merit iterate, the one
	 * after this sweep (or the accelerator's call that followed it):
	 * merit is its merit, residual still the last sweep's delta. 0:
	 * lambda is the last iterate. */
	uint64_t best_sweep;
};

/* A monitor of the solves run with a config: called after every sweep
 * that did not end the solve (and after the accelerator's call that
 * followed it) with the report so far (sweeps, rejected, residual, merit,
 * history, the accelerator's figures; seconds since the solve started).
 * A non-zero return stops the solve there with PX_STOP_INTERRUPTED. It
 * runs on the thread that called the solve, between sweeps: it may read
 * a flag set by a signal handler, draw progress or call an interpreter,
 * but must not free or change the report, the problem or the config. */
typedef int (*px_monitor_fn)(const struct px_report *so_far, void *user);

/* Set (fn NULL: remove) the monitor of every solve that cfg runs from
 * now on, px_solve's and its solvers' (it is read when each solve
 * starts); user is passed to it. Without one a solve pays nothing for
 * it. */
void px_config_set_monitor(struct px_config *cfg, px_monitor_fn fn,
			   void *user);
/* The monitor of cfg (NULL if none), its user pointer into *user when
 * user is not NULL. */
px_monitor_fn px_config_monitor(const struct px_config *cfg, void **user);

/* Solve p with cfg's settings and plugins. lambda (n_contacts * bs) holds
 * the warm start on entry and the last accepted iterate on return. Returns
 * PX_OK whether or not it converged (see rep->converged), or an error.
 * The same as px_solver_create, px_solver_solve and px_solver_destroy, bit
 * for bit. */
int px_solve(const struct px_problem *p, const struct px_config *cfg,
	     double *lambda, struct px_report *rep, struct px_error *err);
void px_report_free(struct px_report *rep);

/* A solver kept across solves of one problem whose b changes between them
 * (the substeps of a world step, the rounds of a distributed solve): what
 * depends only on A and the plugins is done once, at create: the problem's
 * validation and diagonal check, the working memory, the diagonal blocks,
 * the kernel (incidence lists, the rigid kernel's coefficients),
 * rfactor.init (its r is where every solve's r-factors start) and
 * scheduler.prepare (e.g. a coloring). Each px_solver_solve then does only
 * what depends on b and the warm start: the body velocities from lambda,
 * ordering.prepare and the accelerator's prepare, then the sweeps, exactly
 * as px_solve would on the problem as it is then.
 *
 * Between solves the caller may change b (px_problem_b) and nothing else
 * of p: not A, its form or sizes, nor the friction parameters; and of
 * cfg's settings only the stop test's (max_sweeps, the tolerances, merit,
 * max_backtracks, time_limit, stall_sweeps, stall_rel), which each solve
 * reads anew, as it does the monitor. p and cfg must outlive the
 * solver. Solvers may share a config: one whose scheduler
 * another solver prepared since prepares it again (its cost then, not
 * every solve's). A solve that fails leaves the solver usable. */
struct px_solver;
int px_solver_create(const struct px_problem *p, const struct px_config *cfg,
		     struct px_solver **out, struct px_error *err);
int px_solver_solve(struct px_solver *s, double *lambda,
		    struct px_report *rep, struct px_error *err);
void px_solver_destroy(struct px_solver *s);

/* A solve whose lambda is where the last successful solve left it, and
 * unchanged since, starts from the body velocities that solve ended with
 * rather than recomputing them (as a substep after a substep does): the
 * same up to rounding. px_solver_solve finds that out by comparing lambda
 * with a copy it keeps of the last solve's end (a pass over lambda before
 * and after every solve); px_solver_resume takes the caller's word for it
 * when lambda is the array the last successful solve of s (either entry)
 * ended in, keeps no copy, and is otherwise px_solver_solve: for a caller
 * that solves again and again from where it stopped (the rounds of a
 * distributed solve), lambda untouched between the solves. */
int px_solver_resume(struct px_solver *s, double *lambda,
		     struct px_report *rep, struct px_error *err);

/* The body velocities M^-1 J^T lambda (6 per body: linear, then angular)
 * at the end of the last solve, for factorized and rigid problems; NULL
 * for an assembled problem. Valid until the next solve or destroy. */
const double *px_solver_body_velocities(const struct px_solver *s);

/* One line from cfg's scheduler about its last prepare (e.g. a coloring:
 * colors, sizes, cost, whether it was reused) into buf (len bytes, NUL
 * terminated). Returns 1, or 0 with buf = "" when the scheduler has
 * nothing to say or no describe operation (plugin ABI older than 1.2). */
int px_scheduler_describe(const struct px_config *cfg, char *buf, size_t len);

/* One line from cfg's accelerator about its last solve into buf (len
 * bytes, NUL terminated). Returns 1, or 0 with buf = "" when there is no
 * accelerator or it has nothing to say. */
int px_accelerator_describe(const struct px_config *cfg, char *buf, size_t len);

/* Siconos's fc3d_compute_error (doc/references.md, Siconos) on the (n, s, t)
 * rows: ||F(r)||_2 / max(||q||_2, ||r||_2, ||W r + q||_2), with ||F(r)||_2
 * in *abs_out when not NULL. */
double px_merit_fc3d(const struct px_problem *p, const double *lambda,
		     double *abs_out);

/* Whether cfg's friction set is the law the fc3d error measures: the
 * isotropic Coulomb cone, whose friction impulse lies in the disc of
 * radius mu lambda_n (the friction plugin sets PX_FRICTION_IS_DISC, as
 * `disc` does). For another set (box, ellipsoid, a plugin's) the fc3d
 * error says how far lambda is from a Coulomb solution, not from one of
 * that set: a solution of the set may keep an fc3d error above any
 * abs_tol (the solve then ends stalled), and the command says so. */
int px_config_friction_is_disc(const struct px_config *cfg);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
