/* A solution lambda as text, one number per line (exactly: %.17g), for
 * `proxima solve --out' and its distributed twin (dist/solve_file.c); a
 * run's final state (`proxima run --state', cli/run.c and
 * dist/run_scene.c). */
#include <stdio.h>

#include "solution.h"

int px_cli_write_solution(const char *path, const double *lambda, size_t m)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (size_t i = 0; i < m; i++)
		fprintf(f, "%.17g\n", lambda[i]);
	return fclose(f) == 0 ? 0 : -1;
}

void px_cli_state_header(FILE *f)
{
	fprintf(f, "body,mass,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,jx,jy,jz\n");
}

void px_cli_state_row(FILE *f, uint64_t index, const struct px_body *b,
		      const double impulse[3])
{
	const double *col[5] = {b->x, b->q, b->v, b->w, impulse};
	const int len[5] = {3, 4, 3, 3, 3};

	fprintf(f, "%llu,%a", (unsigned long long)index,
		b->is_static ? 0.0 : b->mass);
	for (int c = 0; c < 5; c++)
		for (int i = 0; i < len[c]; i++)
			fprintf(f, ",%a", col[c][i]);
	fputc('\n', f);
}
