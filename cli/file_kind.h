/* Which command a file is for (cli/file_kind.c), shared by proxima and
 * proxima-mpi. */
#ifndef PX_CLI_FILE_KIND_H
#define PX_CLI_FILE_KIND_H

#include <stddef.h>

struct px_error;

/* PX_OK, or PX_ERR_INVALID with one line in err naming the command the
 * file is for: a scene given where a problem file is expected
 * (refuse_scene), or a problem file (.dat, FCLib) where a scene is
 * (refuse_problem). */
int px_cli_refuse_scene(const char *path, struct px_error *err);
int px_cli_refuse_problem(const char *path, struct px_error *err);

/* The bundled default scene, scenes/default.ini of $PROXIMA_DATA_DIR or
 * else of the installed data folder, into buf; returns buf. */
const char *px_cli_default_scene(char *buf, size_t len);

#endif
