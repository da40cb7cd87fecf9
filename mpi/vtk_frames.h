/* VTK frames of a distributed run, gathered on rank 0 (vtk_frames.c). */
#ifndef PX_DIST_VTK_FRAMES_H
#define PX_DIST_VTK_FRAMES_H

#include "step.h"

/* Rank 0's index of the frames written: names relative to DIR, times. */
struct px_dist_vtk {
	char **names;
	double *times;
	size_t n;
};

/* Collective: rank 0 makes DIR (there already: fine); the agreed status. */
int px_dist_vtk_begin(const char *dir, int rank, struct px_error *err);

/* Collective: the frame of step (0: the start), its bodies and the
 * contacts of the step just taken (dw->vtk, kept by px_dist_world_step
 * while dw->vtk_want), written by rank 0; the agreed status. */
int px_dist_vtk_frame(const struct px_dist_world *dw, const char *dir,
		      unsigned long long step, struct px_dist_vtk *v,
		      struct px_error *err);

/* Collective: rank 0 writes DIR/frames.pvd and DIR/contacts.pvd. */
int px_dist_vtk_end(const char *dir, int rank, struct px_dist_vtk *v,
		    struct px_error *err);

void px_dist_vtk_free(struct px_dist_vtk *v);

#endif
