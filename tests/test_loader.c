/* The plugin loader: a good plugin loads with its declared parameters; each
 * deliberately broken test-only plugin is refused with its exact message. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "helpers.h"

#define DIR PX_TEST_PLUGIN_DIR

static void use_test_plugins(void)
{
	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH", DIR, 1), 0);
}

/* Load friction plugin `name`; expect refusal with exactly `msg`. */
static void refused(const char *name, const char *msg)
{
	struct px_plugin *pl = (void *)1;
	struct px_error err = {0};

	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, name, NULL, 0, &pl, &err),
		     PX_ERR_PLUGIN, "%s loaded", name);
	cr_assert_null(pl);
	cr_assert_str_eq(err.msg, msg);
}

Test(loader, loads_good_plugin_with_defaults)
{
	struct px_plugin *pl;
	struct px_error err = {0};
	const struct px_plugin_header *h;

	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "good", NULL, 0, &pl, &err),
		     PX_OK, "%s", err.msg);
	h = px_plugin_header(pl);
	cr_assert_str_eq(h->name, "good");
	cr_assert_eq(h->kind, PX_KIND_FRICTION);
	cr_assert_str_eq(px_plugin_path(pl), DIR "/friction_good.so");
	{
		const struct {
			long count;
			double scale;
			int flag, mode;
			char label[32];
		} *s = px_plugin_state(pl);

		cr_assert_eq(s->count, 3);
		cr_assert_float_eq(s->scale, 0.5, 0);
		cr_assert_eq(s->flag, 0);
		cr_assert_eq(s->mode, 0);
		cr_assert_str_eq(s->label, "none");
	}
	px_plugin_unload(pl);
}

Test(loader, parses_every_parameter_type)
{
	const struct px_setting set[] = {
		{"count", "10", "x.ini", 2}, {"scale", "1e-3", "x.ini", 3},
		{"flag", "on", "x.ini", 4},  {"mode", "both", "x.ini", 5},
		{"label", "hello", "x.ini", 6},
	};
	struct px_plugin *pl;
	struct px_error err = {0};

	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "good", set, 5, &pl, &err),
		     PX_OK, "%s", err.msg);
	{
		const struct {
			long count;
			double scale;
			int flag, mode;
			char label[32];
		} *s = px_plugin_state(pl);

		cr_assert_eq(s->count, 10);
		cr_assert_float_eq(s->scale, 1e-3, 0);
		cr_assert_eq(s->flag, 1);
		cr_assert_eq(s->mode, 2);
		cr_assert_str_eq(s->label, "hello");
	}
	px_plugin_unload(pl);
}

static void bad_setting(const char *key, const char *value, const char *msg)
{
	const struct px_setting set[] = {{key, value, "x.ini", 7}};
	struct px_plugin *pl = (void *)1;
	struct px_error err = {0};

	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "good", set, 1, &pl, &err),
		     PX_ERR_CONFIG);
	cr_assert_null(pl);
	cr_assert_str_eq(err.msg, msg);
}

Test(loader, refuses_bad_values)
{
	bad_setting("count", "11",
		    "x.ini:7: [friction] count: '11' is out of range [1, 10]");
	bad_setting("count", "2.5",
		    "x.ini:7: [friction] count: '2.5' is not an integer");
	bad_setting("scale", "0",
		    "x.ini:7: [friction] scale: '0' is out of range [1e-09, 1]");
	bad_setting("scale", "nan",
		    "x.ini:7: [friction] scale: 'nan' is not a finite number");
	bad_setting("scale", "1x",
		    "x.ini:7: [friction] scale: '1x' is not a finite number");
	bad_setting("flag", "maybe",
		    "x.ini:7: [friction] flag: 'maybe' is not a boolean (true/false, yes/no, on/off, 1/0)");
	bad_setting("mode", "slow",
		    "x.ini:7: [friction] mode: 'slow' is not one of fast|exact|both");
	bad_setting("label", "", "x.ini:7: [friction] label: empty value");
	bad_setting("colour", "red",
		    "x.ini:7: [friction] colour: unknown key for friction plugin 'good' (known keys: count, scale, flag, mode, label)");
}

/* ABI 1.1 appended project_metric: a plugin built against 1.0 still loads. */
Test(loader, loads_abi_1_0_friction_plugin)
{
	struct px_plugin *pl;
	struct px_error err = {0};
	const struct px_plugin_header *h;

	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "abi10", NULL, 0, &pl, &err),
		     PX_OK, "%s", err.msg);
	h = px_plugin_header(pl);
	cr_assert_eq(h->abi_minor, 0);
	cr_assert_eq(h->ops_size, offsetof(struct px_friction_ops, project_metric));
	px_plugin_unload(pl);
}

/* ABI 1.4 appended doc to every ops struct: the host reads it from 1.4
 * plugins and never from older ones, whose ops end before it. */
Test(loader, reads_doc_only_from_abi_1_4_plugins)
{
	struct px_plugin *pl;
	struct px_error err = {0};

	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "good", NULL, 0, &pl, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_str_eq(px_plugin_doc(px_plugin_header(pl)),
			 "A test-only plugin.\n\nIt declares one parameter of every type.\n");
	px_plugin_unload(pl);
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "abi10", NULL, 0, &pl, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_null(px_plugin_doc(px_plugin_header(pl)));
	px_plugin_unload(pl);
	/* an ordering of ABI 1.3 (ops without doc) loads; the doc its
	 * struct happens to carry past ops_size is not read */
	cr_assert_eq(px_plugin_load(PX_KIND_ORDERING, "abi13", NULL, 0, &pl, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_eq(px_plugin_header(pl)->ops_size,
		     offsetof(struct px_ordering_ops, doc));
	cr_assert_null(px_plugin_doc(px_plugin_header(pl)));
	px_plugin_unload(pl);
	cr_assert_null(px_plugin_doc(NULL));
}

Test(loader, refuses_wrong_major)
{
	refused("badmajor", DIR "/friction_badmajor.so: ABI major version 2, expected 1");
}

Test(loader, refuses_newer_minor)
{
	char msg[512];

	snprintf(msg, sizeof msg,
		 "%s/friction_newminor.so: ABI minor version %u is newer than the host's %u",
		 DIR, PX_ABI_MINOR + 1, PX_ABI_MINOR);
	refused("newminor", msg);
}

Test(loader, refuses_wrong_kind)
{
	refused("wrongkind", DIR "/friction_wrongkind.so: kind 'ordering', expected 'friction'");
}

/* The host accepts friction ops as small as ABI 1.0's (no project_metric). */
Test(loader, refuses_short_ops)
{
	char msg[512];

	snprintf(msg, sizeof msg,
		 "%s/friction_shortops.so: ops size %zu bytes, expected at least %zu for kind 'friction'",
		 DIR, sizeof(struct px_plugin_header),
		 offsetof(struct px_friction_ops, project_metric));
	refused("shortops", msg);
}

/* The accelerator kind came with ABI 1.3: a plugin that claims it with an
 * older minor is refused. */
Test(loader, refuses_accelerator_of_abi_1_2)
{
	struct px_plugin *pl = (void *)1;
	struct px_error err = {0};

	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_ACCELERATOR, "abi12", NULL, 0, &pl,
				    &err),
		     PX_ERR_PLUGIN);
	cr_assert_null(pl);
	cr_assert_str_eq(err.msg, DIR "/accelerator_abi12.so: ABI 1.2 has no kind 'accelerator' (it came with 1.3)");
}

Test(loader, refuses_name_mismatch)
{
	refused("misnamed", DIR "/friction_misnamed.so: plugin name 'other', expected 'misnamed' (from the file name)");
}

Test(loader, refuses_missing_symbol)
{
	refused("nosymbol", DIR "/friction_nosymbol.so: no symbol 'px_plugin_query': not a proxima plugin");
}

Test(loader, reports_failing_create)
{
	refused("failcreate", DIR "/friction_failcreate.so: create failed: refusing on purpose");
}

Test(loader, reports_missing_plugin_with_search_path)
{
	char msg[4096];

	static const char *const here[] = {"failcreate", "good", "wrongkind", NULL};
	struct px_plugin *pl = (void *)1;
	struct px_error err = {0};

	snprintf(msg, sizeof msg,
		 "friction plugin 'absent' not found: no friction_absent.so in %s:%s",
		 DIR, px_plugin_dir());
	use_test_plugins();
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "absent", NULL, 0, &pl, &err),
		     PX_ERR_PLUGIN);
	cr_assert_null(pl);
	/* the friction plugins of the test folder are listed, no other kind's */
	assert_not_found_listing(err.msg, msg, here);
	cr_assert_null(strstr(err.msg, "badperm"), "%s", err.msg);
}

Test(loader, refuses_names_with_path_characters)
{
	refused("../disc", "friction plugin name '../disc' is a path: put its folder in PROXIMA_PLUGIN_PATH and name the plugin by its word (friction_WORD.so is WORD)");
	refused("disc.so", "friction plugin name 'disc.so' is not valid (a plain word without '/', '_' or '.')");
}

Test(loader, search_path_order_first_wins)
{
	struct px_plugin *pl;
	struct px_error err = {0};

	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH",
			    "/nonexistent:" PX_PLUGIN_BUILD_DIR ":" DIR, 1), 0);
	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "disc", NULL, 0, &pl, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_str_eq(px_plugin_path(pl), PX_PLUGIN_BUILD_DIR "/friction_disc.so");
	px_plugin_unload(pl);
}

struct seen {
	int good, disc, box, ellipsoid, refused;
};

static void on_plugin(const struct px_plugin_header *h, const char *path,
		      void *user)
{
	struct seen *s = user;

	(void)path;
	s->good += strcmp(h->name, "good") == 0 && h->kind == PX_KIND_FRICTION;
	s->disc += strcmp(h->name, "disc") == 0;
	s->box += strcmp(h->name, "box") == 0;
	s->ellipsoid += strcmp(h->name, "ellipsoid") == 0;
}

static void on_refused(const char *path, const char *msg, void *user)
{
	struct seen *s = user;

	(void)path;
	(void)msg;
	s->refused++;
}

Test(loader, foreach_lists_good_and_reports_refused)
{
	struct seen s = {0};

	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH", PX_PLUGIN_BUILD_DIR ":" DIR, 1),
		     0);
	cr_assert_eq(px_plugin_foreach(on_plugin, on_refused, &s, NULL), PX_OK);
	cr_assert_eq(s.good, 1);
	cr_assert_eq(s.disc, 1);
	cr_assert_eq(s.box, 1);
	cr_assert_eq(s.ellipsoid, 1);
	/* badmajor, newminor, wrongkind, shortops, misnamed, nosymbol and
	 * the accelerator of ABI 1.2; a plugin whose create fails is still
	 * listable */
	cr_assert_eq(s.refused, 7);
}

/* ---- in-process plugins (px_plugin_wrap, px_config_set_plugin) ------ */

/* An ordering given by the program: the reverse order, every sweep. */
struct reverse {
	size_t n;
	unsigned long calls, destroyed;
};

static int reverse_prepare(void *state, const struct px_problem_info *p,
			   uint32_t *perm, char *err, size_t errlen)
{
	struct reverse *s = state;

	(void)err;
	(void)errlen;
	s->n = p->n_contacts;
	for (size_t k = 0; k < s->n; k++)
		perm[k] = (uint32_t)(s->n - 1 - k);
	return 0;
}

static int reverse_next(void *state, const struct px_sweep_state *ss,
			uint32_t *perm, int *changed)
{
	struct reverse *s = state;

	(void)ss;
	(void)perm;
	(void)changed;
	s->calls++;
	return PX_PART_FULL;
}

static void reverse_destroy(void *state)
{
	((struct reverse *)state)->destroyed++;
}

static const struct px_ordering_ops reverse_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ORDERING,
		.ops_size = sizeof(struct px_ordering_ops),
		.name = "reverse",
		.summary = "the contacts in reverse order",
		.destroy = reverse_destroy,
	},
	.prepare = reverse_prepare,
	.next = reverse_next,
};

Test(loader, in_process_plugin_solves_and_writes_as_such)
{
	struct reverse s = {0};
	struct px_plugin *pl;
	struct px_config *c;
	struct px_problem *p;
	struct px_report rep = {0};
	struct px_error err = {0};
	char *text = NULL;
	size_t len = 0;
	double *lam;
	FILE *f;

	cr_assert_eq(px_plugin_wrap(&reverse_ops.h, &s, &pl, &err), PX_OK,
		     "%s", err.msg);
	cr_assert_null(px_plugin_path(pl));
	cr_assert_eq(px_plugin_state(pl), &s);
	cr_assert_eq(px_config_read(NULL, &c, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_config_set_plugin(c, pl, &err), PX_OK, "%s", err.msg);
	cr_assert_str_eq(px_config_source(c),
			 "(defaults) + ordering in-process:reverse");
	cr_assert_eq(px_problem_read(PX_TEST_SRCDIR "/scenes/two-boxes.dat",
				     &p, PX_FCLIB_R_NONE, NULL, &err),
		     PX_OK, "%s", err.msg);
	lam = calloc(px_problem_n_contacts(p) * 3, sizeof *lam);
	cr_assert_eq(px_solve(p, c, lam, &rep, &err), PX_OK, "%s", err.msg);
	cr_assert(rep.converged);
	cr_assert_eq(s.n, px_problem_n_contacts(p));
	cr_assert_eq(s.calls, rep.sweeps);
	f = open_memstream(&text, &len);
	cr_assert_eq(px_config_write(c, f), 0);
	fclose(f);
	cr_assert(strstr(text,
			 "\n[ordering]\n; given in-process by the program (the contacts in reverse order): no file holds it, reading this back fails here\nplugin = in-process:reverse\n\n[rfactor]\n"),
		  "%s", text);
	px_config_free(c);
	cr_assert_eq(s.destroyed, 1);
	{
		const struct px_config_layer l = {PX_LAYER_TEXT, text, "t.ini"};
		const char *at = strstr(text, "plugin = in-process:reverse");
		char msg[PX_ERROR_MSG_MAX];
		unsigned line = 1;

		for (const char *ch = text; ch < at; ch++)
			line += *ch == '\n';
		snprintf(msg, sizeof msg,
			 "t.ini:%u: [ordering] plugin: ordering plugin 'in-process:reverse' was given in-process by the program that wrote this config (from Python, a callable): no file holds it, so a config cannot load it; name a plugin file, or give it again from the program",
			 line);
		cr_assert_eq(px_config_build(&l, 1, &c, &err), PX_ERR_PLUGIN);
		cr_assert_null(c);
		cr_assert_str_eq(err.msg, msg);
	}
	free(text);
	free(lam);
	px_report_free(&rep);
	px_problem_destroy(p);
}

Test(loader, in_process_plugin_is_checked_like_a_file)
{
	struct px_ordering_ops o = reverse_ops;
	struct px_plugin *pl = (void *)1;
	struct px_error err = {0};
	char msg[PX_ERROR_MSG_MAX];

	o.h.abi_major = 2;
	cr_assert_eq(px_plugin_wrap(&o.h, NULL, &pl, &err), PX_ERR_PLUGIN);
	cr_assert_null(pl);
	cr_assert_str_eq(err.msg,
			 "in-process plugin 'reverse': ABI major version 2, expected 1");
	o = reverse_ops;
	o.h.ops_size = 8;
	cr_assert_eq(px_plugin_wrap(&o.h, NULL, &pl, &err), PX_ERR_PLUGIN);
	snprintf(msg, sizeof msg,
		 "in-process plugin 'reverse': ops size 8 bytes, expected at least %zu for kind 'ordering'",
		 offsetof(struct px_ordering_ops, doc));
	cr_assert_str_eq(err.msg, msg);
	o = reverse_ops;
	o.next = NULL;
	cr_assert_eq(px_plugin_wrap(&o.h, NULL, &pl, &err), PX_ERR_PLUGIN);
	cr_assert_str_eq(err.msg,
			 "in-process plugin 'reverse': a required ordering operation is missing");
	o = reverse_ops;
	o.h.name = "";
	cr_assert_eq(px_plugin_wrap(&o.h, NULL, &pl, &err), PX_ERR_PLUGIN);
	cr_assert_str_eq(err.msg,
			 "in-process plugin: its header needs a name of one line (at most 200 characters)");
}
