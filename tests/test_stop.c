/* Stopping a solve well (issue 30, items 4 and 5; issue 33, item 3):
 * [solver] time_limit (between sweeps, or by an accelerator that finds no
 * time left; the lowest-merit iterate kept), the config's monitor, the
 * stagnation stop (stall_sweeps, stall_rel) and whether fc3d measures the
 * config's friction set; then the command: --time-limit on solve and run,
 * SIGINT and SIGTERM (the report and the outputs of what was reached,
 * exit 128 + the signal), and its stall and fc3d lines. No test relies on
 * a tight timing but one, which allows a slack of SLACK seconds: the
 * signals are sent once the command has said that it is armed (its header
 * on stdout), and the solves they stop never end by themselves. */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "one_contact.h"
#include "oracle.h"

/* Coulomb's law per contact (tests/oracle.h) at the converged solutions */
#define LAW_REL 1e-8

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A chain of n contacts whose normal rows couple as the 1-D Laplacian (2
 * on the diagonal, -1 to each neighbour), the friction rows the identity,
 * b_k = (-1, 0.3 (-1)^k, 0.2), mu = 0.5. Its solution is known:
 * lambda_n,k = (k + 1)(n - k) / 2, lambda_f,k = -b_f,k (sticking: far
 * inside the disc). Gauss-Seidel converges on it linearly at
 * cos^2(pi / (n + 1)) per sweep, 1 - 9.7e-4 for n = 100 and 1 - 1.1e-4 for
 * n = 300: a slow solve that neither stalls nor ends soon. */
static struct px_problem *chain(size_t n)
{
	size_t *rowptr = malloc((n + 1) * sizeof *rowptr);
	uint32_t *cols = malloc(3 * n * sizeof *cols);
	double *blocks = calloc(27 * n, sizeof *blocks), *b;
	struct px_problem *p;
	size_t q = 0;

	cr_assert(rowptr && cols && blocks);
	for (size_t k = 0; k < n; k++) {
		rowptr[k] = q;
		for (size_t j = k ? k - 1 : 0; j <= k + 1 && j < n; j++, q++) {
			double *blk = blocks + 9 * q;

			cols[q] = (uint32_t)j;
			blk[0] = j == k ? 2 : -1;
			if (j == k)
				blk[4] = blk[8] = 1;
		}
	}
	rowptr[n] = q;
	cr_assert_eq(px_problem_create(n, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, blocks, NULL),
		     PX_OK);
	b = px_problem_b(p);
	for (size_t k = 0; k < n; k++) {
		b[3 * k] = -1;
		b[3 * k + 1] = k % 2 ? -0.3 : 0.3;
		b[3 * k + 2] = 0.2;
		px_problem_friction(p)[k] =
			(struct px_friction_params){0.5, 0.5, 0.5, 0};
	}
	free(rowptr);
	free(cols);
	free(blocks);
	return p;
}

/* Solve p from zero with cfg into a new lambda; the report is the
 * caller's. */
static double *solve(const struct px_problem *p, const struct px_config *cfg,
		     struct px_report *rep)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	double *lambda = calloc(m, sizeof *lambda);
	struct px_error err = {0};

	cr_assert_not_null(lambda);
	cr_assert_eq(px_solve(p, cfg, lambda, rep, &err), PX_OK, "%s", err.msg);
	return lambda;
}

static int all_finite(const double *x, size_t m)
{
	for (size_t i = 0; i < m; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

/* The slow chain with a tolerance it needs ~275000 sweeps for: the limit
 * ends it between sweeps, at the first sweep that ends past it, with the
 * lowest-merit iterate those sweeps gave (the last, or the one after
 * best_sweep): bit for bit what that many sweeps give without a limit. */
Test(stop, time_limit_ends_between_sweeps)
{
	const double limit = 0.05;
	struct px_problem *p = chain(300);
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-13\nmax_sweeps = 1000000\n"
		"time_limit = 0.05\n");
	struct px_report rep, again;
	double *lambda = solve(p, cfg, &rep), *fixed;
	const size_t n = rep.n_history;
	uint64_t kept;

	cr_assert_eq(rep.stop, PX_STOP_TIME_LIMIT, "%s after %llu sweeps",
		     px_stop_name(rep.stop), (unsigned long long)rep.sweeps);
	cr_assert_str_eq(px_stop_name(rep.stop), "time limit");
	cr_assert(!rep.converged);
	cr_assert(rep.sweeps > 1 && rep.sweeps < 1000000);
	cr_assert_eq(n, rep.sweeps);
	/* the sweep that ended past the limit was the last one */
	cr_assert_geq(rep.history[n - 1].seconds, limit);
	cr_assert_lt(rep.history[n - 2].seconds, limit);
	cr_assert_geq(rep.seconds, limit);
	cr_assert(all_finite(lambda, 900));
	cr_assert_eq(rep.merit, lowest_merit(&rep));
	cr_assert_eq(rep.merit, px_merit_fc3d(p, lambda, NULL));
	cr_assert_lt(rep.best_sweep, rep.sweeps);
	kept = rep.best_sweep ? rep.best_sweep : rep.sweeps;
	/* as many sweeps without a limit: the same bits */
	px_config_settings_mut(cfg)->time_limit = 0;
	px_config_settings_mut(cfg)->max_sweeps = kept;
	fixed = solve(p, cfg, &again);
	cr_assert_eq(again.stop, PX_STOP_MAX_SWEEPS);
	cr_assert_eq(again.sweeps, kept);
	cr_assert_eq(memcmp(lambda, fixed, 900 * sizeof *lambda), 0);
	px_report_free(&rep);
	px_report_free(&again);
	free(lambda);
	free(fixed);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* cfg with the in-process accelerator ops (state st) in its section. */
static void use_accelerator(struct px_config *cfg,
			    const struct px_accelerator_ops *ops, void *st)
{
	struct px_plugin *pl;
	struct px_error err = {0};

	cr_assert_eq(px_plugin_wrap(&ops->h, st, &pl, &err), PX_OK, "%s",
		     err.msg);
	cr_assert_eq(px_config_set_plugin(cfg, pl, &err), PX_OK, "%s", err.msg);
}

/* An accelerator that spoils the iterate at its `at`-th call (lambda back
 * to the start, 0, which the driver keeps: it refuses only non-finite
 * ones) and says then that no time is left (PX_ACCEL_TIME_LIMIT, ABI
 * 1.9). */
struct spoiler {
	uint64_t calls, at; /* calls first: calls_prepare */
};

/* The test accelerators' prepare: a step after every sweep, the count of
 * calls (their state's first member) back to 0. */
static int calls_prepare(void *state, const struct px_accel_host *h,
			 uint64_t *every, char *err, size_t errlen)
{
	(void)h;
	(void)err;
	(void)errlen;
	*(uint64_t *)state = 0;
	*every = 1;
	return 0;
}

static void spoiler_step(void *state, const struct px_accel_host *h,
			 struct px_accel_result *res)
{
	struct spoiler *s = state;

	if (++s->calls < s->at)
		return;
	for (size_t i = 0; i < h->p->n_contacts * h->p->bs; i++)
		h->lambda[i] = 0.0;
	res->replaced = 1;
	res->flags |= PX_ACCEL_TIME_LIMIT;
}

static const struct px_accelerator_ops spoiler_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "spoiler",
		.summary = "spoils the iterate, then says the time ran out",
	},
	.prepare = calls_prepare,
	.step = spoiler_step,
};

/* An accelerator that finds no time left ends the solve there as a time
 * limit, whatever the driver's clock says, and the solve puts back the
 * lowest-merit iterate it saw, not the spoiled last one: bit for bit what
 * that many sweeps give without the accelerator. */
Test(stop, accelerator_out_of_time_ends_solve_with_best_iterate)
{
	struct px_problem *p = chain(100);
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-13\nmax_sweeps = 1000000\n"
		"time_limit = 1000\n");
	struct spoiler sp = {.at = 300};
	struct px_report rep, again;
	double *lambda, *fixed, low = HUGE_VAL;
	uint64_t argmin = 0;

	use_accelerator(cfg, &spoiler_ops, &sp);
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_TIME_LIMIT, "%s after %llu sweeps",
		     px_stop_name(rep.stop), (unsigned long long)rep.sweeps);
	cr_assert_eq(rep.sweeps, 300);
	cr_assert_eq(rep.accel_steps, 300);
	cr_assert(rep.accel[299].replaced &&
		  (rep.accel[299].flags & PX_ACCEL_TIME_LIMIT));
	cr_assert_lt(rep.seconds, 1000.0);
	for (size_t i = 0; i < rep.n_history; i++)
		if (rep.history[i].merit < low) {
			low = rep.history[i].merit;
			argmin = i + 1;
		}
	cr_assert_gt(rep.accel[299].merit, low, "the spoiled iterate is worse");
	cr_assert_eq(rep.best_sweep, argmin);
	cr_assert_eq(rep.merit, low);
	cr_assert_eq(px_merit_fc3d(p, lambda, NULL), low);
	px_config_free(cfg);
	cfg = config_from_text("[solver]\nmerit = fc3d\nabs_tol = 1e-13\n");
	px_config_settings_mut(cfg)->max_sweeps = argmin;
	fixed = solve(p, cfg, &again);
	cr_assert_eq(again.sweeps, argmin);
	cr_assert_eq(memcmp(lambda, fixed, 300 * sizeof *lambda), 0);
	px_report_free(&rep);
	px_report_free(&again);
	free(lambda);
	free(fixed);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* An accelerator that leaves lambda alone and asks to be called again
 * (PX_ACCEL_AGAIN, ABI 1.12) at its calls 1 to `again` (all of them when
 * `again` is 0), noting the stop test's merit it was told. */
struct repeater {
	uint64_t calls, again; /* calls first: calls_prepare */
	double merit_seen[64];
};

static void repeater_step(void *state, const struct px_accel_host *h,
			  struct px_accel_result *res)
{
	struct repeater *s = state;

	if (s->calls < 64)
		s->merit_seen[s->calls] = h->merit;
	if (++s->calls <= s->again || !s->again)
		res->flags |= PX_ACCEL_AGAIN;
}

static const struct px_accelerator_ops repeater_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "repeater",
		.summary = "asks to be called again, changes nothing",
	},
	.prepare = calls_prepare,
	.step = repeater_step,
};

/* Calls that ask again follow each other with no sweep between them, each
 * told the stop test's merit of the same iterate; the sweeps then go on
 * as if the calls had not been made (bit for bit the solve without an
 * accelerator). */
Test(stop, accelerator_again_runs_before_the_next_sweep)
{
	struct px_problem *p = chain(100);
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-13\nmax_sweeps = 20\n");
	struct repeater rp = {.again = 5};
	struct px_report rep, plain;
	double *lambda, *ref;

	ref = solve(p, cfg, &plain);
	use_accelerator(cfg, &repeater_ops, &rp);
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_MAX_SWEEPS, "%s", px_stop_name(rep.stop));
	cr_assert_eq(rep.sweeps, 20);
	cr_assert_eq(rep.accel_steps, 25);
	for (size_t i = 0; i < 6; i++) {
		cr_assert_eq(rep.accel[i].after_sweep, 1, "call %zu", i + 1);
		cr_assert_eq(rp.merit_seen[i], plain.history[0].merit);
	}
	for (size_t i = 6; i < 25; i++)
		cr_assert_eq(rep.accel[i].after_sweep, i - 4, "call %zu", i + 1);
	cr_assert_eq(rp.merit_seen[6], plain.history[1].merit);
	cr_assert_eq(memcmp(lambda, ref, 300 * sizeof *lambda), 0);
	px_report_free(&rep);
	px_report_free(&plain);
	free(lambda);
	free(ref);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* One that always asks again is held to max_sweeps calls in all: after
 * them, one call per sweep, as without the flag. */
Test(stop, accelerator_always_again_is_bounded)
{
	struct px_problem *p = chain(100);
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-13\nmax_sweeps = 30\n");
	struct repeater rp = {.again = 0};
	struct px_report rep;
	double *lambda;

	use_accelerator(cfg, &repeater_ops, &rp);
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_MAX_SWEEPS, "%s", px_stop_name(rep.stop));
	cr_assert_eq(rep.sweeps, 30);
	cr_assert_eq(rep.accel_steps, 30 + 29);
	cr_assert_eq(rep.accel[29].after_sweep, 1);
	cr_assert_eq(rep.accel[30].after_sweep, 2);
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* A slow config on a shared problem, Gauss-Seidel to an fc3d error of 0
 * on KaplasTower (570 contacts, some 0.3 ms a sweep): it stops within the
 * limit and a small slack, as 'time limit', with the lowest-merit iterate
 * it saw, whose fc3d error it reports. */
#define SLACK 0.25

Test(stop, slow_config_on_a_shared_problem_keeps_its_limit)
{
	const double limit = 0.3;
	char path[4096];
	struct px_problem *p;
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 0\nmax_sweeps = 1000000000\n"
		"stall_sweeps = 0\ntime_limit = 0.3\n"
		"[rfactor]\nplugin = local\nnu = 1\n");
	struct px_report rep;
	struct px_error err = {0};
	double *lambda;

	cr_assert_eq(px_problem_read(shared_problem("KaplasTower-i1061-4.hdf5.dat",
						    path, sizeof path),
				     &p, PX_FCLIB_R_NONE, NULL, &err),
		     PX_OK, "%s", err.msg);
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_TIME_LIMIT, "%s",
		     px_stop_name(rep.stop));
	cr_assert_geq(rep.seconds, limit);
	cr_assert_leq(rep.seconds, limit + SLACK, "%.3f s", rep.seconds);
	cr_assert_eq(rep.merit, lowest_merit(&rep));
	cr_assert_eq(px_merit_fc3d(p, lambda, NULL), rep.merit);
	cr_assert(rep.merit < 1e-3, "fc3d %g", rep.merit);
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* What a monitor saw, and when it asks to stop. */
struct watch {
	uint64_t calls, stop_at;
	double seconds;
	int bad; /* a call whose report was not the solve so far */
};

static int watch(const struct px_report *so_far, void *user)
{
	struct watch *w = user;

	w->calls++;
	w->bad |= so_far->sweeps != w->calls ||
		  so_far->n_history != so_far->sweeps ||
		  so_far->seconds < w->seconds ||
		  so_far->stop != PX_STOP_MAX_SWEEPS ||
		  so_far->residual != so_far->history[so_far->n_history - 1].residual;
	w->seconds = so_far->seconds;
	return w->stop_at && so_far->sweeps >= w->stop_at;
}

/* A monitor that asks to stop after sweep k: the solve ends there, bit for
 * bit the solve of max_sweeps = k, status interrupted; it saw the report
 * after every sweep. */
Test(stop, monitor_stops_after_exactly_k_sweeps)
{
	struct px_problem *p = chain(100);
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-12\nmax_sweeps = 1000000\n");
	struct watch w = {.stop_at = 777};
	struct px_report rep, fixed;
	double *lambda, *ref;
	void *user = NULL;

	cr_assert_null(px_config_monitor(cfg, &user));
	px_config_set_monitor(cfg, watch, &w);
	cr_assert_eq(px_config_monitor(cfg, &user), watch);
	cr_assert_eq(user, &w);
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_INTERRUPTED, "%s", px_stop_name(rep.stop));
	cr_assert_str_eq(px_stop_name(rep.stop), "interrupted");
	cr_assert_eq(rep.sweeps, 777);
	cr_assert_eq(w.calls, 777);
	cr_assert(!w.bad);
	px_config_set_monitor(cfg, NULL, NULL);
	cr_assert_null(px_config_monitor(cfg, &user));
	cr_assert_null(user);
	px_config_settings_mut(cfg)->max_sweeps = 777;
	ref = solve(p, cfg, &fixed);
	cr_assert_eq(fixed.stop, PX_STOP_MAX_SWEEPS);
	cr_assert_eq(memcmp(lambda, ref, 300 * sizeof *lambda), 0);
	for (size_t i = 0; i < 777; i++)
		cr_assert_eq(rep.history[i].residual, fixed.history[i].residual);
	px_report_free(&rep);
	px_report_free(&fixed);
	free(lambda);
	free(ref);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* A kept solver reads the monitor at each solve's start: one set after
 * px_solver_create stops the next solve. */
Test(stop, kept_solver_reads_the_monitor_per_solve)
{
	struct px_problem *p = chain(30);
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-12\nmax_sweeps = 100000\n");
	struct watch w = {.stop_at = 5};
	struct px_solver *sv;
	struct px_report rep;
	double lambda[90] = {0};

	cr_assert_eq(px_solver_create(p, cfg, &sv, NULL), PX_OK);
	px_config_set_monitor(cfg, watch, &w);
	cr_assert_eq(px_solver_solve(sv, lambda, &rep, NULL), PX_OK);
	cr_assert_eq(rep.stop, PX_STOP_INTERRUPTED);
	cr_assert_eq(rep.sweeps, 5);
	px_report_free(&rep);
	px_config_set_monitor(cfg, NULL, NULL);
	cr_assert_eq(px_solver_solve(sv, lambda, &rep, NULL), PX_OK);
	cr_assert_eq(rep.stop, PX_STOP_CONVERGED, "%s", px_stop_name(rep.stop));
	px_report_free(&rep);
	px_solver_destroy(sv);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* The box set with the fc3d merit on one contact: the sweeps reach the
 * box law's solution (textbook PGS on the dense A gives it too) and then
 * change nothing, while fc3d, which measures the disc law, stays far above
 * abs_tol. The solve ends stalled stall_sweeps sweeps after the iterate
 * came within the floor (rounding, then no change at all), with the same
 * lambda as 2000 sweeps give, and the merit it reports is that lambda's
 * fc3d error. */
Test(stop, box_law_with_fc3d_stalls)
{
	struct px_problem *p = shared_one_contact();
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-10\nmax_sweeps = 10000\n"
		"[friction]\nplugin = box\n");
	struct px_report rep, all;
	double *lambda = solve(p, cfg, &rep), *full, ref[3] = {0, 0, 0};
	const double floor = 1e-14 * fmax(fabs(lambda[0]),
					  fmax(fabs(lambda[1]), fabs(lambda[2])));
	size_t still = 0;

	cr_assert_eq(rep.stop, PX_STOP_STALLED, "%s after %llu sweeps",
		     px_stop_name(rep.stop), (unsigned long long)rep.sweeps);
	cr_assert_str_eq(px_stop_name(rep.stop), "stalled");
	cr_assert(!rep.converged);
	/* the last stall_sweeps (10) sweeps changed lambda by at most the
	 * floor, the one before by more; the last one by nothing */
	for (size_t i = rep.n_history;
	     i-- > 0 && rep.history[i].residual <= floor;)
		still++;
	cr_assert_eq(still, 10, "%zu sweeps within the floor of %llu", still,
		     (unsigned long long)rep.sweeps);
	cr_assert_eq(rep.residual, 0.0);
	cr_assert_lt(rep.sweeps, 40);
	/* its merit: lambda's fc3d error, by Siconos's formula and by ours */
	cr_assert_eq(rep.merit, px_merit_fc3d(p, lambda, NULL));
	cr_assert(oracle_agree(rep.merit, oracle_fc3d(p, lambda)),
		  "%g vs %g", rep.merit, oracle_fc3d(p, lambda));
	cr_assert_gt(rep.merit, 1e-4);
	/* the box law's solution */
	pgs_reference(p, ref, 200, 1);
	for (int i = 0; i < 3; i++)
		cr_assert_float_eq(lambda[i], ref[i], 1e-14 * fabs(ref[0]),
				   "row %d: %.17g vs %.17g", i, lambda[i], ref[i]);
	/* without the stall stop: every sweep runs, to the same bits */
	px_config_settings_mut(cfg)->stall_sweeps = 0;
	px_config_settings_mut(cfg)->max_sweeps = 2000;
	full = solve(p, cfg, &all);
	cr_assert_eq(all.stop, PX_STOP_MAX_SWEEPS);
	cr_assert_eq(all.sweeps, 2000);
	cr_assert_eq(memcmp(lambda, full, sizeof ref), 0);
	px_report_free(&rep);
	px_report_free(&all);
	free(lambda);
	free(full);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* The relative floor: on NESpheres, with conf/default.ini's r-factors,
 * the box law's sweeps settle to changes of a rounding unit or two, never
 * exactly 0. With stall_rel = 1e-14 the solve stops stalled; with
 * stall_rel = 0 (exact zeros only) it runs out its sweeps. */
Test(stop, stall_floor_catches_rounding_noise)
{
	char path[4096];
	struct px_problem *p;
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-10\nmax_sweeps = 3000\n"
		"[friction]\nplugin = box\n"
		"[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n");
	struct px_report rep;
	struct px_error err = {0};
	double *lambda, lmax = 0;
	size_t m;

	cr_assert_eq(px_dat_read(shared_problem("NESpheres_10_1.dat", path,
						sizeof path),
				 &p, &err),
		     PX_OK, "%s", err.msg);
	m = 3 * px_problem_n_contacts(p);
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_STALLED, "%s after %llu sweeps",
		     px_stop_name(rep.stop), (unsigned long long)rep.sweeps);
	cr_assert_lt(rep.sweeps, 200);
	for (size_t i = 0; i < m; i++)
		lmax = fmax(lmax, fabs(lambda[i]));
	cr_assert_gt(rep.residual, 0.0, "a change of exactly 0 tests nothing");
	cr_assert_leq(rep.residual, 1e-14 * lmax);
	px_report_free(&rep);
	free(lambda);
	px_config_settings_mut(cfg)->stall_rel = 0;
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_MAX_SWEEPS, "%s",
		     px_stop_name(rep.stop));
	cr_assert_eq(rep.sweeps, 3000);
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* Slow but real linear convergence is no stall: the chain of 100 at
 * 1 - 9.7e-4 per sweep reaches fc3d 1e-12 with the default stall test,
 * and its solution is the chain's. A floor 1e5 times the default would
 * have taken its last sweeps for a stall. */
Test(stop, slow_linear_convergence_is_no_stall)
{
	struct px_problem *p = chain(100);
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-12\nmax_sweeps = 1000000\n");
	struct px_report rep;
	double *lambda = solve(p, cfg, &rep);

	cr_assert_eq(rep.stop, PX_STOP_CONVERGED, "%s after %llu sweeps",
		     px_stop_name(rep.stop), (unsigned long long)rep.sweeps);
	cr_assert_gt(rep.sweeps, 10000, "%llu sweeps: not slow",
		     (unsigned long long)rep.sweeps);
	assert_solution(p, lambda, LAW_REL, 0.0, 1e-12, "chain");
	/* within 1e-8 of the largest, 1275 (fc3d 1e-12 on the smoothest
	 * mode, A's eigenvalue 9.7e-4, leaves ~1e-10 of it) */
	for (size_t k = 0; k < 100; k++)
		cr_assert_float_eq(lambda[3 * k], (k + 1.0) * (100.0 - k) / 2,
				   1e-8 * 1275, "contact %zu: %.17g", k,
				   lambda[3 * k]);
	px_report_free(&rep);
	free(lambda);
	px_config_settings_mut(cfg)->stall_rel = 1e-9;
	lambda = solve(p, cfg, &rep);
	cr_assert_eq(rep.stop, PX_STOP_STALLED, "%s after %llu sweeps",
		     px_stop_name(rep.stop), (unsigned long long)rep.sweeps);
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* fc3d measures the disc law: the disc plugin is it, box and ellipsoid
 * (which is the disc only on isotropic 3-row contacts) are not. */
Test(stop, fc3d_measures_the_disc_only)
{
	static const char *const text[] = {
		"[friction]\nplugin = disc\n",
		"[friction]\nplugin = box\n",
		"[friction]\nplugin = ellipsoid\n",
	};
	struct px_config *cfg;

	cr_assert_eq(px_config_read(NULL, &cfg, NULL), PX_OK);
	cr_assert_eq(px_config_friction_is_disc(cfg), 1);
	px_config_free(cfg);
	for (int i = 0; i < 3; i++) {
		cfg = config_from_text(text[i]);
		cr_assert_eq(px_config_friction_is_disc(cfg), i == 0, "%s",
			     text[i]);
		px_config_free(cfg);
	}
}

/* The new keys: their defaults, and a bad value named. */
Test(stop, keys_and_defaults)
{
	struct px_config *cfg;
	struct px_error err = {0};
	char path[32];

	cr_assert_eq(px_config_read(NULL, &cfg, NULL), PX_OK);
	cr_assert_eq(px_config_settings(cfg)->time_limit, 0.0);
	cr_assert_eq(px_config_settings(cfg)->stall_sweeps, 10);
	cr_assert_eq(px_config_settings(cfg)->stall_rel, 1e-14);
	px_config_free(cfg);
	write_temp_ini("[solver]\ntime_limit = -1\n", path, sizeof path);
	cr_assert_eq(px_config_read(path, &cfg, &err), PX_ERR_CONFIG);
	cr_assert(strstr(err.msg, ":2: [solver] time_limit: '-1' is out of range"),
		  "%s", err.msg);
	unlink(path);
}

/* ---- the command ---------------------------------------------------- */

static char out[PX_CLI_OUT_MAX], err_[PX_CLI_OUT_MAX];
static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/px_stop_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	remove_tree(dir);
}

TestSuite(stop_cli, .init = make_dir, .fini = remove_dir, .timeout = 60);

/* dir/name's path into path. */
static void in_dir(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
}

/* The chain of 300 as dir/chain.dat, and a config that never ends its
 * solve (no tolerance it can reach, no stall stop): dir/forever.ini. */
static void forever(char *problem, char *config, size_t len)
{
	struct px_problem *p = chain(300);

	in_dir("chain.dat", problem, len);
	cr_assert_eq(px_dat_write(problem, p, NULL), PX_OK);
	px_problem_destroy(p);
	write_file_in(dir, "forever.ini",
		      "[solver]\nmerit = fc3d\nabs_tol = 0\nmax_sweeps = 1000000000000\n"
		      "stall_sweeps = 0\n",
		      config, len);
}

/* Start `proxima ARGS` in the background, stdout and stderr into
 * dir/stdout and dir/stderr; its pid. */
static pid_t start(const char *args)
{
	const char *w = getenv("PX_TEST_WRAPPER");
	char cmd[8192];
	pid_t pid;

	snprintf(cmd, sizeof cmd, "exec %s %s %s >%s/stdout 2>%s/stderr",
		 w ? w : "", PX_CLI, args, dir, dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Wait until dir/stdout holds want (the command printed its header: it
 * is armed), at most 30 s. */
static void wait_for(const char *want)
{
	char path[128];

	in_dir("stdout", path, sizeof path);
	for (int i = 0; i < 3000; i++) {
		read_text(path, out, sizeof out);
		if (strstr(out, want))
			return;
		usleep(10000);
	}
	cr_assert_fail("no '%s' in the command's output: %s", want, out);
}

/* Wait for pid (at most 30 s, then kill it and fail); its exit status,
 * stdout in out, stderr in err_. */
static int finish(pid_t pid)
{
	char path[128];
	int st = 0;

	for (int i = 0; i < 3000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		cr_assert_fail("the command did not stop");
	}
	in_dir("stdout", path, sizeof path);
	read_text(path, out, sizeof out);
	in_dir("stderr", path, sizeof path);
	read_text(path, err_, sizeof err_);
	cr_assert(WIFEXITED(st), "it did not exit (signal %d)",
		  WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return WEXITSTATUS(st);
}

/* The N of "KEY N" in out, or fail. */
static unsigned long long number_after(const char *key)
{
	const char *at = strstr(out, key);

	cr_assert_not_null(at, "no '%s' in: %s", key, out);
	return strtoull(at + strlen(key), NULL, 10);
}

/* Lines of a file. */
static size_t lines_of(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c;

	cr_assert_not_null(f, "%s", path);
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* A signal during a solve that would never end: the report of the
 * iterate reached, the history of its sweeps, the solution those sweeps
 * give (bit for bit the same number of sweeps in the library), exit 128 +
 * the signal. */
static void signal_stops_solve(int sig)
{
	char problem[128], config[128], hist[128], sol[128], args[1024];
	struct px_problem *p = chain(300);
	struct px_config *cfg;
	struct px_report rep;
	unsigned long long sweeps;
	double *got, *ref;
	pid_t pid;

	forever(problem, config, sizeof problem);
	in_dir("h.csv", hist, sizeof hist);
	in_dir("x.txt", sol, sizeof sol);
	snprintf(args, sizeof args, "solve -c %s %s --history %s --out %s",
		 config, problem, hist, sol);
	pid = start(args);
	wait_for("config      ");
	cr_assert_eq(kill(pid, sig), 0);
	cr_assert_eq(finish(pid), 128 + sig, "%s%s", out, err_);
	sweeps = number_after("result      interrupted after ");
	cr_assert_geq(sweeps, 1);
	cr_assert(strstr(out, "fc3d error  "), "%s", out);
	cr_assert_eq(lines_of(hist), sweeps + 1, "the header and a row per sweep");
	got = read_solution(sol, 900);
	cr_assert(all_finite(got, 900));
	cfg = config_from_text("[solver]\nmerit = fc3d\nabs_tol = 0\nstall_sweeps = 0\n");
	px_config_settings_mut(cfg)->max_sweeps = sweeps;
	ref = solve(p, cfg, &rep);
	cr_assert_eq(memcmp(got, ref, 900 * sizeof *got), 0,
		     "--out is not the iterate of %llu sweeps", sweeps);
	px_report_free(&rep);
	free(got);
	free(ref);
	px_config_free(cfg);
	px_problem_destroy(p);
}

Test(stop_cli, sigint_stops_solve_with_its_report_and_outputs)
{
	signal_stops_solve(SIGINT);
}

Test(stop_cli, sigterm_stops_solve_with_its_report_and_outputs)
{
	signal_stops_solve(SIGTERM);
}

Test(stop_cli, time_limit_stops_solve)
{
	char problem[128], config[128], sol[128], args[1024];
	double t;
	pid_t pid;

	forever(problem, config, sizeof problem);
	in_dir("x.txt", sol, sizeof sol);
	snprintf(args, sizeof args, "solve -c %s %s --time-limit 0.2 --out %s",
		 config, problem, sol);
	t = wall();
	pid = start(args);
	cr_assert_eq(finish(pid), 1, "%s%s", out, err_);
	t = wall() - t;
	cr_assert_lt(t, 20.0, "%.1f s", t);
	cr_assert_geq(number_after("result      time limit (0.2 s) reached after "),
		      1, "%s", out);
	free(read_solution(sol, 900));
}

/* A scene that runs for long: the bundled default's 512 spheres, a
 * million steps. */
#define LONG_RUN "run " PX_TEST_SRCDIR "/scenes/default.ini --steps 1000000"

Test(stop_cli, time_limit_stops_run_after_its_step)
{
	char csv[128], state[128], args[1024];
	unsigned long long done;

	in_dir("steps.csv", csv, sizeof csv);
	in_dir("state.csv", state, sizeof state);
	snprintf(args, sizeof args, LONG_RUN " --time-limit 0.2 --csv %s --state %s",
		 csv, state);
	cr_assert_eq(finish(start(args)), 1, "%s%s", out, err_);
	done = number_after("result      time limit (0.2 s) reached after ");
	cr_assert(strstr(out, " of 1000000 steps\n"), "%s", out);
	cr_assert_eq(lines_of(csv), done + 1, "the header and a row per step");
	cr_assert_eq(lines_of(state), 513 + 1, "the header and a row per body");
}

Test(stop_cli, sigterm_stops_run_after_its_step)
{
	char csv[128], vtk[128], pvd[128], args[1024], text[65536];
	unsigned long long done;
	pid_t pid;

	in_dir("steps.csv", csv, sizeof csv);
	in_dir("vtk", vtk, sizeof vtk);
	snprintf(args, sizeof args, LONG_RUN " --csv %s --vtk %s --vtk-every 1000",
		 csv, vtk);
	pid = start(args);
	wait_for("config      ");
	cr_assert_eq(kill(pid, SIGTERM), 0);
	cr_assert_eq(finish(pid), 143, "%s%s", out, err_);
	done = number_after("result      interrupted after ");
	cr_assert(strstr(out, " of 1000000 steps (SIGTERM)\n"), "%s", out);
	cr_assert_eq(lines_of(csv), done + 1, "the header and a row per step");
	/* the index of the frames written: step 0's */
	in_dir("vtk/frames.pvd", pvd, sizeof pvd);
	read_text(pvd, text, sizeof text);
	cr_assert(strstr(text, "file=\"frame_000000.vtp\""), "%s", text);
	cr_assert(strstr(text, "</VTKFile>"), "%s", text);
}

Test(stop_cli, bad_time_limit_is_one_line)
{
	static const char *const bad[] = {"x", "0", "-1", "inf", "1s"};
	char args[256], want[256];

	for (int i = 0; i < 5; i++) {
		snprintf(args, sizeof args, "solve --time-limit %s %s", bad[i],
			 PX_TEST_SRCDIR "/scenes/two-boxes.dat");
		cr_assert_eq(run_cli(dir, "", args, out, err_), 2);
		snprintf(want, sizeof want,
			 "proxima solve: --time-limit '%s': expected seconds > 0\n",
			 bad[i]);
		cr_assert_str_eq(err_, want);
		snprintf(args, sizeof args, "run --time-limit %s", bad[i]);
		cr_assert_eq(run_cli(dir, "", args, out, err_), 2);
		snprintf(want, sizeof want,
			 "proxima run: --time-limit '%s': expected seconds > 0\n",
			 bad[i]);
		cr_assert_str_eq(err_, want);
	}
}

/* The box set with merit = fc3d: a warning before the solve, the stall
 * and its merit on the result line, and the fc3d line saying which law
 * it measures; exit 1. */
Test(stop_cli, box_with_fc3d_says_stalled_and_which_law)
{
	static const char stalled[] =
		"result      stalled at a fixed point the merit does not accept (fc3d ";
	char config[128], args[1024];
	const char *result, *fc3d;

	write_file_in(dir, "box.ini",
		      "[solver]\nmerit = fc3d\nabs_tol = 1e-10\n[friction]\nplugin = box\n",
		      config, sizeof config);
	snprintf(args, sizeof args, "solve -c %s %s", config,
		 PX_TEST_SRCDIR "/scenes/two-boxes.dat");
	cr_assert_eq(run_cli(dir, "", args, out, err_), 1, "%s%s", out, err_);
	cr_assert_str_eq(err_, "proxima: warning: merit = fc3d measures the Coulomb disc law, not this config's box set: its solutions may keep an fc3d error above abs_tol (the solve then stops as stalled); merit = natural measures the set's own law\n");
	result = strstr(out, stalled);
	fc3d = strstr(out, "fc3d error  ");
	cr_assert(result && fc3d, "%s", out);
	/* the merit on the result line is the fc3d error of the solution */
	cr_assert_eq(strncmp(result + strlen(stalled), fc3d + 12, 9), 0, "%s",
		     out);
	cr_assert(strstr(fc3d, " (of the Coulomb disc law, not this config's box set; ||F|| = "),
		  "%s", out);
}
