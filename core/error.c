/* The caller-owned error record: one formatted line per failure. */
#include <stdarg.h>
#include <stdio.h>

#include <proxima/error.h>

int px_error_set(struct px_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;

		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

const char *px_status_string(int code)
{
	switch (code) {
	case PX_OK: return "ok";
	case PX_ERR_NOMEM: return "out of memory";
	case PX_ERR_IO: return "input/output error";
	case PX_ERR_FORMAT: return "malformed problem file";
	case PX_ERR_CONFIG: return "bad configuration";
	case PX_ERR_PLUGIN: return "plugin refused";
	case PX_ERR_INVALID: return "invalid argument";
	case PX_ERR_UNSUPPORTED: return "not supported by this build";
	case PX_ERR_DIVERGED: return "diverged";
	}
	return "unknown status";
}
