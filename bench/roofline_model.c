/* bench/roofline_model.h: the count. Bytes are the arrays' element sizes
 * times contacts (or bodies), as STREAM counts its triad: a byte read is
 * one, a byte written is one (no write-allocate), a byte read and written
 * is two. Flops are the additions, subtractions, multiplications,
 * divisions and square roots the kernel's C code performs (a compare, a
 * max or a fabs is none), counted by reading it; a contact whose impulse
 * is zero at the end is counted without the body update, which the
 * kernels skip when the impulse does not change.
 *
 * Per contact, both kernels (sequential scheduler, diagonal R):
 *   the order list 4 (uint32), b 24, r 24, lambda 24 read + 24 written,
 *   prev 24 written (the driver's copy of the impulse before the sweep)
 * rigid 3-row kernel (kernel_rigid3.c): frame 72, lever arms 48, coef 24
 *   (A_sn, A_tn, mu), body ids 8; per dynamic body w 48 read, and when
 *   a contact whose impulse moves pushes it, w 48 written, inverse mass 8,
 *   inverse inertia 48 (6 packed)
 * general kernel (kernel.c): the diagonal block 72 (only A_sn, A_tn are
 *   read, but they are 24 bytes apart in every 72: every cache line is
 *   touched), the friction parameters 32 (the plugin's project reads mu
 *   out of each 32), then by form
 *   rigid: frame 72, lever arms 48, body ids 8; bodies as above
 *   factorized: body ids 8, J 144 per side, M^-1 J^T 144 per side when
 *     the impulse moves; per dynamic body w 48 + 48
 *   assembled: rowptr 8, per stored block its column 4 and 72; the
 *     neighbours' impulses are lambda's, already counted. */
#include <stdint.h>
#include <stdlib.h>

#include "../core/problem_impl.h"
#include "roofline_model.h"

/* per contact, every kernel and form */
#define COMMON_BYTES (4.0 + 24.0 + 24.0 + 48.0 + 24.0)
/* flops of contact k with `sides` dynamic bodies (a of them body a) */
static double flops_rigid3(int a, int b, int changed)
{
	/* u = (v_a + w_a x r_a) - (v_b + w_b x r_b): 12 per side and 3 for
	 * the difference; v = b + F u: 18; the normal row 2 and its change
	 * 1; the friction rows 8; the disc's radius 1 and its inside test 5;
	 * the change 3 and the driver's tally 9 */
	double f = 12.0 * a + 15.0 * b + 18.0 + 3.0 + 8.0 + 6.0 + 12.0;

	/* P = F^T d 15; per body r x P 9, I^-1 (r x P) 15, w += 15 */
	if (changed)
		f += 15.0 + 39.0 * (a + b);
	return f;
}

static double flops_general(const struct px_problem *p, size_t k, int sides,
			    int changed)
{
	/* the normal row 2, the friction rows' velocity change 6, z 4, the
	 * disc plugin's projection 6, the change 3, the tally 9 */
	double f = 30.0;

	if (p->form == PX_FORM_RIGID) {
		/* per side r x w 9, u += sign (v + w x r) 9; v = F u 18 */
		f += 18.0 * sides + 18.0;
		if (changed) /* P = F^T d 18, per body 39 */
			f += 18.0 + 39.0 * sides;
	} else if (p->form == PX_FORM_FACTORIZED) {
		/* J_side w: 3 rows of 6 products and 6 sums */
		f += 36.0 * sides;
		if (changed) /* w += (M^-1 J^T) d: 6 rows of 7 */
			f += 42.0 * sides;
	} else {
		/* per block: 3 rows of 3 products, 3 sums and one more */
		f += 21.0 * (double)(p->rowptr[k + 1] - p->rowptr[k]);
	}
	return f;
}

int roofline_cost(const struct px_problem *p, int rigid3, const double *lambda,
		  struct roofline_cost *out)
{
	const size_t n = p->n;
	const uint32_t bs = p->bs;
	const int rigid = p->form == PX_FORM_RIGID;
	double per_contact = COMMON_BYTES, sides = 0.0, sides_moved = 0.0;
	double flops = 0.0, changed = 0.0, body = 0.0, body_set = 0.0;
	/* a body some contact reads (w), and one some moved contact pushes
	 * (w written; rigid: its mass and inertia read) */
	size_t dynamic = 0, pushed = 0;
	char *seen = NULL;

	if (p->form != PX_FORM_ASSEMBLED &&
	    !(seen = calloc(p->n_bodies + 1, 1)))
		return PX_ERR_NOMEM;
	for (size_t k = 0; k < n; k++) {
		const int a = seen && p->body_a[k] != PX_STATIC;
		const int b = seen && p->body_b[k] != PX_STATIC;
		int moved = 0;

		for (uint32_t r = 0; r < bs; r++)
			moved |= lambda[k * bs + r] != 0.0;
		changed += moved;
		sides += a + b;
		sides_moved += moved * (a + b);
		flops += rigid3 ? flops_rigid3(a, b, moved)
				: flops_general(p, k, a + b, moved);
		if (a)
			seen[p->body_a[k]] |= 1 | moved << 1;
		if (b)
			seen[p->body_b[k]] |= 1 | moved << 1;
	}
	for (size_t i = 0; seen && i < p->n_bodies; i++) {
		dynamic += seen[i] & 1;
		pushed += seen[i] >> 1;
	}
	free(seen);
	if (rigid3) {
		per_contact += 72.0 + 48.0 + 24.0 + 8.0;
	} else {
		per_contact += 72.0 + 32.0;
		if (rigid)
			per_contact += 72.0 + 48.0 + 8.0;
		else if (p->form == PX_FORM_FACTORIZED) /* M^-1 J^T if moved */
			per_contact += 8.0 + 2.0 * 6.0 * bs * 8.0 *
						 (1.0 + changed / (double)n);
		else
			per_contact += 8.0 + (4.0 + 8.0 * bs * bs) *
						 (double)p->rowptr[n] /
						 (double)n;
	}
	if (p->form != PX_FORM_ASSEMBLED) {
		/* w read 48, written 48 if pushed; rigid: 1/m and I^-1 56 */
		const double push = rigid ? 104.0 : 48.0;

		body = 48.0 * (double)dynamic + push * (double)pushed;
		body_set = 48.0 * (double)dynamic +
			   (rigid ? 56.0 * (double)pushed : 0.0);
		out->gathered = (48.0 * sides + push * sides_moved) / (double)n;
	} else {
		out->gathered = 0.0;
	}
	out->body_bytes = body / (double)n;
	out->bytes = per_contact + out->body_bytes;
	out->flops = flops / (double)n;
	/* every array once: lambda's read and write are one array */
	out->footprint = (per_contact - 24.0) * (double)n + body_set;
	out->changed = changed / (double)n;
	return PX_OK;
}
