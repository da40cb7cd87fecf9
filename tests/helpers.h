/* Shared test helpers: paths, files, the command, and textbook projected
 * Gauss-Seidel on the dense A (px_problem_to_dense), a reference that does
 * not use the solver's kernel. The oracles that check a claimed solution
 * are in oracle.h. */
#ifndef PX_TEST_HELPERS_H
#define PX_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <proxima/proxima.h>

/* The text of file path into buf (len bytes, NUL terminated, cut to fit);
 * "" when it cannot be read. */
static inline void read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Path of a file in ../shared/problems, or skip the test when it is absent
 * (as inside make distcheck's unpacked tarball). */
static inline const char *shared_problem(const char *name, char *buf,
					 size_t len)
{
	if (access(PX_SHARED_PROBLEMS, R_OK) != 0)
		cr_skip_test("%s is absent: skipping tests on the shared problems",
			     PX_SHARED_PROBLEMS);
	snprintf(buf, len, "%s/%s", PX_SHARED_PROBLEMS, name);
	return buf;
}

/* The problem of ../shared/problems/name, read (the test skips when the
 * folder is absent, fails when the file cannot be read). */
static inline struct px_problem *shared_problem_read(const char *name)
{
	char path[4096];
	struct px_problem *p;
	struct px_error err = {0};

	cr_assert_eq(px_problem_read(shared_problem(name, path, sizeof path),
				     &p, PX_FCLIB_R_NONE, NULL, &err),
		     PX_OK, "%s", err.msg);
	return p;
}

/* The 13 problem files of ../shared/problems, NULL-terminated. */
static inline const char *const *shared_problem_files(void)
{
	static const char *const files[] = {
		"BoxesStack1-i100000-32.hdf5.dat", "Capsules-i122-1617.dat",
		"Capsules-i125-1213.hdf5",
		"Confeti-ex13-4contact-Fc3D-SBM.dat", "FC3D_Example1.dat",
		"FC3D_Example1_SBM.dat", "FrictionContact3D_1c.dat",
		"GFC3D_TwoRods1-condensed.dat", "KaplasTower-i1061-4.hdf5.dat",
		"NESpheres_10_1.dat", "OneObject-i1028-138.hdf5.dat",
		"Rover1040.dat", "Rover4516.dat", NULL,
	};

	return files;
}

/* msg is want followed by the plugin loader's list of a kind's plugins on
 * the search path ("; there: a, b, ..."), which holds at least each of
 * names (NULL-terminated; the installed folder may add more). */
static inline void assert_not_found_listing(const char *msg, const char *want,
					    const char *const *names)
{
	const size_t n = strlen(want);

	cr_assert(strncmp(msg, want, n) == 0, "%s\n is not\n%s...", msg, want);
	cr_assert(strncmp(msg + n, "; there: ", 9) == 0, "%s", msg);
	for (; *names; names++) {
		const char *at = strstr(msg + n + 9, *names);
		const size_t l = strlen(*names);

		cr_assert(at && (at[-1] == ' ') && (at[l] == ',' || !at[l]),
			  "'%s' is not listed: %s", *names, msg);
	}
}

/* A solution written by --out (one number per line): exactly m numbers,
 * malloc'd. */
static inline double *read_solution(const char *path, size_t m)
{
	double *x = malloc((m + 1) * sizeof *x), extra;
	FILE *f = fopen(path, "r");

	cr_assert(x && f, "%s: cannot read", path);
	for (size_t i = 0; i < m; i++)
		cr_assert_eq(fscanf(f, "%lf", &x[i]), 1, "%s: %zu numbers, expected %zu",
			     path, i, m);
	cr_assert_eq(fscanf(f, "%lf", &extra), EOF, "%s: more than %zu numbers", path, m);
	fclose(f);
	return x;
}

/* Write text to dir/name, its path into path (len bytes), or fail the test. */
static inline void write_file_in(const char *dir, const char *name,
				 const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Run `ENV proxima ARGS` (env: assignments or "") with its stdout and
 * stderr captured through files in dir into out and err (PX_CLI_OUT_MAX
 * bytes each); returns its exit status. $PX_TEST_WRAPPER goes before the
 * command (`make check-valgrind' sets it to valgrind through libtool). */
#define PX_CLI_OUT_MAX 65536
static inline int run_cli(const char *dir, const char *env, const char *args,
			  char *out, char *err)
{
	const char *w = getenv("PX_TEST_WRAPPER");
	char cmd[8192], o[128], e[128];
	int st;

	snprintf(o, sizeof o, "%s/stdout", dir);
	snprintf(e, sizeof e, "%s/stderr", dir);
	snprintf(cmd, sizeof cmd, "%s %s %s %s >%s 2>%s", env, w ? w : "",
		 PX_CLI, args, o, e);
	st = system(cmd);
	read_text(o, out, PX_CLI_OUT_MAX);
	read_text(e, err, PX_CLI_OUT_MAX);
	cr_assert(WIFEXITED(st), "%s did not exit normally", cmd);
	return WEXITSTATUS(st);
}

/* Write text to a fresh temporary file whose name goes into path (at least
 * 24 bytes); the caller unlinks it. */
static inline void write_temp_ini(const char *text, char *path, size_t len)
{
	int fd;
	FILE *f;

	snprintf(path, len, "/tmp/px_test_ini_XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* px_config_read of text (written to a temporary file) fails with code
 * and the one message fmt, formatted with the file's path,
 * $PROXIMA_PLUGIN_PATH and the installed plugin folder in that order; no
 * config is made. */
static inline void config_refused(const char *text, int code,
				  const char *fmt)
{
	struct px_config *cfg = (void *)1;
	struct px_error err = {0};
	char path[64], want[2048];

	write_temp_ini(text, path, sizeof path);
	snprintf(want, sizeof want, fmt, path, getenv("PROXIMA_PLUGIN_PATH"),
		 px_plugin_dir());
	cr_assert_eq(px_config_read(path, &cfg, &err), code, "%s", err.msg);
	cr_assert_null(cfg);
	cr_assert_str_eq(err.msg, want);
	unlink(path);
}

/* Remove path and, if it is a directory, everything in it: a test's
 * scratch directory, from its suite's fini (no-op when path is ""). */
static inline void remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (!*path || lstat(path, &st))
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
		while ((e = readdir(d))) {
			char sub[4096];
			int n;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			n = snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			if (n > 0 && (size_t)n < sizeof sub)
				remove_tree(sub);
		}
		closedir(d);
	}
	remove(path);
}

/* The settings the tests of solver parts were written for, under every
 * config_from_text: the compiled defaults before issue 30 made them
 * conf/default.ini's (the delta merit to 1e-10 within 10,000 sweeps, local
 * back-tracking by nu = 0.9). Those tests judge an ordering, a scheduler or
 * a friction set, not the default; tests of the default read NULL. */
#define TEST_SETTINGS \
	"[solver]\nmax_sweeps = 10000\nabs_tol = 1e-10\nmerit = delta\n" \
	"[rfactor]\nnu = 0.9\n"

/* A config from INI text layered over TEST_SETTINGS, or fail the test. */
static inline struct px_config *config_from_text(const char *text)
{
	const struct px_config_layer l[] = {
		{PX_LAYER_TEXT, TEST_SETTINGS, "TEST_SETTINGS"},
		{PX_LAYER_TEXT, text, "(test)"},
	};
	struct px_config *cfg;
	struct px_error err = {0};

	cr_assert_eq(px_config_build(l, 2, &cfg, &err), PX_OK, "%s\n%s",
		     err.msg, text);
	return cfg;
}

/* The lowest stop-test merit a solve saw: of its accepted sweeps and of
 * its accelerator's calls that replaced lambda (HUGE_VAL: none). */
static inline double lowest_merit(const struct px_report *rep)
{
	double lo = HUGE_VAL;

	for (size_t i = 0; i < rep->n_history; i++)
		if (rep->history[i].accepted)
			lo = fmin(lo, rep->history[i].merit);
	for (size_t i = 0; i < rep->n_accel; i++)
		if (rep->accel[i].replaced)
			lo = fmin(lo, rep->accel[i].merit);
	return lo;
}

/* A of an assembled problem as a dense row-major matrix, copied from its
 * stored blocks without arithmetic (so the signs of zeros survive);
 * malloc'd. */
static inline double *dense_bits(const struct px_problem *p)
{
	const size_t n = px_problem_n_contacts(p), m = 3 * n;
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	double *a = calloc(m * m, sizeof *a);

	cr_assert_not_null(a);
	cr_assert_eq(px_problem_block_size(p), 3);
	cr_assert_eq(px_problem_assembled(p, &rowptr, &cols, &blocks), PX_OK);
	for (size_t i = 0; i < n; i++)
		for (size_t q = rowptr[i]; q < rowptr[i + 1]; q++)
			for (size_t r = 0; r < 3; r++)
				for (size_t c = 0; c < 3; c++)
					a[(3 * i + r) * m + 3 * cols[q] + c] =
						blocks[9 * q + 3 * r + c];
	return a;
}

/* x and y hold the same problem bit for bit: A, b and mu. */
static inline void assert_same_problem(const struct px_problem *x,
				       const struct px_problem *y)
{
	const size_t n = px_problem_n_contacts(x), m = 3 * n;
	double *ax, *ay;

	cr_assert_eq(px_problem_n_contacts(y), n);
	ax = dense_bits(x);
	ay = dense_bits(y);
	cr_assert_eq(memcmp(ax, ay, m * m * sizeof *ax), 0, "A differs");
	cr_assert_eq(memcmp(px_problem_b_const(x), px_problem_b_const(y),
			    m * sizeof(double)),
		     0, "b differs");
	for (size_t k = 0; k < n; k++)
		cr_assert_eq(memcmp(&px_problem_friction_const(x)[k].mu,
				    &px_problem_friction_const(y)[k].mu,
				    sizeof(double)),
			     0, "mu[%zu] differs", k);
	free(ax);
	free(ay);
}

/* Textbook projected Gauss-Seidel on the dense A (3-row contacts): rows
 * one at a time, r = 1/A_ii, clamped to [0, inf) or [-mu lambda_n,
 * mu lambda_n] (the box friction set). With ranges > 1 it is naive
 * parallel Gauss-Seidel (Poulsen 2010, sec. 7.1): the contacts cut into
 * `ranges` contiguous ranges, k in range floor(k ranges / n), each swept
 * against its own copy of the previous iterate. */
static inline void pgs_reference(const struct px_problem *p, double *x,
				 int sweeps, int ranges)
{
	const size_t n = px_problem_n_contacts(p), m = 3 * n;
	const double *b = px_problem_b_const(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	double *a = malloc(m * m * sizeof *a), *prev = malloc(m * sizeof *prev);
	double *copy = malloc(m * sizeof *copy);

	cr_assert(a && prev && copy);
	cr_assert_eq(px_problem_to_dense(p, a), PX_OK);
	for (int s = 0; s < sweeps; s++) {
		memcpy(prev, x, m * sizeof *x);
		for (size_t r = 0; r < (size_t)ranges; r++) {
			memcpy(copy, prev, m * sizeof *x);
			for (size_t i = 3 * (n * r / (size_t)ranges);
			     i < 3 * (n * (r + 1) / (size_t)ranges); i++) {
				double y = b[i], bound = fr[i / 3].mu * copy[i - i % 3];

				for (size_t j = 0; j < m; j++)
					y += a[i * m + j] * copy[j];
				copy[i] -= y / a[i * m + i];
				if (i % 3 == 0)
					copy[i] = fmax(copy[i], 0.0);
				else
					copy[i] = fmin(fmax(copy[i], -bound), bound);
				x[i] = copy[i];
			}
		}
	}
	free(a);
	free(prev);
	free(copy);
}

#endif
