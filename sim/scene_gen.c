/* The scene generators: bodies placed by rule (a grid, doc/scenes.md's ball
 * pile and wall, a box stack, a card house, a tower), and the mass
 * properties of shapes (solid sphere 2/5 m r^2, box m/3 (b^2 + c^2) with
 * half extents, capsule = cylinder + two hemispheres). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/error.h>

#include "balls.h"
#include "grow.h"
#include "scene.h"
#include "scene_impl.h"

double px_shape_volume(const struct px_shape *s)
{
	const double r = s->radius;

	switch (s->kind) {
	case PX_SPHERE: return 4.0 / 3.0 * M_PI * r * r * r;
	case PX_BOX: return 8.0 * s->half[0] * s->half[1] * s->half[2];
	case PX_CAPSULE:
		return M_PI * r * r * 2.0 * s->half_length +
		       4.0 / 3.0 * M_PI * r * r * r;
	case PX_PLANE: return 0.0;
	}
	return 0.0;
}

void px_body_set_mass(struct px_body *b, double m)
{
	const struct px_shape *s = &b->shape;
	const double r = s->radius, *h = s->half;

	b->mass = m;
	switch (s->kind) {
	case PX_SPHERE:
		b->inertia[0] = b->inertia[1] = b->inertia[2] = 0.4 * m * r * r;
		break;
	case PX_BOX:
		b->inertia[0] = m / 3.0 * (h[1] * h[1] + h[2] * h[2]);
		b->inertia[1] = m / 3.0 * (h[0] * h[0] + h[2] * h[2]);
		b->inertia[2] = m / 3.0 * (h[0] * h[0] + h[1] * h[1]);
		break;
	case PX_CAPSULE: {
		/* the cylinder (length l) and the two hemispheres share the
		 * mass by volume; a hemisphere's centre of mass lies 3r/8
		 * from its flat face (parallel axis theorem) */
		const double l = 2.0 * s->half_length;
		const double vc = M_PI * r * r * l;
		const double mc = m * vc / (vc + 4.0 / 3.0 * M_PI * r * r * r);
		const double ms = m - mc;

		b->inertia[0] =
		    mc * (l * l / 12.0 + r * r / 4.0) +
		    ms * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
		b->inertia[1] = b->inertia[0];
		b->inertia[2] = mc * r * r / 2.0 + ms * 0.4 * r * r;
		break;
	}
	case PX_PLANE:
		b->inertia[0] = b->inertia[1] = b->inertia[2] = 0.0;
		break;
	}
}

int px_body_list_push(struct px_body_list *l, const struct px_body *b)
{
	struct px_body *grown;

	if (l->keep && !l->keep(l->ctx, b, l->seen++))
		return PX_OK;
	if (!l->keep)
		l->seen++;
	grown = px_grow(l->b, &l->cap, l->n, sizeof *grown, 64);
	if (!grown)
		return PX_ERR_NOMEM;
	l->b = grown;
	l->b[l->n++] = *b;
	return PX_OK;
}

void px_quat_axis_angle(const double axis[3], double degrees, double q[4])
{
	const double half = degrees * M_PI / 360.0, s = sin(half);

	q[0] = cos(half);
	for (int i = 0; i < 3; i++)
		q[i + 1] = s * axis[i];
}

/* proto moved to x (its orientation kept) */
static int put(struct px_body_list *l, const struct px_body *proto, double x,
	       double y, double z)
{
	struct px_body b = *proto;

	b.x[0] = x;
	b.x[1] = y;
	b.x[2] = z;
	return px_body_list_push(l, &b);
}

int px_scene_grid(struct px_body_list *l, const struct px_body *proto,
		   const size_t count[3], const double origin[3],
		   const double spacing[3])
{
	for (size_t k = 0; k < count[2]; k++)
		for (size_t j = 0; j < count[1]; j++)
			for (size_t i = 0; i < count[0]; i++)
				if (put(l, proto,
					origin[0] + (double)i * spacing[0],
					origin[1] + (double)j * spacing[1],
					origin[2] + (double)k * spacing[2]))
					return PX_ERR_NOMEM;
	return PX_OK;
}

int px_scene_pile(struct px_body_list *l, size_t n, uint64_t seed, int ground,
		   const struct px_body *surface)
{
	const size_t nb = n * n * n;
	double *x = malloc(6 * nb * sizeof *x), *v = x + 3 * nb;
	struct px_body b = *surface;
	int rc = PX_OK;

	if (!x)
		return PX_ERR_NOMEM;
	memset(&b.shape, 0, sizeof b.shape);
	memset(b.v, 0, sizeof b.v);
	memset(b.w, 0, sizeof b.w);
	b.q[0] = 1.0;
	b.q[1] = b.q[2] = b.q[3] = 0.0;
	px_ballpile(n, seed, x, v, b.x, b.shape.half);
	if (ground) {
		b.shape.kind = PX_BOX;
		b.is_static = 1;
		px_body_set_mass(&b, 0.0);
		rc = px_body_list_push(l, &b);
	}
	b.shape.kind = PX_SPHERE;
	memset(b.shape.half, 0, sizeof b.shape.half);
	b.shape.radius = 1.0;
	b.is_static = 0;
	px_body_set_mass(&b, 1.0);
	for (size_t m = 0; m < nb && !rc; m++) {
		memcpy(b.x, x + 3 * m, sizeof b.x);
		memcpy(b.v, v + 3 * m, sizeof b.v);
		rc = px_body_list_push(l, &b);
	}
	free(x);
	return rc;
}

int px_scene_stack(struct px_body_list *l, const struct px_body *proto,
		    size_t count, const double base[3], double gap,
		    const double offset[2])
{
	const double hz = proto->shape.half[2];

	for (size_t k = 0; k < count; k++) {
		const double kk = (double)k;

		if (put(l, proto, base[0] + kk * offset[0],
			base[1] + kk * offset[1],
			base[2] + hz + kk * (2.0 * hz + gap)))
			return PX_ERR_NOMEM;
	}
	return PX_OK;
}

int px_scene_wall(struct px_body_list *l, const struct px_body *proto,
		   size_t rows, size_t bricks, const double origin[3])
{
	const double hx = proto->shape.half[0], hz = proto->shape.half[2];
	struct px_body half = *proto;
	int rc = PX_OK;

	half.shape.half[0] = hx / 2.0;
	px_body_set_mass(&half, proto->mass / 2.0);
	for (size_t r = 0; r < rows && !rc; r++) {
		const double y = origin[1];
		const double z = origin[2] + hz + 2.0 * hz * (double)r;

		if (r % 2 == 0) {
			for (size_t i = 0; i < bricks && !rc; i++)
				rc =
				    put(l, proto,
					origin[0] + 2.0 * hx * (double)i, y, z);
			continue;
		}
		rc = put(l, &half, origin[0] - hx / 2.0, y, z);
		for (size_t i = 0; i + 1 < bricks && !rc; i++)
			rc =
			    put(l, proto,
				origin[0] + (2.0 * (double)i + 1.0) * hx, y, z);
		if (!rc)
			rc = put(l, &half,
				 origin[0] +
				     (2.0 * (double)(bricks - 1) + 0.5) * hx,
				 y, z);
	}
	return rc;
}

/* A-frame: two cards (half thickness t, half length h) leaning by phi
 * from the vertical, their top inner edges meeting above the frame's
 * centre. Its feet reach 2 h sin phi + 2 t cos phi to either side, its
 * top (the two outer top edges, 2 t cos phi from the centre) is
 * 2 h cos phi + 2 t sin phi high. */
void px_cardhouse_spacing(const double half[3], double angle, double *lo,
			   double *hi)
{
	const double phi = angle * M_PI / 180.0, t = half[0], h = half[2];

	*lo = 2.0 * (2.0 * h * sin(phi) + 2.0 * t * cos(phi));
	*hi = 2.0 * h - 4.0 * t * cos(phi);
}

int px_scene_cardhouse(struct px_body_list *l, const struct px_body *proto,
			size_t levels, double angle, double spacing,
			const double origin[3])
{
	const double phi = angle * M_PI / 180.0, t = proto->shape.half[0];
	const double h = proto->shape.half[2];
	const double height = 2.0 * h * cos(phi) + 2.0 * t * sin(phi);
	const double dx = t * cos(phi) + h * sin(phi);
	const double dz = h * cos(phi) + t * sin(phi);
	const double y_axis[3] = {0.0, 1.0, 0.0};
	struct px_body left = *proto, right = *proto, flat = *proto;

	px_quat_axis_angle(y_axis, angle, left.q);
	px_quat_axis_angle(y_axis, -angle, right.q);
	flat.shape.half[0] = proto->shape.half[2];
	flat.shape.half[2] = proto->shape.half[0];
	px_body_set_mass(&flat, proto->mass);
	for (size_t lv = 0; lv < levels; lv++) {
		const size_t k = levels - lv;
		const double z0 = origin[2] + (double)lv * (height + 2.0 * t);
		const double x0 = origin[0] - (double)(k - 1) * spacing / 2.0;

		for (size_t i = 0; i < k; i++) {
			const double c = x0 + (double)i * spacing;

			if (put(l, &left, c - dx, origin[1], z0 + dz) ||
			    put(l, &right, c + dx, origin[1], z0 + dz))
				return PX_ERR_NOMEM;
		}
		for (size_t i = 0; i + 1 < k; i++)
			if (put(l, &flat, x0 + ((double)i + 0.5) * spacing,
				origin[1], z0 + height + t))
				return PX_ERR_NOMEM;
	}
	return PX_OK;
}

/* The inner corners of neighbouring bricks meet on the line halfway
 * between them, pi / bricks away: hx = (R - hy) tan(pi / bricks). */
double px_tower_min_radius(const double half[3], size_t bricks)
{
	return half[1] + half[0] / tan(M_PI / (double)bricks);
}

int px_scene_tower(struct px_body_list *l, const struct px_body *proto,
		    size_t rings, size_t bricks, double radius,
		    const double origin[3])
{
	const double z_axis[3] = {0.0, 0.0, 1.0}, hz = proto->shape.half[2];
	struct px_body b = *proto;

	for (size_t r = 0; r < rings; r++)
		for (size_t j = 0; j < bricks; j++) {
			const double deg = 360.0 *
					   ((double)j + 0.5 * (double)(r % 2)) /
					   (double)bricks;
			const double a = deg * M_PI / 180.0;

			/* the long axis (x) along the ring */
			px_quat_axis_angle(z_axis, deg + 90.0, b.q);
			if (put(l, &b, origin[0] + radius * cos(a),
				origin[1] + radius * sin(a),
				origin[2] + hz + 2.0 * hz * (double)r))
				return PX_ERR_NOMEM;
		}
	return PX_OK;
}
