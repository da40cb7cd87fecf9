/* The ball scenes' bodies, generated in one place: ballgrid-N and
 * ballpile-N as the scene specifications (doc/scenes.md) give them (the
 * positions and velocities, bit for bit, and the ground box). Used by the
 * scene files' [pile] (scene_gen.c), the problems built in code
 * (scene_problems.c), the tests, and bench/bullet_world.cpp, the Bullet
 * peer, which compiles this file in: plain C, no libproxima, callable from
 * C++. Spheres are indexed (k n + j) n + i, k (the layer) slowest, i
 * fastest; sphere m's centre is x[3 m .. 3 m + 2], its velocity
 * v[3 m .. 3 m + 2]. The ground box (body 0 of the scenes) is static,
 * centre gc, half extents gh: its top face is z = 0. */
#ifndef PX_SIM_BALLS_H
#define PX_SIM_BALLS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ballgrid-n: centres (2i, 2j, 1 + 2k), every neighbour touching; the
 * ground centred at (n - 1, n - 1, -1), half extents (n + 10, n + 10, 1).
 * gc and gh may be NULL. */
void px_ballgrid(size_t n, double *x, double gc[3], double gh[3]);

/* ballpile-n (n >= 1) from seed (the scenes': 12345): n planes z = 1 + 2k
 * of n^2 unit spheres in rows with random gaps, and random velocities in
 * [-0.5, 0.5)^3, from a 64-bit LCG; the ground under the widest plane
 * with a margin of 2n + 10. gc and gh may be NULL. */
void px_ballpile(size_t n, uint64_t seed, double *x, double *v, double gc[3],
		 double gh[3]);

#ifdef __cplusplus
}
#endif

#endif
