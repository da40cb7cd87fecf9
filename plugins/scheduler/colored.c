/* Scheduler `colored`: Gauss-Seidel in parallel over a coloring of the
 * contact conflict graph (Poulsen 2010, ch. 4 and 7.3). Contacts of one color
 * share no dynamic body (no non-zero block of A), so a color's contacts are
 * relaxed concurrently with OpenMP, and the barrier at the end of each
 * color is the sweep's only synchronization. Colors are swept in color
 * order; inside a color the contacts keep the ordering's relative order.
 *
 * Relaxed colors (Poulsen 2010, sec. 4.3.1, 7.2.2-7.3): with merge_below = N,
 * every color of fewer than N contacts joins one unsafe color, relaxed last and
 * Jacobi style without a race: first every contact's new impulse is
 * computed in parallel from the state the safe colors left (kern->compute,
 * reads only), then the impulses are committed on one thread in the
 * color's order (kern->commit: lambda_k and the body velocities). N is an
 * absolute count, not per thread as in the thesis, so that the colors, and
 * with them the result, do not depend on the thread count.
 *
 * Patches (patches = K > 0, coloring.h): contacts whose conflicts all lie
 * in their own of K ranges of consecutive contacts are relaxed first,
 * every range in order by one thread (kern->relax_list), the ranges
 * concurrently; only the contacts on the borders between ranges are
 * colored. The ranges depend on K, not on the threads: with K = 2 or 4
 * for 2 cores, lambda is still the same for any thread count. Numbered in space, a problem so keeps the sequential order, and
 * most of its convergence per sweep, inside every range.
 *
 * Lanes: a thread's share of a safe group is cut at unit boundaries into
 * up to `lanes` lists that the kernel interleaves (kern->relax_lists):
 * they are independent, so the result is the same as one after another,
 * while their chains of updates through shared bodies overlap on the core.
 *
 * Determinism: colors are computed on contact indices in index order, so
 * they depend on the conflict graph only. A safe color's contacts touch
 * disjoint bodies, and the unsafe color's commits run in a fixed order:
 * every value is the same sum in the same order whatever the threads, so
 * lambda is bit-for-bit the same for any thread count and across runs.
 *
 * Cost: the coloring runs at prepare time and is kept; the next prepare
 * reuses it when the conflict graph is the same as last time. With bodies
 * (ABI 1.6: kern->body_a, body_b) that is a compare of the contacts' body
 * pairs, on which the graph depends, and the graph is not built again;
 * for an assembled problem the graph is built and its CSR arrays are
 * compared. Either is far cheaper than coloring. The per-color lists are
 * rebuilt in O(n) at each sweep whose permutation changed. describe
 * reports the colors and these costs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>
#include <proxima/plugin.h>

#include "coloring.h"
#include "common.h"

enum { P_COLORING = TEAM_N_PARAMS, P_MERGE_BELOW, P_PATCHES, P_LANES };

static const struct px_param_decl colored_params[] = {
	TEAM_PARAMS,
	[P_COLORING] = {"coloring", PX_PARAM_CHOICE, "greedy",
			"greedy: the lowest free color; balanced: the least-used free color (Poulsen 2010, sec. 4.3)",
			0, -1, "greedy|balanced"},
	[P_MERGE_BELOW] = {"merge_below", PX_PARAM_INT, "0",
			   "colors of fewer contacts are merged into one unsafe color relaxed Jacobi style (0: none)",
			   0, 1e15, NULL},
	[P_PATCHES] = {"patches", PX_PARAM_INT, "0",
		       "cut the contacts into this many ranges of consecutive indices: each range's interior is relaxed in order by one thread, only the borders between ranges are colored (0: color every contact)",
		       0, 1e9, NULL},
	[P_LANES] = {"lanes", PX_PARAM_INT, "2",
		     "independent lists each thread hands the kernel at once, interleaved so that their chains of updates overlap on the core (1: none)",
		     1, PX_MAX_LISTS, NULL},
};

struct colored {
	struct team team; /* first: team_state_create */
	enum coloring_mode mode;
	size_t merge_below;
	size_t patches;
	unsigned lanes;
	struct coloring col;
	/* what the coloring was made for: n contacts and their body pairs
	 * (body_a then body_b) or, without bodies, the conflict graph (ptr
	 * then adj); its edges for describe */
	size_t n, edges;
	struct buffer key;
	int have, by_bodies;
	struct buffer out; /* the unsafe color's computed impulses */
	double graph_ms, check_ms, color_ms;
	int reused;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int colored_create(const union px_value *v, void **state, char *err,
			  size_t errlen)
{
	struct colored *s;

	if (team_state_create(sizeof *s, v, state, err, errlen))
		return -1;
	s = *state;
	s->mode = v[P_COLORING].choice;
	s->merge_below = (size_t)v[P_MERGE_BELOW].i;
	s->patches = (size_t)v[P_PATCHES].i;
	s->lanes = (unsigned)v[P_LANES].i;
	return 0;
}

static void colored_destroy(void *state)
{
	struct colored *s = state;

	coloring_free(&s->col);
	buffer_free(&s->key);
	buffer_free(&s->out);
	free(s);
}

/* Whether the coloring was made for kern's body pairs. */
static int same_bodies(const struct colored *s, const struct px_kernel *kern)
{
	const size_t half = kern->n_contacts * sizeof(uint32_t);
	const char *key = s->key.p;

	return s->have && s->by_bodies && s->n == kern->n_contacts &&
	       memcmp(key, kern->body_a, half) == 0 &&
	       memcmp(key + half, kern->body_b, half) == 0;
}

/* Whether the coloring was made for the conflict graph (ptr, adj). */
static int same_graph(const struct colored *s, size_t n, const uint32_t *ptr,
		      const uint32_t *adj)
{
	const uint32_t *key = s->key.p;

	return s->have && !s->by_bodies && s->n == n &&
	       memcmp(key, ptr, (n + 1) * sizeof *ptr) == 0 &&
	       memcmp(key + n + 1, adj, ptr[n] * sizeof *adj) == 0;
}

/* Color the graph and keep what the next reuse check compares. */
static int recolor(struct colored *s, const struct px_kernel *kern,
		   const uint32_t *ptr, const uint32_t *adj, char *err,
		   size_t errlen)
{
	const size_t n = kern->n_contacts;
	const size_t words = kern->body_a ? 2 * n : n + 1 + ptr[n];
	uint32_t *key;

	s->have = 0;
	coloring_free(&s->col);
	if (coloring_alloc(&s->col, n, s->patches)) {
		snprintf(err, errlen, "out of memory for coloring %zu contacts",
			 n);
		return -1;
	}
	if (buffer_reserve(&s->key, (words + 1) * sizeof *key, err, errlen))
		return -1;
	coloring_color(&s->col, ptr, adj, s->mode);
	coloring_group(&s->col, s->merge_below);
	key = s->key.p;
	if (kern->body_a) {
		memcpy(key, kern->body_a, n * sizeof *key);
		memcpy(key + n, kern->body_b, n * sizeof *key);
	} else {
		memcpy(key, ptr, (n + 1) * sizeof *ptr);
		memcpy(key + n + 1, adj, ptr[n] * sizeof *adj);
	}
	s->by_bodies = kern->body_a != NULL;
	s->n = n;
	s->edges = ptr[n] / 2;
	s->have = 1;
	return 0;
}

static int colored_prepare(void *state, const struct px_kernel *kern,
			   char *err, size_t errlen)
{
	struct colored *s = state;
	const size_t n = kern->n_contacts;
	const uint32_t *ptr = NULL, *adj = NULL;
	double t = now_ms();

	team_prepare(&s->team, kern);
	s->graph_ms = s->check_ms = 0.0;
	s->reused = kern->body_a && same_bodies(s, kern);
	if (kern->body_a)
		s->check_ms = now_ms() - t;
	if (!s->reused) {
		t = now_ms();
		if (kern->conflicts(kern->ctx, &ptr, &adj)) {
			snprintf(err, errlen,
				 "out of memory for the conflict graph of %zu contacts",
				 n);
			return -1;
		}
		s->graph_ms = now_ms() - t;
	}
	if (!kern->body_a) {
		t = now_ms();
		s->reused = same_graph(s, n, ptr, adj);
		s->check_ms = now_ms() - t;
	}
	if (!s->reused) {
		t = now_ms();
		if (recolor(s, kern, ptr, adj, err, errlen))
			return -1;
		s->color_ms = now_ms() - t;
	}
	return buffer_reserve(&s->out,
			      ((size_t)(s->col.start[coloring_groups(&s->col)] -
					s->col.start[s->col.n_safe]) *
				       kern->bs +
			       1) * sizeof(double),
			      err, errlen);
}

/* The first unit in [lo, hi) whose contacts start at or after goal in
 * the list, else hi. */
static uint32_t unit_at(const uint32_t *ustart, uint32_t lo, uint32_t hi,
			size_t goal)
{
	while (lo < hi) {
		const uint32_t mid = lo + (hi - lo) / 2;

		if (ustart[mid] < goal)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Thread t of nt relaxes its share of safe group g's units: split at unit
 * boundaries into up to `lanes` lists of about equal length, which the
 * kernel interleaves (units of a safe group are independent). */
static void relax_share(const struct colored *s, const struct px_kernel *kern,
			uint32_t g, int t, int nt, int part)
{
	const uint32_t *ustart = s->col.ustart;
	const size_t nu = s->col.unit[g + 1] - s->col.unit[g];
	const uint32_t ub = s->col.unit[g] + (uint32_t)(nu * (size_t)t / (size_t)nt);
	const uint32_t ue = s->col.unit[g] +
			    (uint32_t)(nu * (size_t)(t + 1) / (size_t)nt);
	const size_t total = ustart[ue] - ustart[ub];
	const uint32_t *lists[PX_MAX_LISTS];
	size_t counts[PX_MAX_LISTS];
	unsigned m = 0;

	for (uint32_t u = ub, j = 0; u < ue && j < s->lanes; j++) {
		const size_t goal = ustart[ub] + total * (j + 1) / s->lanes;
		uint32_t v = unit_at(ustart, u + 1, ue, goal);

		lists[m] = s->col.list + ustart[u];
		counts[m++] = ustart[v] - ustart[u];
		u = v;
	}
	if (m)
		kern->relax_lists(kern->ctx, lists, counts, m, part);
}

static void colored_sweep(void *state, const struct px_kernel *kern,
			  const uint32_t *perm, int perm_changed, int part)
{
	struct colored *s = state;
	const uint32_t *list = s->col.list, *start = s->col.start;
	const uint32_t n_safe = s->col.n_safe, bs = kern->bs;
	const long u0 = start[n_safe], u1 = start[coloring_groups(&s->col)];
	double *out = s->out.p;

	if (perm_changed)
		coloring_bucket(&s->col, perm);
#pragma omp parallel num_threads(s->team.size) if (s->team.size > 1)
	{
		const int t = omp_get_thread_num(), nt = omp_get_num_threads();

		for (uint32_t g = 0; g < n_safe; g++) {
			relax_share(s, kern, g, t, nt, part);
#pragma omp barrier
		}
#pragma omp for schedule(static) nowait
		for (long i = u0; i < u1; i++)
			kern->compute(kern->ctx, list[i], part,
				      out + (size_t)(i - u0) * bs);
	}
	for (long i = u0; i < u1; i++)
		kern->commit(kern->ctx, list[i], part,
			     out + (size_t)(i - u0) * bs);
}

enum { SHOWN_SIZES = 12 }; /* color sizes listed by describe */

static void colored_describe(const void *state, char *buf, size_t len)
{
	static const char *const mode[] = {"greedy", "balanced"};
	const struct colored *s = state;
	const struct coloring *c = &s->col;
	size_t at;
	char team[128], unsafe[96];

	if (!s->have) {
		snprintf(buf, len, "colored %s: not prepared", mode[s->mode]);
		return;
	}
	if (c->n_patches)
		at = (size_t)snprintf(buf, len,
				      "colored %s, %zu patches of %zu contacts (interiors: color 0): %u safe colors",
				      mode[s->mode], c->n_patches, c->patch,
				      c->n_safe);
	else
		at = (size_t)snprintf(buf, len, "colored %s: %u safe colors",
				      mode[s->mode], c->n_safe);
	for (uint32_t g = 0; g < c->n_safe && at < len; g++) {
		if (g == SHOWN_SIZES) {
			at += (size_t)snprintf(buf + at, len - at, " ...");
			break;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s%u",
				       g ? " " : " (sizes ",
				       c->start[g + 1] - c->start[g]);
	}
	if (c->n_merged)
		snprintf(unsafe, sizeof unsafe,
			 "unsafe color of %u contacts from %u color%s",
			 c->start[c->n_safe + 1] - c->start[c->n_safe],
			 c->n_merged, c->n_merged == 1 ? "" : "s");
	else
		snprintf(unsafe, sizeof unsafe, "no unsafe color");
	team_describe(&s->team, team, sizeof team);
	if (at < len)
		snprintf(buf + at, len - at,
			 "%s, %s, %s; conflict graph (%u edges) %.3f ms, coloring %.3f ms, reuse check %.3f ms (reused: %s)",
			 c->n_safe ? ")" : "", unsafe, team,
			 (unsigned)s->edges, s->graph_ms,
			 s->color_ms, s->check_ms, s->reused ? "yes" : "no");
}

/* What `proxima plugins --describe colored` prints (ABI 1.4). */
static const char colored_doc[] =
	"Gauss-Seidel in parallel over a coloring of the contact conflict graph\n"
	"(Poulsen 2010, ch. 4, 7.3): contacts of one color share no dynamic body,\n"
	"so a color's contacts are relaxed concurrently with OpenMP, and the\n"
	"barrier at the end of each color is the sweep's only synchronization.\n"
	"Colors are swept in order; inside a color the ordering's relative order\n"
	"is kept.\n"
	"\n"
	"    coloring = greedy    each contact takes the lowest color free\n"
	"                         among its neighbours: few colors, the first\n"
	"                         ones large (Poulsen 2010, sec. 4.3)\n"
	"               balanced  the least-used free color: colors of similar\n"
	"                         size, often many more of them\n"
	"\n"
	"With merge_below = N, every color of fewer than N contacts joins one\n"
	"unsafe color, relaxed last and Jacobi style (Poulsen 2010, sec. 4.3.1,\n"
	"7.2.2: the relaxed scheme): computed in parallel from the state the safe\n"
	"colors left, committed in a fixed order. N is an absolute count, not per\n"
	"thread as in Poulsen 2010, so the colors, and the result, do not depend\n"
	"on the thread count: lambda is bit for bit the same for any number of\n"
	"threads.\n"
	"\n"
	"With patches = K, the contacts are cut into K ranges of consecutive\n"
	"indices. The contacts whose conflicts all lie in their own range are\n"
	"relaxed first, each range in order by one thread, the ranges in\n"
	"parallel; only the contacts on the borders between ranges are colored.\n"
	"A problem numbered in space (scenes and files are) keeps the sequential\n"
	"order inside every range, and so nearly its convergence per sweep,\n"
	"where a coloring of single contacts interleaves the whole problem. K\n"
	"does not depend on the threads, so neither does lambda; take K = the\n"
	"cores, or a multiple of them.\n"
	"\n"
	"lanes = L (1-4): each thread hands the kernel its share of a color as up\n"
	"to L independent lists, which it interleaves so that their chains of\n"
	"updates through shared bodies overlap on the core. The result is the\n"
	"same for any L.\n"
	"\n"
	"Choose it for large problems on several cores. A coloring of single\n"
	"contacts (patches = 0) costs locality and convergence on lattices:\n"
	"on the ball grids it needs 2.6x the sweeps of sequential's bottom-up\n"
	"order; patches = 2 needs 1.0-1.1x (bench/schedulers.sh). Balanced\n"
	"colorings converge in fewer sweeps but synchronize more (Poulsen 2010,\n"
	"sec. 7.4). The coloring is made at prepare and reused while the conflict\n"
	"graph is unchanged; the describe line gives the colors and their\n"
	"cost. threads and serial_below as for jacobi.\n";

static const struct px_scheduler_ops colored_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_SCHEDULER,
		.ops_size = sizeof(struct px_scheduler_ops),
		.name = "colored",
		.summary = "Gauss-Seidel over a coloring of the contact graph, OpenMP inside each color, deterministic",
		.params = colored_params,
		.n_params = sizeof colored_params / sizeof *colored_params,
		.create = colored_create,
		.destroy = colored_destroy,
	},
	.prepare = colored_prepare,
	.sweep = colored_sweep,
	.describe = colored_describe,
	.doc = colored_doc,
	.parallel_for = team_parallel_for,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &colored_ops.h;
}
