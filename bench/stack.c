/* The box column of stack.h: contact Jacobians and M^-1 J^T of boxes
 * resting on each other (003 sec. 4, 001 Appendix A). For contact point x
 * between body a above and body b below, normal z: the rows of J_a are
 * (d, r_a x d) for d = n, s, t with r_a = x - c_a, those of J_b are
 * -(d, r_b x d); M^-1 J^T is (d / m, I^-1 (r x d)) column by column, with
 * I the inertia of a solid box. */
#include <stdlib.h>
#include <string.h>

#include "stack.h"

#define HX 0.7
#define HY 0.7
#define HZ 0.3
#define MASS 110.0
#define GRAVITY 9.81
#define DT (1.0 / 60.0)

static void cross(const double a[3], const double b[3], double out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* J (3 x 6) and M^-1 J^T (6 x 3) of one side of a contact at x on a box
 * centred at c; sign +1 for the body above, -1 below. */
static void side_blocks(const double frame[9], const double x[3],
			const double c[3], double sign, double *jac,
			double *mjt)
{
	static const double inv_inertia[3] = {
		3.0 / (MASS * (HY * HY + HZ * HZ)),
		3.0 / (MASS * (HX * HX + HZ * HZ)),
		3.0 / (MASS * (HX * HX + HY * HY)),
	};
	const double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};

	for (int row = 0; row < 3; row++) {
		const double *d = frame + 3 * row;
		double rd[3];

		cross(r, d, rd);
		for (int i = 0; i < 3; i++) {
			jac[row * 6 + i] = sign * d[i];
			jac[row * 6 + 3 + i] = sign * rd[i];
			mjt[i * 3 + row] = sign * d[i] / MASS;
			mjt[(3 + i) * 3 + row] = sign * inv_inertia[i] * rd[i];
		}
	}
}

int stack_problem_create(size_t boxes, double mu, double slide,
			 struct px_problem **out, struct px_error *err)
{
	static const double frame[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
	static const double corner[4][2] = {
		{-HX, -HY}, {HX, -HY}, {-HX, HY}, {HX, HY}};
	const size_t n = 4 * boxes;
	uint32_t *ba = malloc(n * sizeof *ba), *bb = malloc(n * sizeof *bb);
	double *jac = calloc(n * 36, sizeof *jac);
	double *mjt = calloc(n * 36, sizeof *mjt);
	struct px_problem *p = NULL;
	int rc;

	*out = NULL;
	if (!ba || !bb || !jac || !mjt) {
		rc = px_error_set(err, PX_ERR_NOMEM,
				  "out of memory for a stack of %zu boxes", boxes);
		goto out;
	}
	rc = px_problem_create(n, 3, &p, err);
	if (rc)
		goto out;
	for (size_t face = 0; face < boxes; face++) {
		/* face k: box k on box k - 1, or on the ground for k = 0 */
		const double above[3] = {0, 0, HZ + 2 * HZ * (double)face};
		const double below[3] = {0, 0, above[2] - 2 * HZ};
		const double v_above = face % 2 ? -slide : slide;
		const double v_below = face == 0 ? 0.0 : -v_above;

		for (size_t c = 0; c < 4; c++) {
			const size_t k = 4 * face + c;
			const double x[3] = {corner[c][0], corner[c][1],
					     2 * HZ * (double)face};
			double *b = px_problem_b(p) + 3 * k;

			ba[k] = (uint32_t)face;
			bb[k] = face == 0 ? PX_STATIC : (uint32_t)(face - 1);
			side_blocks(frame, x, above, 1.0, jac + 36 * k,
				    mjt + 36 * k);
			if (face > 0)
				side_blocks(frame, x, below, -1.0,
					    jac + 36 * k + 18, mjt + 36 * k + 18);
			/* free velocity: gravity over dt, the boxes' slide */
			b[0] = face == 0 ? -GRAVITY * DT : 0.0;
			b[1] = v_above - v_below;
			b[2] = 0.0;
			px_problem_friction(p)[k] =
				(struct px_friction_params){mu, mu, mu, 0.0};
			rc = px_problem_set_geometry(p, k, x, frame, err);
			if (rc)
				goto out;
		}
	}
	rc = px_problem_set_factorized(p, boxes, ba, bb, jac, mjt, err);
out:
	free(ba);
	free(bb);
	free(jac);
	free(mjt);
	if (rc)
		px_problem_destroy(p);
	else
		*out = p;
	return rc;
}
