/* The global test's reduction (mpi/reduce.c) under mpirun, for
 * tests/test_mpi.c: every rank holds sums whose bits depend on the order
 * of the additions (magnitudes 2^-30 to 2^30, both signs); over REPEATS
 * rounds, each rank waits a different time before it reduces (0 to 4 ms,
 * varied by rank and round), so the messages arrive in different orders;
 * every round's result on every rank must equal, bit for bit, the fold
 * over the same tree computed on one process (px_dist_tree_fold), which
 * must differ from the plain left-to-right sum (else the values would not
 * show an order). Prints one line on rank 0; exit status 0 when all hold,
 * 1 when one does not. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist.h"

enum { N = 6, REPEATS = 20 };

static void fold_sum(double *acc, const double *next, int n)
{
	for (int i = 0; i < n; i++)
		acc[i] += next[i];
}

/* rank r's numbers, which any rank can compute */
static void values(int r, double v[N])
{
	for (int i = 0; i < N; i++)
		v[i] = ldexp((r % 2 ? -1 : 1) * (1 + 0.123456789 * r),
			     (r * 7 + i * 13) % 61 - 30);
}

int main(int argc, char **argv)
{
	int rank, size, bad = 0, differs = 0;
	double ref[N], plain[N], *all;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	all = malloc((size_t)size * N * sizeof *all);
	if (!all)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(plain, 0, sizeof plain);
	for (int r = 0; r < size; r++) {
		values(r, all + (size_t)r * N);
		fold_sum(plain, all + (size_t)r * N, N);
	}
	px_dist_tree_fold(all, size, N, fold_sum);
	memcpy(ref, all, sizeof ref);
	differs = memcmp(ref, plain, sizeof ref) != 0;
	for (int k = 0; k < REPEATS; k++) {
		double v[N];

		values(rank, v);
		usleep((useconds_t)((rank * 7919 + k * 104729) % 5) * 1000);
		px_dist_tree_allreduce(v, N, fold_sum);
		bad += memcmp(v, ref, sizeof v) != 0;
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d ranks, %d rounds: %d results differ from the tree's fold; "
		       "the fold %s the left-to-right sum\n",
		       size, REPEATS, bad, differs ? "differs from" : "equals");
	free(all);
	MPI_Finalize();
	return bad || (size > 3 && !differs);
}
