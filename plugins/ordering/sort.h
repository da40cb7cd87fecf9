/* Sorting contacts by a key, shared by the orderings ipp and coordinate.
 * Compiled into each plugin that uses it; hidden, never exported
 * (tests/plugin_symbols.sh). */
#ifndef PX_ORDERING_SORT_H
#define PX_ORDERING_SORT_H

#include <stddef.h>
#include <stdint.h>

enum { PX_ASCENDING = 0, PX_DESCENDING = 1 };

/* The declared values of a `direction` parameter, in enum order. */
#define PX_DIRECTION_CHOICES "ascending|descending"

/* perm <- the contacts 0..n-1 sorted by key[k], ascending or descending;
 * contacts with equal keys keep their index order, so the result depends
 * on the keys alone (a stable bottom-up merge sort). tmp holds n entries.
 * No allocation: safe in an ordering's next. Keys must not be NaN. */
void px_sort_contacts(const double *key, size_t n, int direction,
		      uint32_t *perm, uint32_t *tmp);

#endif
