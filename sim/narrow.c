/* px_collide_pair: dispatch a pair of bodies to the routine of its two
 * shape kinds. The routines take the shapes in kind order; a pair of one
 * kind is taken in index order, so that swapping the arguments gives the
 * same points and feature ids with flipped normals. */
#include "narrow.h"

/* [kind of the first][kind of the second], first <= second */
/* clang-format off */
static const px_pair_fn pair_fns[4][4] = {
	[PX_SPHERE] = {
		[PX_SPHERE] = px_narrow_sphere_sphere,
		[PX_BOX] = px_narrow_sphere_box,
		[PX_CAPSULE] = px_narrow_sphere_capsule,
		[PX_PLANE] = px_narrow_sphere_plane,
	},
	[PX_BOX] = {
		[PX_BOX] = px_narrow_box_box,
		[PX_CAPSULE] = px_narrow_box_capsule,
		[PX_PLANE] = px_narrow_box_plane,
	},
	[PX_CAPSULE] = {
		[PX_CAPSULE] = px_narrow_capsule_capsule,
		[PX_PLANE] = px_narrow_capsule_plane,
	},
	/* plane-plane: none */
};
/* clang-format on */

int px_collide_pair(const struct px_body *a, uint32_t ia,
		     const struct px_body *b, uint32_t ib, double margin,
		     struct px_contact *out)
{
	const unsigned ka = (unsigned)a->shape.kind;
	const unsigned kb = (unsigned)b->shape.kind;
	int swap, n;
	px_pair_fn fn;

	if ((a->is_static && b->is_static) || ka > PX_PLANE || kb > PX_PLANE)
		return 0;
	swap = ka > kb || (ka == kb && ib < ia);
	fn = swap ? pair_fns[kb][ka] : pair_fns[ka][kb];
	if (!fn)
		return 0;
	n = swap ? fn(b, a, margin, out) : fn(a, b, margin, out);
	for (int k = 0; k < n; k++) {
		out[k].a = ia;
		out[k].b = ib;
		if (swap)
			for (int i = 0; i < 3; i++)
				out[k].n[i] = -out[k].n[i];
	}
	return n;
}
