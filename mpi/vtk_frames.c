/* VTK frames of a distributed run (issue 36): `--vtk DIR [--vtk-every K]`
 * as serially (cli/run.c), the same files: DIR/frame_NNNNNN.vtp (the
 * bodies), DIR/contacts_NNNNNN.vtp (the contacts of the step and their
 * impulses), DIR/frames.pvd and DIR/contacts.pvd. Gathered on rank 0:
 * every rank sends its own bodies and the contacts it solved (their
 * bodies by scene index), rank 0 writes each frame with the serial
 * writers (io/vtk.c, through core/outfile's temporary name and rename),
 * the bodies in the scene's order; so one rank writes the serial run's
 * frames byte for byte and every reader of the serial frames reads
 * these. The price: rank 0 holds the whole scene's bodies for the time
 * of a frame (one struct px_body each). ParaView's parallel pieces
 * (a .pvtp over one .vtp per rank) would spare it that; not done. */
#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mesh.h"
#include "step.h"
#include "vtk_frames.h"
#include "../io/vtk.h"

struct rec {
	uint64_t gid;
	struct px_body b;
};

static int cmp_rec(const void *x, const void *y)
{
	const uint64_t a = ((const struct rec *)x)->gid;
	const uint64_t b = ((const struct rec *)y)->gid;

	return (a > b) - (a < b);
}

/* Rank 0: counts and displacements (bytes) of every rank's bytes, and
 * their total. */
static int gather_sizes(int bytes, int size, int **count, int **displ,
			size_t *total)
{
	int rank;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		*count = malloc((size_t)size * sizeof **count);
		*displ = malloc((size_t)size * sizeof **displ);
	}
	MPI_Gather(&bytes, 1, MPI_INT, rank == 0 ? *count : NULL, 1, MPI_INT, 0,
		   MPI_COMM_WORLD);
	*total = 0;
	if (rank != 0)
		return PX_OK;
	if (!*count || !*displ)
		return PX_ERR_NOMEM;
	for (int r = 0; r < size; r++) {
		(*displ)[r] = (int)*total;
		*total += (size_t)(*count)[r];
	}
	return PX_OK;
}

int px_dist_vtk_begin(const char *dir, int rank, struct px_error *err)
{
	int rc = PX_OK;

	if (rank == 0 && mkdir(dir, 0777) && errno != EEXIST)
		rc = px_error_set(err, PX_ERR_IO, "%s: cannot create: %s", dir,
				  strerror(errno));
	return px_dist_agree(rc, err);
}

int px_dist_vtk_frame(const struct px_dist_world *dw, const char *dir,
		      unsigned long long step, struct px_dist_vtk *v,
		      struct px_error *err)
{
	const struct px_body *b = px_world_bodies(dw->w);
	const size_t n = px_world_n_bodies(dw->w);
	struct rec *mine = malloc((n + 1) * sizeof *mine), *all = NULL;
	struct px_vtk_contact *call = NULL;
	struct px_body *bodies = NULL;
	int *count = NULL, *displ = NULL, *ccount = NULL, *cdispl = NULL;
	size_t m = 0, total = 0, ctotal = 0;
	char path[4096];
	int rc = mine ? PX_OK : PX_ERR_NOMEM;

	/* own bodies; the static ones from rank 0 (every world has them) */
	for (size_t i = 0; mine && i < n; i++)
		if (dw->reg->owner[i] == dw->rank ||
		    (dw->rank == 0 && dw->reg->owner[i] < 0))
			mine[m++] = (struct rec){dw->reg->gid[i], b[i]};
	if (!rc)
		rc = gather_sizes((int)(m * sizeof *mine), dw->size, &count,
				  &displ, &total);
	if (!rc)
		rc = gather_sizes((int)(dw->n_vtk * sizeof *dw->vtk), dw->size,
				  &ccount, &cdispl, &ctotal);
	if (!rc && dw->rank == 0) {
		all = malloc(total + 1);
		bodies = malloc((total / sizeof *all + 1) * sizeof *bodies);
		call = malloc(ctotal + 1);
		if (!all || !bodies || !call)
			rc = PX_ERR_NOMEM;
	}
	if (rc)
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for a VTK frame",
				  dw->rank);
	if ((rc = px_dist_agree(rc, err)))
		goto done;
	MPI_Gatherv(mine, (int)(m * sizeof *mine), MPI_BYTE, all, count, displ,
		    MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Gatherv(dw->vtk, (int)(dw->n_vtk * sizeof *dw->vtk), MPI_BYTE,
		    call, ccount, cdispl, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (dw->rank == 0) {
		const size_t nb = total / sizeof *all;
		char **nn = realloc(v->names, (v->n + 1) * sizeof *nn);
		double *nt = nn ? realloc(v->times, (v->n + 1) * sizeof *nt) : NULL;

		if (nn)
			v->names = nn;
		if (nt)
			v->times = nt;
		qsort(all, nb, sizeof *all, cmp_rec);
		for (size_t i = 0; i < nb; i++)
			bodies[i] = all[i].b;
		snprintf(path, sizeof path, "%s/frame_%06llu.vtp", dir, step);
		rc = nn && nt ? px_vtk_write_frame(path, nb, px_body_vtk_part,
						   bodies, err)
			      : px_error_set(err, PX_ERR_NOMEM, "out of memory");
		snprintf(path, sizeof path, "%s/contacts_%06llu.vtp", dir, step);
		if (!rc)
			rc = px_vtk_write_contacts(path, ctotal / sizeof *call,
						   call, err);
		if (!rc) {
			char name[64];

			snprintf(name, sizeof name, "frame_%06llu.vtp", step);
			if (!(v->names[v->n] = strdup(name)))
				rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
			v->times[v->n] = (double)step * px_world_settings(dw->w)->dt;
			v->n += !rc;
		}
	}
	rc = px_dist_agree(rc, err);
done:
	free(mine);
	free(all);
	free(bodies);
	free(call);
	free(count);
	free(displ);
	free(ccount);
	free(cdispl);
	return rc;
}

int px_dist_vtk_end(const char *dir, int rank, struct px_dist_vtk *v,
		    struct px_error *err)
{
	char path[4096], **c = NULL;
	int rc = PX_OK;

	if (rank == 0) {
		snprintf(path, sizeof path, "%s/frames.pvd", dir);
		rc = px_vtk_write_pvd(path, (const char *const *)v->names,
				      v->times, v->n, err);
		c = calloc(v->n + 1, sizeof *c);
		if (!rc && !c)
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		for (size_t i = 0; !rc && i < v->n; i++) {
			/* frame_NNNNNN.vtp: contacts_NNNNNN.vtp */
			if (!(c[i] = malloc(strlen(v->names[i]) + 4)))
				rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
			else
				sprintf(c[i], "contacts_%s", v->names[i] + 6);
		}
		snprintf(path, sizeof path, "%s/contacts.pvd", dir);
		if (!rc)
			rc = px_vtk_write_pvd(path, (const char *const *)c,
					      v->times, v->n, err);
		for (size_t i = 0; c && i < v->n; i++)
			free(c[i]);
		free(c);
	}
	return px_dist_agree(rc, err);
}

void px_dist_vtk_free(struct px_dist_vtk *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->names[i]);
	free(v->names);
	free(v->times);
	*v = (struct px_dist_vtk){0};
}
