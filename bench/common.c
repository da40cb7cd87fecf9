/* bench/common.h: the benchmark programs' shared helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

int bench_config(const char *text, struct px_config **cfg,
		 struct px_error *err)
{
	char path[] = "/tmp/px_bench_XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return px_error_set(err, PX_ERR_IO,
				    "cannot write a temporary config");
	fputs(text, f);
	fclose(f);
	rc = px_config_read(path, cfg, err);
	unlink(path);
	return rc;
}

int bench_solve(const char *who, const struct px_problem *p,
		const struct px_config *cfg, double *lambda,
		struct px_report *rep)
{
	struct px_error err = {0};

	memset(lambda, 0,
	       px_problem_n_contacts(p) * px_problem_block_size(p) *
		       sizeof *lambda);
	if (px_solve(p, cfg, lambda, rep, &err)) {
		fprintf(stderr, "%s: %s\n", who, err.msg);
		return -1;
	}
	return 0;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *bench_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
