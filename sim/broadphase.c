/* The broad phase: candidate pairs from axis-aligned bounding boxes grown by
 * the margin, through a uniform grid stored as a spatial hash.
 *
 * The cell is the median extent of (a sample of) the dynamic bodies. Each
 * body not much larger than a cell is entered in every cell its box
 * touches; entries are counting-sorted by bucket (the cell's own where
 * the cells touched span few enough, else the hash of the cell), and two
 * bodies of one cell make a pair only in the cell holding the lower corner
 * of their boxes' intersection, so each pair comes out once without a set.
 * Larger bodies (the ground, walls) and planes, which are unbounded, are
 * tested against every other body: a plane against the box's reach into
 * its half-space grown by the margin. The pairs are then counting-sorted by
 * a, then stably by b. Two spheres make a pair only where their
 * surfaces come within the margin (the narrow phase's own test, with a
 * hair's room so that it alone decides the boundary): a lattice of balls
 * touches 3 of the 13 neighbours whose boxes overlap its box. Every
 * buffer is kept and only grows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide.h"
#include "vec.h"

#define SAMPLE 255	/* bodies sampled for the cell size */
#define LARGE_CELLS 4.0 /* larger than this many cells: tested apart */
#define CELL_LIMIT 1e9	/* cell coordinates are clamped to +-this */

enum { F_STATIC = 1, F_PLANE = 2, F_LARGE = 4, F_SPHERE = 8 };

struct aabb {
	double lo[3], hi[3];
};

struct ball {
	double x[3], r; /* a sphere's centre and radius */
};

struct entry {
	int32_t c[3];
	uint32_t body;
};

/* The buckets of the grid's cells: with a dense grid (the cells the
 * bodies touch span a box of few enough cells) cell (x, y, z) is bucket
 * x - lo[0] + dim[0] (y - lo[1] + dim[1] (z - lo[2])), so that nearby
 * cells are nearby buckets and no two cells share one; else the hash of
 * the cell, masked. */
struct buckets {
	int dense;
	int64_t lo[3], dim[3];
	size_t mask;
};

static size_t bucket_of(const struct buckets *k, const int32_t c[3]);

struct px_broadphase {
	struct aabb *box;
	struct ball *ball; /* of the F_SPHERE bodies */
	uint8_t *flag;
	uint32_t *large;
	struct entry *sorted;
	int32_t (*cells)[6]; /* per grid body: its box's lo, hi cells */
	size_t *start; /* bucket starts, n_buckets + 1 */
	struct px_pair *pairs, *tmp;
	size_t *count; /* per body, for sorting the pairs */
	size_t box_cap, ball_cap, flag_cap, large_cap, sorted_cap, start_cap;
	size_t pair_cap, tmp_cap, count_cap, cells_cap, n_pairs;
	double sample[SAMPLE];
};

struct px_broadphase *px_broadphase_create(void)
{
	return calloc(1, sizeof(struct px_broadphase));
}

void px_broadphase_destroy(struct px_broadphase *bp)
{
	if (!bp)
		return;
	free(bp->box);
	free(bp->ball);
	free(bp->flag);
	free(bp->large);
	free(bp->sorted);
	free(bp->cells);
	free(bp->start);
	free(bp->pairs);
	free(bp->tmp);
	free(bp->count);
	free(bp);
}

/* The array *p holds at least n elements of size sz (contents kept); it
 * grows by half at least, so slowly growing scenes rarely reallocate. */
static int grow(void *p, size_t *cap, size_t n, size_t sz)
{
	const size_t want = n > *cap + *cap / 2 ? n : *cap + *cap / 2;
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*(void **)p, want * sz);
	if (!q)
		return -1;
	*(void **)p = q;
	*cap = want;
	return 0;
}

static void body_aabb(const struct px_body *b, double margin, struct aabb *o)
{
	const struct px_shape *s = &b->shape;
	double r[9], ext[3];

	switch (s->kind) {
	case PX_SPHERE:
		ext[0] = ext[1] = ext[2] = s->radius;
		break;
	case PX_BOX:
		quat_to_matrix(b->q, r);
		for (int i = 0; i < 3; i++)
			ext[i] = fabs(r[3 * i]) * s->half[0] +
				 fabs(r[3 * i + 1]) * s->half[1] +
				 fabs(r[3 * i + 2]) * s->half[2];
		break;
	case PX_CAPSULE:
		quat_to_matrix(b->q, r);
		for (int i = 0; i < 3; i++)
			ext[i] =
			    fabs(r[3 * i + 2]) * s->half_length + s->radius;
		break;
	default: /* planes are unbounded */
		ext[0] = ext[1] = ext[2] = INFINITY;
		break;
	}
	for (int i = 0; i < 3; i++) {
		o->lo[i] = b->x[i] - ext[i] - margin;
		o->hi[i] = b->x[i] + ext[i] + margin;
	}
}

static double extent(const struct aabb *a)
{
	return fmax(a->hi[0] - a->lo[0],
		    fmax(a->hi[1] - a->lo[1], a->hi[2] - a->lo[2]));
}

/* (a NaN box overlaps nothing) */
static int overlap(const struct aabb *a, const struct aabb *b)
{
	for (int i = 0; i < 3; i++)
		if (!(a->lo[i] <= b->hi[i] && b->lo[i] <= a->hi[i]))
			return 0;
	return 1;
}

/* Spheres i and j are farther apart than the narrow phase's test
 * (px_round_point: |x_b - x_a| - r_a - r_b >= margin) lets through, with
 * room for its own rounding (a relative 1e-9, without the square root):
 * it decides every pair near the boundary. */
static int balls_apart(const struct ball *bi, const struct ball *bj,
		       double margin)
{
	const double reach = (bi->r + bj->r + margin + 1e-9) * (1.0 + 1e-9);
	double d[3];

	v3_sub(bj->x, bi->x, d);
	return v3_dot(d, d) > reach * reach;
}

/* The box reaches within margin of plane p's half-space. */
static int below_plane(const struct px_body *p, const struct aabb *a,
		       double margin)
{
	const double *n = p->shape.normal;
	double s = 0.0;

	for (int i = 0; i < 3; i++)
		s += n[i] * (0.5 * (a->lo[i] + a->hi[i]) - p->x[i]) -
		     fabs(n[i]) * 0.5 * (a->hi[i] - a->lo[i]);
	return s <= margin;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median extent of up to SAMPLE dynamic bounded bodies (the largest
 * if that is 0, 1 if all are), or 0 if there is none. */
static double cell_size(struct px_broadphase *bp, size_t n)
{
	size_t m = 0, stride = n / SAMPLE + 1;

	for (int pass = 0; pass < 2 && m == 0; pass++) {
		for (size_t i = 0; i < n && m < SAMPLE; i += stride) {
			const double e = extent(&bp->box[i]);

			if (!(bp->flag[i] & (F_STATIC | F_PLANE)) &&
			    isfinite(e))
				bp->sample[m++] = e;
		}
		stride = 1; /* few dynamic bodies: look at all */
	}
	if (m == 0)
		return 0.0;
	qsort(bp->sample, m, sizeof *bp->sample, cmp_double);
	if (bp->sample[m / 2] > 0.0)
		return bp->sample[m / 2];
	return bp->sample[m - 1] > 0.0 ? bp->sample[m - 1] : 1.0;
}

static int32_t cell_of(double v, double inv)
{
	double c = floor(v * inv);

	if (!(c > -CELL_LIMIT))
		c = -CELL_LIMIT;
	if (c > CELL_LIMIT)
		c = CELL_LIMIT;
	return (int32_t)c;
}

static uint32_t hash_cell(const int32_t c[3])
{
	uint32_t h = (uint32_t)c[0] * 73856093u + (uint32_t)c[1] * 19349663u +
		     (uint32_t)c[2] * 83492791u;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h;
}

static int push_pair(struct px_broadphase *bp, uint32_t i, uint32_t j)
{
	if (bp->n_pairs == bp->pair_cap &&
	    grow(&bp->pairs, &bp->pair_cap,
		 bp->pair_cap ? 2 * bp->pair_cap : 1024, sizeof *bp->pairs))
		return -1;
	bp->pairs[bp->n_pairs].a = i < j ? i : j;
	bp->pairs[bp->n_pairs].b = i < j ? j : i;
	bp->n_pairs++;
	return 0;
}

static size_t bucket_of(const struct buckets *k, const int32_t c[3])
{
	if (k->dense)
		return (size_t)((c[0] - k->lo[0]) +
				k->dim[0] * ((c[1] - k->lo[1]) +
					     k->dim[1] * (c[2] - k->lo[2])));
	return hash_cell(c) & k->mask;
}

/* Enter the grid bodies in their cells, sorted by bucket; returns the
 * bucket count, or 0 when out of memory. */
static size_t fill_grid(struct px_broadphase *bp, size_t n, double inv)
{
	size_t total = 0, nb = 64;
	int64_t lo_c[3] = {INT32_MAX, INT32_MAX, INT32_MAX},
		hi_c[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
	struct buckets bk = {0};
	double span = 1.0;

	if (grow(&bp->cells, &bp->cells_cap, n, sizeof *bp->cells))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct aabb *a = &bp->box[i];
		size_t cells = 1;

		if (bp->flag[i] & F_LARGE)
			continue;
		for (int k = 0; k < 3; k++) {
			const int32_t l = cell_of(a->lo[k], inv),
				      h = cell_of(a->hi[k], inv);

			bp->cells[i][k] = l;
			bp->cells[i][3 + k] = h;

			cells *= (size_t)(h - l + 1);
			if (l < lo_c[k])
				lo_c[k] = l;
			if (h > hi_c[k])
				hi_c[k] = h;
		}
		total += cells;
	}
	while (nb < 2 * total)
		nb *= 2;
	for (int k = 0; k < 3; k++)
		span *= total ? (double)(hi_c[k] - lo_c[k] + 1) : 0.0;
	if (total && span <= (double)nb) { /* dense: a bucket per cell */
		bk.dense = 1;
		for (int k = 0; k < 3; k++) {
			bk.lo[k] = lo_c[k];
			bk.dim[k] = hi_c[k] - lo_c[k] + 1;
		}
		nb = (size_t)span;
	} else {
		bk.mask = nb - 1;
	}
	if (grow(&bp->sorted, &bp->sorted_cap, total, sizeof *bp->sorted) ||
	    grow(&bp->start, &bp->start_cap, nb + 1, sizeof *bp->start))
		return 0;

	/* count the entries of each bucket, then put them in place: in body
	 * order within a bucket */
	memset(bp->start, 0, (nb + 1) * sizeof *bp->start);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const int32_t *lo = bp->cells[i], *hi = bp->cells[i] + 3;
			int32_t c[3];

			if (bp->flag[i] & F_LARGE)
				continue;
			for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
				for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
					for (c[0] = lo[0]; c[0] <= hi[0];
					     c[0]++) {
						const size_t h =
						    bucket_of(&bk, c);
						struct entry *x;

						if (!pass) {
							bp->start[h + 1]++;
							continue;
						}
						x = &bp->sorted[bp->start[h]++];
						memcpy(x->c, c, sizeof x->c);
						x->body = (uint32_t)i;
					}
		}
		if (!pass)
			for (size_t h = 0; h < nb; h++)
				bp->start[h + 1] += bp->start[h];
	}
	/* start[h] is now the end of bucket h: shift back */
	memmove(bp->start + 1, bp->start, nb * sizeof *bp->start);
	bp->start[0] = 0;
	return nb;
}

/* The pairs of each cell whose boxes' intersection has its lower corner
 * in that cell: as cell_of is monotonic, the cell of the larger of two
 * lower bounds is the larger of their cells. */
static int grid_pairs(struct px_broadphase *bp, size_t nb, double margin)
{
	for (size_t h = 0; h < nb; h++) {
		const struct entry *x = bp->sorted + bp->start[h];
		const size_t m = bp->start[h + 1] - bp->start[h];

		for (size_t p = 0; p < m; p++) {
			const uint32_t i = x[p].body;
			const struct aabb *a = &bp->box[i];

			for (size_t q = p + 1; q < m; q++) {
				const uint32_t j = x[q].body;
				const struct aabb *b = &bp->box[j];
				int k;

				if (memcmp(x[p].c, x[q].c, sizeof x[p].c))
					continue;
				/* the cheap integer test first: of the
				 * cells two bodies share, one passes */
				for (k = 0; k < 3; k++) {
					const int32_t ci = bp->cells[i][k],
						      cj = bp->cells[j][k];

					if ((ci > cj ? ci : cj) != x[p].c[k])
						break;
				}
				if (k < 3 ||
				    (bp->flag[i] & bp->flag[j] & F_STATIC) ||
				    !overlap(a, b))
					continue;
				if ((bp->flag[i] & bp->flag[j] & F_SPHERE) &&
				    balls_apart(&bp->ball[i], &bp->ball[j],
						margin))
					continue;
				if (push_pair(bp, i, j))
					return -1;
			}
		}
	}
	return 0;
}

static int large_pairs(struct px_broadphase *bp, const struct px_body *bodies,
		       size_t n, size_t n_large, double margin)
{
	for (size_t l = 0; l < n_large; l++) {
		const uint32_t i = bp->large[l];
		const uint8_t fi = bp->flag[i];

		for (uint32_t j = 0; j < n; j++) {
			const uint8_t fj = bp->flag[j];
			int hit;

			if (j == i || ((fj & F_LARGE) && j < i) ||
			    (fi & fj & (F_STATIC | F_PLANE)))
				continue;
			if (fi & F_PLANE)
				hit = below_plane(&bodies[i], &bp->box[j],
						  margin);
			else if (fj & F_PLANE)
				hit = below_plane(&bodies[j], &bp->box[i],
						  margin);
			else
				hit = overlap(&bp->box[i], &bp->box[j]) &&
				      !((fi & fj & F_SPHERE) &&
					balls_apart(&bp->ball[i], &bp->ball[j],
						    margin));
			if (hit && push_pair(bp, i, j))
				return -1;
		}
	}
	return 0;
}

static int cmp_pair_a(const void *x, const void *y)
{
	const uint32_t a = ((const struct px_pair *)x)->a,
		       b = ((const struct px_pair *)y)->a;

	return (a > b) - (a < b);
}

/* Sort the pairs by (b, a): a counting sort by b, then each b's pairs
 * (a few, but a body may have many) by a; no two pairs are the same. */
static int sort_pairs(struct px_broadphase *bp, size_t n)
{
	const size_t m = bp->n_pairs;
	struct px_pair *out, *t;
	size_t cap;

	if (grow(&bp->count, &bp->count_cap, n + 1, sizeof *bp->count) ||
	    grow(&bp->tmp, &bp->tmp_cap, m, sizeof *bp->tmp))
		return -1;
	out = bp->tmp;
	memset(bp->count, 0, (n + 1) * sizeof *bp->count);
	for (size_t k = 0; k < m; k++)
		bp->count[bp->pairs[k].b + 1]++;
	for (size_t i = 0; i < n; i++)
		bp->count[i + 1] += bp->count[i];
	for (size_t k = 0; k < m; k++)
		out[bp->count[bp->pairs[k].b]++] = bp->pairs[k];
	/* count[b] is now the end of b's pairs */
	for (size_t b = 0, lo = 0; b < n; lo = bp->count[b++]) {
		const size_t hi = bp->count[b];

		if (hi - lo > 16) {
			qsort(out + lo, hi - lo, sizeof *out, cmp_pair_a);
			continue;
		}
		for (size_t k = lo + 1; k < hi; k++) {
			const struct px_pair e = out[k];
			size_t q = k;

			for (; q > lo && out[q - 1].a > e.a; q--)
				out[q] = out[q - 1];
			out[q] = e;
		}
	}
	/* the sorted pairs become bp->pairs */
	t = bp->pairs;
	bp->pairs = bp->tmp;
	bp->tmp = t;
	cap = bp->pair_cap;
	bp->pair_cap = bp->tmp_cap;
	bp->tmp_cap = cap;
	return 0;
}

int px_broadphase_pairs(struct px_broadphase *bp,
			 const struct px_body *bodies, size_t n, double margin,
			 const struct px_pair **pairs, size_t *n_pairs)
{
	size_t n_large = 0, nb;
	double cell, inv;

	*pairs = NULL;
	*n_pairs = 0;
	bp->n_pairs = 0;
	if (n == 0)
		return 0;
	if (grow(&bp->box, &bp->box_cap, n, sizeof *bp->box) ||
	    grow(&bp->ball, &bp->ball_cap, n, sizeof *bp->ball) ||
	    grow(&bp->flag, &bp->flag_cap, n, sizeof *bp->flag) ||
	    grow(&bp->large, &bp->large_cap, n, sizeof *bp->large))
		return -1;
	for (size_t i = 0; i < n; i++) {
		body_aabb(&bodies[i], margin, &bp->box[i]);
		bp->flag[i] = (bodies[i].is_static ? F_STATIC : 0) |
			      (bodies[i].shape.kind == PX_PLANE ? F_PLANE : 0);
		if (bodies[i].shape.kind == PX_SPHERE) {
			bp->flag[i] |= F_SPHERE;
			memcpy(bp->ball[i].x, bodies[i].x, sizeof bp->ball[i].x);
			bp->ball[i].r = bodies[i].shape.radius;
		}
	}
	cell = cell_size(bp, n);
	if (cell == 0.0)
		return 0; /* no dynamic body: no pair */
	inv = 1.0 / cell;
	for (size_t i = 0; i < n; i++)
		if ((bp->flag[i] & F_PLANE) ||
		    !(extent(&bp->box[i]) <= LARGE_CELLS * cell)) {
			bp->flag[i] |= F_LARGE;
			bp->large[n_large++] = (uint32_t)i;
		}

	nb = fill_grid(bp, n, inv);
	if (!nb || grid_pairs(bp, nb, margin) ||
	    large_pairs(bp, bodies, n, n_large, margin) || sort_pairs(bp, n))
		return -1;
	*pairs = bp->pairs;
	*n_pairs = bp->n_pairs;
	return 0;
}
