/* `mpirun -np P proxima solve [-c CONFIG] PROBLEM`: rank 0 reads the file,
 * partitions its contacts (METIS on W's block graph, or --partition FILE)
 * and sends each rank its part (and, with --warm-start guess|solution,
 * the file's start, of which each rank takes its own contacts' rows); the
 * ranks solve together (dsolve.c); rank 0 gathers the solution, checks
 * Siconos's fc3d error on the whole problem, reports and writes --out
 * and --save-fclib as the serial solve does. Every error is agreed on by
 * all ranks before anyone waits on a message, printed once by rank 0, and
 * every rank exits with 2. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "file_kind.h"
#include "solution.h"

static const char *const start_name[] = {
	"zero", "the file's first guess (/guesses/1/r)",
	"the file's solution (/solution/r)"};

/* Rank 0: read (with the start --warm-start names, into *start),
 * partition, pack every part and describe the cut. */
static int partition(const struct px_dist_args *a, int size,
		     struct px_problem **pp, double **start,
		     struct px_wire *parts, struct px_error *err)
{
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	int64_t *xadj = NULL, *adj = NULL;
	int32_t *part = NULL;
	size_t n;
	int rc = px_cli_refuse_scene(a->target, err);

	if (!rc)
		rc = px_problem_read(a->target, pp, a->start,
				     a->start != PX_FCLIB_R_NONE ? start : NULL,
				     err);
	if (rc)
		return rc;
	n = px_problem_n_contacts(*pp);
	if (px_problem_assembled(*pp, &rowptr, &cols, &blocks))
		return px_error_set(err, PX_ERR_INVALID, "%s: the distributed solve needs an assembled W",
				    a->target);
	if ((size_t)size > n)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: -np %d is more ranks than its %zu contacts",
				    a->target, size, n);
	printf("problem     %s: %zu contacts, %u rows each, assembled A\n",
	       a->target, n, px_problem_block_size(*pp));
	part = calloc(n, sizeof *part);
	if (!part)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	rc = px_dist_graph(n, rowptr, cols, &xadj, &adj, err);
	if (!rc && a->partition && strcmp(a->partition, "metis"))
		rc = px_dist_read_parts(a->partition, n, size, part, err);
	else if (!rc && size > 1)
		rc = px_dist_metis(n, xadj, adj, size, part, err);
	if (rc && !(a->partition && strstr(err->msg, a->partition)))
		px_dist_prefix(err, a->target);
	for (int r = 0; r < size && !rc; r++)
		rc = px_dist_pack_assembled(*pp, part, r, size, &parts[r], err);
	if (!rc)
		printf("partition   %s: cut %llu of %lld contact-graph edges\n",
		       size == 1 ? "none (one rank)" :
		       a->partition && strcmp(a->partition, "metis") ? a->partition :
		       "METIS k-way on W's block graph",
		       (unsigned long long)px_dist_cut(n, xadj, adj, part),
		       (long long)(xadj[n] / 2));
	if (!rc && a->start != PX_FCLIB_R_NONE)
		printf("start       %s\n", start_name[a->start]);
	free(xadj);
	free(adj);
	free(part);
	return rc;
}

/* Rank 0 sends parts[r] to rank r > 0; every rank ends with its own. */
static void distribute(struct px_wire *parts, struct px_wire *mine, int rank,
		       int size)
{
	if (rank == 0) {
		for (int r = 1; r < size; r++) {
			uint64_t len = parts[r].n;

			MPI_Send(&len, 1, MPI_UINT64_T, r, 10, MPI_COMM_WORLD);
			MPI_Send(parts[r].p, (int)len, MPI_BYTE, r, 11, MPI_COMM_WORLD);
			px_wire_free(&parts[r]);
		}
		*mine = parts[0];
		parts[0] = (struct px_wire){0};
		return;
	}
	uint64_t len;

	MPI_Recv(&len, 1, MPI_UINT64_T, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	mine->p = malloc(len ? len : 1);
	mine->n = mine->cap = len;
	if (!mine->p) /* drain the message, report below */
		mine->bad = 1;
	MPI_Recv(mine->p ? (void *)mine->p : (void *)&len, mine->p ? (int)len : 0,
		 MPI_BYTE, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0 gathers the whole lambda (by global contact id). */
static int gather(const struct px_dist_part *d, const double *lambda,
		  double *whole, int rank, int size)
{
	int m = (int)(d->n_own * d->bs), n = (int)d->n_own;
	int *cnt = NULL, *disp = NULL, *cnt_g = NULL, *disp_g = NULL;
	double *buf = NULL;
	uint64_t *ids = NULL;
	int rc = PX_OK;

	if (rank == 0) {
		cnt = calloc((size_t)size, sizeof *cnt);
		disp = calloc((size_t)size, sizeof *disp);
		cnt_g = calloc((size_t)size, sizeof *cnt_g);
		disp_g = calloc((size_t)size, sizeof *disp_g);
	}
	MPI_Gather(&n, 1, MPI_INT, cnt_g, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Gather(&m, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		int tot = 0, tot_g = 0;

		for (int r = 0; r < size; r++) {
			disp[r] = tot;
			disp_g[r] = tot_g;
			tot += cnt[r];
			tot_g += cnt_g[r];
		}
		buf = malloc(((size_t)tot + 1) * sizeof *buf);
		ids = malloc(((size_t)tot_g + 1) * sizeof *ids);
	}
	MPI_Gatherv(d->gid, n, MPI_UINT64_T, ids, cnt_g, disp_g, MPI_UINT64_T, 0,
		    MPI_COMM_WORLD);
	MPI_Gatherv(lambda, m, MPI_DOUBLE, buf, cnt, disp, MPI_DOUBLE, 0,
		    MPI_COMM_WORLD);
	if (rank == 0) {
		size_t at = 0;

		for (int r = 0; r < size; r++)
			for (int k = 0; k < cnt_g[r]; k++, at++)
				memcpy(whole + ids[at] * d->bs, buf + at * d->bs,
				       d->bs * sizeof *buf);
	}
	free(cnt);
	free(disp);
	free(cnt_g);
	free(disp_g);
	free(buf);
	free(ids);
	return rc;
}

/* --warm-start guess|solution (collective, after every rank holds its
 * part; rc: this rank's status so far): rank 0's *start, the whole
 * problem's rows by global contact id, to every rank. Problem files are
 * small (rank 0 reads them whole), so every rank holds the whole start
 * until px_dist_solve_own has taken its own contacts' rows. */
static int share_start(int rc, const struct px_problem *p, double **start,
		       int rank, struct px_error *err)
{
	uint64_t rows = 0;

	if ((rc = px_dist_agree(rc, err)))
		return rc;
	if (rank == 0)
		rows = px_problem_n_contacts(p) * px_problem_block_size(p);
	MPI_Bcast(&rows, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (rank != 0 && !(*start = malloc((rows + 1) * sizeof **start)))
		rc = px_error_set(err, PX_ERR_NOMEM,
				  "rank %d: out of memory for the warm start", rank);
	if ((rc = px_dist_agree(rc, err)))
		return rc;
	MPI_Bcast(*start, (int)rows, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return PX_OK;
}

static int all_finite(const double *x, size_t m)
{
	for (size_t i = 0; i < m; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

int px_dist_cmd_solve(int argc, char **argv)
{
	struct px_dist_args a;
	struct px_error err = {0};
	struct px_config *cfg = NULL;
	struct px_problem *p = NULL;
	struct px_wire *parts = NULL, mine = {0};
	struct px_dist_part d = {0};
	struct px_dist_result res = {0};
	double *lambda = NULL, *whole = NULL, *start = NULL;
	size_t m;
	int rank, size, rc, status = EXIT_BAD_INPUT;

	rc = px_dist_begin(argc, argv, 1, &a, &cfg, &rank, &size, &err);
	if (px_dist_agree(rc, &err))
		goto fail;
	if (a.help) {
		if (rank == 0)
			px_dist_usage(stdout);
		status = EXIT_CONVERGED;
		goto done;
	}
	if (rank == 0) {
		parts = calloc((size_t)size, sizeof *parts);
		rc = parts ? partition(&a, size, &p, &start, parts, &err)
			   : px_error_set(&err, PX_ERR_NOMEM, "out of memory");
	}
	if (px_dist_agree(rc, &err))
		goto fail;
	distribute(parts, &mine, rank, size);
	rc = mine.bad ? px_error_set(&err, PX_ERR_NOMEM, "rank %d: out of memory for its part", rank)
		      : px_dist_unpack_assembled(&mine, a.o.combine, &d, &err);
	if (rc && !strstr(err.msg, "rank "))
		px_dist_prefix_rank(&err, rank);
	px_wire_free(&mine);
	if (a.start != PX_FCLIB_R_NONE)
		rc = share_start(rc, p, &start, rank, &err);
	if (px_dist_solve_own(rc, &a, cfg, &d, start, &lambda, &res, &err))
		goto fail;
	if (rank == 0)
		whole = calloc(px_problem_n_contacts(p) * d.bs, sizeof *whole);
	gather(&d, lambda, whole, rank, size);
	px_dist_report(&d, &a.o, &res, "ghost contacts (copies)", cfg);
	status = res.converged ? EXIT_CONVERGED : EXIT_NOT_CONVERGED;
	if (rank == 0 && whole) {
		double fabs_, fc3d = px_merit_fc3d(p, whole, &fabs_);

		printf("fc3d error  %.3e (||F|| = %.3e; Siconos fc3d_compute_error of the gathered solution; %.3e summed over the ranks)\n",
		       fc3d, fabs_, res.fc3d);
		m = px_problem_n_contacts(p) * d.bs;
		if ((a.out || a.save_fclib) && !all_finite(whole, m)) {
			fprintf(stderr, "proxima: %s: the solution is not finite: not written\n",
				a.target);
			status = EXIT_NOT_CONVERGED;
		} else if (a.out && px_cli_write_solution(a.out, whole, m, &err)) {
			fprintf(stderr, "proxima: %s\n", err.msg);
			status = EXIT_BAD_INPUT;
		} else if (a.save_fclib && px_fclib_write(a.save_fclib, p, whole, &err)) {
			fprintf(stderr, "proxima: %s\n", err.msg);
			status = EXIT_BAD_INPUT;
		}
	}
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	goto done;
fail:
	px_dist_fail(&err);
done:
	free(res.history);
	free(lambda);
	free(whole);
	free(start);
	free(parts);
	px_dist_part_free(&d);
	px_problem_destroy(p);
	px_config_free(cfg);
	return status;
}
