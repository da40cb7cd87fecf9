/* The block-sparse A of the semismooth Newton accelerator (ssn_matrix.c). */
#ifndef PX_SSN_MATRIX_H
#define PX_SSN_MATRIX_H

#include <proxima/plugin.h>

/* Block CSR of A over contacts, 3x3 row-major blocks, sorted columns, the
 * diagonal block always present (diag[k]: its index in row k). */
struct ssn_matrix {
	size_t n;
	size_t *ptr;
	uint32_t *col;
	double *blk;
	size_t *diag;
	uint32_t colors;   /* of the probing (0: copied from the host) */
	uint64_t products; /* products with A the probing took */
};

/* A of a 3-row problem from the host: its blocks when assembled, else
 * probed through its product on the pattern of shared bodies. 0, or -1
 * (out of memory, or neither the blocks nor the bodies given). */
int ssn_matrix_build(struct ssn_matrix *a, const struct px_accel_host *h);
void ssn_matrix_free(struct ssn_matrix *a);

/* The scalar CSR pattern of a Jacobian with a's block pattern (jp: 3 n +
 * 1 row starts, ji: 9 a->ptr[n] columns): scalar row 3i + r holds, for
 * every block (i, j), the columns 3j .. 3j + 2, in order. */
void ssn_matrix_pattern(const struct ssn_matrix *a, int *jp, int *ji);

#endif
