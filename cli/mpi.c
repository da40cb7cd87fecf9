/* `mpirun -np P proxima solve|run ...`: under an MPI launcher, the command
 * hands over to the distributed program proxima-mpi (mpi/, issue 21), so
 * that the serial proxima never links MPI. Which program: $PROXIMA_MPI, else
 * the installed $(pkglibexecdir)/proxima-mpi. A build without MPI says so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"

/* Open MPI's launcher sets OMPI_COMM_WORLD_SIZE, MPICH's hydra PMI_SIZE. */
static int under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
	       getenv("PMIX_RANK");
}

int px_cli_mpi(int argc, char **argv)
{
	(void)argc;
	if (!under_mpirun())
		return -1;
#ifdef HAVE_MPI
	const char *prog = getenv("PROXIMA_MPI");

	if (!prog || !*prog)
		prog = PX_LIBEXECDIR "/proxima-mpi";
	argv[0] = (char *)prog;
	execv(prog, argv);
	fprintf(stderr, "proxima: %s: cannot run the distributed solver: %s\n",
		prog, strerror(errno));
#else
	fprintf(stderr, "proxima: %s: proxima was built without MPI (apt-get install libopenmpi-dev openmpi-bin)\n",
		argv[1]);
#endif
	return EXIT_BAD_INPUT;
}
