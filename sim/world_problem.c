/* The world's contact problems: bodies and lever arms, the rigid (3-row)
 * or factorized (4-row, torsion) operator A = J M^-1 J^T (Erleben 2017,
 * Appendix A) and the impulses' effect M^-1 J^T lambda on the bodies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"
#include "world_problem.h"

int px_dynamics_build(const struct px_world *w, struct px_dynamics *d,
		       struct px_error *err)
{
	size_t n = 0;

	memset(d, 0, sizeof *d);
	for (size_t i = 0; i < w->n_bodies; i++)
		n += !w->bodies[i].is_static;
	d->n = n;
	d->world = malloc((n + 1) * sizeof *d->world);
	d->dyn = malloc((w->n_bodies + 1) * sizeof *d->dyn);
	d->inv_mass = malloc((n + 1) * sizeof *d->inv_mass);
	d->inv_inertia = malloc((9 * n + 1) * sizeof *d->inv_inertia);
	if (!d->world || !d->dyn || !d->inv_mass || !d->inv_inertia) {
		px_dynamics_free(d);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	n = 0;
	for (size_t i = 0; i < w->n_bodies; i++) {
		const struct px_body *b = w->bodies + i;
		double r[9], *ii;

		if (b->is_static) {
			d->dyn[i] = PX_STATIC;
			continue;
		}
		d->dyn[i] = (uint32_t)n;
		d->world[n] = (uint32_t)i;
		d->inv_mass[n] = 1.0 / b->mass;
		/* I_w^-1 = R diag(1 / I) R^T */
		quat_to_matrix(b->q, r);
		ii = d->inv_inertia + 9 * n;
		/* the upper triangle, mirrored: exactly symmetric, as
		 * px_problem_set_rigid requires */
		for (int p = 0; p < 3; p++)
			for (int q = p; q < 3; q++) {
				double s = 0.0;

				for (int k = 0; k < 3; k++)
					s += r[3 * p + k] * r[3 * q + k] /
					     b->inertia[k];
				ii[3 * p + q] = ii[3 * q + p] = s;
			}
		n++;
	}
	return PX_OK;
}

void px_dynamics_free(struct px_dynamics *d)
{
	free(d->world);
	free(d->dyn);
	free(d->inv_mass);
	free(d->inv_inertia);
	memset(d, 0, sizeof *d);
}

static inline void row_build(const struct px_world *w,
			     const struct px_dynamics *d,
			     const struct px_contact *c,
			     struct px_contact_rows *r)
{
	const int flip = w->bodies[c->b].is_static;
	const uint32_t wa = flip ? c->a : c->b;
	const uint32_t wb = flip ? c->b : c->a;
	double nrm[3];

	for (int i = 0; i < 3; i++)
		nrm[i] = flip ? -c->n[i] : c->n[i];
	r->flipped = flip;
	r->world_a = wa;
	r->world_b = w->bodies[wb].is_static ? UINT32_MAX : wb;
	r->pa = d->dyn[wa];
	r->pb = d->dyn[wb];
	v3_frame(nrm, r->frame);
	v3_sub(c->p, w->bodies[wa].x, r->ra);
	v3_sub(c->p, w->bodies[wb].x, r->rb);
}

void px_contact_rows_build(const struct px_world *w,
			    const struct px_dynamics *d,
			    const struct px_contact *c, size_t n,
			    struct px_contact_rows *rows)
{
	for (size_t k = 0; k < n; k++)
		row_build(w, d, c + k, rows + k);
}

static double combine(double x, double y)
{
	return sqrt(x * y);
}

/* J (bs x 6) and M^-1 J^T (6 x bs) of one side with sign s. */
static void side_blocks(const struct px_dynamics *d, uint32_t body,
			const double frame[9], const double r[3], uint32_t bs,
			double s, double *jac, double *mjt)
{
	const double *ii = d->inv_inertia + 9 * (size_t)body;
	const double im = d->inv_mass[body];

	for (uint32_t row = 0; row < bs; row++) {
		const double *dir = frame + 3 * (row < 3 ? row : 0);
		double lin[3] = {0, 0, 0}, ang[3], iang[3];

		if (row < 3) {
			memcpy(lin, dir, sizeof lin);
			v3_cross(r, dir, ang);
		} else {
			memcpy(ang, frame, sizeof ang); /* torsion about n */
		}
		mat_mul(ii, ang, iang);
		for (int i = 0; i < 3; i++) {
			jac[row * 6 + i] = s * lin[i];
			jac[row * 6 + 3 + i] = s * ang[i];
			mjt[i * bs + row] = s * lin[i] * im;
			mjt[(3 + i) * bs + row] = s * iang[i];
		}
	}
}

/* Per contact J_a, J_b (bs x 6) into jac and (M^-1 J^T)_a, _b (6 x bs)
 * into mjt, 12 bs each per contact, row-major; the blocks of a static
 * side are left as they were (zero when calloc'd). */
static void jacobians(const struct px_dynamics *d,
		      const struct px_contact_rows *rows, size_t n,
		      uint32_t bs, double *jac, double *mjt)
{
	const size_t blk = 6 * (size_t)bs;

	for (size_t k = 0; k < n; k++) {
		const struct px_contact_rows *r = rows + k;

		if (r->pa != PX_STATIC)
			side_blocks(d, r->pa, r->frame, r->ra, bs, 1.0,
				    jac + 2 * blk * k, mjt + 2 * blk * k);
		if (r->pb != PX_STATIC)
			side_blocks(d, r->pb, r->frame, r->rb, bs, -1.0,
				    jac + 2 * blk * k + blk,
				    mjt + 2 * blk * k + blk);
	}
}

static int set_factorized(struct px_problem *p, const struct px_dynamics *d,
			  const struct px_contact_rows *rows, size_t n,
			  uint32_t bs, const uint32_t *ba, const uint32_t *bb,
			  struct px_error *err)
{
	const size_t blk = 6 * (size_t)bs;
	double *jac = calloc(2 * blk * n + 1, sizeof *jac);
	double *mjt = calloc(2 * blk * n + 1, sizeof *mjt);
	int rc;

	if (!jac || !mjt) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	jacobians(d, rows, n, bs, jac, mjt);
	rc = px_problem_set_factorized(p, d->n, ba, bb, jac, mjt, err);
out:
	free(jac);
	free(mjt);
	return rc;
}

/* px_world_problem_build; when make is rows, each contact's rows are built
 * just before they are read (px_world_rows_problem_build). */
static int problem_build(const struct px_world *w, const struct px_dynamics *d,
			 const struct px_contact *c,
			 struct px_contact_rows *make,
			 const struct px_contact_rows *rows, size_t n,
			 uint32_t bs, int frictionless, struct px_problem **out,
			 struct px_error *err)
{
	struct px_problem *p = NULL;
	struct px_friction_params *fp;
	uint32_t *ba = malloc((n + 1) * sizeof *ba);
	uint32_t *bb = malloc((n + 1) * sizeof *bb);
	/* the rigid form's lever arms, gathered in the pass below that reads
	 * the rows anyway rather than in one more over them */
	double *lever = bs == 3 ? malloc((6 * n + 1) * sizeof *lever) : NULL;
	double *e;
	int rc = px_problem_create(n, bs, &p, err);

	if (rc)
		goto out;
	if (!ba || !bb || (bs == 3 && !lever)) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	fp = px_problem_friction(p);
	e = px_problem_restitution(p);
	for (size_t k = 0; k < n; k++) {
		const struct px_body *a = w->bodies + c[k].a;
		const struct px_body *b = w->bodies + c[k].b;

		if (make)
			row_build(w, d, c + k, make + k);
		ba[k] = rows[k].pa;
		bb[k] = rows[k].pb;
		if (lever) {
			memcpy(lever + 6 * k, rows[k].ra, 3 * sizeof *lever);
			memcpy(lever + 6 * k + 3, rows[k].rb,
			       3 * sizeof *lever);
		}
		rc = px_problem_set_geometry(p, k, c[k].p, rows[k].frame, err);
		if (rc)
			goto out;
		if (!frictionless) {
			fp[k].mu = combine(a->mu, b->mu);
			fp[k].mu_s = fp[k].mu_t = fp[k].mu;
			fp[k].mu_tau = combine(a->mu_tau, b->mu_tau);
		}
		e[k] = fmax(a->restitution, b->restitution);
	}
	rc = bs == 3 ? px_problem_set_rigid(p, d->n, d->inv_mass,
					    d->inv_inertia, ba, bb, lever, err)
		     : set_factorized(p, d, rows, n, bs, ba, bb, err);
out:
	free(ba);
	free(bb);
	free(lever);
	if (rc) {
		px_problem_destroy(p);
		return rc;
	}
	*out = p;
	return PX_OK;
}

int px_world_problem_build(const struct px_world *w, const struct px_dynamics *d,
		      const struct px_contact *c,
		      const struct px_contact_rows *rows, size_t n,
		      uint32_t bs, int frictionless, struct px_problem **out,
		      struct px_error *err)
{
	return problem_build(w, d, c, NULL, rows, n, bs, frictionless, out,
			     err);
}

int px_world_rows_problem_build(const struct px_world *w,
				const struct px_dynamics *d,
				const struct px_contact *c,
				struct px_contact_rows *rows, size_t n,
				uint32_t bs, int frictionless,
				struct px_problem **out, struct px_error *err)
{
	return problem_build(w, d, c, rows, rows, n, bs, frictionless, out,
			     err);
}

/* dv of one side: linear F / m, angular I^-1 (r x F + n tau). */
static void side_apply(const struct px_dynamics *d, uint32_t body,
		       const double r[3], const double f[3], const double nt[3],
		       double s, double *dv)
{
	const double *ii = d->inv_inertia + 9 * (size_t)body;
	double tq[3], dw[3];

	v3_cross(r, f, tq);
	for (int i = 0; i < 3; i++)
		tq[i] += nt[i];
	mat_mul(ii, tq, dw);
	for (int i = 0; i < 3; i++) {
		dv[6 * body + i] += s * f[i] * d->inv_mass[body];
		dv[6 * body + 3 + i] += s * dw[i];
	}
}

void px_impulses_apply(const struct px_dynamics *d,
			const struct px_contact_rows *rows, size_t n,
			uint32_t bs, const double *lambda, double *dv)
{
	for (size_t k = 0; k < n; k++) {
		const struct px_contact_rows *r = rows + k;
		const double *l = lambda + bs * k;
		const double tau = bs == 4 ? l[3] : 0.0;
		double f[3], nt[3];

		px_contact_rows_impulse(r, l, f);
		for (int i = 0; i < 3; i++)
			nt[i] = tau * r->frame[i];
		if (r->pa != PX_STATIC)
			side_apply(d, r->pa, r->ra, f, nt, 1.0, dv);
		if (r->pb != PX_STATIC)
			side_apply(d, r->pb, r->rb, f, nt, -1.0, dv);
	}
}
