/* The parallel schedulers (Poulsen 2010, ch. 4 and 7):
 *   - greedy and balanced colorings are valid (no two conflicting contacts
 *     share a safe color, every contact in exactly one color) on a ball
 *     lattice (factorized) and a shared problem file (assembled), against a
 *     conflict graph built here from the bodies or the dense A; greedy takes
 *     the lowest free color; balanced evens the color sizes;
 *   - the per-color lists keep the permutation's relative order;
 *   - colored (with and without an unsafe color) and jacobi give
 *     bit-for-bit the same lambda for 1 to 4 threads and across runs;
 *   - naive is sequential with one thread, and with T threads exactly
 *     projected Gauss-Seidel inside T ranges and Jacobi between them;
 *   - colored recolors only when the conflict graph changes;
 *   - every scheduler reaches the contact laws on the lattice (checked by
 *     tests/oracle.h, contact by contact);
 *   - a scheduler of plugin ABI 1.1 loads and has no describe. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "coloring.h"
#include "helpers.h"
#include "oracle.h"

/* ---- a ball lattice: the ball-grid benchmark's shape, built here ------- */

#define RADIUS 0.5
#define INV_MASS 1.0
#define INV_INERTIA (1.0 / (0.4 * RADIUS * RADIUS)) /* solid unit-mass ball */

static void cross(const double a[3], const double b[3], double out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* J (3 x 6) and M^-1 J^T (6 x 3) of one ball of a contact: rows
 * sign * (d, rc x d) for d = n, s, t, rc the contact point relative to the
 * ball's centre (sim/stack_problem.c's convention, +1 for the ball on the
 * normal's side). */
static void ball_side(const double frame[9], const double rc[3], double sign,
		      double *jac, double *mjt)
{
	for (int row = 0; row < 3; row++) {
		const double *d = frame + 3 * row;
		double rd[3];

		cross(rc, d, rd);
		for (int i = 0; i < 3; i++) {
			jac[row * 6 + i] = sign * d[i];
			jac[row * 6 + 3 + i] = sign * rd[i];
			mjt[i * 3 + row] = sign * INV_MASS * d[i];
			mjt[(3 + i) * 3 + row] = sign * INV_INERTIA * rd[i];
		}
	}
}

struct lattice_builder {
	uint32_t *ba, *bb;
	double *jac, *mjt, *b;
	const double (*v)[3]; /* free velocity of each ball */
	size_t k;
};

/* Contact between ball a and ball b (or PX_STATIC, or the floor body)
 * touching along axis (0, 1, 2), a on the positive side. */
static void add_contact(struct lattice_builder *lb, uint32_t a, uint32_t b,
			int axis, int b_moves)
{
	double frame[9] = {0};
	double rc[3] = {0};
	double *jac = lb->jac + 36 * lb->k, *mjt = lb->mjt + 36 * lb->k;

	frame[axis] = 1.0;		   /* n */
	frame[3 + (axis + 1) % 3] = 1.0; /* s */
	frame[6 + (axis + 2) % 3] = 1.0; /* t */
	rc[axis] = -RADIUS;
	ball_side(frame, rc, 1.0, jac, mjt);
	rc[axis] = RADIUS;
	if (b != PX_STATIC && b_moves)
		ball_side(frame, rc, -1.0, jac + 18, mjt + 18);
	for (int row = 0; row < 3; row++) {
		double u = 0.0;

		for (int i = 0; i < 3; i++)
			u += frame[3 * row + i] *
			     (lb->v[a][i] - (b_moves ? lb->v[b][i] : 0.0));
		lb->b[3 * lb->k + row] = u;
	}
	lb->ba[lb->k] = a;
	lb->bb[lb->k] = b;
	lb->k++;
}

/* nx * ny * nz unit balls touching their lattice neighbours, the bottom
 * layer on the static ground, or (on_floor) on one more dynamic body, a
 * floor at rest with a ball's mass and inertia: the same contacts, but
 * every floor contact then conflicts with every other (Poulsen 2010, Fig. 4.5).
 * Free velocities: gravity over 1/60 s and a pseudo-random slide of up to
 * 0.1 m/s. The contacts' bodies go to *ba and *bb when not NULL (the
 * caller frees them). */
static struct px_problem *lattice_bodies(int nx, int ny, int nz, int on_floor,
				         uint32_t **ba, uint32_t **bb)
{
	const size_t nb = (size_t)nx * ny * nz + (on_floor ? 1 : 0);
	const size_t nc = (size_t)(nx - 1) * ny * nz + (size_t)nx * (ny - 1) * nz +
			  (size_t)nx * ny * (nz - 1) + (size_t)nx * ny;
	double(*v)[3] = calloc(nb, sizeof *v);
	struct lattice_builder lb = {
		malloc(nc * sizeof *lb.ba), malloc(nc * sizeof *lb.bb),
		calloc(nc * 36, sizeof *lb.jac), calloc(nc * 36, sizeof *lb.mjt),
		calloc(nc * 3, sizeof *lb.b), NULL, 0};
	struct px_problem *p;
	uint64_t s = 88172645463325252u;

	cr_assert(v && lb.ba && lb.bb && lb.jac && lb.mjt && lb.b);
	lb.v = (const double(*)[3])v;
	for (size_t i = 0; i + (on_floor ? 1 : 0) < nb; i++) {
		for (int d = 0; d < 2; d++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			v[i][d] = 0.2 * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
		}
		v[i][2] = -9.81 / 60.0;
	}
#define BALL(x, y, z) ((uint32_t)(((z) * ny + (y)) * nx + (x)))
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++) {
				if (z == 0)
					add_contact(&lb, BALL(x, y, 0),
						    on_floor ? (uint32_t)(nb - 1)
							     : PX_STATIC,
						    2, on_floor);
				else
					add_contact(&lb, BALL(x, y, z),
						    BALL(x, y, z - 1), 2, 1);
				if (x > 0)
					add_contact(&lb, BALL(x, y, z),
						    BALL(x - 1, y, z), 0, 1);
				if (y > 0)
					add_contact(&lb, BALL(x, y, z),
						    BALL(x, y - 1, z), 1, 1);
			}
#undef BALL
	cr_assert_eq(lb.k, nc);
	cr_assert_eq(px_problem_create(nc, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_factorized(p, nb, lb.ba, lb.bb, lb.jac,
					       lb.mjt, NULL),
		     PX_OK);
	memcpy(px_problem_b(p), lb.b, nc * 3 * sizeof *lb.b);
	for (size_t k = 0; k < nc; k++)
		px_problem_friction(p)[k] = (struct px_friction_params){0.5, 0.5, 0.5, 0};
	free(v);
	if (ba)
		*ba = lb.ba;
	else
		free(lb.ba);
	if (bb)
		*bb = lb.bb;
	else
		free(lb.bb);
	free(lb.jac);
	free(lb.mjt);
	free(lb.b);
	return p;
}

static struct px_problem *lattice(int nx, int ny, int nz, int on_floor)
{
	return lattice_bodies(nx, ny, nz, on_floor, NULL, NULL);
}

/* p's A, b and mu as an assembled problem (the blocks of its dense A that
 * are not all zero): what a problem file gives, built in code. */
static struct px_problem *assembled_copy(const struct px_problem *p)
{
	const size_t n = px_problem_n_contacts(p), m = 3 * n;
	double *a = malloc(m * m * sizeof *a), *blocks = malloc(9 * n * n * sizeof *blocks);
	size_t *rowptr = calloc(n + 1, sizeof *rowptr), q = 0;
	uint32_t *cols = malloc(n * n * sizeof *cols);
	struct px_problem *c;

	cr_assert(a && blocks && rowptr && cols);
	cr_assert_eq(px_problem_block_size(p), 3);
	cr_assert_eq(px_problem_to_dense(p, a), PX_OK);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			int any = 0;

			for (size_t e = 0; e < 9; e++)
				any |= a[(3 * i + e / 3) * m + 3 * j + e % 3] != 0.0;
			if (!any)
				continue;
			for (size_t e = 0; e < 9; e++)
				blocks[9 * q + e] = a[(3 * i + e / 3) * m + 3 * j + e % 3];
			cols[q++] = (uint32_t)j;
		}
		rowptr[i + 1] = q;
	}
	cr_assert_eq(px_problem_create(n, 3, &c, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(c, rowptr, cols, blocks, NULL), PX_OK);
	memcpy(px_problem_b(c), px_problem_b_const(p), m * sizeof(double));
	memcpy(px_problem_friction(c), px_problem_friction_const(p),
	       n * sizeof *px_problem_friction(c));
	free(a);
	free(blocks);
	free(rowptr);
	free(cols);
	return c;
}

/* An assembled lattice on a dynamic floor (every floor contact conflicts
 * with every other): the structure of a file's problem, without a file. */
static struct px_problem *assembled_lattice(int nx, int ny, int nz)
{
	struct px_problem *f = lattice(nx, ny, nz, 1);
	struct px_problem *p = assembled_copy(f);

	px_problem_destroy(f);
	return p;
}

static struct px_problem *shared(const char *name)
{
	char path[4096];
	struct px_problem *p;
	struct px_error err = {0};

	cr_assert_eq(px_dat_read(shared_problem(name, path, sizeof path), &p, &err),
		     PX_OK, "%s", err.msg);
	return p;
}

/* ---- conflict graphs built here, independently of the kernel ---------- */

struct graph {
	size_t n;
	uint32_t *ptr, *adj;
};

/* CSR from a symmetric n x n 0/1 matrix (row-major bytes). */
static struct graph graph_from(const unsigned char *m, size_t n)
{
	struct graph g = {n, calloc(n + 1, sizeof *g.ptr), NULL};
	size_t e = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			e += m[i * n + j];
	g.adj = malloc((e + 1) * sizeof *g.adj);
	cr_assert(g.ptr && g.adj);
	e = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			if (m[i * n + j])
				g.adj[e++] = (uint32_t)j;
		g.ptr[i + 1] = (uint32_t)e;
	}
	return g;
}

/* Factorized: two contacts conflict when they share a dynamic body. */
static struct graph graph_of_bodies(size_t n, const uint32_t *ba,
				    const uint32_t *bb)
{
	unsigned char *m = calloc(n * n, 1);
	struct graph g;

	cr_assert_not_null(m);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			const uint32_t bi[2] = {ba[i], bb[i]}, bj[2] = {ba[j], bb[j]};

			for (int x = 0; x < 2; x++)
				for (int y = 0; y < 2; y++)
					m[i * n + j] |= i != j && bi[x] != PX_STATIC &&
							bi[x] == bj[y];
		}
	g = graph_from(m, n);
	free(m);
	return g;
}

/* Assembled: two contacts conflict when A has a non-zero block between
 * them, either way round. */
static struct graph graph_of_blocks(const struct px_problem *p)
{
	const size_t n = px_problem_n_contacts(p), bs = px_problem_block_size(p);
	const size_t rows = n * bs;
	unsigned char *m = calloc(n * n, 1);
	double *a = malloc(rows * rows * sizeof *a);
	struct graph g;

	cr_assert(m && a);
	cr_assert_eq(px_problem_to_dense(p, a), PX_OK);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			for (size_t r = 0; r < bs; r++)
				for (size_t c = 0; c < bs; c++)
					m[i * n + j] |=
						i != j &&
						(a[(i * bs + r) * rows + j * bs + c] != 0.0 ||
						 a[(j * bs + r) * rows + i * bs + c] != 0.0);
	free(a);
	g = graph_from(m, n);
	free(m);
	return g;
}

static void graph_free(struct graph *g)
{
	free(g->ptr);
	free(g->adj);
}

/* No edge inside a color; sizes count the colors; greedy: every lower
 * color is held by an earlier neighbour. */
static void assert_valid_coloring(const struct coloring *c,
				  const struct graph *g, enum coloring_mode mode,
				  const char *what)
{
	uint32_t *count = calloc(c->n_colors + 1, sizeof *count);

	cr_assert_not_null(count);
	for (uint32_t k = 0; k < g->n; k++) {
		cr_assert_lt(c->color[k], c->n_colors, "%s: contact %u", what, k);
		count[c->color[k]]++;
		for (uint32_t q = g->ptr[k]; q < g->ptr[k + 1]; q++)
			cr_assert_neq(c->color[k], c->color[g->adj[q]],
				      "%s: contacts %u and %u conflict and share color %u",
				      what, k, g->adj[q], c->color[k]);
		if (mode == COLORING_GREEDY)
			for (uint32_t lower = 0; lower < c->color[k]; lower++) {
				int held = 0;

				for (uint32_t q = g->ptr[k]; q < g->ptr[k + 1]; q++)
					held |= g->adj[q] < k &&
						c->color[g->adj[q]] == lower;
				cr_assert(held, "%s: contact %u got color %u though %u was free",
					  what, k, c->color[k], lower);
			}
	}
	for (uint32_t col = 0; col < c->n_colors; col++) {
		cr_assert_gt(count[col], 0, "%s: color %u is empty", what, col);
		cr_assert_eq(count[col], c->size[col], "%s: size of color %u", what, col);
	}
	free(count);
}

/* Every contact in exactly one group, the groups as coloring_group says:
 * the colors of at least merge_below contacts, in color order, each safe,
 * then the smaller ones together. */
static void assert_groups(const struct coloring *c, const struct graph *g,
			  size_t merge_below, const char *what)
{
	const uint32_t groups = coloring_groups(c);
	uint32_t *seen = calloc(g->n, sizeof *seen), safe = 0;

	cr_assert_not_null(seen);
	cr_assert_eq(c->start[0], 0);
	cr_assert_eq(c->start[groups], g->n, "%s", what);
	for (uint32_t g_ = 0; g_ < groups; g_++)
		for (uint32_t i = c->start[g_]; i < c->start[g_ + 1]; i++) {
			const uint32_t k = c->list[i];

			cr_assert_eq(seen[k]++, 0, "%s: contact %u twice", what, k);
			cr_assert_eq(c->group[k], g_, "%s", what);
			if (g_ < c->n_safe) {
				cr_assert_geq(c->size[c->color[k]], merge_below);
				cr_assert_eq(c->color[k], c->color[c->list[c->start[g_]]],
					     "%s: a safe group mixes colors", what);
			} else {
				cr_assert_lt(c->size[c->color[k]], merge_below);
			}
		}
	for (uint32_t col = 0; col < c->n_colors; col++)
		safe += c->size[col] >= merge_below;
	cr_assert_eq(c->n_safe, safe, "%s", what);
	cr_assert_eq(c->n_merged, c->n_colors - safe, "%s", what);
	free(seen);
}

/* A pseudo-random permutation of 0 .. n-1 (Fisher-Yates, xorshift). */
static void shuffle(uint32_t *perm, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n; i > 1; i--) {
		size_t j;
		uint32_t t;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		j = (size_t)(seed % i);
		t = perm[i - 1], perm[i - 1] = perm[j], perm[j] = t;
	}
}

static void check_colorings(struct graph g, const char *name)
{
	static const enum coloring_mode modes[] = {COLORING_GREEDY,
						   COLORING_BALANCED};
	uint32_t *perm = malloc(g.n * sizeof *perm);

	cr_assert_not_null(perm);
	shuffle(perm, g.n, 7);
	for (int m = 0; m < 2; m++) {
		struct coloring c;
		uint32_t largest = 0;
		char what[128];

		snprintf(what, sizeof what, "%s, %s", name,
			 modes[m] == COLORING_GREEDY ? "greedy" : "balanced");
		cr_assert_eq(coloring_alloc(&c, g.n, 0), 0);
		coloring_color(&c, g.ptr, g.adj, modes[m]);
		cr_assert_gt(c.n_colors, 1, "%s: the graph has edges", what);
		assert_valid_coloring(&c, &g, modes[m], what);
		/* no merging, colors smaller than the largest merged, all */
		for (uint32_t col = 0; col < c.n_colors; col++)
			largest = c.size[col] > largest ? c.size[col] : largest;
		for (int t = 0; t < 3; t++) {
			const size_t below = t == 0 ? 0 : largest + (t == 2);

			coloring_group(&c, below);
			coloring_bucket(&c, perm);
			assert_groups(&c, &g, below, what);
			cr_log_info("%s: %u colors, %u merged below %zu\n",
				    what, c.n_colors, c.n_merged, below);
		}
		cr_assert_eq(c.n_safe, 0, "%s: everything merged", what);
		coloring_free(&c);
	}
	free(perm);
	graph_free(&g);
}

/* A lattice and the conflict graph of its bodies. */
static struct graph lattice_graph(int nx, int ny, int nz, int on_floor)
{
	uint32_t *ba, *bb;
	struct px_problem *p = lattice_bodies(nx, ny, nz, on_floor, &ba, &bb);
	struct graph g = graph_of_bodies(px_problem_n_contacts(p), ba, bb);

	free(ba);
	free(bb);
	px_problem_destroy(p);
	return g;
}

Test(coloring, valid_on_a_factorized_lattice)
{
	check_colorings(lattice_graph(5, 4, 3, 0), "lattice 5x4x3");
	check_colorings(lattice_graph(4, 4, 2, 1),
			"lattice 4x4x2 on a dynamic floor");
}

Test(coloring, valid_on_an_assembled_problem)
{
	struct px_problem *p = assembled_lattice(5, 4, 3);

	check_colorings(graph_of_blocks(p), "assembled lattice 5x4x3");
	px_problem_destroy(p);
}

Test(coloring, valid_on_an_assembled_file)
{
	struct px_problem *p = shared("KaplasTower-i1061-4.hdf5.dat");

	check_colorings(graph_of_blocks(p), "KaplasTower");
	px_problem_destroy(p);
}

/* Largest minus smallest color size. */
static uint32_t spread(const struct coloring *c)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	for (uint32_t col = 0; col < c->n_colors; col++) {
		lo = c->size[col] < lo ? c->size[col] : lo;
		hi = c->size[col] > hi ? c->size[col] : hi;
	}
	return hi - lo;
}

Test(coloring, balanced_sizes_are_more_even_than_greedy)
{
	struct graph g = lattice_graph(4, 4, 4, 0);
	struct coloring gr, ba;

	cr_assert_eq(coloring_alloc(&gr, g.n, 0), 0);
	cr_assert_eq(coloring_alloc(&ba, g.n, 0), 0);
	coloring_color(&gr, g.ptr, g.adj, COLORING_GREEDY);
	coloring_color(&ba, g.ptr, g.adj, COLORING_BALANCED);
	cr_log_info("4x4x4 lattice, %zu contacts: greedy %u colors, spread %u; balanced %u colors, spread %u\n",
		    g.n, gr.n_colors, spread(&gr), ba.n_colors, spread(&ba));
	cr_assert_lt(spread(&ba), spread(&gr));
	cr_assert_leq(spread(&ba), 2, "balanced sizes differ by %u", spread(&ba));
	cr_assert_leq(ba.n_colors, gr.n_colors + 1,
		      "balanced needs far more colors (barriers) than greedy");
	coloring_free(&gr);
	coloring_free(&ba);
	graph_free(&g);
}

Test(coloring, lists_keep_the_permutations_order)
{
	struct graph g = lattice_graph(4, 3, 3, 0);
	struct coloring c;
	uint32_t *perm = malloc(g.n * sizeof *perm);
	uint32_t *pos = malloc(g.n * sizeof *pos);

	cr_assert(perm && pos);
	cr_assert_eq(coloring_alloc(&c, g.n, 0), 0);
	coloring_color(&c, g.ptr, g.adj, COLORING_GREEDY);
	coloring_group(&c, c.size[c.n_colors - 1] + 1); /* an unsafe group */
	cr_assert_gt(c.n_merged, 0);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		shuffle(perm, g.n, seed);
		for (size_t i = 0; i < g.n; i++)
			pos[perm[i]] = (uint32_t)i;
		coloring_bucket(&c, perm);
		assert_groups(&c, &g, c.size[c.n_colors - 1] + 1, "lattice");
		for (uint32_t grp = 0; grp < coloring_groups(&c); grp++)
			for (uint32_t i = c.start[grp] + 1; i < c.start[grp + 1]; i++)
				cr_assert_lt(pos[c.list[i - 1]], pos[c.list[i]],
					     "seed %llu, group %u: contact %u listed before %u against the permutation",
					     (unsigned long long)seed, grp,
					     c.list[i - 1], c.list[i]);
	}
	coloring_free(&c);
	free(perm);
	free(pos);
	graph_free(&g);
}

/* With K patches: color 0 holds exactly the contacts whose neighbours all
 * lie in their own patch, each unit of group 0 is one patch's interior,
 * units of group 0 share no neighbours, the other colors are independent
 * sets, and a unit's contacts and a group's units follow the permutation. */
Test(coloring, patches_relax_interiors_and_color_borders)
{
	struct graph g = lattice_graph(5, 4, 4, 1);
	uint32_t *perm = malloc(g.n * sizeof *perm), *pos = malloc(g.n * sizeof *pos);
	uint32_t *unit = malloc(g.n * sizeof *unit);

	cr_assert(perm && pos && unit);
	for (size_t K = 1; K <= 5; K += 2) {
		struct coloring c;
		size_t interior = 0;

		cr_assert_eq(coloring_alloc(&c, g.n, K), 0);
		coloring_color(&c, g.ptr, g.adj, COLORING_GREEDY);
		coloring_group(&c, 0);
		shuffle(perm, g.n, K);
		for (size_t i = 0; i < g.n; i++)
			pos[perm[i]] = (uint32_t)i;
		coloring_bucket(&c, perm);
		for (size_t k = 0; k < g.n; k++) {
			int inside = 1;

			for (uint32_t q = g.ptr[k]; q < g.ptr[k + 1]; q++)
				inside &= g.adj[q] / c.patch == k / c.patch;
			cr_assert_eq(c.color[k] == 0, inside, "K %zu, contact %zu", K, k);
			interior += inside;
			for (uint32_t q = g.ptr[k]; q < g.ptr[k + 1]; q++)
				if (c.color[k])
					cr_assert_neq(c.color[k], c.color[g.adj[q]]);
		}
		cr_assert_eq(c.size[0], interior);
		if (K == 1)
			cr_assert_eq(interior, g.n, "one patch: all interior");
		for (uint32_t grp = 0; grp < coloring_groups(&c); grp++) {
			cr_assert_eq(c.ustart[c.unit[grp]], c.start[grp]);
			cr_assert_eq(c.ustart[c.unit[grp + 1]], c.start[grp + 1]);
			for (uint32_t u = c.unit[grp]; u < c.unit[grp + 1]; u++) {
				cr_assert_lt(c.ustart[u], c.ustart[u + 1], "empty unit");
				if (grp > 0)
					cr_assert_eq(c.ustart[u + 1] - c.ustart[u], 1);
				for (uint32_t i = c.ustart[u]; i < c.ustart[u + 1]; i++) {
					unit[c.list[i]] = u;
					cr_assert_eq(c.list[i] / c.patch,
						     c.list[c.ustart[u]] / c.patch);
					if (i > c.ustart[u])
						cr_assert_lt(pos[c.list[i - 1]], pos[c.list[i]]);
				}
				if (u > c.unit[grp])
					cr_assert_lt(pos[c.list[c.ustart[u - 1]]],
						     pos[c.list[c.ustart[u]]]);
			}
		}
		for (uint32_t i = 0; i < c.start[1]; i++)
			for (uint32_t q = g.ptr[c.list[i]]; q < g.ptr[c.list[i] + 1]; q++)
				if (c.color[g.adj[q]] == 0)
					cr_assert_eq(unit[g.adj[q]], unit[c.list[i]]);
		cr_log_info("lattice, %zu patches: %zu interior of %zu, %u colors\n",
			    K, interior, g.n, c.n_colors);
		coloring_free(&c);
	}
	free(perm);
	free(pos);
	free(unit);
	graph_free(&g);
}

/* ---- solves through the plugins ----------------------------------------- */

static uint64_t fnv1a(const void *data, size_t len)
{
	const unsigned char *b = data;
	uint64_t h = 14695981039346656037u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211u;
	return h;
}

/* Solve p from zero with the INI text; exactly `sweeps` sweeps unless 0
 * (then to convergence). The scheduler's describe line goes to desc. */
static double *solve(const struct px_problem *p, const char *text,
		     uint64_t sweeps, char *desc, size_t len)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	double *x = calloc(m, sizeof *x);
	struct px_config *cfg = config_from_text(text);
	struct px_report rep;
	struct px_error err = {0};

	cr_assert_not_null(x);
	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s", err.msg);
	if (sweeps)
		cr_assert_eq(rep.sweeps, sweeps, "%s", text);
	else
		cr_assert(rep.converged, "%s: not converged after %llu sweeps",
			  text, (unsigned long long)rep.sweeps);
	px_scheduler_describe(cfg, desc, len);
	px_report_free(&rep);
	px_config_free(cfg);
	return x;
}

/* The scheduler sections whose lambda must not depend on the threads. */
static const char *const deterministic[] = {
	"plugin = colored\ncoloring = greedy\n",
	"plugin = colored\ncoloring = balanced\n",
	"plugin = colored\ncoloring = greedy\nmerge_below = 80\n",
	"plugin = colored\ncoloring = balanced\nmerge_below = 1000000\n",
	"plugin = colored\npatches = 3\n",
	"plugin = colored\npatches = 5\nlanes = 3\n",
	"plugin = colored\ncoloring = balanced\npatches = 2\nmerge_below = 5\n",
	"plugin = jacobi\n",
};

static void bit_for_bit(const struct px_problem *p, const char *name)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);

	for (size_t i = 0; i < sizeof deterministic / sizeof *deterministic; i++) {
		uint64_t first = 0;

		for (int t = 1; t <= 4; t++)
			for (int run = 0; run < 2; run++) {
				char text[512], desc[1024], want[32];
				double *x;
				uint64_t h;

				snprintf(text, sizeof text,
					 "[solver]\nmax_sweeps = 25\nabs_tol = 0\nrel_tol = 0\n"
					 "[scheduler]\n%sthreads = %d\nserial_below = 0\n",
					 deterministic[i], t);
				x = solve(p, text, 25, desc, sizeof desc);
				snprintf(want, sizeof want, " %d thread%s", t,
					 t > 1 ? "s" : "");
				cr_assert(strstr(desc, want), "%s: %s", want, desc);
				h = fnv1a(x, m * sizeof *x);
				if (t == 1 && run == 0) {
					first = h;
					cr_log_info("%s, %s: %s\n", name,
						    deterministic[i], desc);
				}
				cr_assert_eq(h, first,
					     "%s, %sthreads = %d, run %d: lambda differs from one thread's",
					     name, deterministic[i], t, run);
				free(x);
			}
	}
}

Test(colored, bit_for_bit_whatever_the_thread_count_factorized)
{
	struct px_problem *p = lattice(6, 6, 5, 0);

	bit_for_bit(p, "lattice 6x6x5");
	px_problem_destroy(p);
}

Test(colored, bit_for_bit_whatever_the_thread_count_assembled)
{
	struct px_problem *p = assembled_lattice(5, 4, 3);

	bit_for_bit(p, "assembled lattice 5x4x3");
	px_problem_destroy(p);
}

Test(colored, bit_for_bit_whatever_the_thread_count_on_a_shared_file)
{
	struct px_problem *p = shared("KaplasTower-i1061-4.hdf5.dat");

	bit_for_bit(p, "KaplasTower");
	px_problem_destroy(p);
}

/* The merged configurations above really have an unsafe color, and the
 * fully merged one has no safe color at all. */
/* Lanes only interleave independent lists: lambda is the same bit for bit
 * with 1 to 4 of them, with and without patches, on rigid and factorized
 * problems. */
Test(colored, lanes_change_nothing_but_the_speed)
{
	static const char *const base[] = {"", "patches = 3\n", "patches = 1\n"};
	struct px_problem *p = lattice(6, 5, 4, 1);
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);

	for (size_t b = 0; b < sizeof base / sizeof *base; b++) {
		uint64_t first = 0;

		for (int lanes = 1; lanes <= 4; lanes++) {
			char text[512], desc[1024];
			double *x;

			snprintf(text, sizeof text,
				 "[solver]\nmax_sweeps = 20\nabs_tol = 0\nrel_tol = 0\n"
				 "[scheduler]\nplugin = colored\n%slanes = %d\nthreads = 2\nserial_below = 0\n",
				 base[b], lanes);
			x = solve(p, text, 20, desc, sizeof desc);
			if (lanes == 1)
				first = fnv1a(x, m * sizeof *x);
			cr_assert_eq(fnv1a(x, m * sizeof *x), first, "%s", text);
			free(x);
		}
	}
	px_problem_destroy(p);
}

/* The describe line's color sizes (pinned below) beside what they must be:
 * the greedy coloring of the lattice's bodies' conflict graph, built here
 * and checked valid (no two contacts of one color share a dynamic body,
 * every contact in one color), whose sizes of at least merge_below are
 * the safe colors in order and the rest the unsafe one; the sizes sum to
 * the contact count; and the number of colors is the most contacts one
 * dynamic body has (they all conflict: no coloring has fewer). */
static void assert_colors_of(const char *desc, int nx, int ny, int nz,
			     uint32_t merge_below)
{
	uint32_t *ba, *bb, *per_body, most = 0, unsafe = 0, from = 0, safe = 0;
	struct px_problem *p = lattice_bodies(nx, ny, nz, 0, &ba, &bb);
	const size_t n = px_problem_n_contacts(p), nb = (size_t)nx * ny * nz;
	struct graph g = graph_of_bodies(n, ba, bb);
	struct coloring c;
	char want[512];
	size_t len, total = 0;

	per_body = calloc(nb, sizeof *per_body);
	cr_assert_not_null(per_body);
	for (size_t k = 0; k < n; k++) {
		per_body[ba[k]]++;
		if (bb[k] != PX_STATIC)
			per_body[bb[k]]++;
	}
	for (size_t i = 0; i < nb; i++)
		most = per_body[i] > most ? per_body[i] : most;
	cr_assert_eq(coloring_alloc(&c, n, 0), 0);
	coloring_color(&c, g.ptr, g.adj, COLORING_GREEDY);
	assert_valid_coloring(&c, &g, COLORING_GREEDY, "lattice");
	cr_assert_eq(c.n_colors, most, "%u colors, a body has %u contacts",
		     c.n_colors, most);
	len = (size_t)snprintf(want, sizeof want, ": ");
	for (uint32_t col = 0; col < c.n_colors; col++) {
		total += c.size[col];
		if (c.size[col] >= merge_below)
			safe++;
		else
			unsafe += c.size[col], from++;
	}
	cr_assert_eq(total, n);
	len += (size_t)snprintf(want + len, sizeof want - len,
				"%u safe colors (sizes", safe);
	for (uint32_t col = 0; col < c.n_colors; col++)
		if (c.size[col] >= merge_below)
			len += (size_t)snprintf(want + len, sizeof want - len,
						" %u", c.size[col]);
	snprintf(want + len, sizeof want - len,
		 "), unsafe color of %u contacts from %u colors", unsafe, from);
	cr_assert(strstr(desc, want), "%s\nwant %s", desc, want);
	coloring_free(&c);
	graph_free(&g);
	free(per_body);
	free(ba);
	free(bb);
	px_problem_destroy(p);
}

Test(colored, merge_below_makes_an_unsafe_color)
{
	struct px_problem *p = lattice(6, 6, 5, 0);
	char desc[1024], want[64];

	free(solve(p, "[solver]\nmax_sweeps = 1\n[scheduler]\nplugin = colored\nmerge_below = 80\n",
		   1, desc, sizeof desc));
	cr_assert(strstr(desc, ": 4 safe colors (sizes 108 90 90 88), unsafe color of 104 contacts from 2 colors"),
		  "%s", desc);
	assert_colors_of(desc, 6, 6, 5, 80);
	free(solve(p, "[solver]\nmax_sweeps = 1\n[scheduler]\nplugin = colored\ncoloring = balanced\nmerge_below = 1000000\n",
		   1, desc, sizeof desc));
	snprintf(want, sizeof want, ": 0 safe colors, unsafe color of %zu contacts",
		 px_problem_n_contacts(p));
	cr_assert(strstr(desc, want), "%s", desc);
	px_problem_destroy(p);
}

/* Naive with one thread is the sequential scheduler, bit for bit, whatever
 * the ordering. */
static void naive_one_thread_is_sequential(struct px_problem *p)
{
	static const char *const orderings[] = {
		"plugin = identity\n",
		"plugin = random\nreshuffle = every\n",
		"plugin = staggered\nmode = greedy\n",
	};
	const size_t m = px_problem_n_contacts(p) * 3;

	for (size_t o = 0; o < sizeof orderings / sizeof *orderings; o++) {
		char text[512], desc[512];
		double *a, *b;

		snprintf(text, sizeof text,
			 "[solver]\nmax_sweeps = 20\nabs_tol = 0\nrel_tol = 0\n"
			 "[ordering]\n%s", orderings[o]);
		a = solve(p, text, 20, desc, sizeof desc);
		strcat(text, "[scheduler]\nplugin = naive\nthreads = 1\nserial_below = 0\n");
		b = solve(p, text, 20, desc, sizeof desc);
		cr_assert(strstr(desc, "naive: 1 range of about "), "%s", desc);
		cr_assert_arr_eq(a, b, m * sizeof *a, "%s", text);
		free(a);
		free(b);
	}
	px_problem_destroy(p);
}

Test(naive, one_thread_is_sequential)
{
	naive_one_thread_is_sequential(lattice(5, 5, 4, 0));
	naive_one_thread_is_sequential(assembled_lattice(5, 4, 3));
}

Test(naive, one_thread_is_sequential_on_a_shared_file)
{
	naive_one_thread_is_sequential(shared("Rover4516.dat"));
}

/* With box friction and r = 1/A_ii, naive is helpers.h's textbook
 * projected Gauss-Seidel on the dense A in T ranges. */
static void naive_is_ranged_gauss_seidel(struct px_problem *p, const char *name)
{
	const size_t m = 3 * px_problem_n_contacts(p);

	for (int t = 2; t <= 4; t++) {
		double *ref = calloc(m, sizeof *ref), *x, scale = 0, apart = 0;
		char text[512], desc[512];

		cr_assert_not_null(ref);
		snprintf(text, sizeof text,
			 "[solver]\nmax_sweeps = 4\nabs_tol = 0\nrel_tol = 0\n"
			 "[friction]\nplugin = box\n"
			 "[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n"
			 "[scheduler]\nplugin = naive\nthreads = %d\nserial_below = 0\n",
			 t);
		x = solve(p, text, 4, desc, sizeof desc);
		pgs_reference(p, ref, 4, t);
		for (size_t i = 0; i < m; i++)
			scale = fmax(scale, fabs(ref[i]));
		for (size_t i = 0; i < m; i++)
			cr_assert_float_eq(x[i], ref[i], 1e-12 * scale,
					   "%s, %d ranges, row %zu: %.17g vs %.17g",
					   name, t, i, x[i], ref[i]);
		/* and it is not Gauss-Seidel over the whole sequence */
		memset(ref, 0, m * sizeof *ref);
		pgs_reference(p, ref, 4, 1);
		for (size_t i = 0; i < m; i++)
			apart = fmax(apart, fabs(x[i] - ref[i]));
		cr_assert_gt(apart, 1e-6 * scale,
			     "%s: %d ranges give one range's iterate", name, t);
		free(x);
		free(ref);
	}
	px_problem_destroy(p);
}

Test(naive, gauss_seidel_inside_ranges_and_jacobi_between)
{
	naive_is_ranged_gauss_seidel(lattice(4, 4, 3, 0), "lattice 4x4x3");
	naive_is_ranged_gauss_seidel(assembled_lattice(4, 4, 3),
				     "assembled lattice 4x4x3 on a floor");
}

Test(naive, gauss_seidel_inside_ranges_on_a_shared_file)
{
	naive_is_ranged_gauss_seidel(shared("KaplasTower-i1061-4.hdf5.dat"),
				     "KaplasTower");
}

/* Same T, same lambda in every run. */
Test(naive, bit_for_bit_across_runs)
{
	struct px_problem *p = lattice(6, 6, 5, 0);
	const size_t m = 3 * px_problem_n_contacts(p);
	const char *text = "[solver]\nmax_sweeps = 25\nabs_tol = 0\nrel_tol = 0\n"
			   "[scheduler]\nplugin = naive\nthreads = 3\nserial_below = 0\n";
	char desc[512];
	double *a = solve(p, text, 25, desc, sizeof desc);

	cr_assert(strstr(desc, "naive: 3 ranges"), "%s", desc);
	for (int run = 0; run < 3; run++) {
		double *b = solve(p, text, 25, desc, sizeof desc);

		cr_assert_arr_eq(a, b, m * sizeof *a, "run %d", run);
		free(b);
	}
	free(a);
	px_problem_destroy(p);
}

/* Solve p with cfg (reused, so the plugin keeps its state); its describe. */
static void solve_with(const struct px_problem *p, const struct px_config *cfg,
		       double *x, char *desc, size_t len)
{
	struct px_report rep;
	struct px_error err = {0};

	memset(x, 0, px_problem_n_contacts(p) * 3 * sizeof *x);
	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s", err.msg);
	cr_assert(px_scheduler_describe(cfg, desc, len));
	px_report_free(&rep);
}

/* The reuse check of colored: with bodies (ABI 1.6) the body pairs are
 * compared and the graph is not built again; an assembled problem's graph
 * is built and compared. */
Test(colored, recolors_only_when_the_graph_changes)
{
	/* same contacts, different graphs: the bottom layer on the static
	 * ground, then on a dynamic floor; a2 is a, built again */
	struct px_problem *a = lattice(20, 20, 10, 0), *b = lattice(20, 20, 10, 1);
	struct px_problem *a2 = lattice(20, 20, 10, 0);
	struct px_problem *c = lattice(4, 4, 4, 0);
	struct px_problem *f = assembled_lattice(5, 4, 3);
	const size_t n = px_problem_n_contacts(a);
	struct px_config *cfg = config_from_text(
		"[solver]\nmax_sweeps = 3\n[scheduler]\nplugin = colored\ncoloring = balanced\n");
	double *x = malloc(3 * n * sizeof *x), *fresh;
	char desc[1024];

	cr_assert_not_null(x);
	cr_assert_eq(px_problem_n_contacts(b), n);
	solve_with(a, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: no)"), "%s", desc);
	cr_log_info("lattice of %zu contacts, first solve: %s\n", n, desc);
	solve_with(a, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: yes)"), "%s", desc);
	cr_log_info("same lattice, second solve: %s\n", desc);
	/* the reused coloring gives what a fresh plugin gives */
	fresh = solve(a, "[solver]\nmax_sweeps = 3\n[scheduler]\nplugin = colored\ncoloring = balanced\n",
		      3, desc, sizeof desc);
	cr_assert_arr_eq(x, fresh, 3 * n * sizeof *x);
	free(fresh);
	solve_with(b, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: no)"), "dynamic floor: %s", desc);
	solve_with(b, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: yes)"), "%s", desc);
	solve_with(a2, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: no)"), "back to the ground: %s", desc);
	solve_with(a, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "conflict graph (") &&
			  strstr(desc, " edges) 0.000 ms") &&
			  strstr(desc, "(reused: yes)"),
		  "the same body pairs in another problem: %s", desc);
	solve_with(c, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: no)"), "fewer contacts: %s", desc);
	/* without bodies: the graph of A's blocks */
	cr_assert_leq(px_problem_n_contacts(f), n);
	solve_with(f, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: no)"), "assembled: %s", desc);
	solve_with(f, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: yes)"), "assembled: %s", desc);
	cr_log_info("assembled, second solve: %s\n", desc);
	solve_with(c, cfg, x, desc, sizeof desc);
	cr_assert(strstr(desc, "(reused: no)"), "bodies again: %s", desc);
	px_config_free(cfg);
	free(x);
	px_problem_destroy(a);
	px_problem_destroy(a2);
	px_problem_destroy(b);
	px_problem_destroy(c);
	px_problem_destroy(f);
}

/* Every scheduler reaches the contact laws on the lattice, the ordering
 * reshuffled every sweep. Gauss-Seidel with r = 1/A_ii (gamma = 1); naive
 * and jacobi are Jacobi between contacts of different threads, which
 * diverges on this lattice with gamma = 1 (jacobi's iterate then grows
 * until the relative fc3d error is tiny while the contact laws fail badly,
 * hence the check of the laws): they get gamma = 0.7.
 * Each solution is checked outside the solver (oracle.h): Siconos's error
 * and Coulomb's law contact by contact, each residual at most LATTICE_REL
 * of the contact's own scale; measured at most 5.5e-10 (colored with
 * patches), 0.7e-10 to 1.3e-10 for the others. */
#define LATTICE_REL 1e-8
Test(schedulers, reach_the_contact_laws_on_the_lattice)
{
	static const char *const schedulers[] = {
		"gamma = 1\n[scheduler]\nplugin = sequential\n",
		"gamma = 1\n[scheduler]\nplugin = colored\nthreads = 3\nserial_below = 0\n",
		"gamma = 1\n[scheduler]\nplugin = colored\ncoloring = balanced\nthreads = 2\nserial_below = 0\n",
		"gamma = 1\n[scheduler]\nplugin = colored\nmerge_below = 40\nthreads = 2\nserial_below = 0\n",
		"gamma = 1\n[scheduler]\nplugin = colored\npatches = 4\nthreads = 2\nserial_below = 0\n",
		"gamma = 0.7\n[scheduler]\nplugin = naive\nthreads = 3\nserial_below = 0\n",
		"gamma = 0.7\n[scheduler]\nplugin = jacobi\nthreads = 2\nserial_below = 0\n",
	};
	struct px_problem *p = lattice(5, 5, 4, 0);

	for (size_t i = 0; i < sizeof schedulers / sizeof *schedulers; i++) {
		char text[512], desc[1024], what[256];
		double *x, worst;

		snprintf(text, sizeof text,
			 "[solver]\nmerit = fc3d\nabs_tol = 1e-10\nmax_sweeps = 20000\n"
			 "[ordering]\nplugin = random\nreshuffle = every\n"
			 "[rfactor]\nplugin = local\nnu = 1\n%s",
			 schedulers[i]);
		x = solve(p, text, 0, desc, sizeof desc);
		snprintf(what, sizeof what, "%s", schedulers[i]);
		for (char *c = what; (c = strchr(c, '\n'));)
			*c = ' ';
		worst = assert_solution(p, x, LATTICE_REL, 0.0, 1e-10, what);
		cr_log_info("%s: worst Coulomb residual %.2e of the contact's scale\n",
			    what, worst);
		free(x);
	}
	px_problem_destroy(p);
}

/* A scheduler built against ABI 1.1 loads (its ops end before describe)
 * and the host does not read past them. */
Test(schedulers, abi_1_1_scheduler_loads_without_describe)
{
	struct px_problem *p = lattice(3, 3, 2, 0);
	struct px_config *cfg;
	struct px_report rep;
	double x[3 * 64] = {0};
	char desc[64] = "untouched";

	cr_assert_leq(px_problem_n_contacts(p), 64);
	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH",
			    PX_PLUGIN_BUILD_DIR ":" PX_TEST_PLUGIN_DIR, 1),
		     0);
	cfg = config_from_text("[solver]\nmax_sweeps = 5\n[scheduler]\nplugin = abi11\n");
	cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK);
	cr_assert_eq(rep.sweeps, 5);
	cr_assert_eq(px_scheduler_describe(cfg, desc, sizeof desc), 0);
	cr_assert_str_eq(desc, "");
	px_report_free(&rep);
	px_config_free(cfg);
	px_problem_destroy(p);
}

/* What a parallel_for call visited: each item's count, and the calls. */
struct visits {
	unsigned hits[1000];
	atomic_uint calls, bad; /* bad: empty or out-of-range ranges */
};

/* On the scheduler's threads: no assertion here, only counts. */
static void visit(void *ctx, size_t begin, size_t end)
{
	struct visits *v = ctx;

	atomic_fetch_add(&v->calls, 1);
	if (begin >= end || end > 1000) {
		atomic_fetch_add(&v->bad, 1);
		return;
	}
	for (size_t i = begin; i < end; i++)
		v->hits[i]++;
}

/* parallel_for (ABI 1.6) of the OpenMP schedulers: disjoint ranges that
 * cover [0, n), one per thread, and one call on one thread when n is
 * below serial_below; the sequential scheduler has none (the host then
 * runs its set-up itself). */
Test(schedulers, parallel_for_covers_the_range_once)
{
	static const char *const names[] = {"colored", "jacobi", "naive"};
	static const size_t sizes[] = {0, 1, 2, 7, 1000};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		for (int below = 0; below < 2; below++) {
			char text[160];
			struct px_config *cfg;
			const struct px_scheduler_ops *ops;

			snprintf(text, sizeof text,
				 "[scheduler]\nplugin = %s\nthreads = 3\nserial_below = %d\n",
				 names[i], below ? 5000 : 0);
			cfg = config_from_text(text);
			ops = (const void *)px_plugin_header(
				px_config_plugin(cfg, PX_KIND_SCHEDULER));
			cr_assert_not_null(ops->parallel_for, "%s", names[i]);
			for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
				struct visits v = {{0}, 0, 0};
				const size_t n = sizes[s];

				ops->parallel_for(px_plugin_state(px_config_plugin(
							  cfg, PX_KIND_SCHEDULER)),
						  n, visit, &v);
				for (size_t k = 0; k < 1000; k++)
					cr_assert_eq(v.hits[k], k < n,
						     "%s, n %zu: item %zu", text,
						     n, k);
				cr_assert_eq(atomic_load(&v.bad), 0, "%s", text);
				cr_assert_eq(atomic_load(&v.calls),
					     n == 0 ? 0 : below ? 1 : n < 3 ? n : 3,
					     "%s, n %zu", text, n);
			}
			px_config_free(cfg);
		}
	{
		struct px_config *cfg =
			config_from_text("[scheduler]\nplugin = sequential\n");
		const struct px_scheduler_ops *ops = (const void *)px_plugin_header(
			px_config_plugin(cfg, PX_KIND_SCHEDULER));

		cr_assert_null(ops->parallel_for);
		px_config_free(cfg);
	}
}
