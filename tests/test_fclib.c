/* Tests of the FCLib reader and writer (io/fclib_*.c,
 * ../shared/problems/README.md sec. 2): the README example written by
 * libfclib in CSR, CSC and triplet storage reads as the same problem as its
 * .dat; a global problem condenses to H^T M^-1 H; Capsules-i125 reads,
 * solves (the solution checked by tests/oracle.h, its guess has the
 * README's Siconos error) and comes back bit for bit through both
 * formats; every bad file is one error naming the file and the dataset.
 * Files are written into /tmp by libfclib and edited with the HDF5 C API.
 * Without FCLib in the build only the stubs' message is tested. */
#include "config.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example_problem.h"
#include "helpers.h"
#include "oracle.h"

#ifdef HAVE_FCLIB

#include <fclib.h>
#include <hdf5.h>

/* ---- scratch files in /tmp ------------------------------------------- */

#define MAX_FILES 8

static char made[MAX_FILES][64];
static int n_made;

static void teardown(void)
{
	for (int i = 0; i < n_made; i++)
		unlink(made[i]);
	n_made = 0;
}

TestSuite(fclib, .fini = teardown);

/* A new empty file /tmp/px_fclib_XXXXXX<suffix>, removed after the test. */
static const char *scratch(const char *suffix)
{
	char *path;
	int fd;

	cr_assert_lt(n_made, MAX_FILES);
	path = made[n_made];
	snprintf(path, sizeof made[0], "/tmp/px_fclib_XXXXXX%s", suffix);
	fd = mkstemps(path, (int)strlen(suffix));
	cr_assert_geq(fd, 0, "mkstemps(%s) failed", path);
	close(fd);
	n_made++;
	return path;
}

/* A new empty HDF5 file: libfclib's writers refuse any other file. */
static const char *scratch_hdf5(void)
{
	const char *path = scratch(".hdf5");
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

	cr_assert_geq(f, 0);
	H5Fclose(f);
	return path;
}

static void copy_file(const char *from, const char *to)
{
	char bytes[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t got;

	cr_assert(in && out, "cannot copy %s to %s", from, to);
	while ((got = fread(bytes, 1, sizeof bytes, in)) > 0)
		cr_assert_eq(fwrite(bytes, 1, got, out), got);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
}

/* ---- editing a written file ------------------------------------------ */

static hid_t open_rw(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);

	cr_assert_geq(f, 0, "cannot open %s", path);
	return f;
}

static void delete_link(const char *path, const char *name)
{
	hid_t f = open_rw(path);

	cr_assert_geq(H5Ldelete(f, name, H5P_DEFAULT), 0, "%s", name);
	H5Fclose(f);
}

/* Replace (or add) dataset name: n values of memory type mtype. */
static void put_dataset(const char *path, const char *name, hid_t ftype,
			hid_t mtype, const void *data, hsize_t n)
{
	hid_t f = open_rw(path), space, d;

	if (H5Lexists(f, name, H5P_DEFAULT) > 0)
		H5Ldelete(f, name, H5P_DEFAULT);
	space = H5Screate_simple(1, &n, NULL);
	d = H5Dcreate2(f, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT,
		       H5P_DEFAULT);
	cr_assert_geq(d, 0, "cannot create %s", name);
	cr_assert_geq(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
		      0);
	H5Dclose(d);
	H5Sclose(space);
	H5Fclose(f);
}

static void put_reals(const char *path, const char *name, const double *x,
		      hsize_t n)
{
	put_dataset(path, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, x, n);
}

static void put_ints(const char *path, const char *name, const int *x,
		     hsize_t n)
{
	put_dataset(path, name, H5T_STD_I32LE, H5T_NATIVE_INT, x, n);
}

static void add_group(const char *path, const char *name)
{
	hid_t f = open_rw(path);
	hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

	cr_assert_geq(g, 0, "%s", name);
	H5Gclose(g);
	H5Fclose(f);
}

/* The ints of dataset name (at most max of them); returns how many. */
static int get_ints(const char *path, const char *name, int *x, int max)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s = H5Dget_space(d);
	int n = (int)H5Sget_simple_extent_npoints(s);

	cr_assert_leq(n, max, "%s", name);
	cr_assert_geq(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
			      x),
		      0, "%s", name);
	H5Sclose(s);
	H5Dclose(d);
	H5Fclose(f);
	return n;
}

/* ---- reading ---------------------------------------------------------- */

static struct px_problem *read_ok(const char *path, enum px_fclib_r which,
				  double **r)
{
	struct px_problem *p = NULL;
	struct px_error err = {0, ""};
	int rc = px_fclib_read(path, &p, which, r, &err);

	cr_assert_eq(rc, PX_OK, "%s: rc %d: %s", path, rc, err.msg);
	cr_assert_not_null(p);
	return p;
}

/* px_fclib_read refuses path: PX_ERR_FORMAT (or code), "<path>: what". */
static void expect_code(const char *path, enum px_fclib_r which, int code,
			const char *what)
{
	struct px_problem *p = (struct px_problem *)&p; /* must become NULL */
	double *r = (double *)&r;
	struct px_error err = {0, ""};
	char want[PX_ERROR_MSG_MAX];
	int rc;

	snprintf(want, sizeof want, "%s: %s", path, what);
	rc = px_fclib_read(path, &p, which, &r, &err);
	cr_assert_eq(rc, code, "rc %d, expected %d (%s)", rc, code, err.msg);
	cr_assert_null(p);
	cr_assert_null(r);
	cr_assert_str_eq(err.msg, want);
}

static void expect_error(const char *path, const char *what)
{
	expect_code(path, PX_FCLIB_R_NONE, PX_ERR_FORMAT, what);
}

/* ---- the README example as an FCLib local problem --------------------- */

enum { CSR = -2, CSC = -1, TRIPLET = 0 };

/* W = ex_a in the given storage (triplets in reverse row order, to show
 * that order does not matter), q, mu; written by libfclib. */
static const char *write_example(int storage)
{
	const char *path = scratch_hdf5();
	int p[37], i[36], k = 0;
	double x[36], q[6], mu[2];
	struct fclib_matrix w = {0};
	struct fclib_local loc = {0};

	for (int o = 0; o < 6; o++) {
		if (storage != TRIPLET)
			p[o] = k;
		for (int in = 0; in < 6; in++) {
			int r = storage == CSC ? in : o, c = storage == CSC ? o : in;

			if (storage == TRIPLET)
				r = 5 - r; /* reverse row order */
			if (ex_a[r][c] == 0.0)
				continue;
			if (storage == TRIPLET) {
				i[k] = r; /* row */
				p[k] = c; /* column */
			} else {
				i[k] = storage == CSC ? r : c;
			}
			x[k++] = ex_a[r][c];
		}
	}
	if (storage != TRIPLET)
		p[6] = k;
	memcpy(q, ex_q, sizeof q);
	memcpy(mu, ex_mu, sizeof mu);
	w = (struct fclib_matrix){.nzmax = k, .m = 6, .n = 6, .p = p, .i = i,
				  .x = x, .nz = storage == TRIPLET ? k : storage};
	loc = (struct fclib_local){.W = &w, .q = q, .mu = mu, .spacedim = 3};
	cr_assert_eq(fclib_write_local(&loc, path), 1);
	return path;
}

static struct px_problem *example_from_dat(void)
{
	const char *path = scratch(".dat");
	struct px_problem *p;
	struct px_error err = {0, ""};
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(EX_SBM, f);
	fclose(f);
	cr_assert_eq(px_dat_read(path, &p, &err), PX_OK, "%s", err.msg);
	return p;
}

Test(fclib, csr_csc_and_triplet_read_as_the_dat_example)
{
	static const int storages[] = {CSR, CSC, TRIPLET};
	struct px_problem *want = example_from_dat();

	for (int s = 0; s < 3; s++) {
		struct px_problem *p =
			read_ok(write_example(storages[s]), PX_FCLIB_R_NONE, NULL);
		double *a = malloc(36 * sizeof *a), *b = malloc(36 * sizeof *b);

		/* the same A densely, W non-symmetric: (0, 3) = 0.5, (3, 0) = 0.5,
		 * (0, 4) = 0.25, (4, 0) = 0 */
		cr_assert_eq(px_problem_to_dense(p, a), PX_OK);
		cr_assert_eq(px_problem_to_dense(want, b), PX_OK);
		cr_assert_eq(memcmp(a, b, 36 * sizeof *a), 0,
			     "storage %d: A differs", storages[s]);
		cr_assert_eq(a[4], 0.25);
		cr_assert_eq(a[24], 0.0);
		assert_same_problem(p, want);
		free(a);
		free(b);
		px_problem_destroy(p);
	}
	px_problem_destroy(want);
}

Test(fclib, format_by_content_and_by_name)
{
	const char *h5 = write_example(CSR), *dat = scratch(".dat");
	const char *text_h5 = scratch(".hdf5"), *h5_dat = scratch(".dat");
	FILE *f = fopen(text_h5, "w");

	fputs(EX_SBM, f);
	fclose(f);
	copy_file(h5, h5_dat);
	cr_assert_eq(px_file_format_of_file(h5), PX_FILE_FCLIB);
	cr_assert_eq(px_file_format_of_file(h5_dat), PX_FILE_FCLIB);
	cr_assert_eq(px_file_format_of_file(dat), PX_FILE_DAT);
	cr_assert_eq(px_file_format_of_file(text_h5), PX_FILE_FCLIB);
	cr_assert_eq(px_file_format_of_name("a.dat"), PX_FILE_DAT);
	cr_assert_eq(px_file_format_of_name("a.h5"), PX_FILE_FCLIB);
	cr_assert_eq(px_file_format_of_name("a.hdf5"), PX_FILE_FCLIB);
	cr_assert_eq(px_file_format_of_name("a.txt"), PX_FILE_UNKNOWN);
	cr_assert_eq(px_file_format_of_name(".dat"), PX_FILE_UNKNOWN);
}

/* ---- Capsules-i125-1213, read in place (never written) ----------------- */

static struct px_config *default_config(void)
{
	struct px_config *cfg;
	struct px_error err = {0, ""};

	cr_assert_eq(px_config_read(PX_TEST_SRCDIR "/conf/default.ini", &cfg,
				    &err),
		     PX_OK, "%s", err.msg);
	return cfg;
}

Test(fclib, capsules_solves_and_round_trips)
{
	char buf[PATH_MAX];
	const char *path =
		shared_problem("Capsules-i125-1213.hdf5", buf, sizeof buf);
	const char *h5 = scratch(".hdf5"), *dat = scratch(".dat");
	struct px_problem *p = read_ok(path, PX_FCLIB_R_NONE, NULL), *back;
	struct px_config *cfg = default_config();
	struct px_report rep = {0};
	struct px_error err = {0, ""};
	struct fclib_solution *sol;
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	double *lambda, *u, *r;

	cr_assert_eq(px_problem_n_contacts(p), 286);
	/* CSR with 11772 = 1308 x 9 entries: every entry in a full block */
	cr_assert_eq(px_problem_assembled(p, &rowptr, &cols, &blocks), PX_OK);
	cr_assert_eq(rowptr[286], 1308);
	cr_assert_eq(px_problem_friction_const(p)[0].mu, 0.7);
	lambda = calloc(858, sizeof *lambda);
	u = malloc(858 * sizeof *u);
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, &err), PX_OK, "%s", err.msg);
	cr_assert(rep.converged);
	/* checked outside the solver (tests/oracle.h): Siconos's error and
	 * Coulomb's law contact by contact, at most 1e-5 of the contact's
	 * scale. Measured: 8.4e-7, though the fc3d error is below 5e-9 (the
	 * stop test's): lightly loaded sticking contacts keep residual
	 * velocities of ~1e-8 m/s against impulses of ~5e-3, some 40
	 * contacts above 1e-7 of their scale. */
	{
		const double worst = assert_solution(p, lambda, 1e-5, 0.0, 1e-8,
						     "Capsules-i125");

		cr_log_info("Capsules-i125: worst Coulomb residual %.2e of the contact's scale",
			    worst);
	}
	px_report_free(&rep);

	/* written with the solution; libfclib reads the solution back */
	cr_assert_eq(px_fclib_write(h5, p, lambda, &err), PX_OK, "%s", err.msg);
	sol = fclib_read_solution(h5);
	cr_assert_not_null(sol);
	px_problem_apply(p, lambda, u, 1);
	cr_assert_eq(memcmp(sol->r, lambda, 858 * sizeof *u), 0);
	cr_assert_eq(memcmp(sol->u, u, 858 * sizeof *u), 0);
	fclib_delete_solutions(sol, 1);

	/* the same problem comes back; from its solution, one sweep */
	back = read_ok(h5, PX_FCLIB_R_SOLUTION, &r);
	assert_same_problem(p, back);
	cr_assert_eq(memcmp(r, lambda, 858 * sizeof *r), 0);
	cr_assert_eq(px_solve(back, cfg, r, &rep, &err), PX_OK, "%s", err.msg);
	cr_assert(rep.converged);
	cr_assert_leq(rep.sweeps, 1);
	px_report_free(&rep);
	px_problem_destroy(back);

	/* and through .dat */
	cr_assert_eq(px_dat_write(dat, p, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_dat_read(dat, &back, &err), PX_OK, "%s", err.msg);
	assert_same_problem(p, back);
	px_problem_destroy(back);
	free(lambda);
	free(u);
	free(r);
	px_config_free(cfg);
	px_problem_destroy(p);
}

/* The first guess is the file's /guesses/1/r (compared with libfclib's
 * reader on a copy: fclib_read_guesses opens its file read-write). */
Test(fclib, capsules_first_guess)
{
	char buf[PATH_MAX];
	const char *path =
		shared_problem("Capsules-i125-1213.hdf5", buf, sizeof buf);
	const char *copy = scratch(".hdf5");
	struct px_problem *p;
	struct fclib_solution *g;
	double *r;
	int n = 0;

	copy_file(path, copy);
	g = fclib_read_guesses(copy, &n);
	cr_assert_eq(n, 1);
	p = read_ok(path, PX_FCLIB_R_GUESS, &r);
	cr_assert_eq(memcmp(r, g[0].r, 858 * sizeof *r), 0);
	/* a warm start, not a solution: its error as Siconos computes it is
	 * the README's 1.1e-2 */
	{
		const double e = oracle_fc3d(p, r);

		cr_log_info("Capsules-i125's guess: Siconos error %.3e", e);
		cr_assert(e >= 1.05e-2 && e < 1.15e-2, "Siconos error %g", e);
	}
	fclib_delete_solutions(g, n);
	free(r);
	px_problem_destroy(p);
}

/* ---- a global problem, condensed ------------------------------------- */

/* Two bodies of 6 dofs, M_b = a_b I + u_b u_b^T (SPD, not diagonal); three
 * contacts: 0 on body 0, 1 between both, 2 on body 1. */
#define NDOF 12
#define NROW 9

static double m_a(int b) { return 2.0 + b; }
static double m_u(int b, int k) { return b ? (k - 2) / 3.0 : (k + 1) / 4.0; }

static double h_entry(int r, int c)
{
	int body = r / 6, contact = c / 3;

	if ((contact == 0 && body == 1) || (contact == 2 && body == 0))
		return 0.0;
	return ((r * 7 + c * 5) % 11 - 5) / 4.0 + 0.125;
}

/* (a I + u u^T)^-1 = (I - u u^T / (a + u.u)) / a, densely. */
static void m_inverse(double minv[NDOF][NDOF])
{
	memset(minv, 0, sizeof(double[NDOF][NDOF]));
	for (int b = 0; b < 2; b++) {
		double uu = 0.0;

		for (int k = 0; k < 6; k++)
			uu += m_u(b, k) * m_u(b, k);
		for (int i = 0; i < 6; i++)
			for (int j = 0; j < 6; j++)
				minv[6 * b + i][6 * b + j] =
					((i == j) - m_u(b, i) * m_u(b, j) /
							    (m_a(b) + uu)) /
					m_a(b);
	}
}

static const double g_f[NDOF] = {1, -2, 0.5, 0, 3, -1, 2, 0.25, -1, 1, 0, -3};
static const double g_w[NROW] = {-1, 0.5, 0.2, -2, 0, 0.1, 0.3, -0.4, 1};
static const double g_mu[3] = {0.5, 0.3, 0.8};

/* M in CSC (with one explicit zero far off the blocks, which must not
 * couple them), H in triplet storage, written by libfclib. */
static const char *write_global(void)
{
	const char *path = scratch_hdf5();
	int mp[NDOF + 1], mi[80], hp[NDOF * NROW], hi[NDOF * NROW];
	double mx[80], hx[NDOF * NROW], f[NDOF], w[NROW], mu[3];
	int k = 0, h = 0;
	struct fclib_matrix mm, hm;
	struct fclib_global g;

	for (int c = 0; c < NDOF; c++) {
		mp[c] = k;
		for (int r = 0; r < NDOF; r++) {
			int b = r / 6;

			if (b == c / 6) {
				mi[k] = r;
				mx[k++] = (r == c) * m_a(b) +
					  m_u(b, r % 6) * m_u(b, c % 6);
			} else if (r == 0 && c == NDOF - 1) {
				mi[k] = r;
				mx[k++] = 0.0;
			}
		}
	}
	mp[NDOF] = k;
	for (int r = 0; r < NDOF; r++)
		for (int c = 0; c < NROW; c++)
			if (h_entry(r, c) != 0.0) {
				hi[h] = r;
				hp[h] = c;
				hx[h++] = h_entry(r, c);
			}
	memcpy(f, g_f, sizeof f);
	memcpy(w, g_w, sizeof w);
	memcpy(mu, g_mu, sizeof mu);
	mm = (struct fclib_matrix){.nzmax = k, .m = NDOF, .n = NDOF, .p = mp,
				   .i = mi, .x = mx, .nz = -1};
	hm = (struct fclib_matrix){.nzmax = h, .m = NDOF, .n = NROW, .p = hp,
				   .i = hi, .x = hx, .nz = h};
	g = (struct fclib_global){.M = &mm, .H = &hm, .mu = mu, .f = f, .w = w,
				  .spacedim = 3};
	cr_assert_eq(fclib_write_global(&g, path), 1);
	return path;
}

Test(fclib, global_condenses_to_ht_minv_h)
{
	struct px_problem *p = read_ok(write_global(), PX_FCLIB_R_NONE, NULL);
	double minv[NDOF][NDOF], a[NROW * NROW], wmax = 0.0;
	const double *b = px_problem_b_const(p);

	m_inverse(minv);
	cr_assert_eq(px_problem_n_contacts(p), 3);
	cr_assert_eq(px_problem_to_dense(p, a), PX_OK);
	for (int i = 0; i < NROW; i++) {
		double want_q = g_w[i];

		for (int r = 0; r < NDOF; r++)
			for (int s = 0; s < NDOF; s++)
				want_q += h_entry(r, i) * minv[r][s] * g_f[s];
		cr_assert_float_eq(b[i], want_q, 1e-13, "q[%d] = %.17g, want %.17g",
				   i, b[i], want_q);
		for (int j = 0; j < NROW; j++) {
			double want = 0.0;

			for (int r = 0; r < NDOF; r++)
				for (int s = 0; s < NDOF; s++)
					want += h_entry(r, i) * minv[r][s] *
						h_entry(s, j);
			wmax = fmax(wmax, fabs(want));
			cr_assert_float_eq(a[i * NROW + j], want, 1e-13,
					   "W[%d][%d] = %.17g, want %.17g", i,
					   j, a[i * NROW + j], want);
		}
	}
	cr_assert_gt(wmax, 0.5);
	/* contacts 0 and 2 touch different bodies: their block is zero */
	cr_assert_eq(a[0 * NROW + 6], 0.0);
	for (int k = 0; k < 3; k++)
		cr_assert_eq(px_problem_friction_const(p)[k].mu, g_mu[k]);
	px_problem_destroy(p);
}

Test(fclib, global_m_not_block_diagonal)
{
	enum { N = PX_FCLIB_MAX_M_BLOCK + 2 };
	const char *path = scratch_hdf5();
	int mp[N + 1], mi[3 * N], hp[N], hi[N];
	double mx[3 * N], hx[N], f[N] = {0}, w[3] = {0}, mu[1] = {0.5};
	struct fclib_matrix mm, hm;
	struct fclib_global g;
	char want[256];
	int k = 0;

	for (int r = 0; r < N; r++) { /* tridiagonal, SPD: one coupled block */
		mp[r] = k;
		for (int c = r - 1; c <= r + 1; c++)
			if (c >= 0 && c < N) {
				mi[k] = c;
				mx[k++] = c == r ? 4.0 : -1.0;
			}
		hp[r] = r % 3; /* triplet: column */
		hi[r] = r;     /* row */
		hx[r] = 1.0;
	}
	mp[N] = k;
	mm = (struct fclib_matrix){.nzmax = k, .m = N, .n = N, .p = mp,
				   .i = mi, .x = mx, .nz = -2};
	hm = (struct fclib_matrix){.nzmax = N, .m = N, .n = 3, .p = hp,
				   .i = hi, .x = hx, .nz = N};
	g = (struct fclib_global){.M = &mm, .H = &hm, .mu = mu, .f = f, .w = w,
				  .spacedim = 3};
	cr_assert_eq(fclib_write_global(&g, path), 1);
	snprintf(want, sizeof want,
		 "/fclib_global/M is not block-diagonal: rows 0 .. %d form one coupled block of %d rows (proxima inverts M block by block, at most %d rows each)",
		 N - 1, N, PX_FCLIB_MAX_M_BLOCK);
	expect_error(path, want);
}

Test(fclib, global_singular_m_block)
{
	const char *path = write_global();
	double zeros[80] = {0};
	int nzmax;

	/* all of M's values zero: no coupling, and row 0 alone is singular */
	get_ints(path, "/fclib_global/M/nzmax", &nzmax, 1);
	put_reals(path, "/fclib_global/M/x", zeros, (hsize_t)nzmax);
	expect_error(path, "/fclib_global/M: the diagonal block of rows 0 .. 0 is singular");
}

/* ---- bad files: one error naming the file and the dataset ------------- */

Test(fclib, missing_file)
{
	expect_code("/nonexistent/p.hdf5", PX_FCLIB_R_NONE, PX_ERR_IO,
		    "cannot open: No such file or directory");
}

Test(fclib, not_an_hdf5_file)
{
	const char *path = scratch(".hdf5");
	struct px_problem *p;
	struct px_error err = {0, ""};
	char want[256];
	FILE *f = fopen(path, "w");

	fputs(EX_SBM, f);
	fclose(f);
	expect_error(path, "not an HDF5 file (expected an FCLib problem)");
	/* named .hdf5, so px_problem_read sends it to the FCLib reader too */
	cr_assert_eq(px_problem_read(path, &p, PX_FCLIB_R_NONE, NULL, &err),
		     PX_ERR_FORMAT);
	snprintf(want, sizeof want,
		 "%s: not an HDF5 file (expected an FCLib problem)", path);
	cr_assert_str_eq(err.msg, want);
}

Test(fclib, not_an_fclib_problem)
{
	expect_error(scratch_hdf5(),
		     "missing group /fclib_local (or /fclib_global): not an FCLib problem");
}

Test(fclib, missing_w)
{
	const char *path = write_example(CSR);

	delete_link(path, "/fclib_local/W");
	expect_error(path, "missing group /fclib_local/W");
}

/* libfclib itself would print and exit(1) on these two. */
Test(fclib, missing_datasets)
{
	const char *path = write_example(CSR);

	delete_link(path, "/fclib_local/W/x");
	expect_error(path, "missing dataset /fclib_local/W/x");
	path = write_example(CSR);
	delete_link(path, "/fclib_local/vectors/mu");
	expect_error(path, "missing dataset /fclib_local/vectors/mu");
}

/* A longer q would overrun libfclib's buffer, a shorter leave it half
 * read. */
Test(fclib, q_of_the_wrong_size)
{
	const char *path = write_example(CSR);
	const double q[7] = {1, 2, 3, 4, 5, 6, 7};

	put_reals(path, "/fclib_local/vectors/q", q, 5);
	expect_error(path, "/fclib_local/vectors/q: 5 values, expected 6 (the rows of W)");
	put_reals(path, "/fclib_local/vectors/q", q, 7);
	expect_error(path, "/fclib_local/vectors/q: 7 values, expected 6 (the rows of W)");
}

Test(fclib, wrong_classes_and_sizes)
{
	const char *path = write_example(CSR);
	const int iq[6] = {0};
	const int three = 3, m = 7;

	put_ints(path, "/fclib_local/vectors/q", iq, 6);
	expect_error(path, "/fclib_local/vectors/q: expected reals");
	path = write_example(CSR);
	put_ints(path, "/fclib_local/spacedim", (const int[]){2}, 1);
	expect_error(path, "/fclib_local/spacedim = 2: 2D problems are not supported (proxima solves 3D contacts)");
	path = write_example(CSR);
	put_ints(path, "/fclib_local/W/m", &three, 1);
	expect_error(path, "/fclib_local/W/p: 7 values, expected 4 (m + 1 and nzmax, CSR storage)");
	path = write_example(TRIPLET);
	put_ints(path, "/fclib_local/W/m", &m, 1);
	put_ints(path, "/fclib_local/W/n", &m, 1);
	expect_error(path, "/fclib_local/W/m = 7 is not a multiple of spacedim = 3");
}

Test(fclib, column_index_out_of_range)
{
	const char *path = write_example(CSR);
	int i[21], n = get_ints(path, "/fclib_local/W/i", i, 21);

	/* row 0 of ex_a holds columns 0 1 2 3 4; entry 3 is column 3 */
	cr_assert_eq(i[3], 3);
	i[3] = 7;
	put_ints(path, "/fclib_local/W/i", i, (hsize_t)n);
	expect_error(path, "/fclib_local/W/i[3] = 7: column index out of range 0 .. 5");
}

/* Triplets (reverse row order): entry 0 is (5, 3), i its row, p its
 * column. */
Test(fclib, triplet_indices_out_of_range)
{
	const char *path = write_example(TRIPLET);
	int i[21], p[21];

	cr_assert_eq(get_ints(path, "/fclib_local/W/i", i, 21), 21);
	cr_assert_eq(get_ints(path, "/fclib_local/W/p", p, 21), 21);
	cr_assert(i[0] == 5 && p[0] == 3);
	p[0] = 6;
	put_ints(path, "/fclib_local/W/p", p, 21);
	expect_error(path, "/fclib_local/W/p[0] = 6: column index out of range 0 .. 5");
	p[0] = 3;
	i[0] = -1;
	put_ints(path, "/fclib_local/W/p", p, 21);
	put_ints(path, "/fclib_local/W/i", i, 21);
	expect_error(path, "/fclib_local/W/i[0] = -1: row index out of range 0 .. 5");
}

Test(fclib, nan_and_negative_mu)
{
	const char *path = write_example(CSR);
	double q[6];

	memcpy(q, ex_q, sizeof q);
	q[1] = NAN;
	put_reals(path, "/fclib_local/vectors/q", q, 6);
	expect_error(path, "/fclib_local/vectors/q[1] is not finite (nan)");
	path = write_example(CSR);
	put_reals(path, "/fclib_local/vectors/mu", (const double[]){0.5, -0.25},
		  2);
	expect_error(path, "/fclib_local/vectors/mu[1] = -0.25 is negative");
}

Test(fclib, row_pointers_must_not_decrease)
{
	const char *path = write_example(CSR);
	const int p[7] = {0, 5, 4, 11, 15, 18, 21};

	put_ints(path, "/fclib_local/W/p", p, 7);
	expect_error(path, "/fclib_local/W/p[2] = 4 is less than p[1] = 5");
}

Test(fclib, entry_stored_twice_is_refused)
{
	const char *path = write_example(TRIPLET);
	int i[21], p[21];

	get_ints(path, "/fclib_local/W/i", i, 21);
	get_ints(path, "/fclib_local/W/p", p, 21);
	i[1] = i[0]; /* entry 1 at entry 0's place, (5, 3) */
	p[1] = p[0];
	put_ints(path, "/fclib_local/W/i", i, 21);
	put_ints(path, "/fclib_local/W/p", p, 21);
	expect_error(path, "/fclib_local/W: entry (5, 3) is stored twice (refused: Siconos keeps the last, CSparse adds them)");
}

Test(fclib, mixed_problems_are_refused)
{
	const char *path = write_example(CSR);

	add_group(path, "/fclib_local/V");
	expect_error(path, "/fclib_local/V, /fclib_local/R: mixed problems (V, R, s) are not supported");
}

Test(fclib, no_guess_or_solution)
{
	const char *path = write_example(CSR);

	expect_code(path, PX_FCLIB_R_GUESS, PX_ERR_FORMAT,
		    "no initial guess (missing group /guesses)");
	expect_code(path, PX_FCLIB_R_SOLUTION, PX_ERR_FORMAT,
		    "no solution (missing group /solution)");
}

Test(fclib, write_into_a_missing_directory)
{
	struct px_problem *p = example_from_dat();
	struct px_error err = {0, ""};

	cr_assert_eq(px_fclib_write("/nonexistent/x.hdf5", p, NULL, &err),
		     PX_ERR_IO);
	cr_assert_str_eq(err.msg, "/nonexistent/x.hdf5: cannot write: No such file or directory");
	px_problem_destroy(p);
}

/* Found by tests/fuzz/fclib (issue 22): an FCLib file whose info group's
 * local heap is corrupt passed the structure checks, and libfclib's
 * H5LTfind_dataset then failed and exit(1)ed the process. */
Test(fclib, unlistable_info_group_is_refused)
{
	expect_error(PX_TEST_SRCDIR "/tests/fuzz/regress/fclib-info-heap.hdf5",
		     "/fclib_local/info: cannot list its members");
}

/* Found by tests/fuzz/solve (issue 22): mu's file type declares elements
 * of 4 GiB; reading it had HDF5 allocate that much (libfclib exits when
 * such an allocation fails). */
Test(fclib, elements_of_absurd_size_are_refused)
{
	expect_error(PX_TEST_SRCDIR "/tests/fuzz/regress/fclib-huge-element.hdf5",
		     "/fclib_local/vectors/mu: elements of 4294967295 bytes, expected at most 16");
}

/* Found by tests/fuzz/solve (issue 22): the info group lists
 * "description", which HDF5 then cannot find by that name; our check asked
 * by name (absent: fine), libfclib lists the group, found it, failed to
 * open it and exit(1)ed. */
Test(fclib, member_listed_but_not_found_is_refused)
{
	expect_error(PX_TEST_SRCDIR "/tests/fuzz/regress/fclib-info-unfindable.hdf5",
		     "/fclib_local/info/description: listed in its group but cannot be found by name or read (a corrupt group)");
}

/* Found by tests/fuzz/solve (issue 22): the info group has a link whose
 * name begins with "title" but is not "title"; H5LTfind_dataset compares
 * prefixes, so libfclib took it for title, failed to open "title" and
 * exit(1)ed. */
Test(fclib, member_found_by_prefix_only_is_refused)
{
	expect_error(PX_TEST_SRCDIR "/tests/fuzz/regress/fclib-info-prefix.hdf5",
		     "/fclib_local/info/title: listed in its group but cannot be found by name or read (a corrupt group)");
}

/* Found by tests/fuzz/fclib (issue 22): libhdf5 1.10.8 itself divides by
 * zero (H5D__chunk_set_info) on a chunked dataset with a corrupt layout,
 * and reads through a wild pointer (H5F__accum_read) on corrupt metadata;
 * no check before it can see either. px_fclib_read reads in a child
 * process, so the crash is the child's and comes back as one line, with
 * the calling process intact (this test's process reads a good file after). */
Test(fclib, crash_inside_libhdf5_is_an_error_line)
{
	const char *good = write_example(CSR);
	struct px_problem *p;

	expect_error(PX_TEST_SRCDIR "/tests/fuzz/regress/hdf5-chunk-sigfpe.hdf5",
		     "libhdf5 crashed reading this file (Floating point exception, signal 8): the file is damaged");
	expect_error(PX_TEST_SRCDIR "/tests/fuzz/regress/hdf5-accum-segv.hdf5",
		     "libhdf5 crashed reading this file (Segmentation fault, signal 11): the file is damaged");
	p = read_ok(good, PX_FCLIB_R_NONE, NULL);
	cr_assert_eq(px_problem_n_contacts(p), 2);
	px_problem_destroy(p);
}

#else /* !HAVE_FCLIB */

Test(fclib, built_without_fclib_says_so)
{
	struct px_problem *p = (struct px_problem *)&p;
	struct px_error err = {0, ""};

	cr_assert_eq(px_fclib_read("x.hdf5", &p, PX_FCLIB_R_NONE, NULL, &err),
		     PX_ERR_UNSUPPORTED);
	cr_assert_null(p);
	cr_assert_str_eq(err.msg, "x.hdf5: proxima was built without FCLib support (libfclib-dev, libhdf5-dev)");
}

#endif
