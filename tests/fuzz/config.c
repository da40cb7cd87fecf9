/* Fuzz target: the INI solver config reader (px_config_read), which loads
 * the plugins it names and checks their declared parameters. */
#include <proxima/proxima.h>

#include "fuzz.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_plugin_path();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_config *cfg = NULL;
	struct px_error err = {0};

	fuzz_file(path, ".ini", data, size);
	if (px_config_read(path, &cfg, &err) == PX_OK) {
		if (!cfg)
			abort();
		px_config_free(cfg);
	} else if (cfg || !err.msg[0] || strchr(err.msg, '\n')) {
		abort();
	}
	return 0;
}
