/* Test-only plugins, one variant per build flag, each broken in one way the
 * loader must refuse with an exact message (or, GOOD_PARAMS, a good plugin
 * declaring one parameter of every type). Never installed. */
#include <stddef.h>
#include <stdio.h>

#include <proxima/plugin.h>

#ifndef TEST_NAME
#error "TEST_NAME must be defined"
#endif

static void noop_project(const void *state, const struct px_friction_params *fp,
			 double lambda_n, double *z, uint32_t nf)
{
	(void)state;
	(void)fp;
	(void)lambda_n;
	(void)z;
	(void)nf;
}

#ifdef GOOD_PARAMS
static const struct px_param_decl params[] = {
	{"count", PX_PARAM_INT, "3", "an int in [1, 10]", 1, 10, NULL},
	{"scale", PX_PARAM_REAL, "0.5", "a real in (0, 1]", 1e-9, 1, NULL},
	{"flag", PX_PARAM_BOOL, "no", "a bool", 0, -1, NULL},
	{"mode", PX_PARAM_CHOICE, "fast", "a choice", 0, -1, "fast|exact|both"},
	{"label", PX_PARAM_STRING, "none", "a string", 0, -1, NULL},
};

struct state {
	long count;
	double scale;
	int flag, mode;
	char label[32];
};

static struct state last; /* test-only: what create saw, for inspection */

static int good_create(const union px_value *v, void **state, char *err,
		       size_t errlen)
{
	(void)err;
	(void)errlen;
	last.count = v[0].i;
	last.scale = v[1].r;
	last.flag = v[2].b;
	last.mode = v[3].choice;
	snprintf(last.label, sizeof last.label, "%s", v[4].s);
	*state = &last;
	return 0;
}
#endif

#ifdef FAIL_CREATE
static int fail_create(const union px_value *v, void **state, char *err,
		       size_t errlen)
{
	(void)v;
	(void)state;
	snprintf(err, errlen, "refusing on purpose");
	return -1;
}
#endif

static const struct px_friction_ops ops = {
	.h = {
#ifdef BAD_MAJOR
		.abi_major = PX_ABI_MAJOR + 1,
#else
		.abi_major = PX_ABI_MAJOR,
#endif
#ifdef NEW_MINOR
		.abi_minor = PX_ABI_MINOR + 1,
#elif defined ABI_1_0
		.abi_minor = 0,
#else
		.abi_minor = PX_ABI_MINOR,
#endif
#ifdef WRONG_KIND
		.kind = PX_KIND_ORDERING,
#else
		.kind = PX_KIND_FRICTION,
#endif
#ifdef SHORT_OPS
		.ops_size = sizeof(struct px_plugin_header),
#elif defined ABI_1_0
		/* a plugin built against ABI 1.0: its ops end before project_metric */
		.ops_size = offsetof(struct px_friction_ops, project_metric),
#else
		.ops_size = sizeof(struct px_friction_ops),
#endif
#ifdef NAME_MISMATCH
		.name = "other",
#else
		.name = TEST_NAME,
#endif
		.summary = "test-only plugin",
#ifdef GOOD_PARAMS
		.params = params,
		.n_params = sizeof params / sizeof *params,
		.create = good_create,
#endif
#ifdef FAIL_CREATE
		.create = fail_create,
#endif
	},
	.project = noop_project,
#ifdef GOOD_PARAMS
	.doc = "A test-only plugin.\n\nIt declares one parameter of every type.\n",
#endif
};

#ifdef NO_SYMBOL
PX_PLUGIN_EXPORT const struct px_plugin_header *not_the_query(void);

const struct px_plugin_header *not_the_query(void)
{
	return &ops.h;
}
#else
PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ops.h;
}
#endif
