/* Writer of Siconos FrictionContactProblem text files (.dat), the format of
 * doc/design.md, section 8, in sparse block storage: the
 * stored 3 x 3 blocks of an assembled A, each column by column, then q and
 * mu. Every real is printed with %.17g, which strtod (px_dat_read) turns
 * back into the same double, so a problem survives a write and a read bit
 * for bit. The file is written under a temporary name and renamed into
 * place (core/outfile.h). */
#include <stdio.h>

#include <proxima/io.h>

#include "outfile.h"

/* The sparse-block W: sizes, cumulative block sizes, pointers, columns,
 * then each block as its sequence number and 9 column-major values. */
static void put_w(FILE *f, size_t nc, const size_t *rowptr,
		  const uint32_t *cols, const double *blocks)
{
	const size_t nb = rowptr[nc];

	fprintf(f, "1\n%zu %zu\n%zu\n%zu %zu\n", 3 * nc, 3 * nc, nb, nc, nc);
	for (int dim = 0; dim < 2; dim++) /* row sizes, then column sizes */
		for (size_t i = 0; i < nc; i++)
			fprintf(f, "%zu%c", 3 * (i + 1), i + 1 < nc ? ' ' : '\n');
	fprintf(f, "%zu\n%zu\n", nc + 1, nb);
	for (size_t i = 0; i <= nc; i++)
		fprintf(f, "%zu%c", rowptr[i], i < nc ? ' ' : '\n');
	for (size_t b = 0; b < nb; b++)
		fprintf(f, "%u%c", cols[b], b + 1 < nb ? ' ' : '\n');
	for (size_t b = 0; b < nb; b++) {
		const double *blk = blocks + 9 * b;

		fprintf(f, "%zu", b);
		for (int k = 0; k < 9; k++) /* value k at (k mod 3, k div 3) */
			fprintf(f, " %.17g", blk[3 * (k % 3) + k / 3]);
		fputc('\n', f);
	}
}

int px_dat_write(const char *path, const struct px_problem *p,
		 struct px_error *err)
{
	const size_t nc = px_problem_n_contacts(p);
	const double *q = px_problem_b_const(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	struct px_outfile o;
	FILE *f;
	int rc;

	if (px_problem_block_size(p) != 3 ||
	    px_problem_assembled(p, &rowptr, &cols, &blocks))
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: a .dat file holds an assembled A of 3-row contacts only",
				    path);
	if ((rc = px_outfile_open(&o, path, err)))
		return rc;
	f = o.f;
	fprintf(f, "3\n%zu\n", nc);
	put_w(f, nc, rowptr, cols, blocks);
	for (size_t i = 0; i < 3 * nc; i++)
		fprintf(f, "%.17g%c", q[i], i + 1 < 3 * nc ? ' ' : '\n');
	for (size_t k = 0; k < nc; k++)
		fprintf(f, "%.17g%c", fr[k].mu, k + 1 < nc ? ' ' : '\n');
	return px_outfile_commit(&o, err);
}
