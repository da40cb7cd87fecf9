/* Which command a file is for, so that a scene given to `solve` or a
 * problem file given to `run` is refused with one line that names the
 * right command, instead of the other reader's complaint about its first
 * token; and which file `run` steps when given none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "file_kind.h"

/* 1 when the first line of path that is neither blank nor a comment (; or
 * #) opens an INI [section]: a scene or a config, never a .dat problem
 * (which starts with a number). */
static int is_ini(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int ini = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		const char *c = line + strspn(line, " \t\r\n");

		if (!strncmp(c, "\xef\xbb\xbf", 3)) /* a UTF-8 BOM */
			c += 3;
		if (!*c || *c == ';' || *c == '#')
			continue;
		ini = *c == '[';
		break;
	}
	fclose(f);
	return ini;
}

int px_cli_refuse_scene(const char *path, struct px_error *err)
{
	if (!is_ini(path))
		return PX_OK;
	return px_error_set(err, PX_ERR_INVALID,
			    "%s: a scene (INI sections), not a contact problem: step it with `proxima run %s`",
			    path, path);
}

int px_cli_refuse_problem(const char *path, struct px_error *err)
{
	if (px_file_format_of_file(path) == PX_FILE_FCLIB ||
	    (px_file_format_of_name(path) == PX_FILE_DAT && !is_ini(path)))
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: a contact problem file, not a scene: solve it with `proxima solve %s`",
				    path, path);
	return PX_OK;
}

const char *px_cli_default_scene(char *buf, size_t len)
{
	const char *d = getenv("PROXIMA_DATA_DIR");

	snprintf(buf, len, "%s/scenes/default.ini", d && *d ? d : PX_DATADIR);
	return buf;
}
