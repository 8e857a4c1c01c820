/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - the core's only way to say something.
 *
 * The core never prints. It hands messages to a sink that the front end
 * installs: batch mode writes them to stderr, the curses UI shows the last
 * one in its status line. Warnings from libtracefs and libtraceevent are
 * routed here too (core/log.c overrides their weak print hooks), so library
 * noise never lands on the curses screen.
 */
#ifndef STACKTOP_LOG_H
#define STACKTOP_LOG_H

enum log_level {
	LOG_LVL_ERR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
	LOG_LVL_MAX,
};

/**
 * log_set_sink() - install the function that receives core messages
 * @sink: called with @ctx, the level and a NUL-terminated, already sanitized
 *        message; NULL drops every message
 * @ctx: passed through to @sink
 *
 * Messages whose level is above the verbosity set by log_set_level() are
 * dropped before they reach the sink.
 */
void log_set_sink(void (*sink)(void *ctx, enum log_level level, const char *msg), void *ctx);

/**
 * log_get_sink() - the sink installed now, to put it back later
 * @ret_ctx: receives its context
 *
 * Return: the sink function (NULL when none).
 */
void (*log_get_sink(void **ret_ctx))(void *ctx, enum log_level level, const char *msg);

/**
 * log_set_level() - set the most verbose level that reaches the sink
 * @level: LOG_LVL_WARN by default
 */
void log_set_level(enum log_level level);

/**
 * log_msg() - format a message and pass it to the sink
 * @level: severity
 * @fmt: printf format
 *
 * Control characters in the result are replaced, so a kernel string in the
 * arguments cannot move the cursor. Safe to call with no sink installed.
 */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)   log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif /* STACKTOP_LOG_H */
