/* proxima plugin ABI: the only header a plugin includes.
 *
 * A plugin is a shared object named <kind>_<name>.so that exports exactly one
 * symbol, px_plugin_query, returning a pointer to a static const ops struct
 * whose first member is struct px_plugin_header. Plugins never link
 * libproxima: everything they need is in this header or reaches them through
 * the host structs below (function pointers into the core).
 *
 * The fixed point every plugin serves (Erleben 2017, eq. 20-24, doc/design.md
 * section 2):
 *
 *     lambda_n = max(0, lambda_n - r_n v_n)
 *     lambda_f = prox_F(mu, lambda_n)(lambda_f - R_f v_f),   v = A lambda + b
 *
 * friction  decides the set F (project),
 * ordering  decides which contacts, in which order and which part a sweep visits,
 * rfactor   decides R and how it shrinks when a sweep is rejected,
 * scheduler decides how a sweep runs on the cores,
 * accelerator (optional, ABI 1.3) may replace the iterate between sweeps,
 *           e.g. by a subspace minimization (Silcowitz et al. 2010), or
 *           (ABI 1.10, PX_ACCEL_DRIVES) run the whole solve itself.
 *
 * ABI changelog (bump MINOR when appending fields to the end of a struct or
 * adding a kind; bump MAJOR for any other change, and reset MINOR):
 *   1.0  first version: kinds friction, ordering, rfactor, scheduler.
 *   1.1  friction ops gain project_metric (optional): the projection in the
 *        metric of a block R, which rfactors of shape PX_R_BLOCK need.
 *        Hosts read it only from plugins whose ops_size covers it.
 *   1.2  struct px_kernel (host to plugin) gains commit, private_size,
 *        private_load and relax_private, which every 1.2 host fills: the
 *        halves of relax for relaxed colors, and relax against a private
 *        copy of the shared state for race-free naive parallel sweeps.
 *        Scheduler ops gain describe (optional): one line about the last
 *        prepare. Hosts read it only from plugins whose ops_size covers it.
 *   1.3  a fifth kind, accelerator (struct px_accelerator_ops, with the
 *        host struct px_accel_host and struct px_accel_result): the driver
 *        calls it every few accepted sweeps and it may replace the
 *        iterate. Optional in a config ([accelerator], default none: no
 *        accelerator, and the solve is exactly that of a 1.2 host). The
 *        loader refuses an accelerator declaring a minor below 3; plugins
 *        of the other four kinds built against 1.0-1.2 load as before.
 *   1.4  every per-kind ops struct (friction, ordering, rfactor, scheduler,
 *        accelerator) gains doc (optional, may be NULL) as its last
 *        member: the plugin's documentation, plain text in paragraphs
 *        separated by blank lines, wrapped by its author at about 72
 *        columns, printed as written by `proxima plugins --describe`.
 *        Hosts read it only from plugins of minor >= 4 whose ops_size
 *        covers it (px_plugin_doc); plugins built against 1.0-1.3 load as
 *        before and are described without documentation.
 *        struct px_kernel (host to plugin) gains relax_lists, which every
 *        1.4 host fills: up to PX_MAX_LISTS independent lists of contacts
 *        relaxed in one call, interleaved.
 *   1.5  friction flag PX_FRICTION_KEEPS_DISC: project leaves a 3-row
 *        contact's (s, t) alone inside the disc of radius mu lambda_n, so
 *        the host may skip the call for points px_disc_surely_inside
 *        finds there. No struct changes: 1.4 hosts ignore the flag, and
 *        plugins built against 1.0-1.4 load as before.
 *   1.6  friction flag PX_FRICTION_IS_DISC: for nf = 2, project is
 *        px_disc_project (below), so the host may compute it inline.
 *        struct px_kernel (host to plugin) gains body_a and body_b, which
 *        every 1.6 host fills: the bodies of each contact, on which the
 *        conflict graph of a factorized or rigid problem depends.
 *        Scheduler ops gain parallel_for (optional), on which the host
 *        runs its set-up of a solve. Hosts read it only from plugins of
 *        minor >= 6 whose ops_size covers it. Plugins built against
 *        1.0-1.5 load as before.
 *   1.7  struct px_accel_host (host to plugin) gains a_rowptr, a_cols and
 *        a_blocks, which every 1.7 host fills: an assembled problem's A
 *        in block CSR (NULL for factorized and rigid problems), from
 *        which an accelerator may build a sparse Jacobian (ssn, issue
 *        20). Accelerators that need them declare minor 7; plugins built
 *        against 1.0-1.6 load as before. The helper px_backtrack_growth:
 *        back-tracking that rejects only a growth by more than a factor.
 *   1.8  every per-kind ops struct gains persist (optional, may be NULL)
 *        as its last member: struct px_persist_ops, the save and load of
 *        a plugin's state that carries across solves as bytes, so that a
 *        checkpoint restarts a run bit for bit (issue 35; the random
 *        ordering's generator). Hosts read it only from plugins of minor
 *        >= 8 whose ops_size covers it (px_plugin_persist); plugins built
 *        against 1.0-1.7 load as before and are taken to keep no state
 *        across solves.
 *   1.9  struct px_accel_host (host to plugin) gains time_left and
 *        time_ctx, which every 1.9 host fills: the seconds left before the
 *        solve's time limit ([solver] time_limit; HUGE_VAL without one),
 *        asked by an accelerator between the inner steps of a long step
 *        (Newton steps, subspace solves); one that finds none left stops,
 *        leaves its best iterate and sets the result flag
 *        PX_ACCEL_TIME_LIMIT, on which the driver ends the solve as a
 *        time limit. Plugins built against 1.0-1.8 load as before (their
 *        steps run to their end).
 *  1.10 accelerator ops gain flags (read only from plugins of minor >= 10
 *        whose ops_size covers it) and the flag PX_ACCEL_DRIVES: such an
 *        accelerator drives the whole solve. The host runs no sweep: after
 *        prepare it runs the stop test of [solver] merit (which must not
 *        be delta) at the warm start, then calls step again and again,
 *        each call one step of the plugin's own method (a Newton step,
 *        say), and after each the stop test, the monitor and the time
 *        limit; max_sweeps bounds the calls, and a call that leaves
 *        lambda as it was ends the solve as stalled.
 *        A redesign of the accelerator kind rather than a sixth kind: a
 *        solver that drives needs exactly an accelerator's host (A's
 *        blocks, the counted product, the friction set), records and
 *        describe, and the driver's stop tests, monitor and time limit;
 *        a new kind would repeat all of it in the loader, the config
 *        and the driver. A driving accelerator's step may leave an
 *        iterate worse by its merit than the one it was given (a
 *        proximal or Newton method is not monotone in the stop test's
 *        merit). Plugins built against 1.0-1.9 load and run as before.
 *  1.11 struct px_accel_host (host to plugin) gains merit and tol, which
 *        every 1.11 host fills before each call of step: the value the
 *        driver's stop test found for the iterate in lambda and the value
 *        at or below which it ends the solve, so that an accelerator may
 *        aim at the solve's own tolerance (auto measures the sweeps'
 *        progress by it). Plugins built against 1.0-1.10 do not read them.
 *  1.12 The result flag PX_ACCEL_AGAIN: step asks to be called again
 *        before the next sweep. The host runs the stop test, the monitor
 *        and the time limit after the call, then step again, until a
 *        call that does not set the flag (or max_sweeps calls in all);
 *        then the sweeps go on. So a plugin that has moved to a method of
 *        its own (auto's Newton phase) no longer pays a sweep per call
 *        whose result it drops. Hosts before 1.12 ignore the flag (one
 *        sweep between calls, as before); plugins built against 1.0-1.11
 *        never set it.
 *
 * When the host calls what (no change of ABI): a host may keep a solver
 * across solves of one problem whose b changes between them (px_solver,
 * solver.h). rfactor.init runs once, when the solver is made, and every
 * solve starts from the r it returned; scheduler.prepare runs then too,
 * and again only when another solver prepared the same plugin since. So
 * both must depend on A (its diagonal blocks, products with A, its graph)
 * alone, never on b or the iterate, as every plugin here does.
 * ordering.prepare and accelerator.prepare run at the start of every
 * solve, as before. rfactor.adapt may change r only when it rejects a
 * sweep, as every plugin here does: a solve after a solve without a
 * rejection starts from r as it stands, which is then init's.
 *
 * In-process plugins (no change of ABI): a host program may give the core
 * an ops struct it holds in memory instead of a file (px_plugin_wrap and
 * px_config_set_plugin, loader.h and config.h). The core checks its header
 * as a file's and calls it exactly as a loaded plugin; the Python module
 * wraps orderings and r-factor strategies written in Python so.
 */
#ifndef PROXIMA_PLUGIN_H
#define PROXIMA_PLUGIN_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PX_ABI_MAJOR 1u
#define PX_ABI_MINOR 12u

/* The one symbol a plugin exports. */
#define PX_PLUGIN_QUERY_SYMBOL "px_plugin_query"

#if defined(__GNUC__)
#define PX_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define PX_PLUGIN_EXPORT
#endif

/* The most lists px_kernel.relax_lists takes in one call (ABI 1.4). */
#define PX_MAX_LISTS 4u

/* Body index of the static world (a contact with one dynamic body). */
#define PX_STATIC UINT32_MAX

enum px_kind {
	PX_KIND_FRICTION = 1,
	PX_KIND_ORDERING = 2,
	PX_KIND_RFACTOR = 3,
	PX_KIND_SCHEDULER = 4,
	PX_KIND_ACCELERATOR = 5, /* ABI 1.3 */
};

/* ---- declared parameters --------------------------------------------- */

enum px_param_type {
	PX_PARAM_INT = 1,    /* long, within [min, max] */
	PX_PARAM_REAL = 2,   /* finite double, within [min, max] */
	PX_PARAM_BOOL = 3,   /* true/false, yes/no, on/off, 1/0 */
	PX_PARAM_CHOICE = 4, /* one word of `choices` ("a|b|c"); value is its index */
	PX_PARAM_STRING = 5, /* any non-empty text */
};

struct px_param_decl {
	const char *key;
	enum px_param_type type;
	const char *def;     /* default, as it would be written in the INI file */
	const char *help;    /* one line */
	double min, max;     /* INT and REAL: inclusive range (min > max: unbounded) */
	const char *choices; /* CHOICE: "word|word|..." */
};

/* One parsed value per declared parameter, in declaration order. */
union px_value {
	long i;
	double r;
	int b;
	int choice;
	const char *s; /* owned by the host, valid until destroy */
};

/* ---- the common header --------------------------------------------- */

struct px_plugin_header {
	uint32_t abi_major;
	uint32_t abi_minor;
	uint32_t kind;     /* enum px_kind */
	uint32_t ops_size; /* sizeof the whole per-kind ops struct */
	const char *name;  /* must equal <name> in the file name <kind>_<name>.so */
	const char *summary; /* one line; the documentation is the per-kind
				ops' doc (ABI 1.4) */
	const struct px_param_decl *params;
	uint32_t n_params;
	/* Build the plugin's state from its parameters. Returns 0, or non-zero with
	 * a message in err. May be NULL (state is then NULL). */
	int (*create)(const union px_value *values, void **state, char *err,
		      size_t errlen);
	void (*destroy)(void *state); /* may be NULL */
};

typedef const struct px_plugin_header *(*px_plugin_query_fn)(void);

/* ---- what plugins see of a problem ----------------------------------- */

/* Parts of a contact a sweep may visit. Staggered orderings visit only the
 * normal or only the friction rows (Poulsen et al. 2010, eq. 19-21). */
enum px_part {
	PX_PART_FULL = 0,
	PX_PART_NORMAL = 1,
	PX_PART_FRICTION = 2,
};

struct px_friction_params {
	double mu;     /* isotropic Coulomb coefficient */
	double mu_s;   /* ellipsoid semi-axis factors (Erleben 2017,     */
	double mu_t;   /* sec. 4.1); files that carry one mu get mu_s =  */
	double mu_tau; /* mu_t = mu and mu_tau = 0                       */
};

/* A read-only view of the problem, valid from prepare/init to the end of the
 * solve. Arrays are indexed by contact k; per-contact blocks hold bs values
 * (bs = 3: n, s, t; bs = 4: n, s, t, tau). A problem with bodies may carry
 * a normal shift (soft contact, px_problem_set_normal_shift): then "A"
 * here, in diag and in apply, is A + Gamma, Gamma diagonal on the normal
 * rows, and not J M^-1 J^T of body_a, body_b alone. */
struct px_problem_info {
	size_t n_contacts;
	uint32_t bs;
	size_t n_bodies;                 /* 0 for an assembled problem */
	const double *b;                 /* free velocity, n_contacts * bs */
	const double *lambda;            /* current iterate (warm start at init) */
	const double *diag;              /* diagonal blocks of A, bs*bs row-major each */
	const struct px_friction_params *friction;
	const uint32_t *body_a;          /* NULL for assembled problems */
	const uint32_t *body_b;          /* PX_STATIC for the static world */
	const double *position;          /* 3 per contact, or NULL if unknown */
	const double *frame;             /* 3x3 per contact (rows n, s, t), or NULL */
	/* y = A x + (add_b ? b : 0), for whole vectors of n_contacts * bs.
	 * Allowed at init/prepare time (e.g. power iteration) and in an
	 * ordering's next between sweeps (ipp's re-sort); never per contact. */
	void (*apply)(const void *ctx, const double *x, double *y, int add_b);
	const void *ctx;
};

/* ---- persisted state (ABI 1.8) -------------------------------------- */

/* A plugin whose state carries from one solve to the next (a generator
 * that runs on, a history) saves it as bytes into a checkpoint and loads
 * it back into a state made from the same parameters: the solves after
 * the load are then bit for bit those after the save. The layout of the
 * bytes is the plugin's; write numbers little-endian (px_persist_put64,
 * px_persist_get64) so that a checkpoint moves between machines. State
 * that a solve rebuilds (work arrays, a coloring of A) is not saved. */
struct px_persist_ops {
	/* How many bytes save writes for state. */
	size_t (*size)(const void *state);
	/* Write size(state) bytes into buf. */
	void (*save)(const void *state, unsigned char *buf);
	/* Set state from len bytes save wrote; 0, or non-zero with a message
	 * in err when they are not such bytes (a wrong length, a value out of
	 * range): state is then unchanged. */
	int (*load)(void *state, const unsigned char *buf, size_t len,
		    char *err, size_t errlen);
};

static inline void px_persist_put64(unsigned char *buf, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		buf[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t px_persist_get64(const unsigned char *buf)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)buf[i] << (8 * i);
	return v;
}

/* ---- friction ------------------------------------------------------- */

enum {
	/* The set is a product of intervals: each friction row may have its own
	 * r. Without this flag the friction rows of a contact share one r. */
	PX_FRICTION_SEPARABLE = 1u << 0,
	/* ABI 1.5. For nf = 2, project leaves z unchanged whenever
	 * z_s^2 + z_t^2 < (fp->mu lambda_n)^2: the set contains that disc.
	 * The host may then skip the call for the points
	 * px_disc_surely_inside finds inside, and does on the rigid 3-row
	 * kernel's hot path; the results are the same bit for bit. */
	PX_FRICTION_KEEPS_DISC = 1u << 1,
	/* ABI 1.6. For nf = 2, project computes px_disc_project(z, fp->mu
	 * lambda_n) and nothing else: the host may compute that itself, and
	 * does on the rigid 3-row kernel's hot path (no call per contact);
	 * the results are the same bit for bit. */
	PX_FRICTION_IS_DISC = 1u << 2,
};

/* Whether (s, t) lies inside the disc of radius rad by more than the
 * rounding of any correctly rounded test of |(s, t)| <= rad (hypot's, say):
 * a test without a square root, so it is conservative near the rim and
 * when rad^2 is subnormal, infinite or NaN (it answers 0 there). */
static inline int px_disc_surely_inside(double s, double t, double rad)
{
	const double rr = rad * rad;

	/* decimal constants, not hex floats: C++ before 17 includes this */
	return rr >= DBL_MIN && rr <= DBL_MAX &&
	       s * s + t * t < rr * (1.0 - 16.0 * DBL_EPSILON);
}

/* (z[0], z[1]) projected onto the disc of radius rad >= 0: kept when
 * inside, scaled onto the rim otherwise (z / |z| rad, |z| by hypot). At
 * rad = 0 that is z rad for finite z other than (0, 0), which needs no
 * hypot: the radius of every contact without a normal impulse. */
static inline void px_disc_project(double *z, double rad)
{
	double len;

	if (px_disc_surely_inside(z[0], z[1], rad))
		return;
	if (rad == 0.0 && isfinite(z[0]) && isfinite(z[1])) {
		if (z[0] != 0.0 || z[1] != 0.0) {
			z[0] *= rad;
			z[1] *= rad;
		}
		return;
	}
	len = hypot(z[0], z[1]);
	if (len > rad && len > 0.0) {
		/* z / len first: rad / len can be subnormal (a tiny rad, a
		 * huge z) and lose the rim */
		z[0] = z[0] / len * rad;
		z[1] = z[1] / len * rad;
	}
}

struct px_friction_ops {
	struct px_plugin_header h;
	uint32_t flags;
	/* Project z (nf = bs - 1 friction components: s, t[, tau]) onto the
	 * friction set of a contact with normal impulse lambda_n >= 0, in place.
	 * Hot path: never allocates, logs or fails. */
	void (*project)(const void *state, const struct px_friction_params *fp,
			double lambda_n, double *z, uint32_t nf);
	/* ABI 1.1, may be NULL. The projection of z onto the same set in the
	 * metric of g (nf x nf, symmetric positive definite, row-major):
	 *     z <- argmin_{x in F(mu, lambda_n)} (x - z)^T g (x - z).
	 * With R_f = g^-1 the fixed point lambda_f = proj_g(lambda_f - R_f v_f)
	 * is the Coulomb law -v_f in N_F(lambda_f) for any such g, which a
	 * Euclidean projection of lambda_f - R_f v_f is not unless R_f is a
	 * multiple of I. Same hot-path rules as project. */
	void (*project_metric)(const void *state,
			       const struct px_friction_params *fp,
			       double lambda_n, const double *g, double *z,
			       uint32_t nf);
	/* ABI 1.4, may be NULL: the documentation (see the changelog). */
	const char *doc;
	/* ABI 1.8, may be NULL: the state kept across solves (see
	 * struct px_persist_ops). */
	const struct px_persist_ops *persist;
};

/* ---- ordering ------------------------------------------------------- */

struct px_sweep_state {
	uint64_t sweep;        /* index of the sweep about to run (0-based) */
	double delta_normal;   /* ||change|| of the normal rows in the last accepted
				  sweep that visited them (HUGE_VAL if none yet) */
	double delta_friction; /* same for the friction rows */
};

struct px_ordering_ops {
	struct px_plugin_header h;
	/* Once per solve: fill perm with a permutation of the contacts. */
	int (*prepare)(void *state, const struct px_problem_info *p,
		       uint32_t *perm, char *err, size_t errlen);
	/* Before every sweep: may rewrite perm (set *changed), returns the part
	 * to visit (enum px_part). After a rejected sweep it is called again
	 * with the same s->sweep. Hot path: no allocation, logging or failure. */
	int (*next)(void *state, const struct px_sweep_state *s, uint32_t *perm,
		    int *changed);
	/* ABI 1.4, may be NULL: the documentation (see the changelog). */
	const char *doc;
	/* ABI 1.8, may be NULL: the state kept across solves (see
	 * struct px_persist_ops). */
	const struct px_persist_ops *persist;
};

/* ---- rfactor -------------------------------------------------------- */

enum px_r_shape {
	PX_R_DIAGONAL = 1, /* bs values per contact: r_n, r_s, r_t[, r_tau] */
	PX_R_BLOCK = 2,    /* bs*bs values per contact, row-major block */
};

enum px_verdict {
	PX_SWEEP_ACCEPT = 0,
	PX_SWEEP_REJECT = 1, /* the host restores lambda; R has been shrunk */
};

struct px_rfactor_ops {
	struct px_plugin_header h;
	uint32_t shape; /* enum px_r_shape */
	/* Fill r (shape-sized per contact). `separable` tells whether the
	 * friction set allows a different r per friction row. Once per
	 * solver, from A alone (p->lambda is NULL; b may change later). */
	int (*init)(void *state, const struct px_problem_info *p, int separable,
		    double *r, char *err, size_t errlen);
	/* After a sweep: compare its residual with the last accepted one (HUGE_VAL
	 * before the first) and decide. On reject, shrink r in place; on
	 * accept, leave r as it is (a kept solver starts a solve from the r
	 * the last one ended with unless it rejected a sweep). */
	int (*adapt)(void *state, double residual_prev, double residual_new,
		     double *r, size_t n_r);
	/* ABI 1.4, may be NULL: the documentation (see the changelog). */
	const char *doc;
	/* ABI 1.8, may be NULL: the state kept across solves (see
	 * struct px_persist_ops). */
	const struct px_persist_ops *persist;
};

/* ---- scheduler ------------------------------------------------------ */

/* The core's kernel, handed to schedulers. All functions are safe to call
 * concurrently for contacts that share no dynamic body (factorized) or have
 * no non-zero coupling block (assembled), and never allocate. */
struct px_kernel {
	void *ctx;
	size_t n_contacts;
	size_t n_bodies; /* 0 for assembled problems */
	uint32_t bs;
	/* Gauss-Seidel: update contact k (the rows of `part`) in place,
	 * including the body velocities it touches. */
	void (*relax)(void *ctx, uint32_t k, int part);
	/* Jacobi: the new lambda of contact k from the current iterate, into
	 * out[bs]; nothing in the core changes. */
	void (*compute)(void *ctx, uint32_t k, int part, double *out);
	/* Jacobi: lambda_k <- in[bs] without touching body velocities. */
	void (*store)(void *ctx, uint32_t k, const double *in);
	/* Jacobi: recompute the velocities of bodies [begin, end) from the
	 * current lambda (gather per body). No-op for assembled problems. */
	void (*refresh)(void *ctx, size_t begin, size_t end);
	/* The contact conflict graph (CSR, no self loops): contacts sharing a
	 * dynamic body, or with a non-zero block of A between them. Built on the
	 * first call; call at prepare time only. Returns 0 or non-zero (ENOMEM). */
	int (*conflicts)(void *ctx, const uint32_t **ptr, const uint32_t **adj);
	/* ABI 1.2. The second half of relax: lambda_k <- out (the rows of
	 * `part`, out from compute) and the change added to the velocities of
	 * its bodies. relax(k, part) is exactly compute(k, part, out) then
	 * commit(k, part, out), bit for bit. */
	void (*commit)(void *ctx, uint32_t k, int part, const double *out);
	/* ABI 1.2. Gauss-Seidel against a private copy of the shared state, so
	 * that contacts sharing a body may be relaxed concurrently without a
	 * race (Poulsen 2010, sec. 7.1). A copy holds private_size doubles: the
	 * body velocities (factorized, 6 * n_bodies) or lambda (assembled,
	 * n_contacts * bs). private_load fills a copy from the shared state.
	 * relax_private(k) reads the other contacts through priv, writes
	 * lambda_k (rows of `part`) to the shared lambda and updates priv as
	 * relax updates the shared state; a factorized problem's shared body
	 * velocities are not touched: refresh them after the sweep. Safe
	 * concurrently for distinct contacts with distinct copies. */
	size_t private_size;
	void (*private_load)(void *ctx, double *priv);
	void (*relax_private)(void *ctx, uint32_t k, int part, double *priv);
	/* ABI 1.4. Relax m <= PX_MAX_LISTS lists of contacts, list j being
	 * lists[j][0 .. counts[j]) in order, in one call. The lists must be
	 * independent: no contact of one shares a dynamic body (a non-zero
	 * block of A) with a contact of another. The result is bit for bit
	 * that of relax on every contact of lists[0], then of lists[1], and
	 * so on; the kernel interleaves the lists, so that the chains of
	 * updates through shared bodies inside each list overlap on the core
	 * instead of waiting for each other. Same concurrency rule as relax:
	 * several threads may call it on lists independent of each other's. */
	void (*relax_lists)(void *ctx, const uint32_t *const *lists,
			    const size_t *counts, unsigned m, int part);
	/* ABI 1.6. The two bodies of every contact (n_contacts each,
	 * PX_STATIC for the static world), or NULL for an assembled problem.
	 * Where they are given, conflicts is a function of n_contacts and
	 * these arrays alone: a scheduler that keeps them may tell that the
	 * graph is the one it saw before without building it. */
	const uint32_t *body_a, *body_b;
};

struct px_scheduler_ops {
	struct px_plugin_header h;
	/* Once per solver (px_solve: per solve), from the kernel alone: never
	 * from b or the iterate, which may change before the next sweep. */
	int (*prepare)(void *state, const struct px_kernel *kern, char *err,
		       size_t errlen);
	/* One sweep over perm[0..n_contacts) visiting `part` of each contact
	 * exactly once (the host takes the iterate before the sweep from the
	 * kernel's writes); perm_changed says whether perm differs from the
	 * previous sweep. */
	void (*sweep)(void *state, const struct px_kernel *kern,
		      const uint32_t *perm, int perm_changed, int part);
	/* ABI 1.2, may be NULL. One line about the last prepare (e.g. the
	 * colors of a coloring and what they cost) into buf, at most len bytes
	 * with the terminating NUL; "" when there is nothing to say. */
	void (*describe)(const void *state, char *buf, size_t len);
	/* ABI 1.4, may be NULL: the documentation (see the changelog). */
	const char *doc;
	/* ABI 1.6, may be NULL. Calls body(ctx, begin, end) on disjoint
	 * ranges that cover [0, n), on the threads the scheduler's sweeps
	 * use (one for small n), and returns when all are done. The host
	 * runs its per-contact and per-body set-up of a solve with it (the
	 * diagonal blocks of A, the velocities of a warm start), before
	 * prepare; each range writes only its own items, so the result does
	 * not depend on the threads. */
	void (*parallel_for)(void *state, size_t n,
			     void (*body)(void *ctx, size_t begin, size_t end),
			     void *ctx);
	/* ABI 1.8, may be NULL: the state kept across solves (see
	 * struct px_persist_ops). */
	const struct px_persist_ops *persist;
};

/* ---- accelerator (ABI 1.3) ------------------------------------------ */

/* What an accelerator sees. p->lambda is host->lambda; p->apply computes
 * y = A x (+ b) matrix-free (assembled: the block-sparse A; factorized and
 * rigid: through J and M^-1 J^T) and the host counts every call: one
 * product with A is charged as one sweep of work ("sweep equivalent", the
 * unit Silcowitz et al. 2010, sec. 5 measures in). Never form a dense A from
 * it. */
struct px_accel_host {
	const struct px_problem_info *p;
	/* The current iterate (n_contacts * bs), feasible after the sweep the
	 * host just ran. step may overwrite it. The host tells by comparing
	 * (res->replaced is informative), puts the old one back if the new
	 * one is not finite, and recomputes its own state from it. */
	double *lambda;
	/* The configured friction set (its plugin's project, state and
	 * flags, PX_FRICTION_SEPARABLE) and name, for index sets and merits. */
	void (*project)(const void *fstate, const struct px_friction_params *fp,
			double lambda_n, double *z, uint32_t nf);
	const void *fstate;
	uint32_t friction_flags;
	const char *friction_name;
	/* ABI 1.7. An assembled problem's A (block CSR: contact k's blocks
	 * are a_blocks[q * bs * bs ..], bs x bs row-major, of the columns
	 * a_cols[q] for q in [a_rowptr[k], a_rowptr[k + 1])), which every
	 * 1.7 host gives, so that an accelerator may factorize a matrix of
	 * A's pattern; NULL for factorized and rigid problems (their pattern
	 * is that of body_a, body_b: contacts sharing a dynamic body). */
	const size_t *a_rowptr;
	const uint32_t *a_cols;
	const double *a_blocks;
	/* ABI 1.9. The seconds left before the solve's time limit: HUGE_VAL
	 * without one, <= 0 once it has passed; time_ctx is its argument.
	 * Every 1.9 host gives it. A step that may run long asks between its
	 * inner steps and, when none is left, stops there, leaves the best
	 * iterate it has (as at its own end) and sets PX_ACCEL_TIME_LIMIT:
	 * the driver then ends the solve as a time limit. A clock read, cheap
	 * next to a product with A. */
	double (*time_left)(const void *time_ctx);
	const void *time_ctx;
	/* ABI 1.11. The driver's stop test, set before every call of step:
	 * merit is what it found for the iterate in lambda ([solver] merit's
	 * value after the sweep just run, or after the last call of a
	 * driving plugin; NAN before the first test), tol the value at or
	 * below which the solve ends (abs_tol; with merit = delta,
	 * max(abs_tol, rel_tol ||lambda||_inf)). 0 when the solve runs to
	 * max_sweeps. */
	double merit;
	double tol;
};

/* Flags of an accelerator (px_accelerator_ops.flags, ABI 1.10). */
enum {
	/* The plugin drives the whole solve: the host calls step in place of
	 * sweeps (every is ignored), runs the stop test after each call and
	 * ends the solve as stalled after a call that left lambda as it was.
	 * step may then leave a worse iterate than it was given. */
	PX_ACCEL_DRIVES = 1u << 0,
};

/* Flags of a step's result. */
enum {
	PX_ACCEL_NOT_SPD = 1u << 0,    /* a reduced system was found
					  indefinite (negative curvature):
					  that step was dropped */
	PX_ACCEL_FALLBACK = 1u << 1,   /* the last iterate tried was worse
					  than an earlier one: the best was
					  returned instead (Silcowitz et
					  al. 2010, sec. 4.3) */
	PX_ACCEL_INNER_LIMIT = 1u << 2, /* an inner solve stopped at its
					   iteration limit */
	PX_ACCEL_NONFINITE = 1u << 3,  /* a non-finite iterate was dropped */
	PX_ACCEL_SINGULAR = 1u << 4,   /* a reduced system was found only
					  semi-definite (a direction of zero
					  curvature): its inner solve
					  stopped there */
	PX_ACCEL_TIME_LIMIT = 1u << 5, /* ABI 1.9: host->time_left said
					  no time was left: the step stopped
					  between its inner steps */
	PX_ACCEL_AGAIN = 1u << 6,      /* ABI 1.12: call step again before
					  the next sweep (after the stop
					  test, the monitor and the time
					  limit) */
};

/* Filled by step (and finish); the host zeroes it and sets the merits to
 * NAN before the call. Merits are the plugin's own (its help says which),
 * lower is better. */
struct px_accel_result {
	int replaced;        /* host->lambda was overwritten (the host's
				record says what it found by comparing) */
	uint32_t flags;      /* PX_ACCEL_* */
	uint32_t substeps;   /* inner steps taken (e.g. subspace solves) */
	uint64_t inner;      /* inner iterations (e.g. CG iterations) */
	double merit_in;     /* of the iterate the host gave */
	double merit_last;   /* of the last iterate the step tried (NAN if
				it tried none) */
	double merit_out;    /* of the iterate it leaves in host->lambda */
};

struct px_accelerator_ops {
	struct px_plugin_header h;
	/* Once per solve, after the other plugins' prepare: check the problem
	 * and the friction set (a refusal is an error naming the plugin),
	 * allocate, and set *every >= 1: step runs after every `every`
	 * accepted sweeps that projected the friction rows. */
	int (*prepare)(void *state, const struct px_accel_host *host,
		       uint64_t *every, char *err, size_t errlen);
	/* Between sweeps. May replace host->lambda; must never leave it worse
	 * by its merit than the iterate it was given (a driving plugin's may:
	 * PX_ACCEL_DRIVES). Never allocates, logs or fails (a failed inner
	 * solve is a flag in res). */
	void (*step)(void *state, const struct px_accel_host *host,
		     struct px_accel_result *res);
	/* May be NULL. Once, when a solve ends without converging: may put
	 * back the best iterate it saw during the solve (Silcowitz et al. 2010,
	 * sec. 4.3's fallback), with res as for step. */
	void (*finish)(void *state, const struct px_accel_host *host,
		       struct px_accel_result *res);
	/* May be NULL. One line about the last solve into buf (len bytes
	 * with the NUL); "" when there is nothing to say. */
	void (*describe)(const void *state, char *buf, size_t len);
	/* ABI 1.4, may be NULL: the documentation (see the changelog). */
	const char *doc;
	/* ABI 1.8, may be NULL: the state kept across solves (see
	 * struct px_persist_ops). */
	const struct px_persist_ops *persist;
	/* ABI 1.10: PX_ACCEL_* flags of the plugin (PX_ACCEL_DRIVES). */
	uint32_t flags;
};

/* ---- helpers plugins may use ---------------------------------------- */

static inline double px_max(double a, double b) { return a > b ? a : b; }
static inline double px_min(double a, double b) { return a < b ? a : b; }

/* The Cholesky factor l (lower, row stride 4) of the symmetric n x n
 * matrix a (n <= 4, row stride `stride`, lower triangle read). Returns 1, or
 * 0 when a pivot is not in (pivot_min + rel * its diagonal entry, max): a is
 * then not numerically positive definite (or overflows) and l is
 * unspecified. */
static inline int px_cholesky(const double *a, uint32_t n, uint32_t stride,
			      double pivot_min, double rel, double max, double *l)
{
	for (uint32_t j = 0; j < n; j++) {
		double d = a[j * stride + j];

		for (uint32_t k = 0; k < j; k++)
			d -= l[j * 4 + k] * l[j * 4 + k];
		if (!(d > pivot_min + rel * a[j * stride + j]) || !(d < max))
			return 0;
		l[j * 4 + j] = sqrt(d);
		for (uint32_t i = j + 1; i < n; i++) {
			double s = a[i * stride + j];

			for (uint32_t k = 0; k < j; k++)
				s -= l[i * 4 + k] * l[j * 4 + k];
			l[i * 4 + j] = s / l[j * 4 + j];
		}
	}
	return 1;
}

/* x = (l l^T)^-1 r for a factor from px_cholesky: l y = r, then l^T x = y. */
static inline void px_cholesky_solve(const double *l, uint32_t n,
				     const double *r, double *x)
{
	double y[4];

	for (uint32_t i = 0; i < n; i++) {
		double s = r[i];

		for (uint32_t k = 0; k < i; k++)
			s -= l[i * 4 + k] * y[k];
		y[i] = s / l[i * 4 + i];
	}
	for (uint32_t i = n; i-- > 0;) {
		double s = y[i];

		for (uint32_t k = i + 1; k < n; k++)
			s -= l[k * 4 + i] * x[k];
		x[i] = s / l[i * 4 + i];
	}
}

/* inv = a^-1 for a symmetric positive definite n x n matrix (n <= 4,
 * row-major, lower triangle read), through its Cholesky factor. Returns 1,
 * or 0 (inv untouched) if a is not numerically positive definite. */
static inline int px_spd_inverse(const double *a, uint32_t n, double *inv)
{
	double l[16] = {0}, x[16];

	if (!px_cholesky(a, n, n, 0.0, 1e-15, 1e308, l))
		return 0;
	for (uint32_t c = 0; c < n; c++) { /* column c of a^-1 */
		double e[4] = {0}, col[4];

		e[c] = 1.0;
		px_cholesky_solve(l, n, e, col);
		for (uint32_t i = 0; i < n; i++)
			x[i * 4 + c] = col[i];
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			inv[i * n + j] = 0.5 * (x[i * 4 + j] + x[j * 4 + i]);
	return 1;
}

/* The back-tracking rule of Erleben 2017, sec. 4.2 for rfactor adapt, with a
 * tolerance (ABI 1.7): a sweep whose residual grew to more than growth
 * times the last accepted one is rejected and every r scaled by nu (nu >=
 * 1: never). growth = 1 is Erleben's (2017) rule. A growth above 1 keeps the
 * sweeps of a slow linear convergence, whose delta wobbles around a plateau by
 * far less than that (issue 20: on Capsules-i122 growth = 1 rejected
 * sweeps whose delta grew by a few parts in 1e3, 100 times, and shrank r
 * to 0.9^100 of its start), while a divergent r still grows delta past
 * it within a few sweeps. */
static inline int px_backtrack_growth(double nu, double growth,
				      double residual_prev,
				      double residual_new, double *r,
				      size_t n_r)
{
	if (nu >= 1.0 || !(residual_new > growth * residual_prev))
		return PX_SWEEP_ACCEPT;
	for (size_t i = 0; i < n_r; i++)
		r[i] *= nu;
	return PX_SWEEP_REJECT;
}

/* Erleben's (2017) rule: px_backtrack_growth with growth = 1. */
static inline int px_backtrack(double nu, double residual_prev,
			       double residual_new, double *r, size_t n_r)
{
	return px_backtrack_growth(nu, 1.0, residual_prev, residual_new, r,
				   n_r);
}

#ifdef __cplusplus
}
#endif

#endif /* PROXIMA_PLUGIN_H */
