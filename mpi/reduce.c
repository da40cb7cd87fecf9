/* The global test's reduction (issue 36, item 4): a binomial tree over the
 * ranks in rank order, then a broadcast from rank 0. At step s = 1, 2,
 * 4, ... rank r (a multiple of 2s) folds into its partial that of rank
 * r + s, received from that rank by name, so the association of every sum
 * is fixed by the rank count alone: which message arrives first changes
 * nothing, and a run is bit-identical to the next with the same number of
 * ranks. px_dist_tree_fold computes the same association on one process
 * (tests/mpi_reduce.c holds the two to each other bit for bit). Cost:
 * ceil(log2 P) messages of n doubles up the tree and MPI_Bcast's down,
 * against MPI_Allgather's P n doubles into every rank. */
#include <assert.h>
#include <mpi.h>

#include "dist.h"

enum { TAG_REDUCE = 13 };

void px_dist_tree_fold(double *all, int size, int n, px_dist_fold_fn fold)
{
	for (int s = 1; s < size; s *= 2)
		for (int r = 0; r + s < size; r += 2 * s)
			fold(all + (size_t)r * n, all + (size_t)(r + s) * n, n);
}

/* MPI's errors abort the run (MPI_ERRORS_ARE_FATAL, as in exchange.c). */
void px_dist_tree_allreduce(double *v, int n, px_dist_fold_fn fold)
{
	double next[PX_DIST_REDUCE_MAX];
	int rank, size;

	assert(n <= PX_DIST_REDUCE_MAX);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int s = 1; s < size; s *= 2) {
		if (rank & s) {
			MPI_Send(v, n, MPI_DOUBLE, rank - s, TAG_REDUCE,
				 MPI_COMM_WORLD);
			break;
		}
		if (rank + s < size) {
			MPI_Recv(next, n, MPI_DOUBLE, rank + s, TAG_REDUCE,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			fold(v, next, n);
		}
	}
	MPI_Bcast(v, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
