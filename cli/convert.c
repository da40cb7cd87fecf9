/* `proxima convert IN OUT`: rewrite a problem file in another format, the
 * input's by its content, the output's by its name (.dat, .hdf5, .h5).
 * W, q and mu come through bit for bit; a global FCLib problem is written
 * in its condensed local form. */
#include <stdio.h>
#include <string.h>

#include <proxima/proxima.h>

#include "cli.h"

int px_cli_convert(int argc, char **argv)
{
	const char *in, *out;
	enum px_file_format to;
	struct px_problem *p = NULL;
	struct px_error err = {0};
	int rc;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		printf("Usage: proxima convert IN OUT\n"
		       "Convert a problem between Siconos .dat and FCLib (.hdf5, .h5) files.\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "proxima convert: expected IN and OUT files, got %d (try 'proxima --help')\n",
			argc - 1);
		return EXIT_BAD_INPUT;
	}
	in = argv[1];
	out = argv[2];
	to = px_file_format_of_name(out);
	if (to == PX_FILE_UNKNOWN) {
		fprintf(stderr, "proxima convert: %s: unknown output format (expected a name ending in .dat, .hdf5 or .h5)\n",
			out);
		return EXIT_BAD_INPUT;
	}
	rc = px_cli_refuse_scene(in, &err);
	if (!rc)
		rc = px_problem_read(in, &p, PX_FCLIB_R_NONE, NULL, &err);
	if (!rc)
		rc = to == PX_FILE_DAT ? px_dat_write(out, p, &err)
				       : px_fclib_write(out, p, NULL, &err);
	if (rc)
		fprintf(stderr, "proxima: %s\n", err.msg);
	else
		printf("proxima: wrote %s (%zu contacts, %s)\n", out,
		       px_problem_n_contacts(p),
		       to == PX_FILE_DAT ? "Siconos .dat" : "FCLib local problem");
	px_problem_destroy(p);
	return rc ? EXIT_BAD_INPUT : EXIT_CONVERGED;
}
