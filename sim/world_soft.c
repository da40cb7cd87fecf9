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
 * The problem holds Gamma as its normal shift (px_problem_set_normal_shift):
 * A keeps its rigid form, and the plugins see A + Gamma in every product
 * and diagonal block. */
#include <math.h>
#include <stdlib.h>

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

int px_world_soft_problem(const struct px_contact_rows *rows,
			  const struct px_softness soft[2],
			  struct px_problem *p, struct px_error *err)
{
	const size_t n = px_problem_n_contacts(p);
	double *gamma = malloc(n * sizeof *gamma), d[16];
	int rc;

	if (!gamma)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (size_t k = 0; k < n; k++) {
		px_problem_diag_block(p, k, d);
		gamma[k] = soft[rows[k].pb == PX_STATIC].gamma * d[0];
	}
	rc = px_problem_set_normal_shift(p, gamma, err);
	free(gamma);
	return rc;
}
