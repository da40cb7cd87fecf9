/* Bodies' surfaces as triangles in world coordinates, for the VTK frames
 * (io/vtk.h): spheres are coarse (48 triangles) so that a frame of the
 * 64 000 spheres of ballgrid-40 stays a few seconds' and ~100 MB's work. */
#include <math.h>
#include <string.h>

#include "mesh.h"
#include "vec.h"

#define SLICES 8 /* around the z axis */
#define STACKS 4 /* pole to pole (even: a ring on the equator) */

/* Round shapes: rings of SLICES points between two poles; a capsule's
 * equator ring is doubled, one copy at each end of the cylinder. */
static void round_mesh(double r, double h, double *p, uint32_t *t, size_t *np,
		       size_t *nt)
{
	double ring_z[STACKS + 1], ring_rho[STACKS + 1];
	size_t rings = 0, k = 0;
	uint32_t south;

	for (int i = 1; i < STACKS; i++) {
		const double th = M_PI * i / STACKS, z = r * cos(th);

		if (2 * i == STACKS && h > 0.0) {
			ring_z[rings] = h;
			ring_rho[rings++] = r;
			ring_z[rings] = -h;
			ring_rho[rings++] = r;
			continue;
		}
		ring_z[rings] = z + (2 * i < STACKS   ? h
				     : 2 * i > STACKS ? -h
						      : 0);
		ring_rho[rings++] = r * sin(th);
	}
	p[0] = p[1] = 0.0;
	p[2] = r + h;
	for (size_t j = 0; j < rings; j++)
		for (int s = 0; s < SLICES; s++) {
			const double ph = 2.0 * M_PI * s / SLICES;
			double *q = p + 3 * (1 + j * SLICES + (size_t)s);

			q[0] = ring_rho[j] * cos(ph);
			q[1] = ring_rho[j] * sin(ph);
			q[2] = ring_z[j];
		}
	south = (uint32_t)(1 + rings * SLICES);
	p[3 * south] = p[3 * south + 1] = 0.0;
	p[3 * south + 2] = -r - h;
	*np = south + 1;
	for (uint32_t s = 0; s < SLICES; s++) {
		const uint32_t s1 = (s + 1) % SLICES;
		const uint32_t last = (uint32_t)(1 + (rings - 1) * SLICES);
		uint32_t *o;

		o = t + 3 * k++;
		o[0] = 0, o[1] = 1 + s, o[2] = 1 + s1;
		for (uint32_t j = 0; j + 1 < rings; j++) {
			const uint32_t a = 1 + j * SLICES, b = a + SLICES;

			o = t + 3 * k++;
			o[0] = a + s, o[1] = b + s, o[2] = b + s1;
			o = t + 3 * k++;
			o[0] = a + s, o[1] = b + s1, o[2] = a + s1;
		}
		o = t + 3 * k++;
		o[0] = south, o[1] = last + s1, o[2] = last + s;
	}
	*nt = k;
}

/* Corner i of a box has the signs of bits 0, 1, 2 of i in x, y, z; face
 * (axis a, sign s) is the quad in the plane of u = e_a+1, v = e_a+2 (u x v
 * = e_a), counter-clockwise about s e_a. */
static void box_mesh(const double *h, double *p, uint32_t *t, size_t *np,
		     size_t *nt)
{
	size_t k = 0;

	for (int i = 0; i < 8; i++)
		for (int d = 0; d < 3; d++)
			p[3 * i + d] = (i >> d & 1) ? h[d] : -h[d];
	for (int a = 0; a < 3; a++)
		for (int s = 0; s < 2; s++) {
			static const int su[4] = {0, 1, 1, 0},
					 sv[4] = {0, 0, 1, 1};
			const int u = (a + 1) % 3, v = (a + 2) % 3;
			uint32_t c[4];

			for (int q = 0; q < 4; q++) {
				const int qq = s ? q : 3 - q; /* s = 0: -e_a */

				c[q] = (uint32_t)(s << a | su[qq] << u |
						  sv[qq] << v);
			}
			for (int tri = 0; tri < 2; tri++) {
				t[3 * k] = c[0];
				t[3 * k + 1] = c[1 + tri];
				t[3 * k + 2] = c[2 + tri];
				k++;
			}
		}
	*np = 8;
	*nt = k;
}

/* A square in the plane, centred at the origin of the body. */
static void plane_mesh(const double *n, double *p, uint32_t *t, size_t *np,
		       size_t *nt)
{
	static const uint32_t tris[6] = {0, 1, 2, 0, 2, 3};
	static const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
	const double a = fabs(n[0]) < 0.9 ? 1.0 : 0.0;
	const double other[3] = {a, 1.0 - a, 0.0};
	const double half = PX_MESH_PLANE_SIZE / 2.0;
	double u[3], v[3], len;

	v3_cross(n, other, u); /* u, v, n right-handed */
	len = v3_norm(u);
	for (int d = 0; d < 3; d++)
		u[d] /= len;
	v3_cross(n, u, v);
	for (int q = 0; q < 4; q++)
		for (int d = 0; d < 3; d++)
			p[3 * q + d] = half * (su[q] * u[d] + sv[q] * v[d]);
	memcpy(t, tris, sizeof tris);
	*np = 4;
	*nt = 2;
}

void px_body_mesh(const struct px_body *b, double *points, uint32_t *tris,
		  size_t *n_points, size_t *n_tris)
{
	const struct px_shape *s = &b->shape;
	double r[9];

	switch (s->kind) {
	case PX_SPHERE:
		round_mesh(s->radius, 0.0, points, tris, n_points, n_tris);
		break;
	case PX_CAPSULE:
		round_mesh(s->radius, s->half_length, points, tris, n_points,
			   n_tris);
		break;
	case PX_BOX: box_mesh(s->half, points, tris, n_points, n_tris); break;
	case PX_PLANE: /* in world axes already */
		plane_mesh(s->normal, points, tris, n_points, n_tris);
		for (size_t i = 0; i < *n_points; i++)
			v3_axpy(points + 3 * i, 1.0, b->x, points + 3 * i);
		return;
	}
	quat_to_matrix(b->q, r);
	for (size_t i = 0; i < *n_points; i++) {
		double w[3];

		mat_mul(r, points + 3 * i, w);
		v3_axpy(b->x, 1.0, w, points + 3 * i);
	}
}

void px_body_vtk_part(const void *bodies, size_t i, struct px_vtk_part *out)
{
	const struct px_body *b = (const struct px_body *)bodies + i;

	px_body_mesh(b, out->points, out->tris, &out->n_points, &out->n_tris);
	out->speed = v3_norm(b->v);
}
