/* The wide kernel ([solver] kernel = wide, core/kernel_wide.c): the same
 * lambda as the scalar rigid kernel where both do the same arithmetic (a
 * one-color problem, and on x86-64, where neither fuses products and
 * sums, any scene), the same lambda on every run and thread count, the
 * fc3d tolerance met on a scene, and which kernel ran reported, the
 * scalar one for ellipsoid friction. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/scene_problems.h"
#include "helpers.h"

enum { ONE_COLOR = 37 }; /* contacts: 9 groups of 4 lanes and one */

/* ONE_COLOR bodies, each resting on the static world at one contact of
 * its own: no two contacts share a body, so the conflict graph has no
 * edge and a coloring one color. Frames, levers, masses and b vary per
 * contact (a fixed sequence), some contacts separate, some slide. */
static struct px_problem *one_color_problem(void)
{
	const size_t n = ONE_COLOR;
	struct px_problem *p;
	double inv_mass[ONE_COLOR], inertia[9 * ONE_COLOR] = {0};
	double lever[6 * ONE_COLOR];
	uint32_t ba[ONE_COLOR], bb[ONE_COLOR];
	double *b;
	uint64_t x = 88172645463325252ull;

	cr_assert_eq(px_problem_create(n, 3, &p, NULL), PX_OK);
	b = px_problem_b(p);
	for (size_t k = 0; k < n; k++) {
		double u[12], fr[9], pos[3] = {(double)k, 0.0, 0.0};
		double a, c;

		for (int i = 0; i < 12; i++) { /* xorshift64, in [-1, 1) */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			u[i] = (double)(x >> 11) / 4503599627370496.0 - 1.0;
		}
		a = 0.4 * u[0];
		c = 3.0 * u[1];
		/* rows n, s, t: a rotation about z by c of one about x by a */
		fr[0] = -sin(a) * sin(c);
		fr[1] = sin(a) * cos(c);
		fr[2] = cos(a);
		fr[3] = cos(c);
		fr[4] = sin(c);
		fr[5] = 0.0;
		fr[6] = -cos(a) * sin(c);
		fr[7] = cos(a) * cos(c);
		fr[8] = -sin(a);
		cr_assert_eq(px_problem_set_geometry(p, k, pos, fr, NULL), PX_OK);
		inv_mass[k] = 1.0 + 0.5 * u[2];
		inertia[9 * k] = 2.0 + u[3];
		inertia[9 * k + 4] = 2.0 + u[4];
		inertia[9 * k + 8] = 2.0 + u[5];
		for (int i = 0; i < 3; i++) {
			lever[6 * k + i] = 0.5 * u[6 + i];
			lever[6 * k + 3 + i] = 0.0;
		}
		ba[k] = (uint32_t)k;
		bb[k] = PX_STATIC;
		b[3 * k] = -1.0 + 0.3 * u[9]; /* mostly approaching */
		b[3 * k + 1] = 2.0 * u[10];
		b[3 * k + 2] = 2.0 * u[11];
		px_problem_friction(p)[k].mu = 0.3 + 0.2 * u[3];
	}
	cr_assert_eq(px_problem_set_rigid(p, n, inv_mass, inertia, ba, bb,
					  lever, NULL),
		     PX_OK);
	return p;
}

/* lambda after the config's solve from zero, and the report's kernel. */
static double *solve_with(const struct px_problem *p, const char *text,
			  int *kernel)
{
	const size_t m = 3 * px_problem_n_contacts(p);
	struct px_config *cfg = config_from_text(text);
	double *x = calloc(m, sizeof *x);
	struct px_report rep;

	cr_assert_not_null(x);
	cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK, "%s", text);
	*kernel = rep.rigid_kernel;
	px_report_free(&rep);
	px_config_free(cfg);
	return x;
}

/* max |x - y| over max |y| (> 0). */
static double rel_diff(const double *x, const double *y, size_t m)
{
	double d = 0.0, s = 0.0;

	for (size_t i = 0; i < m; i++) {
		d = fmax(d, fabs(x[i] - y[i]));
		s = fmax(s, fabs(y[i]));
	}
	cr_assert_gt(s, 0.0);
	return d / s;
}

#define SWEEPS "[solver]\nmax_sweeps = 30\nabs_tol = 0\nrel_tol = 0\n"

Test(wide, agrees_with_the_scalar_kernel_on_one_color)
{
	struct px_problem *p = one_color_problem();
	const size_t m = 3 * px_problem_n_contacts(p);
	int kw, ks, k1;
	double *w = solve_with(p, SWEEPS "kernel = wide\n[scheduler]\nplugin = colored\nlanes = 4\n", &kw);
	double *w1 = solve_with(p, SWEEPS "kernel = wide\n[scheduler]\nplugin = sequential\n", &k1);
	double *s = solve_with(p, SWEEPS "kernel = auto\n[scheduler]\nplugin = sequential\n", &ks);

	cr_assert_eq(kw, 2);
	cr_assert_eq(k1, 2);
	cr_assert_eq(ks, 1);
	/* every contact's update is the scalar kernel's operations in its
	 * order, in 4 lanes or in 1: equal to rounding (and, without fused
	 * multiply-adds, bit for bit) */
	cr_assert_leq(rel_diff(w, s, m), 1e-14);
	cr_assert_leq(rel_diff(w1, s, m), 1e-14);
	free(w);
	free(w1);
	free(s);
	px_problem_destroy(p);
}

Test(wide, same_lambda_on_every_run_and_thread_count)
{
	static const char *const sched[] = {
		"[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nserial_below = 0\nthreads = %d\n",
		"[scheduler]\nplugin = colored\nlanes = 4\nserial_below = 0\nthreads = %d\n",
		"[scheduler]\nplugin = colored\npatches = 3\nlanes = 3\nmerge_below = 40\nserial_below = 0\nthreads = %d\n",
	};
	struct px_problem *p;

	cr_assert_eq(scene_ballgrid(6, PX_FORM_RIGID, &p, NULL), PX_OK);
	for (size_t i = 0; i < sizeof sched / sizeof *sched; i++) {
		const size_t m = 3 * px_problem_n_contacts(p);
		double *first = NULL;

		for (int t = 1; t <= 3; t++)
			for (int run = 0; run < 2; run++) {
				char text[512];
				int at = snprintf(text, sizeof text,
						  SWEEPS "kernel = wide\n"
						  "[rfactor]\nplugin = local\nnu = 1\n");
				int kernel;
				double *x;

				snprintf(text + at, sizeof text - (size_t)at,
					 sched[i], t);
				x = solve_with(p, text, &kernel);
				cr_assert_eq(kernel, 2);
				if (!first) {
					first = x;
					continue;
				}
				cr_assert(memcmp(first, x, m * sizeof *x) == 0,
					  "%s: differs by %g", text,
					  rel_diff(x, first, m));
				free(x);
			}
#if defined(__x86_64__)
		{ /* no fused multiply-adds: the scalar kernel's lambda */
			char text[512];
			int at = snprintf(text, sizeof text,
					  SWEEPS "kernel = auto\n"
					  "[rfactor]\nplugin = local\nnu = 1\n");
			int kernel;
			double *x;

			snprintf(text + at, sizeof text - (size_t)at, sched[i],
				 2);
			x = solve_with(p, text, &kernel);
			cr_assert_eq(kernel, 1);
			cr_assert(memcmp(first, x, m * sizeof *x) == 0,
				  "%s: differs by %g", text,
				  rel_diff(x, first, m));
			free(x);
		}
#endif
		free(first);
	}
	px_problem_destroy(p);
}

/* Every build of the kernel (PROXIMA_WIDE_ISA: the baseline's vectors,
 * AVX2, and AVX-512VL where the CPU has them) gives the same lambda; on
 * x86-64, without fused multiply-adds, the scalar kernel's. */
Test(wide, every_instruction_set_gives_the_same_lambda)
{
	static const char *const isa[] = {"generic", "avx2", ""};
	struct px_problem *p;
	size_t m;
	double *first = NULL;
	int kernel;

	cr_assert_eq(scene_ballgrid(6, PX_FORM_RIGID, &p, NULL), PX_OK);
	m = 3 * px_problem_n_contacts(p);
	for (size_t i = 0; i < sizeof isa / sizeof *isa; i++) {
		double *x;

		setenv("PROXIMA_WIDE_ISA", isa[i], 1);
		x = solve_with(p, SWEEPS "kernel = wide\n[rfactor]\nplugin = local\nnu = 1\n"
				      "[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
			       &kernel);
		cr_assert_eq(kernel, 2);
		if (!first) {
			first = x;
			continue;
		}
		cr_assert(memcmp(first, x, m * sizeof *x) == 0,
			  "%s: differs by %g", isa[i], rel_diff(x, first, m));
		free(x);
	}
	unsetenv("PROXIMA_WIDE_ISA");
#if defined(__x86_64__)
	{
		double *x = solve_with(p, SWEEPS "kernel = auto\n[rfactor]\nplugin = local\nnu = 1\n"
					       "[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
				       &kernel);

		cr_assert_eq(kernel, 1);
		cr_assert(memcmp(first, x, m * sizeof *x) == 0,
			  "scalar: differs by %g", rel_diff(x, first, m));
		free(x);
	}
#endif
	free(first);
	px_problem_destroy(p);
}

/* Exact local solves on balls are one projection with r = 1/D
 * (px_kernel_set_local): the wide kernel takes them too, with the scalar
 * rigid kernel's lambda (x86-64: bit for bit). */
Test(wide, takes_exact_local_solves_where_one_projection_is_exact)
{
	struct px_problem *p;
	int kw, ks;
	double *w, *s;
	size_t m;

	cr_assert_eq(scene_ballgrid(5, PX_FORM_RIGID, &p, NULL), PX_OK);
	m = 3 * px_problem_n_contacts(p);
	w = solve_with(p, SWEEPS "kernel = wide\nlocal_solve = newton\n"
			     "[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
		       &kw);
	s = solve_with(p, SWEEPS "kernel = auto\nlocal_solve = newton\n"
			     "[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
		       &ks);
	cr_assert_eq(kw, 2);
	cr_assert_eq(ks, 1);
#if defined(__x86_64__)
	cr_assert(memcmp(w, s, m * sizeof *w) == 0, "differs by %g",
		  rel_diff(w, s, m));
#else
	cr_assert_leq(rel_diff(w, s, m), 1e-12);
#endif
	free(w);
	free(s);
	px_problem_destroy(p);
}

/* p solved to the tolerance of `solver` (the [solver] lines) with the
 * friction set, colored patches on 2 threads, by the kernel; lambda. */
static double *solve_to(const struct px_problem *p, const char *solver,
			const char *friction, const char *kernel,
			struct px_report *rep)
{
	char text[640];
	struct px_config *cfg;
	double *x = calloc(3 * px_problem_n_contacts(p), sizeof *x);

	cr_assert_not_null(x);
	snprintf(text, sizeof text,
		 "[solver]\n%smax_sweeps = 100000\nkernel = %s\n"
		 "[friction]\nplugin = %s\n"
		 "[rfactor]\nplugin = local\nnu = 1\n"
		 "[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 2\nserial_below = 0\n",
		 solver, kernel, friction);
	cfg = config_from_text(text);
	cr_assert_eq(px_solve(p, cfg, x, rep, NULL), PX_OK, "%s", text);
	cr_assert(rep->converged, "%s", text);
	px_config_free(cfg);
	return x;
}

Test(wide, meets_the_fc3d_tolerance_on_a_scene)
{
	struct px_problem *p;
	struct px_report rep, ref;
	double *x, *y;

	cr_assert_eq(scene_ballpile(6, PX_FORM_RIGID, &p, NULL), PX_OK);
	/* disc: the fc3d error of the default stop test */
	x = solve_to(p, "merit = fc3d\nabs_tol = 1e-10\n", "disc", "wide",
		     &rep);
	cr_assert_eq(rep.rigid_kernel, 2);
	cr_assert_leq(rep.merit, 1e-10);
	px_report_free(&rep);
	free(x);
	/* box (fc3d measures the disc law): the general kernel's solution */
	x = solve_to(p, "merit = delta\nabs_tol = 1e-12\n", "box", "wide",
		     &rep);
	y = solve_to(p, "merit = delta\nabs_tol = 1e-12\n", "box", "auto",
		     &ref);
	cr_assert_eq(rep.rigid_kernel, 2);
	cr_assert_eq(ref.rigid_kernel, 0);
	cr_assert_leq(rel_diff(x, y, 3 * px_problem_n_contacts(p)), 1e-8);
	px_report_free(&rep);
	px_report_free(&ref);
	free(x);
	free(y);
	px_problem_destroy(p);
}

Test(wide, falls_back_to_the_scalar_kernel_for_ellipsoid_friction)
{
	struct px_problem *p;
	int kernel;
	double *x;

	cr_assert_eq(scene_ballpile(3, PX_FORM_RIGID, &p, NULL), PX_OK);
	x = solve_with(p, SWEEPS "kernel = wide\n[friction]\nplugin = ellipsoid\n", &kernel);
	cr_assert_eq(kernel, 1, "the scalar rigid kernel ran");
	free(x);
	x = solve_with(p, SWEEPS "kernel = wide\n[rfactor]\nplugin = blocked\n", &kernel);
	cr_assert_eq(kernel, 0, "block R: the general kernel ran");
	free(x);
	px_problem_destroy(p);
}

/* The wide kernel keeps each relax_lists call's contacts in lane order
 * from call to call (kernel_wide.c, the cache of groups): what changes
 * between calls must reach it. Lists rewritten in place (a random order
 * every sweep: the scheduler's lists are the same arrays with other
 * contents), a new b between two solves of one solver, and r shrunk by
 * rejected sweeps: each time the scalar kernel's lambda, bit for bit on
 * x86-64 (to rounding elsewhere). */
static void same_as_scalar(const double *w, const double *s, size_t m,
			   const char *what)
{
#if defined(__x86_64__)
	cr_assert(memcmp(w, s, m * sizeof *w) == 0, "%s: differs by %g", what,
		  rel_diff(w, s, m));
#else
	cr_assert_leq(rel_diff(w, s, m), 1e-12, "%s", what);
#endif
}

Test(wide, follows_lists_rewritten_between_calls)
{
	static const char *const sched[] = {
		"[scheduler]\nplugin = sequential\n",
		"[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
	};
	struct px_problem *p;
	size_t m;
	int kw, ks;
	char text[512];

	cr_assert_eq(scene_ballgrid(6, PX_FORM_RIGID, &p, NULL), PX_OK);
	m = 3 * px_problem_n_contacts(p);
	for (size_t i = 0; i < sizeof sched / sizeof *sched; i++) {
		double *w, *s;

		snprintf(text, sizeof text,
			 SWEEPS "kernel = wide\n[ordering]\nplugin = random\nreshuffle = every\n[rfactor]\nplugin = local\nnu = 1\n%s",
			 sched[i]);
		w = solve_with(p, text, &kw);
		snprintf(text, sizeof text,
			 SWEEPS "kernel = auto\n[ordering]\nplugin = random\nreshuffle = every\n[rfactor]\nplugin = local\nnu = 1\n%s",
			 sched[i]);
		s = solve_with(p, text, &ks);
		cr_assert_eq(kw, 2);
		cr_assert_eq(ks, 1);
		same_as_scalar(w, s, m, sched[i]);
		free(w);
		free(s);
	}
	px_problem_destroy(p);
}

/* lambda of the solver's next solve from zero, and its rejected sweeps */
static double *solve_again(struct px_solver *sv, size_t m, uint64_t *rejected)
{
	double *x = calloc(m, sizeof *x);
	struct px_report rep;

	cr_assert_not_null(x);
	cr_assert_eq(px_solver_solve(sv, x, &rep, NULL), PX_OK);
	cr_assert_eq(rep.rigid_kernel, 2);
	if (rejected)
		*rejected = rep.rejected;
	px_report_free(&rep);
	return x;
}

Test(wide, follows_a_new_b_between_solves)
{
	struct px_problem *p = one_color_problem();
	const size_t m = 3 * px_problem_n_contacts(p);
	struct px_config *cfg = config_from_text(
		SWEEPS "kernel = wide\n[rfactor]\nplugin = local\nnu = 1\n"
		       "[scheduler]\nplugin = colored\nlanes = 4\n");
	struct px_solver *sv;
	double *w, *s;
	int ks;

	cr_assert_eq(px_solver_create(p, cfg, &sv, NULL), PX_OK);
	for (int round = 0; round < 3; round++) {
		double *b = px_problem_b(p);

		w = solve_again(sv, m, NULL);
		s = solve_with(p, SWEEPS "kernel = auto\n[rfactor]\nplugin = local\nnu = 1\n"
					 "[scheduler]\nplugin = sequential\n",
			       &ks);
		cr_assert_eq(ks, 1);
		same_as_scalar(w, s, m, "b");
		free(w);
		free(s);
		/* another b: the normal rows' approach and the slip change */
		for (size_t i = 0; i < m; i++)
			b[i] = i % 3 ? -0.7 * b[i] + 0.1 : 0.9 * b[i] - 0.05;
	}
	px_solver_destroy(sv);
	px_config_free(cfg);
	px_problem_destroy(p);
}

Test(wide, follows_r_shrunk_by_rejected_sweeps)
{
	static const char rf[] =
		"[rfactor]\nplugin = global\nr = 3\nnu = 0.5\ngrowth = 1\n";
	struct px_problem *p;
	struct px_config *cfg;
	struct px_solver *sv;
	char text[512];
	uint64_t rejected;
	size_t m;
	double *w, *s;
	int ks;

	cr_assert_eq(scene_ballgrid(6, PX_FORM_RIGID, &p, NULL), PX_OK);
	m = 3 * px_problem_n_contacts(p);
	snprintf(text, sizeof text,
		 SWEEPS "max_backtracks = 20\nkernel = wide\n%s[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
		 rf);
	cfg = config_from_text(text);
	cr_assert_eq(px_solver_create(p, cfg, &sv, NULL), PX_OK);
	/* twice: the second solve starts from init's r again */
	for (int round = 0; round < 2; round++) {
		w = solve_again(sv, m, &rejected);
		cr_assert_gt(rejected, 0, "no sweep rejected: r never moved");
		snprintf(text, sizeof text,
			 SWEEPS "max_backtracks = 20\nkernel = auto\n%s[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
			 rf);
		s = solve_with(p, text, &ks);
		cr_assert_eq(ks, 1);
		same_as_scalar(w, s, m, "r");
		free(w);
		free(s);
	}
	px_solver_destroy(sv);
	px_config_free(cfg);
	px_problem_destroy(p);
}
