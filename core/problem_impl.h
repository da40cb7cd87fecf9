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

	/* rigid (also body_a, body_b, scratch; frames in `frame`) */
	double *inv_mass;    /* n_bodies */
	double *inv_inertia; /* 6 per body: xx xy xz yy yz zz */
	double *lever;       /* 6 per contact: r_a, r_b */

	/* factorized or rigid: per contact, gamma_k added to A's entry on
	 * the normal row (soft contact), or NULL */
	double *shift;
};

/* An assembled A whose diagonal has an entry that is negative, or zero on a
 * normal row (no impulse pushes that contact apart), is no Delassus
 * operator W = H^T M^-1 H: refused by px_solve (the readers keep such files
 * readable). PX_OK for a factorized A. */
int px_problem_check_diagonal(const struct px_problem *p, struct px_error *err);

/* px_problem_diag_block of contacts [begin, end) into out (bs * bs each):
 * the solver's set-up, one call per range rather than one through the
 * PLT per contact, the rigid form's blocks without the form's test each. */
void px_problem_diag_blocks(const struct px_problem *p, size_t begin,
			    size_t end, double *out);

/* The contacts at each dynamic body of a factorized or rigid A, as CSR:
 * (*at)[b] .. (*at)[b + 1] index into *list, whose entries are
 * k << 1 | side (side 0: k's body_a, 1: body_b), in contact order. The
 * caller frees both; on PX_ERR_NOMEM both are NULL. */
int px_problem_incidence(const struct px_problem *p, size_t **at,
			 uint32_t **list);

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

/* ---- the rigid form: a body's w is (linear, angular) velocity ---- */

static inline void px_cross(const double *a, const double *b, double *out)
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double px_dot3(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* y += B x for a 3x3 row-major block B, each row's products added to y in
 * turn (as a loop over the columns would: the same rounding). */
static inline void px_block3_mul_add(const double *B, const double *x,
				     double *y)
{
	y[0] += B[0] * x[0];
	y[0] += B[1] * x[1];
	y[0] += B[2] * x[2];
	y[1] += B[3] * x[0];
	y[1] += B[4] * x[1];
	y[1] += B[5] * x[2];
	y[2] += B[6] * x[0];
	y[2] += B[7] * x[1];
	y[2] += B[8] * x[2];
}

/* y = K x, K symmetric packed as xx, xy, xz, yy, yz, zz (the layout of a
 * body's inverse inertia). */
static inline void px_sym3_mul(const double *K, const double *x, double *y)
{
	y[0] = K[0] * x[0] + K[1] * x[1] + K[2] * x[2];
	y[1] = K[1] * x[0] + K[3] * x[1] + K[4] * x[2];
	y[2] = K[2] * x[0] + K[4] * x[1] + K[5] * x[2];
}

/* u -= or += (sign) the velocity of the point at lever r on body w. */
static inline void px_point_velocity(const double *w, const double *r,
				     double sign, double *u)
{
	double wr[3];

	px_cross(w + 3, r, wr);
	for (int i = 0; i < 3; i++)
		u[i] += sign * (w[i] + wr[i]);
}

/* Body w receives the impulse sign * P at lever r: its linear velocity
 * changes by sign P / m, its angular by sign I^-1 (r x P). */
static inline void px_body_impulse(double *w, double inv_mass,
				   const double *ii, const double *r,
				   const double *P, double sign)
{
	double t[3], it[3];

	px_cross(r, P, t);
	px_sym3_mul(ii, t, it);
	for (int i = 0; i < 3; i++)
		w[i] += sign * inv_mass * P[i];
	w[3] += sign * it[0];
	w[4] += sign * it[1];
	w[5] += sign * it[2];
}

/* Rigid contact k: v[r0..r1) += frame rows . (u_a - u_b), the relative
 * velocity of the contact point from the body velocities w. */
static inline void px_rigid_velocity(const struct px_problem *p, size_t k,
				     const double *w, uint32_t r0, uint32_t r1,
				     double *v)
{
	const double *f = p->frame + 9 * k, *lev = p->lever + 6 * k;
	double du[3] = {0.0, 0.0, 0.0};

	if (p->body_a[k] != PX_STATIC)
		px_point_velocity(w + 6 * (size_t)p->body_a[k], lev, 1.0, du);
	if (p->body_b[k] != PX_STATIC)
		px_point_velocity(w + 6 * (size_t)p->body_b[k], lev + 3, -1.0,
				  du);
	for (uint32_t r = r0; r < r1; r++)
		v[r] += f[3 * r] * du[0] + f[3 * r + 1] * du[1] +
			f[3 * r + 2] * du[2];
}

/* P = the world-frame impulse of d[r0..r1) given in contact k's frame. */
static inline void px_rigid_world_impulse(const struct px_problem *p,
					  size_t k, const double *d,
					  uint32_t r0, uint32_t r1, double *P)
{
	const double *f = p->frame + 9 * k;

	P[0] = P[1] = P[2] = 0.0;
	for (uint32_t r = r0; r < r1; r++)
		for (int i = 0; i < 3; i++)
			P[i] += f[3 * r + i] * d[r];
}

/* The body on side `side` (0: a, 1: b) of rigid contact k, whose velocity
 * is w_body, receives the world impulse P (side b: -P). */
static inline void px_rigid_side_add(const struct px_problem *p, size_t k,
				     uint32_t side, double *w_body,
				     const double *P)
{
	const uint32_t b = side ? p->body_b[k] : p->body_a[k];

	px_body_impulse(w_body, p->inv_mass[b], p->inv_inertia + 6 * (size_t)b,
			p->lever + 6 * k + 3 * side, P, side ? -1.0 : 1.0);
}

/* Rigid contact k: the bodies' w receive the impulse of d[r0..r1) (in the
 * contact frame). */
static inline void px_rigid_add(const struct px_problem *p, size_t k,
				double *w, const double *d, uint32_t r0,
				uint32_t r1)
{
	double P[3];

	px_rigid_world_impulse(p, k, d, r0, r1, P);
	for (uint32_t side = 0; side < 2; side++) {
		const uint32_t b = side ? p->body_b[k] : p->body_a[k];

		if (b != PX_STATIC)
			px_rigid_side_add(p, k, side, w + 6 * (size_t)b, P);
	}
}

#endif
