/* Config files: defaults, every section and key, and one exact error line
 * naming file, line, section and key for everything that is wrong. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxima/proxima.h>

#include "helpers.h"

static char path[64];

/* Write text to a fresh temporary file; its name is in `path`. */
static void write_ini(const char *text)
{
	write_temp_ini(text, path, sizeof path);
}

static const char *plugin_name(const struct px_config *c, unsigned kind)
{
	return px_plugin_header(px_config_plugin(c, kind))->name;
}

/* The back-tracking factor the config's rfactor plugin applies, read from
 * its behaviour: a sweep whose residual grew tenfold is rejected and r
 * multiplied by nu. */
static double backtrack_factor(const struct px_config *c)
{
	const struct px_plugin *pl = px_config_plugin(c, PX_KIND_RFACTOR);
	const struct px_rfactor_ops *ops = (const void *)px_plugin_header(pl);
	double r = 1.0;

	cr_assert_eq(ops->adapt(px_plugin_state(pl), 1.0, 10.0, &r, 1),
		     PX_SWEEP_REJECT);
	return r;
}

Test(config, defaults_without_a_file)
{
	struct px_config *c;
	const struct px_solver_settings *s;

	cr_assert_eq(px_config_read(NULL, &c, NULL), PX_OK);
	s = px_config_settings(c);
	cr_assert_eq(s->max_sweeps, 1000000);
	cr_assert_float_eq(s->abs_tol, 5e-9, 0);
	cr_assert_float_eq(s->rel_tol, 1e-12, 0);
	cr_assert_eq(s->merit, PX_MERIT_FC3D);
	cr_assert_str_eq(plugin_name(c, PX_KIND_FRICTION), "disc");
	cr_assert_str_eq(plugin_name(c, PX_KIND_ORDERING), "identity");
	cr_assert_str_eq(plugin_name(c, PX_KIND_RFACTOR), "local");
	cr_assert_str_eq(plugin_name(c, PX_KIND_SCHEDULER), "sequential");
	{ /* local's nu = 1: no back-tracking */
		const struct px_param_decl *d;
		union px_value v[3];

		cr_assert_eq(px_config_params(c, PX_KIND_RFACTOR, &d, v, 3), 3);
		cr_assert_str_eq(d[0].key, "nu");
		cr_assert_float_eq(v[0].r, 1.0, 0);
	}
	px_config_free(c);
}

Test(config, reads_every_section)
{
	struct px_config *c;
	struct px_error err = {0};
	const struct px_solver_settings *s;

	write_ini("; a comment\n"
		  "[solver]\nmax_sweeps = 77\nabs_tol = 1e-9\nrel_tol = 0\n"
		  "merit = delta\n\n"
		  "[friction]\nplugin = disc\n"
		  "[ordering]\nplugin = identity\n"
		  "[rfactor]\nplugin = local\nnu = 0.5 ; inline comment\n"
		  "[scheduler]\nplugin = sequential\n");
	cr_assert_eq(px_config_read(path, &c, &err), PX_OK, "%s", err.msg);
	s = px_config_settings(c);
	cr_assert_eq(s->max_sweeps, 77);
	cr_assert_float_eq(s->abs_tol, 1e-9, 0);
	cr_assert_float_eq(s->rel_tol, 0, 0);
	cr_assert_eq(s->merit, PX_MERIT_DELTA);
	cr_assert_str_eq(plugin_name(c, PX_KIND_RFACTOR), "local");
	cr_assert_float_eq(backtrack_factor(c), 0.5, 0); /* nu = 0.5 was read */
	px_config_free(c);
	unlink(path);
}

Test(config, absent_sections_take_defaults)
{
	struct px_config *c;
	struct px_error err = {0};

	write_ini("[solver]\nmax_sweeps = 5\n");
	cr_assert_eq(px_config_read(path, &c, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_config_settings(c)->max_sweeps, 5);
	cr_assert_float_eq(px_config_settings(c)->abs_tol, PX_DEFAULT_ABS_TOL, 0);
	cr_assert_str_eq(plugin_name(c, PX_KIND_FRICTION), "disc");
	px_config_free(c);
	unlink(path);
}

Test(config, the_shipped_default_config_reads)
{
	struct px_config *c;
	struct px_error err = {0};

	cr_assert_eq(px_config_read(PX_TEST_SRCDIR "/conf/default.ini", &c, &err),
		     PX_OK, "%s", err.msg);
	px_config_free(c);
}

Test(config, missing_file)
{
	struct px_config *c;
	struct px_error err = {0};

	cr_assert_eq(px_config_read("/nonexistent/x.ini", &c, &err), PX_ERR_IO);
	cr_assert_str_eq(err.msg,
			 "/nonexistent/x.ini: cannot open: No such file or directory");
}

Test(config, unknown_section)
{
	config_refused("[solver]\nmax_sweeps = 5\n[frction]\nplugin = disc\n",
		PX_ERR_CONFIG,
		"%s:3: unknown section [frction] (known: solver, friction, ordering, rfactor, scheduler, accelerator)");
}

Test(config, unknown_empty_section)
{
	config_refused("[bogus]\n", PX_ERR_CONFIG,
		"%s:1: unknown section [bogus] (known: solver, friction, ordering, rfactor, scheduler, accelerator)");
}

Test(config, unknown_solver_key)
{
	config_refused("[solver]\ntolerance = 1e-8\n", PX_ERR_CONFIG,
		"%s:2: [solver] tolerance: unknown key for the solver (known keys: max_sweeps, abs_tol, rel_tol, merit, natural_r, max_backtracks, check_tol, kernel, check, local_solve, local_tol, local_max_iter, local_forcing, time_limit, stall_sweeps, stall_rel)");
}

Test(config, unknown_plugin_key)
{
	config_refused("[friction]\nplugin = disc\nnu = 0.5\n", PX_ERR_CONFIG,
		"%s:3: [friction] nu: unknown key for friction plugin 'disc' (known keys: none)");
}

Test(config, wrong_type)
{
	config_refused("[solver]\nmax_sweeps = many\n", PX_ERR_CONFIG,
		"%s:2: [solver] max_sweeps: 'many' is not an integer");
	config_refused("[solver]\nmerit = best\n", PX_ERR_CONFIG,
		"%s:2: [solver] merit: 'best' is not one of delta|fc3d|natural|minmap");
}

/* An integer key takes any C notation that is exactly an integer: 1e5,
 * 2.5e3, 0x10, 1000e-3, and leading zeros as decimal; a fraction, a
 * negative exponent that leaves one, or a hexadecimal float is refused. */
Test(config, integers_in_exact_c_notation)
{
	static const struct {
		const char *text;
		uint64_t value;
	} ok[] = {
		{"1e5", 100000}, {"2.5e3", 2500}, {"0x10", 16},
		{"1000e-3", 1}, {"010", 10}, {"+7", 7}, {"1E+2", 100},
		{"1.000", 1}, {"1000000000000000", 1000000000000000},
	};
	static const char *const bad[] = {"1.5", "1e-3", "0x1p4", "1e", ".e1",
					  "0x", "1e400", "99999999999999999999"};

	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		char text[128];
		struct px_config *cfg;

		snprintf(text, sizeof text, "[solver]\nmax_sweeps = %s\n", ok[i].text);
		cfg = config_from_text(text);
		cr_assert_eq(px_config_settings(cfg)->max_sweeps, ok[i].value,
			     "%s read as %llu", ok[i].text,
			     (unsigned long long)px_config_settings(cfg)->max_sweeps);
		px_config_free(cfg);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[128], want[256];

		snprintf(text, sizeof text, "[solver]\nmax_sweeps = %s\n", bad[i]);
		snprintf(want, sizeof want,
			 "%%s:2: [solver] max_sweeps: '%s' is not an integer", bad[i]);
		config_refused(text, PX_ERR_CONFIG, want);
	}
}

Test(config, out_of_range)
{
	config_refused("[rfactor]\nplugin = local\nnu = 1.5\n", PX_ERR_CONFIG,
		"%s:3: [rfactor] nu: '1.5' is out of range [1e-06, 1]");
	config_refused("[solver]\nmax_sweeps = 0\n", PX_ERR_CONFIG,
		"%s:2: [solver] max_sweeps: '0' is out of range [1, 1e+15]");
	config_refused("[solver]\nabs_tol = -1\n", PX_ERR_CONFIG,
		"%s:2: [solver] abs_tol: '-1' is out of range [0, 1e+300]");
}

/* An unknown plugin names the search path and lists the kind's plugins
 * there; a path as a plugin name points to PROXIMA_PLUGIN_PATH. */
Test(config, missing_plugin)
{
	static const char *const shipped[] = {"box", "disc", "ellipsoid", NULL};
	struct px_config *cfg = (void *)1;
	struct px_error err = {0};
	char want[2048];

	write_ini("\n[friction]\nplugin = cone\n");
	snprintf(want, sizeof want,
		 "%s:3: [friction] plugin: friction plugin 'cone' not found: no friction_cone.so in %s:%s",
		 path, getenv("PROXIMA_PLUGIN_PATH"), px_plugin_dir());
	cr_assert_eq(px_config_read(path, &cfg, &err), PX_ERR_PLUGIN, "%s", err.msg);
	cr_assert_null(cfg);
	assert_not_found_listing(err.msg, want, shipped);
	unlink(path);
	config_refused("[friction]\nplugin = ./plugins/friction_disc.so\n", PX_ERR_PLUGIN,
		"%s:2: [friction] plugin: friction plugin name './plugins/friction_disc.so' is a path: put its folder in PROXIMA_PLUGIN_PATH and name the plugin by its word (friction_WORD.so is WORD)");
}

/* A section without a plugin key sets the keys of the plugin in effect
 * (the default's here; an earlier layer's when configs are layered). */
Test(config, section_without_plugin_key)
{
	struct px_config *c;
	struct px_error err = {0};

	write_ini("[ordering]\n[rfactor]\nnu = 0.5\n");
	cr_assert_eq(px_config_read(path, &c, &err), PX_OK, "%s", err.msg);
	cr_assert_str_eq(plugin_name(c, PX_KIND_ORDERING), "identity");
	cr_assert_float_eq(backtrack_factor(c), 0.5, 0);
	px_config_free(c);
	unlink(path);
	config_refused("[accelerator]\nk_pgs = 25\n", PX_ERR_CONFIG,
		"%s:2: [accelerator] k_pgs: unknown key for accelerator 'none' (no accelerator) (known keys: none)");
}

Test(config, plugin_set_twice)
{
	config_refused("[friction]\nplugin = disc\nplugin = disc\n", PX_ERR_CONFIG,
		"%s:3: [friction] plugin: set twice (first on line 2)");
}

Test(config, key_set_twice)
{
	config_refused("[solver]\nabs_tol = 1\nabs_tol = 2\n", PX_ERR_CONFIG,
		"%s:3: [solver] abs_tol: set twice (first on line 2)");
}

Test(config, key_outside_section)
{
	config_refused("abs_tol = 1\n", PX_ERR_CONFIG,
		"%s:1: key 'abs_tol' outside any section");
}

Test(config, syntax_error)
{
	config_refused("[solver]\nmax_sweeps = 5\nthis line is wrong\n", PX_ERR_CONFIG,
		"%s:3: syntax error (expected [section], key = value or a comment)");
	config_refused("[solver\n", PX_ERR_CONFIG,
		"%s:1: syntax error (expected [section], key = value or a comment)");
}

/* A file saved on Windows: a UTF-8 byte order mark, CRLF line ends and no
 * line end after the last line (core/ini_lines.c, as scene files). */
Test(config, bom_and_crlf)
{
	struct px_config *c;
	struct px_error err = {0};

	write_ini("\xEF\xBB\xBF[solver]\r\nmax_sweeps = 77\r\n; note\r\n"
		  "[rfactor]\r\nplugin = local\r\nnu = 0.5");
	cr_assert_eq(px_config_read(path, &c, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_config_settings(c)->max_sweeps, 77);
	cr_assert_float_eq(backtrack_factor(c), 0.5, 0);
	px_config_free(c);
	unlink(path);
	/* lines count the same, and the mark hides no section from the check */
	config_refused("\xEF\xBB\xBF[solver]\r\nmax_sweeps = 7\r\nmax_sweeps = 8\r\n",
		PX_ERR_CONFIG, "%s:3: [solver] max_sweeps: set twice (first on line 2)");
	config_refused("\xEF\xBB\xBF[bogus]\r\nx = 1\r\n", PX_ERR_CONFIG,
		"%s:1: unknown section [bogus] (known: solver, friction, ordering, rfactor, scheduler, accelerator)");
	/* inih's blanks are isspace's: "\f[bogus]" is a header to it */
	config_refused("\f[bogus]\nx = 1\n", PX_ERR_CONFIG,
		"%s:1: unknown section [bogus] (known: solver, friction, ordering, rfactor, scheduler, accelerator)");
}

/* A line of 198 bytes before its '\n' reads, one of 199 is refused, with
 * or without the '\n' (inih's 200-byte buffer holds the line, its '\n'
 * and a NUL): a CR before the '\n' is one of the 198. */
Test(config, line_too_long)
{
	char text[512], line[200];
	struct px_config *c;
	struct px_error err = {0};

	memset(line, 'x', sizeof line);
	line[0] = ';';
	snprintf(text, sizeof text, "[solver]\n%.198s\nmax_sweeps = 3\n", line);
	write_ini(text);
	cr_assert_eq(px_config_read(path, &c, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_config_settings(c)->max_sweeps, 3);
	px_config_free(c);
	unlink(path);
	snprintf(text, sizeof text, "[solver]\r\n%.198s\r\nmax_sweeps = 3\r\n",
		 line);
	config_refused(text, PX_ERR_CONFIG, "%s:2: line too long (at most 198 bytes)");
	snprintf(text, sizeof text, "[solver]\nmax_sweeps = 3\n%.199s", line);
	config_refused(text, PX_ERR_CONFIG, "%s:3: line too long (at most 198 bytes)");
}

Test(config, a_directory)
{
	struct px_config *c;
	struct px_error err = {0};
	char dir[] = "/tmp/px_test_dir_XXXXXX", want[128];

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(px_config_read(dir, &c, &err), PX_ERR_IO, "%s", err.msg);
	rmdir(dir);
	snprintf(want, sizeof want, "%s: cannot read: Is a directory", dir);
	cr_assert_str_eq(err.msg, want);
}
