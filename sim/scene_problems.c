/* The factorized contact problem of a scene (scene_problems.h), Erleben 2017,
 * Appendix A and Catto 2005, sec. 4: for contact point p between body a and
 * body b with frame rows d = n, s, t, the rows of J_a are (d, r_a x d) with r_a
 * = p - c_a, those of J_b are -(d, r_b x d); the columns of M^-1 J^T are (d /
 * m, I^-1 (r x d)). Then the doc/scenes.md scenes built on it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "balls.h"
#include "vec.h"
#include "scene_problems.h"

/* J (3 x 6) and M^-1 J^T (6 x 3) of one side; b_row += J (v + dt g). */
static void side(const struct scene_body *body, const double frame[9],
		 const double p[3], double sign, double dt, const double g[3],
		 double *jac, double *mjt, double *b)
{
	const double r[3] = {p[0] - body->x[0], p[1] - body->x[1],
			     p[2] - body->x[2]};

	for (int row = 0; row < 3; row++) {
		const double *d = frame + 3 * row;
		double rd[3];

		v3_cross(r, d, rd);
		for (int i = 0; i < 3; i++) {
			jac[row * 6 + i] = sign * d[i];
			jac[row * 6 + 3 + i] = sign * rd[i];
			mjt[i * 3 + row] = sign * d[i] * body->inv_mass;
			mjt[(3 + i) * 3 + row] =
				sign * rd[i] * body->inv_inertia[i];
			b[row] += sign * d[i] * (body->v[i] + dt * g[i]);
		}
	}
}

/* The rigid form's body and lever arrays from the same scene. */
static int set_rigid(struct px_problem *p, const struct scene_body *bodies,
		     size_t n_bodies, const struct scene_contact *contacts,
		     const uint32_t *ba, const uint32_t *bb,
		     struct px_error *err)
{
	const size_t n = px_problem_n_contacts(p);
	double *im = malloc((n_bodies + 1) * sizeof *im);
	double *ii = calloc(9 * (n_bodies + 1), sizeof *ii);
	double *lever = calloc(6 * n, sizeof *lever);
	int rc;

	if (!im || !ii || !lever) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t b = 0; b < n_bodies; b++) {
		im[b] = bodies[b].inv_mass;
		for (int i = 0; i < 3; i++)
			ii[9 * b + 4 * i] = bodies[b].inv_inertia[i];
	}
	for (size_t k = 0; k < n; k++)
		for (int side = 0; side < 2; side++) {
			const uint32_t b = side ? bb[k] : ba[k];

			for (int i = 0; b != PX_STATIC && i < 3; i++)
				lever[6 * k + 3 * side + i] =
					contacts[k].point[i] - bodies[b].x[i];
		}
	rc = px_problem_set_rigid(p, n_bodies, im, ii, ba, bb, lever, err);
out:
	free(im);
	free(ii);
	free(lever);
	return rc;
}

int scene_problem_create(const struct scene_body *bodies, size_t n_bodies,
			 const struct scene_contact *contacts,
			 size_t n_contacts, double dt, const double g[3],
			 enum px_form form, struct px_problem **out,
			 struct px_error *err)
{
	uint32_t *ba = malloc(n_contacts * sizeof *ba);
	uint32_t *bb = malloc(n_contacts * sizeof *bb);
	double *jac = calloc(n_contacts * 36, sizeof *jac);
	double *mjt = calloc(n_contacts * 36, sizeof *mjt);
	struct px_problem *p = NULL;
	int rc;

	*out = NULL;
	if (!ba || !bb || !jac || !mjt) {
		rc = px_error_set(err, PX_ERR_NOMEM,
				  "out of memory for %zu contacts", n_contacts);
		goto out;
	}
	rc = px_problem_create(n_contacts, 3, &p, err);
	for (size_t k = 0; k < n_contacts && !rc; k++) {
		const struct scene_contact *c = &contacts[k];
		double frame[9], *b = px_problem_b(p) + 3 * k;

		v3_frame(c->normal, frame);
		ba[k] = c->a;
		bb[k] = c->b;
		side(&bodies[c->a], frame, c->point, 1.0, dt, g, jac + 36 * k,
		     mjt + 36 * k, b);
		if (c->b != PX_STATIC)
			side(&bodies[c->b], frame, c->point, -1.0, dt, g,
			     jac + 36 * k + 18, mjt + 36 * k + 18, b);
		px_problem_friction(p)[k] =
			(struct px_friction_params){c->mu, c->mu, c->mu, 0.0};
		rc = px_problem_set_geometry(p, k, c->point, frame, err);
	}
	if (!rc && form == PX_FORM_RIGID)
		rc = set_rigid(p, bodies, n_bodies, contacts, ba, bb, err);
	else if (!rc)
		rc = px_problem_set_factorized(p, n_bodies, ba, bb, jac, mjt,
					       err);
out:
	free(ba);
	free(bb);
	free(jac);
	free(mjt);
	if (rc)
		px_problem_destroy(p);
	else
		*out = p;
	return rc;
}

/* ---- the doc/scenes.md sphere scenes ------------------------------------- */

#define MU 0.5
#define DT 0.01
static const double gravity[3] = {0.0, 0.0, -9.81};

static struct scene_body unit_sphere(double x, double y, double z)
{
	/* r = 1 m, m = 1 kg: I = 2/5 m r^2 */
	return (struct scene_body){{x, y, z}, {0, 0, 0}, 1.0, {2.5, 2.5, 2.5}};
}

/* Contact of sphere a with sphere b (or the ground below a when b is
 * PX_STATIC): the point halfway, the normal from b to a. */
static struct scene_contact touch(const struct scene_body *s, uint32_t a,
				  uint32_t b)
{
	struct scene_contact c = {a, b, {0}, {0, 0, 1}, MU};

	if (b == PX_STATIC) {
		memcpy(c.point, s[a].x, sizeof c.point);
		c.point[2] -= 1.0;
		return c;
	}
	for (int i = 0; i < 3; i++) {
		c.normal[i] = s[a].x[i] - s[b].x[i];
		c.point[i] = 0.5 * (s[a].x[i] + s[b].x[i]);
	}
	{
		const double len = sqrt(c.normal[0] * c.normal[0] +
					c.normal[1] * c.normal[1] +
					c.normal[2] * c.normal[2]);

		for (int i = 0; i < 3; i++)
			c.normal[i] /= len;
	}
	return c;
}

static int build(struct scene_body *s, size_t nb, struct scene_contact *c,
		 size_t nc, enum px_form form, struct px_problem **out,
		 struct px_error *err)
{
	int rc = scene_problem_create(s, nb, c, nc, DT, gravity, form, out,
				      err);

	free(s);
	free(c);
	return rc;
}

int scene_ballgrid(size_t n, enum px_form form, struct px_problem **out,
		   struct px_error *err)
{
	const size_t nb = n * n * n, nc = 3 * n * n * (n - 1) + n * n;
	struct scene_body *s = malloc(nb * sizeof *s);
	struct scene_contact *c = malloc(nc * sizeof *c);
	double *p = malloc(3 * nb * sizeof *p);
	size_t k = 0;

	*out = NULL;
	if (!s || !c || !p) {
		free(s);
		free(c);
		free(p);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	px_ballgrid(n, p, NULL, NULL);
	for (size_t z = 0; z < n; z++)
		for (size_t y = 0; y < n; y++)
			for (size_t x = 0; x < n; x++) {
				const uint32_t i = (uint32_t)((z * n + y) * n + x);

				s[i] = unit_sphere(p[3 * i], p[3 * i + 1],
						   p[3 * i + 2]);
				if (z == 0)
					c[k++] = touch(s, i, PX_STATIC);
				if (x > 0)
					c[k++] = touch(s, i, i - 1);
				if (y > 0)
					c[k++] = touch(s, i, (uint32_t)(i - n));
				if (z > 0)
					c[k++] = touch(s, i, (uint32_t)(i - n * n));
			}
	free(p);
	return build(s, nb, c, k, form, out, err);
}

int scene_ballpile(size_t n, enum px_form form, struct px_problem **out,
		   struct px_error *err)
{
	const size_t nb = n * n * n, cap = 2 * n * n * (n - 1) + n * n;
	struct scene_body *s = malloc(nb * sizeof *s);
	struct scene_contact *c = malloc(cap * sizeof *c);
	double *p = malloc(6 * nb * sizeof *p), *v = p + 3 * nb;
	size_t k = 0;

	*out = NULL;
	if (!s || !c || !p) {
		free(s);
		free(c);
		free(p);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	px_ballpile(n, 12345, p, v, NULL, NULL);
	for (size_t i = 0; i < nb; i++) {
		s[i] = unit_sphere(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
		memcpy(s[i].v, v + 3 * i, sizeof s[i].v);
	}
	/* in-plane neighbours that touch (gap 0: distance 2 up to
	 * rounding), and the bottom plane on the ground */
	for (size_t z = 0; z < n; z++)
		for (size_t y = 0; y < n; y++)
			for (size_t x = 0; x < n; x++) {
				const uint32_t i = (uint32_t)((z * n + y) * n + x);

				if (z == 0)
					c[k++] = touch(s, i, PX_STATIC);
				if (x > 0 && p[3 * i] - p[3 * (i - 1)] <= 2.0 + 1e-9)
					c[k++] = touch(s, i, i - 1);
				if (y > 0 &&
				    p[3 * i + 1] - p[3 * (i - n) + 1] <= 2.0 + 1e-9)
					c[k++] = touch(s, i, (uint32_t)(i - n));
			}
	free(p);
	return build(s, nb, c, k, form, out, err);
}

/* ---- Silcowitz et al.'s (2010) test cases (Fig. 2 d, e) ------------------ */

/* A solid box at rest: centre c, half extents h, mass. */
static struct scene_body box_body(const double c[3], const double h[3],
				  double mass)
{
	return (struct scene_body){
		{c[0], c[1], c[2]},
		{0.0, 0.0, 0.0},
		1.0 / mass,
		{3.0 / (mass * (h[1] * h[1] + h[2] * h[2])),
		 3.0 / (mass * (h[0] * h[0] + h[2] * h[2])),
		 3.0 / (mass * (h[0] * h[0] + h[1] * h[1]))},
	};
}

/* The four corner contacts of a horizontal face at height z, centred at
 * (x, y) with half extents (hx, hy): body a above body b, normal up. */
static void face_z(struct scene_contact *c, uint32_t a, uint32_t b, double x,
		   double y, double z, double hx, double hy, double mu)
{
	for (int i = 0; i < 4; i++)
		c[i] = (struct scene_contact){
			a, b,
			{x + (i & 1 ? hx : -hx), y + (i & 2 ? hy : -hy), z},
			{0.0, 0.0, 1.0}, mu};
}

int scene_heavy_on_light(double ratio, double mu, enum px_form form,
			 struct px_problem **out, struct px_error *err)
{
	static const double g[3] = {0.0, 0.0, -9.81};
	const double hs[3] = {0.25, 0.25, 0.25}, hh[3] = {1.0, 1.0, 0.25};
	struct scene_body b[5];
	struct scene_contact c[32];

	for (uint32_t i = 0; i < 4; i++) {
		const double x = i & 1 ? 0.75 : -0.75, y = i & 2 ? 0.75 : -0.75;
		const double cs[3] = {x, y, 0.25};

		b[i] = box_body(cs, hs, 1.0);
		face_z(c + 4 * i, i, PX_STATIC, x, y, 0.0, 0.25, 0.25, mu);
		face_z(c + 16 + 4 * i, 4, i, x, y, 0.5, 0.25, 0.25, mu);
	}
	{
		const double ch[3] = {0.0, 0.0, 0.75};

		b[4] = box_body(ch, hh, ratio);
	}
	return scene_problem_create(b, 5, c, 32, 1.0 / 60.0, g, form, out, err);
}

int scene_incline(size_t boxes, double angle_deg, double mu,
		  enum px_form form, struct px_problem **out,
		  struct px_error *err)
{
	const double a = angle_deg * 3.14159265358979323846 / 180.0;
	const double g[3] = {9.81 * sin(a), 0.0, -9.81 * cos(a)};
	const double h[3] = {0.5, 0.5, 0.5};
	const size_t nc = 4 * boxes + 4 * (boxes ? boxes - 1 : 0);
	struct scene_body *b = malloc(boxes * sizeof *b);
	struct scene_contact *c = malloc(nc * sizeof *c);
	size_t k = 0;
	int rc;

	*out = NULL;
	if (!b || !c) {
		free(b);
		free(c);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < boxes; i++) {
		const double x = (double)i;
		const double cb[3] = {x, 0.0, 0.5};

		b[i] = box_body(cb, h, 10.0);
		face_z(c + k, (uint32_t)i, PX_STATIC, x, 0.0, 0.0, 0.5, 0.5, mu);
		k += 4;
		/* the face shared with the box uphill (-x): normal +x from
		 * box i - 1 to box i */
		for (int j = 0; i > 0 && j < 4; j++)
			c[k++] = (struct scene_contact){
				(uint32_t)i, (uint32_t)(i - 1),
				{x - 0.5, j & 1 ? 0.5 : -0.5,
				 j & 2 ? 1.0 : 0.0},
				{1.0, 0.0, 0.0}, mu};
	}
	rc = scene_problem_create(b, boxes, c, k, 1.0 / 60.0, g, form, out,
				  err);
	free(b);
	free(c);
	return rc;
}
