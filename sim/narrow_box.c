/* The narrow phase of two boxes: the separating axis test over the 15
 * axes (3 face normals of each box, 9 cross products of their edges), then
 * for a face axis the incident face of the other box clipped against the
 * side planes of the reference face (Sutherland-Hodgman) and reduced to 4
 * points, for an edge axis one point between the two edges. This is the
 * method of Gottschalk's OBB test and Catto's Box2D-Lite / ODE's dBoxBox.
 *
 * Feature id: (axis << 9) | (incident face << 6) | point.
 *   axis      0..5: face 2k + (normal along -axis k) of a is the reference;
 *             6..11: the same for b; 12 + 3i + j: edge i of a x edge j of b
 *   incident  2k + (normal along -axis k) of the other box, 0 for edges
 *   point     face axes: 0..7, an incident face corner (bit k: on the
 *             -half[k] side of the incident box's axis k); 8 + 4l + s, the
 *             crossing of clip plane s (0, 1: +-u side of the reference
 *             face, 2, 3: +-v side) with edge l of the clipped polygon (0..3:
 *             the incident face's edges in its corner order, 4 + s': along
 *             an earlier clip plane s', i.e. a reference face corner);
 *             edge axes: 2 bits for a's edge (the sides of its two other
 *             axes, bit set on the - side), 2 more for b's edge. */
#include "narrow.h"

struct obb {
	const double *x, *h;
	double ax[3][3]; /* world axes */
};

/* A vertex of the clipped incident face: its point code and the label of
 * the edge to the next vertex. */
struct cv {
	double x[3];
	uint32_t code, edge;
};

static void obb_init(struct obb *o, const struct px_body *b)
{
	double r[9];

	quat_to_matrix(b->q, r);
	o->x = b->x;
	o->h = b->shape.half;
	for (int k = 0; k < 3; k++)
		px_axis(r, k, o->ax[k]);
}

/* Keep the part of polygon in where w.x <= off (clip plane s). */
static int clip(const struct cv *in, int n, const double w[3], double off,
		uint32_t s, struct cv *o)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		const struct cv *p = &in[i], *q = &in[(i + 1) % n];
		const double dp = v3_dot(w, p->x) - off;
		const double dq = v3_dot(w, q->x) - off;

		if (dp <= 0.0)
			o[m++] = *p;
		if ((dp <= 0.0) != (dq <= 0.0)) {
			struct cv *c = &o[m++];

			for (int k = 0; k < 3; k++)
				c->x[k] = p->x[k] +
					  (q->x[k] - p->x[k]) * dp / (dp - dq);
			c->code = 8 + 4 * p->edge + s;
			c->edge = dp <= 0.0 ? 4 + s : p->edge;
		}
	}
	return m;
}

/* Twice the signed area of triangle (a, b, c) seen along n. */
static double area(const double a[3], const double b[3], const double c[3],
		   const double n[3])
{
	double ab[3], ac[3], x[3];

	v3_sub(b, a, ab);
	v3_sub(c, a, ac);
	v3_cross(ab, ac, x);
	return v3_dot(x, n);
}

/* Keep 4 of the m > 4 points: the deepest, the farthest from it, the one
 * spanning the largest triangle with those, the one adding most area to
 * that triangle; in their original order. */
static int reduce(struct px_contact *c, int m, const double n[3])
{
	int k[4] = {0, -1, -1, -1}, sel[PX_MAX_POINTS] = {0}, j = 0;
	double best = -1.0, sg;

	for (int i = 1; i < m; i++)
		if (c[i].depth > c[k[0]].depth)
			k[0] = i;
	sel[k[0]] = 1;
	for (int i = 0; i < m; i++) {
		double d[3], d2;

		v3_sub(c[i].p, c[k[0]].p, d);
		d2 = v3_dot(d, d);
		if (!sel[i] && d2 > best) {
			best = d2;
			k[1] = i;
		}
	}
	sel[k[1]] = 1;
	best = -1.0;
	for (int i = 0; i < m; i++) {
		const double a = fabs(area(c[k[0]].p, c[k[1]].p, c[i].p, n));

		if (!sel[i] && a > best) {
			best = a;
			k[2] = i;
		}
	}
	sel[k[2]] = 1;
	/* orient the triangle counter-clockwise about n */
	sg = area(c[k[0]].p, c[k[1]].p, c[k[2]].p, n) < 0.0 ? -1.0 : 1.0;
	best = -INFINITY;
	for (int i = 0; i < m; i++) {
		double gain = -INFINITY;

		if (sel[i])
			continue;
		for (int e = 0; e < 3; e++) {
			const double a =
			    -sg *
			    area(c[k[e]].p, c[k[(e + 1) % 3]].p, c[i].p, n);

			gain = fmax(gain, a);
		}
		if (gain > best) {
			best = gain;
			k[3] = i;
		}
	}
	sel[k[3]] = 1;
	for (int i = 0; i < m; i++)
		if (sel[i])
			c[j++] = c[i];
	return j;
}

/* Points of face axis: reference face of ref with outward normal nr (from
 * ref towards inc) along its axis k; flip when ref is b. */
static int face_contact(const struct obb *ref, const struct obb *inc, int k,
			const double nr[3], uint32_t axis, int flip,
			double margin, struct px_contact *out)
{
	static const double sq[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
	const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
	struct cv pa[PX_MAX_POINTS], pb[PX_MAX_POINTS];
	double n[3], best = -1.0, si, cref;
	int mi = 0, m1, m2, cnt = 4, m = 0;
	uint32_t fi;

	for (int j = 0; j < 3; j++) {
		const double a = fabs(v3_dot(inc->ax[j], nr));

		if (a > best) {
			best = a;
			mi = j;
		}
	}
	si = v3_dot(inc->ax[mi], nr) > 0.0 ? -1.0 : 1.0;
	fi = 2 * (uint32_t)mi + (si < 0.0);
	m1 = (mi + 1) % 3;
	m2 = (mi + 2) % 3;
	for (int v = 0; v < 4; v++) {
		v3_axpy(inc->x, si * inc->h[mi], inc->ax[mi], pa[v].x);
		v3_axpy(pa[v].x, sq[v][0] * inc->h[m1], inc->ax[m1], pa[v].x);
		v3_axpy(pa[v].x, sq[v][1] * inc->h[m2], inc->ax[m2], pa[v].x);
		pa[v].code = (uint32_t)(si < 0.0) << mi |
			     (uint32_t)(sq[v][0] < 0.0) << m1 |
			     (uint32_t)(sq[v][1] < 0.0) << m2;
		pa[v].edge = (uint32_t)v;
	}

	/* the side planes: +u, -u, +v, -v of the reference face */
	for (uint32_t s = 0; s < 4 && cnt > 0; s++) {
		const int ks = s < 2 ? k1 : k2;
		const double sg = (s & 1) ? -1.0 : 1.0;
		double w[3];

		for (int i = 0; i < 3; i++)
			w[i] = sg * ref->ax[ks][i];
		cnt =
		    clip((s & 1) ? pb : pa, cnt, w,
			 v3_dot(w, ref->x) + ref->h[ks], s, (s & 1) ? pa : pb);
	}

	cref = v3_dot(nr, ref->x) + ref->h[k]; /* the reference face's plane */
	for (int i = 0; i < 3; i++)
		n[i] = flip ? -nr[i] : nr[i];
	for (int v = 0; v < cnt; v++) {
		const double depth = cref - v3_dot(nr, pa[v].x);
		const uint32_t id = axis << 9 | fi << 6 | pa[v].code;
		double y[3];

		if (depth <= -margin)
			continue;
		v3_axpy(pa[v].x, depth, nr, y);
		if (flip)
			px_point(&out[m++], n, pa[v].x, y, id);
		else
			px_point(&out[m++], n, y, pa[v].x, id);
	}
	return m > 4 ? reduce(out, m, nr) : m;
}

/* The point of edge axis ea x eb (n, unit, from a to b). */
static int edge_contact(const struct obb *a, const struct obb *b, int ea,
			int eb, const double n[3], double margin,
			struct px_contact *out)
{
	double pa[3], pb[3], sa[3], sb[3], gap[3], m[3], s, t, len;
	uint32_t code = 0;

	v3_axpy(a->x, 0.0, n, pa);
	v3_axpy(b->x, 0.0, n, pb);
	for (int q = 1; q < 3; q++) {
		const int ka = (ea + q) % 3, kb = (eb + q) % 3;
		const double da = v3_dot(a->ax[ka], n) < 0.0 ? -1.0 : 1.0;
		const double db = v3_dot(b->ax[kb], n) < 0.0 ? 1.0 : -1.0;

		v3_axpy(pa, da * a->h[ka], a->ax[ka], pa);
		v3_axpy(pb, db * b->h[kb], b->ax[kb], pb);
		code |= (uint32_t)(da < 0.0) << (q - 1);
		code |= (uint32_t)(db < 0.0) << (q + 1);
	}
	px_segments_closest(pa, a->ax[ea], a->h[ea], pb, b->ax[eb], b->h[eb],
			     &s, &t);
	v3_axpy(pa, s, a->ax[ea], sa);
	v3_axpy(pb, t, b->ax[eb], sb);
	v3_sub(sb, sa, gap);
	len = v3_norm(gap);
	if (v3_dot(gap, n) > 0.0 && len > 0.0 &&
	    (fabs(s) == a->h[ea] || fabs(t) == b->h[eb])) {
		/* apart, and an edge's end is the closest: the points'
		 * direction, not the axis, so that they lie along n */
		for (int k = 0; k < 3; k++)
			m[k] = gap[k] / len;
		n = m;
	}
	px_point(out, n, sa, sb, (uint32_t)(12 + 3 * ea + eb) << 9 | code);
	return out->depth > -margin;
}

/* s better than the best so far by more than a relative and an absolute
 * tolerance: the bias that keeps the reference face from flickering. */
static int clearly_better(double s, double best, double rel, double lin)
{
	return s > best + rel * fabs(best) + lin;
}

int px_narrow_box_box(const struct px_body *a, const struct px_body *b,
		       double margin, struct px_contact *out)
{
	struct obb A, B;
	double r[3][3], ar[3][3], t[3], d[3], le[3] = {0, 0, 0};
	double s_a = -INFINITY, s_b = -INFINITY, s_e = -INFINITY, lin;
	int ia = 0, jb = 0, ie = -1, je = -1;

	obb_init(&A, a);
	obb_init(&B, b);
	lin = 1e-3 / 3.0 *
	      fmin(A.h[0] + A.h[1] + A.h[2], B.h[0] + B.h[1] + B.h[2]);
	v3_sub(B.x, A.x, d);
	for (int i = 0; i < 3; i++) {
		t[i] = v3_dot(A.ax[i], d);
		for (int j = 0; j < 3; j++) {
			r[i][j] = v3_dot(A.ax[i], B.ax[j]);
			ar[i][j] = fabs(r[i][j]);
		}
	}

	for (int i = 0; i < 3; i++) {
		const double s = fabs(t[i]) - A.h[i] - B.h[0] * ar[i][0] -
				 B.h[1] * ar[i][1] - B.h[2] * ar[i][2];

		if (s > margin)
			return 0;
		if (s > s_a) {
			s_a = s;
			ia = i;
		}
	}
	for (int j = 0; j < 3; j++) {
		const double tb =
		    t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
		const double s = fabs(tb) - B.h[j] - A.h[0] * ar[0][j] -
				 A.h[1] * ar[1][j] - A.h[2] * ar[2][j];

		if (s > margin)
			return 0;
		if (s > s_b) {
			s_b = s;
			jb = j;
		}
	}
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			/* e_i x (column j of r), in a's frame */
			const double bj[3] = {r[0][j], r[1][j], r[2][j]};
			double e[3] = {0.0, 0.0, 0.0}, l[3], len, ra = 0.0;
			double rb = 0.0, s;

			e[i] = 1.0;
			v3_cross(e, bj, l);
			len = v3_norm(l);
			if (len < 1e-6)
				continue;
			for (int k = 0; k < 3; k++) {
				ra += A.h[k] * fabs(l[k]);
				rb += B.h[k] *
				      fabs(l[0] * r[0][k] + l[1] * r[1][k] +
					   l[2] * r[2][k]);
			}
			s = (fabs(v3_dot(t, l)) - ra - rb) / len;
			if (s > margin)
				return 0;
			if (s > s_e) {
				s_e = s;
				ie = i;
				je = j;
				for (int k = 0; k < 3; k++)
					le[k] = l[k] / len;
			}
		}
	}

	if (ie >= 0 && clearly_better(s_e, fmax(s_a, s_b), 0.05, lin)) {
		double n[3] = {0.0, 0.0, 0.0};

		if (v3_dot(t, le) < 0.0)
			for (int k = 0; k < 3; k++)
				le[k] = -le[k];
		for (int k = 0; k < 3; k++)
			v3_axpy(n, le[k], A.ax[k], n);
		return edge_contact(&A, &B, ie, je, n, margin, out);
	}
	if (clearly_better(s_b, s_a, 0.02, lin)) {
		const double tb =
		    t[0] * r[0][jb] + t[1] * r[1][jb] + t[2] * r[2][jb];
		const double sg = tb > 0.0 ? -1.0 : 1.0; /* from b towards a */
		double nr[3];

		for (int k = 0; k < 3; k++)
			nr[k] = sg * B.ax[jb][k];
		return face_contact(&B, &A, jb, nr,
				    6 + 2 * (uint32_t)jb + (sg < 0.0), 1,
				    margin, out);
	}
	{
		const double sg = t[ia] < 0.0 ? -1.0 : 1.0;
		double nr[3];

		for (int k = 0; k < 3; k++)
			nr[k] = sg * A.ax[ia][k];
		return face_contact(&A, &B, ia, nr,
				    2 * (uint32_t)ia + (sg < 0.0), 0, margin,
				    out);
	}
}
