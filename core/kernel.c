/* The relax kernel: one contact's update of the proximal fixed point
 * (Erleben 2017, eq. 20-24, Algorithm 2 lines 5-9)
 *
 *     z = lambda_k - R_k (A lambda + b)_k
 *     lambda_n' = max(0, z_n),   lambda_f' = prox_F(mu, lambda_n')(z_f)
 *
 * for either form of A behind one interface (struct px_kernel in plugin.h).
 * In factorized form the contact velocity is J_a w_a + J_b w_b + b_k and an
 * update adds (M^-1 J^T)(lambda' - lambda) to the two bodies' w (Catto 2005,
 * Alg. 4); the rigid form computes the same from the bodies' inverse masses and
 * inertias and the contact's lever arms and frame (problem_impl.h).
 * A part (normal or friction only) reads, computes and changes only its
 * rows, and the body velocities only through them: it costs less than a
 * full update (Poulsen et al. 2010, eq. 19-21).
 * Inside a contact the rows are updated Gauss-Seidel style: normal first,
 * then friction with the velocity the new normal impulse gives.
 *
 * Every entry point is one of two halves or their sum: solve_contact reads
 * an iterate (lambda, w) and computes a contact's new impulse; commit_to
 * writes it into an iterate. relax does both on the shared iterate; compute
 * and commit (ABI 1.2) are the halves, so that a scheduler can compute
 * several contacts from one state and apply them in its own order;
 * relax_private (ABI 1.2) does both against a thread's private copy of the
 * state that other contacts are read from (w when factorized, lambda when
 * assembled), so that contacts sharing a body can be relaxed concurrently
 * without a race (Poulsen 2010, sec. 7.1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "kernel_rigid3.h"
#include "kernel_wide.h"
#include "problem_impl.h"

/* Rows [r0, r1) of the contact velocity v_k = (A lambda + b)_k, with A's
 * product read from lambda (assembled) or the body velocities w
 * (factorized, rigid; plus a normal shift's gamma_k lambda_k,n). */
static void velocity(const struct px_kernel_ctx *c, const double *lambda,
		     const double *w, uint32_t k, uint32_t r0, uint32_t r1,
		     double *v)
{
	const struct px_problem *p = c->p;
	const uint32_t bs = p->bs;

	for (uint32_t r = r0; r < r1; r++)
		v[r] = p->b[(size_t)k * bs + r];
	if (p->form == PX_FORM_ASSEMBLED && bs == 3 && r0 == 0 && r1 == 3) {
		/* the loops below with bs known: each block's rows summed
		 * from 0 and added, in registers */
		for (size_t q = p->rowptr[k]; q < p->rowptr[k + 1]; q++) {
			double s[3] = {0.0, 0.0, 0.0};

			px_block3_mul_add(p->blocks + 9 * q,
					  lambda + 3 * (size_t)p->cols[q], s);
			v[0] += s[0];
			v[1] += s[1];
			v[2] += s[2];
		}
	} else if (p->form == PX_FORM_ASSEMBLED) {
		const size_t bb = (size_t)bs * bs;

		for (size_t q = p->rowptr[k]; q < p->rowptr[k + 1]; q++) {
			const double *blk = p->blocks + q * bb;
			const double *x = lambda + (size_t)p->cols[q] * bs;

			for (uint32_t r = r0; r < r1; r++) {
				double s = 0.0;

				for (uint32_t j = 0; j < bs; j++)
					s += blk[r * bs + j] * x[j];
				v[r] += s;
			}
		}
	} else if (p->form == PX_FORM_RIGID) {
		px_rigid_velocity(p, k, w, r0, r1, v);
	} else {
		const size_t per = 6 * (size_t)bs;
		const double *jac = p->jac + 2 * per * k;

		if (p->body_a[k] != PX_STATIC)
			px_jac_mul(v, jac, w + 6 * (size_t)p->body_a[k], r0, r1);
		if (p->body_b[k] != PX_STATIC)
			px_jac_mul(v, jac + per, w + 6 * (size_t)p->body_b[k], r0,
				   r1);
	}
	if (p->shift && r0 == 0)
		v[0] += p->shift[k] * lambda[(size_t)k * bs];
}

/* g = R_ff^-1 of a block R (its friction block symmetrized; the normal row
 * is decoupled, plugin.h). Returns 0 if R_ff is not positive definite. */
static int metric_of(const double *R, uint32_t bs, double *g)
{
	const uint32_t nf = bs - 1;
	double a[9];

	for (uint32_t i = 0; i < nf; i++)
		for (uint32_t j = 0; j < nf; j++)
			a[i * nf + j] = 0.5 * (R[(i + 1) * bs + j + 1] +
					       R[(j + 1) * bs + i + 1]);
	return px_spd_inverse(a, nf, g);
}

/* The friction rows of a block R: z_f = lambda_f - R_ff v_f, projected in
 * the metric R_ff^-1, whose fixed point is the Coulomb law (plugin.h). */
static void friction_block(const struct px_kernel_ctx *c, uint32_t k,
			   const double *v, double *out)
{
	const uint32_t bs = c->p->bs, nf = bs - 1;
	const double *R = c->r + (size_t)k * bs * bs;
	double z[3], g[9];

	for (uint32_t i = 1; i < bs; i++) {
		double s = 0.0;

		for (uint32_t j = 1; j < bs; j++)
			s += R[i * bs + j] * v[j];
		z[i - 1] = out[i] - s;
	}
	if (c->project_metric && metric_of(R, bs, g))
		c->project_metric(c->fstate, &c->p->friction[k], out[0], g, z,
				  nf);
	else
		c->project(c->fstate, &c->p->friction[k], out[0], z, nf);
	memcpy(out + 1, z, nf * sizeof *z);
}

/* The friction rows with a diagonal R. A separable set takes them one at a
 * time, each seeing the rows updated before it (scalar Gauss-Seidel, so
 * that box + local is textbook PGS); otherwise they move together. */
static void friction_diagonal(const struct px_kernel_ctx *c, uint32_t k,
			      const double *D, double *v, double *out)
{
	const uint32_t bs = c->p->bs, nf = bs - 1;
	const double *r = c->r + (size_t)k * bs;
	const struct px_friction_params *fp = &c->p->friction[k];
	double z[3];

	if (!c->separable) {
		for (uint32_t i = 1; i < bs; i++)
			z[i - 1] = out[i] - r[i] * v[i];
		c->project(c->fstate, fp, out[0], z, nf);
		memcpy(out + 1, z, nf * sizeof *z);
		return;
	}
	for (uint32_t i = 1; i < bs; i++) {
		double d;

		memcpy(z, out + 1, nf * sizeof *z);
		z[i - 1] = out[i] - r[i] * v[i];
		c->project(c->fstate, fp, out[0], z, nf);
		d = z[i - 1] - out[i];
		out[i] = z[i - 1];
		for (uint32_t j = i + 1; j < bs; j++)
			v[j] += D[j * bs + i] * d;
	}
}

/* Contact k's D^-1 for the sticking closed form, or NULL for an
 * elimination with D: at its first visit in a solve (the inverse costs
 * three eliminations, and a solve of one sweep would not use it again),
 * or where D is singular. Computed at the second visit; one thread visits
 * a contact at a time. */
static inline const double *local_inverse(const struct px_kernel_ctx *c,
					  uint32_t k, const double *D)
{
	double *inv = c->local_inv + 9 * (size_t)k;
	uint8_t *state = c->local_inv_state + k;

	switch (*state) {
	case LOCAL_INV_UNSEEN:
		*state = LOCAL_INV_SEEN;
		return NULL;
	case LOCAL_INV_SEEN:
		*state = px_local_inverse(D, inv) ? LOCAL_INV_OK
						  : LOCAL_INV_SINGULAR;
		break;
	}
	return *state == LOCAL_INV_OK ? inv : NULL;
}

/* local_forcing for contact k's Newton: none in its first full visit of
 * the solve (it starts from the given impulse, and where exact solves
 * settle every contact in one sweep, as on FrictionContact3D_1c and
 * Confeti-ex13, an inexact first answer costs a second sweep), nor in
 * visits of one part (staggered orderings; on the rigid kernel with
 * local_r there is no local_inv_state, and only they come here), nor
 * for a LOCAL_PROJECTION contact's (its full visits need no Newton). */
static inline double local_forcing(const struct px_kernel_ctx *c, uint32_t k)
{
	const uint8_t state = c->local_inv_state ? c->local_inv_state[k]
						 : LOCAL_INV_UNSEEN;

	return state == LOCAL_INV_OK || state == LOCAL_INV_SINGULAR
		       ? c->local_forcing
		       : 0.0;
}

/* The exact solve of a LOCAL_PROJECTION contact k (velocity v at lam):
 * the normal row's max(0, .) and the disc's projection, with r = 1/D. */
static void local_projection(const struct px_kernel_ctx *c, uint32_t k,
			     const double *v, const double *lam, double *out)
{
	const double *r = c->local_inv + 9 * (size_t)k;
	const double zn = lam[0] - r[0] * v[0];
	double z[2];

	out[0] = zn > 0.0 ? zn : 0.0;
	z[0] = lam[1] - r[1] * v[1];
	z[1] = lam[2] - r[1] * v[2];
	c->project(c->fstate, &c->p->friction[k], out[0], z, 2);
	out[1] = z[0];
	out[2] = z[1];
}

/* Contact k's new impulse from the iterate (lambda, w), into out[bs]: first
 * the normal row, then the friction rows with the velocity that the new
 * normal impulse gives (v_f += A_fn dlambda_n, from the diagonal block). */
static void solve_contact(const struct px_kernel_ctx *c, const double *lambda,
			  const double *w, uint32_t k, int part, double *out)
{
	const uint32_t bs = c->p->bs;
	const double *lam = lambda + (size_t)k * bs;
	const double *D = c->diag + (size_t)k * bs * bs;
	double v[4], v0[4];

	memcpy(out, lam, bs * sizeof *out);
	velocity(c, lambda, w, k, part == PX_PART_FRICTION ? 1 : 0,
		 part == PX_PART_NORMAL ? 1 : bs, v);
	if (c->local_newton) {
		if (part == PX_PART_FULL && c->local_inv_state &&
		    c->local_inv_state[k] == LOCAL_PROJECTION) {
			local_projection(c, k, v, lam, out);
			return;
		}
		if (part == PX_PART_FULL &&
		    px_local_closed_form(D, local_inverse(c, k, D), v, lam,
					 c->p->friction[k].mu, out))
			return; /* open or sticking: no Newton needed */
		memcpy(v0, v, sizeof v);
	}
	if (part != PX_PART_FRICTION) {
		const double rn = c->r_shape == PX_R_BLOCK
					  ? c->r[(size_t)k * bs * bs]
					  : c->r[(size_t)k * bs];
		const double zn = lam[0] - rn * v[0];

		out[0] = zn > 0.0 ? zn : 0.0;
		if (part == PX_PART_NORMAL) {
			if (c->local_newton)
				px_local_newton(D, v0, lam, 0.0, part, 0.0,
						0.0, 0, out);
			return;
		}
		for (uint32_t i = 1; i < bs; i++)
			v[i] += D[i * bs] * (out[0] - lam[0]);
	}
	if (c->r_shape == PX_R_BLOCK)
		friction_block(c, k, v, out);
	else
		friction_diagonal(c, k, D, v, out);
	if (c->local_newton)
		px_local_newton(D, v0, lam, c->p->friction[k].mu, part,
				c->local_tol, local_forcing(c, k),
				c->local_max_iter, out);
}

/* Contact k's block of lambda before this sweep's write, into prev. */
static inline void save_prev(const struct px_kernel_ctx *c, uint32_t k)
{
	const uint32_t bs = c->p->bs;

	if (c->prev)
		memcpy(c->prev + (size_t)k * bs, c->lambda + (size_t)k * bs,
		       bs * sizeof *c->prev);
}

/* Whether the rows [r0, r1) of a change d are all zero. */
static int no_change(const double *d, uint32_t r0, uint32_t r1)
{
	for (uint32_t i = r0; i < r1; i++)
		if (d[i] != 0.0)
			return 0;
	return 1;
}

/* Write out's rows of `part` as contact k's impulse in lambda and, when
 * factorized or rigid, add their change to the velocities w of its bodies
 * (w is not read for an assembled A). An unchanged impulse leaves w as it
 * is: adding its zero change could at most turn a -0 into +0. */
static void commit_to(const struct px_kernel_ctx *c, double *lambda, double *w,
		      uint32_t k, int part, const double *out)
{
	const struct px_problem *p = c->p;
	const uint32_t bs = p->bs;
	const uint32_t r0 = part == PX_PART_FRICTION ? 1 : 0;
	const uint32_t r1 = part == PX_PART_NORMAL ? 1 : bs;
	double *lam = lambda + (size_t)k * bs;
	double d[4];

	if (lambda == c->lambda)
		save_prev(c, k);
	for (uint32_t i = r0; i < r1; i++)
		d[i] = out[i] - lam[i];
	if (p->form == PX_FORM_ASSEMBLED || no_change(d, r0, r1)) {
		/* w is not read, or stays */
	} else if (p->form == PX_FORM_RIGID) {
		px_rigid_add(p, k, w, d, r0, r1);
	} else if (p->form == PX_FORM_FACTORIZED) {
		const size_t per = 6 * (size_t)bs;
		const double *m = p->minv_jt + 2 * per * k;

		if (p->body_a[k] != PX_STATIC)
			px_body_add(w + 6 * (size_t)p->body_a[k], m, d, bs, r0,
				    r1);
		if (p->body_b[k] != PX_STATIC)
			px_body_add(w + 6 * (size_t)p->body_b[k], m + per, d,
				    bs, r0, r1);
	}
	memcpy(lam + r0, out + r0, (r1 - r0) * sizeof *out);
}

static void kernel_compute(void *ctx, uint32_t k, int part, double *out)
{
	const struct px_kernel_ctx *c = ctx;

	if (c->rigid3 && part == PX_PART_FULL)
		px_r3_solve(c, c->w, k, out);
	else
		solve_contact(c, c->lambda, c->w, k, part, out);
}

static void kernel_store(void *ctx, uint32_t k, const double *in)
{
	struct px_kernel_ctx *c = ctx;
	const uint32_t bs = c->p->bs;

	save_prev(c, k);
	memcpy(c->lambda + (size_t)k * bs, in, bs * sizeof *in);
}

static void kernel_commit(void *ctx, uint32_t k, int part, const double *out)
{
	struct px_kernel_ctx *c = ctx;

	if (c->rigid3 && part == PX_PART_FULL)
		px_r3_commit(c, c->lambda, c->w, k, out);
	else
		commit_to(c, c->lambda, c->w, k, part, out);
}

static void kernel_relax(void *ctx, uint32_t k, int part)
{
	struct px_kernel_ctx *c = ctx;
	double out[4];

	if (c->rigid3 && part == PX_PART_FULL) {
		px_r3_solve(c, c->w, k, out);
		px_r3_commit(c, c->lambda, c->w, k, out);
		return;
	}
	solve_contact(c, c->lambda, c->w, k, part, out);
	commit_to(c, c->lambda, c->w, k, part, out);
}

static void kernel_relax_lists(void *ctx, const uint32_t *const *lists,
			       const size_t *counts, unsigned m, int part)
{
	struct px_kernel_ctx *c = ctx;
	const uint32_t bs = c->p->bs;
	const int tally = c->tally && c->prev;
	struct px_tally_part t = {0};

	if (c->wide && part == PX_PART_FULL) {
		c->wide_relax(c, lists, counts, m);
		return;
	}
	if (c->rigid3 && part == PX_PART_FULL) {
		px_r3_relax_lists(c, lists, counts, m);
		return;
	}
	for (unsigned j = 0; j < m; j++)
		for (size_t i = 0; i < counts[j]; i++) {
			const size_t at = (size_t)lists[j][i] * bs;

			kernel_relax(ctx, lists[j][i], part);
			if (tally)
				px_tally_block(&t, c->lambda + at, c->prev + at,
					       bs);
		}
	if (tally)
		px_tally_merge(c->tally, &t);
}

/* The state other contacts are read from: w (factorized, rigid) or
 * lambda (assembled). */
static size_t private_size(const struct px_problem *p)
{
	return p->form != PX_FORM_ASSEMBLED ? 6 * p->n_bodies
					     : p->n * (size_t)p->bs;
}

static void kernel_private_load(void *ctx, double *priv)
{
	const struct px_kernel_ctx *c = ctx;

	memcpy(priv,
	       c->p->form != PX_FORM_ASSEMBLED ? c->w : c->lambda,
	       private_size(c->p) * sizeof *priv);
}

/* relax against a private copy: factorized or rigid, priv holds the body
 * velocities (the shared w goes stale); assembled, priv holds lambda and
 * contact k's new impulse goes to both copies. */
static void kernel_relax_private(void *ctx, uint32_t k, int part, double *priv)
{
	struct px_kernel_ctx *c = ctx;
	double out[4];

	if (c->rigid3 && part == PX_PART_FULL) {
		px_r3_solve(c, priv, k, out);
		px_r3_commit(c, c->lambda, priv, k, out);
	} else if (c->p->form != PX_FORM_ASSEMBLED) {
		solve_contact(c, c->lambda, priv, k, part, out);
		commit_to(c, c->lambda, priv, k, part, out);
	} else {
		solve_contact(c, priv, NULL, k, part, out);
		commit_to(c, priv, NULL, k, part, out);
		commit_to(c, c->lambda, NULL, k, part, out);
	}
}

static void kernel_refresh(void *ctx, size_t begin, size_t end)
{
	struct px_kernel_ctx *c = ctx;
	const struct px_problem *p = c->p;
	const uint32_t bs = p->bs;
	const size_t per = 6 * (size_t)bs;

	if (p->form == PX_FORM_ASSEMBLED)
		return;
	for (size_t body = begin; body < end; body++) {
		double *w = c->w + 6 * body;

		memset(w, 0, 6 * sizeof *w);
		for (size_t q = c->inc_ptr[body]; q < c->inc_ptr[body + 1]; q++) {
			const uint32_t k = c->inc[q] >> 1, side = c->inc[q] & 1;
			const double *lam = c->lambda + (size_t)k * bs;

			if (p->form == PX_FORM_RIGID) {
				double P[3];

				px_rigid_world_impulse(p, k, lam, 0, 3, P);
				px_rigid_side_add(p, k, side, w, P);
			} else
				px_body_add(w, p->minv_jt + 2 * per * k +
						       side * per,
					    lam, bs, 0, bs);
		}
	}
}

void px_kernel_impulses(struct px_kernel_ctx *c, size_t begin, size_t end)
{
	const struct px_problem *p = c->p;

	for (size_t k = begin; k < end; k++)
		px_rigid_world_impulse(p, k, c->lambda + 3 * k, 0, 3,
				       c->impulse + 3 * k);
}

void px_kernel_refresh_rigid(struct px_kernel_ctx *c, size_t begin,
			     size_t end)
{
	const struct px_problem *p = c->p;

	/* px_rigid_side_add's arithmetic, with the body's mass and inertia
	 * read once (the incidence's body is this one) */
	for (size_t body = begin; body < end; body++) {
		const double im = p->inv_mass[body];
		const double *ii = p->inv_inertia + 6 * body;
		double *w = c->w + 6 * body;

		memset(w, 0, 6 * sizeof *w);
		for (size_t q = c->inc_ptr[body]; q < c->inc_ptr[body + 1];
		     q++) {
			const uint32_t k = c->inc[q] >> 1, side = c->inc[q] & 1;

			px_body_impulse(w, im, ii, p->lever + 6 * k + 3 * side,
					c->impulse + 3 * k, side ? -1.0 : 1.0);
		}
	}
}

static int block_is_zero(const double *blk, size_t bb)
{
	for (size_t i = 0; i < bb; i++)
		if (blk[i] != 0.0)
			return 0;
	return 1;
}

/* Append the neighbours of contact k (unique, via the mark array) to adj. */
static size_t neighbours(const struct px_kernel_ctx *c, uint32_t k,
			 uint32_t *mark, uint32_t *adj, size_t at)
{
	const struct px_problem *p = c->p;

	mark[k] = k;
	if (p->form == PX_FORM_ASSEMBLED) {
		const size_t bb = (size_t)p->bs * p->bs;

		for (size_t q = p->rowptr[k]; q < p->rowptr[k + 1]; q++) {
			uint32_t j = p->cols[q];

			if (mark[j] != k && !block_is_zero(p->blocks + q * bb, bb)) {
				mark[j] = k;
				adj[at++] = j;
			}
		}
		/* A may be non-symmetric: a block (j, k) couples them too. */
		for (size_t q = c->tr_ptr[k]; q < c->tr_ptr[k + 1]; q++) {
			uint32_t j = c->tr[q];

			if (mark[j] != k) {
				mark[j] = k;
				adj[at++] = j;
			}
		}
		return at;
	}
	for (uint32_t side = 0; side < 2; side++) {
		uint32_t b = side ? p->body_b[k] : p->body_a[k];

		if (b == PX_STATIC)
			continue;
		for (size_t q = c->inc_ptr[b]; q < c->inc_ptr[b + 1]; q++) {
			uint32_t j = c->inc[q] >> 1;

			if (mark[j] != k) {
				mark[j] = k;
				adj[at++] = j;
			}
		}
	}
	return at;
}

/* For assembled A: the transpose pattern of its non-zero off-diagonal blocks. */
static int build_transpose(struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;
	const size_t n = p->n, bb = (size_t)p->bs * p->bs;

	c->tr_ptr = calloc(n + 1, sizeof *c->tr_ptr);
	c->tr = malloc((p->rowptr[n] + 1) * sizeof *c->tr);
	if (!c->tr_ptr || !c->tr)
		return PX_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t q = p->rowptr[i]; q < p->rowptr[i + 1]; q++)
			if (p->cols[q] != i && !block_is_zero(p->blocks + q * bb, bb))
				c->tr_ptr[p->cols[q] + 1]++;
	for (size_t i = 0; i < n; i++)
		c->tr_ptr[i + 1] += c->tr_ptr[i];
	for (size_t i = 0; i < n; i++)
		for (size_t q = p->rowptr[i]; q < p->rowptr[i + 1]; q++)
			if (p->cols[q] != i && !block_is_zero(p->blocks + q * bb, bb))
				c->tr[c->tr_ptr[p->cols[q]]++] = (uint32_t)i;
	for (size_t i = n; i > 0; i--)
		c->tr_ptr[i] = c->tr_ptr[i - 1];
	c->tr_ptr[0] = 0;
	return PX_OK;
}

static int kernel_conflicts(void *ctx, const uint32_t **ptr,
			    const uint32_t **adj)
{
	struct px_kernel_ctx *c = ctx;
	const size_t n = c->p->n;
	uint32_t *mark = NULL, *row = NULL;
	size_t total = 0, at = 0;

	if (c->conf_ptr)
		goto done;
	if (c->p->form == PX_FORM_ASSEMBLED && !c->tr_ptr && build_transpose(c))
		return PX_ERR_NOMEM;
	mark = malloc(n * sizeof *mark);
	row = malloc(n * sizeof *row);
	c->conf_ptr = malloc((n + 1) * sizeof *c->conf_ptr);
	if (!mark || !row || !c->conf_ptr)
		goto nomem;
	/* Two passes: count, then fill. */
	for (size_t k = 0; k < n; k++)
		mark[k] = UINT32_MAX;
	for (size_t k = 0; k < n; k++)
		total += neighbours(c, (uint32_t)k, mark, row, 0);
	c->conf = malloc((total + 1) * sizeof *c->conf);
	if (!c->conf)
		goto nomem;
	for (size_t k = 0; k < n; k++)
		mark[k] = UINT32_MAX;
	for (size_t k = 0; k < n; k++) {
		c->conf_ptr[k] = (uint32_t)at;
		at = neighbours(c, (uint32_t)k, mark, c->conf, at);
	}
	c->conf_ptr[n] = (uint32_t)at;
	free(mark);
	free(row);
done:
	*ptr = c->conf_ptr;
	*adj = c->conf;
	return PX_OK;
nomem:
	free(mark);
	free(row);
	free(c->conf_ptr);
	c->conf_ptr = NULL;
	return PX_ERR_NOMEM;
}

int px_kernel_init(struct px_kernel_ctx *c, struct px_kernel *kern,
		   const struct px_problem *p, double *lambda, double *w,
		   const double *diag, const double *r, uint32_t r_shape,
		   const struct px_friction_ops *fops, const void *fstate,
		   int generic)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->lambda = lambda;
	c->w = w;
	c->diag = diag;
	c->r = r;
	c->r_shape = r_shape;
	c->project = fops->project;
	c->project_metric = px_friction_project_metric(fops);
	c->separable = (fops->flags & PX_FRICTION_SEPARABLE) != 0;
	c->keeps_disc = (fops->flags & PX_FRICTION_KEEPS_DISC) != 0;
	c->is_disc = (fops->flags & PX_FRICTION_IS_DISC) != 0;
	c->fstate = fstate;
	if (p->form != PX_FORM_ASSEMBLED &&
	    px_problem_incidence(p, &c->inc_ptr, &c->inc)) {
		px_kernel_fini(c);
		return PX_ERR_NOMEM;
	}
	if (p->form == PX_FORM_RIGID &&
	    !(c->impulse = malloc(3 * p->n * sizeof *c->impulse))) {
		px_kernel_fini(c);
		return PX_ERR_NOMEM;
	}
	c->rigid3 = !generic && px_r3_applies(c);
	if (c->rigid3 && px_r3_init(c)) {
		px_kernel_fini(c);
		return PX_ERR_NOMEM;
	}
	kern->ctx = c;
	kern->n_contacts = p->n;
	kern->n_bodies = p->n_bodies;
	kern->bs = p->bs;
	kern->relax = kernel_relax;
	kern->compute = kernel_compute;
	kern->store = kernel_store;
	kern->refresh = kernel_refresh;
	kern->conflicts = kernel_conflicts;
	kern->commit = kernel_commit;
	kern->private_size = private_size(p);
	kern->private_load = kernel_private_load;
	kern->relax_private = kernel_relax_private;
	kern->relax_lists = kernel_relax_lists;
	kern->body_a = p->form == PX_FORM_ASSEMBLED ? NULL : p->body_a;
	kern->body_b = p->form == PX_FORM_ASSEMBLED ? NULL : p->body_b;
	return PX_OK;
}

/* Whether one projection with r = 1/D solves the one-contact problem of
 * diagonal block D exactly (px_local_newton's answer up to rounding):
 * rows uncoupled and the friction rows' diagonal equal, to 1e-14 of the
 * diagonal, so that the normal row's max(0, .) and the disc's radial
 * projection in that metric are the problem's own minimizers. */
static int projection_exact(const double *D)
{
	const double tol = 1e-14 * (D[0] > D[4] ? D[0] : D[4]);

	return D[0] > 0.0 && D[4] > 0.0 && D[0] < HUGE_VAL &&
	       D[4] < HUGE_VAL && fabs(D[1]) <= tol && fabs(D[2]) <= tol &&
	       fabs(D[3]) <= tol && fabs(D[5]) <= tol && fabs(D[6]) <= tol &&
	       fabs(D[7]) <= tol && fabs(D[4] - D[8]) <= 1e-14 * D[4];
}

int px_kernel_set_local(struct px_kernel_ctx *c, double tol, double forcing,
			unsigned max_iter)
{
	const size_t n = c->p->n;
	size_t k = 0;

	c->local_newton = 1;
	c->local_tol = tol;
	c->local_forcing = forcing;
	c->local_max_iter = max_iter;
	while (c->rigid3 && c->is_disc && k < n &&
	       projection_exact(c->diag + 9 * k))
		k++;
	if (!c->rigid3 || !c->is_disc || k < n) {
		c->rigid3 = 0;
		/* the states in the same block, after the inverses */
		c->local_inv = malloc(9 * n * sizeof *c->local_inv + n + 1);
		if (!c->local_inv)
			return PX_ERR_NOMEM;
		c->local_inv_state = (uint8_t *)(c->local_inv + 9 * n);
		memset(c->local_inv_state, LOCAL_INV_UNSEEN, n + 1);
		for (k = 0; k < n; k++) {
			const double *D = c->diag + 9 * k;

			if (!projection_exact(D))
				continue;
			c->local_inv_state[k] = LOCAL_PROJECTION;
			c->local_inv[9 * k] = 1.0 / D[0];
			c->local_inv[9 * k + 1] = 1.0 / D[4];
		}
		return PX_OK;
	}
	c->local_r = malloc(3 * n * sizeof *c->local_r + 1);
	if (!c->local_r)
		return PX_ERR_NOMEM;
	for (k = 0; k < n; k++) {
		const double *D = c->diag + 9 * k;

		c->local_r[3 * k] = 1.0 / D[0];
		c->local_r[3 * k + 1] = c->local_r[3 * k + 2] = 1.0 / D[4];
	}
	c->r = c->local_r;
	return PX_OK;
}

int px_kernel_set_wide(struct px_kernel_ctx *c)
{
	if (!px_wide_applies(c))
		return PX_OK;
	if (px_wide_init(c))
		return PX_ERR_NOMEM;
	px_wide_select(c);
	c->wide = 1;
	return PX_OK;
}

size_t px_kernel_bytes(const struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;
	size_t bytes = 0;

	if (c->inc_ptr)
		bytes += (p->n_bodies + 1) * sizeof *c->inc_ptr +
			 (2 * p->n + 1) * sizeof *c->inc;
	if (c->tr_ptr)
		bytes += (p->n + 1) * sizeof *c->tr_ptr +
			 (p->rowptr[p->n] + 1) * sizeof *c->tr;
	if (c->conf_ptr)
		bytes += (p->n + 1) * sizeof *c->conf_ptr +
			 (c->conf_ptr[p->n] + 1) * sizeof *c->conf;
	if (c->coef)
		bytes += 3 * p->n * sizeof *c->coef;
	if (c->impulse)
		bytes += 3 * p->n * sizeof *c->impulse;
	if (c->wcoef)
		bytes += 4 * p->n * sizeof *c->wcoef;
	if (c->local_r)
		bytes += 3 * p->n * sizeof *c->local_r;
	if (c->local_inv)
		bytes += 9 * p->n * sizeof *c->local_inv + p->n;
	return bytes + px_wide_bytes(c);
}

void px_kernel_fini(struct px_kernel_ctx *c)
{
	free(c->inc_ptr);
	free(c->inc);
	free(c->tr_ptr);
	free(c->tr);
	free(c->conf_ptr);
	free(c->conf);
	free(c->coef);
	free(c->impulse);
	free(c->wcoef);
	free(c->local_r);
	free(c->local_inv); /* and local_inv_state */
	px_wide_fini(c);
	memset(c, 0, sizeof *c);
}
