/* The manual pages cannot drift from the code: every key that a built
 * plugin, the core's [solver] section and the scene reader declare is
 * documented in doc/proxima.conf.5, in its own subsection (.SS "[KIND]
 * plugin = NAME", .SS "[solver]", .SS "[world]", .SS "[body NAME]", ...)
 * as a tag .BI "KEY = " VALUE, and no subsection documents a key that does
 * not exist. The plugins' and [solver]'s subsections are generated from
 * the declarations (tools/reference.sh; tests/reference.sh keeps the page
 * current), the scene files' are written by hand in doc/proxima.conf.5.in. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "../sim/scene.h"

#define CONF5 PX_TEST_SRCDIR "/doc/proxima.conf.5"

static char page[262144];

static void load_page(void)
{
	FILE *f = fopen(CONF5, "r");
	size_t n;

	cr_assert_not_null(f, "cannot open %s", CONF5);
	n = fread(page, 1, sizeof page - 1, f);
	fclose(f);
	cr_assert_lt(n, sizeof page - 1, "%s is too long for the test", CONF5);
	page[n] = '\0';
}

/* The subsection .SS "TITLE" up to the next .SS or .SH, copied into buf;
 * fails the test when the page has none. */
static void subsection(const char *title, char *buf, size_t len)
{
	char head[256];
	const char *at, *end, *sh;

	snprintf(head, sizeof head, "\n.SS \"%s\"\n", title);
	at = strstr(page, head);
	cr_assert_not_null(at, "%s has no subsection %s", CONF5, head + 1);
	at += strlen(head) - 1;
	end = strstr(at, "\n.SS ");
	sh = strstr(at, "\n.SH ");
	if (!end || (sh && sh < end))
		end = sh;
	if (!end)
		end = at + strlen(at);
	cr_assert_lt((size_t)(end - at), len);
	memcpy(buf, at, (size_t)(end - at));
	buf[end - at] = '\0';
}

/* Every key of keys[] is a tag of the subsection, and every tag of the
 * subsection is one of keys[]. */
static void check_section(const char *title, const char *const *keys,
			  size_t n)
{
	static char sec[65536];
	const char *at;

	subsection(title, sec, sizeof sec);
	for (size_t i = 0; i < n; i++) {
		char tag[128];

		snprintf(tag, sizeof tag, "\n.BI \"%s = \"", keys[i]);
		cr_expect_not_null(strstr(sec, tag),
				   "%s: %s key '%s' is not documented (expected a tag .BI \"%s = \" ... in .SS \"%s\")",
				   CONF5, title, keys[i], keys[i], title);
	}
	for (at = strstr(sec, "\n.BI \""); at; at = strstr(at + 1, "\n.BI \"")) {
		const char *key = at + 6, *eq = strstr(key, " = \"");
		const char *nl = strchr(key, '\n');
		int known = 0;

		if (!eq || (nl && nl < eq))
			continue;
		for (size_t i = 0; i < n && !known; i++)
			known = strlen(keys[i]) == (size_t)(eq - key) &&
				strncmp(key, keys[i], strlen(keys[i])) == 0;
		cr_expect(known, "%s: .SS \"%s\" documents '%.*s', which is no key of it",
			  CONF5, title, (int)(eq - key), key);
	}
}

static void check_decls(const char *title, const struct px_param_decl *d,
			size_t n)
{
	const char *keys[64];

	cr_assert_leq(n, 64);
	for (size_t i = 0; i < n; i++)
		keys[i] = d[i].key;
	check_section(title, keys, n);
}

struct seen {
	int plugins;
};

/* Only the plugins of this build: the installed directory, also on the
 * search path, may hold others. */
static void on_plugin(const struct px_plugin_header *h, const char *path,
		      void *user)
{
	struct seen *s = user;
	char title[256];

	if (strncmp(path, PX_PLUGIN_BUILD_DIR "/",
		    strlen(PX_PLUGIN_BUILD_DIR) + 1) != 0)
		return;
	snprintf(title, sizeof title, "[%s] plugin = %s",
		 px_kind_name(h->kind), h->name);
	check_decls(title, h->params, h->n_params);
	s->plugins++;
}

Test(man, every_plugin_key_is_in_proxima_conf_5)
{
	struct seen s = {0};

	load_page();
	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH", PX_PLUGIN_BUILD_DIR, 1), 0);
	cr_assert_eq(px_plugin_foreach(on_plugin, NULL, &s, NULL), PX_OK);
	cr_assert_geq(s.plugins, 16, "found %d built plugins", s.plugins);
}

Test(man, every_solver_key_is_in_proxima_conf_5)
{
	const struct px_param_decl *d;
	size_t n;

	load_page();
	d = px_config_solver_params(&n);
	check_decls("[solver]", d, n);
}

Test(man, every_scene_key_is_in_proxima_conf_5)
{
	unsigned k;

	load_page();
	for (k = 0; px_scene_section_name(k); k++) {
		const char *keys[64];
		const size_t n = px_scene_section_keys(k, keys, 64);
		char title[64];

		cr_assert_gt(n, 0);
		cr_assert_lt(n, 64);
		snprintf(title, sizeof title,
			 strcmp(px_scene_section_name(k), "world") ? "[%s NAME]"
								   : "[%s]",
			 px_scene_section_name(k));
		check_section(title, keys, n);
	}
	cr_assert_eq(k, 8, "scene section kinds: %u", k);
}
