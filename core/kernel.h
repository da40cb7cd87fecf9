/* The relax kernel behind struct px_kernel (private to the core). */
#ifndef PX_KERNEL_H
#define PX_KERNEL_H

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>

#include <proxima/plugin.h>
#include <proxima/problem.h>

typedef void (*px_project_fn)(const void *state,
			      const struct px_friction_params *fp,
			      double lambda_n, double *z, uint32_t nf);
typedef void (*px_project_metric_fn)(const void *state,
				     const struct px_friction_params *fp,
				     double lambda_n, const double *g, double *z,
				     uint32_t nf);

/* What a sweep changed, as the driver's change pass would compute it from
 * lambda and prev: max |lambda - prev| over the normal rows (dn) and over
 * the friction rows (df), max |lambda| (amax), and whether some lambda is
 * not finite. relax_lists gathers it for the contacts it relaxes when the
 * driver gives one (zeroed before each sweep), so that the driver can skip
 * its own pass over lambda and prev when `contacts` says every contact was
 * counted. The maxima are kept as the bit patterns of non-negative
 * doubles, which order as the numbers do: threads merge them with integer
 * compare-and-swap, a few per call rather than per contact, and the result
 * does not depend on their order. */
struct px_tally {
	_Atomic uint64_t dn, df, amax;
	_Atomic uint64_t contacts;
	atomic_int nonfinite;
};

/* One call's part of a tally, before the merge. nf is 0, or NaN once a
 * value that is not finite was seen (x - x). */
struct px_tally_part {
	double dn, df, amax, nf;
	size_t contacts;
};

/* Adds contact k's block (lambda x, before the sweep y, bs rows): row 0
 * is the normal row, the others friction rows. */
static inline void px_tally_block(struct px_tally_part *t, const double *x,
				  const double *y, uint32_t bs)
{
	const double d0 = fabs(x[0] - y[0]), a0 = fabs(x[0]);

	t->dn = d0 > t->dn ? d0 : t->dn;
	t->amax = a0 > t->amax ? a0 : t->amax;
	t->nf += x[0] - x[0];
	for (uint32_t i = 1; i < bs; i++) {
		const double d = fabs(x[i] - y[i]), a = fabs(x[i]);

		t->df = d > t->df ? d : t->df;
		t->amax = a > t->amax ? a : t->amax;
		t->nf += x[i] - x[i];
	}
	t->contacts++;
}

/* Adds a call's part to the sweep's tally (safe from several threads). */
void px_tally_merge(struct px_tally *t, const struct px_tally_part *part);

/* Whether a contact's D^-1 (px_kernel_ctx.local_inv) is known yet. */
enum local_inv_state {
	LOCAL_INV_UNSEEN = 0, /* not visited in this solve */
	LOCAL_INV_SEEN = 1,   /* visited once, not computed */
	LOCAL_INV_OK = 2,
	LOCAL_INV_SINGULAR = 3, /* D is numerically singular: none */
	/* D's rows uncoupled and its friction rows equal: one projection
	 * with r = 1/D (local_inv's first two doubles) is the exact solve,
	 * and no D^-1 is needed */
	LOCAL_PROJECTION = 4,
};

struct px_kernel_ctx {
	const struct px_problem *p;
	double *lambda;  /* current iterate, n * bs */
	/* If not NULL (the driver's), every write of contact k's block of
	 * lambda first copies the old block here: after a sweep, which
	 * visits every contact once, prev holds the iterate before it */
	double *prev;
	/* If not NULL (the driver's, with prev), relax_lists adds what it
	 * changed here */
	struct px_tally *tally;
	double *w;       /* body velocities M^-1 J^T lambda, n_bodies * 6 */
	const double *diag; /* diagonal blocks of A, bs*bs per contact */
	const double *r;    /* r-factors in r_shape layout */
	uint32_t r_shape;
	int separable;      /* PX_FRICTION_SEPARABLE */
	int keeps_disc;     /* PX_FRICTION_KEEPS_DISC */
	int is_disc;        /* PX_FRICTION_IS_DISC */
	px_project_fn project;
	px_project_metric_fn project_metric; /* NULL if the plugin has none */
	const void *fstate;
	/* factorized: body -> contact<<1|side incidence */
	size_t *inc_ptr;
	uint32_t *inc;
	/* assembled: transpose pattern of non-zero off-diagonal blocks */
	size_t *tr_ptr;
	uint32_t *tr;
	/* conflict graph, built on demand */
	uint32_t *conf_ptr, *conf;
	/* full updates go through the rigid 3-row kernel (kernel_rigid3.h),
	 * which reads per contact A_sn, A_tn (from diag) and mu (from the
	 * friction parameters) here, 3 doubles, rather than the 9 of the
	 * diagonal block and the 4 of the parameters */
	int rigid3;
	double *coef;
	/* rigid form: each contact's world impulse, 3 per contact, for
	 * px_kernel_refresh_rigid */
	double *impulse;
	/* [solver] local_solve = newton (local_newton.c): every visit solves
	 * the contact's one-contact problem with its diagonal block to
	 * local_tol instead of one projection with R */
	int local_newton;
	double *local_r; /* 1/D per row when one projection is exact */
	/* D^-1 per contact (9 doubles) for the sticking closed form, each
	 * computed at the contact's second visit (local_inv_state, enum
	 * local_inv_state; a LOCAL_PROJECTION contact's holds 1/D_nn and
	 * 1/D_tt instead); NULL when local_r is used */
	double *local_inv;
	uint8_t *local_inv_state; /* n bytes, in local_inv's block */
	double local_tol;
	double local_forcing;
	unsigned local_max_iter;
	/* [solver] kernel = wide (kernel_wide.h): full relax_lists calls run
	 * the lists side by side in SIMD lanes; wcoef holds A_sn, A_tn, A_ts
	 * and mu per contact, wide_isa the instruction set chosen */
	int wide;
	double *wcoef;
	void (*wide_relax)(const struct px_kernel_ctx *c,
			   const uint32_t *const *lists, const size_t *counts,
			   unsigned m);
	const char *wide_isa;
	/* the per-call constants in lane order, cached across calls with
	 * the same lists (kernel_wide.c) */
	struct px_wide_cache *wcache;
	/* the driver moves it whenever b or r may have changed since the
	 * last relax_lists call (a solve's start, a rejected sweep): the
	 * cache fills them again */
	unsigned long wide_gen;
};

/* diag holds the diagonal blocks already: the rigid kernel gathers from it
 * here. 0 or PX_ERR_NOMEM. */
int px_kernel_init(struct px_kernel_ctx *c, struct px_kernel *kern,
		   const struct px_problem *p, double *lambda, double *w,
		   const double *diag, const double *r, uint32_t r_shape,
		   const struct px_friction_ops *fops, const void *fstate,
		   int generic);

/* The friction plugin's project_metric, or NULL when it has none (ABI 1.0
 * plugins, whose ops struct ends before it). */
static inline px_project_metric_fn
px_friction_project_metric(const struct px_friction_ops *f)
{
	const size_t end = offsetof(struct px_friction_ops, project_metric) +
			   sizeof f->project_metric;

	return f->h.abi_minor >= 1 && f->h.ops_size >= end ? f->project_metric
							    : NULL;
}
void px_kernel_fini(struct px_kernel_ctx *c);

/* Exact local solves instead of one projection per visit: every entry
 * point then takes the general kernel (the rigid one projects once),
 * unless every contact's diagonal block is one where a projection with r
 * = 1/D is the exact local solve (rows uncoupled, friction rows equal: a
 * ball's contacts): then the rigid kernel stays, with that r (local_r)
 * in place of the r-factors. Otherwise such contacts take that one
 * projection in the general kernel, and each other contact's D^-1 is
 * computed for the sticking closed form (local_inv) at its second visit.
 * 0 or PX_ERR_NOMEM. */
int px_kernel_set_local(struct px_kernel_ctx *c, double tol, double forcing,
			unsigned max_iter);

/* [solver] kernel = wide: full relax_lists calls go through the wide
 * kernel where it applies (px_wide_applies; call after
 * px_kernel_set_local), else nothing changes and c->wide stays 0. 0 or
 * PX_ERR_NOMEM. */
int px_kernel_set_wide(struct px_kernel_ctx *c);

/* local_newton.c. Contact k's one-contact problem with diagonal block D
 * (3x3), velocity v0 at its impulse lam0 (the rows of `part`), disc
 * friction mu: out holds the projection's answer on entry and the exact
 * solve's (to tol, relative to the impulse, in at most max_iter damped
 * Newton steps; never worse by the Alart-Curnier residual) on return,
 * or one whose residual is at most forcing times its distance from lam0
 * when that comes first (forcing 0: never). */
void px_local_newton(const double *D, const double *v0, const double *lam0,
		     double mu, int part, double tol, double forcing,
		     unsigned max_iter, double *out);

/* local_newton.c. The same problem's two closed-form cases, tried before
 * the projection and the Newton: open (x = 0 when u_n(0) >= 0) and
 * sticking (u(x) = 0 with x inside the disc), the latter with inv = D^-1
 * (px_local_inverse) or, when inv is NULL, an elimination with D. Returns
 * 1 with the exact answer in out, or 0 (sliding, a singular D) with out
 * untouched. */
int px_local_closed_form(const double *D, const double *inv,
			 const double *v0, const double *lam0, double mu,
			 double *out);

/* local_newton.c. inv = D^-1 (3x3, row-major) by elimination with partial
 * pivoting. Returns 0 when D is numerically singular (inv undefined). */
int px_local_inverse(const double *D, double *inv);

/* The rigid form's refresh at a solve's start, in two passes: P_k, each
 * contact's world impulse, over contacts [begin, end) into c->impulse
 * (px_kernel_impulses), then w of bodies [begin, end) from them
 * (px_kernel_refresh_rigid), the same numbers as kern->refresh's. Its
 * per-body pass computes P_k twice, once per body, from the 72-byte frame
 * read out of order: on ballgrid-40 (188,800 contacts, 10 steps) the
 * refresh's perf samples went 278 -> 180 with the two passes
 * (doc/world.md). */
void px_kernel_impulses(struct px_kernel_ctx *c, size_t begin, size_t end);
void px_kernel_refresh_rigid(struct px_kernel_ctx *c, size_t begin,
			     size_t end);

/* Bytes of the kernel's own arrays (incidence, conflict graph if built,
 * the rigid kernel's coefficients). */
size_t px_kernel_bytes(const struct px_kernel_ctx *c);

#endif
