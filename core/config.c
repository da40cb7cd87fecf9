/* Solver configuration: INI layers read with inih (doc/design.md, section 6).
 * [solver] holds the driver's settings; [friction], [ordering], [rfactor],
 * [scheduler] and [accelerator] name a plugin and set its declared keys.
 * A config is built from layers (files, INI text, single --set keys) over
 * the compiled defaults, later keys winning; absent keys take the defaults
 * (for [accelerator]: none, no plugin at all); everything else that is not
 * understood is an error naming the file, line, section and key. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxima/config.h>
#include <proxima/solver.h>

#include "grow.h"
#include "ini_lines.h"
#include "params.h"

#define MAX_LINE (PX_INI_LINE_MAX + 2) /* a line, its end and a NUL */

#define N_KINDS 5u

static const char *const plugin_default[] = {
	NULL,		      PX_DEFAULT_FRICTION, PX_DEFAULT_ORDERING,
	PX_DEFAULT_RFACTOR,   PX_DEFAULT_SCHEDULER,
	PX_DEFAULT_ACCELERATOR,
};

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct px_param_decl solver_decl[] = {
	{"max_sweeps", PX_PARAM_INT, STR(PX_DEFAULT_MAX_SWEEPS),
	 "sweep limit, rejected sweeps included", 1, 1e15, NULL},
	{"abs_tol", PX_PARAM_REAL, STR(PX_DEFAULT_ABS_TOL),
	 "stop when the merit is at most abs_tol", 0, 1e300, NULL},
	{"rel_tol", PX_PARAM_REAL, STR(PX_DEFAULT_REL_TOL),
	 "merit delta only: also stop when delta <= rel_tol * ||lambda||_inf",
	 0, 1, NULL},
	{"merit", PX_PARAM_CHOICE, PX_DEFAULT_MERIT,
	 "stop test: delta = ||lambda_k+1 - lambda_k||_inf, fc3d = Siconos's error, natural = 1/2||lambda - prox(lambda - natural_r v)||^2, minmap = 1/2 H^T H of the box model",
	 0, -1, "delta|fc3d|natural|minmap"},
	{"natural_r", PX_PARAM_REAL, STR(PX_DEFAULT_NATURAL_R),
	 "the fixed r_c of the natural merit", 1e-300, 1e300, NULL},
	{"max_backtracks", PX_PARAM_INT, STR(PX_DEFAULT_MAX_BACKTRACKS),
	 "rejected sweeps allowed per solve; after that R stays and sweeps are accepted",
	 0, 1e15, NULL},
	{"check_tol", PX_PARAM_REAL, STR(PX_DEFAULT_CHECK_TOL),
	 "merits other than fc3d: success only if ||lambda - prox(lambda - v)|| / max(||b||, ||lambda||, ||v||) <= check_tol",
	 0, 1e300, NULL},
	{"kernel", PX_PARAM_CHOICE, "auto",
	 "relax kernel: auto = the one of rigid 3-row contacts (fixed sizes) for full sweeps when the problem is rigid with 3 rows, R diagonal and the friction set not separable; generic = always the general one; wide = full sweeps of rigid 3-row contacts with the disc or a separable set (box) run the independent lists a scheduler hands over (colored patches = K lanes = 4) side by side in 4 SIMD lanes (AVX2 where the CPU has it), the same lambda as auto bit for bit; elsewhere as auto",
	 0, -1, "auto|generic|wide"},
	{"check", PX_PARAM_BOOL, "off",
	 "check the friction plugin's every projection (a finite impulse, written only into its rows) and the ordering's every rewritten permutation, and name the plugin when one fails; costs a copy per projection",
	 0, -1, NULL},
	{"local_solve", PX_PARAM_CHOICE, "projection",
	 "what a visit of a contact does: projection = one projection with the r-factors; newton = its one-contact problem solved exactly (Alart-Curnier Newton on its diagonal block, disc friction only)",
	 0, -1, "projection|newton"},
	{"local_tol", PX_PARAM_REAL, "1e-12",
	 "local_solve = newton: relative Alart-Curnier residual a visit stops at",
	 0, 1, NULL},
	{"local_max_iter", PX_PARAM_INT, "20",
	 "local_solve = newton: Newton steps per visit at most", 1, 1000,
	 NULL},
	{"local_forcing", PX_PARAM_REAL, "0",
	 "local_solve = newton: from a contact's second visit in a solve on, a visit also stops once its Alart-Curnier residual is at most this fraction of the change it makes to the contact's impulse (inexact while the sweeps move the impulses, exact to local_tol as they settle); 0 = always to local_tol",
	 0, 1, NULL},
	{"time_limit", PX_PARAM_REAL, STR(PX_DEFAULT_TIME_LIMIT),
	 "seconds of wall time a solve may take (checked between sweeps and between an accelerator's Newton steps, then it stops as 'time limit' with the lowest-merit iterate it saw); 0 = no limit",
	 0, 1e300, NULL},
	{"stall_sweeps", PX_PARAM_INT, STR(PX_DEFAULT_STALL_SWEEPS),
	 "stop as 'stalled' after this many accepted sweeps in a row that miss the stop test with delta <= stall_rel * ||lambda||_inf; 0 = never",
	 0, 1e15, NULL},
	{"stall_rel", PX_PARAM_REAL, STR(PX_DEFAULT_STALL_REL),
	 "the stagnation floor of delta relative to ||lambda||_inf (1e-14: some 45 rounding units of the largest impulse); 0 = only sweeps that change nothing",
	 0, 1, NULL},
};

enum {
	SOLVER_MAX_SWEEPS,
	SOLVER_ABS_TOL,
	SOLVER_REL_TOL,
	SOLVER_MERIT,
	SOLVER_NATURAL_R,
	SOLVER_MAX_BACKTRACKS,
	SOLVER_CHECK_TOL,
	SOLVER_KERNEL,
	SOLVER_CHECK,
	SOLVER_LOCAL_SOLVE,
	SOLVER_LOCAL_TOL,
	SOLVER_LOCAL_MAX_ITER,
	SOLVER_LOCAL_FORCING,
	SOLVER_TIME_LIMIT,
	SOLVER_STALL_SWEEPS,
	SOLVER_STALL_REL,
};

#define N_SOLVER (sizeof solver_decl / sizeof *solver_decl)

struct entry {
	int section; /* 0 = solver, else enum px_kind */
	char *key, *value;
	const char *path; /* its layer's name (reader.names) */
	unsigned line;    /* 0: not from a file (--set) */
	unsigned layer;
};

struct reader {
	const char *path;     /* the layer being read */
	unsigned line;        /* line being parsed */
	unsigned layer;
	struct entry *e;
	size_t n, ecap;
	char **names;         /* each layer's name, for messages */
	unsigned n_names;
	struct px_error *err; /* first error wins */
};

struct px_config {
	struct px_solver_settings settings;
	struct px_plugin *plugin[N_KINDS + 1]; /* [accelerator]: NULL = none */
	char *source; /* the layers, "a.ini + --set k=v", or "(defaults)" */
	px_monitor_fn monitor; /* solver.h; NULL: none */
	void *monitor_user;
};

const struct px_param_decl *px_config_solver_params(size_t *n)
{
	*n = sizeof solver_decl / sizeof *solver_decl;
	return solver_decl;
}

static const char solver_doc[] =
	"The [solver] section sets the driver that every plugin serves\n"
	"(solver.h, Erleben 2017, Algorithm 2). A solve runs ordering.prepare,\n"
	"rfactor.init and scheduler.prepare once, then sweeps: the ordering\n"
	"picks the part to visit (whole contacts, normal rows or friction\n"
	"rows), the scheduler relaxes every contact of the permutation, and\n"
	"delta = ||lambda_k+1 - lambda_k||_inf is compared with the last\n"
	"accepted sweep's: the rfactor plugin may reject a sweep that grew\n"
	"(lambda rolled back, R shrunk by its nu; Erleben 2017, sec. 4.2). An\n"
	"accelerator, when [accelerator] names one, runs between sweeps.\n"
	"\n"
	"The solve stops when the merit is at most abs_tol or after\n"
	"max_sweeps sweeps (rejected sweeps count). The merits: delta, the\n"
	"change of the last sweep, cheap but no proof of a solution (it is\n"
	"small whenever R is small), which also stops when delta <= rel_tol\n"
	"||lambda||_inf; fc3d, Siconos's fc3d_compute_error (the natural-map\n"
	"residual of De Saxce's formulation, scaled by max(||b||, ||lambda||,\n"
	"||A lambda + b||)), comparable with Siconos and FCLib results;\n"
	"natural, 1/2 ||lambda - prox(lambda - natural_r v)||^2 with a fixed\n"
	"r (Poulsen 2010, sec. 3.6); minmap, Theta = 1/2 H^T H of the box model's\n"
	"min-map residual (Poulsen et al. 2010, eq. 22-23). Every merit but fc3d\n"
	"costs one product with A less, but a solve that passes it is reported\n"
	"converged only if the relative natural residual with unit r is at\n"
	"most check_tol (the certificate); otherwise the sweeps go on.\n"
	"\n"
	"Choosing: merit = fc3d with abs_tol 1e-8 or below for accuracy\n"
	"(conf/default.ini: 5e-9); delta with a fixed max_sweeps and\n"
	"abs_tol = 0 for a simulation step of a fixed cost (Catto 2005 runs 10\n"
	"sweeps). max_backtracks bounds the rejections per solve: after it,\n"
	"R stays and every sweep is kept, so a solve whose residual only\n"
	"wobbles does not shrink R to nothing. The solve's exit status is 0\n"
	"converged, 1 not converged (max_sweeps, time_limit or a stall).\n"
	"\n"
	"Two more stops. time_limit (seconds, 0 = none) bounds a solve's wall\n"
	"time: checked between sweeps, and by the accelerators ssn and pgssm\n"
	"between their Newton steps or CG iterations; the solve then ends 'time\n"
	"limit' with the lowest-merit iterate it saw (after a sweep or an\n"
	"accelerator's call), not necessarily the last (with merit = delta, the\n"
	"last). It overruns the limit by at most one sweep or one inner step.\n"
	"stall_sweeps and stall_rel stop a solve that no longer moves: when\n"
	"stall_sweeps accepted sweeps in a row miss the stop test with delta <=\n"
	"stall_rel ||lambda||_inf (no accelerator call replacing lambda among\n"
	"them), the iterate is a fixed point of the sweeps that the merit does\n"
	"not accept and the solve ends 'stalled'. That happens with merit =\n"
	"fc3d and a friction set other than the disc (fc3d measures the\n"
	"isotropic Coulomb law: a box solution keeps its distance to it), or\n"
	"when rounding holds the iterate. The floor 1e-14 is some 45 rounding\n"
	"units of the largest impulse; slow linear convergence stays far above\n"
	"it (BoxesStack1, 1 - 3e-5 per sweep, ends at a delta of 2.4e-9\n"
	"||lambda||_inf). stall_sweeps = 0 turns the test off, stall_rel = 0\n"
	"counts only sweeps that change nothing.\n"
	"\n"
	"local_solve = newton makes every visit of a contact solve its\n"
	"one-contact problem (the other contacts frozen) with its whole\n"
	"diagonal block, to the relative residual local_tol in at most\n"
	"local_max_iter damped Newton steps on the Alart-Curnier function\n"
	"(or, with local_forcing > 0, until the residual is at most\n"
	"local_forcing times the visit's change to the impulse, whichever\n"
	"comes first),\n"
	"starting from the projection's answer and never worse than it, as\n"
	"Siconos's NSGS and Bogus do; a friction-only visit (staggered\n"
	"orderings) solves the friction rows, a normal-only one the normal\n"
	"row exactly. The r-factors then only give the starting point. It\n"
	"supports the disc friction set on 3-row contacts; other sets are\n"
	"refused. Every ordering and scheduler works with it.\n"
	"\n"
	"kernel = wide (issue 34) runs the rigid 3-row update on up to 4\n"
	"contacts at once, one per SIMD lane: the lanes are the independent\n"
	"lists a scheduler hands the kernel in one call (colored with patches\n"
	"= 4 per thread and lanes = 4: each lane walks one patch in order).\n"
	"The vector code is chosen at run time (AVX-512VL, AVX2, else the\n"
	"baseline's vectors) and does the scalar kernel's operations in its\n"
	"order, so lambda is the same bit for bit on x86-64 for any run and\n"
	"thread count. It applies to rigid 3-row problems with a diagonal R\n"
	"and the disc or a separable set (box); elsewhere (ellipsoid, blocked,\n"
	"local_solve = newton, factorized or assembled A) the scalar kernels\n"
	"run, and the report's kernel line says which ran. On this project's\n"
	"2-core AMD EPYC it is slower than the scalar kernel\n"
	"(doc/benchmarks.md, the wide kernel).\n";

const char *px_config_solver_doc(void)
{
	return solver_doc;
}

static int section_index(const char *name)
{
	if (strcmp(name, "solver") == 0)
		return 0;
	for (unsigned k = 1; k <= N_KINDS; k++)
		if (strcmp(name, px_kind_name(k)) == 0)
			return (int)k;
	return -1;
}

static void fail(struct reader *r, int code, const char *what)
{
	if (r->err->code == PX_OK)
		px_error_set(r->err, code, "%s:%u: %s", r->path, r->line, what);
}

/* A section header (core/ini_lines.c reports them: inih skips an empty
 * section): a known section, or an error on its line. */
static void on_section(void *user, unsigned line, const char *text,
		       size_t len)
{
	struct reader *r = user;
	char name[MAX_LINE], msg[MAX_LINE + 128];

	r->line = line;
	snprintf(name, sizeof name, "%.*s", (int)len, text);
	if (section_index(name) < 0) {
		snprintf(msg, sizeof msg,
			 "unknown section [%s] (known: solver, friction, ordering, rfactor, scheduler, accelerator)",
			 name);
		fail(r, PX_ERR_CONFIG, msg);
	}
}

/* Before a key of the layer being read joins: it replaces the same key of
 * the earlier layers, and a plugin other than the one in effect drops the
 * earlier layers' keys of its section (they were the other plugin's). */
static void supersede(struct reader *r, int section, const char *key,
		      const char *value)
{
	int whole = 0;
	size_t k = 0;

	if (section != 0 && strcmp(key, "plugin") == 0) {
		const char *before = plugin_default[section];

		for (size_t i = 0; i < r->n; i++)
			if (r->e[i].layer < r->layer &&
			    r->e[i].section == section &&
			    strcmp(r->e[i].key, "plugin") == 0)
				before = r->e[i].value;
		whole = strcmp(before, value) != 0;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->e[i];

		if (e->layer < r->layer && e->section == section &&
		    (whole || strcmp(e->key, key) == 0)) {
			free(e->key);
			free(e->value);
			continue;
		}
		r->e[k++] = *e;
	}
	r->n = k;
}

static int add_entry(struct reader *r, int idx, const char *key,
		     const char *value)
{
	struct entry *e;

	supersede(r, idx, key, value);
	e = px_grow(r->e, &r->ecap, r->n, sizeof *r->e, 16);
	if (!e) {
		fail(r, PX_ERR_NOMEM, "out of memory");
		return 0;
	}
	r->e = e;
	e += r->n;
	e->section = idx;
	e->path = r->path;
	e->line = r->line;
	e->layer = r->layer;
	e->key = strdup(key);
	e->value = strdup(value);
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		fail(r, PX_ERR_NOMEM, "out of memory");
		return 0;
	}
	r->n++;
	return 1;
}

static int on_value(void *user, unsigned line, const char *section,
		    const char *key, const char *value)
{
	struct reader *r = user;
	char msg[3 * MAX_LINE];
	int idx;

	r->line = line;
	if (!*section) {
		snprintf(msg, sizeof msg, "key '%s' outside any section", key);
		fail(r, PX_ERR_CONFIG, msg);
		return 1;
	}
	idx = section_index(section);
	if (idx < 0)
		return 1; /* already reported at its header */
	return add_entry(r, idx, key, value);
}

/* Settings of one section, in file order, without its `plugin` key. */
static size_t gather(const struct reader *r, int section,
		     struct px_setting *out, const struct entry **plugin)
{
	size_t n = 0;

	*plugin = NULL;
	for (size_t i = 0; i < r->n; i++) {
		if (r->e[i].section != section)
			continue;
		if (section != 0 && strcmp(r->e[i].key, "plugin") == 0) {
			if (!*plugin)
				*plugin = &r->e[i];
			else
				out[n++] = (struct px_setting){
					r->e[i].key, r->e[i].value,
					r->e[i].path, r->e[i].line};
			continue;
		}
		out[n++] = (struct px_setting){r->e[i].key, r->e[i].value,
					       r->e[i].path, r->e[i].line};
	}
	return n;
}

static int apply_solver(struct px_config *cfg, const struct reader *r,
			struct px_setting *set, struct px_error *err)
{
	union px_value v[sizeof solver_decl / sizeof *solver_decl];
	const struct entry *unused;
	size_t n = gather(r, 0, set, &unused);
	int rc = px_params_parse(solver_decl, sizeof v / sizeof *v, set, n,
				 "solver", "the solver", v, err);

	if (rc)
		return rc;
	cfg->settings.max_sweeps = (uint64_t)v[SOLVER_MAX_SWEEPS].i;
	cfg->settings.abs_tol = v[SOLVER_ABS_TOL].r;
	cfg->settings.rel_tol = v[SOLVER_REL_TOL].r;
	cfg->settings.merit = v[SOLVER_MERIT].choice;
	cfg->settings.natural_r = v[SOLVER_NATURAL_R].r;
	cfg->settings.max_backtracks = (uint64_t)v[SOLVER_MAX_BACKTRACKS].i;
	cfg->settings.check_tol = v[SOLVER_CHECK_TOL].r;
	cfg->settings.kernel = v[SOLVER_KERNEL].choice;
	cfg->settings.check = v[SOLVER_CHECK].b;
	cfg->settings.local_solve = v[SOLVER_LOCAL_SOLVE].choice;
	cfg->settings.local_tol = v[SOLVER_LOCAL_TOL].r;
	cfg->settings.local_max_iter = (uint64_t)v[SOLVER_LOCAL_MAX_ITER].i;
	cfg->settings.local_forcing = v[SOLVER_LOCAL_FORCING].r;
	cfg->settings.time_limit = v[SOLVER_TIME_LIMIT].r;
	cfg->settings.stall_sweeps = (uint64_t)v[SOLVER_STALL_SWEEPS].i;
	cfg->settings.stall_rel = v[SOLVER_STALL_REL].r;
	return PX_OK;
}

/* The accelerator 'none': no plugin is loaded, and it has no keys. */
static int no_accelerator(const struct px_setting *set, size_t n,
			  struct px_error *err)
{
	return px_params_parse(NULL, 0, set, n, "accelerator",
			       "accelerator 'none' (no accelerator)", NULL, err);
}

/* "FILE:LINE", or the layer's name alone for a key not from a file. */
static const char *entry_at(const struct entry *e, char *buf, size_t len)
{
	if (e->line)
		snprintf(buf, len, "%s:%u", e->path, e->line);
	else
		snprintf(buf, len, "%s", e->path);
	return buf;
}

static int load_plugins(struct px_config *cfg, const struct reader *r,
			struct px_setting *set, struct px_error *err)
{
	for (unsigned k = 1; k <= N_KINDS; k++) {
		const struct entry *pe;
		size_t n = gather(r, (int)k, set, &pe);
		const char *name = pe ? pe->value : plugin_default[k];
		char at[PX_ERROR_MSG_MAX];
		int rc;

		for (size_t i = 0; i < n; i++)
			if (strcmp(set[i].key, "plugin") == 0)
				return px_error_set(err, PX_ERR_CONFIG,
						    "%s:%u: [%s] plugin: set twice (first on line %u)",
						    set[i].file, set[i].line,
						    px_kind_name(k), pe->line);
		if (k == PX_KIND_ACCELERATOR &&
		    strcmp(name, PX_ACCELERATOR_NONE) == 0) {
			rc = no_accelerator(set, n, err);
			if (rc)
				return rc;
			continue;
		}
		rc = px_plugin_load(k, name, set, n, &cfg->plugin[k], err);
		if (rc == PX_ERR_PLUGIN && pe) {
			char inner[PX_ERROR_MSG_MAX];

			memcpy(inner, err->msg, sizeof inner);
			px_error_set(err, rc, "%s: [%s] plugin: %s",
				     entry_at(pe, at, sizeof at),
				     px_kind_name(k), inner);
		}
		if (rc)
			return rc;
	}
	return PX_OK;
}

static int is_ini(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && d->d_name[0] != '.' &&
	       strcmp(d->d_name + n - 4, ".ini") == 0;
}

/* word is one of the comma-separated words of list. */
static int word_listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *c = list; (c = strstr(c, word)); c += n)
		if ((c == list || c[-1] == ' ') && (c[n] == ',' || !c[n]))
			return 1;
	return 0;
}

/* Where bundled data lives: $PROXIMA_DATA_DIR, then the installed one. */
static const char *data_dir(int i)
{
	const char *d = getenv("PROXIMA_DATA_DIR");

	if (i == 0)
		return d && *d ? d : NULL;
	return i == 1 ? PX_DATADIR : NULL;
}

/* The installed configs' words (conf/WORD.ini of the data folders), sorted
 * and without repeats, into buf; "none" when there are none. */
static const char *installed_names(char *buf, size_t len)
{
	struct dirent **list[2] = {NULL, NULL};
	int n[2] = {0, 0};
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < 2; i++) {
		char dir[4096];

		if (!data_dir(i))
			continue;
		snprintf(dir, sizeof dir, "%s/conf", data_dir(i));
		n[i] = scandir(dir, &list[i], is_ini, alphasort);
		if (n[i] < 0)
			n[i] = 0;
	}
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < n[i]; j++) {
			const char *f = list[i][j]->d_name;
			int w = (int)(strlen(f) - 4);
			char word[300];

			snprintf(word, sizeof word, "%.*s", w, f);
			if (!word_listed(buf, word) && at < len)
				at += (size_t)snprintf(buf + at, len - at,
						       "%s%s", at ? ", " : "",
						       word);
			free(list[i][j]);
		}
		free(list[i]);
	}
	return *buf ? buf : "none";
}

int px_config_find(const char *name, char *path, size_t len,
		   struct px_error *err)
{
	size_t nl = strlen(name);
	char tried[2 * 4096] = "", there[1024];

	/* a path: it has a folder, an .ini ending, or names a file here */
	if (strchr(name, '/') || (nl > 4 && strcmp(name + nl - 4, ".ini") == 0) ||
	    access(name, F_OK) == 0 || !*name) {
		if ((size_t)snprintf(path, len, "%s", name) >= len)
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: path too long", name);
		return PX_OK;
	}
	for (int i = 0; i < 2; i++) {
		const char *d = data_dir(i);

		if (!d)
			continue;
		if ((size_t)snprintf(path, len, "%s/conf/%s.ini", d, name) >= len)
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: path too long", name);
		if (access(path, R_OK) == 0)
			return PX_OK;
		snprintf(tried + strlen(tried), sizeof tried - strlen(tried),
			 "%s%s/conf", *tried ? ", " : "", d);
	}
	return px_error_set(err, PX_ERR_IO,
			    "config '%s' not found: no such file, and no %s.ini in %s (there: %s)",
			    name, name, tried, installed_names(there, sizeof there));
}

/* Give the layer being read a name that outlives it (entries point to it). */
static int name_layer(struct reader *r, const char *fmt, const char *a,
		      const char *b)
{
	char **nn = realloc(r->names, (r->layer + 1) * sizeof *nn);
	int len = snprintf(NULL, 0, fmt, a, b ? b : "");

	if (!nn)
		return px_error_set(r->err, PX_ERR_NOMEM, "out of memory");
	r->names = nn;
	r->n_names = r->layer + 1;
	nn[r->layer] = malloc((size_t)len + 1);
	if (!nn[r->layer])
		return px_error_set(r->err, PX_ERR_NOMEM, "out of memory");
	snprintf(nn[r->layer], (size_t)len + 1, fmt, a, b ? b : "");
	r->path = nn[r->layer];
	return PX_OK;
}

/* An INI stream (a file or text) as the layer being read. */
static int read_stream(struct reader *r, FILE *f)
{
	struct px_ini ini = {.path = r->path,
			     .err = r->err,
			     .user = r,
			     .section = on_section,
			     .value = on_value};
	int rc = px_ini_parse(&ini, f);

	fclose(f);
	return rc;
}

static void trim(char *s)
{
	size_t a = strspn(s, " \t"), n = strlen(s);

	while (n > a && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	memmove(s, s + a, n - a);
	s[n - a] = '\0';
}

/* A --set layer: SECTION.KEY=VALUE, blanks around each part ignored. */
static int read_set(struct reader *r, const char *text)
{
	const char *eq = strchr(text, '=');
	const char *dot = strchr(text, '.');
	char section[MAX_LINE], key[MAX_LINE], value[MAX_LINE];
	int idx;

	if (name_layer(r, "--set %s%s", text, NULL))
		return r->err->code;
	r->line = 0;
	if (!eq || !dot || dot > eq || strlen(text) >= MAX_LINE)
		return px_error_set(r->err, PX_ERR_CONFIG,
				    "%s: expected SECTION.KEY=VALUE (such as rfactor.nu=0.9)",
				    r->path);
	snprintf(section, sizeof section, "%.*s", (int)(dot - text), text);
	snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
	snprintf(value, sizeof value, "%s", eq + 1);
	trim(section);
	trim(key);
	trim(value);
	idx = section_index(section);
	if (idx < 0)
		return px_error_set(r->err, PX_ERR_CONFIG,
				    "%s: unknown section [%s] (known: solver, friction, ordering, rfactor, scheduler, accelerator)",
				    r->path, section);
	if (!*key || !*value)
		return px_error_set(r->err, PX_ERR_CONFIG,
				    "%s: empty %s", r->path,
				    *key ? "value" : "key");
	add_entry(r, idx, key, value);
	return r->err->code;
}

static int read_layer(struct reader *r, const struct px_config_layer *l)
{
	char path[4096];
	FILE *f;

	switch (l->kind) {
	case PX_LAYER_FILE:
		if (px_config_find(l->text, path, sizeof path, r->err) ||
		    name_layer(r, "%s%s", path, NULL))
			return r->err->code;
		f = fopen(path, "r");
		if (!f)
			return px_error_set(r->err, PX_ERR_IO,
					    "%s: cannot open: %s", path,
					    strerror(errno));
		return read_stream(r, f);
	case PX_LAYER_TEXT:
		if (name_layer(r, "%s%s", l->name ? l->name : "(text)", NULL))
			return r->err->code;
		f = fmemopen((void *)l->text, strlen(l->text), "r");
		if (!f)
			return px_error_set(r->err, PX_ERR_NOMEM,
					    "%s: out of memory", r->path);
		return read_stream(r, f);
	case PX_LAYER_SET:
		return read_set(r, l->text);
	}
	return px_error_set(r->err, PX_ERR_INVALID,
			    "config layer %u: unknown kind %d", r->layer,
			    l->kind);
}

/* "a.ini + --set k=v": the layers' names, or "(defaults)". */
static char *join_names(const struct reader *r)
{
	size_t len = sizeof "(defaults)";
	char *s;

	for (unsigned i = 0; i < r->layer; i++)
		len += strlen(r->names[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, r->layer ? "" : "(defaults)");
	for (unsigned i = 0; i < r->layer; i++) {
		if (i)
			strcat(s, " + ");
		strcat(s, r->names[i]);
	}
	return s;
}

int px_config_build(const struct px_config_layer *layers, size_t n,
		    struct px_config **out, struct px_error *err)
{
	struct reader r = {.err = err};
	struct px_error local = {0};
	struct px_setting *set = NULL;
	struct px_config *cfg;
	int rc = PX_OK;

	*out = NULL;
	if (!err)
		r.err = err = &local;
	err->code = PX_OK;
	cfg = calloc(1, sizeof *cfg);
	if (!cfg)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && !rc; i++, r.layer++)
		rc = read_layer(&r, &layers[i]);
	if (!rc) {
		set = malloc((r.n + 1) * sizeof *set);
		cfg->source = join_names(&r);
		if (!set || !cfg->source)
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	if (!rc)
		rc = apply_solver(cfg, &r, set, err);
	if (!rc)
		rc = load_plugins(cfg, &r, set, err);
	free(set);
	for (size_t i = 0; i < r.n; i++) {
		free(r.e[i].key);
		free(r.e[i].value);
	}
	free(r.e);
	for (unsigned i = 0; i < r.n_names; i++)
		free(r.names[i]);
	free(r.names);
	if (rc) {
		px_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return PX_OK;
}

int px_config_read(const char *path, struct px_config **out,
		   struct px_error *err)
{
	const struct px_config_layer l = {PX_LAYER_FILE, path, NULL};

	return px_config_build(&l, path ? 1 : 0, out, err);
}

void px_config_free(struct px_config *cfg)
{
	if (!cfg)
		return;
	for (unsigned k = 1; k <= N_KINDS; k++)
		px_plugin_unload(cfg->plugin[k]);
	free(cfg->source);
	free(cfg);
}

const struct px_solver_settings *px_config_settings(const struct px_config *c)
{
	return &c->settings;
}

struct px_solver_settings *px_config_settings_mut(struct px_config *c)
{
	return &c->settings;
}

const struct px_plugin *px_config_plugin(const struct px_config *c,
					 unsigned kind)
{
	return kind >= 1 && kind <= N_KINDS ? c->plugin[kind] : NULL;
}

const char *px_config_source(const struct px_config *c)
{
	return c->source ? c->source : "(defaults)";
}

/* The [solver] values in effect, from the settings (which a program may
 * have changed through px_config_settings_mut). */
static void solver_values(const struct px_solver_settings *s,
			  union px_value *v)
{
	v[SOLVER_MAX_SWEEPS].i = (long)s->max_sweeps;
	v[SOLVER_ABS_TOL].r = s->abs_tol;
	v[SOLVER_REL_TOL].r = s->rel_tol;
	v[SOLVER_MERIT].choice = s->merit;
	v[SOLVER_NATURAL_R].r = s->natural_r;
	v[SOLVER_MAX_BACKTRACKS].i = (long)s->max_backtracks;
	v[SOLVER_CHECK_TOL].r = s->check_tol;
	v[SOLVER_KERNEL].choice = s->kernel;
	v[SOLVER_CHECK].b = s->check;
	v[SOLVER_LOCAL_SOLVE].choice = s->local_solve;
	v[SOLVER_LOCAL_TOL].r = s->local_tol;
	v[SOLVER_LOCAL_MAX_ITER].i = (long)s->local_max_iter;
	v[SOLVER_LOCAL_FORCING].r = s->local_forcing;
	v[SOLVER_TIME_LIMIT].r = s->time_limit;
	v[SOLVER_STALL_SWEEPS].i = (long)s->stall_sweeps;
	v[SOLVER_STALL_REL].r = s->stall_rel;
}

size_t px_config_params(const struct px_config *c, unsigned section,
			const struct px_param_decl **decl,
			union px_value *values, size_t cap)
{
	const struct px_plugin *pl;
	size_t n;

	*decl = NULL;
	if (section == 0) {
		union px_value v[N_SOLVER];

		solver_values(&c->settings, v);
		*decl = solver_decl;
		if (cap)
			memcpy(values, v,
			       (cap < N_SOLVER ? cap : N_SOLVER) * sizeof *v);
		return N_SOLVER;
	}
	pl = px_config_plugin(c, section);
	if (!pl)
		return 0;
	*decl = px_plugin_header(pl)->params;
	n = px_plugin_header(pl)->n_params;
	if (cap && n)
		memcpy(values, px_plugin_values(pl),
		       (cap < n ? cap : n) * sizeof *values);
	return n;
}

/* One section as INI: its plugin, then every parameter in effect. */
static int write_section(const struct px_config *c, unsigned section,
			 FILE *f)
{
	const struct px_param_decl *decl;
	size_t n = px_config_params(c, section, &decl, NULL, 0);
	union px_value *v = malloc((n + 1) * sizeof *v);
	const struct px_plugin *pl =
		section ? px_config_plugin(c, section) : NULL;
	const struct px_plugin_header *h = pl ? px_plugin_header(pl) : NULL;
	char text[4096];
	int rc = 0;

	if (!v)
		return -1;
	px_config_params(c, section, &decl, v, n);
	fprintf(f, "\n[%s]\n", section ? px_kind_name(section) : "solver");
	if (pl && !px_plugin_path(pl)) /* in-process: no file to name */
		fprintf(f,
			"; given in-process by the program (%s): no file holds it, reading this back fails here\n"
			"plugin = %s%s\n",
			h->summary ? h->summary : "no summary", PX_IN_PROCESS,
			h->name);
	else if (section)
		fprintf(f, "plugin = %s\n", pl ? h->name : PX_ACCELERATOR_NONE);
	for (size_t i = 0; i < n && !rc; i++) {
		rc = px_param_format(&decl[i], &v[i], text, sizeof text);
		fprintf(f, "%s = %s\n", decl[i].key, text);
	}
	free(v);
	return rc;
}

int px_config_write(const struct px_config *c, FILE *f)
{
	int rc = 0;

	fprintf(f, "; the config in effect: %s\n", px_config_source(c));
	for (unsigned k = 0; k <= N_KINDS && !rc; k++)
		rc = write_section(c, k, f);
	return rc || ferror(f) ? -1 : 0;
}

int px_config_set_plugin(struct px_config *cfg, struct px_plugin *pl,
			 struct px_error *err)
{
	const struct px_plugin_header *h = pl ? px_plugin_header(pl) : NULL;
	const char *kind = h ? px_kind_name(h->kind) : NULL;
	char *source = NULL;

	if (!kind)
		return px_error_set(err, PX_ERR_INVALID,
				    "px_config_set_plugin: not a plugin of a known kind");
	if (!px_plugin_path(pl)) {
		const char *was = px_config_source(cfg);
		size_t len = strlen(was) + strlen(kind) + strlen(h->name) +
			     sizeof " +  " PX_IN_PROCESS;

		source = malloc(len);
		if (!source)
			return px_error_set(err, PX_ERR_NOMEM, "out of memory");
		snprintf(source, len, "%s + %s %s%s", was, kind, PX_IN_PROCESS,
			 h->name);
		free(cfg->source);
		cfg->source = source;
	}
	px_plugin_unload(cfg->plugin[h->kind]);
	cfg->plugin[h->kind] = pl;
	return PX_OK;
}

void px_config_set_monitor(struct px_config *cfg, px_monitor_fn fn,
			   void *user)
{
	cfg->monitor = fn;
	cfg->monitor_user = fn ? user : NULL;
}

px_monitor_fn px_config_monitor(const struct px_config *cfg, void **user)
{
	if (user)
		*user = cfg->monitor_user;
	return cfg->monitor;
}
