/* The narrow phase of a box (a) and a capsule (b), in the box's frame.
 *
 * When the capsule's segment stays outside the box, the closest points of
 * the segment and the box decide: the squared distance from the segment to
 * the box is a convex piecewise quadratic in the segment's parameter, with
 * breaks where the segment crosses the planes of the box's faces, so it is
 * minimized exactly interval by interval. If the closest box point lies on a
 * face, the points are the two ends of the part of the segment above that
 * face (a capsule lying flat gives 2); on an edge the capsule is parallel
 * to, the two ends of the part along it; otherwise the closest point alone.
 * When the segment enters the box, the axis of least overlap among the
 * box's 3 face normals and the 3 cross products of the capsule's axis with
 * the box's edges (faces preferred) gives either the face's two points as
 * above or one point on the box edge closest to the segment.
 *
 * Feature ids:
 *   2f + e          face f = 2k + (normal along -axis k), segment end e
 *                   (0: lower parameter) of the part above the face, 0..11
 *   12 + 2g + e     edge g (below) the capsule lies along, its end e, 12..35
 *   36 + sum 3^k z_k  the closest point alone, z_k the clamp of axis k (0
 *                   inside the slab, 1 above +half[k], 2 below -half[k])
 *   64 + g          edge g crossed by a segment that enters the box
 * with box edge g = 4k + (on the -half[k1] side) + 2 (on the -half[k2]
 * side) for the edge along axis k, k1 = k + 1, k2 = k + 2 (mod 3). */
#include "narrow.h"

/* |u_k| above which the capsule's axis counts as parallel to an edge */
#define EDGE_PARALLEL 0.9999

/* The capsule's segment c + t u, |t| <= l, and radius in the box's frame. */
struct seg {
	double c[3], u[3], l, r;
};

struct box {
	const double *h; /* half extents */
	double rot[9];	 /* body to world */
	const double *x; /* centre */
};

static void seg_at(const struct seg *g, double t, double s[3])
{
	v3_axpy(g->c, t, g->u, s);
}

/* The squared distance from local point s to the box; q its closest point. */
static double box_dist2(const double h[3], const double s[3], double q[3])
{
	double d2 = 0.0;

	for (int i = 0; i < 3; i++) {
		q[i] = px_clamp(s[i], h[i]);
		d2 += (s[i] - q[i]) * (s[i] - q[i]);
	}
	return d2;
}

/* The parameter of the segment's point closest to the box. */
static double closest_t(const double h[3], const struct seg *g)
{
	double ts[8], s[3], q[3], best_t = -g->l, best;
	int n = 0;

	ts[n++] = -g->l;
	for (int i = 0; i < 3; i++) {
		if (fabs(g->u[i]) < 1e-15)
			continue;
		for (int sg = -1; sg <= 1; sg += 2) {
			const double t = (sg * h[i] - g->c[i]) / g->u[i];

			if (t > -g->l && t < g->l)
				ts[n++] = t;
		}
	}
	ts[n++] = g->l;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && ts[j] < ts[j - 1]; j--) {
			const double tmp = ts[j];

			ts[j] = ts[j - 1];
			ts[j - 1] = tmp;
		}
	seg_at(g, best_t, s);
	best = box_dist2(h, s, q);
	for (int k = 0; k + 1 < n; k++) {
		const double t0 = ts[k], t1 = ts[k + 1];
		double qa = 0.0, qb = 0.0, t, d2;

		if (t1 <= t0)
			continue;
		seg_at(g, 0.5 * (t0 + t1), s);
		for (int i = 0; i < 3; i++) {
			double side;

			if (s[i] > h[i])
				side = h[i];
			else if (s[i] < -h[i])
				side = -h[i];
			else
				continue;
			qa += g->u[i] * g->u[i];
			qb += (g->c[i] - side) * g->u[i];
		}
		t = qa > 0.0 ? fmin(fmax(-qb / qa, t0), t1) : t0;
		seg_at(g, t, s);
		d2 = box_dist2(h, s, q);
		if (d2 < best) {
			best = d2;
			best_t = t;
		}
	}
	return best_t;
}

/* The interval [*lo, *hi] of the segment inside the slabs |s_j| <= h_j of
 * the axes j other than `skip` (two axes for a face, one for an edge);
 * t0, a point known to be inside, keeps it from being empty. */
static void clip_slabs(const double h[3], const struct seg *g, int skip0,
		       int skip1, double t0, double *lo, double *hi)
{
	*lo = -g->l;
	*hi = g->l;
	for (int j = 0; j < 3; j++) {
		double ta, tb;

		if (j == skip0 || j == skip1 || fabs(g->u[j]) < 1e-15)
			continue;
		ta = (-h[j] - g->c[j]) / g->u[j];
		tb = (h[j] - g->c[j]) / g->u[j];
		*lo = fmax(*lo, fmin(ta, tb));
		*hi = fmin(*hi, fmax(ta, tb));
	}
	*lo = fmin(*lo, t0);
	*hi = fmax(*hi, t0);
}

/* One point from local surface points sa (box) and sb (capsule) along the
 * local normal nl (box to capsule). */
static int emit(const struct box *bx, const double nl[3], const double sa[3],
		const double sb[3], double margin, uint32_t feature,
		struct px_contact *out)
{
	double n[3], wa[3], wb[3];

	mat_mul(bx->rot, nl, n);
	mat_mul(bx->rot, sa, wa);
	mat_mul(bx->rot, sb, wb);
	v3_axpy(wa, 1.0, bx->x, wa);
	v3_axpy(wb, 1.0, bx->x, wb);
	px_point(out, n, wa, wb, feature);
	return out->depth > -margin;
}

/* The ends of the segment's part above face (axis k, side sg). */
static int face_points(const struct box *bx, const struct seg *g, int k,
		       double sg, double t0, double margin,
		       struct px_contact *out)
{
	const uint32_t f = 2 * (uint32_t)k + (sg < 0.0);
	const double tiny = 1e-9 * (1.0 + g->l);
	double nl[3] = {0.0, 0.0, 0.0}, lo, hi;
	int m = 0;

	nl[k] = sg;
	clip_slabs(bx->h, g, k, k, t0, &lo, &hi);
	for (uint32_t e = 0; e < 2; e++) {
		double s[3], sa[3], sb[3];

		if (e == 1 && hi - lo <= tiny)
			break;
		seg_at(g, e ? hi : lo, s);
		for (int i = 0; i < 3; i++) {
			sa[i] = s[i];
			sb[i] = s[i] - g->r * nl[i];
		}
		sa[k] = sg * bx->h[k];
		m += emit(bx, nl, sa, sb, margin, 2 * f + e, &out[m]);
	}
	return m;
}

/* Edge index g of the edge along axis k on the sides of point s. */
static uint32_t edge_index(int k, const double s[3])
{
	return 4 * (uint32_t)k + (s[(k + 1) % 3] < 0.0) +
	       2 * (uint32_t)(s[(k + 2) % 3] < 0.0);
}

/* A point at segment parameter t from the box's closest point; dflt is the
 * local normal used when the segment touches the box there. */
static int closest_point(const struct box *bx, const struct seg *g, double t,
			 const double dflt[3], double margin, uint32_t feature,
			 struct px_contact *out)
{
	double s[3], q[3], nl[3], sb[3], d;

	seg_at(g, t, s);
	d = sqrt(box_dist2(bx->h, s, q));
	for (int i = 0; i < 3; i++)
		nl[i] = d > 1e-12 ? (s[i] - q[i]) / d : dflt[i];
	v3_axpy(s, -g->r, nl, sb);
	return emit(bx, nl, q, sb, margin, feature, out);
}

/* The segment enters the box: separating axis of least overlap. */
static int deep(const struct box *bx, const struct seg *g, double t0,
		double margin, struct px_contact *out)
{
	const double *h = bx->h;
	double best_f = INFINITY, best_e = INFINITY, axis_e[3] = {0, 0, 0};
	double scale = h[0] + h[1] + h[2];
	int kf = 0, ke = -1;

	for (int k = 0; k < 3; k++) {
		const double ov =
		    h[k] + g->l * fabs(g->u[k]) + g->r - fabs(g->c[k]);

		if (ov < best_f) {
			best_f = ov;
			kf = k;
		}
	}
	for (int k = 0; k < 3; k++) {
		double e[3] = {0.0, 0.0, 0.0}, a[3], len, ov;

		e[k] = 1.0;
		v3_cross(g->u, e, a);
		len = v3_norm(a);
		if (len < 1e-6)
			continue;
		for (int i = 0; i < 3; i++)
			a[i] /= len;
		ov = h[0] * fabs(a[0]) + h[1] * fabs(a[1]) + h[2] * fabs(a[2]) +
		     g->r - fabs(v3_dot(g->c, a));
		if (ov < best_e) {
			best_e = ov;
			ke = k;
			for (int i = 0; i < 3; i++)
				axis_e[i] = a[i];
		}
	}
	if (ke < 0 || best_e >= best_f - 0.05 * best_f - 1e-3 * scale)
		return face_points(bx, g, kf, g->c[kf] < 0.0 ? -1.0 : 1.0, t0,
				   margin, out);

	/* the box edge along ke that reaches furthest towards the capsule */
	{
		double nl[3], p[3], ek[3] = {0.0, 0.0, 0.0}, s, t;
		double cs[3], sa[3], sb[3];
		const double sg = v3_dot(g->c, axis_e) < 0.0 ? -1.0 : 1.0;

		for (int i = 0; i < 3; i++) {
			nl[i] = sg * axis_e[i];
			p[i] = nl[i] < 0.0 ? -h[i] : h[i];
		}
		p[ke] = 0.0;
		ek[ke] = 1.0;
		px_segments_closest(g->c, g->u, g->l, p, ek, h[ke], &t, &s);
		seg_at(g, t, cs);
		v3_axpy(p, s, ek, sa);
		v3_axpy(cs, -g->r, nl, sb);
		return emit(bx, nl, sa, sb, margin, 64 + edge_index(ke, p),
			    out);
	}
}

int px_narrow_box_capsule(const struct px_body *a, const struct px_body *b,
			   double margin, struct px_contact *out)
{
	struct box bx = {.h = a->shape.half, .x = a->x};
	struct seg g = {.l = b->shape.half_length, .r = b->shape.radius};
	const double *h = bx.h;
	double d[3], u[3], s[3], q[3], nl[3], t, dist;
	int n_out = 0, k_out[3];
	uint32_t code = 0, pow3 = 1;

	quat_to_matrix(a->q, bx.rot);
	v3_sub(b->x, a->x, d);
	mat_tmul(bx.rot, d, g.c);
	px_capsule_axis(b, u);
	mat_tmul(bx.rot, u, g.u);

	t = closest_t(h, &g);
	seg_at(&g, t, s);
	dist = sqrt(box_dist2(h, s, q));
	if (dist - g.r >= margin)
		return 0;
	if (dist <= 1e-9 * (1.0 + h[0] + h[1] + h[2] + g.l))
		return deep(&bx, &g, t, margin, out);

	for (int i = 0; i < 3; i++) {
		nl[i] = (s[i] - q[i]) / dist;
		if (s[i] > h[i] || s[i] < -h[i]) {
			k_out[n_out++] = i;
			code += pow3 * (s[i] > h[i] ? 1 : 2);
		}
		pow3 *= 3;
	}
	if (n_out == 1)
		return face_points(&bx, &g, k_out[0],
				   s[k_out[0]] < 0.0 ? -1.0 : 1.0, t, margin,
				   out);
	if (n_out == 2) {
		const int k = 3 - k_out[0] - k_out[1]; /* the edge's axis */
		const uint32_t edge = edge_index(k, s);
		double lo, hi;
		int m = 0;

		if (fabs(g.u[k]) > EDGE_PARALLEL) {
			clip_slabs(h, &g, k_out[0], k_out[1], t, &lo, &hi);
			m += closest_point(&bx, &g, lo, nl, margin,
					   12 + 2 * edge, &out[m]);
			if (hi - lo > 1e-9 * (1.0 + g.l))
				m += closest_point(&bx, &g, hi, nl, margin,
						   12 + 2 * edge + 1, &out[m]);
			return m;
		}
	}
	return closest_point(&bx, &g, t, nl, margin, 36 + code, out);
}
