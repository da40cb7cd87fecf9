/* VTK XML PolyData frames (.vtp) and their collection (.pvd), in ASCII,
 * as "VTK File Formats" (Kitware, VTK User's Guide ch. 19) describes them:
 * one <Piece> of triangles (<Polys>: connectivity and offsets) with every
 * part's surface, and per triangle its part's index and speed. The parts
 * (a world's bodies: sim/mesh.c) come from the caller, one at a time. A
 * frame's contacts go in a PolyData file of their own: one vertex per
 * contact, with its normal and impulses as point data. Each file is
 * written under a temporary name and renamed into place (core/outfile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "vtk.h"

/* How many points and triangles the parts have in all; each part's
 * triangles and speed into tris[n] and speed[n], for the cell data. */
static void count(size_t n, px_vtk_part_fn part, const void *ctx,
		  struct px_vtk_part *scratch, size_t *np, size_t *nt,
		  size_t *tris, double *speed)
{
	*np = *nt = 0;
	for (size_t i = 0; i < n; i++) {
		part(ctx, i, scratch);
		*np += scratch->n_points;
		*nt += scratch->n_tris;
		tris[i] = scratch->n_tris;
		speed[i] = scratch->speed;
	}
}

int px_vtk_write_frame(const char *path, size_t n, px_vtk_part_fn part,
		       const void *ctx, struct px_error *err)
{
	struct px_vtk_part q;
	size_t np, nt, base = 0, *tris = malloc((n + 1) * sizeof *tris);
	double *speed = malloc((n + 1) * sizeof *speed);
	struct px_outfile o;
	FILE *f;
	int rc;

	if (!tris || !speed) {
		rc = px_error_set(err, PX_ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	if ((rc = px_outfile_open(&o, path, err)))
		goto out;
	f = o.f;
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	count(n, part, ctx, &q, &np, &nt, tris, speed);
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
		part(ctx, i, &q);
		for (size_t k = 0; k < q.n_points; k++)
			fprintf(f, "%.6g %.6g %.6g\n", q.points[3 * k],
				q.points[3 * k + 1], q.points[3 * k + 2]);
	}
	fputs("</DataArray>\n</Points>\n<CellData Scalars=\"body\">\n"
	      "<DataArray type=\"Int32\" Name=\"body\" format=\"ascii\">\n",
	      f);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < tris[i]; k++)
			fprintf(f, "%zu\n", i);
	fputs("</DataArray>\n"
	      "<DataArray type=\"Float32\" Name=\"speed\" format=\"ascii\">\n",
	      f);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < tris[i]; k++)
			fprintf(f, "%.6g\n", speed[i]);
	fputs(
	    "</DataArray>\n</CellData>\n<Polys>\n"
	    "<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n",
	    f);
	for (size_t i = 0; i < n; i++) {
		part(ctx, i, &q);
		for (size_t k = 0; k < q.n_tris; k++)
			fprintf(f, "%zu %zu %zu\n", base + q.tris[3 * k],
				base + q.tris[3 * k + 1],
				base + q.tris[3 * k + 2]);
		base += q.n_points;
	}
	fputs("</DataArray>\n"
	      "<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n",
	      f);
	for (size_t k = 1; k <= nt; k++)
		fprintf(f, "%zu\n", 3 * k);
	fputs("</DataArray>\n</Polys>\n</Piece>\n</PolyData>\n</VTKFile>\n", f);
	rc = px_outfile_commit(&o, err);
out:
	free(tris);
	free(speed);
	return rc;
}

/* A DataArray of n tuples of k doubles, tuple i from get(c + i). */
static void put_array(FILE *f, const char *name, int k, size_t n,
		      const struct px_vtk_contact *c,
		      void (*get)(const struct px_vtk_contact *, double *))
{
	double v[3];

	fprintf(f,
		"<DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
		name, k);
	for (size_t i = 0; i < n; i++) {
		get(c + i, v);
		for (int j = 0; j < k; j++)
			fprintf(f, "%.17g%c", v[j], j + 1 < k ? ' ' : '\n');
	}
	fputs("</DataArray>\n", f);
}

static void get_point(const struct px_vtk_contact *c, double *v)
{
	memcpy(v, c->point, sizeof c->point);
}

static void get_normal(const struct px_vtk_contact *c, double *v)
{
	memcpy(v, c->normal, sizeof c->normal);
}

static void get_normal_impulse(const struct px_vtk_contact *c, double *v)
{
	v[0] = c->normal_impulse;
}

static void get_friction(const struct px_vtk_contact *c, double *v)
{
	memcpy(v, c->friction, sizeof c->friction);
}

static void get_impulse(const struct px_vtk_contact *c, double *v)
{
	for (int j = 0; j < 3; j++)
		v[j] = c->normal_impulse * c->normal[j] + c->friction[j];
}

int px_vtk_write_contacts(const char *path, size_t n,
			  const struct px_vtk_contact *c, struct px_error *err)
{
	struct px_outfile o;
	const int rc = px_outfile_open(&o, path, err);
	FILE *const f = o.f;

	if (rc)
		return rc;
	fprintf(
	    f,
	    "<?xml version=\"1.0\"?>\n"
	    "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
	    "<PolyData>\n"
	    "<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
	    "<Points>\n",
	    n, n);
	put_array(f, "Points", 3, n, c, get_point);
	fputs("</Points>\n<PointData Scalars=\"normal_impulse\" Vectors=\"impulse\" Normals=\"normal\">\n",
	      f);
	put_array(f, "normal", 3, n, c, get_normal);
	put_array(f, "normal_impulse", 1, n, c, get_normal_impulse);
	put_array(f, "friction", 3, n, c, get_friction);
	put_array(f, "impulse", 3, n, c, get_impulse);
	fputs("<DataArray type=\"Int32\" Name=\"body\" format=\"ascii\">\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%d\n", (int)c[i].body);
	fputs("</DataArray>\n"
	      "<DataArray type=\"Int32\" Name=\"other\" format=\"ascii\">\n",
	      f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%d\n", (int)c[i].other);
	fputs("</DataArray>\n</PointData>\n<Verts>\n"
	      "<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n",
	      f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu\n", i);
	fputs("</DataArray>\n"
	      "<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n",
	      f);
	for (size_t i = 1; i <= n; i++)
		fprintf(f, "%zu\n", i);
	fputs("</DataArray>\n</Verts>\n</Piece>\n</PolyData>\n</VTKFile>\n", f);
	return px_outfile_commit(&o, err);
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
	struct px_outfile o;
	const int rc = px_outfile_open(&o, path, err);
	FILE *const f = o.f;

	if (rc)
		return rc;
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
	return px_outfile_commit(&o, err);
}
