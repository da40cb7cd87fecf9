/* The box column of stack_problem.h, on scene_problems.h's problem
 * builder. */
#include <stdlib.h>

#include "scene_problems.h"
#include "stack_problem.h"

#define HX 0.7
#define HY 0.7
#define HZ 0.3
#define MASS 110.0

int stack_problem_create(size_t boxes, double mu, double slide,
			 enum px_form form, struct px_problem **out,
			 struct px_error *err)
{
	static const double corner[4][2] = {
		{-HX, -HY}, {HX, -HY}, {-HX, HY}, {HX, HY}};
	static const double g[3] = {0.0, 0.0, -9.81};
	struct scene_body *b = malloc(boxes * sizeof *b);
	struct scene_contact *c = malloc(4 * boxes * sizeof *c);
	int rc;

	*out = NULL;
	if (!b || !c) {
		free(b);
		free(c);
		return px_error_set(err, PX_ERR_NOMEM,
				    "out of memory for a stack of %zu boxes",
				    boxes);
	}
	for (size_t k = 0; k < boxes; k++) {
		/* solid box: I = m/3 (b^2 + c^2) with half extents */
		b[k] = (struct scene_body){
			{0.0, 0.0, HZ + 2 * HZ * (double)k},
			{k % 2 ? -slide : slide, 0.0, 0.0},
			1.0 / MASS,
			{3.0 / (MASS * (HY * HY + HZ * HZ)),
			 3.0 / (MASS * (HX * HX + HZ * HZ)),
			 3.0 / (MASS * (HX * HX + HY * HY))},
		};
		for (size_t i = 0; i < 4; i++)
			c[4 * k + i] = (struct scene_contact){
				(uint32_t)k,
				k == 0 ? PX_STATIC : (uint32_t)(k - 1),
				{corner[i][0], corner[i][1], 2 * HZ * (double)k},
				{0.0, 0.0, 1.0},
				mu,
			};
	}
	rc = scene_problem_create(b, boxes, c, 4 * boxes, 1.0 / 60.0, g, form,
				  out, err);
	free(b);
	free(c);
	return rc;
}
