/* The ball scenes' bodies (balls.h). */
#include <math.h>

#include "balls.h"

static void set3(double *out, double a, double b, double c)
{
	if (out) {
		out[0] = a;
		out[1] = b;
		out[2] = c;
	}
}

void px_ballgrid(size_t n, double *x, double gc[3], double gh[3])
{
	const double m = (double)n;

	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++)
				set3(x + 3 * ((k * n + j) * n + i), 2.0 * (double)i,
				     2.0 * (double)j, 1.0 + 2.0 * (double)k);
	set3(gc, m - 1.0, m - 1.0, -1.0);
	set3(gh, m + 10.0, m + 10.0, 1.0);
}

/* The generator: s = s 6364136223846793005 + 1442695040888963407 (mod
 * 2^64), then (s >> 11) 2^-53, in [0, 1). */
static double draw(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (double)(*s >> 11) * 0x1p-53;
}

/* A row of a plane after its first coordinate p[0]: p[i] = p[i - 1] + 2 +
 * g, every `stride` doubles, g = 0 when a draw is below 0.375, else 0.05 +
 * 0.4 u (a second draw). */
static void row(uint64_t *s, double *p, size_t stride, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		const double g = draw(s) < 0.375 ? 0.0 : 0.05 + 0.4 * draw(s);

		p[i * stride] = p[(i - 1) * stride] + 2.0 + g;
	}
}

void px_ballpile(size_t n, uint64_t seed, double *x, double *v, double gc[3],
		 double gh[3])
{
	const double pad = 2.0 * (double)n + 10.0;
	double max_x = -INFINITY, max_y = -INFINITY;
	uint64_t s = seed;

	/* Plane k's X_k[0], Y_k[0], X_k[1..], Y_k[1..], every plane first:
	 * X_k[i] kept as the x of sphere (i, 0, k), Y_k[j] as the y of sphere
	 * (0, j, k), which no sphere overwrites below before it is read. */
	for (size_t k = 0; k < n; k++) {
		double *p = x + 3 * k * n * n;

		p[0] = draw(&s);
		p[1] = draw(&s);
		row(&s, p, 3, n);
		row(&s, p + 1, 3 * n, n);
		max_x = fmax(max_x, p[3 * (n - 1)]);
		max_y = fmax(max_y, p[3 * n * (n - 1) + 1]);
	}
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++) {
				const size_t m = (k * n + j) * n + i;
				const double *p = x + 3 * k * n * n;

				set3(x + 3 * m, p[3 * i], p[3 * n * j + 1],
				     1.0 + 2.0 * (double)k);
				for (int d = 0; d < 3; d++)
					v[3 * m + d] = draw(&s) - 0.5;
			}
	set3(gc, max_x / 2.0, max_y / 2.0, -1.0);
	set3(gh, max_x / 2.0 + pad, max_y / 2.0 + pad, 1.0);
}
