/* `proxima compare` on one problem (compare.h): every config solves it
 * from the same start; each history is written exactly as `proxima solve
 * --history` writes it; the table gives per config whether it converged,
 * its sweeps, the sweeps and seconds until its merit first reached each
 * tolerance, the final fc3d error (Siconos's, the same measure for every
 * config), rejected sweeps and the time per sweep; the plot draws the
 * merit on a log scale against work (sweeps plus the accelerator's
 * products with A) and against seconds (Erleben 2017, Fig. 8's axes), with the
 * configs' tolerances. With --json the table's rows go into the report instead
 * (compare_json.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "outfile.h"
#include "plot.h"
#include "table.h"

/* The first accepted sweep whose merit is at most each tolerance, or the
 * accelerator's iterate after a sweep when that reached it first: a solve
 * an accelerator finishes has its best iterate in the calls, not in the
 * sweeps (ssn's last call on Capsules-i122 takes fc3d from 4e-8 to 2e-14,
 * and the solve stops). The seconds are those write_accel() writes. */
static void reached(const struct px_cmp *c, struct px_cmp_result *r)
{
	const struct px_report *rep = &r->rep;

	for (size_t t = 0; t < c->n_tol; t++) {
		for (size_t i = 0; i < rep->n_history; i++) {
			const struct px_sweep_record *h = rep->history + i;

			if (h->accepted && h->merit <= c->tol[t]) {
				r->reach[t] = i + 1;
				r->reach_s[t] = h->seconds;
				break;
			}
		}
		for (size_t i = 0; i < rep->n_accel; i++) {
			const struct px_accel_record *a = rep->accel + i;
			const uint64_t k = a->after_sweep;

			if (!a->replaced || !(a->merit <= c->tol[t]) || k == 0 ||
			    k > rep->n_history)
				continue;
			if (!r->reach[t] || k < r->reach[t]) {
				r->reach[t] = k;
				r->reach_s[t] = rep->history[k - 1].seconds +
						a->seconds;
			}
			break;
		}
	}
}

static void fill_table(const struct px_cmp *c, const struct px_cmp_result *res,
		       struct px_table *t)
{
	px_table_init(t, 7 + 2 * c->n_tol);
	px_table_add(t, "config");
	px_table_add(t, "merit");
	px_table_add(t, "converged");
	px_table_add(t, "sweeps");
	px_table_add(t, "rejected");
	for (size_t k = 0; k < c->n_tol; k++) {
		px_table_add(t, "sweeps@%g", c->tol[k]);
		px_table_add(t, "s@%g", c->tol[k]);
	}
	px_table_add(t, "final fc3d");
	px_table_add(t, "us/sweep");
	for (size_t i = 0; i < c->n; i++) {
		const struct px_cmp_result *r = res + i;

		px_table_add(t, "%s", c->c[i].label);
		px_table_add(t, "%s", px_cli_merit_name(
				      px_config_settings(c->c[i].cfg)->merit));
		px_table_add(t, "%s", r->rep.converged ? "yes" : "no");
		px_table_add(t, "%llu", (unsigned long long)r->rep.sweeps);
		px_table_add(t, "%llu", (unsigned long long)r->rep.rejected);
		for (size_t k = 0; k < c->n_tol; k++) {
			if (r->reach[k]) {
				px_table_add(t, "%llu",
					     (unsigned long long)r->reach[k]);
				px_table_add(t, "%.3g", r->reach_s[k]);
			} else {
				px_table_add(t, "-");
				px_table_add(t, "-");
			}
		}
		px_table_add(t, "%.3e", r->fc3d);
		px_table_add(t, "%.3g", px_cli_us_per_sweep(&r->rep));
	}
}

static const char *const columns_note =
	"sweeps@T and s@T: the first accepted sweep whose merit (the config's "
	"own stop test, column merit) is at most T, or after which the "
	"accelerator's iterate is, and the seconds from the start of its "
	"solve; - never. final fc3d: Siconos's fc3d error of the "
	"last iterate, the same measure for every config. us/sweep: solve "
	"time without the plugins' set-up and the accelerator's calls, per "
	"sweep.";

static int write_markdown(const struct px_cmp *c, const char *dir,
			  const char *what, const struct px_problem *p,
			  const double *warm, const struct px_table *t,
			  struct px_error *err)
{
	char path[4096];
	struct px_outfile o;
	FILE *f;

	if (px_cmp_path(path, sizeof path, dir, "table.md", err) ||
	    px_outfile_open(&o, path, err))
		return err->code;
	f = o.f;
	fprintf(f, "# proxima compare: %s\n\n", what);
	fprintf(f, "%zu contacts, %u rows each; every config solved it from %s.\n\n",
		px_problem_n_contacts(p), px_problem_block_size(p),
		warm ? "the warm start the world used" : "zero");
	px_table_markdown(t, f);
	fprintf(f, "\n%s", columns_note);
	if (px_cmp_mixed_merits(c))
		fprintf(f, " The configs stop on different merits: their "
			   "sweeps@T columns measure different things.");
	fprintf(f, "\n\nConfigs:\n\n");
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, "- %s: `%s`, history `%s.csv`\n", c->c[i].label,
			c->c[i].path, c->c[i].label);
	return px_outfile_commit(&o, err);
}

/* dir/LABEL-accel.csv: the accelerator's calls of one solve, each with the
 * work when it returned (sweeps before it plus all products with A so
 * far: the history's work charges a call to the sweep after it, and a
 * call after the last sweep to none), the stop test's merit after it (NaN
 * when it did not replace lambda) and the seconds when it returned (the
 * sweep's time plus its own). */
static int write_accel(const char *dir, const char *label,
		       const struct px_report *rep, struct px_error *err)
{
	char path[4096], name[PX_CMP_LABEL_MAX + 16];
	uint64_t products = 0;
	struct px_outfile o;
	FILE *f;

	snprintf(name, sizeof name, "%s-accel.csv", label);
	if (px_cmp_path(path, sizeof path, dir, name, err) ||
	    px_outfile_open(&o, path, err))
		return err->code;
	f = o.f;
	fprintf(f, "after_sweep,finish,replaced,products,work,merit,seconds\n");
	for (size_t i = 0; i < rep->n_accel; i++) {
		const struct px_accel_record *a = rep->accel + i;
		const double t0 = a->after_sweep && a->after_sweep <= rep->n_history
					  ? rep->history[a->after_sweep - 1].seconds
					  : 0.0;

		products += a->products;
		fprintf(f, "%llu,%d,%d,%llu,%llu,%.17g,%.9f\n",
			(unsigned long long)a->after_sweep, a->finish,
			a->replaced, (unsigned long long)a->products,
			(unsigned long long)(a->after_sweep + products),
			a->merit, t0 + a->seconds);
	}
	return px_outfile_commit(&o, err);
}

/* Every n-th point of a line gets its marker: about eight per line. */
static size_t marker_every(size_t rows)
{
	return rows / 8 > 1 ? rows / 8 : 1;
}

/* dir/convergence.gp: merit against work (sweeps, plus the accelerator's
 * products with A: the history's work column) and against milliseconds;
 * the tolerances dashed. */
static int write_script(struct px_cmp *c, const char *dir, const char *what,
			const struct px_cmp_result *res, struct px_error *err)
{
	const int mixed = px_cmp_mixed_merits(c);
	char path[4096], title[4200];
	struct px_outfile o;
	FILE *f;

	if (px_cmp_path(path, sizeof path, dir, "convergence.gp", err) ||
	    px_outfile_open(&o, path, err))
		return err->code;
	f = o.f;
	px_plot_begin(f, "convergence", "convergence of each config", 1200,
		      500, c->n);
	snprintf(title, sizeof title, "Convergence on %s",
		 px_cmp_basename(what));
	fprintf(f, "\tset multiplot layout 1,2 title ");
	px_plot_quote(f, title);
	fprintf(f, " noenhanced\n\tset logscale y\n\tset format y '10^{%%L}'\n"
		   "\tset ylabel '%s'\n",
		mixed ? "merit of each config (in the key)"
		      : px_cmp_merit_label(px_cmp_merit_of(c, 0)));
	for (int panel = 0; panel < 2; panel++) {
		fprintf(f, "\tset xlabel '%s'\n\tplot ",
			panel ? "milliseconds"
			: px_cmp_any_accelerator(c)
				? "work: sweeps + the accelerator''s products with A"
				: "sweeps");
		for (size_t i = 0; i < c->n; i++) {
			fprintf(f, "%shere.'/%s.csv' skip 1 using %s:($3 > 0 ? $5 : NaN) with linespoints ls %zu pi %zu title '%s",
				i ? ", " : "", c->c[i].label,
				panel ? "($6 * 1000)" : "7", i + 1,
				marker_every(res[i].rep.n_history),
				c->c[i].label);
			if (mixed)
				fprintf(f, " (%s)",
					px_cli_merit_name(px_cmp_merit_of(c, i)));
			fprintf(f, "' noenhanced");
			/* the iterates the accelerator put in, as markers */
			if (px_config_plugin(c->c[i].cfg, PX_KIND_ACCELERATOR))
				fprintf(f, ", here.'/%s-accel.csv' skip 1 using %s:($3 > 0 ? $6 : NaN) with points ls %zu notitle",
					c->c[i].label,
					panel ? "($7 * 1000)" : "5", i + 1);
		}
		px_cmp_plot_tolerances(f, c, -1);
		fputc('\n', f);
	}
	fprintf(f, "\tunset multiplot\n");
	px_plot_end(f);
	if (px_outfile_commit(&o, err))
		return err->code;
	return px_cmp_add_script(c, path, err);
}

int px_cmp_problem(struct px_cmp *c, const char *dir, const char *what,
		   const struct px_problem *p, const double *warm,
		   size_t *unconverged, struct px_error *err)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	struct px_cmp_result *res = calloc(c->n, sizeof *res);
	double *lambda = malloc((m + 1) * sizeof *lambda);
	struct px_table t = {0};
	char path[4096], name[PX_CMP_LABEL_MAX + 8];
	int rc = PX_OK;

	if (!res || !lambda) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct px_cmp_result *r = res + i;
		struct px_error e = {0};

		if (warm)
			memcpy(lambda, warm, m * sizeof *lambda);
		else
			memset(lambda, 0, m * sizeof *lambda);
		if (px_solve(p, c->c[i].cfg, lambda, &r->rep, &e)) {
			/* the plugins' refusals concern this problem */
			rc = px_error_set(err, e.code, "%s: %s (config %s): %s",
					  what, c->c[i].label, c->c[i].path,
					  e.msg);
			goto out;
		}
		r->fc3d = px_merit_fc3d(p, lambda, NULL);
		reached(c, r);
		*unconverged += !r->rep.converged;
		snprintf(name, sizeof name, "%s.csv", c->c[i].label);
		rc = px_cmp_path(path, sizeof path, dir, name, err);
		if (rc)
			goto out;
		rc = px_cli_write_history(path, &r->rep, err);
		if (rc)
			goto out;
		if (px_config_plugin(c->c[i].cfg, PX_KIND_ACCELERATOR)) {
			rc = write_accel(dir, c->c[i].label, &r->rep, err);
			if (rc)
				goto out;
		}
	}
	fill_table(c, res, &t);
	if (px_table_failed(&t)) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = write_markdown(c, dir, what, p, warm, &t, err);
	if (rc)
		goto out;
	rc = write_script(c, dir, what, res, err);
	if (rc)
		goto out;
	if (c->json) {
		px_cmp_json_rows(c, res, dir);
		goto out;
	}
	putchar('\n');
	px_table_print(&t, stdout);
	printf("\ncolumns     sweeps@T, s@T: the first accepted sweep with the config's merit <= T (or its accelerator's iterate after it), seconds into its solve (- never)\n");
	if (px_cmp_mixed_merits(c))
		printf("note        the configs stop on different merits: their sweeps@T measure different things; final fc3d is common to all\n");
	printf("histories  ");
	for (size_t i = 0; i < c->n; i++)
		printf(" %s/%s.csv", dir, c->c[i].label);
	printf("\ntable       %s/table.md\n", dir);
out:
	px_table_free(&t);
	if (res)
		for (size_t i = 0; i < c->n; i++)
			px_report_free(&res[i].rep);
	free(res);
	free(lambda);
	return rc;
}
