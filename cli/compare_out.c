/* What the parts of `proxima compare` (compare.c, compare_solve.c,
 * compare_scene.c) share for their output: file paths in DIR, DIR itself,
 * the gnuplot scripts to draw at the end, the description of the configs
 * compared, and what the plots say of them (merit, tolerances). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "compare.h"
#include "plot.h"

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

const char *px_cmp_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

const char *px_cmp_merit_label(int merit)
{
	switch (merit) {
	case PX_MERIT_DELTA: return "delta (change of the iterate per sweep)";
	case PX_MERIT_FC3D: return "fc3d error";
	case PX_MERIT_NATURAL: return "natural-map merit";
	case PX_MERIT_MINMAP: return "min-map merit";
	default: return "merit";
	}
}

int px_cmp_merit_of(const struct px_cmp *c, size_t i)
{
	return px_config_settings(c->c[i].cfg)->merit;
}

int px_cmp_mixed_merits(const struct px_cmp *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (px_cmp_merit_of(c, i) != px_cmp_merit_of(c, 0))
			return 1;
	return 0;
}

int px_cmp_any_accelerator(const struct px_cmp *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (px_config_plugin(c->c[i].cfg, PX_KIND_ACCELERATOR))
			return 1;
	return 0;
}

void px_cmp_plot_tolerances(FILE *f, const struct px_cmp *c, int merit)
{
	double seen[PX_CMP_MAX_CONFIGS];
	int seen_merit[PX_CMP_MAX_CONFIGS];
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct px_solver_settings *s =
			px_config_settings(c->c[i].cfg);
		size_t k = 0;

		if (s->merit == PX_MERIT_DELTA ||
		    (merit >= 0 && s->merit != merit) || !(s->abs_tol > 0.0))
			continue;
		/* one line per distinct tolerance (of one merit) */
		while (k < n && !(seen[k] == s->abs_tol &&
				  seen_merit[k] == s->merit))
			k++;
		if (k < n)
			continue;
		seen[n] = s->abs_tol;
		seen_merit[n++] = s->merit;
		fprintf(f, ", %.17g with lines ls %zu title 'tolerance ",
			s->abs_tol, 100 + (n - 1) % 8);
		px_plot_number(f, s->abs_tol);
		if (merit < 0 && px_cmp_mixed_merits(c))
			fprintf(f, " (%s)", px_cli_merit_name(s->merit));
		fputc('\'', f);
	}
}
