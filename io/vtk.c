/* VTK XML PolyData frames (.vtp) and their collection (.pvd), in ASCII,
 * as "VTK File Formats" (Kitware, VTK User's Guide ch. 19) describes them:
 * one <Piece> of triangles (<Polys>: connectivity and offsets) with the
 * bodies' surfaces in world coordinates, and per triangle its body's index
 * and speed. Spheres are coarse (48 triangles) so that a frame of the 64 000
 * spheres of ballgrid-40 stays a few seconds' and ~100 MB's work. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../sim/vec.h"
#include "vtk.h"

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
	const double half = PX_VTK_PLANE_SIZE / 2.0;
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

void px_vtk_body_mesh(const struct px_body *b, double *points, uint32_t *tris,
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

/* How many points and triangles the bodies have. */
static void count(const struct px_body *bodies, size_t n, size_t *np,
		  size_t *nt)
{
	static const size_t pts[4] = {2 + (STACKS - 1) * SLICES, 8,
				      2 + STACKS * SLICES, 4};
	static const size_t tri[4] = {2 * SLICES * (STACKS - 1), 12,
				      2 * SLICES * STACKS, 2};

	*np = *nt = 0;
	for (size_t i = 0; i < n; i++) {
		*np += pts[bodies[i].shape.kind];
		*nt += tri[bodies[i].shape.kind];
	}
}

static int finish(FILE *f, const char *path, struct px_error *err)
{
	const int bad = ferror(f);
	const int e = errno;

	if (fclose(f) || bad)
		return px_error_set(err, PX_ERR_IO, "%s: cannot write: %s",
				    path, strerror(bad ? e : errno));
	return PX_OK;
}

int px_vtk_write_frame(const char *path, const struct px_body *bodies,
			size_t n, struct px_error *err)
{
	double p[3 * PX_VTK_MAX_POINTS];
	uint32_t t[3 * PX_VTK_MAX_TRIS];
	size_t np, nt, base = 0;
	FILE *f = fopen(path, "w");

	if (!f)
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot open for writing: %s", path,
				    strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	count(bodies, n, &np, &nt);
	fprintf(
	    f,
	    "<?xml version=\"1.0\"?>\n"
	    "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
	    "<PolyData>\n"
	    "<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"%zu\">\n"
	    "<Points>\n"
	    "<DataArray type=\"Float32\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n",
	    np, nt);
	for (size_t i = 0; i < n; i++) {
		size_t bp, bt;

		px_vtk_body_mesh(&bodies[i], p, t, &bp, &bt);
		for (size_t k = 0; k < bp; k++)
			fprintf(f, "%.6g %.6g %.6g\n", p[3 * k], p[3 * k + 1],
				p[3 * k + 2]);
	}
	fputs("</DataArray>\n</Points>\n<CellData Scalars=\"body\">\n"
	      "<DataArray type=\"Int32\" Name=\"body\" format=\"ascii\">\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		size_t bp, bt;

		count(&bodies[i], 1, &bp, &bt);
		for (size_t k = 0; k < bt; k++)
			fprintf(f, "%zu\n", i);
	}
	fputs("</DataArray>\n"
	      "<DataArray type=\"Float32\" Name=\"speed\" format=\"ascii\">\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const double v = v3_norm(bodies[i].v);
		size_t bp, bt;

		count(&bodies[i], 1, &bp, &bt);
		for (size_t k = 0; k < bt; k++)
			fprintf(f, "%.6g\n", v);
	}
	fputs(
	    "</DataArray>\n</CellData>\n<Polys>\n"
	    "<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n",
	    f);
	for (size_t i = 0; i < n; i++) {
		size_t bp, bt;

		px_vtk_body_mesh(&bodies[i], p, t, &bp, &bt);
		for (size_t k = 0; k < bt; k++)
			fprintf(f, "%zu %zu %zu\n", base + t[3 * k],
				base + t[3 * k + 1], base + t[3 * k + 2]);
		base += bp;
	}
	fputs("</DataArray>\n"
	      "<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n",
	      f);
	for (size_t k = 1; k <= nt; k++)
		fprintf(f, "%zu\n", 3 * k);
	fputs("</DataArray>\n</Polys>\n</Piece>\n</PolyData>\n</VTKFile>\n", f);
	return finish(f, path, err);
}

/* s as an XML attribute value (between double quotes) */
static void put_attr(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

int px_vtk_write_pvd(const char *path, const char *const *frame_files,
		      const double *times, size_t n, struct px_error *err)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot open for writing: %s", path,
				    strerror(errno));
	fputs(
	    "<?xml version=\"1.0\"?>\n"
	    "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
	    "<Collection>\n",
	    f);
	for (size_t i = 0; i < n; i++) {
		fprintf(
		    f,
		    "<DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"",
		    times[i]);
		put_attr(f, frame_files[i]);
		fputs("\"/>\n", f);
	}
	fputs("</Collection>\n</VTKFile>\n", f);
	return finish(f, path, err);
}
