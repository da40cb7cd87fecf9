/* bench/collide: the cost of collision on doc/scenes.md's ballgrid-N (N^3 unit
 * spheres touching in a cubic lattice on a ground box), margin 1e-3:
 *
 *   bench/collide [N [REPEATS]]      (defaults 40 and 5)
 *
 * One untimed call warms the buffers up, then REPEATS calls of the broad
 * phase alone and of px_collide_all are timed; the median of each is
 * printed with the counts of bodies, candidate pairs and contacts (the
 * lattice has 3N^2(N-1) + N^2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/collide.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void init(struct px_body *b, enum px_shape_kind kind, double x,
		 double y, double z)
{
	memset(b, 0, sizeof *b);
	b->shape.kind = kind;
	b->x[0] = x;
	b->x[1] = y;
	b->x[2] = z;
	b->q[0] = 1.0;
	b->mu = 0.5;
}

int main(int argc, char **argv)
{
	const int nn = argc > 1 ? atoi(argv[1]) : 40;
	const int reps = argc > 2 ? atoi(argv[2]) : 5;
	const size_t n = 1 + (size_t)nn * nn * nn;
	struct px_body *b = malloc(n * sizeof *b);
	struct px_broadphase *bp = px_broadphase_create();
	double *tb = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *tb);
	double *ta = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *ta);
	struct px_contact *c = NULL;
	const struct px_pair *pairs;
	size_t m = 0, n_c = 0, cap = 0, n_pairs = 0;

	if (nn < 1 || reps < 1 || !b || !bp || !tb || !ta) {
		fprintf(stderr, "usage: bench/collide [N [REPEATS]]\n");
		return 1;
	}
	init(&b[m], PX_BOX, nn - 1, nn - 1, -1);
	b[m].shape.half[0] = b[m].shape.half[1] = nn + 10;
	b[m].shape.half[2] = 1;
	b[m++].is_static = 1;
	for (int k = 0; k < nn; k++)
		for (int j = 0; j < nn; j++)
			for (int i = 0; i < nn; i++) {
				init(&b[m], PX_SPHERE, 2 * i, 2 * j,
				     1 + 2 * k);
				b[m].shape.radius = 1.0;
				b[m].mass = 1.0;
				b[m].inertia[0] = b[m].inertia[1] =
				    b[m].inertia[2] = 0.4;
				m++;
			}

	if (px_collide_all(bp, b, n, 1e-3, &c, &n_c, &cap))
		return 1;
	for (int r = 0; r < reps; r++) {
		double t0 = now();

		if (px_broadphase_pairs(bp, b, n, 1e-3, &pairs, &n_pairs))
			return 1;
		tb[r] = now() - t0;
		t0 = now();
		if (px_collide_all(bp, b, n, 1e-3, &c, &n_c, &cap))
			return 1;
		ta[r] = now() - t0;
	}
	qsort(tb, (size_t)reps, sizeof *tb, cmp_double);
	qsort(ta, (size_t)reps, sizeof *ta, cmp_double);
	printf("ballgrid-%d: %zu bodies, %zu pairs, %zu contacts "
	       "(lattice %zu)\n",
	       nn, n, n_pairs, n_c, (size_t)(3 * nn * nn * (nn - 1) + nn * nn));
	printf("median of %d: broad phase %.1f ms, collide_all %.1f ms "
	       "(%.0f ns per contact)\n",
	       reps, 1e3 * tb[reps / 2], 1e3 * ta[reps / 2],
	       1e9 * ta[reps / 2] / (double)(n_c ? n_c : 1));
	px_broadphase_destroy(bp);
	free(c);
	free(b);
	free(tb);
	free(ta);
	return 0;
}
