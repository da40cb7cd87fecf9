/* Partitioning on rank 0 (issue 21): the contact graph of an assembled
 * problem (an edge where W couples two contacts, its block graph) cut by
 * METIS into parts of balanced contact counts with a small edge cut, or a
 * partition read from a file. */
#include <errno.h>
#include <inttypes.h>
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int px_dist_graph(size_t n, const size_t *rowptr, const uint32_t *cols,
		  int64_t **xadj_out, int64_t **adj_out, struct px_error *err)
{
	int64_t *deg = calloc(n + 1, sizeof *deg), *xadj = NULL, *adj = NULL;
	size_t nnz = rowptr[n], w;

	*xadj_out = *adj_out = NULL;
	if (!deg)
		goto nomem;
	/* both directions of every off-diagonal block, then sort and unique */
	for (size_t i = 0; i < n; i++)
		for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++)
			if (cols[e] != i) {
				deg[i + 1]++;
				deg[cols[e] + 1]++;
			}
	for (size_t i = 0; i < n; i++)
		deg[i + 1] += deg[i];
	adj = malloc((nnz ? 2 * nnz : 1) * sizeof *adj);
	xadj = calloc(n + 1, sizeof *xadj);
	if (!adj || !xadj)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++)
			if (cols[e] != i) {
				adj[deg[i]++] = cols[e];
				adj[deg[cols[e]]++] = (int64_t)i;
			}
	/* deg[i] now ends row i; rows start where the previous one ended */
	w = 0;
	for (size_t i = 0, start = 0; i < n; i++) {
		size_t end = (size_t)deg[i];

		qsort(adj + start, end - start, sizeof *adj, cmp_i64);
		xadj[i] = (int64_t)w;
		for (size_t e = start; e < end; e++)
			if (e == start || adj[e] != adj[e - 1])
				adj[w++] = adj[e];
		start = end;
	}
	xadj[n] = (int64_t)w;
	free(deg);
	*xadj_out = xadj;
	*adj_out = adj;
	return PX_OK;
nomem:
	free(deg);
	free(xadj);
	free(adj);
	return px_error_set(err, PX_ERR_NOMEM,
			    "out of memory for the contact graph");
}

int px_dist_metis(size_t n, const int64_t *xadj, const int64_t *adj,
		  int nparts, int32_t *part, struct px_error *err)
{
	idx_t nv = (idx_t)n, ncon = 1, np = nparts, cut = 0;
	idx_t options[METIS_NOPTIONS];
	idx_t *x = malloc((n + 1) * sizeof *x);
	idx_t *a = malloc(((size_t)xadj[n] + 1) * sizeof *a);
	idx_t *pt = malloc(n * sizeof *pt);
	int rc;

	if (!x || !a || !pt) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for METIS");
		goto done;
	}
	for (size_t i = 0; i <= n; i++)
		x[i] = (idx_t)xadj[i];
	for (int64_t e = 0; e < xadj[n]; e++)
		a[e] = (idx_t)adj[e];
	METIS_SetDefaultOptions(options);
	options[METIS_OPTION_SEED] = 1; /* reproducible parts */
	options[METIS_OPTION_NUMBERING] = 0;
	rc = METIS_PartGraphKway(&nv, &ncon, x, a, NULL, NULL, NULL, &np, NULL,
				 NULL, options, &cut, pt);
	if (rc != METIS_OK) {
		rc = px_error_set(err, PX_ERR_INVALID,
				  "the partitioner failed: METIS_PartGraphKway returned %d for %zu contacts in %d parts",
				  rc, n, nparts);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		part[i] = (int32_t)pt[i];
	rc = PX_OK;
done:
	free(x);
	free(a);
	free(pt);
	return rc;
}

uint64_t px_dist_cut(size_t n, const int64_t *xadj, const int64_t *adj,
		     const int32_t *part)
{
	uint64_t cut = 0;

	for (size_t i = 0; i < n; i++)
		for (int64_t e = xadj[i]; e < xadj[i + 1]; e++)
			if ((size_t)adj[e] > i && part[adj[e]] != part[i])
				cut++;
	return cut;
}

int px_dist_read_parts(const char *path, size_t n, int nparts, int32_t *part,
		       struct px_error *err)
{
	FILE *f = fopen(path, "r");
	size_t i = 0;
	long r;
	int c;

	if (!f)
		return px_error_set(err, PX_ERR_IO, "%s: cannot open: %s", path,
				    strerror(errno));
	while (i < n && fscanf(f, "%ld", &r) == 1) {
		if (r < 0 || r >= nparts) {
			fclose(f);
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: line %zu: rank %ld is out of range [0, %d)",
					    path, i + 1, r, nparts);
		}
		part[i++] = (int32_t)r;
	}
	while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t'))
		;
	fclose(f);
	if (i < n)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: expected %zu ranks (one per contact), found %zu",
				    path, n, i);
	if (c != EOF)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: more than %zu ranks (one per contact)",
				    path, n);
	return PX_OK;
}
