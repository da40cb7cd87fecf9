/* Recursive coordinate bisection of a generated scene (issue 21, see
 * region.h). The cuts come from a sample of the dynamic bodies' centres
 * (every stride-th, at most about 4096 per rank and SAMPLE_MAX in all, so
 * that a rank's sample stays O(1), not O(bodies), at 1,024 ranks: issue
 * 36), freed once the boxes are cut; no rank holds every body; the same
 * sample and the same arithmetic on every rank give the same boxes
 * without a message. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "region.h"
#include "scene.h"

enum { SAMPLE_MAX = 1 << 20 };

static double bounding_radius(const struct px_shape *s)
{
	switch (s->kind) {
	case PX_SPHERE: return s->radius;
	case PX_BOX: return sqrt(s->half[0] * s->half[0] + s->half[1] * s->half[1] +
				 s->half[2] * s->half[2]);
	case PX_CAPSULE: return s->radius + s->half_length;
	default: return 0;
	}
}

/* The distance from x to the box [lo, hi]. */
static double box_distance(const double lo[3], const double hi[3],
			   const double x[3])
{
	double d2 = 0;

	for (int i = 0; i < 3; i++) {
		double e = x[i] < lo[i] ? lo[i] - x[i] :
			   x[i] > hi[i] ? x[i] - hi[i] : 0;

		d2 += e * e;
	}
	return sqrt(d2);
}

int px_region_keeps(const struct px_region *r, int q, const double x[3])
{
	const double *b = r->box + 6 * q;

	return px_region_owner(r, x) == q ||
	       box_distance(b, b + 3, x) <= r->ghost;
}

int px_region_neighbours(const struct px_region *r, int **out, size_t *n)
{
	const double *me = r->box + 6 * r->rank;

	*n = 0;
	*out = malloc(((size_t)r->size + 1) * sizeof **out);
	if (!*out)
		return PX_ERR_NOMEM;
	for (int q = 0; q < r->size; q++) {
		const double *b = r->box + 6 * q;
		double d2 = 0;

		for (int i = 0; i < 3; i++) {
			/* the gap between the boxes along axis i */
			double e = fmax(b[i] - me[3 + i], me[i] - b[3 + i]);

			d2 += e > 0 ? e * e : 0;
		}
		if (q != r->rank && sqrt(d2) <= 2 * r->ghost)
			(*out)[(*n)++] = q;
	}
	return PX_OK;
}

int px_region_owner(const struct px_region *r, const double x[3])
{
	int at = 0;

	while (r->node[at].axis >= 0)
		at = x[r->node[at].axis] < r->node[at].cut ? r->node[at].left
							   : r->node[at].right;
	return r->node[at].rank;
}

static int keep(void *ctx, const struct px_body *b, size_t index)
{
	struct px_region *r = ctx;
	int owner = -1;

	if (r->pass == 1) {
		if (!b->is_static) {
			double br = bounding_radius(&b->shape);

			r->n_dynamic++;
			r->rmax = br > r->rmax ? br : r->rmax;
		}
		return 0;
	}
	if (r->pass == 2) {
		if (!b->is_static && r->n_dynamic++ % r->stride == 0) {
			if (r->n_sample == r->cap_sample) {
				size_t cap = r->cap_sample ? 2 * r->cap_sample : 1024;
				double *g = realloc(r->sample, 3 * cap * sizeof *g);

				if (!g) {
					r->nomem = 1;
					return 0;
				}
				r->sample = g;
				r->cap_sample = cap;
			}
			memcpy(r->sample + 3 * r->n_sample++, b->x, 3 * sizeof *b->x);
		}
		return 0;
	}
	if (!b->is_static) {
		owner = px_region_owner(r, b->x);
		if (owner != r->rank && box_distance(r->lo, r->hi, b->x) > r->ghost)
			return 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		uint64_t *g = realloc(r->gid, cap * sizeof *g);
		int32_t *o;

		if (g)
			r->gid = g;
		o = g ? realloc(r->owner, cap * sizeof *o) : NULL;
		if (!o) {
			r->nomem = 1;
			return 0;
		}
		r->owner = o;
		r->cap = cap;
	}
	r->gid[r->n] = index;
	r->owner[r->n++] = owner;
	return 1;
}

static void swap_pts(double *a, double *b)
{
	double t[3];

	memcpy(t, a, sizeof t);
	memcpy(a, b, sizeof t);
	memcpy(b, t, sizeof t);
}

/* Reorder the n centres pts so that the q-th smallest along axis ax sits
 * at q, none after it smaller, none before it larger (Hoare's selection,
 * median-of-three pivots: O(n), where sorting every level of the
 * bisection cost each rank O(n log n) per level; deterministic, so every
 * rank cuts the same). Only the values at the cut matter to the boxes, so
 * they are those a sort gives. */
static void select_nth(double *pts, ptrdiff_t n, ptrdiff_t q, int ax)
{
	ptrdiff_t lo = 0, hi = n - 1;

	while (lo < hi) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double a = pts[3 * lo + ax], b = pts[3 * mid + ax], c = pts[3 * hi + ax];
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) :
				       (a < c ? a : (b < c ? c : b));

		while (i <= j) {
			while (pts[3 * i + ax] < pivot)
				i++;
			while (pts[3 * j + ax] > pivot)
				j--;
			if (i <= j)
				swap_pts(pts + 3 * i++, pts + 3 * j--);
		}
		/* [lo, j] <= pivot, (j, i) == pivot, [i, hi] >= pivot */
		if (q <= j)
			hi = j;
		else if (q >= i)
			lo = i;
		else
			return;
	}
}

/* Node `at` for ranks [r0, r1) over sample points pts[0..n). */
static int build(struct px_region *r, double *pts, size_t n, int r0, int r1,
		 double lo[3], double hi[3])
{
	int at = r->n_node++;
	struct px_rcb_node *nd = &r->node[at];

	if (r1 - r0 == 1) {
		*nd = (struct px_rcb_node){.axis = -1, .rank = r0};
		memcpy(r->box + 6 * r0, lo, 3 * sizeof *lo);
		memcpy(r->box + 6 * r0 + 3, hi, 3 * sizeof *hi);
		if (r0 == r->rank) {
			memcpy(r->lo, lo, sizeof r->lo);
			memcpy(r->hi, hi, sizeof r->hi);
		}
		return at;
	}
	double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
	int ax = 0, nl = (r1 - r0) / 2;
	size_t q;
	double cut, save;

	/* comparisons, not fmin/fmax (libm calls: a third of the set-up of
	 * 1,024 simulated ranks); the centres are finite */
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			const double v = pts[3 * i + k];

			mn[k] = v < mn[k] ? v : mn[k];
			mx[k] = v > mx[k] ? v : mx[k];
		}
	for (int k = 1; k < 3; k++)
		if (mx[k] - mn[k] > mx[ax] - mn[ax])
			ax = k;
	q = n * (size_t)nl / (size_t)(r1 - r0);
	if (n == 0)
		cut = 0;
	else if (q == 0)
		cut = mn[ax] - 1;
	else if (q >= n)
		cut = mx[ax] + 1;
	else { /* half way between neighbours: no centre sits on the cut */
		double below = -INFINITY;

		select_nth(pts, (ptrdiff_t)n, (ptrdiff_t)q, ax);
		for (size_t i = 0; i < q; i++)
			below = pts[3 * i + ax] > below ? pts[3 * i + ax] : below;
		cut = 0.5 * (below + pts[3 * q + ax]);
	}
	nd->axis = ax;
	nd->cut = cut;
	save = hi[ax];
	hi[ax] = cut;
	r->node[at].left = build(r, pts, q, r0, r0 + nl, lo, hi);
	hi[ax] = save;
	save = lo[ax];
	lo[ax] = cut;
	r->node[at].right = build(r, pts + 3 * q, n - q, r0 + nl, r1, lo, hi);
	lo[ax] = save;
	return at;
}

size_t px_region_stride(size_t n_dynamic, int size)
{
	size_t stride = n_dynamic / (size < SAMPLE_MAX / 4096 ? 4096 * (size_t)size
							       : SAMPLE_MAX) + 1;

	/* odd: an even stride through a grid of even rows samples every
	 * other column only, and the cuts then miss the middle by one */
	return stride | 1;
}

int px_region_bisect(struct px_region *r, double *pts, size_t n)
{
	double lo[3] = {-INFINITY, -INFINITY, -INFINITY};
	double hi[3] = {INFINITY, INFINITY, INFINITY};

	if (!r->node)
		r->node = calloc(2 * (size_t)r->size, sizeof *r->node);
	if (!r->box)
		r->box = malloc(6 * (size_t)r->size * sizeof *r->box);
	if (!r->node || !r->box)
		return PX_ERR_NOMEM;
	r->n_node = 0;
	build(r, pts, n, 0, r->size, lo, hi);
	return PX_OK;
}

int px_region_read(const char *path, int rank, int size,
		   struct px_world_settings *settings, struct px_body **bodies,
		   size_t *n_bodies, struct px_region *r, struct px_error *err)
{
	int rc;

	*r = (struct px_region){.rank = rank, .size = size, .pass = 1};
	rc = px_scene_read_region(path, settings, keep, r, bodies, n_bodies, err);
	if (rc)
		return rc;
	r->pass = 2;
	r->stride = px_region_stride(r->n_dynamic, size);
	r->n_dynamic = 0;
	rc = px_scene_read_region(path, settings, keep, r, bodies, n_bodies, err);
	if (rc)
		return rc;
	if (r->nomem || px_region_bisect(r, r->sample, r->n_sample))
		return px_error_set(err, PX_ERR_NOMEM, "%s: out of memory", path);
	free(r->sample);
	r->sample = NULL;
	r->n_sample = r->cap_sample = 0;
	/* a contact between an own body and another needs their centres
	 * within both bounding radii and the collision margin */
	r->ghost = 2 * r->rmax + settings->margin + 1e-9;
	r->pass = 3;
	rc = px_scene_read_region(path, settings, keep, r, bodies, n_bodies, err);
	if (!rc && r->nomem) {
		free(*bodies);
		*bodies = NULL;
		rc = px_error_set(err, PX_ERR_NOMEM, "%s: out of memory", path);
	}
	return rc;
}

void px_region_free(struct px_region *r)
{
	free(r->node);
	free(r->box);
	free(r->gid);
	free(r->owner);
	free(r->sample);
	*r = (struct px_region){0};
}

void px_region_take(struct px_region *r, uint64_t **gid, int32_t **owner,
		    size_t n)
{
	free(r->gid);
	free(r->owner);
	r->gid = *gid;
	r->owner = *owner;
	r->n = r->cap = n;
	*gid = NULL;
	*owner = NULL;
}
