/* What the fuzz targets share (issue 22): the readers open files by path,
 * so each input is written to one temporary file per process and suffix,
 * rewritten on every run; and the plugins are looked up where the build
 * put them unless PROXIMA_PLUGIN_PATH says otherwise. */
#ifndef PX_FUZZ_H
#define PX_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* PX_FUZZ_PLUGIN_PATH: the fuzz build's plugins, then the normal build's */
static inline void fuzz_plugin_path(void)
{
	if (!getenv("PROXIMA_PLUGIN_PATH"))
		setenv("PROXIMA_PLUGIN_PATH", PX_FUZZ_PLUGIN_PATH, 1);
}

/* the temporary files made, removed at exit */
static char *fuzz_made[4];

static inline void fuzz_unlink(void)
{
	for (int i = 0; i < 4; i++)
		if (fuzz_made[i])
			unlink(fuzz_made[i]);
}

static inline void fuzz_remember(char *path)
{
	int i = 0;

	while (i < 4 && fuzz_made[i])
		i++;
	if (i == 4)
		abort();
	if (i == 0)
		atexit(fuzz_unlink);
	fuzz_made[i] = path;
}

/* data written to a temporary file named ...suffix (suffix: at most 15
 * characters), the same file on every call with the same path buffer;
 * returns path, or aborts when the file cannot be written (the machine's
 * fault, not the input's). */
static inline const char *fuzz_file(char path[64], const char *suffix,
				    const uint8_t *data, size_t size)
{
	FILE *f;

	if (!path[0]) {
		const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		int fd;

		snprintf(path, 64, "%s/px_fuzz_XXXXXX%s", dir, suffix);
		fd = mkstemps(path, (int)strlen(suffix));
		if (fd < 0)
			abort();
		close(fd);
		fuzz_remember(path);
	}
	f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	return path;
}

#endif
