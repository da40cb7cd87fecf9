/* Declared, typed parameters: parse an INI value by its declaration
 * (int, real, bool, choice, string), check its range, and name the file,
 * line, section and key of anything wrong. doc/style.md, rule 11: named
 * parameters, not positional iparam/dparam slots. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params.h"

const char *px_param_type_name(enum px_param_type t)
{
	switch (t) {
	case PX_PARAM_INT: return "int";
	case PX_PARAM_REAL: return "real";
	case PX_PARAM_BOOL: return "bool";
	case PX_PARAM_CHOICE: return "choice";
	case PX_PARAM_STRING: return "string";
	}
	return "?";
}

static int choice_index(const char *choices, const char *word)
{
	size_t len = strlen(word);
	int idx = 0;

	for (const char *c = choices; c && *c; idx++) {
		const char *bar = strchr(c, '|');
		size_t wl = bar ? (size_t)(bar - c) : strlen(c);

		if (wl == len && strncmp(c, word, len) == 0)
			return idx;
		if (!bar)
			break;
		c = bar + 1;
	}
	return -1;
}

static int parse_bool(const char *s, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = 1;
			return 1;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = 0;
			return 1;
		}
	}
	return 0;
}

/* An integer key's value in C notation when it is exactly an integer: a
 * decimal or 0x hexadecimal integer constant (leading zeros are decimal,
 * not octal: "010" is 10), or a decimal floating constant whose value is a
 * whole number, such as 1e5 or 2.5e3 (1.5 and 1e-3 are refused, as is
 * anything past the range of long). Returns 0 with *out set, or -1. */
static int parse_exact_long(const char *text, long *out)
{
	const char *c = text;
	int neg = 0, exp_neg = 0;
	long exp = 0, frac = 0; /* digits after the point */
	unsigned long long mant = 0;
	int digits = 0;
	char *end;

	if (*c == '+' || *c == '-')
		neg = *c++ == '-';
	if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
		if (!isxdigit((unsigned char)c[2]))
			return -1;
		errno = 0;
		mant = strtoull(c + 2, &end, 16);
		if (*end || errno)
			return -1;
		goto whole;
	}
	for (; isdigit((unsigned char)*c); c++, digits++) {
		if (mant > (ULLONG_MAX - 9) / 10)
			return -1;
		mant = 10 * mant + (unsigned long long)(*c - '0');
	}
	if (*c == '.')
		for (c++; isdigit((unsigned char)*c); c++, digits++, frac++) {
			if (mant > (ULLONG_MAX - 9) / 10)
				return -1;
			mant = 10 * mant + (unsigned long long)(*c - '0');
		}
	if (!digits)
		return -1;
	if (*c == 'e' || *c == 'E') {
		c++;
		if (*c == '+' || *c == '-')
			exp_neg = *c++ == '-';
		if (!isdigit((unsigned char)*c))
			return -1;
		for (; isdigit((unsigned char)*c); c++)
			if ((exp = 10 * exp + (*c - '0')) > 100)
				return -1;
	}
	if (*c)
		return -1;
	exp = (exp_neg ? -exp : exp) - frac;
	for (; exp < 0; exp++) { /* trailing zeros only */
		if (mant % 10)
			return -1;
		mant /= 10;
	}
	for (; exp > 0; exp--) {
		if (mant > ULLONG_MAX / 10)
			return -1;
		mant *= 10;
	}
whole:
	if (mant > (unsigned long long)LONG_MAX + (unsigned long long)neg)
		return -1;
	*out = neg ? (long)(0 - mant) : (long)mant;
	return 0;
}

/* Parse text by decl into v; on failure write why (after "KEY: ") into buf. */
static int parse_value(const struct px_param_decl *d, const char *text,
		       union px_value *v, char *buf, size_t len)
{
	char *end;
	int bounded = d->min <= d->max;

	switch (d->type) {
	case PX_PARAM_INT:
		if (parse_exact_long(text, &v->i)) {
			snprintf(buf, len, "'%s' is not an integer", text);
			return -1;
		}
		if (bounded && (v->i < d->min || v->i > d->max)) {
			snprintf(buf, len, "'%s' is out of range [%.15g, %.15g]",
				 text, d->min, d->max);
			return -1;
		}
		return 0;
	case PX_PARAM_REAL:
		errno = 0;
		v->r = strtod(text, &end);
		if (end == text || *end || !isfinite(v->r) || errno == ERANGE) {
			snprintf(buf, len, "'%s' is not a finite number", text);
			return -1;
		}
		if (bounded && (v->r < d->min || v->r > d->max)) {
			snprintf(buf, len, "'%s' is out of range [%.15g, %.15g]",
				 text, d->min, d->max);
			return -1;
		}
		return 0;
	case PX_PARAM_BOOL:
		if (!parse_bool(text, &v->b)) {
			snprintf(buf, len,
				 "'%s' is not a boolean (true/false, yes/no, on/off, 1/0)",
				 text);
			return -1;
		}
		return 0;
	case PX_PARAM_CHOICE:
		v->choice = choice_index(d->choices, text);
		if (v->choice < 0) {
			snprintf(buf, len, "'%s' is not one of %s", text,
				 d->choices ? d->choices : "(no choices)");
			return -1;
		}
		return 0;
	case PX_PARAM_STRING:
		if (!*text) {
			snprintf(buf, len, "empty value");
			return -1;
		}
		v->s = text;
		return 0;
	}
	snprintf(buf, len, "declared with unknown type %d", (int)d->type);
	return -1;
}

int px_params_check_decl(const struct px_param_decl *decl, size_t n_decl,
			 const char *where, struct px_error *err)
{
	for (size_t i = 0; i < n_decl; i++) {
		union px_value v;
		char why[256];

		if (!decl[i].key || !decl[i].def)
			return px_error_set(err, PX_ERR_PLUGIN,
					    "%s: parameter %zu has no key or default",
					    where, i);
		if (parse_value(&decl[i], decl[i].def, &v, why, sizeof why))
			return px_error_set(err, PX_ERR_PLUGIN,
					    "%s: declared default of '%s': %s",
					    where, decl[i].key, why);
	}
	return PX_OK;
}

int px_params_parse(const struct px_param_decl *decl, size_t n_decl,
		    const struct px_setting *settings, size_t n_settings,
		    const char *section, const char *owner,
		    union px_value *values, struct px_error *err)
{
	for (size_t i = 0; i < n_decl; i++) {
		char why[256];

		if (parse_value(&decl[i], decl[i].def, &values[i], why, sizeof why))
			return px_error_set(err, PX_ERR_PLUGIN,
					    "%s: declared default of '%s': %s",
					    owner, decl[i].key, why);
	}
	for (size_t s = 0; s < n_settings; s++) {
		const struct px_setting *st = &settings[s];
		char where[512], why[256];
		size_t i;

		if (st->file && st->line)
			snprintf(where, sizeof where, "%s:%u: [%s] %s", st->file,
				 st->line, section, st->key);
		else if (st->file) /* not from a file's line: a --set */
			snprintf(where, sizeof where, "%s: [%s] %s", st->file,
				 section, st->key);
		else
			snprintf(where, sizeof where, "[%s] %s", section,
				 st->key);
		for (i = 0; i < n_decl; i++)
			if (strcmp(decl[i].key, st->key) == 0)
				break;
		if (i == n_decl) {
			char known[256] = "";
			size_t at = 0;

			for (size_t j = 0; j < n_decl && at < sizeof known; j++)
				at += (size_t)snprintf(known + at, sizeof known - at,
						       "%s%s", j ? ", " : "",
						       decl[j].key);
			return px_error_set(err, PX_ERR_CONFIG,
					    "%s: unknown key for %s (known keys: %s)",
					    where, owner, n_decl ? known : "none");
		}
		for (size_t t = 0; t < s; t++)
			if (strcmp(settings[t].key, st->key) == 0)
				return px_error_set(err, PX_ERR_CONFIG,
						    "%s: set twice (first on line %u)",
						    where, settings[t].line);
		if (parse_value(&decl[i], st->value, &values[i], why, sizeof why))
			return px_error_set(err, PX_ERR_CONFIG, "%s: %s", where,
					    why);
	}
	return PX_OK;
}

int px_param_format(const struct px_param_decl *d, const union px_value *v,
		    char *buf, size_t len)
{
	const char *c = d->choices;
	int n = -1;

	switch (d->type) {
	case PX_PARAM_INT:
		n = snprintf(buf, len, "%ld", v->i);
		break;
	case PX_PARAM_REAL: /* the fewest digits that read back exactly */
		for (int digits = 15; digits <= 17; digits++) {
			n = snprintf(buf, len, "%.*g", digits, v->r);
			if (n < 0 || (size_t)n >= len ||
			    strtod(buf, NULL) == v->r)
				break;
		}
		break;
	case PX_PARAM_BOOL:
		n = snprintf(buf, len, "%s", v->b ? "on" : "off");
		break;
	case PX_PARAM_CHOICE:
		for (int i = 0; c && i < v->choice; i++) {
			c = strchr(c, '|');
			if (c)
				c++;
		}
		if (c) {
			const char *bar = strchr(c, '|');

			n = snprintf(buf, len, "%.*s",
				     (int)(bar ? (size_t)(bar - c) : strlen(c)), c);
		}
		break;
	case PX_PARAM_STRING:
		n = snprintf(buf, len, "%s", v->s ? v->s : "");
		break;
	}
	return n >= 0 && (size_t)n < len ? 0 : -1;
}
