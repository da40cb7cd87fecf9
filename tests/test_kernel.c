/* The problem's A and the relax kernel: assembled A validated and left
 * unchanged on error; a part (normal or friction) changes only its rows; the
 * Jacobi entry points (compute, store, refresh) agree with relax; compute
 * then commit, and relax_private on a private copy, are relax bit for bit
 * (factorized and assembled); the conflict graph links exactly the contacts
 * that share a dynamic body or a non-zero block; relax_lists tallies the
 * change it made as a pass over lambda would (both kernels). The kernel is
 * private, so its sources are compiled in. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <proxima/proxima.h>

#include "kernel.h"

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

Test(problem, refuses_bad_block_size_and_empty)
{
	struct px_problem *p = (void *)1;
	struct px_error err = {0};

	cr_assert_eq(px_problem_create(2, 5, &p, &err), PX_ERR_INVALID);
	cr_assert_null(p);
	cr_assert_str_eq(err.msg, "contact blocks of 5 rows are not supported (expected 3 or 4)");
	cr_assert_eq(px_problem_create(0, 3, &p, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "a problem needs at least one contact");
}

Test(problem, geometry_must_be_finite)
{
	const double at[3] = {1, 2, 3}, nan_at[3] = {1, NAN, 3};
	double frame[9];
	struct px_problem *p;
	struct px_error err = {0};

	memcpy(frame, I3, sizeof frame);
	cr_assert_eq(px_problem_create(2, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_geometry(p, 1, nan_at, frame, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact 1: position[1] is not finite");
	cr_assert_null(px_problem_positions(p), "geometry kept after an error");
	frame[8] = INFINITY;
	cr_assert_eq(px_problem_set_geometry(p, 0, at, frame, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact 0: frame[8] is not finite");
	frame[8] = 1.0;
	cr_assert_eq(px_problem_set_geometry(p, 0, at, frame, &err), PX_OK);
	cr_assert_float_eq(px_problem_positions(p)[2], 3.0, 0);
	px_problem_destroy(p);
}

Test(problem, assembled_sorts_columns_and_adds_missing_diagonal)
{
	/* row 0 lists (0,1) out of order; row 1 has no diagonal block */
	const size_t rowptr[] = {0, 2, 3};
	const uint32_t cols[] = {1, 0, 0};
	double blocks[27], dense[36];
	struct px_problem *p;

	for (int b = 0; b < 3; b++)
		for (int i = 0; i < 9; i++)
			blocks[9 * b + i] = 10 * b + i + 1;
	cr_assert_eq(px_problem_create(2, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, blocks, NULL), PX_OK);
	cr_assert_eq(px_problem_to_dense(p, dense), PX_OK);
	/* A[0][3] is block (0,1) = blocks[0..8], row 0, col 0 */
	cr_assert_float_eq(dense[0 * 6 + 3], 1, 0);
	cr_assert_float_eq(dense[0 * 6 + 0], 11, 0); /* block (0,0) = blocks[9..] */
	cr_assert_float_eq(dense[3 * 6 + 0], 21, 0); /* block (1,0) */
	cr_assert_float_eq(dense[3 * 6 + 3], 0, 0);  /* missing diagonal: zero */
	px_problem_destroy(p);
}

Test(problem, assembled_errors_leave_the_problem_unchanged)
{
	const size_t good_ptr[] = {0, 1, 2}, dup_ptr[] = {0, 2, 3};
	const uint32_t good_cols[] = {0, 1}, dup_cols[] = {0, 0, 1};
	const uint32_t far_cols[] = {0, 5};
	double blocks[27] = {0}, before[36], after[36];
	struct px_problem *p;
	struct px_error err = {0};

	memcpy(blocks, I3, sizeof I3);
	memcpy(blocks + 9, I3, sizeof I3);
	memcpy(blocks + 18, I3, sizeof I3);
	cr_assert_eq(px_problem_create(2, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, good_ptr, good_cols, blocks, NULL), PX_OK);
	px_problem_to_dense(p, before);
	cr_assert_eq(px_problem_set_assembled(p, dup_ptr, dup_cols, blocks, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "block (0, 0) given twice");
	cr_assert_eq(px_problem_set_assembled(p, good_ptr, far_cols, blocks, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "block (1, 5) out of range (2 block columns)");
	cr_assert_eq(px_problem_form(p), PX_FORM_ASSEMBLED);
	px_problem_to_dense(p, after);
	cr_assert_arr_eq(before, after, sizeof before);
	px_problem_destroy(p);
}

/* Three bodies in a row on the ground: contacts 0-2 ground-body, 3 between
 * bodies 0 and 1, 4 between 1 and 2. Jacobians are simple but coupled. */
static struct px_problem *chain(void)
{
	const uint32_t ba[5] = {PX_STATIC, PX_STATIC, PX_STATIC, 0, 1};
	const uint32_t bb[5] = {0, 1, 2, 1, 2};
	double jac[5 * 36], minv[5 * 36];
	struct px_problem *p;

	for (int i = 0; i < 5 * 36; i++) {
		jac[i] = 0.1 * ((i * 7) % 11) - 0.3;
		minv[i] = 0;
	}
	/* M^-1 J^T with M = diag(2, 2, 2, 1, 1, 1): M^-1 = 0.5, 0.5, 0.5, 1, 1, 1 */
	for (int k = 0; k < 5; k++)
		for (int side = 0; side < 2; side++)
			for (int r = 0; r < 3; r++)
				for (int d = 0; d < 6; d++)
					minv[k * 36 + side * 18 + d * 3 + r] =
						(d < 3 ? 0.5 : 1.0) *
						jac[k * 36 + side * 18 + r * 6 + d];
	cr_assert_eq(px_problem_create(5, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_factorized(p, 3, ba, bb, jac, minv, NULL), PX_OK);
	for (int i = 0; i < 15; i++)
		px_problem_b(p)[i] = (i % 3 == 0) ? -1.0 : 0.2 * (i % 5) - 0.4;
	for (int k = 0; k < 5; k++)
		px_problem_friction(p)[k].mu = 0.3;
	return p;
}

static void disc(const void *s, const struct px_friction_params *fp, double ln,
		 double *z, uint32_t nf)
{
	double len = hypot(z[0], z[1]), rad = fp->mu * ln;

	(void)s;
	(void)nf;
	if (len > rad) {
		z[0] *= rad / len;
		z[1] *= rad / len;
	}
}

static const struct px_friction_ops disc_ops = {.project = disc};

struct rig {
	struct px_problem *p;
	double lambda[15], w[18], r[15], diag[45];
	struct px_kernel_ctx c;
	struct px_kernel k;
};

static void rig_init(struct rig *g)
{
	g->p = chain();
	for (int i = 0; i < 15; i++) {
		g->lambda[i] = 0.05 * (i % 4);
		g->r[i] = 0.3;
	}
	memset(g->w, 0, sizeof g->w);
	for (size_t k = 0; k < 5; k++)
		px_problem_diag_block(g->p, k, g->diag + 9 * k);
	cr_assert_eq(px_kernel_init(&g->c, &g->k, g->p, g->lambda, g->w,
				    g->diag, g->r, PX_R_DIAGONAL, &disc_ops,
				    NULL, 0),
		     PX_OK);
	g->k.refresh(g->k.ctx, 0, 3);
}

static void rig_fini(struct rig *g)
{
	px_kernel_fini(&g->c);
	px_problem_destroy(g->p);
}

Test(kernel, parts_change_only_their_rows)
{
	struct rig g;
	double before[15];

	rig_init(&g);
	memcpy(before, g.lambda, sizeof before);
	g.k.relax(g.k.ctx, 3, PX_PART_NORMAL);
	cr_assert(g.lambda[9] != before[9], "the normal row moved");
	cr_assert(g.lambda[10] == before[10] && g.lambda[11] == before[11]);
	memcpy(before, g.lambda, sizeof before);
	g.k.relax(g.k.ctx, 3, PX_PART_FRICTION);
	cr_assert(g.lambda[9] == before[9]);
	cr_assert(g.lambda[10] != before[10] || g.lambda[11] != before[11]);
	for (int i = 0; i < 15; i++)
		if (i < 9 || i > 11)
			cr_assert(g.lambda[i] == before[i], "other contacts untouched");
	rig_fini(&g);
}

/* The body velocities equal M^-1 J^T lambda recomputed from scratch. */
static void assert_w_consistent(struct rig *g)
{
	double w[18];

	memcpy(w, g->w, sizeof w);
	g->k.refresh(g->k.ctx, 0, 3);
	for (int i = 0; i < 18; i++)
		cr_assert_float_eq(w[i], g->w[i], 1e-13);
}

Test(kernel, relax_keeps_body_velocities_consistent)
{
	struct rig g;

	rig_init(&g);
	for (int sweep = 0; sweep < 3; sweep++)
		for (uint32_t k = 0; k < 5; k++)
			g.k.relax(g.k.ctx, k, PX_PART_FULL);
	assert_w_consistent(&g);
	/* part sweeps add to w through their own rows only */
	for (int sweep = 0; sweep < 4; sweep++)
		for (uint32_t k = 0; k < 5; k++)
			g.k.relax(g.k.ctx, k,
				  sweep % 2 ? PX_PART_FRICTION : PX_PART_NORMAL);
	assert_w_consistent(&g);
	rig_fini(&g);
}

Test(kernel, compute_matches_relax_and_changes_nothing)
{
	struct rig g;
	double out[3], before[15], wbefore[18];

	rig_init(&g);
	memcpy(before, g.lambda, sizeof before);
	memcpy(wbefore, g.w, sizeof wbefore);
	g.k.compute(g.k.ctx, 4, PX_PART_FULL, out);
	cr_assert_arr_eq(before, g.lambda, sizeof before);
	cr_assert_arr_eq(wbefore, g.w, sizeof wbefore);
	g.k.relax(g.k.ctx, 4, PX_PART_FULL);
	for (int i = 0; i < 3; i++)
		cr_assert_float_eq(out[i], g.lambda[12 + i], 1e-15);
	/* store + refresh reproduce relax's body velocities */
	g.k.store(g.k.ctx, 4, out);
	assert_w_consistent(&g);
	rig_fini(&g);
}

Test(kernel, compute_then_commit_is_relax)
{
	struct rig a, b;
	double out[3];

	rig_init(&a);
	rig_init(&b);
	for (int sweep = 0; sweep < 3; sweep++)
		for (uint32_t k = 0; k < 5; k++) {
			const int part = sweep == 1 ? PX_PART_NORMAL : PX_PART_FULL;

			a.k.relax(a.k.ctx, k, part);
			b.k.compute(b.k.ctx, k, part, out);
			b.k.commit(b.k.ctx, k, part, out);
		}
	cr_assert_arr_eq(a.lambda, b.lambda, sizeof a.lambda);
	cr_assert_arr_eq(a.w, b.w, sizeof a.w);
	rig_fini(&a);
	rig_fini(&b);
}

Test(kernel, relax_private_is_relax_on_a_copy_of_w)
{
	struct rig a, b;
	double priv[18], w0[18];

	rig_init(&a);
	rig_init(&b);
	cr_assert_eq(b.k.private_size, 18);
	memcpy(w0, b.w, sizeof w0);
	b.k.private_load(b.k.ctx, priv);
	cr_assert_arr_eq(priv, b.w, sizeof priv);
	for (int sweep = 0; sweep < 3; sweep++)
		for (uint32_t k = 0; k < 5; k++) {
			const int part = sweep == 2 ? PX_PART_FRICTION : PX_PART_FULL;

			a.k.relax(a.k.ctx, k, part);
			b.k.relax_private(b.k.ctx, k, part, priv);
		}
	cr_assert_arr_eq(a.lambda, b.lambda, sizeof a.lambda);
	cr_assert_arr_eq(a.w, priv, sizeof priv);
	cr_assert_arr_eq(w0, b.w, sizeof w0, "the shared w was written");
	rig_fini(&a);
	rig_fini(&b);
}

/* Three coupled contacts with an assembled, non-symmetric A. */
static struct px_problem *coupled_assembled(void)
{
	const size_t rowptr[] = {0, 2, 5, 7};
	const uint32_t cols[] = {0, 1, 0, 1, 2, 1, 2};
	double blocks[63];
	struct px_problem *p;

	for (int q = 0; q < 7; q++)
		for (int i = 0; i < 9; i++)
			blocks[9 * q + i] = (q == 0 || q == 3 || q == 6)
						    ? 3 * I3[i] + 0.1 * (i % 4)
						    : 0.05 * (1 + (q + i) % 5) - 0.1;
	cr_assert_eq(px_problem_create(3, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, blocks, NULL), PX_OK);
	for (int i = 0; i < 9; i++)
		px_problem_b(p)[i] = i % 3 == 0 ? -1.0 : 0.3 * (i % 2) - 0.1;
	for (int k = 0; k < 3; k++)
		px_problem_friction(p)[k].mu = 0.4;
	return p;
}

Test(kernel, relax_private_is_relax_on_a_copy_of_lambda)
{
	struct px_problem *p = coupled_assembled();
	double diag[27], r[9], la[9], lb[9], priv[9], wdummy[1] = {0};
	struct px_kernel_ctx ca, cb;
	struct px_kernel ka, kb;

	for (int i = 0; i < 9; i++) {
		r[i] = 0.3;
		la[i] = lb[i] = 0.02 * (i % 4);
	}
	for (size_t k = 0; k < 3; k++)
		px_problem_diag_block(p, k, diag + 9 * k);
	cr_assert_eq(px_kernel_init(&ca, &ka, p, la, wdummy, diag, r,
				    PX_R_DIAGONAL, &disc_ops, NULL, 0),
		     PX_OK);
	cr_assert_eq(px_kernel_init(&cb, &kb, p, lb, wdummy, diag, r,
				    PX_R_DIAGONAL, &disc_ops, NULL, 0),
		     PX_OK);
	cr_assert_eq(kb.private_size, 9);
	kb.private_load(kb.ctx, priv);
	for (int sweep = 0; sweep < 3; sweep++)
		for (uint32_t k = 0; k < 3; k++) {
			ka.relax(ka.ctx, 2 - k, PX_PART_FULL);
			kb.relax_private(kb.ctx, 2 - k, PX_PART_FULL, priv);
		}
	cr_assert_arr_eq(la, lb, sizeof la);
	cr_assert_arr_eq(la, priv, sizeof la);
	/* what another copy writes to the shared lambda is not read */
	kb.private_load(kb.ctx, priv);
	lb[6] += 1.0; /* contact 2, coupled to contact 1 */
	ka.relax(ka.ctx, 1, PX_PART_FULL);
	kb.relax_private(kb.ctx, 1, PX_PART_FULL, priv);
	cr_assert_arr_eq(la, lb, 6 * sizeof *la);
	px_kernel_fini(&ca);
	px_kernel_fini(&cb);
	px_problem_destroy(p);
}

Test(kernel, conflict_graph_of_shared_dynamic_bodies)
{
	/* 0:{0} 1:{1} 2:{2} 3:{0,1} 4:{1,2}; the ground does not conflict */
	static const uint32_t want[5][3] = {
		{3}, {3, 4}, {4}, {0, 1, 4}, {1, 2, 3}};
	static const uint32_t deg[5] = {1, 2, 1, 3, 3};
	const uint32_t *ptr, *adj;
	struct rig g;

	rig_init(&g);
	cr_assert_eq(g.k.conflicts(g.k.ctx, &ptr, &adj), PX_OK);
	for (int k = 0; k < 5; k++) {
		cr_assert_eq(ptr[k + 1] - ptr[k], deg[k], "contact %d", k);
		for (uint32_t d = 0; d < deg[k]; d++) {
			int found = 0;

			for (uint32_t q = ptr[k]; q < ptr[k + 1]; q++)
				found |= adj[q] == want[k][d];
			cr_assert(found, "contact %d misses %u", k, want[k][d]);
		}
	}
	rig_fini(&g);
}

Test(kernel, conflict_graph_of_assembled_blocks_is_symmetric)
{
	/* blocks (0,0) (0,2) (1,1) (2,2) and a zero block (1,2): A is
	 * non-symmetric, contacts 0 and 2 conflict, the zero block does not. */
	const size_t rowptr[] = {0, 2, 4, 5};
	const uint32_t cols[] = {0, 2, 1, 2, 2};
	double blocks[45] = {0};
	struct px_problem *p;
	struct px_kernel_ctx c;
	struct px_kernel k;
	double lambda[9] = {0}, r[9] = {0};
	const uint32_t *ptr, *adj;

	for (int b = 0; b < 5; b++)
		if (b != 3)
			memcpy(blocks + 9 * b, I3, sizeof I3);
	cr_assert_eq(px_problem_create(3, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, blocks, NULL), PX_OK);
	cr_assert_eq(px_kernel_init(&c, &k, p, lambda, NULL, NULL, r,
				    PX_R_DIAGONAL, &disc_ops, NULL, 0),
		     PX_OK);
	cr_assert_eq(k.conflicts(k.ctx, &ptr, &adj), PX_OK);
	cr_assert_eq(ptr[1] - ptr[0], 1);
	cr_assert_eq(adj[ptr[0]], 2);
	cr_assert_eq(ptr[2] - ptr[1], 0);
	cr_assert_eq(ptr[3] - ptr[2], 1);
	cr_assert_eq(adj[ptr[2]], 0);
	px_kernel_fini(&c);
	px_problem_destroy(p);
}

/* The chain's three bodies as rigid bodies in a row on the ground
 * (contacts as in chain(): 0-2 body-ground, 3 and 4 between neighbours),
 * so that the rigid 3-row kernel applies; two lever arms off the axes and
 * an inertia that is not diagonal, so that every term of A counts. */
static struct px_problem *rigid_chain(void)
{
	const double up[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
	const double side[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	const uint32_t ba[5] = {0, 1, 2, 0, 1};
	const uint32_t bb[5] = {PX_STATIC, PX_STATIC, PX_STATIC, 1, 2};
	const double lever[30] = {0.1, -0.2, -1, 0, 0, 0, -0.3, 0.1, -1, 0, 0, 0,
				  0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0,
				  1, 0, 0, -1, 0, 0};
	const double im[3] = {1, 0.5, 2};
	double ii[27] = {0};
	struct px_problem *p;

	for (int b = 0; b < 3; b++)
		for (int i = 0; i < 3; i++)
			ii[9 * b + 4 * i] = 2.5 * im[b];
	ii[1] = ii[3] = 0.3; /* body 0's inertia is not diagonal */
	cr_assert_eq(px_problem_create(5, 3, &p, NULL), PX_OK);
	for (size_t k = 0; k < 5; k++) {
		const double at[3] = {2.0 * (double)k, 0, 0};

		cr_assert_eq(px_problem_set_geometry(p, k, at, k < 3 ? up : side,
						     NULL),
			     PX_OK);
	}
	cr_assert_eq(px_problem_set_rigid(p, 3, im, ii, ba, bb, lever, NULL),
		     PX_OK);
	for (int i = 0; i < 15; i++)
		px_problem_b(p)[i] = (i % 3 == 0) ? -1.0 : 0.2 * (i % 5) - 0.4;
	for (int k = 0; k < 5; k++)
		px_problem_friction(p)[k].mu = 0.3;
	return p;
}

/* relax_lists' tally against lambda before (y) and after (x) the calls. */
static void assert_tally(const struct px_tally *t, const double *x,
			 const double *y)
{
	double dn = 0.0, df = 0.0, amax = 0.0, got;
	uint64_t bits;

	for (int i = 0; i < 15; i++) {
		if (i % 3 == 0)
			dn = fmax(dn, fabs(x[i] - y[i]));
		else
			df = fmax(df, fabs(x[i] - y[i]));
		amax = fmax(amax, fabs(x[i]));
	}
	cr_assert(dn > 0.0 && df > 0.0);
	cr_assert_eq(atomic_load(&t->contacts), 5);
	cr_assert_eq(atomic_load(&t->nonfinite), 0);
	bits = atomic_load(&t->dn);
	memcpy(&got, &bits, sizeof got);
	cr_assert(got == dn, "dn %.17g, lambda gives %.17g", got, dn);
	bits = atomic_load(&t->df);
	memcpy(&got, &bits, sizeof got);
	cr_assert(got == df, "df %.17g, lambda gives %.17g", got, df);
	bits = atomic_load(&t->amax);
	memcpy(&got, &bits, sizeof got);
	cr_assert(got == amax, "amax %.17g, lambda gives %.17g", got, amax);
}

/* relax_lists gathers the sweep's change (px_tally) as the driver's pass
 * over lambda would compute it: max |change| of the normal and of the
 * friction rows and max |lambda|, over calls and lists, for the general
 * kernel (factorized chain) and the rigid 3-row one (two interleaved
 * lists, then one); a value that is not finite is flagged. */
Test(kernel, relax_lists_tallies_the_change)
{
	for (int rigid = 0; rigid < 2; rigid++)
		for (int bad = 0; bad < 2; bad++) {
			struct rig g;
			struct px_tally t = {0};
			double before[15], prev[15];
			const uint32_t la[2] = {0, 3}, lb[1] = {2},
				       lc[2] = {4, 1};
			const uint32_t *lists[2] = {la, lb};
			const size_t counts[2] = {2, 1}, count_c = 2;
			const uint32_t *list_c = lc;

			if (rigid) {
				g.p = rigid_chain();
				for (int i = 0; i < 15; i++) {
					g.lambda[i] = 0.05 * (i % 4);
					g.r[i] = 0.3;
				}
				for (size_t k = 0; k < 5; k++)
					px_problem_diag_block(g.p, k,
							      g.diag + 9 * k);
				cr_assert_eq(px_kernel_init(&g.c, &g.k, g.p,
							    g.lambda, g.w,
							    g.diag, g.r,
							    PX_R_DIAGONAL,
							    &disc_ops, NULL, 0),
					     PX_OK);
				cr_assert(g.c.rigid3);
				g.k.refresh(g.k.ctx, 0, 3);
			} else {
				rig_init(&g);
				cr_assert(!g.c.rigid3);
			}
			/* contact 2 slips along t: a t row changes most */
			px_problem_b(g.p)[7] = 0.0;
			px_problem_b(g.p)[8] = -3.0;
			if (bad) { /* lambda_n = r |v_n| overflows */
				g.r[6] = 1e308;
				px_problem_b(g.p)[6] = -1e10;
			}
			g.c.prev = prev;
			g.c.tally = &t;
			memcpy(before, g.lambda, sizeof before);
			g.k.relax_lists(g.k.ctx, lists, counts, 2,
					PX_PART_FULL);
			g.k.relax_lists(g.k.ctx, &list_c, &count_c, 1,
					PX_PART_FULL);
			cr_assert_arr_eq(prev, before, sizeof prev);
			if (bad)
				cr_assert_eq(atomic_load(&t.nonfinite), 1,
					     "rigid %d", rigid);
			else
				assert_tally(&t, g.lambda, before);
			rig_fini(&g);
		}
}

/* The rigid form's diagonal blocks (closed form F K F^T) are the diagonal
 * blocks of A as its product gives it (px_problem_to_dense: unit impulses
 * through the body velocities), with an inertia that is not diagonal, and
 * exactly symmetric. */
Test(problem, rigid_diagonal_blocks_are_those_of_the_product)
{
	struct px_problem *p = rigid_chain();
	double A[15 * 15], D[9];

	cr_assert_eq(px_problem_to_dense(p, A), PX_OK);
	for (size_t k = 0; k < 5; k++) {
		px_problem_diag_block(p, k, D);
		for (size_t i = 0; i < 3; i++)
			for (size_t j = 0; j < 3; j++) {
				cr_assert_float_eq(D[3 * i + j],
						   A[(3 * k + i) * 15 + 3 * k + j],
						   1e-14, "contact %zu (%zu, %zu)",
						   k, i, j);
				cr_assert(D[3 * i + j] == D[3 * j + i]);
			}
	}
	px_problem_destroy(p);
}

static const double shift5[5] = {0.5, 0.0, 2.0, 0.25, 1.0};

/* A normal shift adds gamma_k to A's entry on contact k's normal row, and
 * nothing else, in the product and in the diagonal blocks of either form;
 * NULL takes it away. */
Test(problem, normal_shift_is_gamma_on_the_normal_diagonal)
{
	for (int rigid = 0; rigid < 2; rigid++) {
		struct px_problem *p = rigid ? rigid_chain() : chain();
		static double A[15 * 15], S[15 * 15];
		double D[9], E[9];

		cr_assert_eq(px_problem_to_dense(p, A), PX_OK);
		cr_assert_null(px_problem_normal_shift(p));
		cr_assert_eq(px_problem_set_normal_shift(p, shift5, NULL), PX_OK);
		cr_assert_eq(px_problem_to_dense(p, S), PX_OK);
		for (size_t i = 0; i < 15; i++)
			for (size_t j = 0; j < 15; j++) {
				const double want =
					A[i * 15 + j] +
					(i == j && i % 3 == 0 ? shift5[i / 3] : 0.0);

				cr_assert_float_eq(S[i * 15 + j], want, 1e-14,
						   "rigid %d (%zu, %zu)", rigid, i, j);
			}
		for (size_t k = 0; k < 5; k++) {
			px_problem_diag_block(p, k, D);
			for (size_t i = 0; i < 9; i++)
				cr_assert_float_eq(D[i], S[(3 * k + i / 3) * 15 + 3 * k + i % 3],
						   1e-14, "rigid %d contact %zu", rigid, k);
		}
		cr_assert_eq(px_problem_set_normal_shift(p, NULL, NULL), PX_OK);
		cr_assert_null(px_problem_normal_shift(p));
		px_problem_diag_block(p, 2, E);
		cr_assert_float_eq(E[0], A[6 * 15 + 6], 1e-14);
		px_problem_destroy(p);
	}
}

Test(problem, bad_normal_shift_is_refused_exactly)
{
	struct px_problem *p = chain(), *q;
	struct px_error err = {0};
	double g[5] = {0, 0, -1, 0, 0};
	const size_t rowptr[2] = {0, 1};
	const uint32_t cols[1] = {0};
	const double blk[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

	cr_assert_eq(px_problem_set_normal_shift(p, g, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg,
			 "normal shift of contact 2 = -1, expected finite and >= 0");
	g[2] = 0;
	g[4] = NAN;
	cr_assert_eq(px_problem_set_normal_shift(p, g, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg,
			 "normal shift of contact 4 = nan, expected finite and >= 0");
	cr_assert_null(px_problem_normal_shift(p));
	px_problem_destroy(p);
	cr_assert_eq(px_problem_create(1, 3, &q, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(q, rowptr, cols, blk, NULL), PX_OK);
	cr_assert_eq(px_problem_set_normal_shift(q, g, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg,
			 "a normal shift needs a factorized or rigid A (an assembled A holds it in its blocks)");
	px_problem_destroy(q);
}

/* 30 Gauss-Seidel sweeps (r = 0.3 on every row) of p from lambda 0. */
static void sweeps30(struct px_problem *p, double *lambda, int want_rigid3)
{
	struct px_kernel_ctx c;
	struct px_kernel k;
	double w[18] = {0}, r[15], diag[45];
	const uint32_t order[5] = {0, 3, 1, 4, 2};
	const uint32_t *list = order;
	const size_t count = 5;

	for (int i = 0; i < 15; i++) {
		lambda[i] = 0.0;
		r[i] = 0.3;
	}
	for (size_t q = 0; q < 5; q++)
		px_problem_diag_block(p, q, diag + 9 * q);
	cr_assert_eq(px_kernel_init(&c, &k, p, lambda, w, diag, r,
				    PX_R_DIAGONAL, &disc_ops, NULL, 0),
		     PX_OK);
	cr_assert_eq(c.rigid3, want_rigid3);
	k.refresh(k.ctx, 0, px_problem_n_bodies(p));
	for (int s = 0; s < 30; s++)
		k.relax_lists(k.ctx, &list, &count, 1, PX_PART_FULL);
	px_kernel_fini(&c);
}

/* Gauss-Seidel on a shifted factorized or rigid A (the rigid 3-row kernel
 * and the general one) is Gauss-Seidel on the assembled A + Gamma. */
Test(kernel, shifted_sweeps_are_those_of_the_assembled_sum)
{
	for (int rigid = 0; rigid < 2; rigid++) {
		struct px_problem *p = rigid ? rigid_chain() : chain(), *q;
		static double S[15 * 15], blocks[25 * 9];
		size_t rowptr[6];
		uint32_t cols[25];
		double l1[15], l2[15];

		cr_assert_eq(px_problem_set_normal_shift(p, shift5, NULL), PX_OK);
		cr_assert_eq(px_problem_to_dense(p, S), PX_OK);
		cr_assert_eq(px_problem_create(5, 3, &q, NULL), PX_OK);
		for (size_t i = 0; i < 5; i++) {
			rowptr[i] = 5 * i;
			for (size_t j = 0; j < 5; j++) {
				cols[5 * i + j] = (uint32_t)j;
				for (size_t e = 0; e < 9; e++)
					blocks[(5 * i + j) * 9 + e] =
						S[(3 * i + e / 3) * 15 + 3 * j + e % 3];
			}
			px_problem_friction(q)[i] = px_problem_friction(p)[i];
		}
		rowptr[5] = 25;
		memcpy(px_problem_b(q), px_problem_b(p), 15 * sizeof(double));
		cr_assert_eq(px_problem_set_assembled(q, rowptr, cols, blocks, NULL),
			     PX_OK);
		sweeps30(p, l1, rigid);
		sweeps30(q, l2, 0);
		for (int i = 0; i < 15; i++)
			cr_assert_float_eq(l1[i], l2[i], 1e-12, "rigid %d, row %d: %g, %g",
					   rigid, i, l1[i], l2[i]);
		cr_assert_gt(l1[0] + l1[3] + l1[6], 0.0); /* something pushes */
		px_problem_destroy(p);
		px_problem_destroy(q);
	}
}
