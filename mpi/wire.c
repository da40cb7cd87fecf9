/* A byte buffer for the messages that carry parts from rank 0 to the
 * others: put appends, get and take read in the same order. Errors stick
 * (w->bad) so a sequence of calls is checked once at its end. */
#include <stdlib.h>
#include <string.h>

#include "dist.h"

void px_wire_put(struct px_wire *w, const void *src, size_t bytes)
{
	if (w->bad || bytes == 0)
		return;
	if (w->n + bytes > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		unsigned char *grown;

		while (cap < w->n + bytes)
			cap *= 2;
		grown = realloc(w->p, cap);
		if (!grown) {
			w->bad = 1;
			return;
		}
		w->p = grown;
		w->cap = cap;
	}
	memcpy(w->p + w->n, src, bytes);
	w->n += bytes;
}

void px_wire_get(struct px_wire *w, void *dst, size_t bytes)
{
	if (w->bad || bytes > w->n - w->pos) {
		w->bad = 1;
		memset(dst, 0, bytes);
		return;
	}
	memcpy(dst, w->p + w->pos, bytes);
	w->pos += bytes;
}

void *px_wire_take(struct px_wire *w, size_t count, size_t size)
{
	void *out;

	if (count == 0 || w->bad)
		return NULL;
	if (count > (w->n - w->pos) / size) {
		w->bad = 1;
		return NULL;
	}
	out = malloc(count * size);
	if (!out) {
		w->bad = 1;
		return NULL;
	}
	px_wire_get(w, out, count * size);
	return out;
}

void px_wire_free(struct px_wire *w)
{
	free(w->p);
	*w = (struct px_wire){0};
}
