/* The example problem of ../shared/problems/README.md sec. 1 (2 contacts,
 * non-symmetric W) as .dat text in both storages and as arrays, shared by
 * the reader tests of both file formats. */
#ifndef PX_TEST_EXAMPLE_PROBLEM_H
#define PX_TEST_EXAMPLE_PROBLEM_H

/* Sparse block storage, one README line per text line (test_dat's messages
 * count lines on this layout: block b is on line 13 + b, q on 17, mu on
 * 18). */
#define EX_HEAD "3\n2\n1\n6 6\n"
#define EX_SBM_HEAD "4\n2 2\n3 6\n3 6\n3\n4\n"
#define EX_ROWPTR "0 2 4\n"
#define EX_BCOL "0 1 0 1\n"
#define EX_B0 "0  10 3 5 1 11 6 2 4 12\n"
#define EX_B1 "1  0.5 0 0 0.25 0 0 0 0 0\n"
#define EX_B2 "2  0.5 0 0 0 0 0 0 0 0\n"
#define EX_B3 "3  20 9 2 7 21 3 8 1 22\n"
#define EX_BLOCKS EX_B0 EX_B1 EX_B2 EX_B3
#define EX_Q "-1 0.5 0.2 -2 0 0.1\n"
#define EX_MU "0.5 0.3\n"
#define EX_SBM_W EX_SBM_HEAD EX_ROWPTR EX_BCOL EX_BLOCKS
#define EX_SBM EX_HEAD EX_SBM_W EX_Q EX_MU

/* Dense storage: one column of W per line (tokens 8 .. 43). */
#define EX_DENSE_HEAD "3\n2\n0\n6\n6\n6\t6\n"
#define EX_DENSE_W \
	"10 3 5 0.5 0 0\n" \
	"1 11 6 0 0 0\n" \
	"2 4 12 0 0 0\n" \
	"0.5 0 0 20 9 2\n" \
	"0.25 0 0 7 21 3\n" \
	"0 0 0 8 1 22\n"
#define EX_DENSE EX_DENSE_HEAD EX_DENSE_W EX_Q EX_MU

static const double ex_a[6][6] = {
	{ 10, 1, 2, 0.5, 0.25, 0 }, { 3, 11, 4, 0, 0, 0 },
	{ 5, 6, 12, 0, 0, 0 },      { 0.5, 0, 0, 20, 7, 8 },
	{ 0, 0, 0, 9, 21, 1 },      { 0, 0, 0, 2, 3, 22 },
};
static const double ex_q[6] = { -1, 0.5, 0.2, -2, 0, 0.1 };
static const double ex_mu[2] = { 0.5, 0.3 };

#endif
