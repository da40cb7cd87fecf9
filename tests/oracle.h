/* Independent oracles for a claimed solution lambda of a contact problem:
 * what a test checks a solver's answer with, computed here from the dense A
 * (px_problem_to_dense) and b alone, never by the solver's kernel or by
 * px_merit_fc3d.
 *
 * 1. Coulomb's law contact by contact (oracle_contact_laws). With u = A
 *    lambda + b computed here, d_k > 0 contact k's own normal diagonal A_nn
 *    (a velocity divided by d_k is an impulse), t_k the sums |b_i| +
 *    sum_j |A_ij lambda_j| over its rows i (the size of the terms its u_k
 *    adds up, which bounds how well u_k can be known) and s_k =
 *    max(||lambda_k||, ||t_k|| / d_k) the contact's own scale, three
 *    residuals in impulse units, each of which must be at most rel s_k +
 *    abs:
 *      normal    |min(lambda_n, u_n / d_k)|: lambda_n >= 0, u_n >= 0 and
 *                lambda_n u_n = 0;
 *      cone      max(0, ||lambda_f|| - mu lambda_n): the friction disc;
 *      friction  min(mu lambda_n + lambda_f . u_f / ||u_f||, ||u_f|| / d_k)
 *                (0 when u_f = 0): maximal dissipation, that is sticking
 *                (u_f = 0) or sliding with lambda_f at the disc's edge
 *                opposite u_f (the first term is >= 0 on the disc and 0
 *                exactly there).
 *    No problem-wide maximum enters a contact's bound: a lightly loaded
 *    contact is held to its own scale.
 * 2. Siconos's error (oracle_fc3d): the natural-map residual of De Saxce's
 *    formulation, ||F(r)|| / max(||q||, ||r||, ||A r + q||) with F_k = r_k -
 *    P_K(r_k - u_k - mu ||u_kT|| e_n), computed twice independently of
 *    proxima: here on the dense A with a projection written here, and, when
 *    configure found Siconos numerics (PX_HAVE_SICONOS), by Siconos's own
 *    fc3d_compute_error on the same lambda. oracle_fc3d fails the test
 *    unless both agree with px_merit_fc3d to rounding, and returns the
 *    Siconos value (the dense one without Siconos). */
#ifndef PX_TEST_ORACLE_H
#define PX_TEST_ORACLE_H

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#ifdef PX_HAVE_SICONOS
#include <FrictionContactProblem.h>
#include <NumericsMatrix.h>
#include <fc3d_compute_error.h>
#endif

/* u = A lambda + b on the dense A (m x m, row-major); malloc'd, with A
 * into *a_out (malloc'd) when not NULL and the terms' sizes |b_i| + sum_j
 * |A_ij lambda_j| into t (m) when not NULL. */
static inline double *oracle_velocity_terms(const struct px_problem *p,
					    const double *lambda,
					    double **a_out, double *t)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	const double *b = px_problem_b_const(p);
	double *a = malloc((m ? m * m : 1) * sizeof *a);
	double *u = malloc((m ? m : 1) * sizeof *u);

	cr_assert(a && u);
	cr_assert_eq(px_problem_to_dense(p, a), PX_OK);
	for (size_t i = 0; i < m; i++) {
		double s = b[i], size = fabs(b[i]);

		for (size_t j = 0; j < m; j++) {
			s += a[i * m + j] * lambda[j];
			size += fabs(a[i * m + j] * lambda[j]);
		}
		u[i] = s;
		if (t)
			t[i] = size;
	}
	if (a_out)
		*a_out = a;
	else
		free(a);
	return u;
}

static inline double *oracle_velocity(const struct px_problem *p,
				      const double *lambda, double **a_out)
{
	return oracle_velocity_terms(p, lambda, a_out, NULL);
}

/* The three residuals of contact k (see the top of this file) into r[3]:
 * normal, cone, friction, in impulse units; returns the contact's scale. */
static inline double oracle_contact_residuals(const double l[3],
					      const double v[3],
					      const double tk[3], double d,
					      double mu, double r[3])
{
	const double lf = hypot(l[1], l[2]), vf = hypot(v[1], v[2]);
	const double scale = fmax(sqrt(l[0] * l[0] + lf * lf),
				  sqrt(tk[0] * tk[0] + tk[1] * tk[1] +
				       tk[2] * tk[2]) / d);

	r[0] = fabs(fmin(l[0], v[0] / d));
	r[1] = fmax(0.0, lf - mu * l[0]);
	r[2] = vf > 0.0 ? fmin(fabs(mu * l[0] + (l[1] * v[1] + l[2] * v[2]) / vf),
			       vf / d)
			: 0.0;
	return scale;
}

/* Coulomb's law (the disc) on every contact of p at lambda, each residual
 * at most rel s_k + abs; prints each violation (with what) and returns
 * their number. The largest residual over s_k goes into *worst when not
 * NULL. */
static inline int oracle_contact_laws_worst(const struct px_problem *p,
					    const double *lambda, double rel,
					    double abs, const char *what,
					    double *worst)
{
	static const char *const name[3] = {"normal", "cone", "friction"};
	const size_t n = px_problem_n_contacts(p);
	const uint32_t bs = px_problem_block_size(p);
	const size_t m = n * bs;
	const struct px_friction_params *fr = px_problem_friction_const(p);
	double *t = malloc((m ? m : 1) * sizeof *t), *a;
	double *u = oracle_velocity_terms(p, lambda, &a, t);
	double w = 0.0;
	int bad = 0;

	cr_assert_not_null(t);
	cr_assert_geq(bs, 3);
	for (size_t k = 0; k < n; k++) {
		const size_t o = k * bs;
		const double d = a[o * m + o];
		double r[3], s;

		cr_assert_gt(d, 0.0, "%s: contact %zu: A_nn = %g", what, k, d);
		s = oracle_contact_residuals(lambda + o, u + o, t + o, d,
					     fr[k].mu, r);
		for (int i = 0; i < 3; i++) {
			if (s > 0.0)
				w = fmax(w, r[i] / s);
			if (!(r[i] <= rel * s + abs)) {
				fprintf(stderr,
					"%s: contact %zu: %s residual %.3e > %.1e x scale %.3e + %.1e (lambda %g %g %g, u %g %g %g, mu %g)\n",
					what, k, name[i], r[i], rel, s, abs,
					lambda[o], lambda[o + 1], lambda[o + 2],
					u[o], u[o + 1], u[o + 2], fr[k].mu);
				bad++;
			}
		}
	}
	if (worst)
		*worst = w;
	free(t);
	free(a);
	free(u);
	return bad;
}

static inline int oracle_contact_laws(const struct px_problem *p,
				      const double *lambda, double rel,
				      double abs, const char *what)
{
	return oracle_contact_laws_worst(p, lambda, rel, abs, what, NULL);
}

/* Siconos's F_k (see the top of this file) of one contact into f[3]. */
static inline void oracle_natural_map(const double r[3], const double u[3],
				      double mu, double f[3])
{
	const double y0 = r[0] - u[0] - mu * hypot(u[1], u[2]);
	const double y1 = r[1] - u[1], y2 = r[2] - u[2];
	const double yt = hypot(y1, y2);
	double pr[3];

	if (yt <= mu * y0) { /* inside the cone */
		pr[0] = y0;
		pr[1] = y1;
		pr[2] = y2;
	} else if (mu * yt <= -y0) { /* inside its polar cone */
		pr[0] = pr[1] = pr[2] = 0.0;
	} else { /* onto the cone's surface: a ray through (1, mu t/|t|) */
		const double c = (y0 + mu * yt) / (1.0 + mu * mu);

		pr[0] = c;
		pr[1] = mu * c * y1 / yt;
		pr[2] = mu * c * y2 / yt;
	}
	for (int i = 0; i < 3; i++)
		f[i] = r[i] - pr[i];
}

/* The fc3d error computed here on the dense A (rows n, s, t of each
 * block). */
static inline double oracle_fc3d_dense(const struct px_problem *p,
				       const double *lambda)
{
	const size_t n = px_problem_n_contacts(p);
	const uint32_t bs = px_problem_block_size(p);
	const double *b = px_problem_b_const(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	double *u = oracle_velocity(p, lambda, NULL);
	double f2 = 0.0, q2 = 0.0, r2 = 0.0, u2 = 0.0, scale;

	for (size_t k = 0; k < n; k++) {
		double f[3];

		oracle_natural_map(lambda + k * bs, u + k * bs, fr[k].mu, f);
		for (int i = 0; i < 3; i++) {
			f2 += f[i] * f[i];
			q2 += b[k * bs + i] * b[k * bs + i];
			r2 += lambda[k * bs + i] * lambda[k * bs + i];
			u2 += u[k * bs + i] * u[k * bs + i];
		}
	}
	free(u);
	scale = sqrt(fmax(q2, fmax(r2, u2)));
	return scale > DBL_EPSILON ? sqrt(f2) / scale : sqrt(f2);
}

#ifdef PX_HAVE_SICONOS
/* Siconos's fc3d_compute_error of lambda on p, given to Siconos as a dense
 * 3n x 3n problem. Blocks wider than 3 rows (the torsional row of the
 * ellipsoid) fold their extra columns' share A_{nst,x} lambda_x into q,
 * so that Siconos's w = M r + q is proxima's u on the (n, s, t) rows; the
 * scale is still max(||b_nst||, ||r||, ||w||). */
static inline double oracle_fc3d_siconos(const struct px_problem *p,
					 const double *lambda)
{
	const size_t n = px_problem_n_contacts(p);
	const uint32_t bs = px_problem_block_size(p);
	const size_t m = n * bs, m3 = 3 * n;
	const double *b = px_problem_b_const(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	double *a, *u = oracle_velocity(p, lambda, &a);
	double *q = malloc(m3 * sizeof *q), *mu = malloc(n * sizeof *mu);
	double *z = malloc(m3 * sizeof *z), *w = malloc(m3 * sizeof *w);
	double norm_q = 0.0, e = NAN;
	NumericsMatrix *mat = NM_create(NM_DENSE, (int)m3, (int)m3);
	FrictionContactProblem *fc;

	cr_assert(q && mu && z && w && mat);
	for (size_t k = 0; k < n; k++) {
		mu[k] = fr[k].mu;
		for (size_t i = 0; i < 3; i++) {
			const size_t row = k * bs + i;
			double qi = b[row];

			for (size_t c = 0; c < m; c++)
				if (c % bs >= 3)
					qi += a[row * m + c] * lambda[c];
			q[3 * k + i] = qi;
			z[3 * k + i] = lambda[row];
			norm_q += b[row] * b[row];
			for (size_t l = 0; l < n; l++)
				for (size_t j = 0; j < 3; j++)
					/* column-major, as Siconos stores */
					mat->matrix0[(3 * l + j) * m3 + 3 * k + i] =
						a[row * m + l * bs + j];
		}
	}
	fc = frictionContactProblem_new_with_data(3, (int)n, mat, q, mu);
	cr_assert_not_null(fc);
	/* no solver options: the error needs none (NSGS's, created and
	 * deleted, leak their internal solver's struct) */
	fc3d_compute_error(fc, z, w, 1e-300, NULL, sqrt(norm_q), &e);
	for (size_t i = 0; i < m3; i++)
		cr_assert(fabs(w[i] - u[i / 3 * bs + i % 3]) <=
				  1e-12 * (1.0 + fabs(u[i / 3 * bs + i % 3])),
			  "Siconos's w[%zu] = %g, here u = %g", i, w[i],
			  u[i / 3 * bs + i % 3]);
	/* frictionContactProblem_free frees M, q and mu */
	frictionContactProblem_free(fc);
	free(z);
	free(w);
	free(a);
	free(u);
	return e;
}
#endif

/* Whether two computations of one error agree to rounding: the residual
 * F cancels near a solution, so an absolute floor relative to the scale
 * (the errors are relative) goes beside the relative bound. */
static inline int oracle_agree(double x, double y)
{
	return fabs(x - y) <= fmax(1e-9 * fmax(fabs(x), fabs(y)),
				   1e-13);
}

/* The fc3d error of lambda as Siconos computes it (see the top of this
 * file), after checking that the dense computation here, Siconos's and
 * px_merit_fc3d agree to rounding. */
static inline double oracle_fc3d(const struct px_problem *p,
				 const double *lambda)
{
	const double dense = oracle_fc3d_dense(p, lambda);
	const double px = px_merit_fc3d(p, lambda, NULL);

	cr_assert(oracle_agree(dense, px),
		  "fc3d error: here %.17g, px_merit_fc3d %.17g", dense, px);
#ifdef PX_HAVE_SICONOS
	{
		const double sic = oracle_fc3d_siconos(p, lambda);

		cr_assert(oracle_agree(sic, px),
			  "fc3d error: Siconos %.17g, px_merit_fc3d %.17g", sic,
			  px);
		return sic;
	}
#else
	return dense;
#endif
}

/* A claimed solution, checked: Coulomb's law on every contact to rel
 * s_k + abs (see the top of this file) and the fc3d error, computed
 * independently, at most fc3d_tol. what names the case in messages.
 * Returns the largest residual over its contact's scale (to log). */
static inline double assert_solution(const struct px_problem *p,
				     const double *lambda, double rel,
				     double abs, double fc3d_tol,
				     const char *what)
{
	const double e = oracle_fc3d(p, lambda);
	double worst;

	cr_assert_leq(e, fc3d_tol, "%s: fc3d error %g (Siconos's formula, computed outside proxima) > %g",
		      what, e, fc3d_tol);
	cr_assert_eq(oracle_contact_laws_worst(p, lambda, rel, abs, what,
					       &worst),
		     0, "%s: Coulomb's law violated (see above)", what);
	return worst;
}

#endif
