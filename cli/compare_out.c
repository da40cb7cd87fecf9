/* What the parts of `proxima compare` (compare.c, compare_solve.c,
 * compare_scene.c) share for their output: file paths in DIR, DIR itself,
 * the gnuplot scripts to draw at the end, and the description of the
 * configs compared. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "compare.h"

int px_cmp_path(char *buf, size_t len, const char *dir, const char *name,
		struct px_error *err)
{
	const int n = snprintf(buf, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s/%s: path too long", dir, name);
	return PX_OK;
}

int px_cmp_mkdir(const char *dir, struct px_error *err)
{
	char path[4096];
	struct stat sb;
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof path)
		return px_error_set(err, PX_ERR_INVALID,
				    "'%s': not a usable directory name", dir);
	memcpy(path, dir, n + 1);
	for (char *s = path + 1;; s++) {
		const char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(path, 0777) && errno != EEXIST)
			return px_error_set(err, PX_ERR_IO,
					    "%s: cannot create: %s", path,
					    strerror(errno));
		*s = c;
		if (!c)
			break;
	}
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		return px_error_set(err, PX_ERR_IO, "%s: not a directory", dir);
	return PX_OK;
}

int px_cmp_add_script(struct px_cmp *c, const char *path,
		      struct px_error *err)
{
	char **s = realloc(c->scripts, (c->n_scripts + 1) * sizeof *s);

	if (!s)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	c->scripts = s;
	s[c->n_scripts] = strdup(path);
	if (!s[c->n_scripts])
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	c->n_scripts++;
	return PX_OK;
}

static void describe(const struct px_cmp_config *cc)
{
	const struct px_config *cfg = cc->cfg;
	const struct px_solver_settings *s = px_config_settings(cfg);
	const struct px_plugin *acc = px_config_plugin(cfg, PX_KIND_ACCELERATOR);

	printf("config      %s = %s: friction %s, ordering %s, rfactor %s, scheduler %s%s%s; merit %s, abs_tol %g, max_sweeps %llu\n",
	       cc->label, px_config_source(cfg),
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_FRICTION))->name,
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_ORDERING))->name,
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_RFACTOR))->name,
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_SCHEDULER))->name,
	       acc ? ", accelerator " : "",
	       acc ? px_plugin_header(acc)->name : "",
	       px_cli_merit_name(s->merit), s->abs_tol,
	       (unsigned long long)s->max_sweeps);
}

void px_cmp_describe(const struct px_cmp *c)
{
	for (size_t i = 0; i < c->n; i++)
		describe(c->c + i);
}
