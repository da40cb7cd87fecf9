/* Bodies for the collision tests, built in code: one constructor per
 * shape (dynamic, unit mass, identity orientation), turns about world
 * axes, each shape's signed distance function (the reference the points
 * are checked against), and random bodies from doc/scenes.md's generator. */
#ifndef PX_TEST_SIM_BODIES_H
#define PX_TEST_SIM_BODIES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../sim/body.h"
#include "../sim/vec.h"

static const double s2 = 1.4142135623730951; /* sqrt 2 */

static inline struct px_body body(enum px_shape_kind kind, double x, double y,
				   double z)
{
	struct px_body b;

	memset(&b, 0, sizeof b);
	b.shape.kind = kind;
	b.x[0] = x;
	b.x[1] = y;
	b.x[2] = z;
	b.q[0] = 1.0;
	b.mass = 1.0;
	b.inertia[0] = b.inertia[1] = b.inertia[2] = 1.0;
	return b;
}

static inline struct px_body sphere(double x, double y, double z, double r)
{
	struct px_body b = body(PX_SPHERE, x, y, z);

	b.shape.radius = r;
	return b;
}

static inline struct px_body box(double x, double y, double z, double hx,
				  double hy, double hz)
{
	struct px_body b = body(PX_BOX, x, y, z);

	b.shape.half[0] = hx;
	b.shape.half[1] = hy;
	b.shape.half[2] = hz;
	return b;
}

static inline struct px_body capsule(double x, double y, double z, double r,
				      double hl)
{
	struct px_body b = body(PX_CAPSULE, x, y, z);

	b.shape.radius = r;
	b.shape.half_length = hl;
	return b;
}

static inline struct px_body fixed(struct px_body b)
{
	b.is_static = 1;
	b.mass = 0.0;
	b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.0;
	return b;
}

static inline struct px_body plane(double x, double y, double z, double nx,
				    double ny, double nz)
{
	struct px_body b = fixed(body(PX_PLANE, x, y, z));
	const double len = sqrt(nx * nx + ny * ny + nz * nz);

	b.shape.normal[0] = nx / len;
	b.shape.normal[1] = ny / len;
	b.shape.normal[2] = nz / len;
	return b;
}

/* Turn b by angle (radians) about the world axis (ax, ay, az). */
static inline void turn(struct px_body *b, double ax, double ay, double az,
			double angle)
{
	const double len = sqrt(ax * ax + ay * ay + az * az);
	const double s = sin(0.5 * angle) / len;
	const double r[4] = {cos(0.5 * angle), s * ax, s * ay, s * az};
	double q[4];

	quat_mul(r, b->q, q);
	quat_normalize(q);
	memcpy(b->q, q, sizeof q);
}

/* Signed distance from p to the shape of b. */
static inline double sdf(const struct px_body *b, const double p[3])
{
	const struct px_shape *s = &b->shape;
	double r[9], d[3], l[3], out = 0.0, in = -INFINITY, t;

	quat_to_matrix(b->q, r);
	v3_sub(p, b->x, d);
	mat_tmul(r, d, l);
	switch (s->kind) {
	case PX_SPHERE:
		return v3_norm(d) - s->radius;
	case PX_BOX:
		for (int i = 0; i < 3; i++) {
			const double e = fabs(l[i]) - s->half[i];

			out += e > 0.0 ? e * e : 0.0;
			in = fmax(in, e);
		}
		return sqrt(out) + fmin(in, 0.0);
	case PX_CAPSULE:
		t = fmax(-s->half_length, fmin(s->half_length, l[2]));
		l[2] -= t;
		return v3_norm(l) - s->radius;
	default:
		return v3_dot(s->normal, d);
	}
}

/* A 64-bit LCG's next value in [0, 1) (doc/scenes.md's generator). */
static inline double uni(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (double)(*s >> 11) * 0x1p-53;
}

static inline void random_turn(struct px_body *b, uint64_t *s)
{
	for (int i = 0; i < 4; i++)
		b->q[i] = 2.0 * uni(s) - 1.0;
	quat_normalize(b->q);
}

/* A random sphere, box or capsule of size about `size` near (x, y, z). */
static inline struct px_body random_body(uint64_t *s, double x, double y,
					  double z, double size)
{
	const double r = size * (0.2 + uni(s));
	const int kind = (int)(3.0 * uni(s));
	struct px_body b;

	if (kind == 0)
		b = sphere(x, y, z, r);
	else if (kind == 1)
		b = box(x, y, z, r, size * (0.2 + uni(s)),
			size * (0.2 + uni(s)));
	else
		b = capsule(x, y, z, 0.5 * r, size * (0.1 + uni(s)));
	random_turn(&b, s);
	return b;
}

#endif
