/* `proxima compare --json` (compare.h): the results the text report
 * prints, as one proxima-compare/1 object (proxima(1), JSON OUTPUT). The
 * parts of compare add theirs as they go: the head (target, mode, DIR,
 * configs), the problem or the scene, the rows of each problem's table
 * (a problem file: in the report; --at: in each step's object), --whole's
 * runs, the plots; the report is printed at the end, when nothing failed. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "json_report.h"

int px_cmp_json_begin(struct px_cmp *c, const char *mode)
{
	json_object *o = json_object_new_object(), *configs;

	if (!o)
		return -1;
	c->json = c->json_here = o;
	px_json_set(o, "schema", px_json_str("proxima-compare/1"));
	px_json_set(o, "target", px_json_str(c->target));
	px_json_set(o, "mode", px_json_str(mode));
	px_json_set(o, "out", px_json_str(c->out));
	configs = json_object_new_array();
	for (size_t i = 0; i < c->n; i++) {
		json_object *x = json_object_new_object();

		px_json_set(x, "label", px_json_str(c->c[i].label));
		px_json_set(x, "path", px_json_str(c->c[i].path));
		px_json_set(x, "config", px_json_config(c->c[i].cfg));
		json_object_array_add(configs, x);
	}
	px_json_set(o, "configs", configs);
	if (strcmp(mode, "whole") != 0) {
		json_object *tols = json_object_new_array();

		for (size_t t = 0; t < c->n_tol; t++)
			json_object_array_add(tols, px_json_num(c->tol[t]));
		px_json_set(o, "tolerances", tols);
	}
	px_json_set(o, "plots", NULL);
	return 0;
}

static json_object *problem(const char *what, const struct px_problem *p)
{
	json_object *o = json_object_new_object();

	px_json_set(o, "path", px_json_str(what));
	px_json_set(o, "contacts", px_json_u64(px_problem_n_contacts(p)));
	px_json_set(o, "rows_per_contact",
		    px_json_u64(px_problem_block_size(p)));
	px_json_set(o, "form", px_json_str(px_problem_form(p) == PX_FORM_ASSEMBLED
						   ? "assembled"
						   : "factorized"));
	return o;
}

void px_cmp_json_problem(struct px_cmp *c, const char *what,
			 const struct px_problem *p)
{
	px_json_set(c->json, "problem", problem(what, p));
}

/* The table's row of config i. */
static json_object *row(const struct px_cmp *c, size_t i,
			const struct px_cmp_result *r, const char *dir)
{
	json_object *o = json_object_new_object(), *reach;
	char path[4096];

	px_json_set(o, "config", px_json_str(c->c[i].label));
	px_json_set(o, "merit", px_json_str(px_cli_merit_name(
					px_config_settings(c->c[i].cfg)->merit)));
	px_json_set(o, "status", px_json_str(px_stop_name(r->rep.stop)));
	px_json_set(o, "converged", px_json_bool(r->rep.converged));
	px_json_set(o, "sweeps", px_json_u64(r->rep.sweeps));
	px_json_set(o, "rejected", px_json_u64(r->rep.rejected));
	reach = json_object_new_array();
	for (size_t t = 0; t < c->n_tol; t++) {
		json_object *x = json_object_new_object();

		px_json_set(x, "tol", px_json_num(c->tol[t]));
		px_json_set(x, "sweep", r->reach[t] ? px_json_u64(r->reach[t]) : NULL);
		px_json_set(x, "seconds",
			    r->reach[t] ? px_json_num(r->reach_s[t]) : NULL);
		json_object_array_add(reach, x);
	}
	px_json_set(o, "reached", reach);
	px_json_set(o, "fc3d_error", px_json_num(r->fc3d));
	px_json_set(o, "us_per_sweep", px_json_num(px_cli_us_per_sweep(&r->rep)));
	snprintf(path, sizeof path, "%s/%s.csv", dir, c->c[i].label);
	px_json_set(o, "history", px_json_str(path));
	return o;
}

void px_cmp_json_rows(struct px_cmp *c, const struct px_cmp_result *res,
		      const char *dir)
{
	json_object *rows = json_object_new_array();
	char path[4096];

	for (size_t i = 0; i < c->n; i++)
		json_object_array_add(rows, row(c, i, res + i, dir));
	px_json_set(c->json_here, "rows", rows);
	snprintf(path, sizeof path, "%s/table.md", dir);
	px_json_set(c->json_here, "table", px_json_str(path));
}

void px_cmp_json_scene(struct px_cmp *c, size_t bodies, double dt,
		       unsigned long long steps, const char *drive)
{
	json_object *o = json_object_new_object();

	px_json_set(o, "path", px_json_str(c->target));
	px_json_set(o, "bodies", px_json_u64(bodies));
	px_json_set(o, "dt", px_json_num(dt));
	px_json_set(o, "steps", px_json_u64(steps));
	px_json_set(o, "drive", px_json_str(drive));
	px_json_set(c->json, "scene", o);
	if (drive)
		px_json_set(c->json, "steps", json_object_new_array());
}

void px_cmp_json_step(struct px_cmp *c, unsigned long long step,
		      const struct px_problem *p, double warm_fc3d,
		      const struct px_report *drive, const char *dir,
		      const char *problem, const char *warm)
{
	json_object *steps = NULL, *o = json_object_new_object(), *d;

	json_object_object_get_ex(c->json, "steps", &steps);
	px_json_set(o, "step", px_json_u64(step));
	if (!p) {
		px_json_set(o, "contacts", px_json_u64(0));
		json_object_array_add(steps, o);
		return;
	}
	px_json_set(o, "contacts", px_json_u64(px_problem_n_contacts(p)));
	px_json_set(o, "rows_per_contact",
		    px_json_u64(px_problem_block_size(p)));
	px_json_set(o, "dir", px_json_str(dir));
	px_json_set(o, "warm_start_fc3d", px_json_num(warm_fc3d));
	px_json_set(o, "problem", *problem ? px_json_str(problem) : NULL);
	px_json_set(o, "warm_start", px_json_str(warm));
	d = json_object_new_object();
	px_json_set(d, "sweeps", px_json_u64(drive->sweeps));
	px_json_set(d, "converged", px_json_bool(drive->converged));
	px_json_set(o, "drive", d);
	json_object_array_add(steps, o);
	c->json_here = o;
}

static json_object *five(const double q[5], unsigned long long n)
{
	json_object *a;

	if (!n)
		return NULL;
	a = json_object_new_array();
	for (int i = 0; i < 5; i++)
		json_object_array_add(a, px_json_num(q[i]));
	return a;
}

void px_cmp_json_runs(struct px_cmp *c, const struct px_cmp_run *runs)
{
	json_object *a = json_object_new_array();
	char path[4096];

	for (size_t i = 0; i < c->n; i++) {
		const struct px_cmp_run *r = runs + i;
		json_object *o = json_object_new_object();

		px_json_set(o, "config", px_json_str(c->c[i].label));
		px_json_set(o, "merit", px_json_str(px_cli_merit_name(
						px_config_settings(c->c[i].cfg)->merit)));
		px_json_set(o, "steps", px_json_u64(r->steps));
		px_json_set(o, "solves", px_json_u64(r->solves));
		px_json_set(o, "converged", px_json_u64(r->converged));
		px_json_set(o, "hit_limit", px_json_u64(r->hit_limit));
		px_json_set(o, "diverged", px_json_u64(r->diverged));
		px_json_set(o, "sweeps", px_json_u64(r->sweeps));
		px_json_set(o, "solve_seconds", px_json_num(r->solve_seconds));
		px_json_set(o, "us_per_sweep",
			    px_json_num(r->sweeps ? 1e6 * r->solve_seconds /
							    (double)r->sweeps
						  : 0.0));
		px_json_set(o, "sweeps_quartiles", five(r->q_sweeps, r->solves));
		px_json_set(o, "merit_quartiles", five(r->q_merit, r->solves));
		px_json_set(o, "fc3d_quartiles", five(r->q_fc3d, r->solves));
		px_json_set(o, "csv", px_json_str(r->csv));
		json_object_array_add(a, o);
	}
	px_json_set(c->json, "runs", a);
	snprintf(path, sizeof path, "%s/table.md", c->out);
	px_json_set(c->json, "table", px_json_str(path));
}

void px_cmp_json_plots(struct px_cmp *c, const char *script, int drawn,
		       int pdf)
{
	json_object *plots = NULL;
	char path[4096];
	const size_t n = script ? strlen(script) : 0;

	if (!drawn || n < 3)
		return;
	json_object_object_get_ex(c->json, "plots", &plots);
	if (!plots) {
		plots = json_object_new_array();
		px_json_set(c->json, "plots", plots);
	}
	if (pdf) {
		snprintf(path, sizeof path, "%.*s.pdf", (int)(n - 3), script);
		json_object_array_add(plots, px_json_str(path));
	}
	snprintf(path, sizeof path, "%.*s.png", (int)(n - 3), script);
	json_object_array_add(plots, px_json_str(path));
	snprintf(path, sizeof path, "%.*s.svg", (int)(n - 3), script);
	json_object_array_add(plots, px_json_str(path));
}

int px_cmp_json_end(struct px_cmp *c, int status)
{
	json_object *scripts = json_object_new_array();

	for (size_t i = 0; i < c->n_scripts; i++)
		json_object_array_add(scripts, px_json_str(c->scripts[i]));
	px_json_set(c->json, "scripts", scripts);
	px_json_set(c->json, "exit_status", json_object_new_int(status));
	status = px_json_print(c->json);
	c->json = c->json_here = NULL;
	return status;
}
