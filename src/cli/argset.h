/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * argset.h - struct args: what the command line asks for, filled by
 * args_parse() (args.h) and, for the plain options, by the table of
 * options.h, whose rows name its fields (offsetof).
 */
#ifndef STACKTOP_CLI_ARGSET_H
#define STACKTOP_CLI_ARGSET_H

#include <stdbool.h>

#include "core/opts.h"
#include "cli/serve_conf.h"
#include "core/rank.h"
#include "output/export.h"

#define MAX_EVENTS 64
#define MAX_LIST   1024
#define MAX_FILES  63

struct args {
	struct session_opts so;
	const char *events[MAX_EVENTS];
	const char *functions[MAX_EVENTS];
	const char *kprobes[MAX_EVENTS];
	const char *triggers[MAX_EVENTS];
	int filtered; /* -e arguments --filter has seen */
	int pids[MAX_LIST];
	int tids[MAX_LIST];
	int cpus[MAX_LIST];
	const char *comm;
	double delay;
	long iterations;
	bool batch;
	int top;
	int expand;
	bool mouse;
	bool color;
	int format;	    /* enum export_format, -1 until known */
	const char *output; /* -o FILE */
	enum export_root root;
	bool lost_stack; /* --folded-lost */
	bool cumulative;
	enum rank_key sort;
	const char *event_filter;
	int verbose;
	bool list_events;
	const char *list_glob;
	char weight_event[256];	      /* SYS:EVENT of --weight */
	bool count;		      /* --count: rank by hits though weighted */
	const char *files[MAX_FILES]; /* -r */
	bool sort_set;		      /* --sort or --cumulative given */
	const char *diff_before;      /* --diff BEFORE AFTER */
	const char *diff_after;	      /* a file, or NULL for the live kernel ("-") */
	const char *diff_base;	      /* -r AFTER --diff-base BEFORE */
	bool diff;
	bool view_set;		 /* the view comes from a snapshot */
	bool view_delta;	 /* a snapshot ranked by its interval counts */
	const char *view_filter; /* a snapshot's text filter (the screen applies it again) */
	const char *view_comm;	 /* a snapshot's comm filter, as `p` takes it */
	struct rank_opts view;	 /* a snapshot's filters (event, pid, cpu, hide_idle) */
	bool help;		 /* -h: print the help and exit */
	bool cleanup;		 /* --cleanup: undo what dead runs left, and exit */
	char **cmd; /* -- CMD [ARGS]: the command to start and trace, NULL-terminated */
	const char *preserve_env; /* --preserve-env[=VAR,...]: "" all, NULL none */
	bool delay_set;		  /* -d given */
	struct serve_opts serve;  /* --serve and its options */
	bool quiet;		  /* -q: no report on standard output */
};

#endif /* STACKTOP_CLI_ARGSET_H */
