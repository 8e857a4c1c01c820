/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h - what --serve's /metrics says (doc/serve.md): a copy of the
 * session's figures that the collector takes at each refresh
 * (metrics_snap_take(), on the collector's thread) and that any number of
 * scrapes then write out (metrics_write(), on the server's thread) without
 * touching the session: the header's counters (every row of
 * output/counters.h's table), each event's count, the stack map's
 * statistics and pool health, stacktop's own CPU, and the top stacks as
 * labelled counters (their stable key, their leaf function).
 */
#ifndef STACKTOP_METRICS_H
#define STACKTOP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct session;
struct metrics_snap;

/* the most stacks /metrics lists (--serve-top): the series' bound */
#define METRICS_TOP_MAX 1000
/* ... by default */
#define METRICS_TOP_DEFAULT 50

/**
 * metrics_snap_take() - copy what /metrics says of @s now
 * @s: session (read on the caller's thread, the collector's)
 * @top: how many stacks to list, the most hits since start first (at most
 *	 METRICS_TOP_MAX)
 * @refresh: the refresh it was taken at (1, 2, ...)
 *
 * Return: the copy (metrics_snap_free() it), NULL when out of memory.
 */
struct metrics_snap *metrics_snap_take(struct session *s, unsigned int top, uint64_t refresh);

/**
 * metrics_snap_free() - free a copy
 * @m: the copy, or NULL
 */
void metrics_snap_free(struct metrics_snap *m);

/**
 * struct metrics_serve - what serving cost the collector (--serve's own
 *	figures, written after the copy's)
 * @collector_sec: the collector's time on the server's behalf: the copies
 *	and the jobs (profiles' windows and copies, snapshots), seconds
 * @collector_cpu: ... its thread's CPU time then, seconds
 * @profile_sec: the part of @collector_sec spent on the profiles (their
 *	windows opened, their counts copied)
 * @writer_cpu: the server's thread's CPU time writing the profiles from
 *	their copies (encoding, gzip), seconds
 * @copies: copies published
 * @profile_copies: profiles' counts copied by the collector
 * @profiles: profiles written
 * @names_stacks: the stacks the profiles' table of names has resolved
 * @names_bytes: the memory that table holds
 * @snapshots: JSON snapshots and flame pages written
 * @scrapes: /metrics answered
 * @refused: requests refused: 401, 405, 404, 400, 503
 */
struct metrics_serve {
	double collector_sec;
	double collector_cpu;
	double profile_sec;
	double writer_cpu;
	uint64_t copies;
	uint64_t profile_copies;
	uint64_t names_stacks;
	uint64_t names_bytes;
	uint64_t profiles;
	uint64_t snapshots;
	uint64_t scrapes;
	uint64_t refused;
};

/**
 * metrics_write() - the copy in the Prometheus text exposition format
 *	(version 0.0.4), or OpenMetrics 1.0.0 (counters' families without
 *	their _total suffix, units, "# EOF")
 * @f: output
 * @m: the copy (only read: scrapes may write it at once)
 * @sv: the server's figures, NULL for none
 * @openmetrics: the OpenMetrics form
 *
 * Return: 0, or -errno of a failed write.
 */
int metrics_write(FILE *f, const struct metrics_snap *m, const struct metrics_serve *sv,
		  bool openmetrics);

/**
 * metrics_snap_refresh() - the refresh a copy was taken at
 * @m: the copy
 */
uint64_t metrics_snap_refresh(const struct metrics_snap *m);

#endif /* STACKTOP_METRICS_H */
