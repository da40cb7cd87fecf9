/* Fuzz target: `proxima solve`'s path from bytes to a finished solve. The
 * first byte picks one of the configs below (each a bounded number of
 * sweeps), the rest is a problem file read as the command reads it (an
 * FCLib file, told apart by its signature, is skipped: see below); a
 * problem read is solved from zero, and the solve either succeeds or fails
 * with one error line. Bit 2 of the first byte also solves it with a kept
 * solver (px_solver_create, px_solver_solve): the same lambda bit for bit
 * as px_solve, and then, with b halved, px_solver_resume from there. */
#include <proxima/proxima.h>

#include "fuzz.h"

static const char *const configs[] = {
	"[solver]\nmax_sweeps = 40\n",
	"[solver]\nmax_sweeps = 40\nmerit = fc3d\n"
	"[friction]\nplugin = box\n[rfactor]\nplugin = global\nr = 0.5\nnu = 0.7\n",
	"[solver]\nmax_sweeps = 40\nmerit = natural\n"
	"[friction]\nplugin = ellipsoid\n[rfactor]\nplugin = blocked\n"
	"[ordering]\nplugin = ipp\n",
	"[solver]\nmax_sweeps = 40\nmerit = minmap\n"
	"[friction]\nplugin = box\n[ordering]\nplugin = staggered\n",
};
#define N_CONFIGS (sizeof configs / sizeof configs[0])

static struct px_config *cfg[N_CONFIGS];
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char ini[64];

	(void)argc;
	(void)argv;
	fuzz_plugin_path();
	for (size_t i = 0; i < N_CONFIGS; i++) {
		struct px_error err = {0};

		fuzz_file(ini, ".ini", (const uint8_t *)configs[i],
			  strlen(configs[i]));
		if (px_config_read(ini, &cfg[i], &err)) {
			fprintf(stderr, "fuzz solve: config %zu: %s\n", i, err.msg);
			abort();
		}
	}
	return 0;
}

/* A kept solver on p from zero gives want (px_solve's lambda, m values)
 * bit for bit; a resume after b is halved ends or fails with one line. */
static void kept(struct px_problem *p, const struct px_config *c,
		 const double *want, size_t m)
{
	struct px_solver *sv = NULL;
	struct px_report rep = {0};
	struct px_error err = {0};
	double *lambda = calloc(m ? m : 1, sizeof *lambda), *b = px_problem_b(p);

	if (!lambda || px_solver_create(p, c, &sv, &err)) {
		if (lambda && err.code != PX_ERR_NOMEM) /* px_solve made one */
			abort();
		free(lambda);
		return;
	}
	if (px_solver_solve(sv, lambda, &rep, &err) ||
	    memcmp(lambda, want, m * sizeof *lambda) != 0)
		abort();
	px_report_free(&rep);
	for (size_t i = 0; i < m; i++)
		b[i] *= 0.5;
	if (px_solver_resume(sv, lambda, &rep, &err) != PX_OK &&
	    (!err.msg[0] || strchr(err.msg, '\n')))
		abort();
	px_report_free(&rep);
	px_solver_destroy(sv);
	free(lambda);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_problem *p = NULL;
	struct px_error err = {0};
	struct px_report rep = {0};
	double *lambda;
	size_t m;

	/* FCLib files are the fclib target's: here they would mostly find
	 * libhdf5's own crashes (tests/fuzz/regress/hdf5-chunk-sigfpe.hdf5),
	 * and past the readers the solve is the same for both formats */
	if (size < 1 || (size > 8 && memcmp(data + 1, "\x89HDF\r\n\x1a\n", 8) == 0))
		return 0;
	fuzz_file(path, ".dat", data + 1, size - 1);
	if (px_problem_read(path, &p, PX_FCLIB_R_NONE, NULL, &err)) {
		if (p || !err.msg[0] || strchr(err.msg, '\n'))
			abort();
		return 0;
	}
	m = px_problem_n_contacts(p) * px_problem_block_size(p);
	lambda = calloc(m ? m : 1, sizeof *lambda);
	if (!lambda)
		abort();
	if (px_solve(p, cfg[data[0] % N_CONFIGS], lambda, &rep, &err) == PX_OK) {
		double fc3d = px_merit_fc3d(p, lambda, NULL);

		(void)fc3d;
		if (data[0] & 4)
			kept(p, cfg[data[0] % N_CONFIGS], lambda, m);
	} else if (!err.msg[0] || strchr(err.msg, '\n')) {
		abort();
	}
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	return 0;
}
