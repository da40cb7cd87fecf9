/* The keys of one section of a scene file (scene_impl.h): declared and
 * typed for the core's px_params_parse, which gives unknown keys, keys set
 * twice and values of the wrong type the configs' very messages; lists of
 * numbers, positive values and missing keys get messages of the same form,
 * FILE:LINE: [SECTION] KEY: what is wrong (expected ...). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "scene.h"
#include "scene_impl.h"

void px_key_add(struct px_keys *c, const struct px_param_decl *d, size_t n)
{
	assert(c->nd + n <= PX_MAX_KEYS);
	memcpy(c->decl + c->nd, d, n * sizeof *d);
	c->nd += n;
}

/* The section's first setting of key (NULL if unset). */
const struct px_setting *px_key_find(const struct px_keys *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->set[i].key, key))
			return &c->set[i];
	return NULL;
}

const struct px_param_decl *px_key_decl(const struct px_keys *c,
					 const char *key, size_t *i)
{
	for (*i = 0; *i < c->nd; (*i)++)
		if (!strcmp(c->decl[*i].key, key))
			return &c->decl[*i];
	return NULL;
}

/* FILE:LINE: [SECTION] KEY: message, on the key's line (the header's when
 * the key is missing; without a key the message is the section's). -1. */
int px_key_bad(const struct px_keys *c, const struct px_setting *st,
		const char *key, const char *fmt, ...)
{
	char msg[PX_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	px_error_set(c->err, PX_ERR_CONFIG, "%s:%u: [%s]%s%s: %s", c->path,
		     st ? st->line : c->line, c->title, key ? " " : "",
		     key ? key : "", msg);
	return -1;
}

int px_key_missing(const struct px_keys *c, const char *key, const char *what)
{
	return px_key_bad(c, NULL, key, "missing (required for %s)", what);
}

/* Every key must be declared, set once and of its type; "unknown key for
 * OWNER". The section's functions return 0 or -1 (c->err says why). */
int px_key_parse(struct px_keys *c, const char *owner)
{
	return px_params_parse(c->decl, c->nd, c->set, c->n, c->title, owner,
			       c->v, c->err)
		   ? -1
		   : 0;
}

/* Getters: 1 if the key is set (its value in out), 0 if not, -1 if the
 * value is wrong. */
int px_key_real(const struct px_keys *c, const char *key, double *out)
{
	size_t i;

	if (!px_key_find(c, key) || !px_key_decl(c, key, &i))
		return 0;
	*out = c->v[i].r;
	return 1;
}

int px_key_positive(const struct px_keys *c, const char *key, double *out)
{
	const int rc = px_key_real(c, key, out);

	if (rc == 1 && !(*out > 0.0))
		return px_key_bad(
		    c, px_key_find(c, key), key,
		    "'%s' is not positive (expected a number > 0)",
		    px_key_find(c, key)->value);
	return rc;
}

/* "a, b, c": exactly n finite numbers (the declaration's help is the
 * expected form) */
int px_key_list(const struct px_keys *c, const char *key, size_t n,
		 double *out)
{
	const struct px_setting *st = px_key_find(c, key);
	const struct px_param_decl *d;
	const char *p;
	size_t i, k;

	if (!st || !(d = px_key_decl(c, key, &i)))
		return 0;
	p = st->value;
	for (k = 0; k < n; k++) {
		char *end;

		errno = 0;
		out[k] = strtod(p, &end);
		if (end == p || !isfinite(out[k]) || errno == ERANGE)
			break;
		p = end + strspn(end, " \t");
		if (k + 1 < n && *p++ != ',')
			break;
	}
	if (k < n || *p)
		return px_key_bad(
		    c, st, key, "'%s' is not %zu finite numbers (expected %s)",
		    st->value, n, d->help);
	return 1;
}

int px_key_plist(const struct px_keys *c, const char *key, size_t n,
		  double *out)
{
	const int rc = px_key_list(c, key, n, out);
	size_t i;

	for (size_t k = 0; rc == 1 && k < n; k++)
		if (!(out[k] > 0.0))
			return px_key_bad(
			    c, px_key_find(c, key), key,
			    "'%s' is not positive (expected %s, each > 0)",
			    px_key_find(c, key)->value,
			    px_key_decl(c, key, &i)->help);
	return rc;
}

/* "nx, ny, nz": three counts in [1, PX_SCENE_MAX_BODIES] */
int px_key_counts(const struct px_keys *c, const char *key, size_t out[3])
{
	double d[3];
	const int rc = px_key_list(c, key, 3, d);

	for (int k = 0; rc == 1 && k < 3; k++) {
		if (d[k] != floor(d[k]) || d[k] < 1 ||
		    d[k] > (double)PX_SCENE_MAX_BODIES)
			return px_key_bad(
			    c, px_key_find(c, key), key,
			    "'%s' is not 3 integers in [1, %zu] (expected nx, ny, nz)",
			    px_key_find(c, key)->value, PX_SCENE_MAX_BODIES);
		out[k] = (size_t)d[k];
	}
	return rc;
}

/* declared values (px_params_parse set the default of an unset key) */
long px_key_int(const struct px_keys *c, const char *key)
{
	size_t i;

	return px_key_decl(c, key, &i) ? c->v[i].i : 0;
}

int px_key_bool(const struct px_keys *c, const char *key)
{
	size_t i;

	return px_key_decl(c, key, &i) ? c->v[i].b : 0;
}
