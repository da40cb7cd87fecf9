/* bench/profiles' child runner (bench/child.c, issue 33): a measurement's
 * output comes back from its child; a child that runs past its wall-clock
 * cap is killed there and reported as time, one that exhausts its memory
 * cap as memory, one that crashes as a crash; and a small problem's solve
 * under tiny limits is killed when it asks no clock, or stops by itself
 * under its own time_limit, as bench/profiles runs proxima's. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/child.h"
#include "helpers.h"

/* A sanitizer's allocator and signal handlers are not those the runner
 * classifies: the memory and crash tests are skipped under them. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

struct out {
	uint64_t pid;
	double x[4];
};

static int answer(void *ctx, void *out)
{
	struct out *o = out;

	o->pid = (uint64_t)getpid();
	for (int i = 0; i < 4; i++)
		o->x[i] = *(const double *)ctx * i;
	*(double *)ctx = -1.0; /* the child's copy only */
	return CHILD_OK;
}

Test(bench_child, output_comes_back)
{
	const struct child_caps caps = {10.0, 1.0};
	struct child_report rep;
	struct out o = {0};
	double scale = 1.5;

	cr_assert_eq(child_run(answer, &scale, &o, sizeof o, &caps, &rep), 0);
	cr_assert_eq(rep.why, CHILD_OK, "%s", child_why_name(rep.why));
	cr_assert_neq(o.pid, (uint64_t)getpid());
	cr_assert_eq(o.x[3], 4.5);
	cr_assert_eq(scale, 1.5, "the parent's memory is untouched");
	cr_assert_eq(rep.signal, 0);
	cr_assert_str_eq(child_why_name(rep.why), "-");
}

static int spin(void *ctx, void *out)
{
	volatile uint64_t n = 0;

	(void)ctx;
	(void)out;
	for (;;)
		n++;
	return CHILD_OK;
}

Test(bench_child, a_child_past_its_cap_is_killed_as_time)
{
	const struct child_caps caps = {0.2, 1.0};
	struct child_report rep;
	struct out o = {0};

	cr_assert_eq(child_run(spin, NULL, &o, sizeof o, &caps, &rep), 0);
	cr_assert_eq(rep.why, CHILD_TIME, "%s", child_why_name(rep.why));
	cr_assert_str_eq(child_why_name(rep.why), "time");
	cr_assert_eq(rep.signal, SIGKILL);
	cr_assert_geq(rep.killed_at, 0.2);
	cr_assert_geq(rep.seconds, rep.killed_at);
	cr_assert_lt(rep.seconds, 5.0, "%.3f s", rep.seconds);
	cr_assert_eq(o.pid, 0, "no output from a killed child");
}

/* 1 GiB at a time under a 256 MiB cap: the first malloc fails, and the
 * write through its NULL crashes right after it. */
static int hog(void *ctx, void *out)
{
	volatile char *volatile p = malloc((size_t)1 << 30);

	(void)ctx;
	(void)out;
	p[0] = 1;
	return CHILD_OK;
}

/* fn run in a child capped at mem_gib (10 s) ends by SIGSEGV, as why
 * (named name), into *rep. */
static void dies_as(child_fn fn, double mem_gib, int why, const char *name,
		    struct child_report *rep)
{
	const struct child_caps caps = {10.0, mem_gib};
	struct out o = {0};

	cr_assert_eq(child_run(fn, NULL, &o, sizeof o, &caps, rep), 0);
	cr_assert_eq(rep->why, why, "%s", child_why_name(rep->why));
	cr_assert_str_eq(child_why_name(rep->why), name);
	cr_assert_eq(rep->signal, SIGSEGV);
}

Test(bench_child, a_child_out_of_memory_is_memory)
{
	struct child_report rep;

	if (SANITIZED)
		cr_skip_test("a sanitizer's allocator");
	dies_as(hog, 0.25, CHILD_MEMORY, "memory", &rep);
	cr_assert_lt(rep.peak_mib, 256.0);
}

static int crash(void *ctx, void *out)
{
	(void)ctx;
	(void)out;
	errno = 0;
	raise(SIGSEGV);
	return CHILD_OK;
}

Test(bench_child, a_crash_is_a_crash)
{
	struct child_report rep;

	if (SANITIZED)
		cr_skip_test("a sanitizer's signal handlers");
	dies_as(crash, 1.0, CHILD_CRASH, "crash", &rep);
}

/* A solve of two-boxes.dat to an fc3d error of 0 (it never ends by
 * itself), as bench/profiles runs one. */
struct solve_job {
	struct px_problem *p;
	struct px_config *cfg;
};

static int solve_forever(void *ctx, void *out)
{
	const struct solve_job *j = ctx;
	double lambda[64] = {0};
	struct px_report rep;
	struct px_error err = {0};
	int *stop = out;

	if (px_solve(j->p, j->cfg, lambda, &rep, &err))
		return err.code == PX_ERR_NOMEM ? CHILD_MEMORY : CHILD_ERROR;
	*stop = rep.stop;
	px_report_free(&rep);
	return CHILD_OK;
}

Test(bench_child, small_problem_tiny_limits)
{
	struct solve_job j;
	struct child_caps caps = {0.2, 4.0};
	struct child_report rep;
	struct px_error err = {0};
	int stop = -1;

	if (SANITIZED) /* ASan's shadow memory does not fit RLIMIT_AS */
		cr_skip_test("a sanitizer's allocator");

	cr_assert_eq(px_problem_read(PX_TEST_SRCDIR "/scenes/two-boxes.dat", &j.p,
				     PX_FCLIB_R_NONE, NULL, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_leq(px_problem_n_contacts(j.p) * 3, 64);
	j.cfg = config_from_text("[solver]\nmerit = fc3d\nabs_tol = 0\n"
				 "max_sweeps = 1000000000000\nstall_sweeps = 0\n");
	/* no time_limit: the runner kills it at its cap */
	cr_assert_eq(child_run(solve_forever, &j, &stop, sizeof stop, &caps,
			       &rep), 0);
	cr_assert_eq(rep.why, CHILD_TIME, "%s", child_why_name(rep.why));
	cr_assert_geq(rep.seconds, 0.2);
	cr_assert_eq(stop, -1);
	/* time_limit = 0.1 under a cap of 5 s: it stops by itself, as
	 * 'time limit' */
	px_config_settings_mut(j.cfg)->time_limit = 0.1;
	caps.wall = 5.0;
	cr_assert_eq(child_run(solve_forever, &j, &stop, sizeof stop, &caps,
			       &rep), 0);
	cr_assert_eq(rep.why, CHILD_OK, "%s", child_why_name(rep.why));
	cr_assert_eq(stop, PX_STOP_TIME_LIMIT);
	cr_assert_lt(rep.seconds, 5.0);
	px_config_free(j.cfg);
	px_problem_destroy(j.p);
}
