/* A solution lambda as text, one number per line (exactly: %.17g), for
 * `proxima solve --out' and its distributed twin (dist/solve_file.c). */
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
