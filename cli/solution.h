/* Writing a solution (cli/solution.c), shared by proxima and proxima-mpi. */
#ifndef PX_CLI_SOLUTION_H
#define PX_CLI_SOLUTION_H

#include <stddef.h>

/* lambda[0..m) to path, one number per line; 0, or -1 when it cannot. */
int px_cli_write_solution(const char *path, const double *lambda, size_t m);

#endif
