/* Soft contact (issue 23), Box2D v3's "soft step" (E. Catto, "Solver2D",
 * 2024; "Soft constraints", GDC 2011): per substep of h seconds a solve of
 * the contact problem with a soft normal row, then the integration, then a
 * relaxation solve of the rigid problem without the bias (world_step.c).
 *
 * A contact's normal row is a spring of stiffness k and damping c on the
 * penetration C = depth - slop, scaled by the row's effective mass
 * m = 1 / A_nn: k = m omega^2, c = 2 m zeta omega, omega = 2 pi hertz.
 * With v the separating normal velocity at the end of the substep and the
 * force implicit in it, F = k (C - h v) - c v, the impulse lambda = h F
 * gives v = (h k C - lambda) / (h (h k + c)), and where the contact may
 * also separate (lambda >= 0) the row's law becomes
 *
 *     v_n + bias + gamma lambda_n >= 0,  lambda_n >= 0,  complementary,
 *     bias = -omega / (2 zeta + h omega) C           (the bias rate),
 *     gamma = A_nn / (h omega (2 zeta + h omega)),
 *
 * the rigid law of the problem (A + Gamma) lambda + b, Gamma diagonal on
 * the normal rows. Box2D writes the same projected Gauss-Seidel update as
 *     dlambda = -m mass_scale (v_n + bias) - impulse_scale lambda,
 *     mass_scale = h omega (2 zeta + h omega) / (1 + h omega (2 zeta + h omega)),
 *     impulse_scale = 1 / (1 + h omega (2 zeta + h omega)),
 * which is Gauss-Seidel on A + Gamma: m mass_scale = 1 / (A_nn + gamma),
 * impulse_scale = gamma / (A_nn + gamma). Box2D caps hertz at a quarter of
 * the substep rate and gives contacts with a static body twice the hertz;
 * so does this file. The bias is capped at push_velocity.
 *
 * The plugins solve A + Gamma in assembled form (core has no diagonal
 * shift of the rigid form): the blocks sum_beta J_k,beta M_beta^-1
 * J_l,beta^T over the bodies beta contacts k and l share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world_problem.h"
#include "world_soft.h"

void px_soft_make(double hertz, double zeta, double h, struct px_softness *s)
{
	const double omega = 2.0 * M_PI * hertz;
	const double a1 = 2.0 * zeta + h * omega;
	const double a2 = h * omega * a1;

	if (hertz <= 0.0) {
		*s = (struct px_softness){.mass_scale = 1.0};
		return;
	}
	s->bias_rate = omega / a1;
	s->mass_scale = a2 / (1.0 + a2);
	s->impulse_scale = 1.0 / (1.0 + a2);
	s->gamma = 1.0 / a2;
}

void px_soft_pair(const struct px_world_settings *st, double h,
		  struct px_softness soft[2])
{
	const double hertz = fmin(st->contact_hertz, 0.25 / h);

	px_soft_make(hertz, st->contact_damping_ratio, h, &soft[0]);
	px_soft_make(2.0 * hertz, st->contact_damping_ratio, h, &soft[1]);
}

/* The contacts of each dynamic body (counting sort): at[off[b] ..
 * off[b + 1]) holds 2 k + side for contact k's side on body b. */
static void incidence(const struct px_contact_rows *rows, size_t n,
		      size_t n_bodies, size_t *off, size_t *at)
{
	memset(off, 0, (n_bodies + 1) * sizeof *off);
	for (size_t k = 0; k < n; k++) {
		if (rows[k].pa != PX_STATIC)
			off[rows[k].pa + 1]++;
		if (rows[k].pb != PX_STATIC)
			off[rows[k].pb + 1]++;
	}
	for (size_t b = 0; b < n_bodies; b++)
		off[b + 1] += off[b];
	for (size_t k = 0; k < n; k++) {
		const uint32_t side[2] = {rows[k].pa, rows[k].pb};

		for (int s = 0; s < 2; s++)
			if (side[s] != PX_STATIC) {
				size_t *o = off + side[s];

				at[(*o)++] = 2 * k + (size_t)s;
			}
	}
	for (size_t b = n_bodies; b > 0; b--)
		off[b] = off[b - 1];
	off[0] = 0;
}

/* out (bs x bs) += J (bs x 6) M (6 x bs) */
static void block_add(const double *jac, const double *mjt, uint32_t bs,
		      double *out)
{
	for (uint32_t i = 0; i < bs; i++)
		for (uint32_t j = 0; j < bs; j++) {
			double s = 0.0;

			for (int q = 0; q < 6; q++)
				s += jac[i * 6 + q] * mjt[q * bs + j];
			out[i * bs + j] += s;
		}
}

struct assembly {
	size_t *off, *at, *rowptr, *slot;
	uint32_t *cols;
	double *jac, *mjt, *blocks;
};

static void assembly_free(struct assembly *a)
{
	free(a->off);
	free(a->at);
	free(a->rowptr);
	free(a->slot);
	free(a->cols);
	free(a->jac);
	free(a->mjt);
	free(a->blocks);
}

/* The block row of contact k: its columns (each contact sharing a body,
 * once), then their blocks. */
static size_t block_row(struct assembly *a, const struct px_contact_rows *r,
			size_t k, uint32_t bs, size_t nnz)
{
	const size_t blk = 6 * (size_t)bs, bb = (size_t)bs * bs;
	const uint32_t side[2] = {r->pa, r->pb};
	const size_t first = nnz;

	for (int s = 0; s < 2; s++) {
		if (side[s] == PX_STATIC)
			continue;
		for (size_t q = a->off[side[s]]; q < a->off[side[s] + 1]; q++) {
			const size_t l = a->at[q] / 2;

			if (a->slot[l] != SIZE_MAX)
				continue;
			a->slot[l] = nnz;
			a->cols[nnz] = (uint32_t)l;
			memset(a->blocks + nnz * bb, 0, bb * sizeof *a->blocks);
			nnz++;
		}
	}
	for (int s = 0; s < 2; s++) {
		const double *jk = a->jac + 2 * blk * k + (size_t)s * blk;

		if (side[s] == PX_STATIC)
			continue;
		for (size_t q = a->off[side[s]]; q < a->off[side[s] + 1]; q++) {
			const size_t l = a->at[q] / 2, sl = a->at[q] % 2;

			block_add(jk, a->mjt + 2 * blk * l + sl * blk, bs,
				  a->blocks + a->slot[l] * bb);
		}
	}
	for (size_t q = first; q < nnz; q++)
		a->slot[a->cols[q]] = SIZE_MAX;
	return nnz;
}

int px_world_soft_problem(const struct px_dynamics *d,
			  const struct px_contact_rows *rows, size_t n,
			  uint32_t bs, const struct px_softness soft[2],
			  struct px_problem *p, struct px_error *err)
{
	const size_t blk = 6 * (size_t)bs, bb = (size_t)bs * bs;
	struct assembly a = {0};
	size_t max_nnz = 0, nnz = 0;
	int rc;

	a.off = malloc((d->n + 1) * sizeof *a.off);
	a.at = malloc((2 * n + 1) * sizeof *a.at);
	a.rowptr = malloc((n + 1) * sizeof *a.rowptr);
	a.slot = malloc((n + 1) * sizeof *a.slot);
	a.jac = calloc(2 * blk * n + 1, sizeof *a.jac);
	a.mjt = calloc(2 * blk * n + 1, sizeof *a.mjt);
	if (!a.off || !a.at || !a.rowptr || !a.slot || !a.jac || !a.mjt) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	incidence(rows, n, d->n, a.off, a.at);
	for (size_t k = 0; k < n; k++) {
		a.slot[k] = SIZE_MAX;
		if (rows[k].pa != PX_STATIC)
			max_nnz += a.off[rows[k].pa + 1] - a.off[rows[k].pa];
		if (rows[k].pb != PX_STATIC)
			max_nnz += a.off[rows[k].pb + 1] - a.off[rows[k].pb];
	}
	a.cols = malloc((max_nnz + 1) * sizeof *a.cols);
	a.blocks = malloc((max_nnz * bb + 1) * sizeof *a.blocks);
	if (!a.cols || !a.blocks) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	px_world_jacobians(d, rows, n, bs, a.jac, a.mjt);
	for (size_t k = 0; k < n; k++) {
		const struct px_softness *sk = soft + (rows[k].pb == PX_STATIC);

		a.rowptr[k] = nnz;
		nnz = block_row(&a, rows + k, k, bs, nnz);
		for (size_t q = a.rowptr[k]; q < nnz; q++)
			if (a.cols[q] == k)
				a.blocks[q * bb] *= 1.0 + sk->gamma;
	}
	a.rowptr[n] = nnz;
	rc = px_problem_set_assembled(p, a.rowptr, a.cols, a.blocks, err);
out:
	assembly_free(&a);
	return rc;
}
