/* The proximal point accelerator prox (plugin ABI 1.10, PX_ACCEL_DRIVES,
 * built with UMFPACK): conf/prox.ini solves every shared problem to an
 * fc3d error of 1e-8 with no sweep, the answers checked by the oracles;
 * factorized and rigid scenes (A probed through the product) too; the
 * memory in use does not grow from one Newton step to the next; the
 * driver's stops (max_sweeps, the time limit) hold between Newton steps,
 * with the best iterate put back; KLU (refactorized with the last
 * pivots) and UMFPACK solve alike, and factor = auto takes KLU where the
 * fill is small and UMFPACK where it is large; proximal steps solved
 * exactly lower sigma (fewer Newton steps, the same answers); the refusals (the delta merit, friction
 * sets other than the disc, bad parameters) are one exact message each;
 * proxima solve reports the steps and the peak. */
#include <criterion/criterion.h>
#include <malloc.h>
#include <math.h>
#include <string.h>

#include "../sim/scene_problems.h"
#include "helpers.h"
#include "oracle.h"

/* Coulomb's law per contact (tests/oracle.h) relative to each contact's
 * own scale, at fc3d 1e-8: the worst of the shared problems was 3.2e-6
 * (Capsules-i122), the scenes' 2.1e-11. */
#define PROX_LAW_REL 1e-5

static struct px_config *prox_config(void)
{
	struct px_config *cfg;
	struct px_error err = {0};

	cr_assert_eq(px_config_read(PX_TEST_SRCDIR "/conf/prox.ini", &cfg,
				    &err),
		     PX_OK, "%s", err.msg);
	return cfg;
}

/* Solves p with cfg from zero: converged, no sweep, and the answer
 * checked by the oracles to fc3d 1e-8; then from that answer, in no
 * step. */
static void solves(const struct px_problem *p, struct px_config *cfg,
		   const char *what)
{
	struct px_report rep;
	struct px_error err = {0};
	double *x = calloc(px_problem_n_contacts(p) * 3 + 1, sizeof *x);
	double worst;

	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s: %s", what,
		     err.msg);
	cr_assert(rep.converged, "%s: stopped (%s) after %llu Newton steps",
		  what, px_stop_name(rep.stop),
		  (unsigned long long)rep.accel_steps);
	cr_assert_eq(rep.sweeps, 0, "%s", what);
	cr_assert_gt(rep.accel_steps, 0, "%s", what);
	worst = assert_solution(p, x, PROX_LAW_REL, 0.0, 1e-8, what);
	cr_log_info("%s: %llu Newton steps, law %.2g", what,
		    (unsigned long long)rep.accel_steps, worst);
	px_report_free(&rep);
	/* from its answer: the stop test before any step ends the solve */
	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s: %s", what,
		     err.msg);
	cr_assert(rep.converged && rep.accel_steps == 0, "%s", what);
	px_report_free(&rep);
	free(x);
}

/* conf/prox.ini with text over its settings */
static struct px_config *prox_config_with(const char *text)
{
	const struct px_config_layer l[] = {
		{PX_LAYER_FILE, PX_TEST_SRCDIR "/conf/prox.ini", NULL},
		{PX_LAYER_TEXT, text, "(test)"},
	};
	struct px_config *cfg;
	struct px_error err = {0};

	cr_assert_eq(px_config_build(l, 2, &cfg, &err), PX_OK, "%s", err.msg);
	return cfg;
}

Test(prox, solves_every_shared_problem)
{
	const char *const *files = shared_problem_files();
	struct px_config *cfg = prox_config();
	struct px_error err = {0};

	for (size_t i = 0; files[i]; i++) {
		char path[4096];
		struct px_problem *p;

		cr_assert_eq(px_problem_read(shared_problem(files[i], path,
							    sizeof path),
					     &p, PX_FCLIB_R_NONE, NULL, &err),
			     PX_OK, "%s", err.msg);
		solves(p, cfg, files[i]);
		px_problem_destroy(p);
	}
	px_config_free(cfg);
}

Test(prox, solves_factorized_and_rigid_scenes)
{
	struct px_config *cfg = prox_config();
	struct px_problem *p;

	cr_assert_eq(scene_heavy_on_light(1000.0, 0.5, PX_FORM_FACTORIZED, &p,
					  NULL),
		     PX_OK);
	solves(p, cfg, "heavy-on-light, factorized");
	px_problem_destroy(p);
	cr_assert_eq(scene_heavy_on_light(1000.0, 0.5, PX_FORM_RIGID, &p,
					  NULL),
		     PX_OK);
	solves(p, cfg, "heavy-on-light, rigid");
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* The bytes malloc has handed out and not taken back, after each call of
 * the plugin (the monitor runs between them). */
struct in_use {
	size_t bytes[4096];
	size_t n;
};

static int record_in_use(const struct px_report *so_far, void *user)
{
	struct in_use *u = user;
	const struct mallinfo2 mi = mallinfo2();

	(void)so_far;
	if (u->n < sizeof u->bytes / sizeof *u->bytes)
		u->bytes[u->n++] = mi.uordblks + mi.hblkhd;
	return 0;
}

/* Every array of a solve is allocated in prepare and UMFPACK's factors
 * are freed in the step that made them: from the first Newton step to
 * the last, the memory in use grows by the host's records of the calls
 * alone (px_grow's doubling from 16), never by the plugin. The peak the
 * plugin reports is in its accelerator line. */
Test(prox, memory_does_not_grow_between_newton_steps)
{
	char path[4096], line[512];
	struct px_config *cfg = prox_config();
	struct px_problem *p;
	struct px_report rep;
	struct px_error err = {0};
	struct in_use *u = calloc(1, sizeof *u);
	double *x, peak = 0.0;
	size_t records;
	const char *at;

	cr_assert_eq(px_dat_read(shared_problem("Capsules-i122-1617.dat", path,
						sizeof path),
				 &p, &err),
		     PX_OK, "%s", err.msg);
	x = calloc(px_problem_n_contacts(p) * 3, sizeof *x);
	px_config_set_monitor(cfg, record_in_use, u);
	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s", err.msg);
	cr_assert(rep.converged);
	cr_assert_geq(u->n, 20, "%zu Newton steps", u->n);
	records = rep.n_accel > 8 ? 2 * rep.n_accel : 16;
	for (size_t i = 1; i < u->n; i++)
		cr_assert_leq(u->bytes[i],
			      u->bytes[0] +
				      (records - 16) * sizeof *rep.accel,
			      "after Newton step %zu: %zu bytes in use, %zu after the first",
			      i + 1, u->bytes[i], u->bytes[0]);
	cr_assert(px_accelerator_describe(cfg, line, sizeof line));
	at = strstr(line, "; peak ");
	cr_assert(at && sscanf(at, "; peak %lf MiB", &peak) == 1, "%s", line);
	/* the arrays of 1617 contacts and their factors: MiB, not GiB */
	cr_assert(peak > 0.1 && peak < 64.0, "%s", line);
	cr_log_info("%s", line);
	px_report_free(&rep);
	free(x);
	free(u);
	px_problem_destroy(p);
	px_config_free(cfg);
}

static void refused_at_solve(const char *text, const char *want)
{
	struct px_config *cfg = config_from_text(text);
	struct px_problem *p;
	struct px_report rep;
	struct px_error err = {0};
	double x[96] = {0};

	cr_assert_eq(scene_heavy_on_light(10.0, 0.5, PX_FORM_RIGID, &p, NULL),
		     PX_OK);
	cr_assert_leq(px_problem_n_contacts(p) * 3, 96);
	cr_assert_neq(px_solve(p, cfg, x, &rep, &err), PX_OK);
	cr_assert_str_eq(err.msg, want);
	px_problem_destroy(p);
	px_config_free(cfg);
}

Test(prox, refuses_the_delta_merit_and_other_friction_sets)
{
	refused_at_solve(
		"[solver]\nmerit = delta\n[accelerator]\nplugin = prox\n",
		"accelerator plugin 'prox' drives the solve: [solver] merit must be fc3d, natural or minmap, not delta (there are no sweeps)");
	refused_at_solve(
		"[solver]\nmerit = fc3d\n[friction]\nplugin = box\n[accelerator]\nplugin = prox\n",
		"accelerator plugin 'prox': prepare: supports the disc friction set on 3-row contacts only (friction plugin 'box', 3 rows per contact)");
}

Test(prox, bad_parameters_are_one_exact_message)
{
	config_refused("[accelerator]\nplugin = prox\nsigma = 0\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] sigma: '0' is out of range [1e-12, 1000000000000]");
	config_refused("[accelerator]\nplugin = prox\nnu = -1\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] nu: '-1' is out of range [0, 4]");
	config_refused("[accelerator]\nplugin = prox\nmax_inner = 0\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] max_inner: '0' is out of range [1, 10000]");
	config_refused("[accelerator]\nplugin = prox\ninner_tol = 2\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] inner_tol: '2' is out of range [0, 1]");
	config_refused("[accelerator]\nplugin = prox\nmemory = many\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] memory: 'many' is not an integer");
	config_refused("[accelerator]\nplugin = prox\nsigma = 1e-3\nsigma_min = 1e-2\n",
		PX_ERR_PLUGIN,
		"%s:2: [accelerator] plugin: %s/accelerator_prox.so: create failed: sigma_min = 0.01 exceeds sigma = 0.001");
}

/* proxima solve says how many steps a driving accelerator took (no
 * sweep), and its accelerator line gives the peak memory. */
Test(prox, the_command_reports_steps_and_peak)
{
	static char out[PX_CLI_OUT_MAX], err[PX_CLI_OUT_MAX];
	char dir[] = "/tmp/px_prox_XXXXXX", args[2048], file[1024];

	shared_problem("FrictionContact3D_1c.dat", file, sizeof file);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(args, sizeof args, "solve -c %s/conf/prox.ini %s",
		 PX_TEST_SRCDIR, file);
	cr_assert_eq(run_cli(dir, "", args, out, err), 0, "%s", err);
	remove_tree(dir);
	cr_assert(strstr(out, "\nresult      converged after 4 steps of the accelerator, no sweep\n"),
		  "%s", out);
	cr_assert(strstr(out, "\naccelerator prox: 4 calls (4 replaced the iterate), "),
		  "%s", out);
	cr_assert(strstr(out, "prox: 4 proximal steps, 4 Newton steps (4 line-search trials, 0 raised sigma)"),
		  "%s", out);
	cr_assert(strstr(out, "; KLU LU, 4 factorizations, 3 with the last pivots; peak "),
		  "%s", out);
	cr_assert(strstr(out, "; peak "), "%s", out);
}

/* Capsules-i122 solved with [solver] text over conf/prox.ini's settings,
 * from zero: its report, and lambda's fc3d error into *e. */
static void capsules(const char *text, struct px_report *rep, double *e)
{
	const struct px_config_layer l[] = {
		{PX_LAYER_FILE, PX_TEST_SRCDIR "/conf/prox.ini", NULL},
		{PX_LAYER_TEXT, text, "(test)"},
	};
	char file[4096];
	struct px_config *cfg;
	struct px_problem *p;
	struct px_error err = {0};
	double *x;

	cr_assert_eq(px_dat_read(shared_problem("Capsules-i122-1617.dat", file,
						sizeof file),
				 &p, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_eq(px_config_build(l, 2, &cfg, &err), PX_OK, "%s", err.msg);
	x = calloc(px_problem_n_contacts(p) * 3, sizeof *x);
	cr_assert_eq(px_solve(p, cfg, x, rep, &err), PX_OK, "%s", err.msg);
	*e = oracle_fc3d(p, x);
	free(x);
	px_config_free(cfg);
	px_problem_destroy(p);
}

/* The driver's stops hold between Newton steps: max_sweeps bounds the
 * steps, and a solve that ends so gets back the best iterate by prox's
 * merit (finish); a time limit stops after the step in which it passed. */
Test(prox, stops_between_newton_steps_with_the_best_iterate)
{
	struct px_report rep;
	double best = HUGE_VAL, e;

	capsules("[solver]\nmax_sweeps = 12\n", &rep, &e);
	cr_assert_not(rep.converged);
	cr_assert_eq(rep.stop, PX_STOP_MAX_SWEEPS);
	cr_assert_eq(rep.accel_steps, 12);
	cr_assert_eq(rep.n_accel, 13); /* the steps and finish */
	for (size_t i = 0; i < 12; i++)
		best = fmin(best, rep.accel[i].merit_out);
	cr_assert(rep.accel[12].finish);
	cr_assert_eq(rep.accel[12].merit_out, best);
	cr_assert_lt(e, 1e-2);
	px_report_free(&rep);
	capsules("[solver]\ntime_limit = 1e-9\n", &rep, &e);
	cr_assert_eq(rep.stop, PX_STOP_TIME_LIMIT);
	cr_assert_eq(rep.accel_steps, 1);
	px_report_free(&rep);
}

/* Either LU solves every shared problem to fc3d 1e-8 with the answers
 * checked by the oracles (a refactorization with stale pivots that gave
 * wrong directions would stall or fail the oracle). */
Test(prox, klu_and_umfpack_solve_every_shared_problem)
{
	static const char *const text[] = {
		"[accelerator]\nfactor = klu\n",
		"[accelerator]\nfactor = umfpack\n",
	};
	const char *const *files = shared_problem_files();

	for (size_t c = 0; c < 2; c++) {
		struct px_config *cfg = prox_config_with(text[c]);

		for (size_t i = 0; files[i]; i++) {
			char what[256], line[1024];
			struct px_problem *p = shared_problem_read(files[i]);

			snprintf(what, sizeof what, "%s, %s", files[i],
				 c ? "umfpack" : "klu");
			solves(p, cfg, what);
			px_problem_destroy(p);
			cr_assert(px_accelerator_describe(cfg, line,
							  sizeof line));
			cr_assert(strstr(line, c ? "; UMFPACK LU, " : "; KLU LU, "),
				  "%s: %s", what, line);
		}
		px_config_free(cfg);
	}
}

/* factor = auto: KLU on the Capsules (KLU's analysis estimates 1e5 flops
 * per factorization), its later steps with the last pivots; UMFPACK on
 * KaplasTower (3e7). */
Test(prox, auto_takes_klu_where_the_fill_is_small)
{
	static const struct {
		const char *file, *lu;
	} cases[] = {
		{"Capsules-i125-1213.hdf5", "KLU"},
		{"KaplasTower-i1061-4.hdf5.dat", "UMFPACK"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct px_config *cfg = prox_config_with("[solver]\n");
		struct px_problem *p = shared_problem_read(cases[i].file);
		double *x = calloc(px_problem_n_contacts(p) * 3, sizeof *x);
		struct px_report rep;
		struct px_error err = {0};
		char line[1024], want[64];
		unsigned long long all = 0, reused = 0;
		const char *at;

		cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s",
			     err.msg);
		cr_assert(rep.converged, "%s", cases[i].file);
		cr_assert(px_accelerator_describe(cfg, line, sizeof line));
		snprintf(want, sizeof want, "; %s LU, ", cases[i].lu);
		cr_assert(strstr(line, want), "%s: %s", cases[i].file, line);
		at = strstr(line, " LU, ");
		cr_assert(at && sscanf(at, " LU, %llu factorizations, %llu with the last pivots",
				       &all, &reused) == 2,
			  "%s", line);
		cr_assert_eq(all, rep.accel_steps, "%s", line);
		if (!strcmp(cases[i].lu, "KLU"))
			cr_assert_geq(2 * reused, all, "%s", line);
		else
			cr_assert_eq(reused, 0, "%s", line);
		px_report_free(&rep);
		free(x);
		px_problem_destroy(p);
		px_config_free(cfg);
	}
}

Test(prox, a_bad_factor_is_one_exact_message)
{
	config_refused("[accelerator]\nplugin = prox\nfactor = lu\n",
		       PX_ERR_CONFIG,
		       "%s:3: [accelerator] factor: 'lu' is not one of auto|klu|umfpack");
}

/* exact: once a proximal step's Newton steps solve the regularized
 * problem exactly (the contacts' states held), sigma falls 10x faster
 * than its rule. The answers are the same to fc3d 1e-8 (the oracles), in
 * fewer Newton steps: KaplasTower 8 instead of 13, FrictionContact3D_1c 4
 * instead of 6 (exact = 0: the rule alone). */
Test(prox, exact_proximal_steps_lower_sigma_faster)
{
	static const struct {
		const char *file;
		unsigned long long with, without;
	} cases[] = {
		{"FrictionContact3D_1c.dat", 4, 6},
		{"KaplasTower-i1061-4.hdf5.dat", 8, 13},
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		for (int off = 0; off < 2; off++) {
			struct px_config *cfg = prox_config_with(
				off ? "[accelerator]\nexact = 0\n" : "[solver]\n");
			struct px_problem *p = shared_problem_read(cases[i].file);
			double *x = calloc(px_problem_n_contacts(p) * 3, sizeof *x);
			struct px_report rep;
			struct px_error err = {0};

			cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK,
				     "%s", err.msg);
			cr_assert(rep.converged, "%s", cases[i].file);
			cr_assert_eq(rep.accel_steps,
				     off ? cases[i].without : cases[i].with,
				     "%s, exact %s: %llu Newton steps",
				     cases[i].file, off ? "0" : "1e-4",
				     (unsigned long long)rep.accel_steps);
			assert_solution(p, x, PROX_LAW_REL, 0.0, 1e-8,
					cases[i].file);
			px_report_free(&rep);
			free(x);
			px_problem_destroy(p);
			px_config_free(cfg);
		}
	}
}
