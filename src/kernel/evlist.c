// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evlist.c - the events a tracefs offers, and whether they can carry stacks.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/evlist.h"
#include "core/format.h"
#include "kernel/tfs.h"

#define NAME_MAX_LEN 256

static bool evlist_match(const char *glob, const char *name, const char *event)
{
	if (!glob)
		return true;
	if (!fnmatch(glob, name, 0))
		return true;
	return !strchr(glob, ':') && !fnmatch(glob, event, 0);
}

int evlist_read(struct tfs *t, const char *glob, evlist_visit_fn visit, void *ctx)
{
	char *buf, *line, *save = NULL;
	bool can_stack;
	int r, n = 0;

	r = tfs_read(t, "available_events", &buf, NULL);
	if (r < 0)
		return r;
	can_stack = tfs_exists(t, "options/stacktrace") &&
		    (tfs_exists(t, "events/ftrace/kernel_stack") ||
		     tfs_exists(t, "events/ftrace/stack_id"));

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[NAME_MAX_LEN], rel[2 * NAME_MAX_LEN];
		char *colon = strchr(line, ':');
		size_t len = strlen(line);

		if (!colon || colon == line || !colon[1] || len >= NAME_MAX_LEN)
			continue; /* not "system:event" */
		fmt_sanitize(name, sizeof(name), line, len);
		if (!evlist_match(glob, name, strchr(name, ':') + 1))
			continue;
		*colon = '\0';
		/* a name is one path component; anything else cannot be enabled */
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", line, colon + 1);
		r = visit(ctx, name,
			  can_stack && !strchr(line, '/') && !strchr(colon + 1, '/') &&
				  strcmp(line, "..") && strcmp(colon + 1, "..") &&
				  tfs_exists(t, rel));
		if (r < 0) {
			n = r;
			break;
		}
		n++;
	}
	free(buf);
	return n;
}
