/* The contact problem: per-contact data and the Delassus operator A in its
 * assembled (block-sparse) or factorized (J, M^-1 J^T) form. doc/design.md,
 * section 2; the factorized form is Catto 2005, Alg. 4 / Poulsen 2010, sec.
 * 3.4.2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"

int px_problem_create(size_t n_contacts, uint32_t bs, struct px_problem **out,
		      struct px_error *err)
{
	struct px_problem *p;

	*out = NULL;
	if (bs != 3 && bs != 4)
		return px_error_set(err, PX_ERR_INVALID,
				    "contact blocks of %u rows are not supported (expected 3 or 4)",
				    bs);
	if (n_contacts == 0)
		return px_error_set(err, PX_ERR_INVALID,
				    "a problem needs at least one contact");
	/* Contact indices are uint32; this also keeps every n * bs * bs * 12
	 * size product far from overflowing a 64-bit size_t. */
	if (n_contacts >= UINT32_MAX || SIZE_MAX / 64 / n_contacts < 64)
		return px_error_set(err, PX_ERR_INVALID,
				    "%zu contacts are more than proxima supports",
				    n_contacts);
	p = calloc(1, sizeof *p);
	if (!p)
		goto nomem;
	p->n = n_contacts;
	p->bs = bs;
	p->b = calloc(n_contacts * bs, sizeof *p->b);
	p->friction = calloc(n_contacts, sizeof *p->friction);
	p->restitution = calloc(n_contacts, sizeof *p->restitution);
	if (!p->b || !p->friction || !p->restitution)
		goto nomem;
	*out = p;
	return PX_OK;
nomem:
	px_problem_destroy(p);
	return px_error_set(err, PX_ERR_NOMEM,
			    "out of memory for a problem of %zu contacts",
			    n_contacts);
}

static void clear_form(struct px_problem *p)
{
	free(p->rowptr);
	free(p->cols);
	free(p->blocks);
	free(p->diag_at);
	free(p->body_a);
	free(p->body_b);
	free(p->jac);
	free(p->minv_jt);
	free(p->scratch);
	free(p->inv_mass);
	free(p->inv_inertia);
	free(p->lever);
	free(p->shift);
	p->inv_mass = p->inv_inertia = p->lever = p->shift = NULL;
	p->rowptr = NULL;
	p->cols = NULL;
	p->blocks = NULL;
	p->diag_at = NULL;
	p->body_a = p->body_b = NULL;
	p->jac = p->minv_jt = p->scratch = NULL;
	p->n_bodies = 0;
	p->form = PX_FORM_NONE;
}

void px_problem_destroy(struct px_problem *p)
{
	if (!p)
		return;
	clear_form(p);
	free(p->b);
	free(p->friction);
	free(p->restitution);
	free(p->position);
	free(p->frame);
	free(p);
}

size_t px_problem_n_contacts(const struct px_problem *p) { return p->n; }
uint32_t px_problem_block_size(const struct px_problem *p) { return p->bs; }
enum px_form px_problem_form(const struct px_problem *p) { return p->form; }
size_t px_problem_n_bodies(const struct px_problem *p) { return p->n_bodies; }
double *px_problem_b(struct px_problem *p) { return p->b; }
const double *px_problem_b_const(const struct px_problem *p) { return p->b; }
double *px_problem_restitution(struct px_problem *p) { return p->restitution; }
const double *px_problem_positions(const struct px_problem *p) { return p->position; }
const double *px_problem_frames(const struct px_problem *p) { return p->frame; }

size_t px_problem_bytes(const struct px_problem *p)
{
	const size_t n = p->n, bs = p->bs, per = 6 * bs * sizeof(double);
	size_t bytes = sizeof *p + n * (bs * sizeof *p->b + sizeof *p->friction +
					sizeof *p->restitution);

	if (p->position)
		bytes += n * 12 * sizeof *p->position;
	if (p->form == PX_FORM_ASSEMBLED)
		bytes += (2 * n + 1) * sizeof *p->rowptr +
			 p->rowptr[n] * (sizeof *p->cols + bs * bs * sizeof *p->blocks);
	else if (p->form == PX_FORM_FACTORIZED)
		bytes += n * (2 * sizeof *p->body_a + 4 * per) +
			 p->n_bodies * 6 * sizeof *p->scratch;
	else if (p->form == PX_FORM_RIGID)
		bytes += n * (2 * sizeof *p->body_a + 6 * sizeof *p->lever) +
			 p->n_bodies * 13 * sizeof *p->scratch;
	if (p->shift)
		bytes += n * sizeof *p->shift;
	return bytes;
}

struct px_friction_params *px_problem_friction(struct px_problem *p)
{
	return p->friction;
}

const struct px_friction_params *
px_problem_friction_const(const struct px_problem *p)
{
	return p->friction;
}

int px_problem_set_geometry(struct px_problem *p, size_t k,
			    const double position[3], const double frame[9],
			    struct px_error *err)
{
	if (k >= p->n)
		return px_error_set(err, PX_ERR_INVALID,
				    "contact %zu out of range (%zu contacts)", k,
				    p->n);
	for (int i = 0; i < 3; i++)
		if (!isfinite(position[i]))
			return px_error_set(err, PX_ERR_INVALID,
					    "contact %zu: position[%d] is not finite",
					    k, i);
	for (int i = 0; i < 9; i++)
		if (!isfinite(frame[i]))
			return px_error_set(err, PX_ERR_INVALID,
					    "contact %zu: frame[%d] is not finite",
					    k, i);
	if (!p->position) {
		p->position = calloc(p->n * 3, sizeof *p->position);
		p->frame = calloc(p->n * 9, sizeof *p->frame);
		if (!p->position || !p->frame) {
			free(p->position);
			free(p->frame);
			p->position = p->frame = NULL;
			return px_error_set(err, PX_ERR_NOMEM,
					    "out of memory for contact geometry");
		}
	}
	memcpy(p->position + 3 * k, position, 3 * sizeof *position);
	memcpy(p->frame + 9 * k, frame, 9 * sizeof *frame);
	return PX_OK;
}

struct col_block {
	uint32_t col;
	size_t src;
};

static int cmp_col_block(const void *a, const void *b)
{
	const struct col_block *x = a, *y = b;

	return (x->col > y->col) - (x->col < y->col);
}

int px_problem_set_assembled(struct px_problem *p, const size_t *rowptr,
			     const uint32_t *cols, const double *blocks,
			     struct px_error *err)
{
	const size_t bb = (size_t)p->bs * p->bs;
	size_t n = p->n, nnz = 0, at = 0, maxrow = 0;
	struct col_block *tmp = NULL;
	size_t *new_rowptr = NULL, *new_diag = NULL;
	uint32_t *new_cols = NULL;
	double *new_blocks = NULL;
	int rc;

	if (rowptr[0] != 0)
		return px_error_set(err, PX_ERR_INVALID,
				    "row pointers must start at 0, found %zu",
				    rowptr[0]);
	for (size_t i = 0; i < n; i++) {
		if (rowptr[i + 1] < rowptr[i])
			return px_error_set(err, PX_ERR_INVALID,
					    "block row %zu: row pointers decrease", i);
		if (rowptr[i + 1] - rowptr[i] > n)
			return px_error_set(err, PX_ERR_INVALID,
					    "block row %zu: %zu blocks, more than %zu block columns",
					    i, rowptr[i + 1] - rowptr[i], n);
		if (rowptr[i + 1] - rowptr[i] > maxrow)
			maxrow = rowptr[i + 1] - rowptr[i];
	}
	for (size_t i = 0; i < n; i++) {
		int has_diag = 0;

		for (size_t q = rowptr[i]; q < rowptr[i + 1]; q++) {
			if (cols[q] >= n)
				return px_error_set(err, PX_ERR_INVALID,
						    "block (%zu, %u) out of range (%zu block columns)",
						    i, cols[q], n);
			has_diag |= cols[q] == i;
		}
		nnz += rowptr[i + 1] - rowptr[i] + !has_diag;
	}
	/* Build the new A aside; the problem changes only on success. */
	new_rowptr = malloc((n + 1) * sizeof *new_rowptr);
	new_cols = malloc(nnz * sizeof *new_cols);
	new_blocks = calloc(nnz * bb, sizeof *new_blocks);
	new_diag = malloc(n * sizeof *new_diag);
	tmp = malloc((maxrow + 1) * sizeof *tmp);
	if (!new_rowptr || !new_cols || !new_blocks || !new_diag || !tmp) {
		rc = px_error_set(err, PX_ERR_NOMEM,
				  "out of memory for a block-sparse A of %zu blocks",
				  nnz);
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		int has_diag = 0;

		for (size_t q = rowptr[i]; q < rowptr[i + 1]; q++) {
			tmp[len].col = cols[q];
			tmp[len++].src = q;
			has_diag |= cols[q] == i;
		}
		if (!has_diag) {
			tmp[len].col = (uint32_t)i;
			tmp[len++].src = SIZE_MAX;
		}
		qsort(tmp, len, sizeof *tmp, cmp_col_block);
		new_rowptr[i] = at;
		for (size_t q = 0; q < len; q++) {
			if (q > 0 && tmp[q].col == tmp[q - 1].col) {
				rc = px_error_set(err, PX_ERR_INVALID,
						  "block (%zu, %u) given twice", i,
						  tmp[q].col);
				goto fail;
			}
			if (tmp[q].col == i)
				new_diag[i] = at;
			new_cols[at] = tmp[q].col;
			if (tmp[q].src != SIZE_MAX)
				memcpy(new_blocks + at * bb,
				       blocks + tmp[q].src * bb,
				       bb * sizeof *blocks);
			at++;
		}
	}
	new_rowptr[n] = at;
	free(tmp);
	clear_form(p);
	p->rowptr = new_rowptr;
	p->cols = new_cols;
	p->blocks = new_blocks;
	p->diag_at = new_diag;
	p->form = PX_FORM_ASSEMBLED;
	return PX_OK;
fail:
	free(tmp);
	free(new_rowptr);
	free(new_cols);
	free(new_blocks);
	free(new_diag);
	return rc;
}

int px_problem_assembled(const struct px_problem *p, const size_t **rowptr,
			 const uint32_t **cols, const double **blocks)
{
	if (p->form != PX_FORM_ASSEMBLED)
		return PX_ERR_INVALID;
	*rowptr = p->rowptr;
	*cols = p->cols;
	*blocks = p->blocks;
	return PX_OK;
}

static int all_finite(const double *x, size_t n, size_t *bad)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i])) {
			*bad = i;
			return 0;
		}
	return 1;
}

/* A contact's side names a body of the n_bodies, or none (static). */
static inline int body_in_range(uint32_t body, size_t n_bodies)
{
	return body == PX_STATIC || body < n_bodies;
}

/* Body indices in range, the two sides of a contact different. */
static int check_bodies(size_t n, size_t n_bodies, const uint32_t *body_a,
			const uint32_t *body_b, struct px_error *err)
{
	if (n_bodies >= UINT32_MAX)
		return px_error_set(err, PX_ERR_INVALID,
				    "%zu bodies are more than proxima supports",
				    n_bodies);
	for (size_t k = 0; k < n; k++) {
		if (!body_in_range(body_a[k], n_bodies) ||
		    !body_in_range(body_b[k], n_bodies))
			return px_error_set(err, PX_ERR_INVALID,
					    "contact %zu: body out of range (%zu bodies)",
					    k, n_bodies);
		if (body_a[k] == body_b[k])
			return px_error_set(err, PX_ERR_INVALID,
					    "contact %zu: both sides are the same body",
					    k);
	}
	return PX_OK;
}

int px_problem_set_factorized(struct px_problem *p, size_t n_bodies,
			      const uint32_t *body_a, const uint32_t *body_b,
			      const double *jac, const double *minv_jt,
			      struct px_error *err)
{
	const size_t per = 2 * 6 * (size_t)p->bs, n = p->n;

	int rc = check_bodies(p->n, n_bodies, body_a, body_b, err);

	if (rc)
		return rc;
	clear_form(p);
	p->body_a = malloc(n * sizeof *p->body_a);
	p->body_b = malloc(n * sizeof *p->body_b);
	p->jac = malloc(n * per * sizeof *p->jac);
	p->minv_jt = malloc(n * per * sizeof *p->minv_jt);
	p->scratch = malloc((n_bodies ? n_bodies : 1) * 6 * sizeof *p->scratch);
	if (!p->body_a || !p->body_b || !p->jac || !p->minv_jt || !p->scratch) {
		clear_form(p);
		return px_error_set(err, PX_ERR_NOMEM,
				    "out of memory for a factorized A of %zu contacts",
				    n);
	}
	memcpy(p->body_a, body_a, n * sizeof *body_a);
	memcpy(p->body_b, body_b, n * sizeof *body_b);
	memcpy(p->jac, jac, n * per * sizeof *jac);
	memcpy(p->minv_jt, minv_jt, n * per * sizeof *minv_jt);
	p->n_bodies = n_bodies;
	p->form = PX_FORM_FACTORIZED;
	return PX_OK;
}

static inline double row_dot(const double *f, int i, int j)
{
	return f[3 * i] * f[3 * j] + f[3 * i + 1] * f[3 * j + 1] +
	       f[3 * i + 2] * f[3 * j + 2];
}

/* Is frame f (rows n, s, t) orthonormal to 1e-9? The products of rows i
 * and j and of rows j and i are the same numbers (each product commutes
 * exactly, the sum is taken in the same order): the upper triangle
 * decides, 6 dot products instead of 9, all six tested at once rather
 * than a branch after each (its loop with early exits was 4% of
 * boxstack-40's run, perf). Inlined: with two callers gcc made it a call
 * per contact. */
static inline __attribute__((always_inline)) int orthonormal(const double *f)
{
	/* a count of the tests passed, not && (a branch each) nor & of
	 * comparisons (clang's -Wbitwise-instead-of-logical) */
	return (fabs(row_dot(f, 0, 0) - 1.0) <= 1e-9) +
		       (fabs(row_dot(f, 0, 1)) <= 1e-9) +
		       (fabs(row_dot(f, 0, 2)) <= 1e-9) +
		       (fabs(row_dot(f, 1, 1) - 1.0) <= 1e-9) +
		       (fabs(row_dot(f, 1, 2)) <= 1e-9) +
		       (fabs(row_dot(f, 2, 2) - 1.0) <= 1e-9) ==
	       6;
}

/* A body of the rigid form: its inverse mass finite and >= 0; its inverse
 * inertia (3x3, row-major) finite and exactly symmetric. Without a branch
 * per entry: the fused pass below runs them on every body. */
static inline int inv_mass_ok(double m)
{
	return m >= 0.0 && isfinite(m);
}

static inline int inv_inertia_ok(const double *ii)
{
	int ok = ii[1] == ii[3] && ii[2] == ii[6] && ii[5] == ii[7];

	for (int i = 0; i < 9; i++)
		ok &= isfinite(ii[i]);
	return ok;
}

/* The checks of px_problem_set_rigid one after the other, each over all
 * contacts or bodies: which error a problem with several gets. Only run
 * when the fused pass below found one (or could not allocate). */
static int rigid_errors(const struct px_problem *p, size_t n_bodies,
			const double *inv_mass, const double *inv_inertia,
			const uint32_t *body_a, const uint32_t *body_b,
			const double *lever, struct px_error *err)
{
	const size_t n = p->n;
	size_t bad;
	int rc = check_bodies(n, n_bodies, body_a, body_b, err);

	if (rc)
		return rc;
	for (size_t k = 0; k < n; k++)
		if (!p->frame || !orthonormal(p->frame + 9 * k))
			return px_error_set(err, PX_ERR_INVALID,
					    "contact %zu: no orthonormal frame (set its geometry first)",
					    k);
	for (size_t b = 0; b < n_bodies; b++) {
		if (!inv_mass_ok(inv_mass[b]))
			return px_error_set(err, PX_ERR_INVALID,
					    "body %zu: inverse mass %g is not finite and >= 0",
					    b, inv_mass[b]);
		if (!inv_inertia_ok(inv_inertia + 9 * b))
			return px_error_set(err, PX_ERR_INVALID,
					    "body %zu: the inverse inertia is not finite and symmetric",
					    b);
	}
	if (!all_finite(lever, 6 * n, &bad))
		return px_error_set(err, PX_ERR_INVALID,
				    "contact %zu: a lever arm is not finite",
				    bad / 6);
	return PX_OK;
}

/* Contacts [0, n): checked (bodies, frame, lever arms) and copied in one
 * pass, each contact's 128 bytes read once; 0 at the first one refused. */
static int rigid_contacts_take(size_t n, size_t n_bodies,
			       const double *frame, const uint32_t *body_a,
			       const uint32_t *body_b, const double *lever,
			       uint32_t *ba, uint32_t *bb, double *lev)
{
	for (size_t k = 0; k < n; k++) {
		const uint32_t a = body_a[k], b = body_b[k];
		int ok = 1;

		if (!body_in_range(a, n_bodies) ||
		    !body_in_range(b, n_bodies) || a == b ||
		    !orthonormal(frame + 9 * k))
			return 0;
		for (int i = 0; i < 6; i++) {
			const double x = lever[6 * k + i];

			ok &= isfinite(x);
			lev[6 * k + i] = x;
		}
		if (!ok)
			return 0;
		ba[k] = a;
		bb[k] = b;
	}
	return 1;
}

/* Bodies [0, nb): checked and copied, the inertia's upper triangle kept;
 * 0 at the first one refused. */
static int rigid_bodies_take(size_t nb, const double *inv_mass,
			     const double *inv_inertia, double *im, double *ii6)
{
	static const int upper[6] = {0, 1, 2, 4, 5, 8};

	for (size_t b = 0; b < nb; b++) {
		const double *ii = inv_inertia + 9 * b;

		if (!inv_mass_ok(inv_mass[b]) || !inv_inertia_ok(ii))
			return 0;
		im[b] = inv_mass[b];
		for (int i = 0; i < 6; i++)
			ii6[6 * b + i] = ii[upper[i]];
	}
	return 1;
}

/* The checks and the copies are one pass over the caller's arrays into
 * new ones (the old form stays until all passed), not four check passes
 * and three memcpy: with the world's lever arms gathered in the pass that
 * builds its problem, ballgrid-40's (188,800 contacts) problem stage went
 * 129 -> 121 ns per contact (medians of 5 runs in turn, doc/world.md). */
int px_problem_set_rigid(struct px_problem *p, size_t n_bodies,
			 const double *inv_mass, const double *inv_inertia,
			 const uint32_t *body_a, const uint32_t *body_b,
			 const double *lever, struct px_error *err)
{
	const size_t n = p->n, nb1 = n_bodies ? n_bodies : 1;
	uint32_t *ba, *bb;
	double *lev, *im, *ii6, *scratch;
	int rc;

	if (p->bs != 3)
		return px_error_set(err, PX_ERR_INVALID,
				    "the rigid form has 3-row contacts, not %u",
				    p->bs);
	ba = malloc(n * sizeof *ba);
	bb = malloc(n * sizeof *bb);
	lev = malloc(6 * n * sizeof *lev);
	im = malloc(nb1 * sizeof *im);
	ii6 = malloc(nb1 * 6 * sizeof *ii6);
	scratch = malloc(nb1 * 6 * sizeof *scratch);
	if (!ba || !bb || !lev || !im || !ii6 || !scratch ||
	    n_bodies >= UINT32_MAX || !p->frame ||
	    !rigid_contacts_take(n, n_bodies, p->frame, body_a, body_b, lever,
				 ba, bb, lev) ||
	    !rigid_bodies_take(n_bodies, inv_mass, inv_inertia, im, ii6)) {
		free(ba);
		free(bb);
		free(lev);
		free(im);
		free(ii6);
		free(scratch);
		rc = rigid_errors(p, n_bodies, inv_mass, inv_inertia, body_a,
				  body_b, lever, err);
		return rc ? rc
			  : px_error_set(err, PX_ERR_NOMEM,
					 "out of memory for a rigid A of %zu contacts",
					 n);
	}
	clear_form(p);
	p->body_a = ba;
	p->body_b = bb;
	p->lever = lev;
	p->inv_mass = im;
	p->inv_inertia = ii6;
	p->scratch = scratch;
	p->n_bodies = n_bodies;
	p->form = PX_FORM_RIGID;
	return PX_OK;
}

int px_problem_set_normal_shift(struct px_problem *p, const double *gamma,
				struct px_error *err)
{
	size_t bad;

	if (p->form != PX_FORM_FACTORIZED && p->form != PX_FORM_RIGID)
		return px_error_set(err, PX_ERR_INVALID,
				    "a normal shift needs a factorized or rigid A (an assembled A holds it in its blocks)");
	if (!gamma) {
		free(p->shift);
		p->shift = NULL;
		return PX_OK;
	}
	for (bad = 0; bad < p->n; bad++)
		if (!(gamma[bad] >= 0.0) || !isfinite(gamma[bad]))
			return px_error_set(err, PX_ERR_INVALID,
					    "normal shift of contact %zu = %g, expected finite and >= 0",
					    bad, gamma[bad]);
	if (!p->shift && !(p->shift = malloc(p->n * sizeof *p->shift)))
		return px_error_set(err, PX_ERR_NOMEM,
				    "out of memory for the normal shift");
	memcpy(p->shift, gamma, p->n * sizeof *p->shift);
	return PX_OK;
}

const double *px_problem_normal_shift(const struct px_problem *p)
{
	return p->shift;
}

void px_problem_apply(const struct px_problem *p, const double *x, double *y,
		      int add_b)
{
	const uint32_t bs = p->bs;
	const size_t bb = (size_t)bs * bs, n = p->n;

	for (size_t i = 0; i < n * bs; i++)
		y[i] = add_b ? p->b[i] : 0.0;
	if (p->form == PX_FORM_ASSEMBLED && bs == 3) {
		/* the rows of contact i summed in registers: the generic
		 * loops below store them at every product, as y may alias
		 * the blocks for all the compiler knows */
		for (size_t i = 0; i < n; i++) {
			double yi[3] = {y[3 * i], y[3 * i + 1], y[3 * i + 2]};

			for (size_t q = p->rowptr[i]; q < p->rowptr[i + 1]; q++)
				px_block3_mul_add(p->blocks + 9 * q,
						  x + 3 * (size_t)p->cols[q],
						  yi);
			memcpy(y + 3 * i, yi, sizeof yi);
		}
	} else if (p->form == PX_FORM_ASSEMBLED) {
		for (size_t i = 0; i < n; i++) {
			double *yi = y + i * bs;

			for (size_t q = p->rowptr[i]; q < p->rowptr[i + 1]; q++) {
				const double *blk = p->blocks + q * bb;
				const double *xj = x + (size_t)p->cols[q] * bs;

				for (uint32_t r = 0; r < bs; r++)
					for (uint32_t c = 0; c < bs; c++)
						yi[r] += blk[r * bs + c] * xj[c];
			}
		}
	} else if (p->form == PX_FORM_RIGID) {
		double *w = p->scratch;

		memset(w, 0, p->n_bodies * 6 * sizeof *w);
		for (size_t k = 0; k < n; k++)
			px_rigid_add(p, k, w, x + 3 * k, 0, 3);
		for (size_t k = 0; k < n; k++)
			px_rigid_velocity(p, k, w, 0, 3, y + 3 * k);
	} else if (p->form == PX_FORM_FACTORIZED) {
		const size_t per = 6 * (size_t)bs;
		double *w = p->scratch;

		memset(w, 0, p->n_bodies * 6 * sizeof *w);
		for (size_t k = 0; k < n; k++) {
			const double *m = p->minv_jt + 2 * per * k;

			if (p->body_a[k] != PX_STATIC)
				px_body_add(w + 6 * (size_t)p->body_a[k], m,
					    x + k * bs, bs, 0, bs);
			if (p->body_b[k] != PX_STATIC)
				px_body_add(w + 6 * (size_t)p->body_b[k],
					    m + per, x + k * bs, bs, 0, bs);
		}
		for (size_t k = 0; k < n; k++) {
			const double *j = p->jac + 2 * per * k;

			if (p->body_a[k] != PX_STATIC)
				px_jac_mul(y + k * bs, j,
					   w + 6 * (size_t)p->body_a[k], 0, bs);
			if (p->body_b[k] != PX_STATIC)
				px_jac_mul(y + k * bs, j + per,
					   w + 6 * (size_t)p->body_b[k], 0, bs);
		}
	}
	for (size_t k = 0; p->shift && k < n; k++)
		y[k * bs] += p->shift[k] * x[k * bs];
}

/* Contact k's diagonal block in closed form: F K F^T, F the frame (rows
 * d_i) and K the sum over its dynamic bodies of m^-1 I + [r]x^T I^-1 [r]x,
 * the velocity of the contact point per unit impulse there ([r]x v = r x v,
 * r the body's lever arm; its columns are a_j = r x e_j). K and the block
 * are symmetric: their upper triangles are computed and mirrored. Written
 * out, about a quarter of the instructions of applying three unit impulses
 * through the kernel's helpers: it is part of every solve's set-up. */
static void rigid_diag_block(const struct px_problem *p, size_t k,
			     double *out)
{
	const double *f = p->frame + 9 * k;
	double K[6] = {0.0}, Kf[3][3];

	for (uint32_t side = 0; side < 2; side++) {
		const uint32_t b = side ? p->body_b[k] : p->body_a[k];
		const double *r = p->lever + 6 * k + 3 * side, *ii;
		double m, x, y, z, I0[3], I1[3], I2[3];

		if (b == PX_STATIC)
			continue;
		ii = p->inv_inertia + 6 * (size_t)b;
		m = p->inv_mass[b];
		x = r[0];
		y = r[1];
		z = r[2];
		/* I^-1 a_j: a_0 = (0, z, -y), a_1 = (-z, 0, x), a_2 = (y, -x, 0) */
		I0[0] = ii[1] * z - ii[2] * y;
		I0[1] = ii[3] * z - ii[4] * y;
		I0[2] = ii[4] * z - ii[5] * y;
		I1[0] = ii[2] * x - ii[0] * z;
		I1[1] = ii[4] * x - ii[1] * z;
		I1[2] = ii[5] * x - ii[2] * z;
		I2[0] = ii[0] * y - ii[1] * x;
		I2[1] = ii[1] * y - ii[3] * x;
		I2[2] = ii[2] * y - ii[4] * x;
		/* a_i . I^-1 a_j */
		K[0] += m + (z * I0[1] - y * I0[2]);
		K[1] += z * I1[1] - y * I1[2];
		K[2] += z * I2[1] - y * I2[2];
		K[3] += m + (x * I1[2] - z * I1[0]);
		K[4] += x * I2[2] - z * I2[0];
		K[5] += m + (y * I2[0] - x * I2[1]);
	}
	for (int j = 0; j < 3; j++)
		px_sym3_mul(K, f + 3 * j, Kf[j]);
	for (int i = 0; i < 3; i++)
		for (int j = i; j < 3; j++)
			out[3 * i + j] = out[3 * j + i] =
				px_dot3(f + 3 * i, Kf[j]);
}

/* Contact k's diagonal block of a factorized A: J_k (M^-1 J_k^T) summed
 * over its dynamic bodies, added to out. */
static void factorized_diag_block(const struct px_problem *p, size_t k,
				  double *out)
{
	const uint32_t bs = p->bs;
	const size_t per = 6 * (size_t)bs;

	for (int side = 0; side < 2; side++) {
		const double *j = p->jac + 2 * per * k + side * per;
		const double *m = p->minv_jt + 2 * per * k + side * per;

		if ((side ? p->body_b[k] : p->body_a[k]) == PX_STATIC)
			continue;
		for (uint32_t r = 0; r < bs; r++)
			for (uint32_t c = 0; c < bs; c++)
				for (int d = 0; d < 6; d++)
					out[r * bs + c] +=
						j[r * 6 + d] * m[d * bs + c];
	}
}

void px_problem_diag_block(const struct px_problem *p, size_t k, double *out)
{
	const uint32_t bs = p->bs;
	const size_t bb = (size_t)bs * bs;

	if (p->form == PX_FORM_ASSEMBLED) {
		memcpy(out, p->blocks + p->diag_at[k] * bb, bb * sizeof *out);
		return;
	}
	/* the rigid block is written whole (9 assignments), the factorized
	 * one summed into zeros: the rigid path needs no memset call per
	 * contact */
	if (p->form == PX_FORM_RIGID) {
		rigid_diag_block(p, k, out);
	} else {
		memset(out, 0, bb * sizeof *out);
		if (p->form == PX_FORM_FACTORIZED)
			factorized_diag_block(p, k, out);
	}
	if (p->shift)
		out[0] += p->shift[k];
}

void px_problem_diag_blocks(const struct px_problem *p, size_t begin,
			    size_t end, double *out)
{
	const size_t bb = (size_t)p->bs * p->bs;

	if (p->form == PX_FORM_RIGID && !p->shift) {
		for (size_t k = begin; k < end; k++)
			rigid_diag_block(p, k, out + k * bb);
		return;
	}
	for (size_t k = begin; k < end; k++)
		px_problem_diag_block(p, k, out + k * bb);
}

int px_problem_to_dense(const struct px_problem *p, double *out)
{
	const size_t m = p->n * p->bs;
	double *e = calloc(m, sizeof *e), *col = malloc(m * sizeof *col);

	if (!e || !col) {
		free(e);
		free(col);
		return PX_ERR_NOMEM;
	}
	for (size_t c = 0; c < m; c++) {
		e[c] = 1.0;
		px_problem_apply(p, e, col, 0);
		e[c] = 0.0;
		for (size_t r = 0; r < m; r++)
			out[r * m + c] = col[r];
	}
	free(e);
	free(col);
	return PX_OK;
}

int px_problem_validate(const struct px_problem *p, struct px_error *err)
{
	const size_t n = p->n, bs = p->bs;
	size_t bad;

	if (p->form == PX_FORM_NONE)
		return px_error_set(err, PX_ERR_INVALID,
				    "the problem has no Delassus operator A");
	if (!all_finite(p->b, n * bs, &bad))
		return px_error_set(err, PX_ERR_INVALID,
				    "b[%zu] (contact %zu) is not finite", bad,
				    bad / bs);
	for (size_t k = 0; k < n; k++) {
		const struct px_friction_params *f = &p->friction[k];

		if (!(f->mu >= 0 && f->mu_s >= 0 && f->mu_t >= 0 &&
		      f->mu_tau >= 0) ||
		    !isfinite(f->mu) || !isfinite(f->mu_s) ||
		    !isfinite(f->mu_t) || !isfinite(f->mu_tau))
			return px_error_set(err, PX_ERR_INVALID,
					    "contact %zu: friction coefficients must be finite and >= 0 (mu = %g)",
					    k, f->mu);
	}
	if (p->form == PX_FORM_ASSEMBLED &&
	    !all_finite(p->blocks, p->rowptr[n] * bs * bs, &bad))
		return px_error_set(err, PX_ERR_INVALID,
				    "A: block %zu of the block-sparse storage is not finite",
				    bad / (bs * bs));
	if (p->form == PX_FORM_FACTORIZED &&
	    (!all_finite(p->jac, n * 12 * bs, &bad) ||
	     !all_finite(p->minv_jt, n * 12 * bs, &bad)))
		return px_error_set(err, PX_ERR_INVALID,
				    "A: contact %zu's Jacobian is not finite",
				    bad / (12 * bs));
	return PX_OK;
}

int px_problem_check_diagonal(const struct px_problem *p, struct px_error *err)
{
	const size_t bs = p->bs;

	if (p->form != PX_FORM_ASSEMBLED)
		return PX_OK;
	for (size_t k = 0; k < p->n; k++) {
		const double *d = p->blocks + p->diag_at[k] * bs * bs;

		for (size_t i = 0; i < bs; i++) {
			const double a = d[i * (bs + 1)];

			if (i == 0 && !(a > 0))
				return px_error_set(err, PX_ERR_INVALID,
						    "A: contact %zu: diagonal entry A[%zu][%zu] = %g, expected > 0 on a normal row",
						    k, k * bs, k * bs, a);
			if (!(a >= 0))
				return px_error_set(err, PX_ERR_INVALID,
						    "A: contact %zu: diagonal entry A[%zu][%zu] = %g, expected >= 0 (A is positive semi-definite)",
						    k, k * bs + i, k * bs + i, a);
		}
	}
	return PX_OK;
}

int px_problem_incidence(const struct px_problem *p, size_t **at_out,
			 uint32_t **list_out)
{
	const size_t nb = p->n_bodies;
	size_t *at = calloc(nb + 1, sizeof *at);
	uint32_t *list = malloc((2 * p->n + 1) * sizeof *list);

	*at_out = NULL;
	*list_out = NULL;
	if (!at || !list) {
		free(at);
		free(list);
		return PX_ERR_NOMEM;
	}
	for (size_t k = 0; k < p->n; k++) {
		if (p->body_a[k] != PX_STATIC)
			at[p->body_a[k] + 1]++;
		if (p->body_b[k] != PX_STATIC)
			at[p->body_b[k] + 1]++;
	}
	for (size_t b = 0; b < nb; b++)
		at[b + 1] += at[b];
	for (size_t k = 0; k < p->n; k++)
		for (uint32_t side = 0; side < 2; side++) {
			const uint32_t b = side ? p->body_b[k] : p->body_a[k];

			if (b != PX_STATIC)
				list[at[b]++] = (uint32_t)(k << 1 | side);
		}
	/* the fill moved every start to the next body's: shift back */
	for (size_t b = nb; b > 0; b--)
		at[b] = at[b - 1];
	at[0] = 0;
	*at_out = at;
	*list_out = list;
	return PX_OK;
}
