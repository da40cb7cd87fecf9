/* One round's coupling (issue 21, dist.h): the local b from what the
 * other ranks did, and the point-to-point exchange with the neighbouring
 * ranks only (nonblocking sends and receives, then one wait). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

/* Send to every neighbour the items of its `send` list (mine or theirs)
 * taken from src, receive n_recv items each into the links' rbuf. */
static int swap(struct px_dist_part *d, int send_theirs, const double *src,
		int tag, struct px_dist_traffic *t)
{
	const size_t wd = d->width;
	MPI_Request *req = malloc((2 * d->n_links + 1) * sizeof *req);
	int nreq = 0, rc;

	if (!req)
		return PX_ERR_NOMEM;
	for (size_t l = 0; l < d->n_links; l++) {
		struct px_dist_link *L = &d->links[l];
		uint32_t nr = send_theirs ? L->n_mine : L->n_theirs;

		if (nr)
			MPI_Irecv(L->rbuf, (int)(nr * wd), MPI_DOUBLE, L->rank, tag,
				  MPI_COMM_WORLD, &req[nreq++]);
	}
	for (size_t l = 0; l < d->n_links; l++) {
		struct px_dist_link *L = &d->links[l];
		uint32_t ns = send_theirs ? L->n_theirs : L->n_mine;
		const uint32_t *list = send_theirs ? L->theirs : L->mine;

		if (!ns)
			continue;
		for (uint32_t i = 0; i < ns; i++)
			memcpy(L->sbuf + i * wd, src + (size_t)list[i] * wd,
			       wd * sizeof *src);
		MPI_Isend(L->sbuf, (int)(ns * wd), MPI_DOUBLE, L->rank, tag,
			  MPI_COMM_WORLD, &req[nreq++]);
		t->messages++;
		t->bytes += ns * wd * sizeof *src;
	}
	rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
	free(req);
	return rc == MPI_SUCCESS ? PX_OK : PX_ERR_IO;
}

static inline void cross(const double a[3], const double b[3], double c[3])
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double dot(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The correction of body i's copy: its true velocity change minus what
 * the local solve will count itself (k M^-1 J_own^T lambda under split). */
static void body_offset(const struct px_dist_part *d, uint32_t i, double off[6])
{
	double k = d->combine == PX_DIST_SPLIT ? d->copies[i] : 1;

	for (int q = 0; q < 6; q++)
		off[q] = d->vbar[6 * i + q] - k * d->self[6 * i + q];
}

/* Whether own contact k's b moves with the other ranks. */
static int is_coupled(const struct px_dist_part *d, size_t k)
{
	if (d->kind == PX_DIST_RIGID) {
		const uint32_t a = d->body_a[k], b = d->body_b[k];

		return (a != PX_STATIC && d->shared[a]) ||
		       (b != PX_STATIC && d->shared[b]);
	}
	return d->cpl_ptr[k + 1] > d->cpl_ptr[k] ||
	       (d->combine == PX_DIST_SPLIT && d->mult[k] > 1);
}

int px_dist_find_coupled(struct px_dist_part *d)
{
	size_t n = 0;

	free(d->coupled);
	d->coupled = malloc((d->n_own + 1) * sizeof *d->coupled);
	if (!d->coupled)
		return PX_ERR_NOMEM;
	for (size_t k = 0; k < d->n_own; k++)
		if (is_coupled(d, k))
			d->coupled[n++] = (uint32_t)k;
	d->n_coupled = n;
	return PX_OK;
}

static void update_b_rigid(struct px_dist_part *d, size_t k)
{
	double *b = px_problem_b(d->p);
	const uint32_t ab[2] = {d->body_a[k], d->body_b[k]};
	const double *fr = d->frame + 9 * k;

	memcpy(b + 3 * k, d->b0 + 3 * k, 3 * sizeof *b);
	for (int s = 0; s < 2; s++) {
		double off[6], rxd[3];
		const double *r = d->lever + 6 * k + 3 * s;
		const double sign = s ? -1 : 1;

		if (ab[s] == PX_STATIC || !d->shared[ab[s]])
			continue;
		body_offset(d, ab[s], off);
		for (int row = 0; row < 3; row++) {
			cross(r, fr + 3 * row, rxd);
			b[3 * k + row] += sign * (dot(fr + 3 * row, off) +
						  dot(rxd, off + 3));
		}
	}
}

static void update_b_assembled(struct px_dist_part *d, const double *lambda,
			       size_t k)
{
	const uint32_t bs = d->bs, bb = bs * bs;
	double *bk = px_problem_b(d->p) + k * bs;

	memcpy(bk, d->b0 + k * bs, bs * sizeof *bk);
	for (size_t e = d->cpl_ptr[k]; e < d->cpl_ptr[k + 1]; e++) {
		const double *blk = d->cpl_blk + e * bb;
		const double *lj = d->ghost_lambda + (size_t)d->cpl_col[e] * bs;

		for (uint32_t i = 0; i < bs; i++)
			for (uint32_t j = 0; j < bs; j++)
				bk[i] += blk[i * bs + j] * lj[j];
	}
	if (d->combine == PX_DIST_SPLIT && d->mult[k] > 1) {
		const double *blk = d->diag + k * bb;

		for (uint32_t i = 0; i < bs; i++)
			for (uint32_t j = 0; j < bs; j++)
				bk[i] -= (d->mult[k] - 1) * blk[i * bs + j] *
					 lambda[k * bs + j];
	}
}

void px_dist_update_b(struct px_dist_part *d, const double *lambda)
{
	if (!d->p)
		return;
	for (size_t j = 0; j < d->n_coupled; j++) {
		const size_t k = d->coupled[j];

		if (d->kind == PX_DIST_RIGID)
			update_b_rigid(d, k);
		else
			update_b_assembled(d, lambda, k);
	}
}

/* du of every shared body: M^-1 J^T (lambda - lambda_old) over the
 * coupled contacts (the others touch no shared body), true masses. */
static void body_changes(struct px_dist_part *d, const double *lambda_old,
			 const double *lambda)
{
	for (size_t i = 0; i < d->n_bodies; i++)
		if (d->shared[i])
			memset(d->du + 6 * i, 0, 6 * sizeof *d->du);
	for (size_t j = 0; j < d->n_coupled; j++) {
		const size_t k = d->coupled[j];
		const uint32_t ab[2] = {d->body_a[k], d->body_b[k]};
		const double *fr = d->frame + 9 * k;
		double dl[3], f[3], rf[3];

		for (int row = 0; row < 3; row++)
			dl[row] = lambda[3 * k + row] - lambda_old[3 * k + row];
		for (int q = 0; q < 3; q++)
			f[q] = dl[0] * fr[q] + dl[1] * fr[3 + q] + dl[2] * fr[6 + q];
		for (int s = 0; s < 2; s++) {
			const uint32_t i = ab[s];
			const double sign = s ? -1 : 1;
			const double *ii;

			if (i == PX_STATIC || !d->shared[i])
				continue;
			cross(d->lever + 6 * k + 3 * s, f, rf);
			ii = d->inv_inertia + 9 * i;
			for (int q = 0; q < 3; q++) {
				d->du[6 * i + q] += sign * d->inv_mass[i] * f[q];
				d->du[6 * i + 3 + q] += sign * dot(ii + 3 * q, rf);
			}
		}
	}
}

static int exchange_rigid(struct px_dist_part *d, const double *lambda_old,
			  const double *lambda, struct px_dist_traffic *t)
{
	int rc;

	if (d->p)
		body_changes(d, lambda_old, lambda);
	/* to the owners: every copy's change; owners sum in rank order */
	rc = swap(d, 1, d->du, 1, t);
	if (rc)
		return rc;
	for (size_t i = 0; i < d->n_bodies; i++)
		if (d->shared[i])
			memcpy(d->total + 6 * i, d->du + 6 * i, 6 * sizeof *d->du);
	for (size_t l = 0; l < d->n_links; l++) {
		const struct px_dist_link *L = &d->links[l];

		for (uint32_t i = 0; i < L->n_mine; i++)
			for (int q = 0; q < 6; q++)
				d->total[6 * L->mine[i] + q] += L->rbuf[6 * i + q];
	}
	/* back from the owners: the total */
	rc = swap(d, 0, d->total, 2, t);
	if (rc)
		return rc;
	for (size_t l = 0; l < d->n_links; l++) {
		const struct px_dist_link *L = &d->links[l];

		for (uint32_t i = 0; i < L->n_theirs; i++)
			memcpy(d->total + 6 * L->theirs[i], L->rbuf + 6 * i,
			       6 * sizeof *d->total);
	}
	for (size_t i = 0; i < d->n_bodies; i++)
		if (d->shared[i])
			for (int q = 0; q < 6; q++) {
				d->vbar[6 * i + q] += d->total[6 * i + q];
				d->self[6 * i + q] += d->du[6 * i + q];
			}
	return PX_OK;
}

static int exchange_assembled(struct px_dist_part *d, const double *lambda,
			      struct px_dist_traffic *t)
{
	int rc = swap(d, 0, lambda, 3, t);

	if (rc)
		return rc;
	for (size_t l = 0; l < d->n_links; l++) {
		const struct px_dist_link *L = &d->links[l];

		for (uint32_t i = 0; i < L->n_theirs; i++)
			memcpy(d->ghost_lambda + (size_t)L->theirs[i] * d->bs,
			       L->rbuf + (size_t)i * d->bs, d->bs * sizeof *lambda);
	}
	return PX_OK;
}

int px_dist_share_copies(struct px_dist_part *d, struct px_dist_traffic *t)
{
	double *k = calloc(6 * d->n_bodies + 1, sizeof *k);
	int rc;

	if (!k)
		return PX_ERR_NOMEM;
	for (size_t i = 0; i < d->n_bodies; i++)
		k[6 * i] = d->copies[i];
	rc = swap(d, 0, k, 4, t);
	for (size_t l = 0; !rc && l < d->n_links; l++) {
		const struct px_dist_link *L = &d->links[l];

		for (uint32_t i = 0; i < L->n_theirs; i++)
			d->copies[L->theirs[i]] = (uint32_t)L->rbuf[6 * i];
	}
	free(k);
	return rc;
}

int px_dist_exchange(struct px_dist_part *d, const double *lambda_old,
		     const double *lambda, struct px_dist_traffic *t)
{
	if (d->kind == PX_DIST_RIGID)
		return exchange_rigid(d, lambda_old, lambda, t);
	return exchange_assembled(d, lambda, t);
}
