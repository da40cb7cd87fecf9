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

/* The head of a script drawing NAME.pdf, NAME.png and NAME.svg (w x h
 * pixels; the PDF w/150 x h/150 inches) in the script's directory: a
 * comment saying what it draws, `here` (that directory), CSV input, line
 * styles 1..n_lines (one per config: colour, dash type and marker differ)
 * and 100.. (tolerances: grey, dashed), then `do for [fmt in "pdf png
 * svg"] {` with the terminal (pdfcairo, skipped with a message when
 * gnuplot lacks it; pngcairo when gnuplot has it, else png; svg; all with
 * enhanced text: labels from file names must be noenhanced) and output
 * set: to OUT.pdf, .png and .svg, OUT the script's first argument when
 * given (`gnuplot -c NAME.gp OUT`: px_plot_run's temporary names), else
 * here."/NAME". The caller writes the plots (file names as here."/FILE")
 * and then px_plot_end closes the loop. */
void px_plot_begin(FILE *f, const char *name, const char *what, int w, int h,
		   size_t n_lines);
void px_plot_end(FILE *f);

/* x > 0 as enhanced text in the ticks' form: 10^{-8}, 5×10^{-9}. */
void px_plot_number(FILE *f, double x);

/* s as a gnuplot single-quoted string. */
void px_plot_quote(FILE *f, const char *s);

/* Run gnuplot on script (DIR/NAME.gp), its stdout discarded, drawing
 * under a temporary name in DIR then renamed over NAME.pdf, NAME.png and
 * NAME.svg (core/outfile.h): a failed or killed gnuplot leaves the earlier
 * plots as they were. NAME.pdf goes when this gnuplot draws none (no
 * pdfcairo). Returns 0 when it exited with status 0 and its plots are in
 * place, else -1 with the first line of its stderr (or why it did not
 * run, or the file that could not be renamed) in msg. */
int px_plot_run(const char *gnuplot, const char *script, char *msg,
		size_t len);

#endif
