/* gnuplot for `proxima compare`: find the program, write the parts every
 * script shares, run a script. Scripts find their data next to themselves
 * (gnuplot's ARG0), so `gnuplot DIR/x.gp` draws from any directory. */
#ifndef PX_CLI_PLOT_H
#define PX_CLI_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* The gnuplot to run: $PROXIMA_GNUPLOT when it is set (empty: none), else
 * "gnuplot"; a name without '/' is looked up on PATH. Returns 1 with the
 * program's path in buf, or 0 when there is none that can be run. */
int px_plot_find(char *buf, size_t len);

/* The head of a script drawing NAME.png and NAME.svg (w x h pixels) in the
 * script's directory: a comment saying what it draws, `here` (that
 * directory), CSV input, then `do for [fmt in "png svg"] {` with the
 * terminal (pngcairo when gnuplot has it, else png; svg) and output set.
 * The caller writes the plots (file names as here."/FILE") and then
 * px_plot_end closes the loop. */
void px_plot_begin(FILE *f, const char *name, const char *what, int w, int h);
void px_plot_end(FILE *f);

/* s as a gnuplot single-quoted string. */
void px_plot_quote(FILE *f, const char *s);

/* Run gnuplot on script, its stdout discarded. Returns 0 when it exited
 * with status 0, else -1 with the first line of its stderr (or why it did
 * not run) in msg. */
int px_plot_run(const char *gnuplot, const char *script, char *msg,
		size_t len);

#endif
