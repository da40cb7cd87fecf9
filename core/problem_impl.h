/* The layout of struct px_problem, shared by the core's own files only. */
#ifndef PX_PROBLEM_IMPL_H
#define PX_PROBLEM_IMPL_H

#include <proxima/problem.h>

struct px_problem {
	size_t n;    /* contacts */
	uint32_t bs; /* rows per contact: 3 or 4 */
	enum px_form form;
	double *b;
	struct px_friction_params *friction;
	double *restitution;
	double *position; /* 3 per contact, or NULL */
	double *frame;    /* 9 per contact, or NULL */

	/* assembled: BSR, blocks bs*bs row-major, sorted columns per row */
	size_t *rowptr;
	uint32_t *cols;
	double *blocks;
	size_t *diag_at; /* index of contact k's diagonal block in cols/blocks */

	/* factorized */
	size_t n_bodies;
	uint32_t *body_a, *body_b;
	double *jac;     /* per contact: J_a, J_b, bs x 6 row-major each */
	double *minv_jt; /* per contact: (M^-1 J^T)_a, _b, 6 x bs row-major each */
	double *scratch; /* n_bodies * 6, for px_problem_apply */
};

/* w += (M^-1 J^T)_blk[:, c0..c1) d[c0..c1), blk is 6 x bs row-major: the
 * body velocity change of the impulse rows [c0, c1) of one contact. */
static inline void px_body_add(double *w, const double *blk, const double *d,
			       uint32_t bs, uint32_t c0, uint32_t c1)
{
	for (int r = 0; r < 6; r++) {
		double s = 0.0;

		for (uint32_t c = c0; c < c1; c++)
			s += blk[r * bs + c] * d[c];
		w[r] += s;
	}
}

/* v[rows] += J_blk * w, J_blk is bs x 6, for rows [r0, r1). */
static inline void px_jac_mul(double *v, const double *jblk, const double *w,
			      uint32_t r0, uint32_t r1)
{
	for (uint32_t r = r0; r < r1; r++) {
		const double *j = jblk + r * 6;

		v[r] += j[0] * w[0] + j[1] * w[1] + j[2] * w[2] + j[3] * w[3] +
			j[4] * w[4] + j[5] * w[5];
	}
}

#endif
