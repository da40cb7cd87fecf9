/* INI files parsed by inih from our own line source (ini_lines.h). */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "ini_lines.h"

static const char syntax_error[] =
	"syntax error (expected [section], key = value or a comment)";

void px_ini_fail(struct px_error *err, const char *path, unsigned line,
		 int code, const char *fmt, ...)
{
	char msg[PX_ERROR_MSG_MAX];
	va_list ap;

	if (err->code != PX_OK)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	px_error_set(err, code, "%s:%u: %s", path, line, msg);
}

#define fail(ini, code, ...) \
	px_ini_fail((ini)->err, (ini)->path, (ini)->line, code, __VA_ARGS__)

/* inih's blanks (isspace), which its indentation and trimming skip */
static const char *skip_blanks(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* The end of a header's name as inih finds it: the first ']', or an
 * inline comment (';' after a blank), or the end of the line. */
static const char *name_end(const char *s)
{
	int blank = 0;

	for (; *s && *s != ']' && !(blank && *s == ';'); s++)
		blank = isspace((unsigned char)*s);
	return s;
}

/* inih's line source: one whole line per call (an over-long one is an
 * error and reads as an empty line), telling the caller of the headers as
 * inih's ini_parse_stream will read them. */
static char *read_line(char *str, int num, void *stream)
{
	struct px_ini *ini = stream;
	ssize_t len = getline(&ini->buf, &ini->cap, ini->f);
	size_t body;
	const char *s, *end;

	if (len < 0) {
		if (ferror(ini->f) && ini->err->code == PX_OK)
			px_error_set(ini->err, PX_ERR_IO, "%s: cannot read: %s",
				     ini->path, strerror(errno));
		return NULL;
	}
	ini->line++;
	body = (size_t)len - (len > 0 && ini->buf[len - 1] == '\n');
	if (body > PX_INI_LINE_MAX || body + 2 > (size_t)num) {
		fail(ini, PX_ERR_CONFIG, "line too long (at most %d bytes)",
		     PX_INI_LINE_MAX);
		strcpy(str, "\n");
		return str;
	}
	memcpy(str, ini->buf, (size_t)len + 1);
	s = str;
	if (ini->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	s = skip_blanks(s);
	if (*s != '[' || (s > str && ini->key_seen))
		return str; /* a comment, a key, or a value continued */
	end = name_end(s + 1);
	if (*end != ']') { /* inih's syntax error, reported here first */
		fail(ini, PX_ERR_CONFIG, "%s", syntax_error);
		return str;
	}
	ini->key_seen = 0;
	ini->section(ini->user, ini->line, s + 1, (size_t)(end - s - 1));
	return str;
}

static int on_value(void *user, const char *section, const char *key,
		    const char *value)
{
	struct px_ini *ini = user;

	ini->key_seen = *key != '\0'; /* inih continues a named key only */
	return ini->value(ini->user, ini->line, section, key, value);
}

int px_ini_parse(struct px_ini *ini, FILE *f)
{
	int bad;

	ini->f = f;
	ini->line = 0;
	ini->key_seen = 0;
	bad = ini_parse_stream(read_line, ini, on_value, ini);
	free(ini->buf);
	ini->buf = NULL;
	ini->cap = 0;
	if (ini->err->code != PX_OK)
		return ini->err->code;
	if (bad > 0)
		return px_error_set(ini->err, PX_ERR_CONFIG, "%s:%d: %s",
				    ini->path, bad, syntax_error);
	if (bad < 0)
		return px_error_set(ini->err, PX_ERR_NOMEM,
				    "%s: out of memory", ini->path);
	return PX_OK;
}
