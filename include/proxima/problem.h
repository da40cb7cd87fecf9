/* The contact problem (doc/design.md, section 2).
 *
 * Contact k has an impulse block lambda_k of bs = 3 (n, s, t) or 4
 * (n, s, t, tau) rows, friction parameters, a restitution coefficient and,
 * where known, a position and a frame. The Delassus operator A is held in one
 * of two forms:
 *   assembled:  a block-sparse A (BSR, bs x bs row-major blocks), as read
 *               from problem files; A may be non-symmetric;
 *   factorized: per contact the Jacobian blocks J_a, J_b (bs x 6) and the
 *               columns M^-1 J^T of its two bodies (6 x bs); body velocities
 *               w = M^-1 J^T lambda are kept by the solver;
 *   rigid:      the factorized form of rigid bodies in contact, compact:
 *               per body its inverse mass and inverse inertia, per contact
 *               the lever arms r_a, r_b from the bodies' centres to the
 *               contact point and its frame; J_a's rows are (d, r_a x d)
 *               and J_b's -(d, r_b x d) for d = n, s, t. The fast form:
 *               a contact holds 6 numbers of its own instead of 72.
 *               Three-row contacts only (no torsional row).
 * The contact velocity is v = A lambda + b with b the free velocity. */
#ifndef PROXIMA_PROBLEM_H
#define PROXIMA_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/error.h>
#include <proxima/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

enum px_form {
	PX_FORM_NONE = 0, /* A not given yet */
	PX_FORM_ASSEMBLED = 1,
	PX_FORM_FACTORIZED = 2,
	PX_FORM_RIGID = 3,
};

struct px_problem;

/* A problem of n_contacts contacts with bs-row blocks (3 or 4); b, friction
 * and restitution start at zero. */
int px_problem_create(size_t n_contacts, uint32_t bs, struct px_problem **out,
		      struct px_error *err);
void px_problem_destroy(struct px_problem *p);

size_t px_problem_n_contacts(const struct px_problem *p);
uint32_t px_problem_block_size(const struct px_problem *p);
enum px_form px_problem_form(const struct px_problem *p);
size_t px_problem_n_bodies(const struct px_problem *p);

/* Writable per-contact data: b (n_contacts * bs), friction, restitution. */
double *px_problem_b(struct px_problem *p);
const double *px_problem_b_const(const struct px_problem *p);
struct px_friction_params *px_problem_friction(struct px_problem *p);
const struct px_friction_params *
px_problem_friction_const(const struct px_problem *p);
double *px_problem_restitution(struct px_problem *p);

/* Position (3) and frame (3x3 row-major, rows n, s, t) of contact k. Until the
 * first call the problem has no geometry. A non-finite number is refused. */
int px_problem_set_geometry(struct px_problem *p, size_t k,
			    const double position[3], const double frame[9],
			    struct px_error *err);
const double *px_problem_positions(const struct px_problem *p); /* or NULL */
const double *px_problem_frames(const struct px_problem *p);    /* or NULL */

/* Assembled A: rowptr[n_contacts + 1], cols[rowptr[n]] block columns,
 * blocks[rowptr[n] * bs * bs]. Copied; block columns are sorted per row; a
 * repeated block or a column out of range is refused. Missing diagonal
 * blocks are stored as zero blocks. On error the problem is unchanged. */
int px_problem_set_assembled(struct px_problem *p, const size_t *rowptr,
			     const uint32_t *cols, const double *blocks,
			     struct px_error *err);

/* The assembled A as stored (read-only, owned by the problem): the BSR
 * arrays of px_problem_set_assembled after it sorted the block columns of
 * each row and added the missing diagonal blocks as zero blocks. For file
 * writers. PX_ERR_INVALID (outputs untouched) when A is not assembled. */
int px_problem_assembled(const struct px_problem *p, const size_t **rowptr,
			 const uint32_t **cols, const double **blocks);

/* Factorized A = J M^-1 J^T. body_a/body_b[k] index bodies or PX_STATIC;
 * jac holds per contact J_a then J_b (bs x 6, row-major each); minv_jt per
 * contact (M^-1 J^T)_a then _b (6 x bs, row-major each). Blocks of a static
 * body are ignored. Copied. */
int px_problem_set_factorized(struct px_problem *p, size_t n_bodies,
			      const uint32_t *body_a, const uint32_t *body_b,
			      const double *jac, const double *minv_jt,
			      struct px_error *err);

/* Rigid A (see above): inv_mass[n_bodies] (>= 0), inv_inertia[9 n_bodies]
 * (the world-frame inverse inertia, symmetric positive semi-definite,
 * row-major), body_a/body_b as for the factorized form, lever[6 n_contacts]
 * (r_a then r_b per contact, ignored for the static world), and the frames
 * that px_problem_set_geometry gave every contact (orthonormal, rows n, s,
 * t). Copied. Refused: bs != 3, a missing or non-orthonormal frame, a
 * non-finite number, a negative mass, an asymmetric inertia. */
int px_problem_set_rigid(struct px_problem *p, size_t n_bodies,
			 const double *inv_mass, const double *inv_inertia,
			 const uint32_t *body_a, const uint32_t *body_b,
			 const double *lever, struct px_error *err);
/* Soft contact: gamma[k] >= 0 (finite) added to A's entry on contact k's
 * normal row, A + Gamma, for a factorized or rigid A (an assembled one
 * holds it in its blocks); set after the form, which setting again
 * removes it; gamma NULL removes it. Copied. Every product, diagonal
 * block and solve of p is then of A + Gamma. */
int px_problem_set_normal_shift(struct px_problem *p, const double *gamma,
				struct px_error *err);
/* The shift (n_contacts), or NULL. */
const double *px_problem_normal_shift(const struct px_problem *p);

/* y = A x (+ b when add_b), vectors of n_contacts * bs. For a factorized A
 * it uses scratch space inside the problem: not for concurrent calls on the
 * same problem. */
void px_problem_apply(const struct px_problem *p, const double *x, double *y,
		      int add_b);

/* The bs x bs diagonal block of contact k, row-major. */
void px_problem_diag_block(const struct px_problem *p, size_t k, double *out);

/* A as a dense row-major (n*bs) x (n*bs) matrix, for tests and small tools. */
int px_problem_to_dense(const struct px_problem *p, double *out);

/* A copy of p in storage of its own: A in its form (and normal shift), b,
 * friction, restitution and geometry. */
int px_problem_copy(const struct px_problem *p, struct px_problem **out,
		    struct px_error *err);

/* The assembled problem of p, of any form: a copy of its contacts' data
 * with A (plus its normal shift) assembled, block (i, j) stored where
 * contacts i and j share a dynamic body (diagonal blocks always), each the
 * velocity at i of unit impulses at j through px_problem_apply's products.
 * Time and memory of the blocks kept: O(sum over bodies of contacts^2). */
int px_problem_assemble(const struct px_problem *p, struct px_problem **out,
			struct px_error *err);

/* Bytes the problem holds (its struct and every array it owns). */
size_t px_problem_bytes(const struct px_problem *p);

/* Check every number is finite, mu >= 0, A given. */
int px_problem_validate(const struct px_problem *p, struct px_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
