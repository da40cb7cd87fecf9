/* The narrow phase of a sphere against each shape: one point, feature 0,
 * from the sphere's centre and the closest point of the other shape (the
 * closest point of a box's surface when the centre is inside it). */
#include "narrow.h"

static const double up[3] = {0.0, 0.0, 1.0};

int px_narrow_sphere_sphere(const struct px_body *a, const struct px_body *b,
			     double margin, struct px_contact *out)
{
	return px_round_point(out, a->x, a->shape.radius, b->x,
			       b->shape.radius, up, margin, 0);
}

int px_narrow_sphere_capsule(const struct px_body *a,
			      const struct px_body *b, double margin,
			      struct px_contact *out)
{
	double u[3], core[3], dflt[3];
	double t;

	px_capsule_axis(b, u);
	t = px_segment_closest(b->x, u, b->shape.half_length, a->x);
	v3_axpy(b->x, t, u, core);
	px_perpendicular(u, dflt);
	return px_round_point(out, a->x, a->shape.radius, core,
			       b->shape.radius, dflt, margin, 0);
}

int px_narrow_sphere_plane(const struct px_body *a, const struct px_body *b,
			    double margin, struct px_contact *out)
{
	const double *np = b->shape.normal;
	const double r = a->shape.radius;
	double d[3], n[3], sa[3], sb[3], s;

	v3_sub(a->x, b->x, d);
	s = v3_dot(np, d);
	if (r - s <= -margin)
		return 0;
	for (int i = 0; i < 3; i++)
		n[i] = -np[i];
	v3_axpy(a->x, r, n, sa);
	v3_axpy(a->x, s, n, sb);
	px_point(out, n, sa, sb, 0);
	return 1;
}

int px_narrow_sphere_box(const struct px_body *a, const struct px_body *b,
			  double margin, struct px_contact *out)
{
	const double *h = b->shape.half;
	const double r = a->shape.radius;
	double rot[9], d[3], c[3], q[3], nl[3] = {0.0, 0.0, 0.0};
	double n[3], sa[3], sb[3], e[3], len;

	quat_to_matrix(b->q, rot);
	v3_sub(a->x, b->x, d);
	mat_tmul(rot, d, c); /* the centre in the box's frame */
	for (int i = 0; i < 3; i++)
		q[i] = c[i] < -h[i] ? -h[i] : (c[i] > h[i] ? h[i] : c[i]);
	v3_sub(c, q, e);
	len = v3_norm(e);
	if (len - r >= margin)
		return 0;
	if (len > 1e-12 * (1.0 + r)) {
		for (int i = 0; i < 3; i++)
			nl[i] = -e[i] / len;
	} else {
		/* inside: out through the nearest face */
		int k = 0;

		for (int i = 1; i < 3; i++)
			if (h[i] - fabs(c[i]) < h[k] - fabs(c[k]))
				k = i;
		nl[k] = c[k] < 0.0 ? 1.0 : -1.0;
		q[k] = -nl[k] * h[k];
	}
	mat_mul(rot, nl, n);
	mat_mul(rot, q, sb);
	v3_axpy(sb, 1.0, b->x, sb);
	v3_axpy(a->x, r, n, sa);
	px_point(out, n, sa, sb, 0);
	return out->depth > -margin;
}
