/* A program that uses libproxima: one time step of a box sliding on the
 * ground, built from arrays in the rigid form (one body, four corner
 * contacts against the static world), solved with the default solver
 * configuration, and checked by hand against Newton's laws and Coulomb's.
 *
 * The box moves at v0 along x and rests on the ground; gravity acts for
 * one step dt. The contact impulses must stop its fall (total normal
 * impulse m g dt) and, as it slides, the friction impulse is mu times
 * that, against the motion: after the step the box moves at
 * v0 - mu g dt along x, neither falling nor turning.
 *
 * make check builds and runs it (tests/solve_arrays.sh); by hand,
 * against an installed libproxima:
 *   cc $(pkg-config --cflags proxima) -o solve_arrays solve_arrays.c \
 *      $(pkg-config --libs proxima) -lm
 *   ./solve_arrays
 * It prints the impulses, the solve's stop and merit, the box's velocity
 * after the step and the expected one, and exits with 1 when a check
 * fails or the solve does not converge. */
#include <math.h>
#include <stdio.h>

#include <proxima/proxima.h>

#define N_CONTACTS 4

static const double mass = 2.0;                 /* kg */
static const double half[3] = {0.4, 0.3, 0.2}; /* half extents, m */
static const double v0 = 1.0;                   /* sliding speed, m/s */
static const double mu = 0.5;                   /* Coulomb friction */
static const double g = 9.81;                   /* m/s^2, along -z */
static const double dt = 0.01;                  /* s */

static void cross(const double a[3], const double b[3], double out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The problem: one box (body 0) on the static world, A in the rigid form
 * (inverse mass and inertia, lever arms and contact frames), b the
 * contacts' velocity before the impulses act. */
static int build(struct px_problem **out, struct px_error *err)
{
	/* rows n, s, t: the ground's normal up, friction along x and y */
	static const double frame[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
	/* a solid box: I = m/3 (b^2 + c^2) about each axis, with half extents */
	const double inv_inertia[9] = {
		3 / (mass * (half[1] * half[1] + half[2] * half[2])), 0, 0,
		0, 3 / (mass * (half[0] * half[0] + half[2] * half[2])), 0,
		0, 0, 3 / (mass * (half[0] * half[0] + half[1] * half[1])),
	};
	const double inv_mass = 1 / mass;
	uint32_t body_a[N_CONTACTS], body_b[N_CONTACTS];
	double lever[6 * N_CONTACTS] = {0};
	struct px_problem *p;

	if (px_problem_create(N_CONTACTS, 3, &p, err))
		return -1;
	for (size_t k = 0; k < N_CONTACTS; k++) {
		/* corner k under the box, whose centre is at the origin */
		const double r[3] = {k & 1 ? half[0] : -half[0],
				     k & 2 ? half[1] : -half[1], -half[2]};
		double *b = px_problem_b(p) + 3 * k;

		body_a[k] = 0;
		body_b[k] = PX_STATIC;
		for (int i = 0; i < 3; i++)
			lever[6 * k + i] = r[i]; /* r_a; r_b unused (static) */
		if (px_problem_set_geometry(p, k, r, frame, err))
			goto fail;
		/* free velocity (v0, 0, -g dt) of a box that does not turn,
		 * in the frame (n, s, t) */
		b[0] = -g * dt;
		b[1] = v0;
		b[2] = 0;
		px_problem_friction(p)[k] =
			(struct px_friction_params){mu, mu, mu, 0};
	}
	if (px_problem_set_rigid(p, 1, &inv_mass, inv_inertia, body_a, body_b,
				 lever, err) ||
	    px_problem_validate(p, err))
		goto fail;
	*out = p;
	return 0;
fail:
	px_problem_destroy(p);
	return -1;
}

/* The box's velocity after the impulses, from Newton's and Euler's laws
 * (not from the library): linear v, angular w. */
static void velocity_after(const double *lambda, double v[3], double w[3])
{
	double torque[3] = {0}, impulse[3];

	v[0] = v0;
	v[1] = 0;
	v[2] = -g * dt;
	for (size_t k = 0; k < N_CONTACTS; k++) {
		const double r[3] = {k & 1 ? half[0] : -half[0],
				     k & 2 ? half[1] : -half[1], -half[2]};
		double tk[3];

		/* n = z, s = x, t = y */
		impulse[0] = lambda[3 * k + 1];
		impulse[1] = lambda[3 * k + 2];
		impulse[2] = lambda[3 * k];
		cross(r, impulse, tk);
		for (int i = 0; i < 3; i++) {
			v[i] += impulse[i] / mass;
			torque[i] += tk[i];
		}
	}
	/* the inertia is diagonal: I = m/3 (b^2 + c^2) per axis */
	for (int i = 0; i < 3; i++) {
		const double a = half[(i + 1) % 3], c = half[(i + 2) % 3];

		w[i] = torque[i] * 3 / (mass * (a * a + c * c));
	}
}

/* Coulomb's law at each contact and the box's motion against the known
 * answer; prints each failure and returns how many there were. */
static int check(const double *lambda)
{
	const double tol = 1e-6;
	const double want = v0 - mu * g * dt;
	double v[3], w[3];
	int bad = 0;

	velocity_after(lambda, v, w);
	printf("velocity    (%.6f, %.6f, %.6f) m/s, turning (%.2g, %.2g, "
	       "%.2g) rad/s\n", v[0], v[1], v[2], w[0], w[1], w[2]);
	printf("expected    (%.6f, 0, 0) m/s, not turning\n", want);
	if (fabs(v[0] - want) > tol || fabs(v[1]) > tol || fabs(v[2]) > tol) {
		printf("FAIL the box's velocity is not (v0 - mu g dt, 0, 0)\n");
		bad++;
	}
	if (fabs(w[0]) > tol || fabs(w[1]) > tol || fabs(w[2]) > tol) {
		printf("FAIL the box turns\n");
		bad++;
	}
	for (size_t k = 0; k < N_CONTACTS; k++) {
		const double *l = lambda + 3 * k;

		if (l[0] < -tol * mass * g * dt) {
			printf("FAIL contact %zu pulls: normal impulse %g\n", k,
			       l[0]);
			bad++;
		}
		/* sliding along +x: friction at the disc's edge, along -x */
		if (fabs(l[1] + mu * l[0]) > tol * mass * g * dt ||
		    fabs(l[2]) > tol * mass * g * dt) {
			printf("FAIL contact %zu: friction (%g, %g) is not "
			       "(-mu lambda_n, 0) of a sliding contact\n", k,
			       l[1], l[2]);
			bad++;
		}
	}
	return bad;
}

int main(void)
{
	struct px_error err = {0};
	struct px_problem *p = NULL;
	struct px_config *cfg = NULL;
	struct px_report rep = {0};
	double lambda[3 * N_CONTACTS] = {0}; /* the warm start: zero */
	int status = 1;

	/* the default configuration (path NULL); a program may read an INI
	 * file instead, px_config_read("my.ini", ...) */
	if (build(&p, &err) || px_config_read(NULL, &cfg, &err) ||
	    px_solve(p, cfg, lambda, &rep, &err)) {
		fprintf(stderr, "solve_arrays: %s\n", err.msg);
		goto out;
	}
	printf("box sliding on the ground: %d contacts, mu %g, dt %g s\n",
	       N_CONTACTS, mu, dt);
	printf("contact  lambda_n    lambda_s    lambda_t\n");
	for (size_t k = 0; k < N_CONTACTS; k++)
		printf("%-7zu  %-10.6f  %-10.6f  %.6f\n", k, lambda[3 * k],
		       lambda[3 * k + 1], lambda[3 * k + 2]);
	printf("result      %s after %llu sweeps, fc3d error %.3g\n",
	       px_stop_name(rep.stop), (unsigned long long)rep.sweeps,
	       rep.merit);
	if (!rep.converged)
		printf("FAIL the solve did not converge\n");
	else if (check(lambda) == 0)
		status = 0;
	printf("%s\n", status ? "FAIL" : "ok");
out:
	px_report_free(&rep);
	px_config_free(cfg);
	px_problem_destroy(p);
	return status;
}
