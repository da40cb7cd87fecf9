/* The scene reader (scene.h): the INI file read with inih as the solver
 * configs are (core/ini_lines.c: our own line source counts whole lines and
 * reports the section headers, which inih does not), into sections
 * of settings; then the [world], then every other section in file order,
 * each parsed by scene_sections.c. Errors: FILE:LINE: message, the first
 * one wins. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/error.h>

#include "grow.h"
#include "ini_lines.h"
#include "scene.h"
#include "scene_impl.h"

#define MAX_LINE (PX_INI_LINE_MAX + 2) /* a line, its end and a NUL */

struct section {
	enum px_section_kind kind;
	char *title;	/* "body NAME" or "world", as in messages */
	size_t name_at; /* offset of NAME in title */
	unsigned line;
	size_t first, n; /* its entries (a section's keys follow its header) */
};

struct entry {
	char *key, *value;
	unsigned line;
};

struct reader {
	const char *path;
	unsigned line; /* being parsed */
	struct section *sec;
	size_t n_sec, sec_cap;
	long cur; /* section of the keys that follow, -1 after an error */
	struct entry *e;
	size_t n, ecap;
	struct px_error *err; /* first error wins */
};

/* The first error, at the line being read (ini_lines.h) */
#define fail(r, code, ...) \
	px_ini_fail((r)->err, (r)->path, (r)->line, code, __VA_ARGS__)

static int add_section(struct reader *r, enum px_section_kind k,
		       const char *title, size_t name_at)
{
	struct section *s;

	s = px_grow(r->sec, &r->sec_cap, r->n_sec, sizeof *s, 16);
	if (!s)
		return -1;
	r->sec = s;
	s += r->n_sec;
	s->title = strdup(title);
	if (!s->title)
		return -1;
	s->kind = k;
	s->name_at = name_at;
	s->line = r->line;
	s->first = s->n = 0;
	r->cur = (long)r->n_sec++;
	return 0;
}

/* The header [text] (core/ini_lines.c reports it: inih skips an empty
 * section and truncates a long name): a known kind, and a one-word name
 * that no other section has (the world has none and comes once). */
static void header(void *user, unsigned line, const char *text, size_t len)
{
	struct reader *r = user;
	char t[MAX_LINE], title[MAX_LINE];
	const char *ws = " \t";
	char *kind, *name, *end;
	size_t kl;
	int k;

	r->line = line;
	r->cur = -1;
	snprintf(t, sizeof t, "%.*s", (int)len, text);
	for (end = t + strlen(t); end > t && strchr(ws, end[-1]); end--)
		*(end - 1) = '\0';
	kind = t + strspn(t, ws);
	kl = strcspn(kind, ws);
	name = kind + kl + strspn(kind + kl, ws);
	for (k = 0; k < PX_SEC_KINDS; k++)
		if (strlen(px_scene_section_name(k)) == kl &&
		    !strncmp(kind, px_scene_section_name(k), kl))
			break;
	if (k == PX_SEC_KINDS) {
		fail(
		    r, PX_ERR_CONFIG,
		    "unknown section [%s] (known kinds: world, body, grid, pile, stack, wall, cardhouse, tower)",
		    kind);
		return;
	}
	if (k == PX_SEC_WORLD && *name) {
		fail(r, PX_ERR_CONFIG,
		     "[%s]: the world has no name (expected [world])", kind);
		return;
	}
	if (k != PX_SEC_WORLD && (!*name || name[strcspn(name, ws)])) {
		fail(r, PX_ERR_CONFIG,
		     "[%s]: %s (expected [%s NAME] with a one-word NAME)", kind,
		     *name ? "the name is not one word" : "no name",
		     px_scene_section_name(k));
		return;
	}
	snprintf(title, sizeof title, "%s%s%s", px_scene_section_name(k), *name ? " " : "",
		 name);
	for (size_t i = 0; i < r->n_sec; i++) {
		const struct section *o = &r->sec[i];

		if (k == PX_SEC_WORLD && o->kind == PX_SEC_WORLD) {
			fail(r, PX_ERR_CONFIG,
			     "[world]: repeated section (first on line %u)",
			     o->line);
			return;
		}
		if (k != PX_SEC_WORLD && o->kind != PX_SEC_WORLD &&
		    !strcmp(o->title + o->name_at, name)) {
			fail(
			    r, PX_ERR_CONFIG,
			    "[%s]: duplicate section name '%s' (first on line %u, [%s])",
			    title, name, o->line, o->title);
			return;
		}
	}
	if (add_section(r, (enum px_section_kind)k, title,
			k == PX_SEC_WORLD ? strlen(title)
					   : strlen(px_scene_section_name(k)) + 1))
		fail(r, PX_ERR_NOMEM, "out of memory");
}

static int on_value(void *user, unsigned line, const char *section,
		    const char *key, const char *value)
{
	struct reader *r = user;
	struct entry *e;

	r->line = line;
	if (!*section) {
		fail(r, PX_ERR_CONFIG, "key '%s' outside any section", key);
		return 1;
	}
	if (r->cur < 0)
		return 1; /* reported at its header */
	e = px_grow(r->e, &r->ecap, r->n, sizeof *r->e, 64);
	if (!e) {
		fail(r, PX_ERR_NOMEM, "out of memory");
		return 0;
	}
	r->e = e;
	e += r->n;
	e->line = r->line;
	e->key = strdup(key);
	e->value = strdup(value);
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		fail(r, PX_ERR_NOMEM, "out of memory");
		return 0;
	}
	if (!r->sec[r->cur].n++)
		r->sec[r->cur].first = r->n;
	r->n++;
	return 1;
}

/* The world first (its surface is every body's default), then the
 * bodies in file order. */
static int build(const struct reader *r, struct px_world_settings *s,
		 struct px_body_list *l)
{
	struct px_surface def = {0.5, 0.0, 0.0};
	struct px_setting *set = malloc((r->n + 1) * sizeof *set);
	int rc = 0;

	if (!set)
		return px_error_set(r->err, PX_ERR_NOMEM, "out of memory");
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (size_t i = 0; i < r->n_sec && !rc; i++) {
			const struct section *sec = &r->sec[i];
			struct px_keys c = {.path = r->path,
					     .title = sec->title,
					     .line = sec->line,
					     .set = set,
					     .n = sec->n,
					     .err = r->err};

			if ((sec->kind == PX_SEC_WORLD) != (pass == 0))
				continue;
			for (size_t k = 0; k < sec->n; k++) {
				const struct entry *e = &r->e[sec->first + k];

				set[k] = (struct px_setting){e->key, e->value,
							     r->path, e->line};
			}
			rc = px_scene_section(&c, sec->kind, s, &def, l);
		}
	free(set);
	if (rc)
		return r->err->code;
	if (!l->seen)
		return px_error_set(
		    r->err, PX_ERR_CONFIG,
		    "%s: no bodies (expected a [body], [grid], [pile], [stack], [wall], [cardhouse] or [tower] section)",
		    r->path);
	return PX_OK;
}

int px_scene_read(const char *path, struct px_world_settings *settings,
		   struct px_body **bodies, size_t *n_bodies,
		   struct px_error *err)
{
	return px_scene_read_region(path, settings, NULL, NULL, bodies,
				    n_bodies, err);
}

int px_scene_read_region(const char *path, struct px_world_settings *settings,
			 int (*keep)(void *ctx, const struct px_body *b,
				     size_t index),
			 void *ctx, struct px_body **bodies, size_t *n_bodies,
			 struct px_error *err)
{
	struct reader r = {.path = path, .cur = -1};
	struct px_ini ini = {.path = path,
			     .user = &r,
			     .section = header,
			     .value = on_value};
	struct px_error local = {0};
	struct px_body_list l = {.keep = keep, .ctx = ctx};
	struct px_world_settings s;
	FILE *f;
	int rc;

	*bodies = NULL;
	*n_bodies = 0;
	r.err = ini.err = err = err ? err : &local;
	err->code = PX_OK;
	f = fopen(path, "r");
	if (!f)
		return px_error_set(err, PX_ERR_IO, "%s: cannot open: %s", path,
				    strerror(errno));
	rc = px_ini_parse(&ini, f);
	fclose(f);
	if (!rc) {
		px_world_settings_default(&s);
		rc = build(&r, &s, &l);
	}
	for (size_t i = 0; i < r.n; i++) {
		free(r.e[i].key);
		free(r.e[i].value);
	}
	for (size_t i = 0; i < r.n_sec; i++)
		free(r.sec[i].title);
	free(r.e);
	free(r.sec);
	if (rc) {
		free(l.b);
		return rc;
	}
	*settings = s;
	*bodies = l.b;
	*n_bodies = l.n;
	return PX_OK;
}

int px_scene_load(const char *path, struct px_world **out,
		  struct px_error *err)
{
	struct px_world_settings s;
	struct px_body *bodies;
	struct px_world *w = NULL;
	size_t n;
	int rc = px_scene_read(path, &s, &bodies, &n, err);

	if (rc)
		return rc;
	rc = px_world_create(&s, &w, err);
	for (size_t i = 0; !rc && i < n; i++) {
		rc = px_world_add_body(w, bodies + i, NULL, err);
		if (rc) {
			/* the reader checked every key: the two disagree */
			char msg[PX_ERROR_MSG_MAX];

			snprintf(msg, sizeof msg, "%s", err->msg);
			px_error_set(err, rc, "%s: body %zu: %s", path, i, msg);
		}
	}
	free(bodies);
	if (rc) {
		px_world_destroy(w);
		return rc;
	}
	*out = w;
	return PX_OK;
}
