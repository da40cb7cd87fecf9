/* The narrow phase of two capsules: the closest points of their segments
 * (one point, feature 0), or, when the segments are parallel (within about
 * half a degree) and their projections overlap, two points at the ends of
 * the overlap (features 0 and 1 in the order of a's axis), so that a capsule
 * lying along another does not rock on one point. */
#include "narrow.h"

/* sin^2 of the angle below which two axes count as parallel */
#define PARALLEL_SIN2 1e-4

/* The direction a to b used when the segments touch: perpendicular to
 * both axes if they cross, to a's axis otherwise, towards b's centre. */
static void touching_normal(const double ua[3], const double ub[3],
			    const double ab[3], double n[3])
{
	double len;

	v3_cross(ua, ub, n);
	len = v3_norm(n);
	if (len > 1e-6) {
		for (int i = 0; i < 3; i++)
			n[i] /= len;
	} else {
		px_perpendicular(ua, n);
	}
	if (v3_dot(n, ab) < 0.0)
		for (int i = 0; i < 3; i++)
			n[i] = -n[i];
}

int px_narrow_capsule_capsule(const struct px_body *a,
			       const struct px_body *b, double margin,
			       struct px_contact *out)
{
	const double la = a->shape.half_length, lb = b->shape.half_length;
	const double ra = a->shape.radius, rb = b->shape.radius;
	const double tiny = 1e-9 * (1.0 + la + lb + ra + rb);
	double ua[3], ub[3], ab[3], pa[3], pb[3], dflt[3];
	double cab, d, s, t;

	px_capsule_axis(a, ua);
	px_capsule_axis(b, ub);
	v3_sub(b->x, a->x, ab);
	cab = v3_dot(ua, ub);
	d = v3_dot(ua, ab); /* b's centre on a's axis */
	touching_normal(ua, ub, ab, dflt);

	if (1.0 - cab * cab < PARALLEL_SIN2) {
		/* b's ends projected on a's axis, relative to a's centre */
		const double s0 = d - lb * cab, s1 = d + lb * cab;
		const double lo = fmax(-la, fmin(s0, s1));
		const double hi = fmin(la, fmax(s0, s1));
		double off[3];

		v3_axpy(ab, -v3_dot(ab, ua), ua, off); /* between the lines */
		if (hi - lo > tiny && v3_norm(off) > tiny) {
			int m = 0;

			for (uint32_t k = 0; k < 2; k++) {
				v3_axpy(a->x, k ? hi : lo, ua, pa);
				t = px_segment_closest(b->x, ub, lb, pa);
				v3_axpy(b->x, t, ub, pb);
				m += px_round_point(&out[m], pa, ra, pb, rb,
						     dflt, margin, k);
			}
			return m;
		}
	}

	px_segments_closest(a->x, ua, la, b->x, ub, lb, &s, &t);
	v3_axpy(a->x, s, ua, pa);
	v3_axpy(b->x, t, ub, pb);
	return px_round_point(out, pa, ra, pb, rb, dflt, margin, 0);
}
