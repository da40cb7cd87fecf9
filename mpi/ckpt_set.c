/* Checkpoint sets of a distributed run (issue 35, ckpt_set.h): every
 * rank's file in the serial format, then rank 0's manifest naming them;
 * the restart checks the manifest, then each rank its file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_set.h"
#include "cmd.h"

/* A rank's file: the manifest's path, the slot, the rank. */
#define RANK_NAME_MAX 4200

static void rank_name(char *out, const char *path, char slot, int rank)
{
	snprintf(out, RANK_NAME_MAX, "%s.%c.rank%d", path, slot, rank);
}

/* DFIL's records: per rank its file's size and CRC-32 (and 4 zero
 * bytes). */
#define FILE_RECORD 16u

/* What a manifest says (DSET, DFIL). */
struct manifest {
	uint32_t ranks;
	uint32_t slot;
	uint64_t step, set_id;
};

/* The set of step `step` in slot `slot` of a run of these settings and
 * config on `ranks` ranks: every rank computes it alike. */
static uint64_t set_id(const struct px_dist_ckpt *k, uint64_t step,
		       char slot, int ranks)
{
	struct px_ckpt_buf b = {0};
	uint64_t h;

	px_ckpt_put_u64(&b, k->ids.settings);
	px_ckpt_put_u64(&b, k->ids.config);
	px_ckpt_put_u64(&b, step);
	px_ckpt_put_u32(&b, (uint32_t)slot);
	px_ckpt_put_u32(&b, (uint32_t)ranks);
	h = b.failed ? 0 : px_fnv1a(PX_FNV_START, b.p, b.len);
	px_ckpt_buf_free(&b);
	return h;
}

int px_dist_ckpt_ids(struct px_dist_ckpt *k, const struct px_dist_world *dw,
		     const char *scene, struct px_error *err)
{
	const struct px_dist_opts *o = &dw->o;
	struct px_ckpt_buf b = {0};
	uint64_t config;
	int rc = px_checkpoint_config_hash(dw->cfg, &config, err);

	if (rc)
		return rc;
	px_ckpt_put_u64(&b, config);
	px_ckpt_put_u32(&b, (uint32_t)o->combine);
	px_ckpt_put_u64(&b, o->sweeps_per_exchange);
	px_ckpt_put_u64(&b, o->check_every);
	/* re-balancing changes the steps; without it the hash is the one of
	 * the sets written before it existed */
	if (o->rebalance_every) {
		px_ckpt_put_u64(&b, o->rebalance_every);
		px_ckpt_put_f64(&b, o->rebalance_threshold);
	}
	if (b.failed)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	snprintf(k->config_name, sizeof k->config_name,
		 "%s, --combine %s --exchange-every %llu --check-every %llu",
		 px_config_source(dw->cfg),
		 o->combine == PX_DIST_SPLIT ? "split" : "sum",
		 (unsigned long long)o->sweeps_per_exchange,
		 (unsigned long long)o->check_every);
	if (o->rebalance_every) {
		const size_t at = strlen(k->config_name);

		snprintf(k->config_name + at, sizeof k->config_name - at,
			 " --rebalance-every %llu --rebalance-threshold %g",
			 (unsigned long long)o->rebalance_every,
			 o->rebalance_threshold);
	}
	k->ids = (struct px_checkpoint_ids){
		.scene = px_world_scene_hash(dw->w),
		.settings = px_world_settings_hash(dw->w),
		.config = px_fnv1a(PX_FNV_START, b.p, b.len),
		.scene_name = scene,
		.config_name = k->config_name,
	};
	px_ckpt_buf_free(&b);
	return PX_OK;
}

/* ---- a rank's DRNK section ------------------------------------------- */

/* DRNK: rank, ranks, step, set id, the bodies' count, per body its
 * global id (u64) and owner (u32, static: 0xffffffff), the static bodies'
 * count and 3 impulses each, the bodies that changed rank and the traffic
 * (messages, bytes) so far. */
static void put_rank(const struct px_dist_world *dw, uint64_t step,
		     uint64_t id, struct px_ckpt_buf *b)
{
	const size_t n = px_world_n_bodies(dw->w);

	px_ckpt_put_u32(b, (uint32_t)dw->rank);
	px_ckpt_put_u32(b, (uint32_t)dw->size);
	px_ckpt_put_u64(b, step);
	px_ckpt_put_u64(b, id);
	px_ckpt_put_u64(b, n);
	for (size_t i = 0; i < n; i++) {
		px_ckpt_put_u64(b, dw->reg->gid[i]);
		px_ckpt_put_u32(b, (uint32_t)dw->reg->owner[i]);
	}
	px_ckpt_put_u64(b, dw->n_static);
	for (size_t i = 0; i < 3 * dw->n_static; i++)
		px_ckpt_put_f64(b, dw->static_j[i]);
	px_ckpt_put_u64(b, dw->migrated);
	px_ckpt_put_u64(b, dw->traffic.messages);
	px_ckpt_put_u64(b, dw->traffic.bytes);
}

static int bad(struct px_error *err, const char *name, const char *what)
{
	return px_error_set(err, PX_ERR_FORMAT, "%s: not a valid checkpoint: %s",
			    name, what);
}

/* DRNK of c (the file name) into dw, whose world has taken the file's
 * bodies: checked against this rank, the manifest m and the world. */
static int get_rank(const struct px_checkpoint *c, const char *name,
		    const struct manifest *m, struct px_dist_world *dw,
		    struct px_error *err)
{
	size_t len, n;
	const unsigned char *p = px_checkpoint_find(c, "DRNK", NULL, NULL, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = len};
	struct px_region *reg = dw->reg;
	uint64_t *gid;
	int32_t *owner;

	if (!p)
		return bad(err, name, "no DRNK section (not a rank's file of a distributed run)");
	if (px_ckpt_get_u32(&cur) != (uint32_t)dw->rank ||
	    px_ckpt_get_u32(&cur) != m->ranks || px_ckpt_get_u64(&cur) != m->step ||
	    px_ckpt_get_u64(&cur) != m->set_id)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: not rank %d's file of the set the manifest names (step %llu of %u ranks)",
				    name, dw->rank, (unsigned long long)m->step,
				    m->ranks);
	n = px_world_n_bodies(dw->w);
	if (px_ckpt_get_u64(&cur) != n)
		return bad(err, name, "DRNK's body count is not BODY's");
	gid = malloc((n + 1) * sizeof *gid);
	owner = malloc((n + 1) * sizeof *owner);
	if (!gid || !owner) {
		free(gid);
		free(owner);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		gid[i] = px_ckpt_get_u64(&cur);
		owner[i] = (int32_t)px_ckpt_get_u32(&cur);
		if ((i && gid[i] <= gid[i - 1]) || owner[i] < -1 ||
		    owner[i] >= dw->size ||
		    (owner[i] < 0) != px_world_bodies(dw->w)[i].is_static) {
			free(gid);
			free(owner);
			return bad(err, name, "DRNK's bodies are not in ascending id with an owner each");
		}
	}
	free(reg->gid);
	free(reg->owner);
	reg->gid = gid;
	reg->owner = owner;
	reg->n = reg->cap = n;
	if (px_ckpt_get_u64(&cur) != dw->n_static)
		return bad(err, name, "DRNK's static bodies are not the scene's");
	for (size_t i = 0; i < 3 * dw->n_static; i++)
		dw->static_j[i] = px_ckpt_get_f64(&cur);
	dw->migrated = px_ckpt_get_u64(&cur);
	dw->traffic.messages = px_ckpt_get_u64(&cur);
	dw->traffic.bytes = px_ckpt_get_u64(&cur);
	if (cur.failed || cur.at != len)
		return bad(err, name, "a DRNK section of the wrong length");
	return PX_OK;
}

/* ---- a rank's DREG section: the boxes of a re-partitioned run -------- */

/* DREG, written once the run has re-partitioned (the scene's own
 * bisection, which a restart computes, is not the run's boxes then): the
 * re-partitions so far and the bodies they moved off this rank, the
 * bisection's nodes (axis, cut, children, rank) and every rank's box. A
 * set without it restarts on the scene's boxes. */
static void put_region(const struct px_dist_world *dw, struct px_ckpt_buf *b)
{
	const struct px_region *reg = dw->reg;

	px_ckpt_put_u64(b, dw->rebalances);
	px_ckpt_put_u64(b, dw->rebalance_moved);
	px_ckpt_put_u32(b, (uint32_t)reg->n_node);
	for (int i = 0; i < reg->n_node; i++) {
		px_ckpt_put_u32(b, (uint32_t)reg->node[i].axis);
		px_ckpt_put_f64(b, reg->node[i].cut);
		px_ckpt_put_u32(b, (uint32_t)reg->node[i].left);
		px_ckpt_put_u32(b, (uint32_t)reg->node[i].right);
		px_ckpt_put_u32(b, (uint32_t)reg->node[i].rank);
	}
	for (size_t i = 0; i < 6 * (size_t)dw->size; i++)
		px_ckpt_put_f64(b, reg->box[i]);
}

/* DREG of c (the file name), if any, into dw's region, checked. */
static int get_region(const struct px_checkpoint *c, const char *name,
		      struct px_dist_world *dw, struct px_error *err)
{
	size_t len;
	const unsigned char *p = px_checkpoint_find(c, "DREG", NULL, NULL, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = len};
	struct px_region *reg = dw->reg;
	struct px_rcb_node *node;
	double *box;
	uint64_t rebalances, moved;
	uint32_t n_node;

	if (!p)
		return PX_OK;
	rebalances = px_ckpt_get_u64(&cur);
	moved = px_ckpt_get_u64(&cur);
	n_node = px_ckpt_get_u32(&cur);
	if (cur.failed || n_node != 2 * (uint32_t)dw->size - 1)
		return bad(err, name, "a DREG section of another rank count");
	node = calloc(2 * (size_t)dw->size, sizeof *node);
	box = malloc(6 * (size_t)dw->size * sizeof *box);
	if (!node || !box) {
		free(node);
		free(box);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < n_node; i++) {
		struct px_rcb_node *x = node + i;

		x->axis = (int32_t)px_ckpt_get_u32(&cur);
		x->cut = px_ckpt_get_f64(&cur);
		x->left = (int32_t)px_ckpt_get_u32(&cur);
		x->right = (int32_t)px_ckpt_get_u32(&cur);
		x->rank = (int32_t)px_ckpt_get_u32(&cur);
		if (x->axis < -1 || x->axis > 2 ||
		    (x->axis >= 0 && (x->left <= (int)i || x->right <= (int)i ||
				      x->left >= (int)n_node || x->right >= (int)n_node)) ||
		    (x->axis < 0 && (x->rank < 0 || x->rank >= dw->size)))
			cur.failed = 1;
	}
	for (size_t i = 0; i < 6 * (size_t)dw->size; i++)
		box[i] = px_ckpt_get_f64(&cur);
	if (cur.failed || cur.at != len) {
		free(node);
		free(box);
		return bad(err, name, "a DREG section that is not a bisection's");
	}
	free(reg->node);
	free(reg->box);
	reg->node = node;
	reg->box = box;
	reg->n_node = (int)n_node;
	memcpy(reg->lo, box + 6 * (size_t)dw->rank, sizeof reg->lo);
	memcpy(reg->hi, box + 6 * (size_t)dw->rank + 3, sizeof reg->hi);
	dw->rebalances = rebalances;
	dw->rebalance_moved = moved;
	return px_dist_world_neighbours(dw, err);
}

/* ---- files ------------------------------------------------------------- */

/* The bytes of the file name into a malloc'ed *buf (*len). */
static int slurp(const char *name, unsigned char **buf, size_t *len,
		 struct px_error *err)
{
	FILE *f = fopen(name, "rb");
	size_t cap = 65536;
	int rc = PX_OK;

	*buf = NULL;
	*len = 0;
	if (!f)
		return px_error_set(err, PX_ERR_IO, "%s: cannot read: %s", name,
				    strerror(errno));
	for (;;) {
		if (!*buf || *len == cap) {
			unsigned char *p = realloc(*buf, *buf ? cap *= 2 : cap);

			if (!p) {
				rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
				break;
			}
			*buf = p;
		}
		const size_t k = fread(*buf + *len, 1, cap - *len, f);

		*len += k;
		if (k == 0)
			break;
	}
	if (!rc && ferror(f))
		rc = px_error_set(err, PX_ERR_IO, "%s: cannot read: %s", name,
				  strerror(errno));
	fclose(f);
	if (rc) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

/* This rank's file of the set: its world, DRNK and run (rank 0's DRUN),
 * written, then read back for its size and CRC-32 (rec: DFIL's record). */
static int write_rank(const struct px_dist_ckpt *k, const struct px_dist_world *dw,
		      const char *name, const struct manifest *m,
		      const struct px_ckpt_buf *run, unsigned char rec[FILE_RECORD],
		      struct px_error *err)
{
	struct px_checkpoint *c = NULL;
	struct px_ckpt_buf b = {0};
	unsigned char *bytes = NULL;
	size_t len = 0;
	int rc = px_checkpoint_create(&c, err);

	if (!rc)
		rc = px_world_checkpoint_save(dw->w, dw->cfg, &k->ids, c, err);
	put_rank(dw, m->step, m->set_id, &b);
	if (!rc)
		rc = b.failed ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
			      : px_checkpoint_add(c, "DRNK", 1, 0, b.p, b.len, err);
	if (!rc && dw->rebalances) {
		b.len = 0;
		put_region(dw, &b);
		rc = b.failed ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
			      : px_checkpoint_add(c, "DREG", 1, 0, b.p, b.len, err);
	}
	if (!rc && run)
		rc = run->failed ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
				 : px_checkpoint_add(c, "DRUN", 1, 0, run->p,
						     run->len, err);
	if (!rc)
		rc = px_checkpoint_write(c, name, err);
	if (!rc)
		rc = slurp(name, &bytes, &len, err);
	if (!rc) {
		b.len = 0;
		px_ckpt_put_u64(&b, len);
		px_ckpt_put_u32(&b, px_crc32(0, bytes, len));
		px_ckpt_put_u32(&b, 0);
		if (b.failed)
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		else
			memcpy(rec, b.p, FILE_RECORD);
	}
	free(bytes);
	px_ckpt_buf_free(&b);
	px_checkpoint_destroy(c);
	return rc;
}

/* Rank 0: the manifest of the set m whose files' records are recs. */
static int write_manifest(const char *path, const struct manifest *m,
			  const unsigned char *recs, struct px_error *err)
{
	struct px_checkpoint *c = NULL;
	struct px_ckpt_buf b = {0};
	int rc = px_checkpoint_create(&c, err);

	px_ckpt_put_u32(&b, m->ranks);
	px_ckpt_put_u32(&b, m->slot);
	px_ckpt_put_u64(&b, m->step);
	px_ckpt_put_u64(&b, m->set_id);
	if (!rc)
		rc = b.failed ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
			      : px_checkpoint_add(c, "DSET", 1, 0, b.p, b.len, err);
	if (!rc)
		rc = px_checkpoint_add(c, "DFIL", m->ranks, FILE_RECORD, recs,
				       (size_t)m->ranks * FILE_RECORD, err);
	if (!rc)
		rc = px_checkpoint_write(c, path, err);
	px_ckpt_buf_free(&b);
	px_checkpoint_destroy(c);
	return rc;
}

int px_dist_ckpt_write(struct px_dist_ckpt *k, const struct px_dist_world *dw,
		       uint64_t step, const struct px_ckpt_buf *run,
		       struct px_error *err)
{
	const char slot = k->slot == 'A' ? 'B' : 'A';
	const struct manifest m = {(uint32_t)dw->size, (uint32_t)slot, step,
				   set_id(k, step, slot, dw->size)};
	unsigned char rec[FILE_RECORD] = {0}, *recs = NULL;
	char name[RANK_NAME_MAX];
	int rc;

	rank_name(name, k->path, slot, dw->rank);
	rc = write_rank(k, dw, name, &m, dw->rank == 0 ? run : NULL, rec, err);
	if (!rc && dw->rank == 0 &&
	    !(recs = malloc((size_t)dw->size * FILE_RECORD)))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
	if ((rc = px_dist_agree(rc, err)))
		return rc;
	MPI_Gather(rec, FILE_RECORD, MPI_BYTE, recs, FILE_RECORD, MPI_BYTE, 0,
		   MPI_COMM_WORLD);
	if (dw->rank == 0)
		rc = write_manifest(k->path, &m, recs, err);
	free(recs);
	if (!(rc = px_dist_agree(rc, err))) {
		k->slot = slot;
		k->last = m.step;
	}
	return rc;
}

/* ---- restart ----------------------------------------------------------- */

/* Rank 0: the manifest at path into m and recs (malloc'ed, m->ranks
 * records), checked. */
static int read_manifest(const char *path, struct manifest *m,
			 unsigned char **recs, struct px_error *err)
{
	struct px_checkpoint *c = NULL;
	uint32_t count, rsize;
	size_t len;
	const unsigned char *p, *f;
	struct px_ckpt_cursor cur;
	int rc = px_checkpoint_read(path, &c, err);

	if (rc)
		return rc;
	p = px_checkpoint_find(c, "DSET", NULL, NULL, &len);
	cur = (struct px_ckpt_cursor){.p = p, .len = len};
	if (!p) {
		rc = px_error_set(err, PX_ERR_INVALID,
				  "%s: not the manifest of a distributed run's checkpoint set (no DSET section): a checkpoint of `proxima run` restarts without mpirun",
				  path);
		goto done;
	}
	m->ranks = px_ckpt_get_u32(&cur);
	m->slot = px_ckpt_get_u32(&cur);
	m->step = px_ckpt_get_u64(&cur);
	m->set_id = px_ckpt_get_u64(&cur);
	f = px_checkpoint_find(c, "DFIL", &count, &rsize, NULL);
	if (cur.failed || cur.at != len || (m->slot != 'A' && m->slot != 'B') ||
	    m->ranks == 0 || !f || count != m->ranks || rsize != FILE_RECORD) {
		rc = bad(err, path, "a DSET or DFIL section that is not a set's");
		goto done;
	}
	if (!(*recs = malloc((size_t)count * FILE_RECORD)))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
	else
		memcpy(*recs, f, (size_t)count * FILE_RECORD);
done:
	px_checkpoint_destroy(c);
	return rc;
}

/* This rank's file of the set (its DFIL record rec) into dw. */
static int read_rank(const struct px_dist_ckpt *k, struct px_dist_world *dw,
		     const char *path, const struct manifest *m,
		     const unsigned char rec[FILE_RECORD],
		     struct px_checkpoint **out, struct px_error *err)
{
	struct px_ckpt_cursor cur = {.p = rec, .len = FILE_RECORD};
	const uint64_t size = px_ckpt_get_u64(&cur);
	const uint32_t crc = px_ckpt_get_u32(&cur);
	char name[RANK_NAME_MAX];
	unsigned char *bytes = NULL;
	size_t len;
	int rc;

	rank_name(name, path, (char)m->slot, dw->rank);
	if ((rc = slurp(name, &bytes, &len, err)))
		return rc;
	if (len != size || px_crc32(0, bytes, len) != crc)
		rc = px_error_set(err, PX_ERR_FORMAT,
				  "%s: not the file the manifest %s names (%zu bytes, CRC-32 %08x; it names %llu bytes, %08x): damaged, or of another set",
				  name, path, len, (unsigned)px_crc32(0, bytes, len),
				  (unsigned long long)size, (unsigned)crc);
	if (!rc)
		rc = px_checkpoint_parse(bytes, len, name, out, err);
	free(bytes);
	if (!rc)
		rc = px_world_checkpoint_load(dw->w, dw->cfg, &k->ids, *out, name,
					      err);
	if (!rc)
		rc = get_rank(*out, name, m, dw, err);
	if (!rc)
		rc = get_region(*out, name, dw, err);
	return rc;
}

int px_dist_ckpt_restart(struct px_dist_ckpt *k, struct px_dist_world *dw,
			 const char *path, struct px_checkpoint **run,
			 uint64_t *step, struct px_error *err)
{
	struct manifest m = {0};
	unsigned char *recs = NULL, rec[FILE_RECORD];
	struct px_checkpoint *c = NULL;
	int rc = PX_OK;

	*run = NULL;
	if (dw->rank == 0)
		rc = read_manifest(path, &m, &recs, err);
	if (!rc && dw->rank == 0 && m.ranks != (uint32_t)dw->size)
		rc = px_error_set(err, PX_ERR_INVALID,
				  "%s: a checkpoint set of %u ranks: restart it on as many (mpirun -np %u), not %d",
				  path, m.ranks, m.ranks, dw->size);
	if ((rc = px_dist_agree(rc, err))) {
		free(recs);
		return rc;
	}
	MPI_Bcast(&m, sizeof m, MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Scatter(recs, FILE_RECORD, MPI_BYTE, rec, FILE_RECORD, MPI_BYTE, 0,
		    MPI_COMM_WORLD);
	free(recs);
	rc = read_rank(k, dw, path, &m, rec, &c, err);
	if ((rc = px_dist_agree(rc, err)) || dw->rank != 0)
		px_checkpoint_destroy(c);
	else
		*run = c;
	if (!rc && k->path && strcmp(k->path, path) == 0)
		k->slot = (char)m.slot;
	*step = m.step;
	return rc;
}

/* ---- signals ----------------------------------------------------------- */

/* The signals caught so far, counted (a handler's counters: the one
 * state a signal may touch; the run keeps what it has seen). */
static volatile sig_atomic_t n_usr1, n_term;

static void on_signal(int sig)
{
	if (sig == SIGTERM) {
		n_term++;
		/* as serially: a second SIGTERM kills at once (a rank file
		 * being written goes to a temporary name, the manifest last) */
		signal(SIGTERM, SIG_DFL);
	} else {
		n_usr1++;
	}
}

void px_dist_ckpt_catch(void)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int px_dist_ckpt_signals(struct px_dist_ckpt *k)
{
	const int usr1 = n_usr1, term = n_term;
	int any = (usr1 != k->seen_usr1 ? PX_DIST_CKPT_NOW : 0) |
		  (term != k->seen_term ? PX_DIST_CKPT_NOW | PX_DIST_CKPT_STOP : 0);

	k->seen_usr1 = usr1;
	k->seen_term = term;
	MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
	return any;
}
