/* Ordering `coordinate`, coordinate permutation (Poulsen et al. 2010, sec. 5):
 * visit the contacts sorted by their position along an axis, e.g. bottom-up
 * through a stack so that support propagates in one sweep. The axis is x, y, z
 * or a vector "ax,ay,az" (the gravity direction, say); direction ascending or
 * descending. Ties keep the problem's order. Needs contact positions:
 * problems read from files (Siconos, FCLib) have none, and prepare refuses
 * them rather than silently keeping the problem's order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/plugin.h>

#include "sort.h"

enum { P_AXIS, P_DIRECTION };

static const struct px_param_decl coordinate_params[] = {
	[P_AXIS] = {"axis", PX_PARAM_STRING, "z",
		    "x, y, z, or a vector ax,ay,az to sort the contact positions along",
		    0, 0, NULL},
	[P_DIRECTION] = {"direction", PX_PARAM_CHOICE, "ascending",
			 "ascending or descending along the axis",
			 0, 0, PX_DIRECTION_CHOICES},
};

struct coordinate {
	double axis[3];
	int direction;
	double *key;   /* n */
	uint32_t *tmp; /* n */
	size_t cap;
};

/* axis <- "x", "y", "z" or three finite numbers, not all zero, separated
 * by commas or blanks. Returns 0 or -1. */
static int parse_axis(const char *text, double axis[3])
{
	static const char *const names[] = {"x", "y", "z"};
	const char *at = text;
	char *end;

	for (int i = 0; i < 3; i++)
		if (strcmp(text, names[i]) == 0) {
			axis[0] = axis[1] = axis[2] = 0.0;
			axis[i] = 1.0;
			return 0;
		}
	for (int i = 0; i < 3; i++) {
		while (*at == ' ' || *at == '\t')
			at++;
		if (i > 0 && *at == ',')
			at++;
		axis[i] = strtod(at, &end);
		if (end == at || !isfinite(axis[i]))
			return -1;
		at = end;
	}
	while (*at == ' ' || *at == '\t')
		at++;
	if (*at)
		return -1;
	return axis[0] != 0.0 || axis[1] != 0.0 || axis[2] != 0.0 ? 0 : -1;
}

static int coordinate_create(const union px_value *val, void **state,
			     char *err, size_t errlen)
{
	struct coordinate *s = calloc(1, sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (parse_axis(val[P_AXIS].s, s->axis)) {
		snprintf(err, errlen,
			 "axis: expected x, y, z or a non-zero vector 'ax,ay,az', got '%s'",
			 val[P_AXIS].s);
		free(s);
		return -1;
	}
	s->direction = val[P_DIRECTION].choice;
	*state = s;
	return 0;
}

static void coordinate_destroy(void *state)
{
	struct coordinate *s = state;

	free(s->key);
	free(s->tmp);
	free(s);
}

static int coordinate_prepare(void *state, const struct px_problem_info *p,
			      uint32_t *perm, char *err, size_t errlen)
{
	struct coordinate *s = state;
	const size_t n = p->n_contacts;

	if (!p->position) {
		snprintf(err, errlen,
			 "the problem has no contact positions (problems read from Siconos or FCLib files carry none): sorting along an axis needs them");
		return -1;
	}
	if (n > s->cap) {
		free(s->key);
		free(s->tmp);
		s->key = malloc(n * sizeof *s->key);
		s->tmp = malloc(n * sizeof *s->tmp);
		s->cap = s->key && s->tmp ? n : 0;
		if (!s->cap) {
			snprintf(err, errlen, "out of memory for %zu contacts", n);
			return -1;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const double *x = p->position + 3 * k;

		s->key[k] = s->axis[0] * x[0] + s->axis[1] * x[1] +
			    s->axis[2] * x[2];
	}
	px_sort_contacts(s->key, n, s->direction, perm, s->tmp);
	return 0;
}

static int coordinate_next(void *state, const struct px_sweep_state *ss,
			   uint32_t *perm, int *changed)
{
	(void)state;
	(void)ss;
	(void)perm;
	(void)changed; /* positions do not move during a solve */
	return PX_PART_FULL;
}

/* What `proxima plugins --describe coordinate` prints (ABI 1.4). */
static const char coordinate_doc[] =
	"Coordinate permutation (CP, Poulsen et al. 2010, sec. 5): the contacts\n"
	"are visited sorted by their position along an axis, so that support\n"
	"propagates through a structure in one sweep, e.g. bottom-up through a\n"
	"stack. axis is x, y, z or any vector \"ax,ay,az\" (the gravity direction,\n"
	"say); direction ascending or descending along it. Ties keep the\n"
	"problem's order.\n"
	"\n"
	"It needs contact positions: problems built by the world (proxima run)\n"
	"have them, problems read from files (Siconos .dat, FCLib) do not, and\n"
	"prepare refuses them with an error rather than silently keeping the\n"
	"problem's order.\n"
	"\n"
	"Poulsen et al. (2010) found descending y the best variant, good on dense\n"
	"and non-structured setups, bad on loose ones, and called the heuristic\n"
	"of little general use because the right axis must be known in advance.\n"
	"Choose it for structured scenes with a known up direction (stacks,\n"
	"walls).\n";

static const struct px_ordering_ops coordinate_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ORDERING,
		.ops_size = sizeof(struct px_ordering_ops),
		.name = "coordinate",
		.summary = "contacts sorted by position along an axis (Poulsen et al. 2010); needs contact positions",
		.params = coordinate_params,
		.n_params = sizeof coordinate_params / sizeof *coordinate_params,
		.create = coordinate_create,
		.destroy = coordinate_destroy,
	},
	.prepare = coordinate_prepare,
	.next = coordinate_next,
	.doc = coordinate_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &coordinate_ops.h;
}
