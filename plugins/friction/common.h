/* Numerics shared by the friction plugins (disc, box, ellipsoid): which
 * coefficient applies to which row, power-of-two scaling, bisection
 * midpoints, small symmetric solves and the projection onto an ellipsoid in
 * the metric of an SPD block (plugin.h, project_metric). Compiled into each
 * plugin that uses it; hidden, never exported (tests/plugin_symbols.sh). */
#ifndef PX_FRICTION_COMMON_H
#define PX_FRICTION_COMMON_H

#include <stdint.h>

#include <proxima/plugin.h>

/* Largest number of friction rows a contact has (s, t, tau). */
#define PX_NF_MAX 3u

/* A semi-axis below this fraction of the problem's size (its largest |z_i|
 * or semi-axis) pins its row at 0, off by at most that fraction: its
 * square would leave the normal doubles, and the bisections with it. */
#define PX_AXIS_MIN 0x1p-511

/* The friction bounds of one contact, row by row, for the sets whose size
 * is a coefficient times lambda_n (box, ellipsoid):
 *   s:   fp->mu_s,   or fp->mu when fp->mu_s is 0
 *   t:   fp->mu_t,   or fp->mu when fp->mu_t is 0
 *   tau: fp->mu_tau, or mu_tau_default (the plugin's `mu_tau`) when 0.
 * Files that carry one mu (mu_s = mu_t = mu, mu_tau = 0) thus give the
 * isotropic set with the plugin's torsional coefficient. A bound that is
 * not > 0 (lambda_n = 0, a zero coefficient) pins its row at 0. */
void px_friction_bounds(const struct px_friction_params *fp,
			double mu_tau_default, double lambda_n, uint32_t nf,
			double *bound);

/* A midpoint of [lo, hi] (0 <= lo < hi, finite) halfway in the ordering of
 * the doubles' bit patterns: it halves the exponent range first, then the
 * mantissa, so a bisection reaches adjacent doubles in at most 64 steps
 * whatever the size of the root relative to hi. Returns lo or hi once they
 * are adjacent (the bracket no longer shrinks). */
double px_bisect_mid(double lo, double hi);

/* Solve s x = r for a k x k (k <= 3) symmetric matrix s stored with row
 * stride 3, by Cholesky (plugin.h's px_cholesky). Returns 0, or -1 when a pivot is not positive
 * (s is not numerically positive definite); x is then unspecified. */
int px_sym_solve(const double *s, uint32_t k, const double *r, double *x);

/* Whether g (nf x nf) is a positive multiple of I: the metric projection
 * is then the Euclidean one, which callers use for bit-equal results. */
int px_metric_is_scalar(const double *g, uint32_t nf);

/* The symmetric part of g (nf x nf, row-major, nf <= 3) scaled by a power
 * of two to entries below 1, into m (row stride 3). Returns 0 when it is
 * positive definite with every Cholesky pivot above 1e-13 of its largest
 * entry, else -1 (singular, indefinite, ill-conditioned beyond ~1e13 or not
 * finite: callers fall back to the Euclidean projection). Scaling g does
 * not move argmin (x - z)^T g (x - z). */
int px_metric_load(const double *g, uint32_t nf, double *m);

/* z <- argmin (x - z)^T m (x - z) over {x : sum_i (x_i / a_i)^2 <= 1},
 * where a_i = 0 (not > 0, or below PX_AXIS_MIN) pins x_i at 0; m from
 * px_metric_load. z is left bit for bit as it is when it lies in the set. */
void px_metric_ellipsoid(const double *m, uint32_t n, const double *a,
			 double *z);

#endif
