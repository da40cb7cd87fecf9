/* Configs built from layers (issue 30): later keys win, another plugin
 * drops the earlier layers' keys of its section, --set keys and installed
 * names, the INI of the config in effect reads back to the same config, and
 * the compiled defaults are conf/default.ini's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "helpers.h"

#define TEXT(t, name) {PX_LAYER_TEXT, t, name}
#define SET(t) {PX_LAYER_SET, t, NULL}
#define FILE_(t) {PX_LAYER_FILE, t, NULL}
#define N(a) (sizeof a / sizeof *a)

static struct px_config *build(const struct px_config_layer *l, size_t n)
{
	struct px_config *c = NULL;
	struct px_error err = {0};

	cr_assert_eq(px_config_build(l, n, &c, &err), PX_OK, "%s", err.msg);
	return c;
}

static void refused(const struct px_config_layer *l, size_t n, int code,
		    const char *want)
{
	struct px_config *c = (void *)1;
	struct px_error err = {0};

	cr_assert_eq(px_config_build(l, n, &c, &err), code, "%s", err.msg);
	cr_assert_null(c);
	cr_assert_str_eq(err.msg, want);
}

/* The value in effect of section.key, as INI text. */
static const char *value(const struct px_config *c, unsigned section,
			 const char *key)
{
	static char text[256];
	const struct px_param_decl *d;
	union px_value v[64];
	size_t n = px_config_params(c, section, &d, v, 64);

	cr_assert_leq(n, 64);
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].key, key) == 0) {
			cr_assert_eq(px_param_format(&d[i], &v[i], text,
						     sizeof text), 0);
			return text;
		}
	cr_assert_fail("no key %s in section %u", key, section);
	return NULL;
}

static const char *plugin(const struct px_config *c, unsigned kind)
{
	const struct px_plugin *pl = px_config_plugin(c, kind);

	return pl ? px_plugin_header(pl)->name : "none";
}

/* The config as INI, without its first line (where it came from). */
static char *ini(const struct px_config *c)
{
	char *buf = NULL, *body;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(px_config_write(c, f), 0);
	fclose(f);
	cr_assert_eq(strncmp(buf, "; the config in effect: ", 24), 0, "%s", buf);
	body = strdup(strchr(buf, '\n') + 1);
	free(buf);
	return body;
}

Test(layers, later_keys_win)
{
	const struct px_config_layer l[] = {
		TEXT("[solver]\nmax_sweeps = 7\nmerit = fc3d\n"
		     "[rfactor]\nplugin = local\nnu = 0.5\n", "a"),
		SET("solver.max_sweeps=1e5"),
		TEXT("[rfactor]\ngamma = 1.5\n", "b"),
		SET(" rfactor . nu = 0.25 "),
	};
	struct px_config *c = build(l, N(l));

	cr_assert_eq(px_config_settings(c)->max_sweeps, 100000);
	cr_assert_eq(px_config_settings(c)->merit, PX_MERIT_FC3D);
	cr_assert_str_eq(value(c, PX_KIND_RFACTOR, "nu"), "0.25");
	cr_assert_str_eq(value(c, PX_KIND_RFACTOR, "gamma"), "1.5");
	cr_assert_str_eq(px_config_source(c),
			 "a + --set solver.max_sweeps=1e5 + b + --set  rfactor . nu = 0.25 ");
	px_config_free(c);
}

/* A section without a plugin key sets the keys of the plugin in effect;
 * restating that plugin keeps the earlier keys; another plugin drops
 * them (they were the other plugin's: global has no nu). */
Test(layers, another_plugin_drops_the_earlier_keys)
{
	const struct px_config_layer same[] = {
		TEXT("[rfactor]\nnu = 0.5\n", "a"),
		TEXT("[rfactor]\nplugin = local\n", "b"),
	};
	const struct px_config_layer other[] = {
		TEXT("[rfactor]\nplugin = local\nnu = 0.5\n", "a"),
		SET("rfactor.plugin=global"),
	};
	const struct px_config_layer back[] = {
		SET("rfactor.nu=0.5"),
		SET("rfactor.plugin=global"),
		SET("rfactor.plugin=local"),
	};
	struct px_config *c = build(same, N(same));

	cr_assert_str_eq(value(c, PX_KIND_RFACTOR, "nu"), "0.5");
	px_config_free(c);
	c = build(other, N(other));
	cr_assert_str_eq(plugin(c, PX_KIND_RFACTOR), "global");
	px_config_free(c);
	c = build(back, N(back));
	cr_assert_str_neq(value(c, PX_KIND_RFACTOR, "nu"), "0.5");
	px_config_free(c);
}

Test(layers, a_key_set_twice_in_one_layer_is_refused)
{
	const struct px_config_layer l[] = {
		TEXT("[solver]\nmax_sweeps = 7\n", "a"),
		TEXT("[solver]\nmax_sweeps = 8\nmax_sweeps = 9\n", "b"),
	};

	refused(l, N(l), PX_ERR_CONFIG,
		"b:3: [solver] max_sweeps: set twice (first on line 2)");
}

Test(layers, set_refusals_name_the_option)
{
	const struct px_config_layer no_eq[] = {SET("solver.max_sweeps")};
	const struct px_config_layer no_dot[] = {SET("max_sweeps=5")};
	const struct px_config_layer section[] = {SET("solvr.max_sweeps=5")};
	const struct px_config_layer empty[] = {SET("solver.max_sweeps=")};
	const struct px_config_layer key[] = {SET("rfactor.mu=5")};
	const struct px_config_layer val[] = {SET("solver.max_sweeps=1.5")};
	const struct px_config_layer pl[] = {SET("friction.plugin=cone")};

	refused(no_eq, 1, PX_ERR_CONFIG,
		"--set solver.max_sweeps: expected SECTION.KEY=VALUE (such as rfactor.nu=0.9)");
	refused(no_dot, 1, PX_ERR_CONFIG,
		"--set max_sweeps=5: expected SECTION.KEY=VALUE (such as rfactor.nu=0.9)");
	refused(section, 1, PX_ERR_CONFIG,
		"--set solvr.max_sweeps=5: unknown section [solvr] (known: solver, friction, ordering, rfactor, scheduler, accelerator)");
	refused(empty, 1, PX_ERR_CONFIG, "--set solver.max_sweeps=: empty value");
	refused(key, 1, PX_ERR_CONFIG,
		"--set rfactor.mu=5: [rfactor] mu: unknown key for rfactor plugin 'local' (known keys: nu, gamma, growth)");
	refused(val, 1, PX_ERR_CONFIG,
		"--set solver.max_sweeps=1.5: [solver] max_sweeps: '1.5' is not an integer");
	{
		struct px_config *c = (void *)1;
		struct px_error err = {0};

		cr_assert_eq(px_config_build(pl, 1, &c, &err), PX_ERR_PLUGIN);
		const char *want =
			"--set friction.plugin=cone: [friction] plugin: friction plugin 'cone' not found: ";

		cr_assert_eq(strncmp(err.msg, want, strlen(want)), 0, "%s",
			     err.msg);
	}
}

/* -c NAME: a path when it looks like one, else conf/NAME.ini of the data
 * folders; a name found nowhere lists the installed configs. */
Test(layers, installed_names)
{
	char path[4096], want[4200], robust_path[4200];
	struct px_error err = {0};
	const struct px_config_layer robust[] = {FILE_("robust")};
	struct px_config *c;

	cr_assert_eq(px_config_find("robust", path, sizeof path, &err), PX_OK,
		     "%s", err.msg);
	snprintf(want, sizeof want, "%s/conf/robust.ini",
		 getenv("PROXIMA_DATA_DIR"));
	cr_assert_str_eq(path, want);
	strcpy(robust_path, want);
	cr_assert_eq(px_config_find("x/robust", path, sizeof path, &err), PX_OK);
	cr_assert_str_eq(path, "x/robust");
	cr_assert_eq(px_config_find("robust.ini", path, sizeof path, &err), PX_OK);
	cr_assert_str_eq(path, "robust.ini");
	cr_assert_eq(px_config_find("robustt", path, sizeof path, &err),
		     PX_ERR_IO);
	snprintf(want, sizeof want,
		 "config 'robustt' not found: no such file, and no robustt.ini in %s/conf, %s/conf (there: ",
		 getenv("PROXIMA_DATA_DIR"), PX_DATADIR);
	cr_assert_eq(strncmp(err.msg, want, strlen(want)), 0, "%s", err.msg);
	for (const char *const *w = (const char *const[]){
		     "default", "pgssm", "robust", "substeps", NULL};
	     *w; w++)
		cr_assert(strstr(err.msg + strlen(want), *w), "%s", err.msg);
	c = build(robust, 1);
	cr_assert_str_eq(px_config_source(c), robust_path);
	cr_assert_eq(px_config_settings(c)->local_solve, PX_LOCAL_NEWTON);
	px_config_free(c);
}

/* px_config_write's INI reads back to the same config: the same INI again,
 * every value bit for bit (0.1 and 1/3 are not decimal fractions). */
Test(layers, the_ini_of_a_config_reads_back_to_it)
{
	static const char *const shipped[] = {"default", "robust", "pgssm",
					      "substeps", NULL};

	for (const char *const *s = shipped; *s; s++) {
		const struct px_config_layer l[] = {
			FILE_(*s),
			SET("rfactor.gamma=0.1"),
			SET("solver.abs_tol=3.3333333333333334e-09"),
			SET("solver.check=on"),
		};
		struct px_config *c = build(l, N(l)), *back;
		char *text = ini(c), *again;
		const struct px_config_layer t[] = {TEXT(text, "written")};

		back = build(t, 1);
		again = ini(back);
		cr_assert_str_eq(again, text);
		cr_assert_eq(px_config_settings(back)->abs_tol, 1e-8 / 3);
		cr_assert_str_eq(value(back, PX_KIND_RFACTOR, "gamma"), "0.1");
		for (unsigned k = 0; k <= PX_KIND_ACCELERATOR; k++)
			cr_assert_str_eq(plugin(back, k), plugin(c, k));
		free(text);
		free(again);
		px_config_free(c);
		px_config_free(back);
	}
}

/* One default: the compiled defaults are the settings conf/default.ini
 * states (every key of every section). */
Test(layers, the_defaults_are_conf_default_ini)
{
	const struct px_config_layer l[] = {FILE_(PX_TEST_SRCDIR "/conf/default.ini")};
	struct px_config *d = build(NULL, 0), *f = build(l, 1);
	char *a = ini(d), *b = ini(f);

	cr_assert_str_eq(a, b);
	cr_assert_str_eq(px_config_source(d), "(defaults)");
	free(a);
	free(b);
	px_config_free(d);
	px_config_free(f);
}
