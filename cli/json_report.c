/* The JSON reports of `proxima solve` and `proxima run` (json_report.h),
 * built with json-c from the results their text reports print; `proxima
 * compare`'s is compare_json.c's. The layouts are proxima(1)'s JSON OUTPUT
 * section: a field added there is added here, and tests/json_output.sh
 * reads them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_report.h"
#include "run.h"
#include "solve.h"
#include "stop.h"

json_object *px_json_num(double x)
{
	char text[32];

	/* JSON has no NaN or infinity: json-c would write NaN, Infinity */
	if (!isfinite(x))
		return NULL;
	/* the fewest digits that read back to x (5e-09, not 5.0000000000000001e-09) */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(text, sizeof text, "%.*g", digits, x);
		if (strtod(text, NULL) == x)
			break;
	}
	if (!strpbrk(text, ".e")) /* a real reads back as a real: 1.0 */
		strcat(text, ".0");
	return json_object_new_double_s(x, text);
}

json_object *px_json_str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *px_json_u64(uint64_t n)
{
	return json_object_new_uint64(n);
}

json_object *px_json_bool(int b)
{
	return json_object_new_boolean(b != 0);
}

void px_json_set(json_object *o, const char *key, json_object *v)
{
	if (o)
		json_object_object_add(o, key, v);
	else
		json_object_put(v);
}

/* ---- the config ---------------------------------------------------------- */

static const char *const section_name[] = {"solver", "friction", "ordering",
					   "rfactor", "scheduler",
					   "accelerator"};

/* A parameter's value as JSON, of its declared type. */
static json_object *param(const struct px_param_decl *d,
			  const union px_value *v)
{
	char text[256];

	switch (d->type) {
	case PX_PARAM_INT:
		return json_object_new_int64(v->i);
	case PX_PARAM_REAL:
		return px_json_num(v->r);
	case PX_PARAM_BOOL:
		return px_json_bool(v->b);
	default: /* a choice by its word, a string as it is */
		return px_param_format(d, v, text, sizeof text) ? NULL
							       : px_json_str(text);
	}
}

/* Section k's parameters in effect into o (none when out of memory). */
static void add_params(json_object *o, const struct px_config *cfg,
		       unsigned k)
{
	const struct px_param_decl *d;
	const size_t n = px_config_params(cfg, k, &d, NULL, 0);
	union px_value *v = malloc((n + 1) * sizeof *v);

	if (!v)
		return;
	px_config_params(cfg, k, &d, v, n);
	for (size_t i = 0; i < n; i++)
		px_json_set(o, d[i].key, param(&d[i], &v[i]));
	free(v);
}

json_object *px_json_config(const struct px_config *cfg)
{
	json_object *o = json_object_new_object();

	px_json_set(o, "source", px_json_str(px_config_source(cfg)));
	for (unsigned k = 0; k <= PX_KIND_ACCELERATOR; k++) {
		const struct px_plugin *pl = k ? px_config_plugin(cfg, k) : NULL;
		json_object *sec;

		if (k && !pl) {
			px_json_set(o, section_name[k], NULL);
			continue;
		}
		sec = json_object_new_object();
		if (pl)
			px_json_set(sec, "plugin",
				    px_json_str(px_plugin_header(pl)->name));
		add_params(sec, cfg, k);
		px_json_set(o, section_name[k], sec);
	}
	return o;
}

/* ---- proxima solve --------------------------------------------------------- */

static json_object *problem(const struct px_solve_result *r)
{
	json_object *o = json_object_new_object();

	px_json_set(o, "path", px_json_str(r->path));
	if (!r->read)
		return o;
	px_json_set(o, "contacts", px_json_u64(r->contacts));
	px_json_set(o, "rows_per_contact", px_json_u64(r->rows));
	px_json_set(o, "form",
		    px_json_str(r->assembled ? "assembled" : "factorized"));
	return o;
}

static json_object *check(const struct px_solve_result *r)
{
	json_object *o;

	if (isnan(r->rep.check) && !r->rep.check_failed)
		return NULL;
	o = json_object_new_object();
	px_json_set(o, "value", px_json_num(r->rep.check));
	px_json_set(o, "tol", px_json_num(px_config_settings(r->cfg)->check_tol));
	px_json_set(o, "failed", px_json_bool(r->rep.check_failed));
	return o;
}

static json_object *diverged(const struct px_report *rep)
{
	json_object *o;

	if (!rep->diverged)
		return NULL;
	o = json_object_new_object();
	px_json_set(o, "sweep", px_json_u64(rep->diverged_sweep));
	px_json_set(o, "cause", px_json_str(px_cli_divergence_name(rep->diverged)));
	px_json_set(o, "text", px_json_str(px_cli_divergence_text(rep->diverged)));
	return o;
}

static json_object *accelerator(const struct px_solve_result *r)
{
	const struct px_plugin *acc =
		px_config_plugin(r->cfg, PX_KIND_ACCELERATOR);
	const struct px_report *rep = &r->rep;
	json_object *o;

	if (!acc)
		return NULL;
	o = json_object_new_object();
	px_json_set(o, "plugin", px_json_str(px_plugin_header(acc)->name));
	px_json_set(o, "calls", px_json_u64(rep->accel_steps));
	px_json_set(o, "replaced", px_json_u64(rep->accel_replaced));
	px_json_set(o, "products", px_json_u64(rep->accel_products));
	px_json_set(o, "seconds", px_json_num(rep->accel_seconds));
	px_json_set(o, "restored", px_json_bool(rep->accel_restored));
	px_json_set(o, "describe",
		    px_json_str(r->accelerator[0] ? r->accelerator : NULL));
	return o;
}

static json_object *outputs(const struct px_solve_opts *o)
{
	json_object *out = json_object_new_object();

	px_json_set(out, "history", px_json_str(o->history));
	px_json_set(out, "out", px_json_str(o->out));
	px_json_set(out, "save_fclib", px_json_str(o->save_fclib));
	return out;
}

json_object *px_json_solve(const struct px_solve_result *r)
{
	const struct px_report *rep = &r->rep;
	json_object *o = json_object_new_object(), *x;

	px_json_set(o, "schema", px_json_str("proxima-solve/1"));
	px_json_set(o, "problem", problem(r));
	px_json_set(o, "config", px_json_config(r->cfg));
	px_json_set(o, "start", px_json_str(px_solve_start_name(r->opts->start)));
	if (!r->solved) {
		px_json_set(o, "status", px_json_str("error"));
		px_json_set(o, "converged", px_json_bool(0));
		px_json_set(o, "error", px_json_str(r->error));
		px_json_set(o, "exit_status", json_object_new_int(r->status));
		return o;
	}
	px_json_set(o, "status", px_json_str(px_stop_name(rep->stop)));
	px_json_set(o, "converged", px_json_bool(rep->converged));
	px_json_set(o, "sweeps", px_json_u64(rep->sweeps));
	px_json_set(o, "rejected", px_json_u64(rep->rejected));
	px_json_set(o, "last_delta", px_json_num(rep->residual));
	px_json_set(o, "best_sweep",
		    rep->best_sweep ? px_json_u64(rep->best_sweep) : NULL);
	x = json_object_new_object();
	px_json_set(x, "name", px_json_str(px_cli_merit_name(
				       px_config_settings(r->cfg)->merit)));
	px_json_set(x, "value", px_json_num(rep->merit));
	px_json_set(o, "merit", x);
	x = json_object_new_object();
	px_json_set(x, "error", px_json_num(r->fc3d));
	px_json_set(x, "F_norm", px_json_num(r->fc3d_F));
	/* fc3d measures the disc law: the config's, or not */
	px_json_set(x, "of_config_law",
		    px_json_bool(px_config_friction_is_disc(r->cfg)));
	px_json_set(o, "fc3d", x);
	px_json_set(o, "check", check(r));
	px_json_set(o, "diverged", diverged(rep));
	x = json_object_new_object();
	px_json_set(x, "seconds", px_json_num(rep->seconds));
	px_json_set(x, "prepare_seconds", px_json_num(rep->prepare_seconds));
	px_json_set(x, "us_per_sweep", px_json_num(px_cli_us_per_sweep(rep)));
	px_json_set(o, "time", x);
	px_json_set(o, "scheduler",
		    px_json_str(r->scheduler[0] ? r->scheduler : NULL));
	px_json_set(o, "kernel", px_json_str(px_cli_kernel_name(rep)));
	px_json_set(o, "accelerator", accelerator(r));
	px_json_set(o, "outputs", outputs(r->opts));
	px_json_set(o, "error", px_json_str(r->error[0] ? r->error : NULL));
	px_json_set(o, "exit_status", json_object_new_int(r->status));
	return o;
}

json_object *px_json_solve_list(json_object *results,
				const struct px_solve_summary *s)
{
	json_object *o = json_object_new_object(),
		    *sum = json_object_new_object();

	px_json_set(o, "schema", px_json_str("proxima-solve-list/1"));
	px_json_set(o, "results", results);
	px_json_set(sum, "problems", px_json_u64(s->problems));
	px_json_set(sum, "converged", px_json_u64(s->converged));
	px_json_set(sum, "not_converged", px_json_u64(s->not_converged));
	px_json_set(sum, "errors", px_json_u64(s->errors));
	px_json_set(sum, "not_run", px_json_u64(s->not_run));
	px_json_set(sum, "solve_seconds", px_json_num(s->solve_seconds));
	px_json_set(sum, "seconds", px_json_num(s->seconds));
	px_json_set(sum, "exit_status", json_object_new_int(s->status));
	px_json_set(o, "summary", sum);
	return o;
}

/* ---- proxima run ---------------------------------------------------------- */

static json_object *scene(const struct px_run_result *r)
{
	const struct px_world_settings *s = &r->settings;
	const int soft = s->stabilization == PX_STAB_SOFT;
	json_object *o = json_object_new_object();

	px_json_set(o, "path", px_json_str(r->scene));
	px_json_set(o, "bodies", px_json_u64(r->bodies));
	px_json_set(o, "dt", px_json_num(s->dt));
	px_json_set(o, "steps", px_json_u64(s->steps));
	px_json_set(o, "stepping", px_json_str(px_run_stepping_name(s->stepping)));
	px_json_set(o, "stabilization",
		    px_json_str(px_run_stabilization_name(s->stabilization)));
	px_json_set(o, "contact_cache", px_json_bool(s->warm_start));
	px_json_set(o, "substeps", px_json_u64(s->substeps));
	px_json_set(o, "contact_hertz", soft ? px_json_num(s->contact_hertz) : NULL);
	px_json_set(o, "contact_damping_ratio",
		    soft ? px_json_num(s->contact_damping_ratio) : NULL);
	return o;
}

static json_object *run_outputs(const struct px_run_result *r)
{
	json_object *o = json_object_new_object(), *vtk = NULL;

	px_json_set(o, "csv", px_json_str(r->csv));
	if (r->vtk) {
		vtk = json_object_new_object();
		px_json_set(vtk, "dir", px_json_str(r->vtk));
		px_json_set(vtk, "frames", px_json_u64(r->frames));
		px_json_set(vtk, "index", px_json_str(r->pvd));
		{
			char path[4096];

			snprintf(path, sizeof path, "%s/contacts.pvd", r->vtk);
			px_json_set(vtk, "contacts", px_json_str(path));
		}
	}
	px_json_set(o, "vtk", vtk);
	px_json_set(o, "state", px_json_str(r->state));
	return o;
}

json_object *px_json_run(const struct px_run_result *r)
{
	json_object *o = json_object_new_object(), *x;

	px_json_set(o, "schema", px_json_str("proxima-run/1"));
	px_json_set(o, "scene", scene(r));
	px_json_set(o, "config", px_json_config(r->cfg));
	px_json_set(o, "status", px_json_str(r->stopped ? px_stop_name(r->stopped)
							: "completed"));
	px_json_set(o, "signal",
		    r->stopped == PX_STOP_INTERRUPTED
			    ? px_json_str(px_cli_signal_name(px_cli_stop_signal()))
			    : NULL);
	px_json_set(o, "time_limit",
		    r->time_limit > 0 ? px_json_num(r->time_limit) : NULL);
	px_json_set(o, "steps_done", px_json_u64(r->steps_done));
	x = json_object_new_object();
	px_json_set(x, "per_step", px_json_num(r->contacts_per_step));
	px_json_set(x, "max", px_json_u64(r->contacts_max));
	px_json_set(x, "deepest_penetration", px_json_num(r->max_depth));
	px_json_set(o, "contacts", x);
	x = json_object_new_object();
	px_json_set(x, "sweeps", px_json_u64(r->sweeps));
	px_json_set(x, "sweeps_per_step",
		    px_json_num(r->steps_done ? (double)r->sweeps /
							(double)r->steps_done
					      : 0.0));
	px_json_set(x, "unconverged_steps", px_json_u64(r->unconverged));
	px_json_set(o, "solves", x);
	x = json_object_new_object();
	px_json_set(x, "start", px_json_num(r->energy_start));
	px_json_set(x, "end", px_json_num(r->energy_end));
	px_json_set(o, "energy", x);
	x = json_object_new_object();
	px_json_set(x, "seconds", px_json_num(r->seconds));
	px_json_set(x, "collision_seconds", px_json_num(r->collide_seconds));
	px_json_set(x, "solve_seconds", px_json_num(r->solve_seconds));
	{
		json_object *st = json_object_new_object();

		for (int k = 0; k < PX_SIM_N_STAGES; k++) {
			json_object *g = json_object_new_object();

			px_json_set(g, "seconds",
				    px_json_num(r->stage_seconds[k]));
			px_json_set(g, "ns_per_contact",
				    px_json_num(r->stage_contacts > 0
							? 1e9 * r->stage_seconds[k] /
								  r->stage_contacts
							: 0.0));
			px_json_set(st, px_run_stage_keys[k], g);
		}
		px_json_set(x, "stages", st);
	}
	px_json_set(o, "time", x);
	px_json_set(o, "outputs", run_outputs(r));
	px_json_set(o, "exit_status", json_object_new_int(r->status));
	return o;
}

int px_json_print(json_object *o)
{
	const char *text = o ? json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						  JSON_C_TO_STRING_NOSLASHESCAPE)
			     : NULL;
	int rc = 0;

	if (!text || printf("%s\n", text) < 0 || fflush(stdout)) {
		fprintf(stderr, "proxima: cannot write the JSON report\n");
		rc = -1;
	}
	json_object_put(o);
	return rc;
}

int px_json_print_solve(const struct px_solve_result *r)
{
	return px_json_print(px_json_solve(r));
}
