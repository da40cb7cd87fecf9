/* Ghost refresh and migration after a distributed step (issue 21,
 * step.h): the owner of a body at the step's start moved it; it sends it
 * to every neighbour whose region keeps it now, and each rank's world
 * takes its new bodies in ascending global id (statics stay where they
 * are). A body whose centre left its owner's box belongs to the rank
 * whose box holds it from now on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "step.h"

enum { TAG_BODIES = 12 };

struct moved {
	uint64_t gid;
	struct px_body b;
};

static int cmp_moved(const void *x, const void *y)
{
	const struct moved *a = x, *b = y;

	return (a->gid > b->gid) - (a->gid < b->gid);
}

/* Into out's buffer q the own bodies neighbour q keeps; the rank's own
 * kept ones and its statics into *keep. Fails when a body moved
 * farther than the ghost layer's width in the step: from a centre in the
 * rank's box, a move within that width keeps it where only neighbours
 * (boxes within two widths) can keep it. */
static int sort_out(struct px_dist_world *dw, struct px_dist_outbox *out,
		    struct moved *keep, size_t *n_keep, struct px_error *err)
{
	const struct px_region *reg = dw->reg;
	const struct px_body *b = px_world_bodies(dw->w);
	const size_t n = px_world_n_bodies(dw->w);

	for (size_t i = 0; i < n; i++) {
		double d[3], moved;

		if (b[i].is_static) {
			keep[(*n_keep)++] = (struct moved){reg->gid[i], b[i]};
			continue;
		}
		if (!dw->own[i])
			continue;
		for (int q = 0; q < 3; q++)
			d[q] = b[i].x[q] - dw->x0[3 * i + q];
		moved = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		if (!(moved <= reg->ghost))
			return px_error_set(err, PX_ERR_INVALID,
					    "rank %d: body %llu moved %g m in one step, more than the ghost layer's width (%g m)",
					    dw->rank, (unsigned long long)reg->gid[i],
					    moved, reg->ghost);
		dw->migrated += px_region_owner(reg, b[i].x) != dw->rank;
		if (px_region_keeps(reg, dw->rank, b[i].x))
			keep[(*n_keep)++] = (struct moved){reg->gid[i], b[i]};
		for (size_t q = 0; q < dw->n_nbr; q++)
			if (px_region_keeps(reg, dw->nbr[q], b[i].x)) {
				const struct moved m = {reg->gid[i], b[i]};

				px_dist_outbox_put(out, q, &m, sizeof m);
			}
	}
	return PX_OK;
}

/* The world and the region's gid and owner arrays take the bodies
 * keep[0..n), sorted by id; the cache follows the bodies that stay. */
static int take_bodies(struct px_dist_world *dw, struct moved *keep, size_t n,
		       struct px_error *err)
{
	struct px_region *reg = dw->reg;
	const size_t n_old = px_world_n_bodies(dw->w);
	struct px_body *b = malloc((n + 1) * sizeof *b);
	uint32_t *renumber = malloc((n_old + 1) * sizeof *renumber);
	uint64_t *gid = malloc((n + 1) * sizeof *gid);
	int32_t *owner = malloc((n + 1) * sizeof *owner);
	int rc = b && renumber && gid && owner ? PX_OK : PX_ERR_NOMEM;

	if (rc) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the bodies");
		goto done;
	}
	qsort(keep, n, sizeof *keep, cmp_moved);
	for (size_t i = 0; i < n; i++) {
		b[i] = keep[i].b;
		gid[i] = keep[i].gid;
		owner[i] = b[i].is_static ? -1 : px_region_owner(reg, b[i].x);
	}
	for (size_t i = 0; i < n_old; i++) {
		const struct moved key = {.gid = reg->gid[i]};
		const struct moved *at = bsearch(&key, keep, n, sizeof *keep, cmp_moved);

		renumber[i] = at ? (uint32_t)(at - keep) : UINT32_MAX;
	}
	rc = px_world_set_bodies(dw->w, b, n, renumber, err);
	if (!rc)
		px_region_take(reg, &gid, &owner, n);
done:
	free(b);
	free(renumber);
	free(gid);
	free(owner);
	return rc;
}

int px_dist_refresh(struct px_dist_world *dw, struct px_error *err)
{
	const size_t n = px_world_n_bodies(dw->w);
	struct px_dist_outbox out;
	struct moved *keep;
	size_t n_keep = 0, got = 0;
	unsigned char *in = NULL;
	int rc = px_dist_outbox_init(&out, dw, n * sizeof *keep);

	keep = rc ? NULL : malloc((n + 1) * sizeof *keep);
	if (!keep)
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the ghost refresh",
				  dw->rank);
	else
		rc = sort_out(dw, &out, keep, &n_keep, err);
	rc = px_dist_world_swap(dw, TAG_BODIES, rc, &out, &in, &got, err);
	if (!rc) {
		struct moved *all = realloc(keep, (n_keep + got / sizeof *all + 1) * sizeof *all);

		if (all) {
			keep = all;
			memcpy(keep + n_keep, in, got);
			n_keep += got / sizeof *all;
			rc = take_bodies(dw, keep, n_keep, err);
		} else {
			rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the ghost refresh",
					  dw->rank);
		}
	}
	px_dist_outbox_free(&out);
	free(keep);
	free(in);
	return px_dist_agree(rc, err);
}
