/* The contacts of a world's last step for the VTK frames (io/vtk.h): each
 * contact's point, the normal of its frame (the direction in which its
 * normal impulse pushes the body that receives it: sim/world_problem.c
 * flips the collision normal when the second body is static) and its
 * impulses out of the contact frame into world coordinates. */
#include <stdlib.h>

#include "mesh.h"
#include "world_impl.h"
#include "world_problem.h"

int px_world_vtk_contacts(const struct px_world *w,
			  struct px_vtk_contact **out, size_t *n_out,
			  struct px_error *err)
{
	const struct px_contact *c;
	const double *lambda;
	uint32_t bs;
	const size_t n = px_world_contacts(w, &c, &lambda, &bs);
	struct px_contact_rows *rows = malloc((n + 1) * sizeof *rows);
	struct px_vtk_contact *v = malloc((n + 1) * sizeof *v);
	struct px_dynamics dyn;

	if (!rows || !v) {
		free(rows);
		free(v);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	if (px_dynamics_build(w, &dyn, err)) {
		free(rows);
		free(v);
		return err->code;
	}
	px_contact_rows_build(w, &dyn, c, n, rows);
	for (size_t k = 0; k < n; k++) {
		const double *l = lambda + (size_t)bs * k;
		const double ls = bs >= 3 ? l[1] : 0.0, lt = bs >= 3 ? l[2] : 0.0;
		const struct px_contact_rows *r = rows + k;

		for (int i = 0; i < 3; i++) {
			v[k].point[i] = c[k].p[i];
			v[k].normal[i] = r->frame[i];
			v[k].friction[i] = ls * r->frame[3 + i] +
					   lt * r->frame[6 + i];
		}
		v[k].normal_impulse = l[0];
		v[k].body = (int32_t)r->world_a;
		v[k].other = (int32_t)(r->flipped ? c[k].b : c[k].a);
	}
	px_dynamics_free(&dyn);
	free(rows);
	*out = v;
	*n_out = n;
	return PX_OK;
}
