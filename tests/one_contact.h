/* The one-contact problem of the shared data (FrictionContact3D_1c.dat),
 * built in code so that tests on it need no shared file: W =
 * [[15,-1,-2],[-1,14,1],[-2,1,16]], q = (-1,2,3), mu = 0.1. */
#ifndef PX_TEST_ONE_CONTACT_H
#define PX_TEST_ONE_CONTACT_H

#include <criterion/criterion.h>

#include <proxima/proxima.h>

static inline struct px_problem *shared_one_contact(void)
{
	static const double W[9] = {15, -1, -2, -1, 14, 1, -2, 1, 16};
	static const size_t rowptr[2] = {0, 1};
	static const uint32_t cols[1] = {0};
	struct px_problem *p;
	double *b;

	cr_assert_eq(px_problem_create(1, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, W, NULL), PX_OK);
	b = px_problem_b(p);
	b[0] = -1, b[1] = 2, b[2] = 3;
	px_problem_friction(p)[0] = (struct px_friction_params){0.1, 0.1, 0.1, 0};
	return p;
}

#endif
