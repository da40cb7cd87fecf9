/* The narrow phase's shape-pair routines (private to sim/). Each takes its
 * two shapes in kind order (sphere < box < capsule < plane), returns the
 * number of points written with depth > -margin and sets n (from a to b),
 * p, depth and feature; px_collide_pair (narrow.c) puts them in the
 * caller's order and sets the body indices.
 *
 * Feature ids, unique within a pair and unchanged while the same features
 * touch:
 *   sphere-anything          0
 *   capsule-plane            capsule end: 0 (-half_length), 1 (+half_length)
 *   box-plane                box corner c (bit k set: the corner lies on the
 *                            -half[k] side of body axis k), 0..7
 *   capsule-capsule          0 for the closest points; two points of parallel
 *                            overlapping capsules: 0 and 1, the ends of the
 *                            overlap in the order of a's axis
 *   box-capsule              narrow_box_capsule.c: 2f + e on box face f, at
 *                            the end e of the capsule's part above it; edge
 *                            and vertex cases above 12
 *   box-box                  narrow_box.c: (axis << 9) | (incident face << 6)
 *                            | point, where axis names the separating axis
 *                            (0..5: face of a, 6..11: face of b, 12..20: edge
 *                            pair) and point the incident corner or clipped
 *                            edge
 */
#ifndef PX_SIM_NARROW_H
#define PX_SIM_NARROW_H

#include <stdint.h>

#include "collide.h"
#include "vec.h"

typedef int (*px_pair_fn)(const struct px_body *a, const struct px_body *b,
			   double margin, struct px_contact *out);

int px_narrow_sphere_sphere(const struct px_body *a, const struct px_body *b,
			     double margin, struct px_contact *out);
int px_narrow_sphere_box(const struct px_body *a, const struct px_body *b,
			  double margin, struct px_contact *out);
int px_narrow_sphere_capsule(const struct px_body *a,
			      const struct px_body *b, double margin,
			      struct px_contact *out);
int px_narrow_sphere_plane(const struct px_body *a, const struct px_body *b,
			    double margin, struct px_contact *out);
int px_narrow_box_box(const struct px_body *a, const struct px_body *b,
		       double margin, struct px_contact *out);
int px_narrow_box_capsule(const struct px_body *a, const struct px_body *b,
			   double margin, struct px_contact *out);
int px_narrow_box_plane(const struct px_body *a, const struct px_body *b,
			 double margin, struct px_contact *out);
int px_narrow_capsule_capsule(const struct px_body *a,
			       const struct px_body *b, double margin,
			       struct px_contact *out);
int px_narrow_capsule_plane(const struct px_body *a, const struct px_body *b,
			     double margin, struct px_contact *out);

/* One point from the surface points sa of a and sb of b along the unit
 * normal n (a to b): p midway, depth the overlap along n. */
static inline void px_point(struct px_contact *c, const double n[3],
			     const double sa[3], const double sb[3],
			     uint32_t feature)
{
	double d[3];

	v3_sub(sa, sb, d);
	for (int i = 0; i < 3; i++) {
		c->n[i] = n[i];
		c->p[i] = 0.5 * (sa[i] + sb[i]);
	}
	c->depth = v3_dot(d, n);
	c->feature = feature;
}

/* The point of two round cores: centres ca, cb (radii ra, rb) at distance
 * d; when d is too small to give a direction, along the unit vector dflt
 * (a to b). Returns depth > -margin. */
static inline int px_round_point(struct px_contact *c, const double ca[3],
				  double ra, const double cb[3], double rb,
				  const double dflt[3], double margin,
				  uint32_t feature)
{
	double d[3], n[3], sa[3], sb[3], len;

	v3_sub(cb, ca, d);
	len = v3_norm(d);
	if (len - ra - rb >= margin)
		return 0;
	for (int i = 0; i < 3; i++)
		n[i] = len > 1e-12 * (1.0 + ra + rb) ? d[i] / len : dflt[i];
	v3_axpy(ca, ra, n, sa);
	v3_axpy(cb, -rb, n, sb);
	px_point(c, n, sa, sb, feature);
	return c->depth > -margin;
}

/* A unit vector perpendicular to the unit vector u. */
static inline void px_perpendicular(const double u[3], double o[3])
{
	double e[3] = {0.0, 0.0, 0.0}, len;
	int k = 0;

	for (int i = 1; i < 3; i++)
		if (fabs(u[i]) < fabs(u[k]))
			k = i;
	e[k] = 1.0;
	v3_cross(u, e, o);
	len = v3_norm(o);
	for (int i = 0; i < 3; i++)
		o[i] /= len;
}

/* The closest point of the segment x + t u, |t| <= h (u unit), to p: t. */
static inline double px_segment_closest(const double x[3], const double u[3],
					 double h, const double p[3])
{
	double d[3], t;

	v3_sub(p, x, d);
	t = v3_dot(d, u);
	return t < -h ? -h : (t > h ? h : t);
}

static inline double px_clamp(double x, double h)
{
	return x < -h ? -h : (x > h ? h : x);
}

/* The closest points xa + s ua and xb + t ub of two segments (|s| <= la,
 * |t| <= lb, unit directions): any pair of them when they are parallel. */
static inline void px_segments_closest(const double xa[3], const double ua[3],
					double la, const double xb[3],
					const double ub[3], double lb,
					double *s, double *t)
{
	double w[3], c, d, e, den;

	v3_sub(xa, xb, w);
	c = v3_dot(ua, ub);
	d = v3_dot(ua, w);
	e = v3_dot(ub, w);
	den = 1.0 - c * c;
	*s = den > 1e-12 ? px_clamp((c * e - d) / den, la) : px_clamp(-d, la);
	*t = px_clamp(e + *s * c, lb);
	*s = px_clamp(*t * c - d, la);
}

/* The axis k of a body's rotation matrix r (body to world): column k. */
static inline void px_axis(const double r[9], int k, double o[3])
{
	o[0] = r[k];
	o[1] = r[3 + k];
	o[2] = r[6 + k];
}

/* A capsule's axis (unit, world) from its orientation. */
static inline void px_capsule_axis(const struct px_body *c, double u[3])
{
	double r[9];

	quat_to_matrix(c->q, r);
	px_axis(r, 2, u);
}

#endif
