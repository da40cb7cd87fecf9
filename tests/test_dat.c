/* Tests of the Siconos .dat reader (io/dat_read.c, ../shared/problems/README.md
 * section 1): the README example in both storages, the real files read in
 * place, and every malformation refused with its exact message. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <proxima/io.h>
#include <proxima/problem.h>

#include "example_problem.h"
#include "helpers.h"

#ifndef PX_SHARED_PROBLEMS
#define PX_SHARED_PROBLEMS "../shared/problems"
#endif

/* ---- a scratch directory per test ------------------------------------ */

/* Made on first use: a skipped test never runs the suite's .fini. */
#define MAX_FILES 8 /* distinct names per test */

static char dir[64];
static char written[MAX_FILES][128];
static int n_files;

static const char *scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (dir[0])
		return dir;
	snprintf(dir, sizeof dir, "%s/px_dat_XXXXXX",
		 tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp(%s) failed", dir);
	return dir;
}

static void teardown(void)
{
	for (int i = 0; i < n_files; i++)
		unlink(written[i]);
	if (dir[0])
		rmdir(dir);
	dir[0] = '\0';
	n_files = 0;
}

TestSuite(dat, .fini = teardown);

/* Write len bytes to dir/name; returns the path. */
static const char *put_bytes(const char *name, const char *data, size_t len)
{
	char want[sizeof written[0]], *path;
	FILE *f;
	int i;

	snprintf(want, sizeof want, "%s/%s", scratch_dir(), name);
	for (i = 0; i < n_files && strcmp(written[i], want); i++)
		;
	if (i == n_files) {
		cr_assert_lt(n_files, MAX_FILES);
		n_files++;
	}
	path = strcpy(written[i], want);
	f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static const char *put(const char *name, const char *text)
{
	return put_bytes(name, text, strlen(text));
}

static struct px_problem *read_ok(const char *path)
{
	struct px_problem *p = NULL;
	struct px_error err = { 0, "" };
	int rc = px_dat_read(path, &p, &err);

	cr_assert_eq(rc, PX_OK, "%s: rc %d: %s", path, rc, err.msg);
	cr_assert_not_null(p);
	return p;
}

/* The reader refuses path with status code and message "<path>: what". */
static void expect_path_error(const char *path, int code, const char *what)
{
	struct px_problem *p = (struct px_problem *)&p; /* must become NULL */
	struct px_error err = { 0, "" };
	char want[PX_ERROR_MSG_MAX];
	int rc;

	snprintf(want, sizeof want, "%s: %s", path, what);
	rc = px_dat_read(path, &p, &err);
	cr_assert_eq(rc, code, "rc %d, expected %d (%s)", rc, code, err.msg);
	cr_assert_eq(err.code, code);
	cr_assert_null(p);
	cr_assert_str_eq(err.msg, want);
}

static void expect_error(const char *text, int code, const char *what)
{
	expect_path_error(put("bad.dat", text), code, what);
}

/* A as dense row-major, malloc'ed. */
static double *dense_of(const struct px_problem *p)
{
	size_t m = px_problem_n_contacts(p) * 3;
	double *a = malloc(m * m * sizeof *a);

	cr_assert_not_null(a);
	cr_assert_eq(px_problem_to_dense(p, a), PX_OK);
	return a;
}

/* ---- the README example (sec. 1), 2 contacts --------------------------- */

static void check_example(struct px_problem *p)
{
	const struct px_friction_params *f = px_problem_friction_const(p);
	const double *b = px_problem_b_const(p);
	double *a;

	cr_assert_eq(px_problem_n_contacts(p), 2);
	cr_assert_eq(px_problem_block_size(p), 3);
	cr_assert_eq(px_problem_form(p), PX_FORM_ASSEMBLED);
	a = dense_of(p);
	for (int r = 0; r < 6; r++)
		for (int c = 0; c < 6; c++)
			cr_assert_eq(a[6 * r + c], ex_a[r][c],
				     "A[%d][%d] = %g, expected %g", r, c,
				     a[6 * r + c], ex_a[r][c]);
	free(a);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(b[i], ex_q[i], "q[%d] = %g", i, b[i]);
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(f[k].mu, ex_mu[k]);
		cr_assert_eq(f[k].mu_s, ex_mu[k]);
		cr_assert_eq(f[k].mu_t, ex_mu[k]);
		cr_assert_eq(f[k].mu_tau, 0.0);
	}
}

Test(dat, readme_example_sparse_block)
{
	struct px_problem *p = read_ok(put("ex_sbm.dat", EX_SBM));

	check_example(p);
	px_problem_destroy(p);
}

Test(dat, readme_example_dense)
{
	struct px_problem *p = read_ok(put("ex_dense.dat", EX_DENSE));

	check_example(p);
	px_problem_destroy(p);
}

/* px_dat_write then px_dat_read: the same problem bit for bit, with reals
 * that need all 17 digits, subnormals, the largest double and -0. */
Test(dat, write_read_round_trip_bit_for_bit)
{
	const size_t rowptr[3] = { 0, 2, 3 };
	const uint32_t cols[3] = { 1, 0, 1 };
	double blocks[27];
	struct px_problem *p, *back;
	struct px_error err = { 0, "" };
	const char *path = put("written.dat", "");
	double *b;

	for (int k = 0; k < 27; k++)
		blocks[k] = (k + 1) / 7.0 * (k % 2 ? -1 : 1);
	blocks[4] = -0.0;
	blocks[5] = 4.9406564584124654e-324;
	blocks[13] = 1.7976931348623157e308;
	cr_assert_eq(px_problem_create(2, 3, &p, &err), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, blocks, &err),
		     PX_OK, "%s", err.msg);
	b = px_problem_b(p);
	for (int i = 0; i < 6; i++)
		b[i] = 0.1 * (i - 3) + 1.0 / 3;
	b[2] = -0.0;
	b[5] = -2.2250738585072014e-308;
	px_problem_friction(p)[0].mu = 2.0 / 3;
	px_problem_friction(p)[1].mu = 0.7;
	cr_assert_eq(px_dat_write(path, p, &err), PX_OK, "%s", err.msg);
	back = read_ok(path);
	assert_same_problem(p, back);
	cr_assert_eq(px_problem_friction_const(back)[1].mu_s, 0.7);
	px_problem_destroy(back);
	px_problem_destroy(p);
}

Test(dat, write_errors)
{
	struct px_problem *p = read_ok(put("ex_sbm.dat", EX_SBM));
	struct px_error err = { 0, "" };

	cr_assert_eq(px_dat_write("/nonexistent/x.dat", p, &err), PX_ERR_IO);
	cr_assert_str_eq(err.msg, "/nonexistent/x.dat: cannot write: No such file or directory");
	px_problem_destroy(p);
}

Test(dat, dense_and_sparse_block_give_the_same_a)
{
	struct px_problem *s = read_ok(put("ex_sbm.dat", EX_SBM));
	struct px_problem *d = read_ok(put("ex_dense.dat", EX_DENSE));
	double *as = dense_of(s), *ad = dense_of(d);

	cr_assert_eq(memcmp(as, ad, 36 * sizeof *as), 0);
	cr_assert_eq(memcmp(px_problem_b_const(s), px_problem_b_const(d),
			    6 * sizeof(double)),
		     0);
	free(as);
	free(ad);
	px_problem_destroy(s);
	px_problem_destroy(d);
}

Test(dat, diagonal_blocks_read_row_major)
{
	struct px_problem *p = read_ok(put("ex_sbm.dat", EX_SBM));
	const double b00[9] = { 10, 1, 2, 3, 11, 4, 5, 6, 12 };
	const double b11[9] = { 20, 7, 8, 9, 21, 1, 2, 3, 22 };
	double got[9];

	px_problem_diag_block(p, 0, got);
	cr_assert_eq(memcmp(got, b00, sizeof got), 0);
	px_problem_diag_block(p, 1, got);
	cr_assert_eq(memcmp(got, b11, sizeof got), 0);
	px_problem_destroy(p);
}

/* 1 2 3 / 4 5 6 / 7 8 9 in the file are the columns of W; a reader that
 * took them as rows would give the transpose. */
Test(dat, dense_is_column_major)
{
	struct px_problem *p = read_ok(put("t.dat", "3 1 0 3 3 3 3\n"
						    "1 2 3\n4 5 6\n7 8 9\n"
						    "0 0 0\n0\n"));
	const double want[9] = { 1, 4, 7, 2, 5, 8, 3, 6, 9 };
	const double x[3] = { 1, 0, 0 };
	double *a = dense_of(p), y[3];

	cr_assert_eq(memcmp(a, want, sizeof want), 0);
	px_problem_apply(p, x, y, 0); /* the first column */
	cr_assert_eq(y[0], 1.0);
	cr_assert_eq(y[1], 2.0);
	cr_assert_eq(y[2], 3.0);
	free(a);
	px_problem_destroy(p);
}

Test(dat, sparse_blocks_are_column_major)
{
	struct px_problem *p = read_ok(put("t.dat", "3 1 1 3 3 1 1 1 3 3 2 1 "
						    "0 1 0 0 1 2 3 4 5 6 7 8 9 "
						    "0 0 0 0"));
	const double want[9] = { 1, 4, 7, 2, 5, 8, 3, 6, 9 };
	double *a = dense_of(p);

	cr_assert_eq(memcmp(a, want, sizeof want), 0);
	free(a);
	px_problem_destroy(p);
}

/* filled1 < bn0 + 1: block row 1 lists nothing and is zero. */
Test(dat, block_rows_past_filled1_are_empty)
{
	struct px_problem *p =
		read_ok(put("t.dat", EX_HEAD "2\n2 2\n3 6\n3 6\n2\n2\n0 2\n"
					 "0 1\n" EX_B0 EX_B1 EX_Q EX_MU));
	double *a = dense_of(p);

	for (int r = 0; r < 6; r++)
		for (int c = 0; c < 6; c++)
			cr_assert_eq(a[6 * r + c], r < 3 ? ex_a[r][c] : 0.0,
				     "A[%d][%d] = %g", r, c, a[6 * r + c]);
	free(a);
	px_problem_destroy(p);
}

Test(dat, separators_are_any_whitespace)
{
	struct px_problem *p = read_ok(put(
		"ws.dat", "\n\n 3\r\n2\f1\v6\t6 \n4 2 2 3 6 3 6 3 4 0 2 4 0 1 0 1"
			  " " EX_BLOCKS EX_Q EX_MU "\n\n\t\n"));

	check_example(p);
	px_problem_destroy(p);
}

Test(dat, legacy_trailer_is_accepted)
{
	struct px_problem *p = read_ok(put("t0.dat", EX_SBM "0\n"));

	check_example(p);
	px_problem_destroy(p);
	p = read_ok(put("t1.dat", EX_DENSE "1\n"));
	check_example(p);
	px_problem_destroy(p);
}

/* ---- malformations ----------------------------------------------------- */

Test(dat, missing_file)
{
	char path[160];

	snprintf(path, sizeof path, "%s/no-such-file.dat", scratch_dir());
	expect_path_error(path, PX_ERR_IO,
			  "cannot open: No such file or directory");
}

Test(dat, directory_is_not_a_file)
{
	expect_path_error(scratch_dir(), PX_ERR_IO,
			  "cannot read: Is a directory");
}

Test(dat, empty_file)
{
	expect_error("", PX_ERR_FORMAT,
		     "empty file: expected a .dat contact problem (its first number is the dimension d, 3)");
	expect_error(" \n\t\n", PX_ERR_FORMAT,
		     "empty file: expected a .dat contact problem (its first number is the dimension d, 3)");
}

Test(dat, nul_byte)
{
	expect_path_error(put_bytes("nul.dat", "3 \0002", 4), PX_ERR_FORMAT,
			  "NUL byte at offset 2, expected a text file");
}

Test(dat, truncated_in_header)
{
	expect_error("3\n2\n1\n6\n", PX_ERR_FORMAT,
		     "truncated: expected W size1, found end of file");
	expect_error("3", PX_ERR_FORMAT,
		     "truncated: expected nc, found end of file");
	expect_error(EX_HEAD "4\n2 2\n3", PX_ERR_FORMAT,
		     "truncated: expected cumulative row size 2 of 2, found end of file");
}

Test(dat, truncated_in_dense_w)
{
	expect_error(EX_DENSE_HEAD "10 3 5 0.5 0 0\n1 11 6 0 0 0\n"
				   "2 4 12 0 0 0\n0.5 0",
		     PX_ERR_FORMAT,
		     "truncated: expected W value 21 of 36, found end of file");
	expect_error(EX_DENSE_HEAD, PX_ERR_FORMAT,
		     "truncated: expected W value 1 of 36, found end of file");
}

Test(dat, truncated_in_sparse_w)
{
	expect_error(EX_HEAD EX_SBM_HEAD "0 2", PX_ERR_FORMAT,
		     "truncated: expected rowptr[2], found end of file");
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR "0 1", PX_ERR_FORMAT,
		     "truncated: expected bcol[2], found end of file");
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR EX_BCOL EX_B0 EX_B1
		     "2  0.5 0 0",
		     PX_ERR_FORMAT,
		     "truncated: expected block 2 value 4 of 9, found end of file");
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR EX_BCOL EX_B0 EX_B1 EX_B2,
		     PX_ERR_FORMAT,
		     "truncated: expected block 3 sequence number, found end of file");
}

Test(dat, truncated_in_q_and_mu)
{
	expect_error(EX_HEAD EX_SBM_W "-1 0.5 0.2", PX_ERR_FORMAT,
		     "truncated: expected q[3], found end of file");
	expect_error(EX_HEAD EX_SBM_W EX_Q, PX_ERR_FORMAT,
		     "truncated: expected mu[0], found end of file");
	expect_error(EX_DENSE_HEAD EX_DENSE_W EX_Q "0.5", PX_ERR_FORMAT,
		     "truncated: expected mu[1], found end of file");
}

/* A tiny file claiming a huge problem is refused without allocating it. */
Test(dat, huge_counts_in_a_tiny_file)
{
	expect_error("3 700000000 0 2100000000 2100000000 2100000000 "
		     "2100000000 1.5",
		     PX_ERR_FORMAT,
		     "truncated: expected W value 2 of 4410000000000000000, found end of file");
	expect_error("3 700000000 1 2100000000 2100000000 5 700000000 "
		     "700000000 3 6",
		     PX_ERR_FORMAT,
		     "truncated: expected cumulative row size 3 of 700000000, found end of file");
	expect_error("3 1 1 3 3 2000000000 1 1 3 3 2 2000000000 0 2000000000 0",
		     PX_ERR_FORMAT,
		     "truncated: expected bcol[1], found end of file");
	expect_error("3 1000000000 0", PX_ERR_FORMAT,
		     "truncated: expected W size0, found end of file");
	expect_error("3 1000000000 0 3000000000", PX_ERR_FORMAT,
		     "line 1, token 4 '3000000000' is out of range (W size0)");
}

Test(dat, not_a_number)
{
	expect_error(EX_HEAD EX_SBM_W "-1 0.5 abc -2 0 0.1\n" EX_MU,
		     PX_ERR_FORMAT,
		     "line 17, token 64 'abc' is not a number (q[2])");
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR EX_BCOL EX_B0
		     "1  0.5 0 0 0.25 0 0 0 0 0x\n" EX_B2 EX_B3 EX_Q EX_MU,
		     PX_ERR_FORMAT,
		     "line 14, token 41 '0x' is not a number (block 1 value 9 of 9)");
	expect_error(EX_DENSE_HEAD "10 3 5 0.5 0 0\n1 11 6 0 0,0 0\n",
		     PX_ERR_FORMAT,
		     "line 8, token 18 '0,0' is not a number (W value 11 of 36)");
	expect_error("3\n2\n1.0\n", PX_ERR_FORMAT,
		     "line 3, token 3 '1.0' is not an integer (W storage)");
	expect_error("3\n2x\n", PX_ERR_FORMAT,
		     "line 2, token 2 '2x' is not an integer (nc)");
	expect_error("3\n99999999999\n", PX_ERR_FORMAT,
		     "line 2, token 2 '99999999999' is out of range (nc)");
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR EX_BCOL "zero", PX_ERR_FORMAT,
		     "line 13, token 22 'zero' is not an integer (block 0 sequence number)");
}

Test(dat, long_bad_token_is_shortened)
{
	expect_error(EX_HEAD EX_SBM_W
		     "q123456789012345678901234567890123456789012345678\n",
		     PX_ERR_FORMAT,
		     "line 17, token 62 'q123456789012345678901234567890123456789...' is not a number (q[0])");
}

Test(dat, unprintable_bytes_are_escaped)
{
	expect_error("3\n\0332\n", PX_ERR_FORMAT,
		     "line 2, token 2 '\\x1b2' is not an integer (nc)");
	expect_error("3 2 1 6 6 4 2 2 3 6 3 6 3 4 0 2 4 0 1 0 1 0 1\303\251",
		     PX_ERR_FORMAT,
		     "line 1, token 23 '1\\xc3\\xa9' is not a number (block 0 value 1 of 9)");
}

Test(dat, nan_and_inf_refused)
{
	expect_error(EX_HEAD EX_SBM_W EX_Q "nan 0.3\n", PX_ERR_FORMAT,
		     "line 18, token 68 'nan' is not finite (mu[0])");
	expect_error(EX_HEAD EX_SBM_W "-1 0.5 0.2 -2 0 -inf\n" EX_MU,
		     PX_ERR_FORMAT,
		     "line 17, token 67 '-inf' is not finite (q[5])");
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR EX_BCOL EX_B0
		     "1  0.5 INF 0 0.25 0 0 0 0 0\n" EX_B2 EX_B3 EX_Q EX_MU,
		     PX_ERR_FORMAT,
		     "line 14, token 34 'INF' is not finite (block 1 value 2 of 9)");
	expect_error(EX_DENSE_HEAD "NaN", PX_ERR_FORMAT,
		     "line 7, token 8 'NaN' is not finite (W value 1 of 36)");
	expect_error(EX_HEAD EX_SBM_W "1e999 0.5 0.2 -2 0 0.1\n" EX_MU,
		     PX_ERR_FORMAT,
		     "line 17, token 62 '1e999' is out of range (q[0])");
}

Test(dat, negative_mu)
{
	expect_error(EX_HEAD EX_SBM_W EX_Q "0.5 -0.5\n", PX_ERR_FORMAT,
		     "mu[1] = -0.5 is negative");
}

Test(dat, unsupported_dimension)
{
	expect_error("2 2 1 4 4", PX_ERR_FORMAT,
		     "only 3D (d = 3) problems are supported, found d = 2");
	expect_error("-3", PX_ERR_FORMAT,
		     "only 3D (d = 3) problems are supported, found d = -3");
}

Test(dat, no_contacts)
{
	expect_error("3 0 1 0 0", PX_ERR_FORMAT,
		     "nc = 0, expected at least 1 contact");
}

Test(dat, unsupported_storage)
{
	expect_error("3 2 2 6 6", PX_ERR_FORMAT,
		     "W storage 2 is not supported, expected 0 (dense) or 1 (sparse block)");
	expect_error("3 2 -1 6 6", PX_ERR_FORMAT,
		     "W storage -1 is not supported, expected 0 (dense) or 1 (sparse block)");
}

Test(dat, w_must_be_square_3nc)
{
	expect_error("3 2 1 6 9", PX_ERR_FORMAT,
		     "W is 6 x 9, expected a square 6 x 6 matrix (3 * nc = 6)");
	expect_error("3 2 0 9 9", PX_ERR_FORMAT,
		     "W is 9 x 9, expected a square 6 x 6 matrix (3 * nc = 6)");
	expect_error("3 2 0 6 6 6 5", PX_ERR_FORMAT,
		     "dense W: size repeated as 6 x 5, expected 6 x 6");
}

Test(dat, sparse_header_counts)
{
	expect_error(EX_HEAD "0\n2 2\n", PX_ERR_FORMAT,
		     "sparse W: nbblocks = 0, expected at least 1");
	expect_error(EX_HEAD "4\n3 2\n", PX_ERR_FORMAT,
		     "sparse W: 3 x 2 blocks, expected 2 x 2 (nc)");
	expect_error(EX_HEAD "4\n2 2\n3 7\n", PX_ERR_FORMAT,
		     "sparse W: cumulative row size 2 of 2 is 7, expected 6 (3 x 3 blocks)");
	expect_error(EX_HEAD "4\n2 2\n3 6\n2 6\n", PX_ERR_FORMAT,
		     "sparse W: cumulative column size 1 of 2 is 2, expected 3 (3 x 3 blocks)");
	expect_error(EX_HEAD "4\n2 2\n3 6\n3 6\n4\n4\n", PX_ERR_FORMAT,
		     "sparse W: filled1 = 4, expected 1 .. 3 (bn0 + 1)");
	expect_error(EX_HEAD "4\n2 2\n3 6\n3 6\n0\n4\n", PX_ERR_FORMAT,
		     "sparse W: filled1 = 0, expected 1 .. 3 (bn0 + 1)");
	expect_error(EX_HEAD "4\n2 2\n3 6\n3 6\n3\n3\n", PX_ERR_FORMAT,
		     "sparse W: filled2 = 3, expected nbblocks = 4");
}

Test(dat, bad_rowptr)
{
	expect_error(EX_HEAD EX_SBM_HEAD "1 2 4\n", PX_ERR_FORMAT,
		     "sparse W: rowptr[0] = 1, expected 0");
	expect_error(EX_HEAD EX_SBM_HEAD "0 3 2\n", PX_ERR_FORMAT,
		     "sparse W: rowptr[2] = 2 is less than rowptr[1] = 3");
	expect_error(EX_HEAD EX_SBM_HEAD "0 2 3\n", PX_ERR_FORMAT,
		     "sparse W: rowptr[2] = 3, expected nbblocks = 4 (last entry)");
	expect_error(EX_HEAD EX_SBM_HEAD "0 5 4\n", PX_ERR_FORMAT,
		     "sparse W: rowptr[2] = 4 is less than rowptr[1] = 5");
}

Test(dat, block_column_out_of_range)
{
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR "0 1 0 2\n" EX_BLOCKS EX_Q
			     EX_MU,
		     PX_ERR_FORMAT,
		     "sparse W: bcol[3]: block column 2 out of range, expected 0 .. 1");
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR "0 -1 0 1\n" EX_BLOCKS EX_Q
			     EX_MU,
		     PX_ERR_FORMAT,
		     "sparse W: bcol[1]: block column -1 out of range, expected 0 .. 1");
}

Test(dat, block_given_twice)
{
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR "0 1 1 1\n" EX_BLOCKS EX_Q
			     EX_MU,
		     PX_ERR_FORMAT,
		     "sparse W: block row 1 has block column 1 twice (blocks 2 and 3)");
}

Test(dat, sequence_number_mismatch)
{
	expect_error(EX_HEAD EX_SBM_HEAD EX_ROWPTR EX_BCOL EX_B0 EX_B1
		     "3  0.5 0 0 0 0 0 0 0 0\n" EX_B3 EX_Q EX_MU,
		     PX_ERR_FORMAT,
		     "sparse W: block 2: sequence number is 3, expected 2");
}

Test(dat, trailing_garbage)
{
	expect_error(EX_SBM "2\n", PX_ERR_FORMAT,
		     "unexpected data after mu: line 19, token 70 '2' (only one legacy trailer 0 or 1 may follow)");
	expect_error(EX_SBM "0 0\n", PX_ERR_FORMAT,
		     "unexpected data after mu: line 19, token 71 '0' (only one legacy trailer 0 or 1 may follow)");
	expect_error(EX_SBM "0.7\n", PX_ERR_FORMAT,
		     "unexpected data after mu: line 19, token 70 '0.7' (only one legacy trailer 0 or 1 may follow)");
	expect_error(EX_DENSE "\n\n1 x", PX_ERR_FORMAT,
		     "unexpected data after mu: line 17, token 53 'x' (only one legacy trailer 0 or 1 may follow)");
}

/* Every error leaves err alone when it is NULL and still refuses. */
Test(dat, null_error_record)
{
	struct px_problem *p = (struct px_problem *)&p;

	cr_assert_eq(px_dat_read(put("t.dat", "3 2 2"), &p, NULL),
		     PX_ERR_FORMAT);
	cr_assert_null(p);
}

/* ---- the real files of ../shared/problems, read in place --------------- */

static const char *shared_path(const char *name)
{
	static char path[PATH_MAX];

	if (access(PX_SHARED_PROBLEMS, R_OK) != 0)
		cr_skip_test("%s is not readable: real-file tests skipped",
			     PX_SHARED_PROBLEMS);
	snprintf(path, sizeof path, "%s/%s", PX_SHARED_PROBLEMS, name);
	return path;
}

Test(dat, fc3d_example1_dense_and_sbm_agree)
{
	struct px_problem *d = read_ok(shared_path("FC3D_Example1.dat"));
	struct px_problem *s = read_ok(shared_path("FC3D_Example1_SBM.dat"));
	double *ad, *as;

	cr_assert_eq(px_problem_n_contacts(d), 3);
	cr_assert_eq(px_problem_n_contacts(s), 3);
	ad = dense_of(d);
	as = dense_of(s);
	for (int r = 0; r < 9; r++)
		for (int c = 0; c < 9; c++) {
			cr_assert_eq(ad[9 * r + c], r == c ? 1.0 : 0.0);
			cr_assert_eq(as[9 * r + c], ad[9 * r + c]);
		}
	for (int i = 0; i < 9; i++)
		cr_assert_eq(px_problem_b_const(s)[i], px_problem_b_const(d)[i]);
	cr_assert_eq(px_problem_b_const(d)[0], -1.0);
	for (int k = 0; k < 3; k++) {
		cr_assert_eq(px_problem_friction_const(d)[k].mu, 0.1);
		cr_assert_eq(px_problem_friction_const(s)[k].mu, 0.1);
	}
	free(ad);
	free(as);
	px_problem_destroy(d);
	px_problem_destroy(s);
}

Test(dat, frictioncontact3d_1c)
{
	struct px_problem *p = read_ok(shared_path("FrictionContact3D_1c.dat"));
	const double want[9] = { 15, -1, -2, -1, 14, 1, -2, 1, 16 };
	const double q[3] = { -1, 2, 3 };
	double *a;

	cr_assert_eq(px_problem_n_contacts(p), 1);
	a = dense_of(p);
	cr_assert_eq(memcmp(a, want, sizeof want), 0);
	cr_assert_eq(memcmp(px_problem_b_const(p), q, sizeof q), 0);
	cr_assert_eq(px_problem_friction_const(p)[0].mu, 0.1);
	free(a);
	px_problem_destroy(p);
}

/* Rover's W is non-symmetric: the file's first line is column 0 of W. */
Test(dat, rover_dense_is_column_major)
{
	struct px_problem *p = read_ok(shared_path("Rover1040.dat"));
	double *a = dense_of(p);

	cr_assert_eq(px_problem_n_contacts(p), 5);
	cr_assert_eq(a[0], 1.399219579558866680124574e-02);
	cr_assert_eq(a[15 * 1 + 0], 1.201966872051056208284270e-03);
	cr_assert_eq(a[15 * 0 + 1], 1.201457722505773484389380e-03);
	free(a);
	px_problem_destroy(p);
}

/* OneObject's block 0 is the diagonal block of contact 0, column-major. */
Test(dat, oneobject_blocks_are_column_major)
{
	struct px_problem *p =
		read_ok(shared_path("OneObject-i1028-138.hdf5.dat"));
	double blk[9];

	px_problem_diag_block(p, 0, blk);
	cr_assert_eq(blk[0], 3.199203009793330831911362e+00);
	cr_assert_eq(blk[3], 3.821026902740798369961794e-02); /* (1, 0) */
	cr_assert_eq(blk[1], 3.846315800342403612432918e-02); /* (0, 1) */
	cr_assert_eq(blk[8], 2.776650347313863953502278e+00);
	px_problem_destroy(p);
}

/* Contacts and mu of every file as README.md lists them. */
Test(dat, every_shared_file_reads)
{
	static const struct {
		const char *name;
		size_t nc;
		double mu;
	} files[] = {
		{ "BoxesStack1-i100000-32.hdf5.dat", 52, 0.7 },
		{ "Capsules-i122-1617.dat", 296, 0.7 },
		{ "Confeti-ex13-4contact-Fc3D-SBM.dat", 4, 0.04 },
		{ "FC3D_Example1.dat", 3, 0.1 },
		{ "FC3D_Example1_SBM.dat", 3, 0.1 },
		{ "FrictionContact3D_1c.dat", 1, 0.1 },
		{ "GFC3D_TwoRods1-condensed.dat", 3, 0.1 },
		{ "KaplasTower-i1061-4.hdf5.dat", 570, 0.3 },
		{ "NESpheres_10_1.dat", 9, 0.8 },
		{ "OneObject-i1028-138.hdf5.dat", 23, 0.3 },
		{ "Rover1040.dat", 5, 0.7 },
		{ "Rover4516.dat", 4, 0.7 },
	};

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct px_problem *p = read_ok(shared_path(files[i].name));
		const struct px_friction_params *f =
			px_problem_friction_const(p);
		size_t nc = px_problem_n_contacts(p);

		cr_assert_eq(nc, files[i].nc, "%s: %zu contacts",
			     files[i].name, nc);
		for (size_t k = 0; k < nc; k++) {
			double blk[9];

			cr_assert_eq(f[k].mu, files[i].mu, "%s: mu[%zu] = %g",
				     files[i].name, k, f[k].mu);
			px_problem_diag_block(p, k, blk);
			cr_assert_gt(blk[0], 0.0, "%s: W_NN of contact %zu",
				     files[i].name, k);
		}
		px_problem_destroy(p);
	}
}
