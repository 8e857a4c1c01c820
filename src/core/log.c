// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c - the message sink, and the hooks that catch library messages.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>
#include <event-utils.h>

#include "core/format.h"
#include "core/log.h"

static void (*log_sink)(void *ctx, enum log_level level, const char *msg);
static void *log_ctx;
static enum log_level log_level = LOG_LVL_WARN;

void log_set_sink(void (*sink)(void *ctx, enum log_level level, const char *msg), void *ctx)
{
	log_sink = sink;
	log_ctx = ctx;
}

void (*log_get_sink(void **ret_ctx))(void *ctx, enum log_level level, const char *msg)
{
	*ret_ctx = log_ctx;
	return log_sink;
}

void log_set_level(enum log_level level)
{
	log_level = level;
}

static void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	char raw[512], clean[512];
	int n;

	if (!log_sink || level > log_level)
		return;
	n = vsnprintf(raw, sizeof(raw), fmt, ap);
	if (n < 0)
		return;
	/* drop one trailing newline: sinks add their own */
	n = (int)strnlen(raw, sizeof(raw));
	while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == ' '))
		raw[--n] = '\0';
	fmt_sanitize(clean, sizeof(clean), raw, (size_t)n);
	log_sink(log_ctx, level, clean);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

/*
 * libtraceevent and libtracefs print through weak functions that we may
 * override (see tep_vprint(3)). Route them into the sink, at debug level:
 * they are parse chatter about events stacktop does not use, never
 * something the user must act on (errors come back as return values).
 */
int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt,
	       va_list ap)
{
	(void)name;
	(void)print_err;
	(void)level;
	log_vmsg(LOG_LVL_DEBUG, fmt, ap);
	return 0;
}

void tep_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_LVL_DEBUG, fmt, ap);
	va_end(ap);
}

void tracefs_warning(const char *fmt, ...);
void tracefs_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_LVL_DEBUG, fmt, ap);
	va_end(ap);
}
