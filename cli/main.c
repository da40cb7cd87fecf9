/* The proxima command: dispatch to subcommands, --help and --version. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <proxima/proxima.h>

#include "cli.h"
#include "config.h"

#ifdef HAVE_MPI
#define MPI_STATUS "built"
#else
#define MPI_STATUS "not built (libopenmpi-dev, openmpi-bin, libmetis-dev)"
#endif
#ifdef HAVE_FCLIB
#define FCLIB_STATUS "supported (libfclib)"
#else
#define FCLIB_STATUS "not supported by this build (libfclib-dev, libhdf5-dev)"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: proxima [COMMAND [OPTIONS]]\n"
		"Solve rigid-body frictional contact problems with plugin solvers.\n"
		"\n"
		"Commands:\n"
		"  (none)                 run the bundled default scene with the default\n"
		"                         config (scenes/default.ini, the defaults)\n"
		"  run [-c CONFIG ...] [--set SECTION.KEY=VALUE ...] [SCENE] [--steps N]\n"
		"      [--csv FILE.csv] [--vtk DIR]\n"
		"      [--vtk-every K] [--cache on|off] [--state FILE.csv] [--quiet]\n"
		"      [--time-limit S] [--json]\n"
		"                         simulate a scene (default: the bundled one);\n"
		"                         --csv writes per-step statistics, --vtk one\n"
		"                         .vtp frame per K steps and DIR/frames.pvd;\n"
		"                         --cache overrides the scene's warm start;\n"
		"                         --state writes the bodies' final states\n"
		"                         exactly (hexadecimal floats); --time-limit\n"
		"                         ends the run after the step in which S\n"
		"                         seconds pass\n"
		"  solve [-c CONFIG ...] [--set SECTION.KEY=VALUE ...] PROBLEM|DIR...\n"
		"        [--history FILE.csv] [--out FILE.txt|.csv|.npy]\n"
		"        [--warm-start zero|guess|solution] [--save-fclib OUT.hdf5]\n"
		"        [--time-limit S] [--json]\n"
		"                         solve a problem file (Siconos .dat or FCLib\n"
		"                         .hdf5, told apart by content), from zero or\n"
		"                         from the FCLib file's first guess or solution;\n"
		"                         --out writes the solution as text or NumPy\n"
		"                         .npy; --save-fclib writes the problem and the\n"
		"                         solution found as an FCLib file; --time-limit\n"
		"                         stops the solve after S seconds; several\n"
		"                         problems (a folder: its .dat, .hdf5, .h5\n"
		"                         files) give one row each and a summary\n"
		"  compare -c A.ini [-c B.ini ...] TARGET [--base CONFIG ...]\n"
		"          [--set SECTION.KEY=VALUE ...] [--label NAME ...] [--out DIR]\n"
		"          [--tol T[,T...]] [--steps N] [--at K[,K...]] [--whole]\n"
		"          [--drive CONFIG] [--no-plot] [--json]\n"
		"                         solve a problem file with every config, or\n"
		"                         the problems of a scene's steps K (--at, run\n"
		"                         driven by --drive, default the first -c), or\n"
		"                         run the scene once per config (--whole, the\n"
		"                         default for a scene); writes DIR (default\n"
		"                         ./compare): histories or per-step CSV,\n"
		"                         table.md, gnuplot scripts, and PNG and SVG\n"
		"                         plots when gnuplot is found ($PROXIMA_GNUPLOT\n"
		"                         or PATH) and --no-plot is not given\n"
		"  config [-c CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
		"                         print the config in effect as INI (it reads\n"
		"                         back to the same config)\n"
		"  convert IN OUT         convert a problem between .dat and FCLib\n"
		"                         (OUT's format by its name: .dat, .hdf5, .h5)\n"
		"  plugins [--describe NAME]\n"
		"                         list the plugins found, with their parameters;\n"
		"                         --describe prints one plugin's documentation and\n"
		"                         parameter table (NAME, or KIND/NAME when two\n"
		"                         kinds have it; 'solver': the [solver] section)\n"
		"  plugins --reference [--format=markdown|man] [--path-only]\n"
		"                         the configuration reference: [solver] and every\n"
		"                         plugin found, with their documentation and keys,\n"
		"                         as Markdown or man(7) text; --path-only: only\n"
		"                         the plugins of $PROXIMA_PLUGIN_PATH\n"
		"\n"
		"Configs: -c takes a path or an installed config's name (-c robust:\n"
		"conf/robust.ini of $PROXIMA_DATA_DIR or the data dir); several -c and\n"
		"--set layer in order over the defaults (conf/default.ini's settings),\n"
		"later keys winning.\n"
		"\n"
		"Options:\n"
		"  --json                 (solve, run, compare) the report as one JSON\n"
		"                         object on stdout instead of the text\n"
		"                         (proxima(1), JSON OUTPUT)\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show the version and plugin ABI\n"
		"\n"
		"Environment:\n"
		"  PROXIMA_PLUGIN_PATH    colon-separated plugin directories searched\n"
		"                         before %s\n"
		"  PROXIMA_DATA_DIR       bundled problems and configs (default %s)\n"
		"  PROXIMA_GNUPLOT        the gnuplot compare runs (empty: none)\n"
		"\n"
		"Under mpirun, solve and run hand over to the distributed solver\n"
		"($PROXIMA_MPI, default %s/proxima-mpi): %s\n"
		"FCLib files: %s\n"
		"\n"
		"SIGINT or SIGTERM stops solve (between sweeps) and run (after the step):\n"
		"the report and the outputs hold what was reached.\n"
		"\n"
		"Exit status: 0 converged, 1 did not converge (sweep limit, time limit,\n"
		"stall), 2 bad input or usage, 130/143 stopped by SIGINT/SIGTERM.\n",
		px_plugin_dir(), PX_DATADIR, PX_LIBEXECDIR, MPI_STATUS,
		FCLIB_STATUS);
}

int main(int argc, char **argv)
{
	/* a file past `ulimit -f`: a failed write (EFBIG), said and cut back
	 * to what is whole (core/outfile.h), not a core dump */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2)
		return px_cli_default();
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("proxima %s (plugin ABI %u.%u)\n", PACKAGE_VERSION,
		       PX_ABI_MAJOR, PX_ABI_MINOR);
		return 0;
	}
	if ((strcmp(argv[1], "solve") == 0 || strcmp(argv[1], "run") == 0) &&
	    px_cli_mpi(argc, argv) >= 0)
		return EXIT_BAD_INPUT; /* proxima-mpi replaced us, or could not */
	if (strcmp(argv[1], "solve") == 0)
		return px_cli_solve(argc - 1, argv + 1);
	if (strcmp(argv[1], "convert") == 0)
		return px_cli_convert(argc - 1, argv + 1);
	if (strcmp(argv[1], "run") == 0)
		return px_cli_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "compare") == 0)
		return px_cli_compare(argc - 1, argv + 1);
	if (strcmp(argv[1], "plugins") == 0)
		return px_cli_plugins(argc - 1, argv + 1);
	if (strcmp(argv[1], "config") == 0)
		return px_cli_config(argc - 1, argv + 1);
	fprintf(stderr, "proxima: unknown command '%s' (try 'proxima --help')\n",
		argv[1]);
	return EXIT_BAD_INPUT;
}
