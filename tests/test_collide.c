/* Collision (sim/collide.h): the narrow phase of every shape pair against
 * hand-computed normals, depths and points (rotated boxes, edges, flat
 * capsules), the margin, feature ids that are distinct and survive small
 * motions; the broad phase against all pairs tested by brute force; and
 * doc/scenes.md's 8^3 ball grid. Every pair the tests collide is also checked
 * for properties any answer must have: unit normals, depth > -margin,
 * distinct ids, the same points with flipped normals when the arguments
 * are swapped, and each point within |depth| / 2 of both shapes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/balls.h"
#include "../sim/collide.h"
#include "../sim/vec.h"
#include "sim_bodies.h"

/* px_collide_pair(a, 0, b, 1) and the properties every answer has. */
static int collide(const struct px_body *a, const struct px_body *b,
		   double margin, struct px_contact *out)
{
	struct px_contact sw[PX_MAX_POINTS];
	const int m = px_collide_pair(a, 0, b, 1, margin, out);

	cr_assert_leq(m, PX_MAX_POINTS);
	cr_assert_eq(px_collide_pair(b, 1, a, 0, margin, sw), m,
		     "the swapped pair gives another count");
	for (int k = 0; k < m; k++) {
		const struct px_contact *c = &out[k];

		cr_assert_eq(c->a, 0);
		cr_assert_eq(c->b, 1);
		cr_assert_float_eq(v3_norm(c->n), 1.0, 1e-12);
		cr_assert_gt(c->depth, -margin);
		for (int j = 0; j < k; j++)
			cr_assert_neq(out[j].feature, c->feature,
				      "points %d and %d share feature %u", j, k,
				      c->feature);
		cr_assert_leq(sdf(a, c->p), 0.5 * fabs(c->depth) + 1e-9,
			      "point %d is %g from a, depth %g", k,
			      sdf(a, c->p), c->depth);
		cr_assert_leq(sdf(b, c->p), 0.5 * fabs(c->depth) + 1e-9,
			      "point %d is %g from b, depth %g", k,
			      sdf(b, c->p), c->depth);
		cr_assert_eq(sw[k].a, 1);
		cr_assert_eq(sw[k].feature, c->feature);
		cr_assert_eq(sw[k].depth, c->depth);
		for (int i = 0; i < 3; i++) {
			cr_assert_eq(sw[k].p[i], c->p[i]);
			cr_assert_eq(sw[k].n[i], -c->n[i]);
		}
	}
	return m;
}

static void assert_vec(const double v[3], double x, double y, double z,
		       double tol)
{
	cr_assert(fabs(v[0] - x) <= tol && fabs(v[1] - y) <= tol &&
		      fabs(v[2] - z) <= tol,
		  "(%.15g, %.15g, %.15g) is not (%.15g, %.15g, %.15g)", v[0],
		  v[1], v[2], x, y, z);
}

/* The point at (x, y, z) among m, which must be there. */
static const struct px_contact *at(const struct px_contact *c, int m,
				    double x, double y, double z, double tol)
{
	for (int k = 0; k < m; k++)
		if (fabs(c[k].p[0] - x) <= tol && fabs(c[k].p[1] - y) <= tol &&
		    fabs(c[k].p[2] - z) <= tol)
			return &c[k];
	cr_assert_fail("no point at (%g, %g, %g)", x, y, z);
	return NULL;
}

/* Every point has normal (x, y, z) and the depth. */
static void assert_all(const struct px_contact *c, int m, double x, double y,
		       double z, double depth, double tol)
{
	for (int k = 0; k < m; k++) {
		assert_vec(c[k].n, x, y, z, tol);
		cr_assert_float_eq(c[k].depth, depth, tol,
				   "point %d: depth %.15g", k, c[k].depth);
	}
}

Test(collide, sphere_sphere)
{
	struct px_body a = sphere(0, 0, 0, 1), b = sphere(1.5, 0, 0, 0.75);
	struct px_contact c[PX_MAX_POINTS];

	cr_assert_eq(collide(&a, &b, 0.01, c), 1);
	assert_vec(c[0].n, 1, 0, 0, 1e-15);
	assert_vec(c[0].p, 0.875, 0, 0, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.25, 1e-15);
	cr_assert_eq(c[0].feature, 0);
	b.x[0] = 1.75 + 0.02; /* gap 0.02 > margin */
	cr_assert_eq(collide(&a, &b, 0.01, c), 0);
	b.x[0] = 1.75 + 0.005; /* speculative */
	cr_assert_eq(collide(&a, &b, 0.01, c), 1);
	cr_assert_float_eq(c[0].depth, -0.005, 1e-12);
	/* exactly touching, as in the ball grid */
	b = sphere(0, 2, 0, 1);
	cr_assert_eq(collide(&a, &b, 1e-3, c), 1);
	cr_assert_eq(c[0].depth, 0.0);
	assert_vec(c[0].n, 0, 1, 0, 0);
	assert_vec(c[0].p, 0, 1, 0, 0);
}

Test(collide, sphere_plane)
{
	struct px_body p = plane(0, 0, 0, 0, 0.6, 0.8);
	struct px_body s = sphere(1 + 0.5 * 0, 0.5 * 0.6, 0.5 * 0.8, 0.7);
	struct px_contact c[PX_MAX_POINTS];

	/* centre 0.5 above the plane, radius 0.7 */
	cr_assert_eq(collide(&s, &p, 0.01, c), 1);
	assert_vec(c[0].n, 0, -0.6, -0.8, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.2, 1e-15);
	assert_vec(c[0].p, 1, -0.1 * 0.6, -0.1 * 0.8, 1e-15);
	cr_assert_eq(collide(&p, &s, 0.01, c), 1);
	assert_vec(c[0].n, 0, 0.6, 0.8, 1e-15);
	s.x[1] = 0.71 * 0.6 + 0.005; /* above by 0.71 + a little */
	s.x[2] = 0.71 * 0.8;
	cr_assert_eq(collide(&s, &p, 0.01, c), 0);
	p.is_static = 1;
	s = fixed(s);
	s.x[1] = 0.0; /* two static bodies */
	cr_assert_eq(collide(&s, &p, 0.01, c), 0);
}

Test(collide, sphere_box)
{
	struct px_body b = box(0, 0, 0, 1, 2, 3), s = sphere(1.5, 0, 0, 0.75);
	struct px_contact c[PX_MAX_POINTS];
	const double r3 = sqrt(3.0);

	/* face */
	cr_assert_eq(collide(&s, &b, 0.01, c), 1);
	assert_vec(c[0].n, -1, 0, 0, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.25, 1e-15);
	assert_vec(c[0].p, 0.875, 0, 0, 1e-15);
	/* edge: closest box point (1, 2, 0) */
	s = sphere(1.6, 2.8, 0, 1.1);
	cr_assert_eq(collide(&s, &b, 0.01, c), 1);
	assert_vec(c[0].n, -0.6, -0.8, 0, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.1, 1e-15);
	/* corner (1, 2, 3) */
	s = sphere(2, 3, 4, 2);
	cr_assert_eq(collide(&b, &s, 0.01, c), 1);
	assert_vec(c[0].n, 1 / r3, 1 / r3, 1 / r3, 1e-15);
	cr_assert_float_eq(c[0].depth, 2 - r3, 1e-15);
	/* centre inside, 0.1 below the +x face */
	s = sphere(0.9, 0, 0, 0.5);
	cr_assert_eq(collide(&s, &b, 0.01, c), 1);
	assert_vec(c[0].n, -1, 0, 0, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.6, 1e-15);
	assert_vec(c[0].p, 0.7, 0, 0, 1e-15);
	/* a cube turned 45 degrees about z: its edge at x = sqrt 2 */
	b = box(0, 0, 0, 1, 1, 1);
	turn(&b, 0, 0, 1, M_PI / 4);
	s = sphere(s2 + 0.5, 0, 0.3, 1);
	cr_assert_eq(collide(&s, &b, 0.01, c), 1);
	assert_vec(c[0].n, -1, 0, 0, 1e-12);
	cr_assert_float_eq(c[0].depth, 0.5, 1e-12);
	assert_vec(c[0].p, s2 + 0.5 - 0.75, 0, 0.3, 1e-12);
	s.x[0] = s2 + 1.02; /* gap 0.02 */
	cr_assert_eq(collide(&s, &b, 0.01, c), 0);
	s.x[0] = s2 + 1.004;
	cr_assert_eq(collide(&s, &b, 0.01, c), 1);
	cr_assert_float_eq(c[0].depth, -0.004, 1e-12);
}

Test(collide, sphere_capsule)
{
	struct px_body k = capsule(0, 0, 0, 0.5, 1),
			s = sphere(1, 0, 0.5, 0.75);
	struct px_contact c[PX_MAX_POINTS];

	/* beside the segment */
	cr_assert_eq(collide(&s, &k, 0.01, c), 1);
	assert_vec(c[0].n, -1, 0, 0, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.25, 1e-15);
	assert_vec(c[0].p, 0.375, 0, 0.5, 1e-15);
	/* beyond the end cap */
	s = sphere(0, 0, 2.5, 1.2);
	cr_assert_eq(collide(&k, &s, 0.01, c), 1);
	assert_vec(c[0].n, 0, 0, 1, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.2, 1e-15);
	/* capsule along x: its end at (1, 0, 0) */
	turn(&k, 0, 1, 0, M_PI / 2);
	s = sphere(1.3, 0, 0.4, 0.6);
	cr_assert_eq(collide(&k, &s, 0.01, c), 1);
	assert_vec(c[0].n, 0.6, 0, 0.8, 1e-12);
	cr_assert_float_eq(c[0].depth, 0.6, 1e-12);
}

Test(collide, box_plane)
{
	struct px_body p = plane(0, 0, 0, 0, 0, 1);
	struct px_body b = box(0.3, 0.2, 0.25 - 0.01, 1, 0.5, 0.25);
	struct px_contact c[PX_MAX_POINTS];
	int m;

	/* resting on a face: the 4 lower corners, ids 4..7 */
	m = collide(&b, &p, 0.001, c);
	cr_assert_eq(m, 4);
	assert_all(c, m, 0, 0, -1, 0.01, 1e-15);
	for (int k = 0; k < 4; k++) {
		const double x = 0.3 + ((k & 1) ? -1 : 1);
		const double y = 0.2 + ((k & 2) ? -0.5 : 0.5);

		cr_assert_eq(at(c, m, x, y, -0.005, 1e-15)->feature,
			     4 + (uint32_t)k);
	}
	/* turned about the vertical: still 4 */
	turn(&b, 0, 0, 1, 0.5);
	cr_assert_eq(collide(&p, &b, 0.001, c), 4);
	assert_all(c, 4, 0, 0, 1, 0.01, 1e-15);
	/* a cube on an edge (turned 45 degrees about x): 2 points */
	b = box(0, 0, 0.5 * s2 - 0.001, 0.5, 0.5, 0.5);
	turn(&b, 1, 0, 0, M_PI / 4);
	m = collide(&b, &p, 0.0005, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 0, 0, -1, 0.001, 1e-12);
	at(c, m, 0.5, 0, -0.0005, 1e-12);
	at(c, m, -0.5, 0, -0.0005, 1e-12);
	/* lifted 0.001 above the plane: speculative within a margin of 0.002 */
	b.x[2] = 0.5 * s2 + 0.001;
	cr_assert_eq(collide(&b, &p, 0.002, c), 2);
	cr_assert_float_eq(c[0].depth, -0.001, 1e-12);
	b.x[2] = 0.5 * s2 + 0.003;
	cr_assert_eq(collide(&b, &p, 0.002, c), 0);
}

Test(collide, capsule_plane)
{
	struct px_body p = plane(0, 0, 0, 0, 0, 1);
	struct px_body k = capsule(0, 0, 0.49, 0.5, 1);
	struct px_contact c[PX_MAX_POINTS];
	int m;

	turn(&k, 0, 1, 0, M_PI / 2); /* lying along x, end 0 at x = -1 */
	m = collide(&k, &p, 0.001, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 0, 0, -1, 0.01, 1e-15);
	cr_assert_eq(at(c, m, -1, 0, -0.005, 1e-15)->feature, 0);
	cr_assert_eq(at(c, m, 1, 0, -0.005, 1e-15)->feature, 1);
	/* tilted by 30 degrees: only the lower end */
	k = capsule(0, 0, 0.5 + 0.5 - 0.01, 0.5, 1);
	turn(&k, 0, 1, 0, M_PI / 3);
	m = collide(&p, &k, 0.001, c);
	cr_assert_eq(m, 1);
	assert_all(c, m, 0, 0, 1, 0.01, 1e-12);
	assert_vec(c[0].p, -sin(M_PI / 3), 0, -0.005, 1e-12);
}

Test(collide, box_box_resting)
{
	struct px_body g = fixed(box(0, 0, -1, 5, 5, 1));
	struct px_body b = box(0.3, -0.2, 0.5 - 0.002, 0.5, 0.5, 0.5);
	struct px_contact c[PX_MAX_POINTS], d[PX_MAX_POINTS];
	int m;

	m = collide(&g, &b, 0.001, c);
	cr_assert_eq(m, 4);
	assert_all(c, m, 0, 0, 1, 0.002, 1e-12);
	for (int k = 0; k < 4; k++)
		at(c, m, 0.3 + ((k & 1) ? -0.5 : 0.5),
		   -0.2 + ((k & 2) ? -0.5 : 0.5), -0.001, 1e-12);
	/* b as the first body: b's face is the reference, same points */
	cr_assert_eq(px_collide_pair(&b, 0, &g, 1, 0.001, d), 4);
	for (int k = 0; k < 4; k++) {
		assert_vec(at(d, 4, c[k].p[0], c[k].p[1], c[k].p[2], 1e-12)->n,
			   0, 0, -1, 1e-15);
		cr_assert_float_eq(d[k].depth, 0.002, 1e-12);
	}
	/* lifted beyond the margin, then within it */
	b.x[2] = 0.5 + 0.002;
	cr_assert_eq(collide(&g, &b, 0.001, c), 0);
	b.x[2] = 0.5 + 0.0005;
	cr_assert_eq(collide(&g, &b, 0.001, c), 4);
	assert_all(c, 4, 0, 0, 1, -0.0005, 1e-12);
	/* beside the ground, 0.1 away */
	b = box(5.6, 0, -0.5, 0.5, 0.5, 0.5);
	cr_assert_eq(collide(&g, &b, 0.001, c), 0);
}

Test(collide, box_box_turned_45)
{
	struct px_body g = fixed(box(0, 0, -1, 5, 5, 1));
	struct px_body b = box(0, 0, 0.5 - 0.003, 0.5, 0.5, 0.5);
	struct px_body a = box(0, 0, -0.5, 0.5, 0.5, 0.5);
	struct px_contact c[PX_MAX_POINTS];
	double area = 0.0;
	int m;

	/* on a large box: its 4 corners, at distance sqrt 2 / 2 on the axes */
	turn(&b, 0, 0, 1, M_PI / 4);
	m = collide(&g, &b, 0.001, c);
	cr_assert_eq(m, 4);
	assert_all(c, m, 0, 0, 1, 0.003, 1e-12);
	at(c, m, 0.5 * s2, 0, -0.0015, 1e-12);
	at(c, m, -0.5 * s2, 0, -0.0015, 1e-12);
	at(c, m, 0, 0.5 * s2, -0.0015, 1e-12);
	at(c, m, 0, -0.5 * s2, -0.0015, 1e-12);
	/* on a box of its size: the octagon of the two squares, reduced to 4
	 * of its corners that span a large part of it (area 0.828) */
	m = collide(&a, &b, 0.001, c);
	cr_assert_eq(m, 4);
	assert_all(c, m, 0, 0, 1, 0.003, 1e-12);
	for (int k = 0; k < m; k++) {
		cr_assert_leq(fabs(c[k].p[0]), 0.5 + 1e-12);
		cr_assert_leq(fabs(c[k].p[1]), 0.5 + 1e-12);
		cr_assert_leq(fabs(c[k].p[0]) + fabs(c[k].p[1]),
			      0.5 * s2 + 1e-12);
	}
	/* the quadrilateral's area, its corners in angular order */
	{
		double ang[4];
		int ord[4] = {0, 1, 2, 3};

		for (int k = 0; k < 4; k++)
			ang[k] = atan2(c[k].p[1], c[k].p[0]);
		for (int i = 1; i < 4; i++)
			for (int j = i; j > 0 && ang[ord[j]] < ang[ord[j - 1]];
			     j--) {
				const int t = ord[j];

				ord[j] = ord[j - 1];
				ord[j - 1] = t;
			}
		for (int k = 0; k < 4; k++) {
			const double *p = c[ord[k]].p,
				     *q = c[ord[(k + 1) % 4]].p;

			area += 0.5 * (p[0] * q[1] - p[1] * q[0]);
		}
	}
	/* the most any 4 corners of this regular octagon span: 2 R^2 */
	cr_assert_geq(area, 0.58, "the 4 points span only %g", area);
}

Test(collide, box_box_on_edge)
{
	struct px_body g = fixed(box(0, 0, -1, 5, 5, 1));
	struct px_body b = box(0.2, 0.1, 0.5 * s2 - 0.001, 0.5, 0.5, 0.5);
	struct px_contact c[PX_MAX_POINTS];
	int m;

	turn(&b, 1, 0, 0, M_PI / 4);
	m = collide(&g, &b, 0.0005, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 0, 0, 1, 0.001, 1e-12);
	at(c, m, 0.7, 0.1, -0.0005, 1e-12);
	at(c, m, -0.3, 0.1, -0.0005, 1e-12);
	/* on a corner (turned about x, then y): 1 point */
	b = box(0, 0, 0, 0.5, 0.5, 0.5);
	turn(&b, 1, 0, 0, M_PI / 4);
	turn(&b, 0, 1, 0, atan(1 / s2));
	b.x[2] = 0.5 * sqrt(3.0) - 0.001; /* its lowest corner 0.001 deep */
	m = collide(&g, &b, 0.0005, c);
	cr_assert_eq(m, 1);
	assert_all(c, m, 0, 0, 1, 0.001, 1e-12);
	assert_vec(c[0].p, 0, 0, -0.0005, 1e-12);
}

Test(collide, box_box_edge_edge)
{
	/* a's top edge along y, b's bottom edge along x, crossing 0.01 deep
	 * at (0, 0, sqrt 2 / 2) */
	struct px_body a = box(0, 0, 0, 0.5, 0.5, 0.5);
	struct px_body b = box(0, 0, s2 - 0.01, 0.5, 0.5, 0.5);
	struct px_contact c[PX_MAX_POINTS];

	turn(&a, 0, 1, 0, M_PI / 4);
	turn(&b, 1, 0, 0, M_PI / 4);
	cr_assert_eq(collide(&a, &b, 0.001, c), 1);
	assert_vec(c[0].n, 0, 0, 1, 1e-12);
	cr_assert_float_eq(c[0].depth, 0.01, 1e-12);
	assert_vec(c[0].p, 0, 0, 0.5 * s2 - 0.005, 1e-12);
	cr_assert_geq(c[0].feature, 12u << 9, "not an edge-edge id");
	/* a moved across its edge, b across its own: the crossing follows,
	 * the depth stays */
	a.x[0] = 0.1;
	b.x[1] = 0.2;
	cr_assert_eq(collide(&a, &b, 0.001, c), 1);
	cr_assert_float_eq(c[0].depth, 0.01, 1e-12);
	assert_vec(c[0].p, 0.1, 0.2, 0.5 * s2 - 0.005, 1e-12);
	/* apart by 0.002 > margin, then by 0.0005 < margin */
	b.x[2] = s2 + 0.002;
	cr_assert_eq(collide(&a, &b, 0.001, c), 0);
	b.x[2] = s2 + 0.0005;
	cr_assert_eq(collide(&a, &b, 0.001, c), 1);
	cr_assert_float_eq(c[0].depth, -0.0005, 1e-12);
}

Test(collide, box_capsule)
{
	struct px_body g = fixed(box(0, 0, -0.5, 2, 2, 0.5));
	struct px_body k = capsule(0.1, 0.2, 0.24, 0.25, 1);
	struct px_body b = box(0, 0, 0, 1, 1, 1);
	struct px_contact c[PX_MAX_POINTS];
	const double d = 0.3 / s2;
	int m;

	/* lying flat along x: both ends, ids 2f + e of face f = 4 (+z) */
	turn(&k, 0, 1, 0, M_PI / 2);
	m = collide(&g, &k, 0.001, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 0, 0, 1, 0.01, 1e-12);
	cr_assert_eq(at(c, m, -0.9, 0.2, -0.005, 1e-12)->feature, 8);
	cr_assert_eq(at(c, m, 1.1, 0.2, -0.005, 1e-12)->feature, 9);
	/* hanging over the box's side: the ends of the part above it */
	k.x[0] = 1.5;
	m = collide(&k, &g, 0.001, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 0, 0, -1, 0.01, 1e-12);
	at(c, m, 0.5, 0.2, -0.005, 1e-12);
	at(c, m, 2, 0.2, -0.005, 1e-12);
	/* upright: its lower end only */
	k = capsule(0.5, 0.5, 1.24, 0.25, 1);
	cr_assert_eq(collide(&g, &k, 0.001, c), 1);
	assert_all(c, 1, 0, 0, 1, 0.01, 1e-12);
	assert_vec(c[0].p, 0.5, 0.5, -0.005, 1e-12);
	/* along the box's edge (y, at x = z = 1), 0.3 away, radius 0.31:
	 * the two ends of the part along the edge */
	k = capsule(1 + d, 0, 1 + d, 0.31, 0.5);
	turn(&k, 1, 0, 0, M_PI / 2);
	m = collide(&b, &k, 0.001, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 1 / s2, 0, 1 / s2, 0.01, 1e-12);
	at(c, m, 1 - 0.005 / s2, 0.5, 1 - 0.005 / s2, 1e-12);
	at(c, m, 1 - 0.005 / s2, -0.5, 1 - 0.005 / s2, 1e-12);
	/* across that edge, perpendicular to it and to the normal: one
	 * point */
	k = capsule(1 + d, 0, 1 + d, 0.31, 0.5);
	turn(&k, 0, 1, 0, -M_PI / 4);
	cr_assert_eq(collide(&b, &k, 0.001, c), 1);
	assert_all(c, 1, 1 / s2, 0, 1 / s2, 0.01, 1e-12);
	/* the segment inside the box, 0.1 below its top: pushed out through
	 * the top, depth 0.1 + radius at both ends */
	k = capsule(0, 0.3, 0.9, 0.2, 1);
	turn(&k, 0, 1, 0, M_PI / 2);
	m = collide(&b, &k, 0.001, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 0, 0, 1, 0.3, 1e-12);
	at(c, m, 1, 0.3, 0.85, 1e-12);
	at(c, m, -1, 0.3, 0.85, 1e-12);
	/* beyond the margin */
	k = capsule(0.1, 0.2, 0.25 + 0.002, 0.25, 1);
	turn(&k, 0, 1, 0, M_PI / 2);
	cr_assert_eq(collide(&g, &k, 0.001, c), 0);
}

Test(collide, capsule_capsule)
{
	struct px_body a = capsule(0, 0, 0, 0.5, 1);
	struct px_body b = capsule(0, 0, 0.9, 0.5, 1);
	struct px_contact c[PX_MAX_POINTS];
	int m;

	/* crossing at right angles: a along x, b along y */
	turn(&a, 0, 1, 0, M_PI / 2);
	turn(&b, 1, 0, 0, M_PI / 2);
	cr_assert_eq(collide(&a, &b, 0.001, c), 1);
	assert_vec(c[0].n, 0, 0, 1, 1e-15);
	cr_assert_float_eq(c[0].depth, 0.1, 1e-15);
	assert_vec(c[0].p, 0, 0, 0.45, 1e-15);
	/* parallel, overlapping on x in [-0.5, 1]: 2 points at its ends */
	b = capsule(0.5, 0, 0.95, 0.5, 1);
	turn(&b, 0, 1, 0, M_PI / 2);
	m = collide(&a, &b, 0.001, c);
	cr_assert_eq(m, 2);
	assert_all(c, m, 0, 0, 1, 0.05, 1e-12);
	cr_assert_eq(at(c, m, -0.5, 0, 0.475, 1e-12)->feature, 0);
	cr_assert_eq(at(c, m, 1, 0, 0.475, 1e-12)->feature, 1);
	/* end to end along the same line: one point between the caps */
	b = capsule(2.9, 0, 0, 0.5, 1);
	turn(&b, 0, 1, 0, M_PI / 2);
	cr_assert_eq(collide(&a, &b, 0.001, c), 1);
	assert_vec(c[0].n, 1, 0, 0, 1e-12);
	cr_assert_float_eq(c[0].depth, 0.1, 1e-12);
	/* parallel but apart by 0.002 > margin */
	b = capsule(0.5, 0, 1.002, 0.5, 1);
	turn(&b, 0, 1, 0, M_PI / 2);
	cr_assert_eq(collide(&a, &b, 0.001, c), 0);
}

Test(collide, static_and_plane_pairs_give_nothing)
{
	struct px_body p = plane(0, 0, 0, 0, 0, 1),
			q = plane(0, 0, 1, 0, 0, -1);
	struct px_body g = fixed(box(0, 0, 0, 1, 1, 1));
	struct px_body s = fixed(sphere(0, 0, 0.5, 1));
	struct px_contact c[PX_MAX_POINTS];

	cr_assert_eq(px_collide_pair(&p, 0, &q, 1, 0.1, c), 0);
	q.is_static = 0; /* even a plane that claims to move */
	cr_assert_eq(px_collide_pair(&p, 0, &q, 1, 0.1, c), 0);
	cr_assert_eq(px_collide_pair(&g, 0, &s, 1, 0.1, c), 0);
	cr_assert_eq(px_collide_pair(&g, 0, &p, 1, 0.1, c), 0);
}

/* The sorted feature ids of a pair. */
static int ids(const struct px_body *a, const struct px_body *b,
	       double margin, uint32_t *id)
{
	struct px_contact c[PX_MAX_POINTS];
	const int m = collide(a, b, margin, c);

	for (int k = 0; k < m; k++) {
		int j = k;

		for (; j > 0 && id[j - 1] > c[k].feature; j--)
			id[j] = id[j - 1];
		id[j] = c[k].feature;
	}
	return m;
}

Test(collide, feature_ids_survive_small_motions)
{
	struct px_body pairs[8][2] = {
	    {fixed(box(0, 0, -1, 5, 5, 1)),
	     box(0.3, 0.2, 0.495, 0.5, 0.4, 0.5)},
	    {fixed(box(0, 0, -1, 5, 5, 1)),
	     box(0, 0, 0.5 * s2 - 0.005, 0.5, 0.5, 0.5)},
	    {box(0, 0, 0, 0.5, 0.5, 0.5), box(0, 0, s2 - 0.01, 0.5, 0.5, 0.5)},
	    {plane(0, 0, 0, 0, 0, 1), box(0, 0, 0.245, 1, 0.5, 0.25)},
	    {fixed(box(0, 0, -0.5, 2, 2, 0.5)),
	     capsule(0.1, 0.2, 0.245, 0.25, 1)},
	    {plane(0, 0, 0, 0, 0, 1), capsule(0, 0, 0.495, 0.5, 1)},
	    {capsule(0, 0, 0, 0.5, 1), capsule(0.5, 0, 0.995, 0.5, 1)},
	    {box(0, 0, 0, 1, 1, 1),
	     capsule(1 + 0.3 / s2, 0, 1 + 0.3 / s2, 0.305, 0.5)},
	};
	const int count[8] = {4, 2, 1, 4, 2, 2, 2, 2};

	turn(&pairs[1][1], 1, 0, 0, M_PI / 4);
	turn(&pairs[2][0], 0, 1, 0, M_PI / 4);
	turn(&pairs[2][1], 1, 0, 0, M_PI / 4);
	turn(&pairs[4][1], 0, 1, 0, M_PI / 2);
	turn(&pairs[5][1], 0, 1, 0, M_PI / 2);
	turn(&pairs[6][0], 0, 1, 0, M_PI / 2);
	turn(&pairs[6][1], 0, 1, 0, M_PI / 2);
	turn(&pairs[7][1], 1, 0, 0, M_PI / 2);
	for (int p = 0; p < 8; p++) {
		struct px_body b = pairs[p][1];
		uint32_t id0[PX_MAX_POINTS], id1[PX_MAX_POINTS];
		const int m = ids(&pairs[p][0], &b, 0.01, id0);

		cr_assert_eq(m, count[p], "pair %d: %d points", p, m);
		/* moved by 1e-4 and turned by 1e-3 rad about a skew axis */
		b.x[0] += 1e-4;
		b.x[1] -= 2e-4;
		b.x[2] -= 1e-4;
		turn(&b, 1, 2, 3, 1e-3);
		cr_assert_eq(ids(&pairs[p][0], &b, 0.01, id1), m, "pair %d", p);
		for (int k = 0; k < m; k++)
			cr_assert_eq(id0[k], id1[k], "pair %d: id %u became %u",
				     p, id0[k], id1[k]);
	}
}

Test(collide, random_pairs_keep_the_invariants)
{
	uint64_t s = 7;
	int touching = 0;

	for (int t = 0; t < 4000; t++) {
		struct px_body a = random_body(&s, 0, 0, 0, 1.0);
		struct px_body b =
		    random_body(&s, 3 * uni(&s) - 1.5, 3 * uni(&s) - 1.5,
				3 * uni(&s) - 1.5, 1.0);
		struct px_contact c[PX_MAX_POINTS];
		int m;

		if (t % 5 == 0) /* a plane through b's neighbourhood */
			a = plane(0, 0, 0, uni(&s) - 0.5, uni(&s) - 0.5,
				  uni(&s) + 0.1);
		m = collide(&a, &b, 0.05, c);
		touching += m > 0;
		/* the surface points p +- depth/2 n lie in their shapes */
		for (int k = 0; k < m; k++) {
			double sa[3], sb[3];

			v3_axpy(c[k].p, 0.5 * c[k].depth, c[k].n, sa);
			v3_axpy(c[k].p, -0.5 * c[k].depth, c[k].n, sb);
			cr_assert_leq(sdf(&a, sa), 1e-9,
				      "pair %d (kinds %d %d)", t, a.shape.kind,
				      b.shape.kind);
			cr_assert_leq(sdf(&b, sb), 1e-9,
				      "pair %d (kinds %d %d)", t, a.shape.kind,
				      b.shape.kind);
		}
	}
	cr_assert_gt(touching, 1000, "only %d of the pairs touch", touching);
}

/* The box of b grown by margin, computed here independently. */
static void aabb(const struct px_body *b, double margin, double lo[3],
		 double hi[3])
{
	const struct px_shape *s = &b->shape;
	double r[9];

	quat_to_matrix(b->q, r);
	for (int i = 0; i < 3; i++) {
		double e = s->radius;

		if (s->kind == PX_BOX)
			e = s->half[0] * fabs(r[3 * i]) +
			    s->half[1] * fabs(r[3 * i + 1]) +
			    s->half[2] * fabs(r[3 * i + 2]);
		else if (s->kind == PX_CAPSULE)
			e += s->half_length * fabs(r[3 * i + 2]);
		lo[i] = b->x[i] - e - margin;
		hi[i] = b->x[i] + e + margin;
	}
}

/* Brute force: pairs a < b, sorted by (b, a), whose grown boxes overlap
 * (a plane: whose half-space grown by margin the other's box reaches; two
 * spheres: whose surfaces come within margin). */
static size_t brute_pairs(const struct px_body *bodies, size_t n,
			  double margin, struct px_pair *out)
{
	size_t m = 0;

	for (uint32_t j = 0; j < n; j++)
		for (uint32_t i = 0; i < j; i++) {
			const struct px_body *a = &bodies[i], *b = &bodies[j];
			double la[3], ha[3], lb[3], hb[3];
			int hit = 1;

			if ((a->is_static && b->is_static) ||
			    (a->shape.kind == PX_PLANE &&
			     b->shape.kind == PX_PLANE))
				continue;
			if (b->shape.kind == PX_PLANE) {
				const struct px_body *t = a;

				a = b;
				b = t;
			}
			aabb(b, margin, lb, hb);
			if (a->shape.kind == PX_PLANE) {
				double d = 0.0;

				for (int k = 0; k < 3; k++) {
					const double nk = a->shape.normal[k];

					d += nk * ((nk > 0 ? lb[k] : hb[k]) -
						   a->x[k]);
				}
				hit = d <= margin;
			} else {
				aabb(a, margin, la, ha);
				for (int k = 0; k < 3; k++)
					if (la[k] > hb[k] || lb[k] > ha[k])
						hit = 0;
			}
			if (hit && a->shape.kind == PX_SPHERE &&
			    b->shape.kind == PX_SPHERE) {
				double d[3];

				for (int k = 0; k < 3; k++)
					d[k] = b->x[k] - a->x[k];
				hit = sqrt(d[0] * d[0] + d[1] * d[1] +
					   d[2] * d[2]) - a->shape.radius -
					      b->shape.radius <
				      margin;
			}
			if (hit)
				out[m++] = (struct px_pair){i, j};
		}
	return m;
}

/* ~500 mixed bodies in a 15 m cube: a static ground box, two planes, some
 * static bodies, a few large ones. */
static struct px_body *mixed_scene(size_t n, uint64_t *s)
{
	struct px_body *b = malloc(n * sizeof *b);

	cr_assert_not_null(b);
	b[0] = fixed(box(7, 7, -1, 50, 50, 1));
	b[1] = plane(0, 0, 0.5, 0, 0, 1);
	b[2] = plane(14, 0, 0, -0.6, 0.2, 0.3);
	for (size_t i = 3; i < n; i++) {
		b[i] = random_body(s, 15 * uni(s), 15 * uni(s), 15 * uni(s),
				   i % 97 == 0 ? 4.0 : 0.6);
		if (i % 10 == 0)
			b[i] = fixed(b[i]);
	}
	return b;
}

static void assert_same_pairs(const struct px_pair *p, size_t n,
			      const struct px_pair *q, size_t m)
{
	cr_assert_eq(n, m, "%zu pairs, brute force finds %zu", n, m);
	for (size_t k = 0; k < n; k++)
		cr_assert(p[k].a == q[k].a && p[k].b == q[k].b,
			  "pair %zu: (%u, %u), brute force (%u, %u)", k, p[k].a,
			  p[k].b, q[k].a, q[k].b);
}

/* Bodies in clusters far apart: the cells they touch span far more than
 * a bucket each (the grid hashes its cells), against brute force. */
Test(collide, broadphase_hashes_a_sparse_grid)
{
	const size_t n = 400;
	uint64_t s = 5;
	struct px_body *b = malloc(n * sizeof *b);
	struct px_pair *want = malloc(n * n / 2 * sizeof *want);
	struct px_broadphase *bp = px_broadphase_create();
	const struct px_pair *got;
	size_t n_got, n_want;

	cr_assert(b && want && bp);
	for (size_t i = 0; i < n; i++) {
		const double at = 1000.0 * (double)(i % 4);

		b[i] = sphere(at + 4 * uni(&s), -at + 4 * uni(&s),
			      at + 4 * uni(&s), 0.5);
	}
	n_want = brute_pairs(b, n, 0.05, want);
	cr_assert_eq(px_broadphase_pairs(bp, b, n, 0.05, &got, &n_got), 0);
	assert_same_pairs(got, n_got, want, n_want);
	cr_assert_gt(n_want, 100, "only %zu pairs", n_want);
	px_broadphase_destroy(bp);
	free(want);
	free(b);
}

Test(collide, broadphase_finds_the_brute_force_pairs)
{
	const size_t n = 500;
	uint64_t s = 11;
	struct px_body *b = mixed_scene(n, &s);
	struct px_pair *want = malloc(n * n / 2 * sizeof *want);
	struct px_broadphase *bp = px_broadphase_create();
	const struct px_pair *got;
	size_t n_got, n_want;

	cr_assert(want && bp);
	for (int round = 0; round < 3; round++) {
		/* margin 0.05, then a second call on moved bodies, then a
		 * large margin */
		const double margin = round == 2 ? 0.5 : 0.05;

		n_want = brute_pairs(b, n, margin, want);
		cr_assert_eq(
		    px_broadphase_pairs(bp, b, n, margin, &got, &n_got), 0);
		assert_same_pairs(got, n_got, want, n_want);
		cr_assert_gt(n_want, 500, "round %d: only %zu pairs", round,
			     n_want);
		for (size_t i = 3; i < n; i++)
			for (int k = 0; k < 3; k++)
				b[i].x[k] += 0.3 * (uni(&s) - 0.5);
	}
	/* no dynamic body: no pair */
	for (size_t i = 0; i < n; i++)
		b[i] = fixed(b[i]);
	cr_assert_eq(px_broadphase_pairs(bp, b, n, 0.05, &got, &n_got), 0);
	cr_assert_eq(n_got, 0);
	/* points (radius 0) without margin: boxes of size 0 */
	b[0] = sphere(1, 2, 3, 0);
	b[1] = sphere(1, 2, 3, 0);
	b[2] = sphere(1, 2, 3.5, 0);
	cr_assert_eq(px_broadphase_pairs(bp, b, 3, 0.0, &got, &n_got), 0);
	cr_assert_eq(n_got, 1);
	cr_assert(got[0].a == 0 && got[0].b == 1);
	px_broadphase_destroy(bp);
	free(want);
	free(b);
}

Test(collide, collide_all_is_every_pair_narrowed)
{
	const size_t n = 500;
	uint64_t s = 12;
	struct px_body *b = mixed_scene(n, &s);
	struct px_broadphase *bp = px_broadphase_create();
	struct px_contact *c = NULL, one[PX_MAX_POINTS];
	size_t n_c, cap = 0, k = 0;

	cr_assert_eq(px_collide_all(bp, b, n, 0.05, &c, &n_c, &cap), 0);
	cr_assert_geq(cap, n_c);
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t i = 0; i < j; i++) {
			const int m =
			    px_collide_pair(&b[i], i, &b[j], j, 0.05, one);

			for (int q = 0; q < m; q++, k++) {
				cr_assert_lt(k, n_c);
				cr_assert(c[k].a == i && c[k].b == j &&
					      c[k].feature == one[q].feature &&
					      c[k].depth == one[q].depth,
					  "contact %zu differs", k);
			}
		}
	cr_assert_eq(k, n_c);
	cr_assert_gt(n_c, 200, "only %zu contacts", n_c);
	px_broadphase_destroy(bp);
	free(c);
	free(b);
}

/* doc/scenes.md's ballgrid-N: the ground box, then N^3 unit spheres touching
 * in a cubic lattice on it. */
static struct px_body *ballgrid(size_t nn, size_t *n)
{
	const size_t nb = nn * nn * nn;
	double *x = malloc(3 * nb * sizeof *x), gc[3], gh[3];
	struct px_body *b = malloc((1 + nb) * sizeof *b);

	cr_assert(x && b);
	px_ballgrid(nn, x, gc, gh);
	b[0] = fixed(box(gc[0], gc[1], gc[2], gh[0], gh[1], gh[2]));
	for (size_t m = 0; m < nb; m++)
		b[1 + m] = sphere(x[3 * m], x[3 * m + 1], x[3 * m + 2], 1);
	free(x);
	*n = 1 + nb;
	return b;
}

Test(collide, ballgrid_8_has_the_lattice_contacts)
{
	size_t n, n_c = 0, cap = 0;
	struct px_body *b = ballgrid(8, &n);
	struct px_broadphase *bp = px_broadphase_create();
	struct px_contact *c = NULL;

	cr_assert_eq(n, 513);
	for (int round = 0; round < 2; round++) {
		cr_assert_eq(px_collide_all(bp, b, n, 1e-3, &c, &n_c, &cap),
			     0);
		cr_assert_eq(n_c, 3 * 64 * 7 + 64); /* 1408 */
		for (size_t k = 0; k < n_c; k++) {
			const double *v = c[k].n;

			cr_assert_eq(c[k].depth, 0.0);
			cr_assert_lt(c[k].a, c[k].b);
			cr_assert_eq(fabs(v[0]) + fabs(v[1]) + fabs(v[2]), 1.0);
			cr_assert(v[0] >= 0 && v[1] >= 0 && v[2] >= 0,
				  "contact %zu: normal from a lower index", k);
			if (k > 0)
				cr_assert(c[k - 1].b < c[k].b ||
					  (c[k - 1].b == c[k].b &&
					   c[k - 1].a < c[k].a));
		}
	}
	px_broadphase_destroy(bp);
	free(c);
	free(b);
}
