/* Merit functions.
 *   fc3d     Siconos's fc3d_compute_error (doc/references.md, Siconos): the
 *            natural-map residual of De Saxce's formulation of Coulomb
 *            friction with unit step, F_i = r_i - P_K(r_i - u_i - mu
 *            ||u_iT|| e_N), relative to max(||q||, ||r||, ||W r + q||).
 *   natural  Poulsen 2010, eq. 3.32: 1/2 ||lambda - prox(lambda - r_c (A lambda
 *            + b))||^2 with a fixed r_c and the configured friction set.
 *   minmap   Poulsen et al. 2010, eq. 22-23: 1/2 H^T H with H the min-map
 *            of the box model. */
#include <math.h>
#include <stdlib.h>

#include <proxima/solver.h>

#include "merit.h"
#include "norm2.h"
#include "problem_impl.h"

/* Projection of y = (yn, y1, y2) onto the cone {||x_T|| <= mu x_N}. */
static void project_cone(double mu, const double y[3], double out[3])
{
	double nt = px_norm2(y[1], y[2]);

	if (mu * nt <= -y[0]) {
		out[0] = out[1] = out[2] = 0.0;
	} else if (nt <= mu * y[0]) {
		out[0] = y[0];
		out[1] = y[1];
		out[2] = y[2];
	} else {
		double pn = (y[0] + mu * nt) / (1.0 + mu * mu);

		out[0] = pn;
		out[1] = mu * pn * y[1] / nt;
		out[2] = mu * pn * y[2] / nt;
	}
}

double px_merit_fc3d_ws(const struct px_problem *p, const double *lambda,
			double *u, double *abs_out)
{
	const uint32_t bs = p->bs;
	double f2 = 0.0, q2 = 0.0, r2 = 0.0, u2 = 0.0, scale;

	px_problem_apply(p, lambda, u, 1);
	for (size_t k = 0; k < p->n; k++) {
		const double *r = lambda + k * bs, *uk = u + k * bs;
		const double *q = p->b + k * bs;
		const double mu = p->friction[k].mu;
		double y[3], proj[3];

		y[0] = r[0] - uk[0] - mu * px_norm2(uk[1], uk[2]);
		y[1] = r[1] - uk[1];
		y[2] = r[2] - uk[2];
		project_cone(mu, y, proj);
		for (int i = 0; i < 3; i++) {
			double f = r[i] - proj[i];

			f2 += f * f;
			q2 += q[i] * q[i];
			r2 += r[i] * r[i];
			u2 += uk[i] * uk[i];
		}
	}
	if (abs_out)
		*abs_out = sqrt(f2);
	/* An iterate past ~1e154 overflows the sums: the error is then
	 * unknown, not 0 (inf / inf), and certainly no success. */
	if (!isfinite(f2) || !isfinite(r2) || !isfinite(u2))
		return INFINITY;
	scale = sqrt(q2);
	if (sqrt(r2) > scale)
		scale = sqrt(r2);
	if (sqrt(u2) > scale)
		scale = sqrt(u2);
	return scale > 2.220446049250313e-16 ? sqrt(f2) / scale : sqrt(f2);
}

double px_merit_fc3d(const struct px_problem *p, const double *lambda,
		     double *abs_out)
{
	double *u = malloc(p->n * p->bs * sizeof *u), e;

	if (!u)
		return NAN;
	e = px_merit_fc3d_ws(p, lambda, u, abs_out);
	free(u);
	return e;
}

/* sum ||lambda_k - prox(lambda_k - r_c v_k)||^2 over contacts, with the
 * squared norms of b, lambda and v in n2[3]. */
static double natural_sum(const struct px_problem *p, const double *lambda,
			  double *u, double r_c, px_project_fn project,
			  const void *fstate, double n2[3])
{
	const uint32_t bs = p->bs;
	double sum = 0.0;

	n2[0] = n2[1] = n2[2] = 0.0;
	px_problem_apply(p, lambda, u, 1);
	for (size_t k = 0; k < p->n; k++) {
		const double *x = lambda + k * bs, *uk = u + k * bs;
		const double *q = p->b + k * bs;
		double z[4];

		for (uint32_t i = 0; i < bs; i++)
			z[i] = x[i] - r_c * uk[i];
		z[0] = px_max(z[0], 0.0);
		project(fstate, &p->friction[k], z[0], z + 1, bs - 1);
		for (uint32_t i = 0; i < bs; i++) {
			sum += (x[i] - z[i]) * (x[i] - z[i]);
			n2[0] += q[i] * q[i];
			n2[1] += x[i] * x[i];
			n2[2] += uk[i] * uk[i];
		}
	}
	return sum;
}

double px_merit_natural_ws(const struct px_problem *p, const double *lambda,
			   double *u, double r_c, px_project_fn project,
			   const void *fstate)
{
	double n2[3];

	return 0.5 * natural_sum(p, lambda, u, r_c, project, fstate, n2);
}

double px_merit_check_ws(const struct px_problem *p, const double *lambda,
			 double *u, px_project_fn project, const void *fstate)
{
	double n2[3], f = sqrt(natural_sum(p, lambda, u, 1.0, project, fstate, n2));
	double scale = sqrt(px_max(n2[0], px_max(n2[1], n2[2])));

	return scale > 2.220446049250313e-16 ? f / scale : f;
}

/* H_i = lambda_i - mid(lo_i, lambda_i - u_i, hi_i): the normal row in
 * [0, inf), the s and t rows in [-mu lambda_n, mu lambda_n], the tau row in
 * [-mu_tau lambda_n, mu_tau lambda_n] (the box model of Poulsen et al. 2010,
 * eq. 9-10). */
double px_merit_minmap_ws(const struct px_problem *p, const double *lambda,
			  double *u)
{
	const uint32_t bs = p->bs;
	double sum = 0.0;

	px_problem_apply(p, lambda, u, 1);
	for (size_t k = 0; k < p->n; k++) {
		const double *x = lambda + k * bs, *uk = u + k * bs;
		const struct px_friction_params *fp = &p->friction[k];

		for (uint32_t i = 0; i < bs; i++) {
			double hi = i == 0   ? HUGE_VAL
				    : i == 3 ? fp->mu_tau * x[0]
					     : fp->mu * x[0];
			double lo = i == 0 ? 0.0 : -hi;
			double h = x[i] - px_max(lo, px_min(x[i] - uk[i], hi));

			sum += h * h;
		}
	}
	return 0.5 * sum;
}
