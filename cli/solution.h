/* Writing a solution (text or NumPy .npy) and a run's final state
 * (cli/solution.c), shared by proxima and proxima-mpi. */
#ifndef PX_CLI_SOLUTION_H
#define PX_CLI_SOLUTION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxima/error.h>

#include "../sim/body.h"

enum { PX_SOLUTION_TEXT = 0, PX_SOLUTION_NPY = 1 };

/* The format --out writes to path, by its extension: PX_SOLUTION_TEXT for
 * .txt and .csv, PX_SOLUTION_NPY for .npy (any case); -1 for another or
 * none, with the one-line reason in msg ("--out 'x.npz': cannot write .npz
 * (writes .txt, .csv or .npy)"). Commands check before they solve. */
int px_cli_solution_format(const char *path, char *msg, size_t len);

/* lambda[0..m) to path in its format (text: one number per line, %.17g;
 * .npy: little-endian float64 of shape (m,)), under a temporary name
 * renamed into place (core/outfile.h): PX_OK, or an error in err naming
 * path and the system's reason. */
int px_cli_write_solution(const char *path, const double *lambda, size_t m,
			  struct px_error *err);

/* `proxima run --state FILE` (serial and distributed): the bodies' final
 * states as CSV, every number a C99 hexadecimal float (%a, the double
 * exactly; strtod reads it back): the header, then per body in the
 * scene's order its index there, mass (0: static), centre, orientation
 * (w, x, y, z), linear and angular velocity, and for a static body the
 * impulse its contacts gave the moving bodies over the run (N s; 0 for a
 * moving body). */
void px_cli_state_header(FILE *f);
void px_cli_state_row(FILE *f, uint64_t index, const struct px_body *b,
		      const double impulse[3]);

#endif
