/* Scene files (sim/scene.h): every shipped scene against the numbers of
 * doc/scenes.md and the papers (body counts, positions recomputed here from the
 * specifications, masses and inertia, geometric claims of the generators),
 * and one exact error line for everything a scene can get wrong. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/balls.h"
#include "../sim/scene.h"
#include "../sim/vec.h"
#include "helpers.h"

static struct px_body *load(const char *name, struct px_world_settings *s,
			     size_t *n)
{
	struct px_error err = {0};
	struct px_body *b;
	char p[512];

	snprintf(p, sizeof p, "%s/scenes/%s", PX_TEST_SRCDIR, name);
	cr_assert_eq(px_scene_read(p, s, &b, n, &err), PX_OK, "%s",
		     err.msg);
	return b;
}

static void assert_at(const struct px_body *b, double x, double y, double z,
		      double tol)
{
	cr_assert(fabs(b->x[0] - x) <= tol && fabs(b->x[1] - y) <= tol &&
			  fabs(b->x[2] - z) <= tol,
		  "body at (%.17g, %.17g, %.17g), expected (%g, %g, %g)",
		  b->x[0], b->x[1], b->x[2], x, y, z);
}

/* doc/scenes.md's ground: a static axis-aligned box, top face z = 0. */
static void assert_ground(const struct px_body *g, double cx, double cy,
			  double hx, double hy)
{
	cr_assert(g->is_static);
	cr_assert_eq(g->shape.kind, PX_BOX);
	cr_assert_eq(g->mass, 0.0);
	assert_at(g, cx, cy, -1.0, 0.0);
	cr_assert(g->shape.half[0] == hx && g->shape.half[1] == hy &&
		  g->shape.half[2] == 1.0);
	cr_assert_eq(g->q[0], 1.0);
}

static const struct {
	const char *name;
	size_t bodies;
} shipped[] = {
	{"default.ini", 513},      {"ballgrid-8.ini", 513},
	{"ballgrid-24.ini", 13825}, {"ballgrid-40.ini", 64001},
	{"ballpile-8.ini", 513},   {"ballpile-24.ini", 13825},
	{"ballpile-40.ini", 64001}, {"boxstack-10.ini", 11},
	{"boxstack-20.ini", 21},   {"boxstack-40.ini", 41},
	{"boxstack-40-substeps.ini", 41},
	{"boxstack-10-003.ini", 11}, {"heavyonlight.ini", 3},
	{"heavyonlight-4.ini", 6}, {"incline.ini", 5},
	{"wall.ini", 106},         {"wall-81.ini", 81},
	{"tower.ini", 49},         {"cardhouse.ini", 41},
	{"spin-sphere.ini", 2},    {"spin-disc.ini", 2},
	{"ballpile-10.ini", 1001}, {"ballpile-12-001.ini", 1729},
};

/* Every scene reads, has its count, the ground (or the incline) as body 0
 * and only it static; every .ini in scenes/ is listed above and installed
 * by Makefile.am. */
Test(scene, shipped_scenes_and_their_body_counts)
{
	const size_t n_shipped = sizeof shipped / sizeof *shipped;
	char dir[512], mk[512];
	struct dirent *d;
	char *makefile;
	long len;
	FILE *f;
	DIR *dp;

	for (size_t i = 0; i < n_shipped; i++) {
		struct px_world_settings s;
		size_t n;
		struct px_body *b = load(shipped[i].name, &s, &n);

		cr_expect_eq(n, shipped[i].bodies, "%s: %zu bodies",
			     shipped[i].name, n);
		cr_expect(b[0].is_static, "%s: body 0 moves", shipped[i].name);
		for (size_t k = 1; k < n; k++)
			if (b[k].is_static || !(b[k].mass > 0.0)) {
				cr_expect_fail("%s: body %zu is static",
					       shipped[i].name, k);
				break;
			}
		free(b);
	}
	snprintf(mk, sizeof mk, "%s/Makefile.am", PX_TEST_SRCDIR);
	f = fopen(mk, "r");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	makefile = calloc(1, (size_t)len + 1);
	cr_assert_eq(fread(makefile, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	snprintf(dir, sizeof dir, "%s/scenes", PX_TEST_SRCDIR);
	dp = opendir(dir);
	cr_assert_not_null(dp);
	while ((d = readdir(dp))) {
		const size_t l = strlen(d->d_name);
		char entry[300];
		size_t i;

		if (l < 4 || strcmp(d->d_name + l - 4, ".ini"))
			continue;
		for (i = 0; i < n_shipped; i++)
			if (!strcmp(shipped[i].name, d->d_name))
				break;
		cr_expect_lt(i, n_shipped, "scenes/%s is not tested",
			     d->d_name);
		snprintf(entry, sizeof entry, "scenes/%s", d->d_name);
		cr_expect_not_null(strstr(makefile, entry),
				   "%s is not in Makefile.am", entry);
	}
	closedir(dp);
	free(makefile);
}

Test(scene, ballgrid_as_scenes_md_says)
{
	struct px_world_settings s;
	size_t n;
	struct px_body *b = load("ballgrid-8.ini", &s, &n);

	cr_assert_eq(n, 513);
	cr_assert_eq(s.dt, 0.01);
	cr_assert_eq(s.steps, 200);
	cr_assert(s.gravity[0] == 0 && s.gravity[1] == 0 &&
		  s.gravity[2] == -9.81);
	assert_ground(&b[0], 7.0, 7.0, 18.0, 18.0);
	for (size_t k = 0; k < 8; k++)
		for (size_t j = 0; j < 8; j++)
			for (size_t i = 0; i < 8; i++) {
				const struct px_body *o = &b[1 + (k * 8 + j) * 8 + i];

				assert_at(o, 2.0 * i, 2.0 * j, 1.0 + 2.0 * k, 0.0);
				cr_assert_eq(o->shape.kind, PX_SPHERE);
				cr_assert_eq(o->shape.radius, 1.0);
				cr_assert_eq(o->mass, 1.0);
				cr_assert_float_eq(o->inertia[2], 0.4, 1e-15);
				cr_assert_eq(o->mu, 0.5);
				cr_assert_eq(o->restitution, 0.0);
				cr_assert_eq(v3_norm(o->v), 0.0);
			}
	assert_at(&b[512], 14.0, 14.0, 15.0, 0.0); /* the tracked sphere */
	free(b);
	b = load("ballgrid-40.ini", &s, &n);
	assert_ground(&b[0], 39.0, 39.0, 50.0, 50.0);
	assert_at(&b[n - 1], 78.0, 78.0, 79.0, 0.0);
	cr_assert_eq(s.steps, 50);
	free(b);
}

/* sim/balls.c's ballpile-3 (seed 12345) against the specification: the
 * planes' rows X_k and Y_k, spheres 0, 1 and 26's velocities and the
 * ground, computed once from the specification's text alone with Debian's
 * python3 (its floats are IEEE doubles, rounded as C's; the script draws
 * with s = (s * 6364136223846793005 + 1442695040888963407) % 2**64 and
 * (s >> 11) * 2.0**-53) and printed with float.hex(). Both kinds of gap
 * occur (X_0: 0.384 then 0, Y_2: 0 then 0.312). A tolerance of 1e-13
 * leaves a compiler room to fuse 0.05 + 0.4 u into one rounding. */
Test(scene, ballpile_generator_against_the_specification)
{
	static const double X[3][3] = {
		{0x1.c0d57f10c8940p-4, 0x1.3f373fc772bb1p+1, 0x1.1f9b9fe3b95d8p+2},
		{0x1.815e815a91540p-3, 0x1.26c2fdd7ef154p+1, 0x1.22d101b037f8ap+2},
		{0x1.8634f921ffed4p-2, 0x1.30c69f243ffdap+1, 0x1.18634f921ffedp+2}};
	static const double Y[3][3] = {
		{0x1.0fc129bb394f4p-2, 0x1.5103f00f12755p+1, 0x1.4093873e8376dp+2},
		{0x1.fae0a45d263efp-1, 0x1.7eb82917498fcp+1, 0x1.4c26228855dcdp+2},
		{0x1.734562e85a9dap-2, 0x1.2e68ac5d0b53bp+1, 0x1.2b31b5730f5f4p+2}};
	static const struct {
		size_t m;
		double v[3];
	} vel[] = {
		{0, {0x1.bc2b91f2e4e00p-7, 0x1.6accc08a92e72p-2, -0x1.f234aa7768adcp-3}},
		{1, {-0x1.a78f582e808f8p-3, -0x1.7fa1809ebeb60p-5, 0x1.ccc20b051b8f4p-2}},
		{26, {-0x1.69d851da909a8p-2, 0x1.1bff13f40b83ap-2, 0x1.7e5912d2d1fc0p-3}}};
	const double gc[3] = {0x1.22d101b037f8ap+1, 0x1.4c26228855dcdp+1, -1.0};
	const double gh[3] = {0x1.245a203606ff1p+4, 0x1.2984c4510abbap+4, 1.0};
	double x[81], v[81], c[3], h[3];

	px_ballpile(3, 12345, x, v, c, h);
	for (size_t k = 0; k < 3; k++)
		for (size_t j = 0; j < 3; j++)
			for (size_t i = 0; i < 3; i++) {
				const double *p = x + 3 * ((k * 3 + j) * 3 + i);

				cr_assert_float_eq(p[0], X[k][i], 1e-13);
				cr_assert_float_eq(p[1], Y[k][j], 1e-13);
				cr_assert_eq(p[2], 1.0 + 2.0 * k);
			}
	for (size_t q = 0; q < sizeof vel / sizeof *vel; q++)
		for (int d = 0; d < 3; d++)
			cr_assert_float_eq(v[3 * vel[q].m + d], vel[q].v[d],
					   1e-13, "sphere %zu", vel[q].m);
	for (int d = 0; d < 3; d++) {
		cr_assert_float_eq(c[d], gc[d], 1e-13);
		cr_assert_float_eq(h[d], gh[d], 1e-13);
	}
	/* and the ball grid's lattice, from the specification's formula */
	px_ballgrid(3, x, c, h);
	for (size_t m = 0; m < 27; m++)
		cr_assert(x[3 * m] == 2.0 * (m % 3) &&
			  x[3 * m + 1] == 2.0 * (m / 3 % 3) &&
			  x[3 * m + 2] == 1.0 + 2.0 * (m / 9));
	cr_assert(c[0] == 2 && c[1] == 2 && c[2] == -1);
	cr_assert(h[0] == 13 && h[1] == 13 && h[2] == 1);
}

/* A scene file's [pile] (with ground = true) holds sim/balls.c's pile:
 * the ground, then the spheres in order, unit spheres of 1 kg. */
static void check_pile(size_t n, const char *file)
{
	const size_t nb = n * n * n;
	double *x = malloc(6 * nb * sizeof *x), *v = x + 3 * nb;
	double gc[3], gh[3], touching = 0.0;
	struct px_world_settings s;
	size_t n_read;
	struct px_body *b = load(file, &s, &n_read);

	cr_assert_not_null(x);
	cr_assert_eq(n_read, nb + 1);
	px_ballpile(n, 12345, x, v, gc, gh);
	assert_ground(&b[0], gc[0], gc[1], gh[0], gh[1]);
	for (size_t m = 0; m < nb; m++) {
		const struct px_body *o = &b[1 + m];

		assert_at(o, x[3 * m], x[3 * m + 1], x[3 * m + 2], 0.0);
		cr_assert(o->v[0] == v[3 * m] && o->v[1] == v[3 * m + 1] &&
			  o->v[2] == v[3 * m + 2]);
		cr_assert_eq(o->mass, 1.0);
		cr_assert_eq(o->shape.radius, 1.0);
	}
	/* "37.5 % of in-plane neighbour pairs touch": each of the 2 n (n - 1)
	 * gaps of the planes' rows (X_k along j = 0, Y_k along i = 0) is 0
	 * with probability 0.375, the others at least 0.05 (within 4
	 * standard deviations) */
	for (size_t k = 0; k < n; k++)
		for (size_t i = 1; i < n; i++) {
			const double *p = x + 3 * k * n * n;

			touching += p[3 * i] - p[3 * (i - 1)] < 2.01;
			touching += p[3 * n * i + 1] - p[3 * n * (i - 1) + 1] < 2.01;
		}
	touching /= 2.0 * n * (n - 1);
	cr_assert(fabs(touching - 0.375) <
			  4 * sqrt(0.375 * 0.625 / (2.0 * n * (n - 1))),
		  "%.4f of the neighbours touch", touching);
	free(x);
	free(b);
}

Test(scene, ballpile_as_scenes_md_says)
{
	check_pile(8, "ballpile-8.ini");
	check_pile(40, "ballpile-40.ini");
	check_pile(10, "ballpile-10.ini");
}

/* Erleben's (2017) Spheres as doc/experiments/001-rfactors.sh runs it:
 * doc/scenes.md's pile at N = 12 with Erleben 2017, section 5's world and
 * surface. */
Test(scene, ballpile_with_001s_settings)
{
	struct px_world_settings s;
	size_t n;
	struct px_body *b;

	check_pile(12, "ballpile-12-001.ini");
	b = load("ballpile-12-001.ini", &s, &n);
	cr_assert_eq(s.stepping, PX_MOREAU);
	cr_assert_eq(s.stabilization, PX_STAB_NONE);
	cr_assert_eq(s.steps, 450);
	cr_assert_eq(s.dt, 0.01);
	for (size_t k = 0; k < n; k++)
		cr_assert(b[k].mu == 0.75 && b[k].mu_tau == 0.01 &&
				  b[k].restitution == 0.0,
			  "body %zu: mu %g, mu_tau %g", k, b[k].mu,
			  b[k].mu_tau);
	free(b);
}

Test(scene, box_stacks)
{
	struct px_world_settings s;
	size_t n;
	struct px_body *b = load("boxstack-40.ini", &s, &n);

	assert_ground(&b[0], 0.0, 0.0, 50.0, 50.0);
	cr_assert_float_eq(s.dt, 1.0 / 60.0, 1e-17);
	cr_assert_eq(s.steps, 600);
	for (size_t k = 0; k < 40; k++) {
		assert_at(&b[1 + k], 0.0, 0.0, 0.3 + 0.6 * k, 1e-12);
		cr_assert_eq(b[1 + k].mass, 110.0);
		cr_assert_float_eq(b[1 + k].inertia[0], 110.0 / 3 * 0.58, 1e-12);
		cr_assert_float_eq(b[1 + k].inertia[2], 110.0 / 3 * 0.98, 1e-12);
	}
	free(b);
	/* Catto 2005, Table 1 as the file's comment reads it */
	b = load("boxstack-10-003.ini", &s, &n);
	cr_assert_eq(s.beta, 0.05);
	cr_assert_eq(s.slop, 0.0);
	cr_assert_eq(s.gravity[2], -9.8);
	cr_assert_eq(s.stabilization, PX_STAB_BAUMGARTE);
	for (size_t k = 0; k < 10; k++) {
		assert_at(&b[1 + k], 0.0, 0.0, 0.06 + 0.3 + 0.66 * k, 1e-12);
		cr_assert_eq(b[1 + k].mu, 0.2);
	}
	free(b);
}

/* Axis-aligned boxes that do not overlap, and each rests on the ground or
 * on a box below it. */
static void assert_bond(const struct px_body *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const double *xi = b[i].x, *hi = b[i].shape.half;
		int resting = fabs(xi[2] - hi[2]) < 1e-12;

		for (size_t j = 0; j < n; j++) {
			const double *xj = b[j].x, *hj = b[j].shape.half;
			double overlap = 1.0;

			if (i == j)
				continue;
			for (int d = 0; d < 3; d++)
				overlap = fmin(overlap, hi[d] + hj[d] -
							     fabs(xi[d] - xj[d]));
			cr_assert_leq(overlap, 1e-12, "bricks %zu and %zu overlap",
				      i, j);
			if (fabs(xj[2] + hj[2] - (xi[2] - hi[2])) < 1e-12 &&
			    fabs(xi[0] - xj[0]) < hi[0] + hj[0] - 1e-9)
				resting = 1;
		}
		cr_assert(resting, "brick %zu hangs in the air", i);
	}
}

Test(scene, walls)
{
	struct px_world_settings s;
	size_t n, k = 1;
	struct px_body *b = load("wall.ini", &s, &n);

	assert_ground(&b[0], 4.5, 0.0, 50.0, 50.0);
	for (int r = 0; r < 10; r++) {
		const double z = 0.25 + 0.5 * r;

		if (r % 2 == 0) {
			for (int i = 0; i < 10; i++, k++) {
				assert_at(&b[k], i, 0.0, z, 1e-12);
				cr_assert_eq(b[k].mass, 1.0);
				cr_assert_eq(b[k].shape.half[0], 0.5);
			}
			continue;
		}
		assert_at(&b[k], -0.25, 0.0, z, 1e-12);
		cr_assert_eq(b[k].mass, 0.5);
		cr_assert_eq(b[k].shape.half[0], 0.25);
		k++;
		for (int i = 0; i < 9; i++, k++) {
			assert_at(&b[k], 0.5 + i, 0.0, z, 1e-12);
			cr_assert_eq(b[k].mass, 1.0);
		}
		assert_at(&b[k], 9.25, 0.0, z, 1e-12);
		cr_assert_float_eq(b[k].inertia[0], 0.5 / 3 * 0.125, 1e-15);
		k++;
	}
	cr_assert_eq(k, 106);
	assert_at(&b[100], 4.5, 0.0, 4.75, 1e-12); /* the tracked brick */
	assert_bond(b + 1, n - 1);
	free(b);
	b = load("wall-81.ini", &s, &n);
	assert_bond(b + 1, n - 1);
	cr_assert_eq(s.stepping, PX_MOREAU);
	cr_assert_eq(s.stabilization, PX_STAB_NONE);
	cr_assert(b[1].mu == 0.75 && b[1].mu_tau == 0.01);
	free(b);
}

/* corner (sx, sy, sz) of box b in world coordinates */
static void corner(const struct px_body *b, int sx, int sy, int sz,
		   double out[3])
{
	const double c[3] = {sx * b->shape.half[0], sy * b->shape.half[1],
			     sz * b->shape.half[2]};
	double r[9], w[3];

	quat_to_matrix(b->q, r);
	mat_mul(r, c, w);
	v3_axpy(b->x, 1.0, w, out);
}

static double lowest(const struct px_body *b, double *highest)
{
	double lo = INFINITY, hi = -INFINITY, p[3];

	for (int i = 0; i < 8; i++) {
		corner(b, i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1, p);
		lo = fmin(lo, p[2]);
		hi = fmax(hi, p[2]);
	}
	*highest = hi;
	return lo;
}

/* The card house's claims: the bottom cards stand on the ground, the two
 * cards of an A-frame meet at the top, a flat card lies on the apexes of
 * the A-frames left and right of it, and the next level stands on it. */
Test(scene, card_house)
{
	struct px_world_settings s;
	size_t n, k = 1;
	struct px_body *b = load("cardhouse.ini", &s, &n);
	double floor_z = 0.0;

	for (size_t level = 0; level < 5; level++) {
		const size_t frames = 5 - level, first = k;
		double top = 0.0;

		for (size_t f = 0; f < frames; f++, k += 2) {
			double l[3], r[3], hi_l, hi_r;

			/* inner top edges: left card's +x face, right's -x */
			corner(&b[k], 1, 1, 1, l);
			corner(&b[k + 1], -1, 1, 1, r);
			for (int d = 0; d < 3; d++)
				cr_assert_float_eq(l[d], r[d], 1e-12);
			cr_assert_float_eq(lowest(&b[k], &hi_l), floor_z, 1e-12);
			cr_assert_float_eq(lowest(&b[k + 1], &hi_r), floor_z,
					   1e-12);
			cr_assert_float_eq(hi_l, hi_r, 1e-12);
			top = hi_l;
		}
		for (size_t f = 0; f + 1 < frames; f++, k++) {
			const size_t under[2] = {first + 2 * f, first + 2 * f + 3};
			double hi;

			cr_assert_eq(b[k].q[0], 1.0);
			cr_assert_float_eq(lowest(&b[k], &hi), top, 1e-12);
			/* it covers the outer top edges of both A-frames */
			for (int u = 0; u < 2; u++) {
				double p[3];

				corner(&b[under[u]], u ? 1 : -1, 1, 1, p);
				cr_assert_float_eq(p[2], top, 1e-12);
				cr_assert_lt(fabs(p[0] - b[k].x[0]),
					     b[k].shape.half[0], "flat card %zu", k);
			}
			floor_z = hi;
		}
	}
	cr_assert_eq(k, 41);
	cr_assert_eq(n, 41);
	cr_assert_float_eq(b[1].mass, 700 * 1.0 * 0.7 * 0.02, 1e-12);
	free(b);
}

/* Rings of 8 bricks on a circle of radius 1.5, each turned along the
 * circle; the corners of a brick stay within its 45-degree sector. */
Test(scene, tower)
{
	struct px_world_settings s;
	size_t n;
	struct px_body *b = load("tower.ini", &s, &n);

	for (size_t r = 0; r < 6; r++)
		for (size_t j = 0; j < 8; j++) {
			const struct px_body *o = &b[1 + 8 * r + j];
			const double mid = M_PI / 4 * (j + 0.5 * (r % 2));
			double p[3];

			cr_assert_float_eq(hypot(o->x[0], o->x[1]), 1.5, 1e-12);
			cr_assert_float_eq(o->x[2], 0.25 + 0.5 * r, 1e-12);
			for (int c = 0; c < 8; c++) {
				double a;

				corner(o, c & 1 ? 1 : -1, c & 2 ? 1 : -1,
				       c & 4 ? 1 : -1, p);
				a = remainder(atan2(p[1], p[0]) - mid, 2 * M_PI);
				cr_assert_lt(fabs(a), M_PI / 8, "ring %zu brick %zu",
					     r, j);
			}
		}
	free(b);
}

/* The boxes lie flat on the incline: their bottom corners on the plane. */
Test(scene, incline)
{
	struct px_world_settings s;
	size_t n;
	struct px_body *b = load("incline.ini", &s, &n);
	const double *nrm = b[0].shape.normal;

	cr_assert_eq(b[0].shape.kind, PX_PLANE);
	cr_assert_float_eq(v3_norm(nrm), 1.0, 1e-15);
	cr_assert_float_eq(acos(nrm[2]) * 180 / M_PI, 20.0, 1e-12);
	cr_assert_lt(tan(acos(nrm[2])), b[1].mu);
	for (size_t k = 1; k < n; k++)
		for (int c = 0; c < 4; c++) {
			double p[3];

			corner(&b[k], c & 1 ? 1 : -1, c & 2 ? 1 : -1, -1, p);
			cr_assert_float_eq(v3_dot(p, nrm), 0.0, 1e-12);
		}
	free(b);
}

Test(scene, spinning_bodies)
{
	struct px_world_settings s;
	size_t n;
	struct px_body *b = load("spin-sphere.ini", &s, &n);

	cr_assert(b[1].w[0] == 0 && b[1].w[1] == 0 && b[1].w[2] == 10);
	cr_assert_eq(b[1].mu_tau, 0.02);
	cr_assert_eq(b[0].mu_tau, 0.02);
	assert_at(&b[1], 0, 0, b[1].shape.radius, 0);
	free(b);
	b = load("spin-disc.ini", &s, &n);
	cr_assert_eq(b[1].w[2], 20);
	cr_assert_float_eq(b[1].inertia[2], 1.0 / 6, 1e-15);
	free(b);
}

/* Mass from density by volume; inertia of a capsule against a numerical
 * integration over thin discs. */
Test(scene, mass_properties)
{
	struct px_body sph = {.shape = {.kind = PX_SPHERE, .radius = 0.5}};
	struct px_body box = {.shape = {.kind = PX_BOX, .half = {1, 2, 3}}};
	struct px_body cap = {
		.shape = {.kind = PX_CAPSULE, .radius = 0.3, .half_length = 0.7}};
	const double r = 0.3, h = 0.7, m = 2.0;
	const int steps = 200000;
	double vol = 0.0, ixx = 0.0, izz = 0.0;

	cr_assert_float_eq(px_shape_volume(&sph.shape), M_PI / 6, 1e-15);
	px_body_set_mass(&sph, 3.0);
	cr_assert_float_eq(sph.inertia[1], 0.4 * 3 * 0.25, 1e-15);
	cr_assert_eq(px_shape_volume(&box.shape), 48.0);
	px_body_set_mass(&box, 6.0);
	cr_assert_float_eq(box.inertia[0], 2.0 * 13, 1e-14);
	cr_assert_float_eq(box.inertia[1], 2.0 * 10, 1e-14);
	cr_assert_float_eq(box.inertia[2], 2.0 * 5, 1e-14);
	for (int i = 0; i < steps; i++) {
		const double z = -h - r + (i + 0.5) * 2 * (h + r) / steps;
		const double dz = 2 * (h + r) / steps, e = fabs(z) - h;
		const double rho2 = e > 0 ? r * r - e * e : r * r;
		const double area = M_PI * rho2;

		vol += area * dz;
		izz += area * rho2 / 2 * dz;
		ixx += (area * rho2 / 4 + area * z * z) * dz;
	}
	cr_assert_float_eq(px_shape_volume(&cap.shape), vol, 1e-9);
	px_body_set_mass(&cap, m);
	cr_assert_float_eq(cap.inertia[0], m * ixx / vol, 1e-8);
	cr_assert_float_eq(cap.inertia[1], m * ixx / vol, 1e-8);
	cr_assert_float_eq(cap.inertia[2], m * izz / vol, 1e-8);
}

/* Bodies of every shape from one file: defaults, overrides, rotation. */
Test(scene, bodies_of_every_shape)
{
	char path[64];
	struct px_world_settings s;
	struct px_body *b;
	struct px_error err = {0};
	size_t n;

	write_temp_ini("[world]\n"
		       "mu = 0.3\n"
		       "mu_tau = 0.01\n"
		       "stabilization = post\n"
		       "warm_start = off\n"
		       "[body floor]\n"
		       "shape = plane\n"
		       "normal = 0, 0, 2\n"
		       "position = 0, 0, -1\n"
		       "restitution = 0.5\n"
		       "[body pill]\n"
		       "shape = capsule\n"
		       "radius = 0.5\n"
		       "half_length = 1\n"
		       "rotation = 1, 0, 0, 90\n"
		       "density = 1000\n"
		       "mu = 0.9\n"
		       "[body rock]\n"
		       "shape = sphere\n"
		       "radius = 2\n"
		       "static = yes\n"
		       "[grid boxes]\n"
		       "shape = box\n"
		       "half = 0.5, 0.5, 0.5\n"
		       "count = 2, 3, 1\n"
		       "spacing = 1, 1, 1\n"
		       "origin = 10, 0, 0.5\n"
		       "velocity = 1, 0, 0\n"
		       "mass = 8\n",
		       path, sizeof path);
	cr_assert_eq(px_scene_read(path, &s, &b, &n, &err), PX_OK, "%s",
		     err.msg);
	unlink(path);
	cr_assert_eq(n, 9);
	cr_assert_eq(s.stabilization, PX_STAB_POST);
	cr_assert_eq(s.warm_start, 0);
	cr_assert_eq(s.dt, 0.01); /* px_world_settings_default's */
	cr_assert(b[0].is_static && b[0].shape.normal[2] == 1.0);
	cr_assert(b[0].mu == 0.3 && b[0].restitution == 0.5);
	cr_assert(b[1].mu == 0.9 && b[1].mu_tau == 0.01);
	cr_assert_float_eq(b[1].mass, 1000 * (M_PI * 0.25 * 2 + M_PI / 6), 1e-9);
	cr_assert_float_eq(b[1].q[0], sqrt(0.5), 1e-15);
	cr_assert_float_eq(b[1].q[1], sqrt(0.5), 1e-15);
	cr_assert(b[2].is_static && b[2].mass == 0 && b[2].inertia[0] == 0);
	assert_at(&b[3], 10, 0, 0.5, 0);
	assert_at(&b[4], 11, 0, 0.5, 0);
	assert_at(&b[5], 10, 1, 0.5, 0);
	assert_at(&b[8], 11, 2, 0.5, 0);
	cr_assert(b[8].v[0] == 1.0 && b[8].mass == 8.0);
	free(b);
}

/* [world] may come anywhere: its surface is every body's default. */
Test(scene, world_after_the_bodies)
{
	char path[64];
	struct px_world_settings s;
	struct px_body *b;
	struct px_error err = {0};
	size_t n;

	write_temp_ini("[body ball]\nshape = sphere\nradius = 1\nmass = 1\n"
		       "[world]\nmu = 0.9\ndt = 0.02\n",
		       path, sizeof path);
	cr_assert_eq(px_scene_read(path, &s, &b, &n, &err), PX_OK, "%s",
		     err.msg);
	unlink(path);
	cr_assert(n == 1 && b[0].mu == 0.9 && s.dt == 0.02);
	free(b);
}

/* ---- errors: one line, file, line, section and key ---- */

static char path[64];

/* Reading text must fail with the message fmt % path. */
static void refused(const char *text, const char *fmt)
{
	struct px_body *b = (void *)1;
	struct px_error err = {0};
	struct px_world_settings s;
	char want[2048];
	size_t n = 7;

	write_temp_ini(text, path, sizeof path);
	snprintf(want, sizeof want, fmt, path);
	cr_expect_neq(px_scene_read(path, &s, &b, &n, &err), PX_OK, "%s",
		      text);
	cr_expect_null(b);
	cr_expect_eq(n, 0);
	cr_expect_str_eq(err.msg, want);
	unlink(path);
}

#define BALL "[body ball]\nshape = sphere\nradius = 1\n"

Test(scene_errors, sections)
{
	refused("[world]\ndt = 0.01\n[bodi ball]\n",
		"%s:3: unknown section [bodi ball] (known kinds: world, body, grid, pile, stack, wall, cardhouse, tower)");
	refused(BALL "mass = 1\n[grid ball]\n",
		"%s:5: [grid ball]: duplicate section name 'ball' (first on line 1, [body ball])");
	refused("[world]\n" BALL "mass = 1\n[world]\n",
		"%s:6: [world]: repeated section (first on line 1)");
	refused("  [ bodi  x ]\n",
		"%s:1: unknown section [bodi  x] (known kinds: world, body, grid, pile, stack, wall, cardhouse, tower)");
	refused("[world moon]\n", "%s:1: [world moon]: the world has no name (expected [world])");
	refused("[body]\n", "%s:1: [body]: no name (expected [body NAME] with a one-word NAME)");
	refused("[stack a b]\n",
		"%s:1: [stack a b]: the name is not one word (expected [stack NAME] with a one-word NAME)");
	refused("dt = 1\n[world]\n", "%s:1: key 'dt' outside any section");
	refused("[world]\njunk\n",
		"%s:2: syntax error (expected [section], key = value or a comment)");
	refused("[world]\ndt = 0.01\n",
		"%s: no bodies (expected a [body], [grid], [pile], [stack], [wall], [cardhouse] or [tower] section)");
	/* inih continues a value on an indented line, even "[body b]" */
	refused("[body a]\nshape = sphere\n  [body b]\n",
		"%s:3: [body a] shape: set twice (first on line 2)");
}

Test(scene_errors, keys)
{
	refused(BALL "half = 1, 1, 1\nmass = 1\n",
		"%s:4: [body ball] half: unknown key for a sphere body (known keys: shape, radius, position, rotation, velocity, angular_velocity, mass, density, static, mu, mu_tau, restitution)");
	refused("[body floor]\nshape = plane\nnormal = 0, 0, 1\nmass = 1\n",
		"%s:4: [body floor] mass: unknown key for a plane body (known keys: shape, normal, position, static, mu, mu_tau, restitution)");
	refused("[world]\ngravitation = 0, 0, -1\n",
		"%s:2: [world] gravitation: unknown key for the world (known keys: gravity, dt, steps, stepping, stabilization, beta, slop, margin, restitution_threshold, warm_start, gyroscopic, substeps, contact_hertz, contact_damping_ratio, contact_push_velocity, mu, mu_tau, restitution)");
	refused("[pile p]\nn = 2\nradius = 2\n",
		"%s:3: [pile p] radius: unknown key for a pile (known keys: n, seed, ground, mu, mu_tau, restitution)");
	refused(BALL "mass = 1\nmass = 2\n",
		"%s:5: [body ball] mass: set twice (first on line 4)");
	refused("[body b]\nradius = 1\nmass = 1\n",
		"%s:1: [body b] shape: missing (expected sphere|box|capsule|plane)");
	refused("[body b]\nshape = sphere\nmass = 1\n",
		"%s:1: [body b] radius: missing (required for a sphere)");
	refused("[body b]\nshape = capsule\nradius = 1\nmass = 1\n",
		"%s:1: [body b] half_length: missing (required for a capsule)");
	refused("[grid g]\nshape = sphere\nradius = 1\nspacing = 2, 2, 2\nmass = 1\n",
		"%s:1: [grid g] count: missing (required for a grid)");
	refused("[stack s]\ncount = 3\nmass = 1\n",
		"%s:1: [stack s] half: missing (required for a stack)");
	refused("[pile p]\nseed = 1\n", "%s:1: [pile p] n: missing (required for a pile)");
	refused("[wall w]\nrows = 3\nhalf = 1, 1, 1\nmass = 1\n",
		"%s:1: [wall w] bricks: missing (required for a wall)");
	refused("[tower t]\nrings = 3\nbricks = 8\nhalf = 1, 1, 1\nmass = 1\n",
		"%s:1: [tower t] radius: missing (required for a tower)");
}

Test(scene_errors, values)
{
	refused(BALL "mass = heavy\n",
		"%s:4: [body ball] mass: 'heavy' is not a finite number");
	refused(BALL "mass = 1\nstatic = maybe\n",
		"%s:5: [body ball] static: 'maybe' is not a boolean (true/false, yes/no, on/off, 1/0)");
	refused("[body b]\nshape = cube\n",
		"%s:2: [body b] shape: 'cube' is not one of sphere|box|capsule|plane");
	refused("[grid g]\nshape = plane\n",
		"%s:2: [grid g] shape: 'plane' is not one of sphere|box|capsule");
	refused("[pile p]\nn = 2.5\n", "%s:2: [pile p] n: '2.5' is not an integer");
	refused("[world]\nstepping = rk4\n",
		"%s:2: [world] stepping: 'rk4' is not one of semi-implicit|moreau");
	refused("[world]\nrestitution = 2\n",
		"%s:2: [world] restitution: '2' is out of range [0, 1]");
	refused(BALL "mass = 1\nmu = -0.1\n",
		"%s:5: [body ball] mu: '-0.1' is out of range [0, 1e+300]");
	refused("[world]\ngravity = 0, -9.81\n",
		"%s:2: [world] gravity: '0, -9.81' is not 3 finite numbers (expected gx, gy, gz)");
	refused(BALL "mass = 1\nposition = 1 2 3\n",
		"%s:5: [body ball] position: '1 2 3' is not 3 finite numbers (expected x, y, z)");
	refused("[grid g]\nshape = sphere\nradius = 1\ncount = 8, 8, 0\nspacing = 2, 2, 2\nmass = 1\n",
		"%s:4: [grid g] count: '8, 8, 0' is not 3 integers in [1, 16777216] (expected nx, ny, nz)");
	refused("[grid g]\nshape = sphere\nradius = 1\ncount = 1000, 1000, 1000\nspacing = 2, 2, 2\nmass = 1\n",
		"%s:4: [grid g] count: 1000000000 more bodies are too many (expected at most 16777216 in a scene, 0 before this section)");
	/* each value finite, the inertia or mass they make not (found by
	 * tests/fuzz/scene: the world refused what the reader accepted) */
	refused("[body b]\nshape = box\nhalf = 1, 0.25, 1e300\nmass = 2\n",
		"%s:4: [body b] mass: '2' gives this shape an inertia of inf (expected positive and finite: the shape is too large or too small)");
	refused("[body b]\nshape = sphere\nradius = 1e200\ndensity = 1\n",
		"%s:4: [body b] density: '1' gives this shape a mass of inf (expected a positive, finite mass)");
	refused("[body b]\nshape = sphere\nradius = 1e-200\nmass = 1e-200\n",
		"%s:4: [body b] mass: '1e-200' gives this shape an inertia of 0 (expected positive and finite: the shape is too large or too small)");
	/* not finite */
	refused("[body b]\nshape = sphere\nradius = nan\nmass = 1\n",
		"%s:3: [body b] radius: 'nan' is not a finite number");
	refused(BALL "mass = 1\nvelocity = 0, inf, 0\n",
		"%s:5: [body ball] velocity: '0, inf, 0' is not 3 finite numbers (expected vx, vy, vz)");
	refused("[world]\ndt = -inf\n", "%s:2: [world] dt: '-inf' is not a finite number");
	/* zero or negative */
	refused("[world]\ndt = 0\n",
		"%s:2: [world] dt: '0' is not positive (expected a number > 0)");
	refused(BALL "mass = 0\n",
		"%s:4: [body ball] mass: '0' is not positive (expected a number > 0)");
	refused(BALL "density = -1\n",
		"%s:4: [body ball] density: '-1' is not positive (expected a number > 0)");
	refused("[body b]\nshape = sphere\nradius = -2\nmass = 1\n",
		"%s:3: [body b] radius: '-2' is not positive (expected a number > 0)");
	refused("[body b]\nshape = box\nhalf = 1, 0, 1\nmass = 1\n",
		"%s:3: [body b] half: '1, 0, 1' is not positive (expected hx, hy, hz, each > 0)");
	refused("[grid g]\nshape = sphere\nradius = 1\ncount = 2, 2, 2\nspacing = 2, -2, 2\nmass = 1\n",
		"%s:5: [grid g] spacing: '2, -2, 2' is not positive (expected dx, dy, dz, each > 0)");
	refused("[body p]\nshape = plane\nnormal = 0, 0, 0\n",
		"%s:3: [body p] normal: '0, 0, 0' is the zero vector (expected a nonzero nx, ny, nz)");
	refused(BALL "mass = 1\nrotation = 0, 0, 0, 30\n",
		"%s:5: [body ball] rotation: '0, 0, 0, 30' has a zero axis (expected ax, ay, az, degrees with a nonzero axis)");
}

Test(scene_errors, mass_and_static)
{
	refused(BALL "mass = 1\ndensity = 2\n",
		"%s:5: [body ball] density: mass is set too (expected exactly one of mass and density)");
	refused(BALL "density = 2\nmass = 1\n",
		"%s:5: [body ball] mass: density is set too (expected exactly one of mass and density)");
	refused(BALL,
		"%s:1: [body ball] mass: missing (expected exactly one of mass and density, or static = true)");
	refused("[stack s]\ncount = 2\nhalf = 1, 1, 1\n",
		"%s:1: [stack s] mass: missing (expected exactly one of mass and density)");
	refused(BALL "static = true\nmass = 1\n",
		"%s:5: [body ball] mass: a static body has no mass (expected no mass or density with static = true)");
	refused(BALL "static = true\nangular_velocity = 0, 0, 1\n",
		"%s:5: [body ball] angular_velocity: a static body does not move (expected no angular_velocity with static = true)");
	refused("[body floor]\nshape = plane\nnormal = 0, 0, 1\nstatic = false\n",
		"%s:4: [body floor] static: a plane is always static (expected true, found 'false')");
}

Test(scene_errors, generators)
{
	refused("[cardhouse c]\nlevels = 3\nhalf = 0.01, 0.35, 0.5\nangle = 20\nspacing = 0.5\nmass = 1\n",
		"%s:5: [cardhouse c] spacing: '0.5' is out of range [0.721628, 0.962412] (A-frames must not overlap and flat cards must reach both apexes)");
	refused("[cardhouse c]\nlevels = 3\nhalf = 0.01, 0.35, 0.5\nangle = 40\nspacing = 1\nmass = 1\n",
		"%s:4: [cardhouse c] angle: '40' is too steep for these cards (expected an angle at which flat cards can bridge A-frames that do not overlap; A-frames need a spacing >= 1.31622, flat cards reach <= 0.969358)");
	refused("[cardhouse c]\nlevels = 3\nhalf = 0.01, 0.35, 0.5\nangle = 0\nspacing = 0.5\nmass = 1\n",
		"%s:4: [cardhouse c] angle: '0' is not positive (expected a number > 0)");
	refused("[tower t]\nrings = 2\nbricks = 8\nhalf = 0.5, 0.25, 0.25\nradius = 1\nmass = 1\n",
		"%s:5: [tower t] radius: '1' lets the bricks of a ring overlap (expected radius >= 1.45711)");
	refused("[tower t]\nrings = 2\nbricks = 2\nhalf = 0.5, 0.25, 0.25\nradius = 1\nmass = 1\n",
		"%s:3: [tower t] bricks: '2' is out of range [3, 16777216]");
}

Test(scene_errors, missing_file)
{
	struct px_world_settings s;
	struct px_body *b;
	struct px_error err = {0};
	size_t n;

	cr_assert_eq(px_scene_read("/nonexistent/scene.ini", &s, &b, &n, &err),
		     PX_ERR_IO);
	cr_assert_str_eq(err.msg,
			 "/nonexistent/scene.ini: cannot open: No such file or directory");
	cr_assert_null(b);
}

/* ---- lines: read as the configs' (core/ini_lines.c, tests/test_config.c) */

/* A file saved on Windows: a UTF-8 byte order mark, CRLF line ends and no
 * line end after the last line. */
Test(scene_lines, bom_and_crlf)
{
	struct px_world_settings s;
	struct px_body *b;
	struct px_error err = {0};
	size_t n;

	write_temp_ini("\xEF\xBB\xBF[world]\r\nmu = 0.9\r\ndt = 0.02\r\n"
		       "[body ball]\r\nshape = sphere\r\nradius = 1\r\n"
		       "position = 1, 2, 3\r\nmass = 1",
		       path, sizeof path);
	cr_assert_eq(px_scene_read(path, &s, &b, &n, &err), PX_OK, "%s",
		     err.msg);
	unlink(path);
	cr_assert(n == 1 && b[0].mu == 0.9 && s.dt == 0.02);
	cr_assert(b[0].x[0] == 1 && b[0].x[1] == 2 && b[0].x[2] == 3);
	free(b);
	refused("\xEF\xBB\xBF[world]\r\ndt = 0.01\r\ndt = 0.02\r\n",
		"%s:3: [world] dt: set twice (first on line 2)");
	refused("\xEF\xBB\xBF[bogus]\r\n" BALL,
		"%s:1: unknown section [bogus] (known kinds: world, body, grid, pile, stack, wall, cardhouse, tower)");
	/* inih's blanks are isspace's: "\f[body ball]" is a header to it */
	refused("[world]\n\f" BALL "[body ball]\n",
		"%s:5: [body ball]: duplicate section name 'ball' (first on line 2, [body ball])");
}

/* The limit and the message of tests/test_config.c's line_too_long. */
Test(scene_lines, line_too_long)
{
	char text[512], line[200];

	memset(line, 'x', sizeof line);
	line[0] = ';';
	snprintf(text, sizeof text, "[world]\n%.198s\n[world]\n", line);
	refused(text, "%s:3: [world]: repeated section (first on line 1)");
	snprintf(text, sizeof text, "[world]\r\n%.198s\r\n" BALL, line);
	refused(text, "%s:2: line too long (at most 198 bytes)");
	snprintf(text, sizeof text, BALL "mass = 1\n%.199s", line);
	refused(text, "%s:5: line too long (at most 198 bytes)");
}

Test(scene_lines, a_directory)
{
	char dir[] = "/tmp/px_test_dir_XXXXXX", want[128];
	struct px_world_settings s;
	struct px_body *b;
	struct px_error err = {0};
	size_t n;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(px_scene_read(dir, &s, &b, &n, &err), PX_ERR_IO, "%s",
		     err.msg);
	rmdir(dir);
	snprintf(want, sizeof want, "%s: cannot read: Is a directory", dir);
	cr_assert_str_eq(err.msg, want);
	cr_assert_null(b);
}
