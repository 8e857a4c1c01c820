/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * serve.h - --serve: stacktop answers HTTP while it collects (doc/serve.md).
 *
 * The server (libmicrohttpd, its own thread) never touches the session:
 * the collector (the batch loop or the screen, on the session's thread)
 * publishes a copy of what /metrics says at each refresh (serve_tick()),
 * and renders what needs the session (a profile's window, the JSON
 * snapshot, the flame page) when it next reads (serve_work()), while the
 * request waits suspended. Scrapes cost the collector a copy per refresh
 * and a render per profile; they never hold it back.
 *
 * serve_conf.c (serve_conf.h) reads the configuration (the address, the
 * TLS files, the credentials) and opens the listening socket; serve.c is
 * the collector's side, serve_http.c the server (serve_priv.h: their state).
 */
#ifndef STACKTOP_SERVE_H
#define STACKTOP_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cli/serve_conf.h"
#include "output/rows.h"

struct session;
struct serve;

/**
 * serve_prepare() - read the configuration and listen: a refused address,
 *	a credentials file others can read or a busy port are said before
 *	anything else is done (no thread is started: the guardian and the
 *	command are forked after it)
 * @o: the options (@o->addr set)
 * @ret: the server, not answering yet (serve_stop() frees it)
 * @err: the reason, for the user
 * @errsz: its size
 *
 * Return: 0, or -errno.
 */
int serve_prepare(const struct serve_opts *o, struct serve **ret, char *err, size_t errsz);

/**
 * serve_start() - start answering (the server's thread)
 * @sv: the server serve_prepare() made
 * @err: the reason it could not start, for the user
 * @errsz: its size
 *
 * Return: 0, or -errno.
 */
int serve_start(struct serve *sv, char *err, size_t errsz);

/**
 * serve_set_view() - what the JSON snapshot, the flame page and the
 *	profiles show (before the collector's first serve_work())
 * @sv: the server
 * @view: the view (copied; its callbacks are not kept)
 */
void serve_set_view(struct serve *sv, const struct report_opts *view);

/**
 * serve_url() - "http://127.0.0.1:9090/" (https with TLS), the port the
 *	one listened on
 * @sv: the server
 */
const char *serve_url(const struct serve *sv);

/**
 * serve_tick() - publish what /metrics says now (the collector's thread,
 *	after session_tick())
 * @sv: the server (NULL: nothing)
 * @s: session
 */
void serve_tick(struct serve *sv, struct session *s);

/**
 * serve_work() - what waits for the collector: a profile's window to
 *	open or to be written, a snapshot to write (the collector's thread,
 *	after each read; cheap when there is nothing)
 * @sv: the server (NULL: nothing)
 * @s: session
 */
void serve_work(struct serve *sv, struct session *s);

/**
 * serve_quiesce() - stop answering, at once: requests waiting are answered
 *	503, the server's thread is stopped and its connections closed;
 *	serve_tick() and serve_work() do nothing after. The batch loop calls
 *	it as soon as a stop signal is seen: what the run does after (its last
 *	refresh, tracefs restored) may outlast the signals' watchdog, whose
 *	safety net closes every descriptor (kernel/signals.c)
 * @sv: the server, or NULL
 */
void serve_quiesce(struct serve *sv);

/**
 * serve_stop() - stop the server: requests waiting are answered 503, then
 *	every connection is closed
 * @sv: the server, or NULL
 */
void serve_stop(struct serve *sv);

#endif /* STACKTOP_SERVE_H */
