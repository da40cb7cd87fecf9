/* Accelerator `pgssm`: Projected Gauss-Seidel Subspace Minimization
 * (Silcowitz, Niebe and Erleben 2010, sec. 4, doc/references.md). The
 * driver runs k_pgs sweeps; then this plugin takes up to k_sm subspace steps
 * (Silcowitz et al. 2010, sec. 4.3), each:
 *
 *   1. index sets from lambda (Silcowitz et al. 2010, eq. 19, below): which
 *      rows are free and which are held at their values;
 *   2. the reduced system on the free subspace (Silcowitz et al. 2010, eq. 22):
 *      with P the orthogonal projector onto it,  P (A + C + shift) P dx = -P (A
 *      lambda + b),  C the tangential compliance of sliding contacts (below),
 *      shift = gamma mean(diag A) (Silcowitz et al. 2010, sec. 5.1, 0 by
 *      default), solved by conjugate gradients, matrix-free (one product with
 *      A, through the host, per iteration; never a dense A), preconditioned by
 *      each contact's diagonal block of the reduced matrix (precond = none:
 *      plain CG, as Silcowitz et al. 2010). A curvature d^T A d < -1e-8 dmax
 *      d^T d, or a diagonal block that is not positive semi-definite, means the
 *      reduced matrix is indefinite: the step is dropped and the call
 *      flagged (PX_ACCEL_NOT_SPD). A curvature within +-1e-8 dmax d^T d is
 *      a direction of its null space (redundant contacts: four corners of
 *      a face): CG stops with what it has (PX_ACCEL_SINGULAR). CG also
 *      stops at its rounding floor, 1e-14 (||b|| + ||A lambda||), below
 *      which it would chase noise into that null space;
 *   3. the bounds updated for the new normal impulses and lambda projected
 *      onto them (Silcowitz et al. 2010, Alg. lines 13-15);
 *   4. its merit evaluated: the natural-map residual of the configured
 *      friction set with unit r, ||lambda - prox(lambda - (A lambda +
 *      b))||_2 (the numerator of the driver's certificate), zero exactly at
 *      the solutions of any set.
 *
 * A call returns the best iterate it saw, its entry iterate included (the
 * fallback of Silcowitz et al. 2010, sec. 4.3): it never leaves lambda worse
 * by that merit than it found it. It does so too when the solve's time
 * limit runs out, which it asks the host about before every CG iteration
 * (ABI 1.9, PX_ACCEL_TIME_LIMIT). At the end of a solve that did not
 * converge, finish puts back the best iterate of the whole solve. After a
 * call that could not improve the iterate, the next 1, 2, 4, ... 64 calls
 * are skipped (backoff = yes): on problems where subspace steps do not help
 * it bounds the work they waste (not in Silcowitz et al. 2010).
 *
 * Index sets, per contact with normal impulse lambda_n:
 *   - normal row: held (at 0) when lambda_n <= 0, else free;
 *   - a separable friction set (box, PX_FRICTION_SEPARABLE): each friction
 *     row is its own interval [l_i, u_i], read from the plugin's project
 *     (the projection of +-1e300); held at l_i or u_i when it sits there,
 *     free inside: exactly Silcowitz et al. 2010, eq. 19. After the solve a row
 *     held at a bound goes to that bound of the new lambda_n (Silcowitz et al.
 *     2010, line 13; for bound = constant the bound does not move);
 *   - any other set (disc, ellipsoid) is the analogue: separated
 *     (lambda_n <= 0): every row held (at 0); sticking (lambda_f strictly
 *     inside the set): every row free; sliding (lambda_f on the boundary:
 *     lambda_f (1 + 1e-6) moves when projected): the normal row free, the
 *     friction held along the set's outward normal nu there (read from that
 *     projection: the bound, as for the box) and free along the tangent
 *     space of the boundary. Coulomb's law wants the friction of a sliding
 *     contact opposite to its sliding velocity v_f; turned by dt along the
 *     tangent e, lambda_f turns by dt / |lambda_f|, so the law holds to
 *     first order when  e.(A dx + v)_f + (|v_f| / |lambda_f|) dt = 0:  the
 *     compliance c = |v_f| / |lambda_f| on the tangential directions (exact
 *     for a disc; for an ellipse it takes the curvature of the circle
 *     through lambda_f). Without it the tangential directions have no
 *     stiffness of their own: the reduced system of a sliding box is then
 *     nearly singular and CG's answer leaves the tangent plane far behind
 *     (a box sliding on four corners went from 1.4e-6 to 7e-2). After the
 *     solve the friction is scaled with the normal impulse, lambda_f
 *     lambda_n' / lambda_n (outside or on the boundary of the new set, for
 *     sets that grow in proportion to lambda_n as disc and ellipsoid do)
 *     and projected: on the boundary again. A friction row whose set is
 *     {0} (disc's torsional row, mu = 0) is always held (at 0).
 * Holding the friction's bound during the solve and updating it after,
 * rather than substituting lambda_f = mu lambda_n d into the system, is
 * Silcowitz et al.'s (2010) own choice for the box (line 13); it keeps the
 * reduced matrix symmetric (P A P + C), which CG needs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/plugin.h>

#define PROBE 1e300       /* beyond any bound of a separable set */
#define SLIDE_SCALE 1e-6  /* lambda_f * (1 + this) leaves a boundary */
#define SLIDE_MOVED 1e-7  /* ... and moves back by more than this */

/* Row classes (fixed[] values). */
enum { FREE = 0, HELD = 1, AT_UPPER = 2, AT_LOWER = 3 };
enum { REG_ALL = 0, REG_FRICTION = 1 };
enum { PRECOND_BLOCK = 0, PRECOND_NONE = 1 };

struct pgssm {
	/* parameters */
	uint64_t k_pgs;
	uint64_t k_sm;
	double cg_tol;
	uint64_t cg_max; /* 0: the free rows (Silcowitz et al. 2010, sec. 5) */
	double gamma;    /* relative to the mean diagonal entry of A */
	int regularize;  /* REG_* */
	int precond;     /* PRECOND_* */
	int backoff;     /* skip calls after calls that did not help */
	uint64_t skip, wait; /* calls to skip next time, and still to skip */
	/* work arrays of m rows, grown in prepare */
	size_t cap, cap_n; /* rows and contacts */
	double *x, *v;   /* the subspace iterate and A x + b */
	double *t, *vt;  /* the trial iterate and A t + b */
	double *best;    /* the best iterate of a step */
	double *ever;    /* the best iterate of the solve */
	double *dx, *r, *d, *q; /* CG */
	unsigned char *fixed; /* per row: FREE, HELD, AT_UPPER, AT_LOWER */
	unsigned char *slide; /* per contact: sliding on a non-separable set */
	double *nu;           /* per contact: the set's outward normal there */
	double *comp;         /* per contact: the tangential compliance */
	double *zb, *zl;      /* per contact: preconditioner basis, factor */
	unsigned char *zdim;  /* per contact: its dimension */
	double *z;            /* CG: the preconditioned residual */
	double shift;         /* gamma * mean(diag A) */
	double scale;         /* ||b|| + ||A x|| at a step's entry */
	double ever_merit;
	/* what the last solve did */
	uint64_t steps, substeps, cg_its, not_spd, fallbacks, cg_limit;
	uint64_t skipped, singular;
	size_t last_free, rows;
};

enum {
	P_K_PGS, P_K_SM, P_CG_TOL, P_CG_MAX, P_GAMMA, P_REGULARIZE, P_BACKOFF,
	P_PRECOND
};

static const struct px_param_decl pgssm_params[] = {
	[P_K_PGS] = {"k_pgs", PX_PARAM_INT, "25",
		     "accepted sweeps between subspace phases (Silcowitz et al. 2010 use 25)", 1, 1e9, NULL},
	[P_K_SM] = {"k_sm", PX_PARAM_INT, "5",
		    "subspace steps per phase (Silcowitz et al. 2010 use 5)", 1, 1e6, NULL},
	[P_CG_TOL] = {"cg_tol", PX_PARAM_REAL, "1e-12",
		      "CG stops when ||r|| <= cg_tol ||r_0|| on the reduced system", 0, 1,
		      NULL},
	[P_CG_MAX] = {"cg_max", PX_PARAM_INT, "100",
		      "CG iterations per subspace step at most; 0: the number of free rows (Silcowitz et al. 2010)",
		      0, 1e9, NULL},
	[P_GAMMA] = {"gamma", PX_PARAM_REAL, "0",
		     "regularization A_FF + gamma * mean(diag A) * I (Silcowitz et al. 2010, sec. 5.1); 0: none",
		     0, 1e6, NULL},
	[P_REGULARIZE] = {"regularize", PX_PARAM_CHOICE, "all",
			  "rows that get gamma: all free rows, or only the friction rows (Silcowitz et al. 2010, sec. 5.1)",
			  0, -1, "all|friction"},
	[P_BACKOFF] = {"backoff", PX_PARAM_BOOL, "yes",
		       "after a call that could not improve the iterate, skip the next 1, 2, 4, ... (at most 64) calls until one does",
		       0, -1, NULL},
	[P_PRECOND] = {"precond", PX_PARAM_CHOICE, "block",
		       "CG preconditioner: block = each contact's diagonal block of the reduced matrix, none = plain CG as Silcowitz et al. 2010",
		       0, -1, "block|none"},
};

static int pgssm_create(const union px_value *values, void **state, char *err,
			size_t errlen)
{
	struct pgssm *s = calloc(1, sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->k_pgs = (uint64_t)values[P_K_PGS].i;
	s->k_sm = (uint64_t)values[P_K_SM].i;
	s->cg_tol = values[P_CG_TOL].r;
	s->cg_max = (uint64_t)values[P_CG_MAX].i;
	s->gamma = values[P_GAMMA].r;
	s->regularize = values[P_REGULARIZE].choice;
	s->backoff = values[P_BACKOFF].b;
	s->precond = values[P_PRECOND].choice;
	*state = s;
	return 0;
}

static void free_arrays(struct pgssm *s)
{
	free(s->x);
	free(s->v);
	free(s->t);
	free(s->vt);
	free(s->best);
	free(s->ever);
	free(s->dx);
	free(s->r);
	free(s->d);
	free(s->q);
	free(s->fixed);
	free(s->slide);
	free(s->nu);
	free(s->comp);
	free(s->zb);
	free(s->zl);
	free(s->zdim);
	free(s->z);
	s->cap = s->cap_n = 0;
}

static void pgssm_destroy(void *state)
{
	free_arrays(state);
	free(state);
}

static int pgssm_prepare(void *state, const struct px_accel_host *h,
			 uint64_t *every, char *err, size_t errlen)
{
	struct pgssm *s = state;
	const struct px_problem_info *p = h->p;
	const uint32_t bs = p->bs;
	const size_t m = p->n_contacts * bs;
	double sum = 0.0;

	if (m > s->cap || p->n_contacts > s->cap_n || !s->x) {
		free_arrays(s);
		s->x = malloc((m + 1) * sizeof *s->x);
		s->v = malloc((m + 1) * sizeof *s->v);
		s->t = malloc((m + 1) * sizeof *s->t);
		s->vt = malloc((m + 1) * sizeof *s->vt);
		s->best = malloc((m + 1) * sizeof *s->best);
		s->ever = malloc((m + 1) * sizeof *s->ever);
		s->dx = malloc((m + 1) * sizeof *s->dx);
		s->r = malloc((m + 1) * sizeof *s->r);
		s->d = malloc((m + 1) * sizeof *s->d);
		s->q = malloc((m + 1) * sizeof *s->q);
		s->fixed = malloc(m + 1);
		s->slide = malloc(p->n_contacts + 1);
		s->nu = malloc((3 * p->n_contacts + 1) * sizeof *s->nu);
		s->comp = malloc((p->n_contacts + 1) * sizeof *s->comp);
		s->zb = malloc((16 * p->n_contacts + 1) * sizeof *s->zb);
		s->zl = malloc((16 * p->n_contacts + 1) * sizeof *s->zl);
		s->zdim = malloc(p->n_contacts + 1);
		s->z = malloc((m + 1) * sizeof *s->z);
		if (!s->x || !s->v || !s->t || !s->vt || !s->best || !s->ever ||
		    !s->dx || !s->r || !s->d || !s->q || !s->fixed ||
		    !s->slide || !s->nu || !s->comp || !s->zb || !s->zl ||
		    !s->zdim || !s->z) {
			free_arrays(s);
			snprintf(err, errlen,
				 "out of memory for %zu rows", m);
			return -1;
		}
		s->cap = m;
		s->cap_n = p->n_contacts;
	}
	for (size_t k = 0; k < p->n_contacts; k++)
		for (uint32_t i = 0; i < bs; i++)
			sum += p->diag[k * bs * bs + i * bs + i];
	s->shift = m ? s->gamma * sum / (double)m : 0.0;
	s->ever_merit = HUGE_VAL;
	s->steps = s->substeps = s->cg_its = 0;
	s->not_spd = s->fallbacks = s->cg_limit = s->skipped = 0;
	s->singular = 0;
	s->last_free = 0;
	s->skip = s->wait = 0;
	s->rows = m;
	*every = s->k_pgs;
	return 0;
}

/* ||x - prox(x - v)||_2 with unit r, v = A x + b; +inf if not finite. */
static double merit(const struct px_accel_host *h, const double *x,
		    const double *v)
{
	const struct px_problem_info *p = h->p;
	const uint32_t bs = p->bs;
	double sum = 0.0;

	for (size_t k = 0; k < p->n_contacts; k++) {
		const double *xk = x + k * bs, *vk = v + k * bs;
		double z[4] = {0};

		for (uint32_t i = 0; i < bs; i++)
			z[i] = xk[i] - vk[i];
		z[0] = px_max(z[0], 0.0);
		h->project(h->fstate, &p->friction[k], z[0], z + 1, bs - 1);
		for (uint32_t i = 0; i < bs; i++)
			sum += (xk[i] - z[i]) * (xk[i] - z[i]);
	}
	return isfinite(sum) ? sqrt(sum) : HUGE_VAL;
}

/* The bounds [lo, hi] of friction row i of a separable set at lambda_n. */
static void row_bounds(const struct px_accel_host *h,
		       const struct px_friction_params *fp, double ln,
		       const double *xf, uint32_t nf, uint32_t i, double *lo,
		       double *hi)
{
	double z[3];

	memcpy(z, xf, nf * sizeof *z);
	z[i] = PROBE;
	h->project(h->fstate, fp, ln, z, nf);
	*hi = z[i];
	memcpy(z, xf, nf * sizeof *z);
	z[i] = -PROBE;
	h->project(h->fstate, fp, ln, z, nf);
	*lo = z[i];
}

/* The index sets of contact k at x (Silcowitz et al. 2010, eq. 19 and its
 * analogue, see the top of the file): row classes into s->fixed, and for a
 * sliding contact of a non-separable set the outward unit normal of the set at
 * its friction impulse into s->nu. Returns the dimension of the contact's
 * share of the subspace. */
static uint32_t classify(struct pgssm *s, const struct px_accel_host *h,
			 const double *x, size_t k)
{
	const struct px_problem_info *p = h->p;
	const struct px_friction_params *fp = &p->friction[k];
	const uint32_t bs = p->bs, nf = bs - 1;
	const double *xk = x + k * bs, ln = xk[0];
	unsigned char *fk = s->fixed + k * bs;
	double *nu = s->nu + 3 * k;
	uint32_t dim = 0;

	fk[0] = ln > 0.0 ? FREE : HELD;
	s->slide[k] = 0;
	if (h->friction_flags & PX_FRICTION_SEPARABLE) {
		for (uint32_t i = 0; i < nf; i++) {
			double lo, hi, xi = xk[1 + i];

			row_bounds(h, fp, ln, xk + 1, nf, i, &lo, &hi);
			if (xi >= hi)
				fk[1 + i] = AT_UPPER;
			else if (xi <= lo)
				fk[1 + i] = AT_LOWER;
			else
				fk[1 + i] = FREE;
		}
	} else if (!(ln > 0.0)) {
		for (uint32_t i = 0; i < nf; i++)
			fk[1 + i] = HELD; /* separated: at 0 */
	} else {
		double z[3], zs[3], big = 0.0, moved = 0.0;

		for (uint32_t i = 0; i < nf; i++) {
			/* a row whose set is {0} (e.g. disc's tau row) */
			memset(z, 0, sizeof z);
			z[i] = ln;
			h->project(h->fstate, fp, ln, z, nf);
			fk[1 + i] = z[i] != 0.0 ? FREE : HELD;
		}
		for (uint32_t i = 0; i < nf; i++) {
			zs[i] = z[i] = fk[1 + i] == FREE
					       ? xk[1 + i] * (1.0 + SLIDE_SCALE)
					       : 0.0;
			big = px_max(big, fabs(xk[1 + i]));
		}
		h->project(h->fstate, fp, ln, z, nf);
		for (uint32_t i = 0; i < nf; i++) {
			nu[i] = fk[1 + i] == FREE ? zs[i] - z[i] : 0.0;
			moved = px_max(moved, fabs(nu[i]));
		}
		if (big > 0.0 && moved > SLIDE_MOVED * big) {
			/* sliding: the outward normal of the set, and the
			 * compliance of the tangential directions */
			const double *vk = s->v + k * bs;
			double len = 0.0, speed = 0.0, size = 0.0;

			for (uint32_t i = 0; i < nf; i++) {
				len = hypot(len, nu[i]);
				if (fk[1 + i] == FREE) {
					speed = hypot(speed, vk[1 + i]);
					size = hypot(size, xk[1 + i]);
				}
			}
			for (uint32_t i = 0; i < nf; i++)
				nu[i] /= len;
			s->slide[k] = 1;
			s->comp[k] = speed / size;
		}
	}
	for (uint32_t i = 0; i < bs; i++)
		dim += fk[i] == FREE;
	return dim - s->slide[k];
}

/* y <- P y, P the orthogonal projector onto the subspace: zero on fixed
 * rows, and for a sliding contact without the component along the normal
 * nu of its friction set. */
static void restrict_to(const struct pgssm *s, uint32_t bs, size_t n,
			double *y)
{
	for (size_t k = 0; k < n; k++) {
		const unsigned char *fk = s->fixed + k * bs;
		double *yk = y + k * bs;

		for (uint32_t i = 0; i < bs; i++)
			if (fk[i] != FREE)
				yk[i] = 0.0;
		if (s->slide[k]) {
			const double *nu = s->nu + 3 * k;
			double c = 0.0;

			for (uint32_t i = 0; i + 1 < bs; i++)
				c += nu[i] * yk[1 + i];
			for (uint32_t i = 0; i + 1 < bs; i++)
				yk[1 + i] -= c * nu[i];
		}
	}
}

/* Contact k of the trial t (x plus the subspace solution) onto its updated
 * bounds (Silcowitz et al. 2010, Alg. lines 13-15). */
static void project_trial(const struct pgssm *s, const struct px_accel_host *h,
			  const double *x, size_t k, double *t)
{
	const struct px_problem_info *p = h->p;
	const uint32_t bs = p->bs, nf = bs - 1;
	const double *xk = x + k * bs;
	const unsigned char *fk = s->fixed + k * bs;
	double *tk = t + k * bs, z[3];

	tk[0] = px_max(tk[0], 0.0);
	for (uint32_t i = 0; i < nf; i++) {
		switch (fk[1 + i]) {
		case AT_UPPER:
			z[i] = PROBE; /* the new upper bound */
			break;
		case AT_LOWER:
			z[i] = -PROBE;
			break;
		default:
			z[i] = tk[1 + i];
		}
		/* sliding: the set grows with lambda_n; from the boundary of
		 * the old one, the solve moved along its tangent: outside or
		 * on the boundary of the new one, and projected onto it */
		if (s->slide[k])
			z[i] *= tk[0] / xk[0];
	}
	h->project(h->fstate, &p->friction[k], tk[0], z, nf);
	memcpy(tk + 1, z, nf * sizeof *z);
}

static double dot(const double *a, const double *b, size_t m)
{
	double s = 0.0;

	for (size_t i = 0; i < m; i++)
		s += a[i] * b[i];
	return s;
}

/* The block-Jacobi preconditioner's block of contact k: an orthonormal
 * basis Z of the contact's share of the subspace (columns of s->zb, row
 * stride 4) and the Cholesky factor of Z^T (A_kk + C_k + shift) Z, with
 * A_kk its diagonal block of A and C_k the tangential compliance. That
 * block is a principal block of the reduced matrix: if it is indefinite,
 * so is the reduced matrix. Returns 0, or -1 when it is indefinite. */
static int block_prepare(struct pgssm *s, const struct px_accel_host *h,
			 size_t k)
{
	const uint32_t bs = h->p->bs;
	const unsigned char *fk = s->fixed + k * bs;
	const double *a = h->p->diag + k * bs * bs, *nu = s->nu + 3 * k;
	double *z = s->zb + 16 * k, *l = s->zl + 16 * k, g[16], trace = 0.0;
	uint32_t dim = 0;

	memset(z, 0, 16 * sizeof *z);
	if (fk[0] == FREE)
		z[0 * 4 + dim++] = 1.0;
	for (uint32_t i = 1; i < bs; i++) {
		double col[4] = {0}, len = 0.0;

		if (fk[i] != FREE)
			continue;
		col[i] = 1.0;
		if (s->slide[k]) /* the tangent space: without nu, and ... */
			for (uint32_t j = 1; j < bs; j++)
				col[j] -= nu[i - 1] * nu[j - 1];
		for (uint32_t c = 0; c < dim; c++) { /* ... orthonormal */
			double d = 0.0;

			for (uint32_t j = 0; j < bs; j++)
				d += z[j * 4 + c] * col[j];
			for (uint32_t j = 0; j < bs; j++)
				col[j] -= d * z[j * 4 + c];
		}
		for (uint32_t j = 0; j < bs; j++)
			len = hypot(len, col[j]);
		if (len < 1e-3)
			continue; /* the direction of nu */
		for (uint32_t j = 0; j < bs; j++)
			z[j * 4 + dim] = col[j] / len;
		dim++;
	}
	s->zdim[k] = (unsigned char)dim;
	for (uint32_t c = 0; c < dim; c++)
		for (uint32_t e = 0; e < dim; e++) {
			double sum = 0.0;

			for (uint32_t i = 0; i < bs; i++)
				for (uint32_t j = 0; j < bs; j++)
					sum += z[i * 4 + c] * a[i * bs + j] *
					       z[j * 4 + e];
			g[c * 4 + e] = sum;
		}
	for (uint32_t c = 0; c < dim; c++) {
		const int normal = z[c] != 0.0; /* only e_n has a normal part */

		if (!normal && s->slide[k])
			g[c * 4 + c] += s->comp[k];
		if (s->regularize == REG_ALL || !normal)
			g[c * 4 + c] += s->shift;
		trace += g[c * 4 + c];
	}
	if (dim == 0 || px_cholesky(g, dim, 4, 0.0, 1e-12, HUGE_VAL, l))
		return 0;
	/* semi-definite (rows that depend on each other) or indefinite */
	for (uint32_t c = 0; c < dim; c++)
		g[c * 4 + c] += 1e-9 * trace;
	return px_cholesky(g, dim, 4, 0.0, 0.0, HUGE_VAL, l) ? 0 : -1;
}

/* out <- M^-1 r, M the block-Jacobi preconditioner (or none). */
static void precondition(const struct pgssm *s, uint32_t bs, size_t n,
			 const double *r, double *out)
{
	if (s->precond == PRECOND_NONE) {
		memcpy(out, r, n * bs * sizeof *r);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		const double *z = s->zb + 16 * k, *rk = r + k * bs;
		const uint32_t dim = s->zdim[k];
		double y[4], w[4], *ok = out + k * bs;

		for (uint32_t c = 0; c < dim; c++) {
			y[c] = 0.0;
			for (uint32_t j = 0; j < bs; j++)
				y[c] += z[j * 4 + c] * rk[j];
		}
		if (dim)
			px_cholesky_solve(s->zl + 16 * k, dim, y, w);
		for (uint32_t j = 0; j < bs; j++) {
			ok[j] = 0.0;
			for (uint32_t c = 0; c < dim; c++)
				ok[j] += z[j * 4 + c] * w[c];
		}
	}
}

enum { CG_OK = 0, CG_NOT_SPD = 1, CG_LIMIT = 2, CG_SINGULAR = 3,
       CG_TIME = 4 };

/* (A_FF + shift) dx = -v_F by conjugate gradients on full-length vectors
 * that are zero on the fixed rows; one product with A per iteration.
 * The curvature d^T A_FF d of a direction tells what A_FF is: below
 * -CURVATURE dmax d^T d (dmax: the largest diagonal entry of A_FF) it is
 * indefinite, and the solve is abandoned (CG_NOT_SPD); within +-that band
 * the direction is numerically in A_FF's null space: A_FF is only
 * semi-definite (a stack's redundant contacts make it so), CG can go no
 * further, and dx is what it has (CG_SINGULAR). Before each product it
 * asks the host for the time left: none, and it stops (CG_TIME; dx is
 * dropped). Returns CG_*; *its gets the iterations. */
#define CURVATURE 1e-8
#define FLOOR 1e-14

static int solve_reduced(struct pgssm *s, const struct px_accel_host *h,
			 size_t nfree, uint64_t *its)
{
	const struct px_problem_info *p = h->p;
	const size_t m = s->rows, n = p->n_contacts;
	const uint32_t bs = p->bs;
	const uint64_t limit = s->cg_max ? s->cg_max : nfree;
	double rz, rr0, dmax = 0.0, stop;

	*its = 0;
	for (size_t k = 0; k < n; k++)
		if (block_prepare(s, h, k))
			return CG_NOT_SPD;
	for (size_t i = 0; i < m; i++) {
		s->dx[i] = 0.0;
		s->r[i] = -s->v[i];
		if (s->fixed[i] == FREE)
			dmax = px_max(dmax, fabs(p->diag[(i / bs) * bs * bs +
							 (i % bs) * (bs + 1)]));
	}
	restrict_to(s, bs, n, s->r);
	dmax += s->shift;
	rr0 = dot(s->r, s->r, m);
	/* the rounding floor of v = A x + b: below it a residual is noise,
	 * and CG would chase it into the null space of a singular A_FF */
	stop = px_max(s->cg_tol * sqrt(rr0), FLOOR * s->scale);
	if (!(sqrt(rr0) > stop))
		return CG_OK;
	precondition(s, bs, n, s->r, s->z);
	memcpy(s->d, s->z, m * sizeof *s->d);
	rz = dot(s->r, s->z, m);
	while (*its < limit) {
		double dq, alpha, rz1, band;

		if (!(h->time_left(h->time_ctx) > 0.0))
			return CG_TIME;
		p->apply(p->ctx, s->d, s->q, 0);
		restrict_to(s, bs, n, s->q);
		for (size_t k = 0; k < n; k++)
			for (uint32_t i = 1; s->slide[k] && i < bs; i++)
				s->q[k * bs + i] += s->comp[k] * s->d[k * bs + i];
		for (size_t i = 0; s->shift > 0.0 && i < m; i++)
			if (s->regularize == REG_ALL || i % bs != 0)
				s->q[i] += s->shift * s->d[i];
		(*its)++;
		dq = dot(s->d, s->q, m);
		band = CURVATURE * dmax * dot(s->d, s->d, m);
		if (!(dq >= -band)) /* also NaN */
			return CG_NOT_SPD;
		if (dq <= band)
			return CG_SINGULAR;
		alpha = rz / dq;
		for (size_t i = 0; i < m; i++) {
			s->dx[i] += alpha * s->d[i];
			s->r[i] -= alpha * s->q[i];
		}
		if (sqrt(dot(s->r, s->r, m)) <= stop)
			return CG_OK;
		precondition(s, bs, n, s->r, s->z);
		rz1 = dot(s->r, s->z, m);
		for (size_t i = 0; i < m; i++)
			s->d[i] = s->z[i] + (rz1 / rz) * s->d[i];
		rz = rz1;
	}
	return CG_LIMIT;
}

static void swap(double **a, double **b)
{
	double *c = *a;

	*a = *b;
	*b = c;
}

static void keep_ever(struct pgssm *s, const double *x, double mx)
{
	if (mx < s->ever_merit) {
		memcpy(s->ever, x, s->rows * sizeof *x);
		s->ever_merit = mx;
	}
}

static void pgssm_step(void *state, const struct px_accel_host *h,
		       struct px_accel_result *res)
{
	struct pgssm *s = state;
	const struct px_problem_info *p = h->p;
	const size_t m = s->rows, n = p->n_contacts;
	double m_best, m_cur;
	int improved = 0;

	if (s->wait > 0) { /* backing off: a call that costs nothing */
		s->wait--;
		s->skipped++;
		return;
	}
	s->steps++;
	memcpy(s->x, h->lambda, m * sizeof *s->x);
	p->apply(p->ctx, s->x, s->v, 1);
	{
		double b2 = 0.0, ax2 = 0.0;

		for (size_t i = 0; i < m; i++) {
			b2 += p->b[i] * p->b[i];
			ax2 += (s->v[i] - p->b[i]) * (s->v[i] - p->b[i]);
		}
		s->scale = sqrt(b2) + sqrt(ax2);
	}
	m_best = m_cur = res->merit_in = merit(h, s->x, s->v);
	keep_ever(s, s->x, m_cur);
	for (uint64_t step = 0; step < s->k_sm && m_cur > 0.0; step++) {
		size_t nfree = 0;
		uint64_t its;
		int cg;
		double mt;

		for (size_t k = 0; k < n; k++)
			nfree += classify(s, h, s->x, k);
		s->last_free = nfree;
		if (nfree == 0)
			break;
		cg = solve_reduced(s, h, nfree, &its);
		res->inner += its;
		s->cg_its += its;
		if (cg == CG_NOT_SPD) {
			res->flags |= PX_ACCEL_NOT_SPD;
			break;
		}
		if (cg == CG_TIME) {
			res->flags |= PX_ACCEL_TIME_LIMIT;
			break;
		}
		if (cg == CG_LIMIT)
			res->flags |= PX_ACCEL_INNER_LIMIT;
		if (cg == CG_SINGULAR)
			res->flags |= PX_ACCEL_SINGULAR;
		if (its == 0)
			break; /* at the rounding floor: nothing to solve */
		for (size_t i = 0; i < m; i++)
			s->t[i] = s->x[i] + s->dx[i];
		for (size_t k = 0; k < n; k++)
			project_trial(s, h, s->x, k, s->t);
		p->apply(p->ctx, s->t, s->vt, 1);
		mt = merit(h, s->t, s->vt);
		res->substeps++;
		res->merit_last = mt;
		if (!isfinite(mt)) {
			res->flags |= PX_ACCEL_NONFINITE;
			break;
		}
		if (mt < m_best) {
			memcpy(s->best, s->t, m * sizeof *s->t);
			m_best = mt;
			improved = 1;
		}
		/* Silcowitz et al. (2010) go on from the new iterate, better or
		 * not */
		swap(&s->x, &s->t);
		swap(&s->v, &s->vt);
		m_cur = mt;
	}
	if (improved) {
		memcpy(h->lambda, s->best, m * sizeof *s->best);
		res->replaced = 1;
		keep_ever(s, s->best, m_best);
	}
	if (res->substeps && !(res->merit_last <= m_best)) {
		res->flags |= PX_ACCEL_FALLBACK;
		s->fallbacks++;
	}
	if (s->backoff && !improved) {
		s->skip = s->skip ? px_min(2.0 * (double)s->skip, 64.0) : 1;
		s->wait = s->skip;
	} else {
		s->skip = 0;
	}
	s->not_spd += (res->flags & PX_ACCEL_NOT_SPD) != 0;
	s->singular += (res->flags & PX_ACCEL_SINGULAR) != 0;
	s->cg_limit += (res->flags & PX_ACCEL_INNER_LIMIT) != 0;
	s->substeps += res->substeps;
	res->merit_out = m_best;
}

/* Silcowitz et al. 2010, sec. 4.3: "a fall back to the best iterate found while
 * iterating". */
static void pgssm_finish(void *state, const struct px_accel_host *h,
			 struct px_accel_result *res)
{
	struct pgssm *s = state;
	const struct px_problem_info *p = h->p;
	double mx;

	p->apply(p->ctx, h->lambda, s->v, 1);
	mx = res->merit_in = res->merit_last = merit(h, h->lambda, s->v);
	res->merit_out = mx;
	if (s->ever_merit < mx) {
		memcpy(h->lambda, s->ever, s->rows * sizeof *s->ever);
		res->replaced = 1;
		res->merit_out = s->ever_merit;
		res->flags |= PX_ACCEL_FALLBACK;
	}
}

static void pgssm_describe(const void *state, char *buf, size_t len)
{
	const struct pgssm *s = state;

	snprintf(buf, len,
		 "k_pgs %llu, k_sm %llu: %llu calls ran (%llu skipped backing off), %llu subspace steps, %llu CG iterations; calls that met an indefinite reduced system %llu, a singular one %llu, hit the CG limit %llu, fell back to an earlier iterate %llu; last %zu of %zu rows free",
		 (unsigned long long)s->k_pgs, (unsigned long long)s->k_sm,
		 (unsigned long long)s->steps,
		 (unsigned long long)s->skipped,
		 (unsigned long long)s->substeps,
		 (unsigned long long)s->cg_its,
		 (unsigned long long)s->not_spd,
		 (unsigned long long)s->singular,
		 (unsigned long long)s->cg_limit,
		 (unsigned long long)s->fallbacks, s->last_free, s->rows);
}

/* What `proxima plugins --describe pgssm` prints (ABI 1.4). */
static const char pgssm_doc[] =
	"Projected Gauss-Seidel subspace minimization (PGS-SM, Silcowitz et al.\n"
	"2010, sec. 4): after every k_pgs accepted sweeps the driver calls this\n"
	"plugin, which takes up to k_sm subspace steps, each:\n"
	"\n"
	"    1. index sets from lambda (Silcowitz et al. 2010, eq. 19): normal\n"
	"       rows free when lambda_n > 0; a box row free strictly inside its\n"
	"       bounds, held at a bound otherwise; for disc and ellipsoid a\n"
	"       sliding contact's friction held along the set's normal and free\n"
	"       along its boundary, with a tangential compliance |v_f| /\n"
	"       |lambda_f|\n"
	"    2. the reduced system on the free rows (Silcowitz et al. 2010, eq.\n"
	"       22), solved by conjugate gradients matrix-free (one product with\n"
	"       A per iteration), preconditioned per contact (precond = block)\n"
	"       or plain as in Silcowitz et al. 2010 (precond = none)\n"
	"    3. the bounds updated for the new normal impulses and lambda\n"
	"       projected onto them (Silcowitz et al. 2010, Alg. lines 13-15)\n"
	"    4. the natural-map residual with unit r as its merit\n"
	"\n"
	"A call returns the best iterate it saw, its entry iterate included (the\n"
	"fallback of Silcowitz et al. 2010, sec. 4.3): it never leaves lambda\n"
	"worse by that merit. A reduced system found indefinite is dropped\n"
	"(flagged); a singular one stops CG with what it has. Before each CG\n"
	"iteration it asks the driver for the time left of [solver]\n"
	"time_limit: with none left the call stops there with its best\n"
	"iterate and the solve ends as a time limit. Work is counted as\n"
	"Silcowitz et al. (2010) do, in PGS iterations: one product with A is\n"
	"one sweep equivalent.\n"
	"\n"
	"Choose it for small, stiff problems that PGS converges slowly on: large\n"
	"mass ratios, stacks at rest, static friction. Silcowitz et al. (2010)\n"
	"found it much better than PGS for small configurations and similar for\n"
	"large ones; bench/pgssm.sh measured the heavy slab on light boxes\n"
	"(1000:1) reaching 1e-10 with 52 sweeps and 732 products where PGS took\n"
	"13504 sweeps, and it losing on OneObject and Capsules. It pays only with\n"
	"an accurate merit (fc3d) and a tight tolerance. Parameters: k_pgs and\n"
	"k_sm as Silcowitz et al. 2010 (25, 5); cg_max = 0 is Silcowitz et al.'s\n"
	"(2010) limit (the free rows); gamma > 0 regularizes the reduced matrix\n"
	"(Silcowitz et al. 2010, sec. 5.1), all free rows or only the friction\n"
	"rows (regularize), which damps the contact forces; backoff skips calls\n"
	"after calls that did not help, bounding the work wasted where subspace\n"
	"steps fail.\n";

static const struct px_accelerator_ops pgssm_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "pgssm",
		.summary = "PGS subspace minimization (Silcowitz et al. 2010): every k_pgs sweeps, k_sm CG solves on the free rows; never returns a worse iterate",
		.params = pgssm_params,
		.n_params = sizeof pgssm_params / sizeof *pgssm_params,
		.create = pgssm_create,
		.destroy = pgssm_destroy,
	},
	.prepare = pgssm_prepare,
	.step = pgssm_step,
	.finish = pgssm_finish,
	.describe = pgssm_describe,
	.doc = pgssm_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &pgssm_ops.h;
}
