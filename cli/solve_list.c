/* `proxima solve P1 P2 DIR ...`: several problems with one config. Each
 * argument is a problem file or a folder, whose .dat, .hdf5 and .h5 files
 * (sorted by name, subfolders not entered) are its problems. Every problem
 * is solved as `proxima solve` solves one (solve.c) and gets one row:
 * problem, contacts, status, sweeps, fc3d error, seconds; a file that
 * cannot be read or solved gets its one-line error and exit status 2, and
 * the others still run. A summary line closes the table; the exit status
 * is the worst (2 > 1 > 0). SIGINT or SIGTERM stops the solve under way
 * (its row says interrupted), the others are not run and the status is
 * 128 + the signal. With --json: one proxima-solve-list/1 object. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "grow.h"
#include "json_report.h"
#include "solve.h"

/* The problems to solve: a path each, or a folder's error. */
struct item {
	char *path;
	char *error; /* the folder could not be listed, or holds none */
};

struct list {
	struct item *item;
	size_t n, cap;
};

static int is_problem_name(const char *name)
{
	static const char *const ext[] = {".dat", ".hdf5", ".h5"};
	const size_t n = strlen(name);

	if (name[0] == '.')
		return 0;
	for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
		const size_t e = strlen(ext[i]);

		if (n > e && strcasecmp(name + n - e, ext[i]) == 0)
			return 1;
	}
	return 0;
}

static int add(struct list *l, const char *path, const char *error)
{
	struct item *grown = px_grow(l->item, &l->cap, l->n, sizeof *grown, 16);

	if (!grown)
		return -1;
	l->item = grown;
	grown[l->n].path = strdup(path);
	grown[l->n].error = error ? strdup(error) : NULL;
	if (!grown[l->n].path || (error && !grown[l->n].error)) {
		free(grown[l->n].path);
		free(grown[l->n].error);
		return -1;
	}
	l->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's problem files, sorted; a row with the reason when there are
 * none or it cannot be read. */
static int add_folder(struct list *l, const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL, **grown, msg[PX_ERROR_MSG_MAX + 64];
	size_t n = 0, cap = 0, len = strlen(dir);
	const char *sep = len && dir[len - 1] == '/' ? "" : "/";
	struct dirent *e;
	int rc = 0;

	if (!d) {
		snprintf(msg, sizeof msg, "%s: cannot read the folder: %s", dir,
			 strerror(errno));
		return add(l, dir, msg);
	}
	while ((e = readdir(d))) {
		char path[4096];
		struct stat sb;

		if (!is_problem_name(e->d_name))
			continue;
		snprintf(path, sizeof path, "%s%s%s", dir, sep, e->d_name);
		if (stat(path, &sb) || S_ISDIR(sb.st_mode))
			continue;
		grown = px_grow(names, &cap, n, sizeof *grown, 16);
		if (!grown || !(grown[n] = strdup(path))) {
			names = grown ? grown : names;
			rc = -1;
			break;
		}
		names = grown;
		n++;
	}
	closedir(d);
	if (!rc)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = add(l, names[i], NULL);
		free(names[i]);
	}
	free(names);
	if (!rc && n == 0) {
		snprintf(msg, sizeof msg, "%s: no problem files (.dat, .hdf5, .h5) in the folder",
			 dir);
		rc = add(l, dir, msg);
	}
	return rc;
}

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->item[i].path);
		free(l->item[i].error);
	}
	free(l->item);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the text report ------------------------------------------------- */

struct widths {
	int path, status;
};

static void print_header(const struct widths *w)
{
	printf("\n%-*s  %8s  %-*s  %8s  %10s  %9s\n", w->path, "problem",
	       "contacts", w->status, "status", "sweeps", "fc3d error",
	       "seconds");
}

static void print_row(const struct widths *w, const struct px_solve_result *r)
{
	char contacts[32] = "-";

	if (r->read)
		snprintf(contacts, sizeof contacts, "%zu", r->contacts);
	if (!r->solved) {
		printf("%-*s  %8s  %-*s  %8s  %10s  %9s  %s\n", w->path, r->path,
		       contacts, w->status, "error", "-", "-", "-", r->error);
		return;
	}
	printf("%-*s  %8zu  %-*s  %8llu  %10.3e  %9.6f%s%s\n", w->path, r->path,
	       r->contacts, w->status, px_stop_name(r->rep.stop),
	       (unsigned long long)r->rep.sweeps, r->fc3d, r->rep.seconds,
	       r->error[0] ? "  " : "", r->error);
}

/* ---- the summary --------------------------------------------------------- */

static void count(struct px_solve_summary *s, const struct px_solve_result *r)
{
	s->problems++;
	if (!r->solved)
		s->errors++;
	else if (r->rep.converged)
		s->converged++;
	else
		s->not_converged++;
	if (r->solved)
		s->solve_seconds += r->rep.seconds;
	if (r->status > s->status)
		s->status = r->status;
}

int px_solve_list(char **args, int n, const struct px_config *cfg,
		  const struct px_solve_opts *opts)
{
	struct list l = {0};
	struct px_solve_summary s = {0};
	struct widths w = {(int)strlen("problem"), (int)strlen("not converged")};
	json_object *results = opts->json ? json_object_new_array() : NULL;
	const double t0 = now();

	for (int i = 0; i < n; i++) {
		struct stat sb;
		int rc = stat(args[i], &sb) == 0 && S_ISDIR(sb.st_mode)
				 ? add_folder(&l, args[i])
				 : add(&l, args[i], NULL);

		if (rc) {
			fprintf(stderr, "proxima: out of memory\n");
			list_free(&l);
			json_object_put(results);
			return EXIT_BAD_INPUT;
		}
	}
	for (size_t i = 0; i < l.n; i++)
		if ((int)strlen(l.item[i].path) > w.path)
			w.path = (int)strlen(l.item[i].path);
	if (!opts->json) {
		px_cli_print_config(stdout, cfg);
		print_header(&w);
	}
	for (size_t i = 0; i < l.n; i++) {
		struct px_solve_result r;

		if (l.item[i].error) {
			/* a folder's row: not a problem read */
			memset(&r, 0, sizeof r);
			r.path = l.item[i].path;
			r.opts = opts;
			r.cfg = cfg;
			r.status = EXIT_BAD_INPUT;
			snprintf(r.error, sizeof r.error, "%s", l.item[i].error);
		} else {
			px_solve_file(l.item[i].path, cfg, opts, NULL, &r);
		}
		count(&s, &r);
		if (r.error[0])
			fprintf(stderr, "proxima: %s\n", r.error);
		if (results)
			json_object_array_add(results, px_json_solve(&r));
		else
			print_row(&w, &r);
		fflush(stdout);
		px_solve_result_free(&r);
		if (px_cli_stop_signal()) {
			/* SIGINT, SIGTERM: the solve under way stopped (or
			 * the one before it ended), the others do not start */
			s.not_run = l.n - i - 1;
			s.status = px_cli_stop_status(s.status, 1);
			break;
		}
	}
	s.seconds = now() - t0;
	if (results) {
		if (px_json_print(px_json_solve_list(results, &s)))
			s.status = EXIT_BAD_INPUT;
	} else {
		printf("\nsummary     %zu of %zu converged (%zu not converged, %zu errors); solves %.3f s, %.3f s in all",
		       s.converged, s.problems, s.not_converged, s.errors,
		       s.solve_seconds, s.seconds);
		if (px_cli_stop_signal())
			printf("; stopped by %s, %zu not run",
			       px_cli_signal_name(px_cli_stop_signal()),
			       s.not_run);
		putchar('\n');
	}
	list_free(&l);
	return s.status;
}
