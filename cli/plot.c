/* gnuplot for `proxima compare` (plot.h): finding it, the shared head and
 * tail of the scripts, running one with its stderr captured and its plots
 * renamed into place. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "plot.h"

extern char **environ;

static int runnable(const char *path)
{
	return access(path, X_OK) == 0;
}

int px_plot_find(char *buf, size_t len)
{
	const char *name = getenv("PROXIMA_GNUPLOT");
	const char *path;

	if (!name)
		name = "gnuplot";
	if (!*name)
		return 0;
	if (strchr(name, '/')) {
		if (!runnable(name) || strlen(name) >= len)
			return 0;
		strcpy(buf, name);
		return 1;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		const size_t n = end ? (size_t)(end - path) : strlen(path);
		int w;

		/* an empty entry is the current directory */
		w = snprintf(buf, len, "%.*s/%s", (int)(n ? n : 1),
			     n ? path : ".", name);
		if (w > 0 && (size_t)w < len && runnable(buf))
			return 1;
		path += n;
		if (*path == ':')
			path++;
	}
	return 0;
}

void px_plot_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* Line styles 1..n, one per config: a colour of Okabe and Ito's
 * colour-blind-safe palette, a dash type and a marker, each cycling with
 * its own period (8, 5, 7), so that two configs differ in all three and
 * stay apart in black and white. Style 100 onwards: the tolerances. */
static const char *const colour[] = {"#0072B2", "#D55E00", "#009E73",
				     "#CC79A7", "#E69F00", "#56B4E9",
				     "#000000", "#999933"};
static const int dash[] = {1, 2, 4, 5, 3};
static const int marker[] = {6, 4, 8, 2, 10, 12, 1};

void px_plot_begin(FILE *f, const char *name, const char *what, int w, int h,
		   size_t n_lines)
{
	fprintf(f,
		"# Written by proxima compare: %s.\n"
		"# Draws %s.pdf, %s.png and %s.svg beside this script from the\n"
		"# CSV files beside it: gnuplot PATH/TO/%s.gp, from any directory.\n"
		"# Without gnuplot's pdfcairo terminal it draws no PDF and says so.\n"
		"\n"
		"here = '.'\n"
		"if (exists('ARG0')) {\n"
		"\tlast = 0\n"
		"\tdo for [i = 1:strlen(ARG0)] {\n"
		"\t\tif (ARG0[i:i] eq '/') { last = i }\n"
		"\t}\n"
		"\tif (last > 0) { here = ARG0[1:last - 1] }\n"
		"}\n"
		"# proxima draws under a temporary name, OUT, then renames\n"
		"out = exists('ARG1') && ARG1 ne '' ? ARG1 : here.'/%s'\n"
		"set encoding utf8\n"
		"set datafile separator ','\n"
		"# rejected sweeps and steps without contacts are NaN: skip them\n"
		"# without breaking the lines\n"
		"set datafile missing NaN\n"
		"set grid\n"
		"set key top right opaque\n"
		"# one style per config: colour, dash type and marker all differ\n",
		what, name, name, name, name, name);
	for (size_t i = 0; i < n_lines; i++)
		fprintf(f,
			"set style line %zu lc rgb '%s' dt %d pt %d lw 2 ps 1.2\n",
			i + 1, colour[i % 8], dash[i % 5], marker[i % 7]);
	fprintf(f, "# the tolerances: grey, dashed\n");
	for (int i = 0; i < 8; i++)
		fprintf(f, "set style line %d lc rgb '#606060' dt %d lw 1.5\n",
			100 + i, i % 2 ? 3 : 2);
	fprintf(f,
		"if (strstrt(GPVAL_TERMINALS, 'pdfcairo') == 0) {\n"
		"\tprint 'gnuplot has no pdfcairo terminal: no %s.pdf'\n"
		"}\n"
		"do for [fmt in 'pdf png svg'] {\n"
		"\tif (fmt eq 'pdf') {\n"
		"\t\tif (strstrt(GPVAL_TERMINALS, 'pdfcairo') == 0) { continue }\n"
		"\t\tset terminal pdfcairo enhanced size %.2fin,%.2fin font ',9'\n"
		"\t}\n"
		"\tif (fmt eq 'svg') {\n"
		"\t\tset terminal svg enhanced size %d,%d dynamic background '#ffffff'\n"
		"\t}\n"
		"\tif (fmt eq 'png') {\n"
		"\t\tif (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"\t\t\tset terminal pngcairo enhanced size %d,%d\n"
		"\t\t} else {\n"
		"\t\t\tset terminal png enhanced size %d,%d\n"
		"\t\t}\n"
		"\t}\n"
		"\tset output out.'.'.fmt\n",
		name, w / 150.0, h / 150.0, w, h, w, h, w, h);
}

void px_plot_end(FILE *f)
{
	fprintf(f, "\tset output\n}\n");
}

void px_plot_number(FILE *f, double tol)
{
	const int e = (int)floor(log10(tol) + 1e-9);
	const double m = tol / pow(10.0, e);

	/* 5×10^{-9}, 10^{-8}: enhanced text, as the ticks */
	if (fabs(m - 1.0) < 1e-9)
		fprintf(f, "10^{%d}", e);
	else
		fprintf(f, "%.3g×10^{%d}", m, e);
}

/* gnuplot -c script out: 0, or -1 with why in msg. */
static int spawn(const char *gnuplot, const char *script, const char *out,
		 char *msg, size_t len)
{
	posix_spawn_file_actions_t fa;
	char *const argv[] = {(char *)gnuplot, (char *)"-c", (char *)script,
			      (char *)out, NULL};
	char buf[4096];
	size_t got = 0;
	ssize_t r;
	int fd[2], st, rc;
	pid_t pid;

	if (pipe(fd)) {
		snprintf(msg, len, "cannot run %s: %s", gnuplot,
			 strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	rc = posix_spawn(&pid, gnuplot, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc) {
		close(fd[0]);
		snprintf(msg, len, "cannot run %s: %s", gnuplot, strerror(rc));
		return -1;
	}
	/* keep the start of what it says, read the rest so it never blocks */
	while ((r = read(fd[0], buf + got, sizeof buf - 1 - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
		if (got == sizeof buf - 1) {
			char sink[4096];

			while ((r = read(fd[0], sink, sizeof sink)) > 0 ||
			       (r < 0 && errno == EINTR))
				;
			break;
		}
	}
	buf[got] = '\0';
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(msg, len, "%s: %s", gnuplot, strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	/* gnuplot's error: the last non-empty line says what went wrong */
	{
		char *line = NULL, *save = NULL;

		for (char *l = strtok_r(buf, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			if (strspn(l, " \t^") != strlen(l))
				line = l;
		if (WIFEXITED(st))
			snprintf(msg, len, "%s exited with status %d%s%s",
				 gnuplot, WEXITSTATUS(st), line ? ": " : "",
				 line ? line : "");
		else
			snprintf(msg, len, "%s was killed by signal %d", gnuplot,
				 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	}
	return -1;
}

static const char *const formats[] = {"pdf", "png", "svg"};

/* tmp.FMT, as drawn, renamed over name.FMT (its data on the disk first);
 * name.pdf removed when none was drawn: 0, or -1 with why in msg. */
static int settle(const char *tmp, const char *name, char *msg, size_t len)
{
	char from[4200], to[4200];

	for (int i = 0; i < 3; i++) {
		int fd;

		snprintf(from, sizeof from, "%s.%s", tmp, formats[i]);
		snprintf(to, sizeof to, "%s.%s", name, formats[i]);
		fd = open(from, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/* a PDF of an earlier run must not pass for this one's */
			if (i == 0 && unlink(to) && errno != ENOENT)
				goto fail;
			continue;
		}
		if (fd < 0 || fsync(fd)) {
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		close(fd);
		if (rename(from, to))
			goto fail;
	}
	return 0;
fail:
	snprintf(msg, len, "%s: cannot write: %s", to, strerror(errno));
	return -1;
}

int px_plot_run(const char *gnuplot, const char *script, char *msg,
		size_t len)
{
	const size_t n = strlen(script);
	char name[4096], left[4200];
	struct px_outfile o;
	struct px_error err;
	int rc;

	/* DIR/NAME of DIR/NAME.gp, and a unique DIR/.NAME.XXXXXX held
	 * while gnuplot draws to DIR/.NAME.XXXXXX.FMT */
	snprintf(name, sizeof name, "%.*s", (int)(n > 3 ? n - 3 : n), script);
	if (px_outfile_open(&o, name, &err)) {
		snprintf(msg, len, "%s", err.msg);
		return -1;
	}
	rc = spawn(gnuplot, script, o.tmp ? o.tmp : name, msg, len);
	if (!rc && o.tmp)
		rc = settle(o.tmp, name, msg, len);
	for (int i = 0; i < 3 && o.tmp; i++) {
		snprintf(left, sizeof left, "%s.%s", o.tmp, formats[i]);
		unlink(left);
	}
	px_outfile_abort(&o);
	return rc;
}
