/* The proxima command's subcommands. Each returns the exit status:
 * 0 success (converged), 1 ran but did not converge, 2 bad input or usage. */
#ifndef PX_CLI_H
#define PX_CLI_H

#include "file_kind.h"

enum { EXIT_CONVERGED = 0, EXIT_NOT_CONVERGED = 1, EXIT_BAD_INPUT = 2 };

int px_cli_solve(int argc, char **argv);
int px_cli_convert(int argc, char **argv);
int px_cli_plugins(int argc, char **argv);
/* `proxima plugins --describe NAME`: NAME, KIND/NAME, KIND_NAME or solver. */
int px_cli_describe(const char *name);
/* `proxima plugins --reference [--format=markdown|man] [--path-only]`:
 * argv[0] is "--reference". */
int px_cli_reference(int argc, char **argv);
/* What `proxima plugins`, --describe and --reference say alike: the
 * [solver] section's summary, and a parameter's range ("[min, max]"), its
 * choices ("a|b|c") or "-" (neither) written into buf or returned. */
#define PX_CLI_SOLVER_SUMMARY "the [solver] section: sweep limit and stop test"
struct px_param_decl;
const char *px_cli_range_text(const struct px_param_decl *d, char *buf,
			      size_t len);
int px_cli_run(int argc, char **argv);
int px_cli_compare(int argc, char **argv);
/* `proxima config`: print the config in effect as INI. */
int px_cli_config(int argc, char **argv);
/* Under mpirun: exec proxima-mpi with argv (returns only on failure, with
 * a message printed), or say that this build has no MPI; -1 when not under
 * mpirun. */
int px_cli_mpi(int argc, char **argv);
/* The default job: run the bundled default scene with the bundled config. */
int px_cli_default(void);

/* A solve's per-sweep history as CSV (sweep,part,accepted,residual,merit,
 * seconds,work; work: sweep plus the products with A of the accelerator's
 * calls before it, in sweep equivalents), as `proxima solve --history` and
 * `proxima compare` write it, under a temporary name renamed into place
 * (core/outfile.h): PX_OK or an error in err naming path. */
struct px_report;
struct px_error;
int px_cli_write_history(const char *path, const struct px_report *rep,
			 struct px_error *err);
/* Microseconds per sweep of a solve, without the plugins' set-up and the
 * accelerator's calls. */
double px_cli_us_per_sweep(const struct px_report *rep);
/* Which relax kernel ran the full sweeps (px_report.rigid_kernel): "wide
 * rigid 3-row, 4 SIMD lanes", "rigid 3-row" or "general". */
const char *px_cli_kernel_name(const struct px_report *rep);
/* The name of an enum px_merit, as configs spell it. */
const char *px_cli_merit_name(int merit);
/* A divergence (enum px_divergence): its word in the JSON report
 * ("rfactor", "nonfinite", "none") and the text report's explanation. */
const char *px_cli_divergence_name(int diverged);
const char *px_cli_divergence_text(int diverged);

#endif
