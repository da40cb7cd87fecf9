/* A world's state in a checkpoint and back (doc/checkpoint.md): what
 * decides the rest of a run. The bodies (every field: a distributed run's
 * ranks hold bodies that came and went), the contact cache (the next
 * step's warm start, matched by feature id), the step counter and time,
 * and the state of the config's plugins that carries across solves
 * (persist ops, ABI 1.8). The broad phase keeps only buffers and every
 * solver lives one step (world_step.c): neither carries state. The last
 * step's contacts and impulses are outputs the next step recomputes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "world_impl.h"
#include "world_problem.h"

#define BODY_RECORD 232u /* 2 u32 + 28 doubles */
#define CACHE_RECORD 72u /* 4 u32 + 7 doubles */

static void put_n(struct px_ckpt_buf *b, const double *x, int n)
{
	for (int i = 0; i < n; i++)
		px_ckpt_put_f64(b, x[i]);
}

static void get_n(struct px_ckpt_cursor *c, double *x, int n)
{
	for (int i = 0; i < n; i++)
		x[i] = px_ckpt_get_f64(c);
}

static void put_body(struct px_ckpt_buf *b, const struct px_body *x)
{
	px_ckpt_put_u32(b, (uint32_t)x->shape.kind);
	px_ckpt_put_u32(b, (uint32_t)x->is_static);
	px_ckpt_put_f64(b, x->shape.radius);
	put_n(b, x->shape.half, 3);
	px_ckpt_put_f64(b, x->shape.half_length);
	put_n(b, x->shape.normal, 3);
	put_n(b, x->x, 3);
	put_n(b, x->q, 4);
	put_n(b, x->v, 3);
	put_n(b, x->w, 3);
	px_ckpt_put_f64(b, x->mass);
	put_n(b, x->inertia, 3);
	px_ckpt_put_f64(b, x->mu);
	px_ckpt_put_f64(b, x->mu_tau);
	px_ckpt_put_f64(b, x->restitution);
}

static void get_body(struct px_ckpt_cursor *c, struct px_body *x)
{
	memset(x, 0, sizeof *x);
	x->shape.kind = (enum px_shape_kind)px_ckpt_get_u32(c);
	x->is_static = px_ckpt_get_u32(c) != 0;
	x->shape.radius = px_ckpt_get_f64(c);
	get_n(c, x->shape.half, 3);
	x->shape.half_length = px_ckpt_get_f64(c);
	get_n(c, x->shape.normal, 3);
	get_n(c, x->x, 3);
	get_n(c, x->q, 4);
	get_n(c, x->v, 3);
	get_n(c, x->w, 3);
	x->mass = px_ckpt_get_f64(c);
	get_n(c, x->inertia, 3);
	x->mu = px_ckpt_get_f64(c);
	x->mu_tau = px_ckpt_get_f64(c);
	x->restitution = px_ckpt_get_f64(c);
}

uint64_t px_world_scene_hash(const struct px_world *w)
{
	struct px_ckpt_buf b = {0};
	uint64_t h = PX_FNV_START;

	/* a body at a time: no buffer of the whole world */
	for (size_t i = 0; i < w->n_bodies; i++) {
		b.len = 0;
		put_body(&b, w->bodies + i);
		h = b.failed ? h : px_fnv1a(h, b.p, b.len);
	}
	px_ckpt_buf_free(&b);
	return h;
}

uint64_t px_world_settings_hash(const struct px_world *w)
{
	const struct px_world_settings *s = &w->settings;
	struct px_ckpt_buf b = {0};
	uint64_t h;

	put_n(&b, s->gravity, 3);
	px_ckpt_put_f64(&b, s->dt);
	px_ckpt_put_u32(&b, (uint32_t)s->stepping);
	px_ckpt_put_u32(&b, (uint32_t)s->stabilization);
	px_ckpt_put_f64(&b, s->beta);
	px_ckpt_put_f64(&b, s->slop);
	px_ckpt_put_f64(&b, s->margin);
	px_ckpt_put_f64(&b, s->restitution_threshold);
	px_ckpt_put_u32(&b, (uint32_t)s->warm_start);
	px_ckpt_put_u32(&b, (uint32_t)s->gyroscopic);
	px_ckpt_put_u32(&b, s->substeps);
	px_ckpt_put_f64(&b, s->contact_hertz);
	px_ckpt_put_f64(&b, s->contact_damping_ratio);
	px_ckpt_put_f64(&b, s->contact_push_velocity);
	/* out of memory for 120 bytes: a hash no checkpoint has */
	h = b.failed ? 0 : px_fnv1a(PX_FNV_START, b.p, b.len);
	px_ckpt_buf_free(&b);
	return h;
}

int px_checkpoint_config_hash(const struct px_config *cfg, uint64_t *out,
			      struct px_error *err)
{
	char *text = NULL, *line;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	uint64_t h = PX_FNV_START;

	if (!f)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	if (px_config_write(cfg, f)) {
		fclose(f);
		free(text);
		return px_error_set(err, PX_ERR_NOMEM,
				    "cannot write the config in effect");
	}
	fclose(f);
	/* its lines but comments (the source) and time_limit */
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (*line != ';' && strncmp(line, "time_limit ", 11))
			h = px_fnv1a(h, line, strlen(line) + 1);
	free(text);
	*out = h;
	return PX_OK;
}

static int put_plugins(const struct px_config *cfg, struct px_ckpt_buf *b,
		       struct px_error *err)
{
	uint32_t n = 0;

	for (unsigned k = PX_KIND_FRICTION; k <= PX_KIND_ACCELERATOR; k++) {
		const struct px_plugin *pl = px_config_plugin(cfg, k);

		n += pl && px_plugin_persist(px_plugin_header(pl));
	}
	px_ckpt_put_u32(b, n);
	for (unsigned k = PX_KIND_FRICTION; k <= PX_KIND_ACCELERATOR; k++) {
		const struct px_plugin *pl = px_config_plugin(cfg, k);
		const struct px_persist_ops *ops =
		    pl ? px_plugin_persist(px_plugin_header(pl)) : NULL;
		size_t len;
		unsigned char *bytes;

		if (!ops)
			continue;
		len = ops->size(px_plugin_state(pl));
		bytes = malloc(len + 1);
		if (!bytes)
			return px_error_set(err, PX_ERR_NOMEM, "out of memory");
		ops->save(px_plugin_state(pl), bytes);
		px_ckpt_put_u32(b, k);
		px_ckpt_put_str(b, px_plugin_header(pl)->name);
		px_ckpt_put_u64(b, len);
		px_ckpt_put_bytes(b, bytes, len);
		free(bytes);
	}
	return PX_OK;
}

int px_world_checkpoint_save(const struct px_world *w,
			     const struct px_config *cfg,
			     const struct px_checkpoint_ids *ids,
			     struct px_checkpoint *c, struct px_error *err)
{
	struct px_ckpt_buf b = {0};
	int rc;

	px_ckpt_put_u64(&b, w->step);
	px_ckpt_put_f64(&b, w->time);
	px_ckpt_put_u64(&b, ids->scene);
	px_ckpt_put_u64(&b, ids->settings);
	px_ckpt_put_u64(&b, ids->config);
	px_ckpt_put_u64(&b, w->n_bodies);
	px_ckpt_put_u64(&b, w->n_cache);
	px_ckpt_put_str(&b, ids->scene_name);
	px_ckpt_put_str(&b, ids->config_name);
	rc = b.failed ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
		      : px_checkpoint_add(c, "META", 1, 0, b.p, b.len, err);
	b.len = 0;
	for (size_t i = 0; !rc && i < w->n_bodies; i++)
		put_body(&b, w->bodies + i);
	if (!rc)
		rc = b.failed
			 ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
			 : px_checkpoint_add(c, "BODY", (uint32_t)w->n_bodies,
					     BODY_RECORD, b.p, b.len, err);
	b.len = 0;
	for (size_t i = 0; !rc && i < w->n_cache; i++) {
		const struct px_cached *e = w->cache + i;

		px_ckpt_put_u32(&b, e->a);
		px_ckpt_put_u32(&b, e->b);
		px_ckpt_put_u32(&b, e->feature);
		px_ckpt_put_u32(&b, 0);
		put_n(&b, e->p, 3);
		put_n(&b, e->impulse, 3);
		px_ckpt_put_f64(&b, e->tau);
	}
	if (!rc)
		rc = b.failed
			 ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
			 : px_checkpoint_add(c, "CACH", (uint32_t)w->n_cache,
					     CACHE_RECORD, b.p, b.len, err);
	b.len = 0;
	if (!rc)
		rc = put_plugins(cfg, &b, err);
	if (!rc)
		rc = b.failed
			 ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
			 : px_checkpoint_add(c, "PLUG", 1, 0, b.p, b.len, err);
	px_ckpt_buf_free(&b);
	return rc;
}

uint64_t px_checkpoint_step(const struct px_checkpoint *c)
{
	size_t len;
	const unsigned char *p =
	    px_checkpoint_find(c, "META", NULL, NULL, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = p ? len : 0};

	return p ? px_ckpt_get_u64(&cur) : 0;
}

static int bad(struct px_error *err, const char *path, const char *what)
{
	return px_error_set(err, PX_ERR_FORMAT,
			    "%s: not a valid checkpoint: %s", path, what);
}

struct meta {
	uint64_t step, scene, settings, config, n_bodies, n_cache;
	double time;
	const char *scene_name, *config_name;
	uint32_t scene_len, config_len;
};

static int read_meta(const struct px_checkpoint *c, const char *path,
		     struct meta *m, struct px_error *err)
{
	uint32_t count, rsize;
	size_t len;
	const unsigned char *p =
	    px_checkpoint_find(c, "META", &count, &rsize, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = len};

	if (!p || rsize != 0)
		return bad(err, path, "no META section");
	m->step = px_ckpt_get_u64(&cur);
	m->time = px_ckpt_get_f64(&cur);
	m->scene = px_ckpt_get_u64(&cur);
	m->settings = px_ckpt_get_u64(&cur);
	m->config = px_ckpt_get_u64(&cur);
	m->n_bodies = px_ckpt_get_u64(&cur);
	m->n_cache = px_ckpt_get_u64(&cur);
	m->scene_name = px_ckpt_get_str(&cur, &m->scene_len);
	m->config_name = px_ckpt_get_str(&cur, &m->config_len);
	if (cur.failed || cur.at != len)
		return bad(err, path, "a META section of the wrong length");
	return PX_OK;
}

/* The cache entries of CACH into *out (n of them), checked: bodies of
 * the world, sorted by pair as world_cache.c keeps them. */
static int read_cache(const struct px_checkpoint *c, const char *path,
		      const struct meta *m, struct px_cached **out,
		      struct px_error *err)
{
	uint32_t count, rsize;
	size_t len;
	const unsigned char *p =
	    px_checkpoint_find(c, "CACH", &count, &rsize, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = len};
	struct px_cached *e;

	if (!p || rsize != CACHE_RECORD || count != m->n_cache)
		return bad(
		    err, path,
		    "no CACH section of META's count of 72-byte records");
	e = malloc(((size_t)count + 1) * sizeof *e);
	if (!e)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < count; i++) {
		e[i].a = px_ckpt_get_u32(&cur);
		e[i].b = px_ckpt_get_u32(&cur);
		e[i].feature = px_ckpt_get_u32(&cur);
		px_ckpt_get_u32(&cur);
		get_n(&cur, e[i].p, 3);
		get_n(&cur, e[i].impulse, 3);
		e[i].tau = px_ckpt_get_f64(&cur);
		if (e[i].a >= m->n_bodies || e[i].b >= m->n_bodies ||
		    e[i].a == e[i].b ||
		    (i && (e[i].b < e[i - 1].b ||
			   (e[i].b == e[i - 1].b && e[i].a < e[i - 1].a)))) {
			free(e);
			return bad(err, path,
				   "a contact cache entry of bodies out of "
				   "range or order");
		}
	}
	*out = e;
	return PX_OK;
}

/* PLUG's states into cfg's plugins: one for every plugin that keeps one,
 * of its kind and name. */
static int load_plugins(const struct px_checkpoint *c, const char *path,
			struct px_config *cfg, struct px_error *err)
{
	size_t len;
	const unsigned char *p =
	    px_checkpoint_find(c, "PLUG", NULL, NULL, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = len};
	uint32_t n, want = 0;
	char msg[256];

	if (!p)
		return bad(err, path, "no PLUG section");
	for (unsigned k = PX_KIND_FRICTION; k <= PX_KIND_ACCELERATOR; k++) {
		const struct px_plugin *pl = px_config_plugin(cfg, k);

		want += pl && px_plugin_persist(px_plugin_header(pl));
	}
	n = px_ckpt_get_u32(&cur);
	if (n != want)
		return bad(
		    err, path,
		    "its plugin states are not those of the config's plugins");
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t k = px_ckpt_get_u32(&cur);
		uint32_t name_len;
		const char *name = px_ckpt_get_str(&cur, &name_len);
		const uint64_t slen = px_ckpt_get_u64(&cur);
		const unsigned char *bytes =
		    slen <= len ? px_ckpt_get_bytes(&cur, (size_t)slen) : NULL;
		const struct px_plugin *pl =
		    k >= PX_KIND_FRICTION && k <= PX_KIND_ACCELERATOR
			? px_config_plugin(cfg, k)
			: NULL;
		const struct px_persist_ops *ops =
		    pl ? px_plugin_persist(px_plugin_header(pl)) : NULL;

		if (!bytes || !ops ||
		    strlen(px_plugin_header(pl)->name) != name_len ||
		    memcmp(px_plugin_header(pl)->name, name, name_len))
			return bad(err, path,
				   "its plugin states are not those of the "
				   "config's plugins");
		if (ops->load(px_plugin_state(pl), bytes, (size_t)slen, msg,
			      sizeof msg))
			return px_error_set(
			    err, PX_ERR_FORMAT,
			    "%s: not a valid checkpoint: %s %s's state: %s",
			    path, px_kind_name(k), px_plugin_header(pl)->name,
			    msg);
	}
	if (cur.failed || cur.at != len)
		return bad(err, path, "a PLUG section of the wrong length");
	return PX_OK;
}

int px_world_checkpoint_load(struct px_world *w, struct px_config *cfg,
			     const struct px_checkpoint_ids *ids,
			     const struct px_checkpoint *c, const char *path,
			     struct px_error *err)
{
	struct meta m;
	struct px_body *bodies = NULL;
	struct px_cached *cache = NULL;
	uint32_t count, rsize;
	size_t len;
	const unsigned char *p;
	struct px_ckpt_cursor cur;
	int rc = read_meta(c, path, &m, err);

	if (rc)
		return rc;
	if (m.scene != ids->scene)
		return px_error_set(
		    err, PX_ERR_INVALID,
		    "%s: checkpoint of another scene (%.*s), not of %s", path,
		    (int)m.scene_len, m.scene_name, ids->scene_name);
	if (m.settings != ids->settings)
		return px_error_set(
		    err, PX_ERR_INVALID,
		    "%s: checkpoint of other world settings: this run's (the "
		    "scene's [world], --cache) change the steps",
		    path);
	if (m.config != ids->config)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: checkpoint of another solver config "
				    "(%.*s), not of this run's (%s)",
				    path, (int)m.config_len, m.config_name,
				    ids->config_name);
	p = px_checkpoint_find(c, "BODY", &count, &rsize, &len);
	if (!p || rsize != BODY_RECORD || count != m.n_bodies)
		return bad(
		    err, path,
		    "no BODY section of META's count of 232-byte records");
	if ((rc = read_cache(c, path, &m, &cache, err)))
		return rc;
	bodies = malloc(((size_t)count + 1) * sizeof *bodies);
	if (!bodies) {
		free(cache);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	cur = (struct px_ckpt_cursor){.p = p, .len = len};
	for (uint32_t i = 0; i < count; i++)
		get_body(&cur, bodies + i);
	/* the cache emptied first: set_bodies renumbers none */
	w->n_cache = 0;
	rc = px_world_set_bodies(w, bodies, count, NULL, err);
	if (rc) {
		char what[256];

		snprintf(what, sizeof what, "a body: %.200s", err->msg);
		rc = bad(err, path, what);
	}
	if (!rc)
		rc = load_plugins(c, path, cfg, err);
	free(bodies);
	if (rc) {
		free(cache);
		return rc;
	}
	free(w->cache);
	w->cache = cache;
	w->n_cache = m.n_cache;
	w->cache_cap = m.n_cache;
	w->n_contacts = 0;
	w->step = m.step;
	w->time = m.time;
	return PX_OK;
}
