/* `proxima compare` on a scene (compare.h).
 *
 * --at K,...: one run driven by one config (--drive, default the first -c)
 * up to the last K; the world's solve hook (sim/world.h) hands over the
 * contact problem of each chosen step with the warm start the world gave
 * it, and every config solves that, as for a problem file, into
 * DIR/stepK/, beside the step's problem (problem.dat, A assembled; 3-row
 * contacts only) and its warm start (warm_start.txt), so that any solver
 * can take the step up again.
 *
 * --whole: every config drives its own run. Per step (DIR/LABEL-steps.csv)
 * its sweeps, final merit, fc3d error, energies, work (sweeps plus the
 * accelerator's products with A); per config the
 * distribution over the steps that had contacts, as Erleben 2017, Figs. 4 and 8
 * show it: quartiles (type 7: linear between order statistics) of sweeps,
 * of the final merit and of the fc3d error, the steps that hit max_sweeps
 * and the ones that diverged (not converged, and the final merit or fc3d
 * error not finite or the fc3d error above that of the warm start); the
 * plots DIR/sweeps.* (per step and cumulative distributions) and
 * DIR/energy.* (kinetic and potential energy over time, Erleben 2017,
 * Fig. 7). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxima/io.h>

#include "../sim/scene.h"
#include "../sim/world.h"
#include "cli.h"
#include "compare.h"
#include "outfile.h"
#include "plot.h"
#include "solution.h"
#include "table.h"

/* Progress of a run on a terminal: one line on stderr, rewritten every ten
 * steps and cleared before anything else is printed. */
static void progress(int tty, const char *label, unsigned long long i,
		     unsigned long long n)
{
	if (tty && i % 10 == 0) {
		fprintf(stderr, "\r%s: step %llu/%llu", label, i, n);
		fflush(stderr);
	}
}

static void progress_clear(int tty)
{
	if (tty)
		fputs("\r\033[K", stderr);
}

/* ---- --at ------------------------------------------------------------ */

struct at_ctx {
	struct px_cmp *c;
	size_t next; /* the next of c->at to compare */
	size_t *unconverged;
	int tty;
};

/* The step's problem, assembled, to dir/problem.dat (a .dat file holds
 * 3-row contacts only: with 4 rows, problem stays empty) and its warm
 * start to dir/warm_start.txt (%.17g, one per line: exact). */
static int save_step(const char *dir, const struct px_problem *p,
		     const double *warm, char problem[4200], char warm_path[4200],
		     struct px_error *err)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	struct px_problem *a = NULL;
	int rc;

	problem[0] = '\0';
	rc = px_cmp_path(warm_path, 4200, dir, "warm_start.txt", err);
	if (!rc)
		rc = px_cli_write_solution(warm_path, warm, m, err);
	if (rc || px_problem_block_size(p) != 3)
		return rc;
	rc = px_cmp_path(problem, 4200, dir, "problem.dat", err);
	if (!rc)
		rc = px_problem_assemble(p, &a, err);
	if (!rc)
		rc = px_dat_write(problem, a, err);
	px_problem_destroy(a);
	return rc;
}

static int at_hook(void *ctx, const struct px_step_solve *s,
		   struct px_error *err)
{
	struct at_ctx *a = ctx;
	struct px_cmp *c = a->c;
	char dir[4096], name[32], what[4200], problem[4200], warm[4200];
	int rc;

	if (a->next == c->n_at || s->step != c->at[a->next])
		return PX_OK;
	a->next++;
	snprintf(name, sizeof name, "step%llu", (unsigned long long)s->step);
	rc = px_cmp_path(dir, sizeof dir, c->out, name, err);
	if (!rc)
		rc = px_cmp_mkdir(dir, err);
	if (!rc)
		rc = save_step(dir, s->problem, s->warm_start, problem, warm,
			       err);
	if (rc)
		return rc;
	snprintf(what, sizeof what, "%s, step %llu", c->target,
		 (unsigned long long)s->step);
	progress_clear(a->tty);
	if (c->json)
		px_cmp_json_step(c, s->step, s->problem,
				 px_merit_fc3d(s->problem, s->warm_start, NULL),
				 s->report, dir, problem, warm);
	else
		printf("\nstep %-6llu %zu contacts, %u rows each; warm start fc3d %.3e; the driving solve took %llu sweeps (%s)\n"
		       "saved       %s%s%s\n",
		       (unsigned long long)s->step,
		       px_problem_n_contacts(s->problem),
		       px_problem_block_size(s->problem),
		       px_merit_fc3d(s->problem, s->warm_start, NULL),
		       (unsigned long long)s->report->sweeps,
		       s->report->converged ? "converged" : "not converged",
		       problem, *problem ? " " : "", warm);
	if (!c->json && !*problem)
		printf("            (not the problem: a .dat file holds 3-row contacts only, this one has %u rows)\n",
		       px_problem_block_size(s->problem));
	return px_cmp_problem(c, dir, what, s->problem, s->warm_start,
			      a->unconverged, err);
}

int px_cmp_at(struct px_cmp *c, size_t *unconverged, struct px_error *err)
{
	const char *drive = c->drive ? c->drive : c->c[0].path;
	const unsigned long long last = c->at[c->n_at - 1];
	const int tty = isatty(STDERR_FILENO);
	struct at_ctx a = {c, 0, unconverged, tty};
	struct px_world_settings *s;
	struct px_world *w = NULL;
	struct px_config *cfg = NULL;
	struct px_step_stats st;
	char msg[PX_ERROR_MSG_MAX];
	int rc;

	rc = px_cmp_config_build(c, drive, &cfg, err);
	if (!rc)
		rc = px_scene_load(c->target, &w, err);
	if (rc)
		goto out;
	s = px_world_settings_mut(w);
	if (c->steps)
		s->steps = c->steps;
	if (last > s->steps) {
		rc = px_error_set(err, PX_ERR_INVALID,
				  "%s: --at %llu is beyond its %llu steps (--steps sets the run's length)",
				  c->target, last,
				  (unsigned long long)s->steps);
		goto out;
	}
	rc = px_cmp_mkdir(c->out, err);
	if (rc)
		goto out;
	if (c->json) {
		px_cmp_json_scene(c, px_world_n_bodies(w), s->dt, last, drive);
	} else {
		printf("scene       %s: %zu bodies, dt %g s, driven by %s to step %llu\n",
		       c->target, px_world_n_bodies(w), s->dt, drive, last);
		px_cmp_describe(c);
	}
	px_world_set_solve_hook(w, at_hook, &a);
	for (unsigned long long i = 1; i <= last; i++) {
		rc = px_world_step(w, cfg, &st, err);
		/* the hook's errors name the step already */
		if (rc && !(a.next && c->at[a.next - 1] == i)) {
			snprintf(msg, sizeof msg, "%s", err->msg);
			rc = px_error_set(err, rc, "%s: step %llu: %s",
					  c->target, i, msg);
		}
		if (rc)
			goto out;
		progress(tty, "drive", i, last);
		if (a.next < c->n_at && c->at[a.next] == i) {
			progress_clear(tty);
			if (c->json)
				px_cmp_json_step(c, i, NULL, 0.0, NULL, NULL, NULL, NULL);
			else
				printf("\nstep %-6llu no contacts: nothing to compare\n",
				       i);
			a.next++;
		}
	}
out:
	progress_clear(tty);
	px_world_destroy(w);
	px_config_free(cfg);
	return rc;
}

/* ---- --whole ------------------------------------------------------------ */

/* What the hook measures of each solve. */
struct whole_hook {
	double fc3d, fc3d_start;
	uint64_t products; /* the accelerator's, summed over the step's solves */
};

static int whole_hook(void *ctx, const struct px_step_solve *s,
		      struct px_error *err)
{
	struct whole_hook *h = ctx;

	(void)err;
	h->fc3d = px_merit_fc3d(s->problem, s->lambda, NULL);
	h->fc3d_start = px_merit_fc3d(s->problem, s->warm_start, NULL);
	h->products += s->report->accel_products;
	return PX_OK;
}

static void run_free(struct px_cmp_run *r)
{
	free(r->sweeps_of);
	free(r->merit_of);
	free(r->fc3d_of);
}

/* NaN sorts last, with +inf. */
static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? -1 : x > y;
}

/* The p-quantile of sorted x[0..n) (type 7). */
static double quantile(const double *x, size_t n, double p)
{
	const double h = (double)(n - 1) * p;
	const size_t lo = (size_t)floor(h);

	if (lo + 1 >= n || h == (double)lo || x[lo] == x[lo + 1])
		return x[lo];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

/* min, q1, median, q3, max of x (sorted in place) into q; NaN when n is
 * 0. */
static void quartiles(double *x, size_t n, double q[5])
{
	static const double p[] = {0.0, 0.25, 0.5, 0.75, 1.0};

	qsort(x, n, sizeof *x, cmp_double);
	for (int i = 0; i < 5; i++)
		q[i] = n ? quantile(x, n, p[i]) : NAN;
}

/* q's cells: - when there were no solves. */
static void add_quartiles(struct px_table *t, const double q[5], size_t n,
			  int counts)
{
	for (int i = 0; i < 5; i++) {
		if (!n)
			px_table_add(t, "-");
		else if (counts)
			px_table_add(t, "%.6g", q[i]);
		else
			px_table_add(t, "%.3e", q[i]);
	}
}

static void quartile_header(struct px_table *t, size_t cols)
{
	px_table_init(t, cols);
	px_table_add(t, "config");
	if (cols == 7)
		px_table_add(t, "merit");
	px_table_add(t, "min");
	px_table_add(t, "q1");
	px_table_add(t, "median");
	px_table_add(t, "q3");
	px_table_add(t, "max");
}

static const char *merit_of(const struct px_cmp_config *cc)
{
	return px_cli_merit_name(px_config_settings(cc->cfg)->merit);
}

/* The four tables: runs, sweeps, final merit, fc3d. */
static void fill_tables(const struct px_cmp *c, const struct px_cmp_run *runs,
			struct px_table t[4])
{
	px_table_init(&t[0], 10);
	px_table_add(&t[0], "config");
	px_table_add(&t[0], "merit");
	px_table_add(&t[0], "steps");
	px_table_add(&t[0], "solves");
	px_table_add(&t[0], "converged");
	px_table_add(&t[0], "hit limit");
	px_table_add(&t[0], "diverged");
	px_table_add(&t[0], "sweeps");
	px_table_add(&t[0], "solve s");
	px_table_add(&t[0], "us/sweep");
	quartile_header(&t[1], 6);
	quartile_header(&t[2], 7);
	quartile_header(&t[3], 6);
	for (size_t i = 0; i < c->n; i++) {
		const struct px_cmp_run *r = runs + i;

		px_table_add(&t[0], "%s", c->c[i].label);
		px_table_add(&t[0], "%s", merit_of(c->c + i));
		px_table_add(&t[0], "%llu", r->steps);
		px_table_add(&t[0], "%llu", r->solves);
		px_table_add(&t[0], "%llu", r->converged);
		px_table_add(&t[0], "%llu", r->hit_limit);
		px_table_add(&t[0], "%llu", r->diverged);
		px_table_add(&t[0], "%llu", r->sweeps);
		px_table_add(&t[0], "%.3f", r->solve_seconds);
		px_table_add(&t[0], "%.3g",
			     r->sweeps ? 1e6 * r->solve_seconds /
						 (double)r->sweeps
				       : 0.0);
		px_table_add(&t[1], "%s", c->c[i].label);
		add_quartiles(&t[1], r->q_sweeps, r->solves, 1);
		px_table_add(&t[2], "%s", c->c[i].label);
		px_table_add(&t[2], "%s", merit_of(c->c + i));
		add_quartiles(&t[2], r->q_merit, r->solves, 0);
		px_table_add(&t[3], "%s", c->c[i].label);
		add_quartiles(&t[3], r->q_fc3d, r->solves, 0);
	}
}

static const char *const table_title[4] = {
	"runs",
	"sweeps per solve",
	"final merit per solve (the config's own stop test)",
	"fc3d error after each solve",
};

static const char *const table_note =
	"solves: steps with contacts (the others solve nothing). hit limit: "
	"stopped at max_sweeps without converging. diverged: not converged, "
	"and the final merit or fc3d error not finite or the fc3d error above "
	"that of the step's warm start. solve s: the world's solve time "
	"(plugin set-up included); us/sweep: that per sweep. Quartiles over "
	"the solves: min, q1, median, q3, max (linear between order "
	"statistics).";

static int write_markdown(const struct px_cmp *c, const struct px_table t[4],
			  unsigned long long steps, struct px_error *err)
{
	char path[4096];
	struct px_outfile o;
	FILE *f;

	if (px_cmp_path(path, sizeof path, c->out, "table.md", err) ||
	    px_outfile_open(&o, path, err))
		return err->code;
	f = o.f;
	fprintf(f, "# proxima compare: %s, %llu steps per config\n", c->target,
		steps);
	for (int k = 0; k < 4; k++) {
		fprintf(f, "\n## %s\n\n", table_title[k]);
		px_table_markdown(&t[k], f);
	}
	fprintf(f, "\n%s\n\nConfigs:\n\n", table_note);
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, "- %s: `%s`, per step `%s-steps.csv`\n",
			c->c[i].label, c->c[i].path, c->c[i].label);
	return px_outfile_commit(&o, err);
}

/* plot '<file of each config>' using ... with <style> ls i title
 * '<label>' (the caller ends the line): lines get a marker every pi
 * points, steps none. */
static void plot_each(FILE *f, const struct px_cmp *c, const char *using,
		      int steps, unsigned long long pi)
{
	fprintf(f, "\tplot ");
	for (size_t i = 0; i < c->n; i++) {
		fprintf(f, "%shere.'/%s-steps.csv' skip 1 using %s ",
			i ? ", " : "", c->c[i].label, using);
		if (steps)
			fprintf(f, "with steps ls %zu", i + 1);
		else
			fprintf(f, "with linespoints ls %zu pi %llu", i + 1, pi);
		fprintf(f, " title '%s' noenhanced", c->c[i].label);
	}
}

/* c->out/NAME.gp into o (its path in path): its stream, or NULL. */
static FILE *script(struct px_cmp *c, const char *name, char *path,
		    size_t len, struct px_outfile *o, struct px_error *err)
{
	char file[64];

	snprintf(file, sizeof file, "%s.gp", name);
	if (px_cmp_path(path, len, c->out, file, err) ||
	    px_outfile_open(o, path, err))
		return NULL;
	return o->f;
}

static int script_done(struct px_cmp *c, struct px_outfile *o,
		       const char *path, struct px_error *err)
{
	px_plot_end(o->f);
	if (px_outfile_commit(o, err))
		return err->code;
	return px_cmp_add_script(c, path, err);
}

/* A marker every pi steps: about eight per line. */
static unsigned long long marker_every(unsigned long long steps)
{
	return steps / 8 > 1 ? steps / 8 : 1;
}

/* DIR/sweeps.gp: the work (sweeps, plus the accelerator's products with
 * A) and fc3d error per step over time, and their cumulative
 * distributions over the solves (Erleben 2017, Figs. 4, 8); the tolerances of
 * the configs that stop on fc3d dashed. */
static int write_sweeps_script(struct px_cmp *c, unsigned long long steps,
			       struct px_error *err)
{
	const char *work = px_cmp_any_accelerator(c)
				   ? "work: sweeps + the accelerator''s products with A"
				   : "sweeps";
	char path[4096], title[4200];
	struct px_outfile o;
	FILE *f = script(c, "sweeps", path, sizeof path, &o, err);

	if (!f)
		return err->code;
	px_plot_begin(f, "sweeps",
		      "the distribution of sweeps and fc3d errors over the steps",
		      1200, 900, c->n);
	snprintf(title, sizeof title, "Solves of %s, one run per config",
		 px_cmp_basename(c->target));
	fprintf(f, "\tset multiplot layout 2,2 title ");
	px_plot_quote(f, title);
	/* sweeps and errors spread over decades: log scales */
	fprintf(f, " noenhanced\n\tset logscale y\n\tset format y '10^{%%L}'\n"
		   "\tset xlabel 'time (s)'\n\tset ylabel '%s'\n",
		work);
	plot_each(f, c, "2:($3 > 0 ? $13 : NaN)", 0, marker_every(steps));
	fprintf(f, "\n\tset ylabel 'fc3d error after the solve'\n");
	plot_each(f, c, "2:($3 > 0 ? $6 : NaN)", 0, marker_every(steps));
	px_cmp_plot_tolerances(f, c, PX_MERIT_FC3D);
	fprintf(f, "\n\tunset logscale y\n\tset format y '%%g'\n"
		   "\tset ytics 0.25\n\tset yrange [0:1]\n\tset logscale x\n"
		   "\tset format x '10^{%%L}'\n"
		   "\tset key bottom right\n"
		   "\tset xlabel '%s'\n\tset ylabel 'fraction of solves'\n",
		work);
	plot_each(f, c, "($3 > 0 ? $13 : NaN):(1) smooth cnormal", 1, 0);
	fprintf(f, "\n\tset xlabel 'fc3d error after the solve'\n");
	plot_each(f, c, "($3 > 0 ? $6 : NaN):(1) smooth cnormal", 1, 0);
	fprintf(f, "\n\tunset multiplot\n\tunset logscale x\n\tset format x '%%g'\n"
		   "\tset ytics autofreq\n\tset yrange [*:*]\n"
		   "\tset key top right\n");
	return script_done(c, &o, path, err);
}

/* DIR/energy.gp: kinetic and potential energy over time (Erleben 2017,
 * Fig. 7). */
static int write_energy_script(struct px_cmp *c, unsigned long long steps,
			       struct px_error *err)
{
	char path[4096], title[4200];
	struct px_outfile o;
	FILE *f = script(c, "energy", path, sizeof path, &o, err);

	if (!f)
		return err->code;
	px_plot_begin(f, "energy", "the energies of each config's run", 1200,
		      500, c->n);
	snprintf(title, sizeof title, "Energies of %s, one run per config",
		 px_cmp_basename(c->target));
	fprintf(f, "\tset multiplot layout 1,2 title ");
	px_plot_quote(f, title);
	fprintf(f, " noenhanced\n\tset xlabel 'time (s)'\n\tset ylabel 'kinetic energy (J)'\n");
	plot_each(f, c, "2:10", 0, marker_every(steps));
	fprintf(f, "\n\tset ylabel 'potential energy (J)'\n");
	plot_each(f, c, "2:11", 0, marker_every(steps));
	fprintf(f, "\n\tunset multiplot\n");
	return script_done(c, &o, path, err);
}

/* Config i's run: DIR/LABEL-steps.csv and r. */
static int run_one(struct px_cmp *c, size_t i, struct px_cmp_run *r,
		   unsigned long long *steps_out, struct px_error *err)
{
	const struct px_cmp_config *cc = c->c + i;
	const uint64_t max_sweeps = px_config_settings(cc->cfg)->max_sweeps;
	const int tty = isatty(STDERR_FILENO);
	struct whole_hook h;
	struct px_world *w = NULL;
	struct px_step_stats st;
	char path[4096], name[PX_CMP_LABEL_MAX + 16];
	unsigned long long steps;
	struct px_outfile o = {.fd = -1};
	FILE *f = NULL;
	int rc;

	rc = px_scene_load(c->target, &w, err);
	if (rc)
		return rc;
	if (c->steps)
		px_world_settings_mut(w)->steps = c->steps;
	steps = px_world_settings(w)->steps;
	*steps_out = steps;
	r->sweeps_of = malloc((steps + 1) * sizeof *r->sweeps_of);
	r->merit_of = malloc((steps + 1) * sizeof *r->merit_of);
	r->fc3d_of = malloc((steps + 1) * sizeof *r->fc3d_of);
	if (!r->sweeps_of || !r->merit_of || !r->fc3d_of) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	snprintf(name, sizeof name, "%s-steps.csv", cc->label);
	rc = px_cmp_path(path, sizeof path, c->out, name, err);
	if (rc)
		goto out;
	rc = px_outfile_open(&o, path, err);
	if (rc)
		goto out;
	f = o.f;
	fprintf(f, "step,time,contacts,sweeps,merit,fc3d,converged,hit_limit,"
		   "diverged,kinetic,potential,seconds_solve,work\n");
	px_world_set_solve_hook(w, whole_hook, &h);
	for (unsigned long long k = 1; k <= steps; k++) {
		int hit = 0, div = 0;

		h.fc3d = h.fc3d_start = 0.0;
		h.products = 0;
		rc = px_world_step(w, cc->cfg, &st, err);
		if (rc) {
			char msg[PX_ERROR_MSG_MAX];

			snprintf(msg, sizeof msg, "%s", err->msg);
			rc = px_error_set(err, rc, "%s: %s (config %s): step %llu: %s",
					  c->target, cc->label, cc->path, k,
					  msg);
			goto out;
		}
		r->steps++;
		r->sweeps += st.sweeps;
		r->solve_seconds += st.seconds_solve;
		if (st.contacts) {
			hit = !st.converged && st.sweeps >= max_sweeps;
			div = !st.converged &&
			      (!isfinite(st.merit) || !isfinite(h.fc3d) ||
			       h.fc3d > h.fc3d_start);
			r->sweeps_of[r->solves] = (double)st.sweeps;
			r->merit_of[r->solves] = st.merit;
			r->fc3d_of[r->solves] = h.fc3d;
			r->solves++;
			r->converged += st.converged != 0;
			r->hit_limit += hit;
			r->diverged += div;
		}
		fprintf(f, "%llu,%.9g,%zu,%llu,%.6e,%.6e,%d,%d,%d,%.12g,%.12g,%.6e,%llu\n",
			k, st.time, st.contacts, (unsigned long long)st.sweeps,
			st.merit, h.fc3d, st.converged, hit, div, st.kinetic,
			st.potential, st.seconds_solve,
			(unsigned long long)(st.sweeps + h.products));
		progress(tty, cc->label, k, steps);
	}
	progress_clear(tty);
	rc = px_outfile_commit(&o, err);
	f = NULL;
	snprintf(r->csv, sizeof r->csv, "%s", path);
	quartiles(r->sweeps_of, r->solves, r->q_sweeps);
	quartiles(r->merit_of, r->solves, r->q_merit);
	quartiles(r->fc3d_of, r->solves, r->q_fc3d);
	if (!rc && !c->json)
		printf("run         %s: %llu steps, %llu with contacts, %llu sweeps, solve %.3f s: %s\n",
		       cc->label, r->steps, r->solves, r->sweeps,
		       r->solve_seconds, path);
out:
	if (f) {
		progress_clear(tty);
		px_outfile_abort(&o);
	}
	px_world_destroy(w);
	return rc;
}

/* Read the scene once, to refuse a bad one before any run, and say what
 * it is. */
static int describe_scene(struct px_cmp *c, struct px_error *err)
{
	struct px_world *w = NULL;
	const struct px_world_settings *s;
	int rc = px_scene_load(c->target, &w, err);

	if (rc)
		return rc;
	s = px_world_settings(w);
	if (c->json) {
		px_cmp_json_scene(c, px_world_n_bodies(w), s->dt,
				  c->steps ? c->steps
					   : (unsigned long long)s->steps,
				  NULL);
	} else {
		printf("scene       %s: %zu bodies, dt %g s, %llu steps, one run per config\n",
		       c->target, px_world_n_bodies(w), s->dt,
		       c->steps ? c->steps : (unsigned long long)s->steps);
		px_cmp_describe(c);
	}
	px_world_destroy(w);
	return PX_OK;
}

int px_cmp_whole(struct px_cmp *c, struct px_error *err)
{
	struct px_cmp_run *runs = calloc(c->n, sizeof *runs);
	struct px_table t[4] = {{0}};
	unsigned long long steps = 0;
	int rc = PX_OK;

	if (!runs)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	rc = px_cmp_mkdir(c->out, err);
	if (!rc)
		rc = describe_scene(c, err);
	for (size_t i = 0; i < c->n && !rc; i++)
		rc = run_one(c, i, runs + i, &steps, err);
	if (rc)
		goto out;
	fill_tables(c, runs, t);
	for (int k = 0; k < 4; k++)
		if (px_table_failed(&t[k])) {
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
			goto out;
		}
	rc = write_markdown(c, t, steps, err);
	if (!rc)
		rc = write_sweeps_script(c, steps, err);
	if (!rc)
		rc = write_energy_script(c, steps, err);
	if (rc)
		goto out;
	if (c->json) {
		px_cmp_json_runs(c, runs);
		goto out;
	}
	for (int k = 0; k < 4; k++) {
		printf("\n%s\n", table_title[k]);
		px_table_print(&t[k], stdout);
	}
	printf("\nnotes       hit limit: stopped at max_sweeps; diverged: not converged and merit or fc3d not finite, or fc3d above the warm start's; quartiles over the steps with contacts\n");
	printf("table       %s/table.md\n", c->out);
out:
	for (int k = 0; k < 4; k++)
		px_table_free(&t[k]);
	for (size_t i = 0; i < c->n; i++)
		run_free(runs + i);
	free(runs);
	return rc;
}
