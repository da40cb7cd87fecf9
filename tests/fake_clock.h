/* An accelerator loaded from a file (ssn, pgssm) run under a fake clock:
 * an in-process accelerator (px_plugin_wrap) that calls the loaded one's
 * operations with a host whose time_left (plugin ABI 1.9) answers "time
 * left" to the first `allow` questions and "none" to every later one, and
 * counts them. A test then knows where inside a step the time ran out, on
 * any machine and under any load. */
#ifndef PX_TEST_FAKE_CLOCK_H
#define PX_TEST_FAKE_CLOCK_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <proxima/plugin.h>
#include <proxima/proxima.h>

#include "helpers.h"

struct fake_clock {
	struct px_config *owner; /* holds the loaded accelerator */
	const struct px_accelerator_ops *inner;
	void *state;
	uint64_t allow; /* questions answered with time left */
	uint64_t asked; /* questions so far */
};

static double fake_time_left(const void *ctx)
{
	struct fake_clock *c = (struct fake_clock *)ctx; /* the test's */

	return ++c->asked <= c->allow ? HUGE_VAL : 0.0;
}

static struct px_accel_host fake_host(struct fake_clock *c,
				      const struct px_accel_host *h)
{
	struct px_accel_host x = *h;

	x.time_left = fake_time_left;
	x.time_ctx = c;
	return x;
}

static int fake_prepare(void *state, const struct px_accel_host *h,
			uint64_t *every, char *err, size_t errlen)
{
	struct fake_clock *c = state;
	const struct px_accel_host x = fake_host(c, h);

	return c->inner->prepare(c->state, &x, every, err, errlen);
}

static void fake_step(void *state, const struct px_accel_host *h,
		      struct px_accel_result *res)
{
	struct fake_clock *c = state;
	const struct px_accel_host x = fake_host(c, h);

	c->inner->step(c->state, &x, res);
}

static void fake_finish(void *state, const struct px_accel_host *h,
			struct px_accel_result *res)
{
	struct fake_clock *c = state;
	const struct px_accel_host x = fake_host(c, h);

	if (c->inner->finish)
		c->inner->finish(c->state, &x, res);
}

static const struct px_accelerator_ops fake_clock_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "fake-clock",
		.summary = "a loaded accelerator under a fake clock",
	},
	.prepare = fake_prepare,
	.step = fake_step,
	.finish = fake_finish,
};

/* The config of text, whose [accelerator] is a plugin file, with that
 * accelerator under c's clock (c->allow and c->asked are the caller's to
 * set before each solve). Free it, then c->owner. */
static inline struct px_config *fake_clock_config(const char *text,
						  struct fake_clock *c)
{
	struct px_config *cfg = config_from_text(text);
	const struct px_plugin *pl;
	struct px_plugin *wrap;
	struct px_error err = {0};

	c->owner = config_from_text(text);
	pl = px_config_plugin(c->owner, PX_KIND_ACCELERATOR);
	cr_assert_not_null(pl, "%s: no [accelerator]", text);
	c->inner = (const void *)px_plugin_header(pl);
	c->state = px_plugin_state(pl);
	cr_assert_eq(px_plugin_wrap(&fake_clock_ops.h, c, &wrap, &err), PX_OK,
		     "%s", err.msg);
	cr_assert_eq(px_config_set_plugin(cfg, wrap, &err), PX_OK, "%s",
		     err.msg);
	return cfg;
}

/* After a solve under c's clock that ran out: it stopped on its time
 * limit after exactly `asked` questions (none after the answer "none
 * left"), leaving in x the lowest-merit iterate of its history. */
static inline void fake_clock_stopped(const struct fake_clock *c,
				      uint64_t asked,
				      const struct px_problem *p,
				      const double *x,
				      const struct px_report *rep)
{
	cr_assert_eq(rep->stop, PX_STOP_TIME_LIMIT, "%s",
		     px_stop_name(rep->stop));
	cr_assert_eq(c->asked, asked, "no question after the answer 'none left'");
	cr_assert_eq(rep->merit, lowest_merit(rep));
	cr_assert_eq(px_merit_fc3d(p, x, NULL), rep->merit);
}

/* A fake-clock test's config, c's owner of the loaded accelerator, the
 * two reports (unconstrained and limited), x and p, freed. */
static inline void fake_clock_free(struct fake_clock *c,
				   struct px_config *cfg,
				   struct px_report *ref,
				   struct px_report *rep, double *x,
				   struct px_problem *p)
{
	px_report_free(ref);
	px_report_free(rep);
	free(x);
	px_config_free(cfg);
	px_config_free(c->owner);
	px_problem_destroy(p);
}

#endif
