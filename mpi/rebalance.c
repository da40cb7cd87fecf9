/* Re-balancing a distributed world (issue 36, step.h's
 * px_dist_rebalance): after every K-th step the ranks compare their
 * loads; when the most loaded rank carries at least the threshold times
 * the mean, the boxes are cut anew (recursive coordinate bisection of
 * the bodies' current centres, region.c's) and each rank rebuilds its
 * world as the run's start builds it, from the bodies and the cache
 * entries every rank gathered.
 *
 * The simplest correct design: every rank sends every other its own
 * bodies (as moved by the step) and the cache entries of its own
 * contacts (the impulses the step's solve gave them, which the next
 * step's warm start reads), one MPI_Allgatherv each; so every rank holds
 * the whole scene for the moment of the re-partition, O(N) memory and
 * traffic per rank. Fine for a re-partition every K steps on a few
 * hundred ranks; not the design for 10^5 ranks (there: a parallel
 * bisection and point-to-point moves to the new owners). */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "step.h"

/* A body as gathered: its global id, itself and its load: the own
 * contacts it makes its owner's (those whose dynamic body of smallest
 * global id it is, rigid.c's rule). */
struct rb_body {
	uint64_t gid;
	struct px_body b;
	uint64_t load;
};

/* A cache entry as gathered: its bodies by global id, the entry; pos is
 * its place in the gathered order (the sort keeps a pair's entries in
 * their owner's order). */
struct rb_entry {
	uint64_t ga, gb;
	struct px_cached e;
	uint64_t pos;
};

static int cmp_body(const void *x, const void *y)
{
	const uint64_t a = ((const struct rb_body *)x)->gid;
	const uint64_t b = ((const struct rb_body *)y)->gid;

	return (a > b) - (a < b);
}

static int cmp_gid(const void *x, const void *y)
{
	const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* By pair as the world's cache keeps them (b, then a), then gathered
 * order. */
static int cmp_entry(const void *x, const void *y)
{
	const struct rb_entry *a = x, *b = y;

	if (a->e.b != b->e.b)
		return a->e.b < b->e.b ? -1 : 1;
	if (a->e.a != b->e.a)
		return a->e.a < b->e.a ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Collective: every rank's bytes[0..n) into a malloc'ed *all (*total
 * bytes), in rank order; the agreed status. */
static int gather_all(struct px_dist_world *dw, int rc, const void *mine,
		      size_t n, unsigned char **all, size_t *total,
		      struct px_error *err)
{
	uint64_t my = rc ? 0 : n, *each = malloc(((size_t)dw->size + 1) * sizeof *each);
	int *count = malloc(((size_t)dw->size + 1) * sizeof *count);
	int *displ = malloc(((size_t)dw->size + 1) * sizeof *displ);
	uint64_t sum = 0;

	*all = NULL;
	*total = 0;
	if (!rc && (!each || !count || !displ))
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				  dw->rank);
	if ((rc = px_dist_agree(rc, err)))
		goto done;
	MPI_Allgather(&my, 1, MPI_UINT64_T, each, 1, MPI_UINT64_T, MPI_COMM_WORLD);
	for (int r = 0; r < dw->size; r++) {
		count[r] = (int)each[r];
		displ[r] = (int)sum;
		sum += each[r];
	}
	if (sum > INT_MAX)
		rc = px_error_set(err, PX_ERR_INVALID,
				  "the re-partition gathers %llu bytes on every rank, more than one MPI message holds (2^31 - 1): run this scene without --rebalance-every",
				  (unsigned long long)sum);
	else if (!(*all = malloc(sum + 1)))
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				  dw->rank);
	if ((rc = px_dist_agree(rc, err)))
		goto done;
	MPI_Allgatherv(mine, (int)my, MPI_BYTE, *all, count, displ, MPI_BYTE,
		       MPI_COMM_WORLD);
	*total = sum;
	dw->traffic.messages += (uint64_t)dw->size - 1;
	dw->traffic.bytes += my * ((uint64_t)dw->size - 1);
done:
	if (rc) {
		free(*all);
		*all = NULL;
	}
	free(each);
	free(count);
	free(displ);
	return rc;
}

/* This rank's own bodies (owned at the step's start, as the step moved
 * them) and its own contacts' cache entries, into malloc'ed arrays. */
static int own_parts(const struct px_dist_world *dw, struct rb_body **bodies,
		     size_t *n_bodies, struct rb_entry **entries,
		     size_t *n_entries, struct px_error *err)
{
	const struct px_region *reg = dw->reg;
	const struct px_body *b = px_world_bodies(dw->w);
	const size_t n = px_world_n_bodies(dw->w);
	const struct px_dist_part *d = &dw->d;
	const struct px_cached *cache;
	const size_t n_cache = px_world_cache(dw->w, &cache);

	*n_bodies = *n_entries = 0;
	*bodies = malloc((n + 1) * sizeof **bodies);
	*entries = malloc((d->n_own + 1) * sizeof **entries);
	if (!*bodies || !*entries)
		return px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				    dw->rank);
	uint64_t *load = calloc(n + 1, sizeof *load);

	if (!load)
		return px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				    dw->rank);
	/* the cache holds the step's contacts in the world's order, the
	 * part's own contacts among them (world_contact, ascending) */
	for (size_t j = 0; j < d->n_own; j++) {
		const size_t k = d->world_contact[j];
		uint32_t x;

		if (k >= n_cache) {
			free(load);
			return px_error_set(err, PX_ERR_INVALID,
					    "rank %d: own contact %zu has no cache entry (the cache holds %zu)",
					    dw->rank, k, n_cache);
		}
		(*entries)[(*n_entries)++] = (struct rb_entry){
			reg->gid[cache[k].a], reg->gid[cache[k].b], cache[k], 0};
		/* its owning body: the dynamic one of smallest id */
		x = b[cache[k].a].is_static ? cache[k].b :
		    b[cache[k].b].is_static ? cache[k].a :
		    reg->gid[cache[k].a] < reg->gid[cache[k].b] ? cache[k].a : cache[k].b;
		load[x]++;
	}
	for (size_t i = 0; i < n; i++)
		if (dw->own[i])
			(*bodies)[(*n_bodies)++] = (struct rb_body){reg->gid[i], b[i], load[i]};
	free(load);
	return PX_OK;
}

/* The boxes anew from the gathered bodies all[0..n) (sorted by id): the
 * centres of every stride-th moving body, as px_region_read samples the
 * scene, each 1 + its load times (the contacts it brings its owner): the
 * bisection's halves then hold equal contacts plus bodies, not equal
 * bodies (weighting by contacts alone balances a little better and moves
 * several times the bodies: a body's contacts come and go). */
static int cut_boxes(struct px_dist_world *dw, const struct rb_body *all,
		     size_t n, struct px_error *err)
{
	const size_t stride = px_region_stride(n, dw->size);
	size_t m = 0, total = 0;
	double *pts;
	int rc;

	for (size_t i = 0; i < n; i += stride)
		total += all[i].load + 1;
	pts = malloc((3 * total + 1) * sizeof *pts);
	if (!pts)
		return px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				    dw->rank);
	for (size_t i = 0; i < n; i += stride)
		for (uint64_t c = 0; c < all[i].load + 1; c++)
			memcpy(pts + 3 * m++, all[i].b.x, 3 * sizeof *pts);
	rc = px_region_bisect(dw->reg, pts, m);
	free(pts);
	if (rc)
		return px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				    dw->rank);
	return PX_OK;
}

/* The rank's world anew: its statics, the gathered bodies its new box
 * keeps (own and ghost layer), in ascending id, and the gathered cache
 * entries of their pairs. */
static int rebuild(struct px_dist_world *dw, const struct rb_body *all,
		   size_t n_all, struct rb_entry *ent, size_t n_ent,
		   struct px_error *err)
{
	struct px_region *reg = dw->reg;
	const struct px_body *old = px_world_bodies(dw->w);
	const size_t n_old = px_world_n_bodies(dw->w);
	struct rb_body *keep = malloc((n_old + n_all + 1) * sizeof *keep);
	struct px_body *b = NULL;
	struct px_cached *cache = NULL;
	uint32_t *renumber = malloc((n_old + 1) * sizeof *renumber);
	uint64_t *gid = NULL;
	int32_t *owner = NULL;
	size_t n = 0, m = 0;
	int rc = PX_OK;

	if (!keep || !renumber) {
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				  dw->rank);
		goto done;
	}
	for (size_t i = 0; i < n_old; i++) {
		renumber[i] = UINT32_MAX; /* the cache comes from the owners */
		if (old[i].is_static)
			keep[n++] = (struct rb_body){reg->gid[i], old[i], 0};
	}
	for (size_t i = 0; i < n_all; i++)
		if (px_region_keeps(reg, dw->rank, all[i].b.x))
			keep[n++] = all[i];
	qsort(keep, n, sizeof *keep, cmp_body);
	b = malloc((n + 1) * sizeof *b);
	gid = malloc((n + 1) * sizeof *gid);
	owner = malloc((n + 1) * sizeof *owner);
	cache = malloc((n_ent + 1) * sizeof *cache);
	if (!b || !gid || !owner || !cache) {
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the re-partition",
				  dw->rank);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		b[i] = keep[i].b;
		gid[i] = keep[i].gid;
		owner[i] = b[i].is_static ? -1 : px_region_owner(reg, b[i].x);
	}
	/* the entries of pairs this world holds, by their new indices */
	for (size_t k = 0; k < n_ent; k++) {
		const uint64_t *a = bsearch(&ent[k].ga, gid, n, sizeof *gid, cmp_gid);
		const uint64_t *c = bsearch(&ent[k].gb, gid, n, sizeof *gid, cmp_gid);

		if (!a || !c)
			continue;
		ent[m] = ent[k];
		ent[m].e.a = (uint32_t)(a - gid);
		ent[m].e.b = (uint32_t)(c - gid);
		ent[m].pos = k;
		m++;
	}
	qsort(ent, m, sizeof *ent, cmp_entry);
	for (size_t k = 0; k < m; k++)
		cache[k] = ent[k].e;
	rc = px_world_set_bodies(dw->w, b, n, renumber, err);
	if (!rc)
		rc = px_world_set_cache(dw->w, cache, m, err);
	if (!rc)
		px_region_take(reg, &gid, &owner, n);
	else
		px_dist_prefix_rank(err, dw->rank);
done:
	free(keep);
	free(b);
	free(cache);
	free(renumber);
	free(gid);
	free(owner);
	return rc;
}

/* The load imbalance of the step just solved: the most own contacts of a
 * rank over the mean, or of own bodies when no rank has a contact (1 when
 * even). */
static double imbalance(const struct px_dist_world *dw)
{
	const size_t n = px_world_n_bodies(dw->w);
	double mine[2] = {(double)dw->d.n_own, 0}, most[2], sum[2];

	for (size_t i = 0; i < n; i++)
		mine[1] += dw->own[i];
	MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (sum[0] > 0)
		return most[0] * dw->size / sum[0];
	return sum[1] > 0 ? most[1] * dw->size / sum[1] : 1.0;
}

int px_dist_rebalance(struct px_dist_world *dw, struct px_error *err)
{
	struct rb_body *mine = NULL, *all = NULL;
	struct rb_entry *own_ent = NULL, *ent = NULL;
	unsigned char *got = NULL;
	size_t n_mine = 0, n_own_ent = 0, bytes = 0, n_all = 0, n_ent = 0;
	int rc;

	dw->imbalance = imbalance(dw);
	if (dw->imbalance < dw->o.rebalance_threshold)
		return px_dist_refresh(dw, err);
	rc = own_parts(dw, &mine, &n_mine, &own_ent, &n_own_ent, err);
	rc = gather_all(dw, rc, mine, n_mine * sizeof *mine, &got, &bytes, err);
	all = (struct rb_body *)got;
	n_all = bytes / sizeof *all;
	got = NULL;
	if (!rc)
		rc = gather_all(dw, rc, own_ent, n_own_ent * sizeof *own_ent, &got,
				&bytes, err);
	ent = (struct rb_entry *)got;
	n_ent = bytes / sizeof *ent;
	if (!rc) {
		qsort(all, n_all, sizeof *all, cmp_body);
		rc = cut_boxes(dw, all, n_all, err);
	}
	if (!rc)
		rc = rebuild(dw, all, n_all, ent, n_ent, err);
	if (!rc)
		rc = px_dist_world_neighbours(dw, err);
	for (size_t i = 0; !rc && i < n_mine; i++)
		dw->rebalance_moved += px_region_owner(dw->reg, mine[i].b.x) != dw->rank;
	dw->rebalances += !rc;
	free(mine);
	free(own_ent);
	free(all);
	free(ent);
	return px_dist_agree(rc, err);
}
