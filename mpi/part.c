/* Freeing a part of either kind (dist.h). */
#include <stdlib.h>

#include "dist.h"

void px_dist_part_free(struct px_dist_part *d)
{
	px_problem_destroy(d->p);
	for (size_t l = 0; d->links && l < d->n_links; l++) {
		free(d->links[l].mine);
		free(d->links[l].theirs);
		free(d->links[l].sbuf);
		free(d->links[l].rbuf);
	}
	free(d->links);
	free(d->gid);
	free(d->b0);
	free(d->ghost_gid);
	free(d->ghost_lambda);
	free(d->cpl_ptr);
	free(d->cpl_col);
	free(d->cpl_blk);
	free(d->mult);
	free(d->diag);
	free(d->body_gid);
	free(d->body_owner);
	free(d->inv_mass);
	free(d->inv_inertia);
	free(d->body_a);
	free(d->body_b);
	free(d->world_contact);
	free(d->lever);
	free(d->frame);
	free(d->point);
	free(d->fric);
	free(d->shift);
	free(d->copies);
	free(d->shared);
	free(d->vbar);
	free(d->self);
	free(d->du);
	free(d->total);
	free(d->coupled);
	*d = (struct px_dist_part){0};
}
