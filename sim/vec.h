/* Small 3-vector, 3x3 matrix and quaternion helpers of the rigid-body world.
 * Quaternions are (w, x, y, z), unit, rotating body to world coordinates;
 * matrices are row-major. */
#ifndef PX_SIM_VEC_H
#define PX_SIM_VEC_H

#include <math.h>

static inline double v3_dot(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void v3_cross(const double a[3], const double b[3], double o[3])
{
	const double x = a[1] * b[2] - a[2] * b[1];
	const double y = a[2] * b[0] - a[0] * b[2];
	const double z = a[0] * b[1] - a[1] * b[0];

	o[0] = x;
	o[1] = y;
	o[2] = z;
}

static inline double v3_norm(const double a[3])
{
	return sqrt(v3_dot(a, a));
}

/* o = a + s b (o may alias a or b) */
static inline void v3_axpy(const double a[3], double s, const double b[3],
			   double o[3])
{
	for (int i = 0; i < 3; i++)
		o[i] = a[i] + s * b[i];
}

static inline void v3_sub(const double a[3], const double b[3], double o[3])
{
	for (int i = 0; i < 3; i++)
		o[i] = a[i] - b[i];
}

/* A contact frame f (rows n, s, t, orthonormal, right-handed) completing
 * the unit normal n: s = y x n normalized, or x x n when n is near y. */
static inline void v3_frame(const double n[3], double f[9])
{
	const double e[3] = {fabs(n[1]) < 0.9 ? 0.0 : 1.0,
			     fabs(n[1]) < 0.9 ? 1.0 : 0.0, 0.0};
	double len;

	for (int i = 0; i < 3; i++)
		f[i] = n[i];
	v3_cross(e, n, f + 3);
	len = v3_norm(f + 3);
	for (int i = 3; i < 6; i++)
		f[i] /= len;
	v3_cross(n, f + 3, f + 6);
}

/* R of unit quaternion q (body to world). */
static inline void quat_to_matrix(const double q[4], double r[9])
{
	const double w = q[0], x = q[1], y = q[2], z = q[3];

	r[0] = 1 - 2 * (y * y + z * z);
	r[1] = 2 * (x * y - w * z);
	r[2] = 2 * (x * z + w * y);
	r[3] = 2 * (x * y + w * z);
	r[4] = 1 - 2 * (x * x + z * z);
	r[5] = 2 * (y * z - w * x);
	r[6] = 2 * (x * z - w * y);
	r[7] = 2 * (y * z + w * x);
	r[8] = 1 - 2 * (x * x + y * y);
}

/* o = R a and o = R^T a (o must not alias a). */
static inline void mat_mul(const double r[9], const double a[3], double o[3])
{
	for (int i = 0; i < 3; i++)
		o[i] = r[3 * i] * a[0] + r[3 * i + 1] * a[1] + r[3 * i + 2] * a[2];
}

static inline void mat_tmul(const double r[9], const double a[3], double o[3])
{
	for (int i = 0; i < 3; i++)
		o[i] = r[i] * a[0] + r[3 + i] * a[1] + r[6 + i] * a[2];
}

/* q <- q normalized (the identity if q is zero). */
static inline void quat_normalize(double q[4])
{
	const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] +
			      q[3] * q[3]);

	if (n == 0.0) {
		q[0] = 1.0;
		q[1] = q[2] = q[3] = 0.0;
		return;
	}
	for (int i = 0; i < 4; i++)
		q[i] /= n;
}

/* o = a * b (Hamilton product; o must not alias a or b). */
static inline void quat_mul(const double a[4], const double b[4], double o[4])
{
	o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
	o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
	o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
	o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

#endif
