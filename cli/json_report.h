/* The command's JSON reports (--json on solve, run and compare), built with
 * json-c: one object on stdout, its "schema" naming its layout
 * (proxima-solve/1, proxima-solve-list/1, proxima-run/1,
 * proxima-compare/1; documented in proxima(1), JSON OUTPUT). Numbers are
 * written exactly (%.17g), a non-finite one as null. */
#ifndef PX_CLI_JSON_REPORT_H
#define PX_CLI_JSON_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <proxima/proxima.h>

struct px_solve_result;
struct px_solve_summary;
struct px_run_result;

/* Values: a double (null when not finite), a string (null for NULL), an
 * unsigned count, a boolean. */
json_object *px_json_num(double x);
json_object *px_json_str(const char *s);
json_object *px_json_u64(uint64_t n);
json_object *px_json_bool(int b);

/* o[key] = v (v NULL: null). */
void px_json_set(json_object *o, const char *key, json_object *v);

/* The config: its source (its layers), [solver] and each plugin section
 * with its plugin and every parameter in effect, typed (the accelerator's
 * section null without one). */
json_object *px_json_config(const struct px_config *cfg);

/* One problem's solve (proxima-solve/1); with several problems, the
 * results and their summary (proxima-solve-list/1). */
json_object *px_json_solve(const struct px_solve_result *r);
json_object *px_json_solve_list(json_object *results,
				const struct px_solve_summary *s);

/* A run of a scene (proxima-run/1). */
json_object *px_json_run(const struct px_run_result *r);

/* o to stdout, indented, then a newline; o is released. 0, or -1 (with a
 * line on stderr) when it cannot. */
int px_json_print(json_object *o);

/* px_json_print(px_json_solve(r)) */
int px_json_print_solve(const struct px_solve_result *r);

#endif
