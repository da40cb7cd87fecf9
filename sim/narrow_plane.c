/* The narrow phase of a box or capsule against a plane: every box corner
 * and every capsule end (a sphere) closer to the plane than the margin, so a
 * box resting on a face gives its 4 corners and a capsule lying flat its 2
 * ends. Features: the corner index (bit k: -half[k] side of axis k) and the
 * capsule end (0: -half_length, 1: +half_length). */
#include "narrow.h"

int px_narrow_box_plane(const struct px_body *a, const struct px_body *b,
			 double margin, struct px_contact *out)
{
	const double *np = b->shape.normal;
	const double *h = a->shape.half;
	double rot[9], nl[3], d[3], n[3], s0, reach = 0.0;
	int m = 0;

	quat_to_matrix(a->q, rot);
	mat_tmul(rot, np, nl); /* the plane's normal in the box's frame */
	v3_sub(a->x, b->x, d);
	s0 = v3_dot(np, d);
	for (int k = 0; k < 3; k++)
		reach += h[k] * fabs(nl[k]);
	if (s0 - reach >= margin)
		return 0;
	for (int i = 0; i < 3; i++)
		n[i] = -np[i];
	for (uint32_t c = 0; c < 8; c++) {
		double off[3], corner[3], sb[3], s = s0;

		for (int k = 0; k < 3; k++) {
			off[k] = (c >> k & 1) ? -h[k] : h[k];
			s += off[k] * nl[k];
		}
		if (-s <= -margin)
			continue;
		mat_mul(rot, off, corner);
		v3_axpy(a->x, 1.0, corner, corner);
		v3_axpy(corner, -s, np, sb);
		px_point(&out[m++], n, corner, sb, c);
	}
	return m;
}

int px_narrow_capsule_plane(const struct px_body *a, const struct px_body *b,
			     double margin, struct px_contact *out)
{
	const double *np = b->shape.normal;
	const double r = a->shape.radius;
	double u[3], n[3];
	int m = 0;

	px_capsule_axis(a, u);
	for (int i = 0; i < 3; i++)
		n[i] = -np[i];
	for (uint32_t e = 0; e < 2; e++) {
		double end[3], d[3], sa[3], sb[3], s;

		v3_axpy(a->x, e ? a->shape.half_length : -a->shape.half_length,
			u, end);
		v3_sub(end, b->x, d);
		s = v3_dot(np, d);
		if (r - s <= -margin)
			continue;
		v3_axpy(end, r, n, sa);
		v3_axpy(end, s, n, sb);
		px_point(&out[m++], n, sa, sb, e);
	}
	return m;
}
