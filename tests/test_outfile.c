/* core/outfile.c: a file written under a temporary name in its folder and
 * renamed into place; published after its header and cut back to its last
 * whole row when a write fails; the exact error lines. */
#include <signal.h>
#include <sys/resource.h>

#include "helpers.h"
#include "outfile.h"

/* Files over `bytes` fail with EFBIG (no SIGXFSZ: it would kill the
 * test). */
static void file_size_limit(rlim_t bytes)
{
	const struct rlimit lim = {bytes, RLIM_INFINITY};

	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

/* The names in dir but . and .., sorted, joined by spaces. */
static void names(const char *dir, char *buf, size_t len)
{
	struct dirent **e;
	const int n = scandir(dir, &e, NULL, alphasort);
	size_t at = 0;

	cr_assert_geq(n, 0);
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(e[i]->d_name, ".") && strcmp(e[i]->d_name, ".."))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? " " : "", e[i]->d_name);
		free(e[i]);
	}
	free(e);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* A fresh folder for one test into dir (64 bytes), and path (128 bytes)
 * the file name in it, which holds old when old is not NULL. */
static void in_fresh_folder(char *dir, char *path, const char *name,
			    const char *old)
{
	snprintf(dir, 64, "/tmp/px-outfile-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, 128, "%s/%s", dir, name);
	if (old)
		put(path, old);
}

Test(outfile, commit_replaces_the_file_and_leaves_nothing_else)
{
	char dir[64], path[128], buf[256];
	struct px_outfile o;
	struct px_error err = {0};

	in_fresh_folder(dir, path, "out.csv", "old\n");
	cr_assert_eq(px_outfile_open(&o, path, &err), PX_OK);
	fputs("new\n", o.f);
	/* until the commit: the old file, and a hidden temporary one */
	read_text(path, buf, sizeof buf);
	cr_assert_str_eq(buf, "old\n");
	names(dir, buf, sizeof buf);
	cr_assert_eq(strncmp(buf, ".out.csv.", 9), 0, "names: %s", buf);
	cr_assert_str_eq(strchr(buf, ' '), " out.csv");
	cr_assert_eq(px_outfile_commit(&o, &err), PX_OK, "%s", err.msg);
	read_text(path, buf, sizeof buf);
	cr_assert_str_eq(buf, "new\n");
	names(dir, buf, sizeof buf);
	cr_assert_str_eq(buf, "out.csv");
}

Test(outfile, abort_keeps_the_old_file)
{
	char dir[64], path[128], buf[256];
	struct px_outfile o;
	struct px_error err = {0};

	in_fresh_folder(dir, path, "out.csv", "old\n");
	cr_assert_eq(px_outfile_open(&o, path, &err), PX_OK);
	fputs("half a", o.f);
	fflush(o.f);
	px_outfile_abort(&o);
	px_outfile_abort(&o); /* twice: a no-op */
	read_text(path, buf, sizeof buf);
	cr_assert_str_eq(buf, "old\n");
	names(dir, buf, sizeof buf);
	cr_assert_str_eq(buf, "out.csv");
}

Test(outfile, missing_folder_and_a_folder_as_target)
{
	char dir[64], path[128];
	struct px_outfile o;
	struct px_error err = {0};

	in_fresh_folder(dir, path, "no/out.csv", NULL);
	cr_assert_eq(px_outfile_open(&o, path, &err), PX_ERR_IO);
	cr_assert_str_eq(
	    strstr(err.msg, "/no/out.csv"),
	    "/no/out.csv: cannot write: No such file or directory");
	cr_assert_eq(px_outfile_open(&o, dir, &err), PX_ERR_IO);
	cr_assert_str_eq(strchr(err.msg, ':'),
			 ": cannot write: Is a directory");
}

Test(outfile, full_device_fails_at_commit)
{
	struct px_outfile o;
	struct px_error err = {0};

	if (access("/dev/full", W_OK))
		cr_skip_test("no writable /dev/full");
	cr_assert_eq(px_outfile_open(&o, "/dev/full", &err), PX_OK);
	cr_assert(o.direct);
	fputs("x\n", o.f);
	cr_assert_eq(px_outfile_commit(&o, &err), PX_ERR_IO);
	cr_assert_str_eq(err.msg,
			 "/dev/full: cannot write: No space left on device");
}

Test(outfile, published_rows_are_visible_and_whole)
{
	char dir[64], path[128], buf[256];
	struct px_outfile o;
	struct px_error err = {0};

	in_fresh_folder(dir, path, "run.csv", "a previous run\n");
	cr_assert_eq(px_outfile_open(&o, path, &err), PX_OK);
	fputs("step\n", o.f);
	cr_assert_eq(px_outfile_publish(&o, &err), PX_OK, "%s", err.msg);
	read_text(path, buf, sizeof buf);
	cr_assert_str_eq(buf, "step\n");
	fputs("1\n", o.f);
	cr_assert_eq(px_outfile_row(&o, &err), PX_OK);
	fputs("2", o.f); /* a row under way is not there yet */
	read_text(path, buf, sizeof buf);
	cr_assert_str_eq(buf, "step\n1\n");
	px_outfile_abort(&o); /* the whole rows stay */
	read_text(path, buf, sizeof buf);
	cr_assert_str_eq(buf, "step\n1\n");
	names(dir, buf, sizeof buf);
	cr_assert_str_eq(buf, "run.csv");
}

/* Rows of 100 bytes past a file size limit of 1000: the file keeps the
 * header and the rows that fit whole, and the error says why. */
Test(outfile, failed_row_is_cut_back_to_the_last_whole_one)
{
	char dir[64], path[128], row[101], buf[2048];
	struct px_outfile o;
	struct px_error err = {0};
	int rows = 0, rc = PX_OK;

	in_fresh_folder(dir, path, "run.csv", NULL);
	memset(row, 'x', 99);
	row[99] = '\n';
	row[100] = '\0';
	file_size_limit(1000);
	cr_assert_eq(px_outfile_open(&o, path, &err), PX_OK);
	fputs("head\n", o.f);
	cr_assert_eq(px_outfile_publish(&o, &err), PX_OK);
	while (rows < 20 && !(rc = (fputs(row, o.f), px_outfile_row(&o, &err))))
		rows++;
	cr_assert_eq(rc, PX_ERR_IO);
	cr_assert_eq(rows, 9); /* 5 + 9 x 100 <= 1000 < 5 + 10 x 100 */
	cr_assert_str_eq(strchr(err.msg, ':'),
			 ": cannot write: File too large");
	cr_assert_null(o.f);
	read_text(path, buf, sizeof buf);
	cr_assert_eq(strlen(buf), 5 + 9 * 100);
	cr_assert_eq(strncmp(buf, "head\n", 5), 0);
	cr_assert_eq(buf[strlen(buf) - 1], '\n');
}

/* Past the limit in a file renamed at the end: the old file stays. */
Test(outfile, failed_commit_keeps_the_old_file)
{
	char dir[64], path[128], buf[256];
	struct px_outfile o;
	struct px_error err = {0};

	in_fresh_folder(dir, path, "state.csv", "old\n");
	file_size_limit(1000);
	cr_assert_eq(px_outfile_open(&o, path, &err), PX_OK);
	for (int i = 0; i < 2000; i++)
		fputc('y', o.f);
	cr_assert_eq(px_outfile_commit(&o, &err), PX_ERR_IO);
	cr_assert_str_eq(strchr(err.msg, ':'),
			 ": cannot write: File too large");
	read_text(path, buf, sizeof buf);
	cr_assert_str_eq(buf, "old\n");
	names(dir, buf, sizeof buf);
	cr_assert_str_eq(buf, "state.csv");
}
