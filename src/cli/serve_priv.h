/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * serve_priv.h - the server's state (serve.h), shared by its two sides:
 * serve.c, the collector's (the copies, the jobs; the bottom file), and
 * serve_http.c, the server's thread (the requests) with the start and
 * stop.
 */
#ifndef STACKTOP_SERVE_PRIV_H
#define STACKTOP_SERVE_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/serve.h"
#include "output/metrics.h"

struct MHD_Connection;
struct pprof_copy;
struct pprof_names;
struct MHD_Daemon;

enum job_kind { JOB_PROFILE, JOB_JSON, JOB_HTML };

struct job {
	struct job *next;
	struct MHD_Connection *conn;
	enum job_kind kind;
	double seconds;		    /* a profile's window */
	int top;		    /* the JSON snapshot's stacks (0: all) */
	struct export_since *since; /* its start, once the collector opened it */
	struct pprof_copy *copy;    /* a profile's counts, copied by the collector */
	bool done;		    /* @body, @copy or @err is the answer */
	bool suspended;		    /* the server suspended the connection */
	bool resumed;		    /* ... and someone resumed it */
	char *body;
	size_t len;
	int err;
};

/* a published copy, shared by the scrapes writing it */
struct pub {
	unsigned int refs;
	struct metrics_snap *m;
};

struct serve {
	struct MHD_Daemon *d;
	int lfd;	   /* the listening socket until the daemon has it */
	unsigned int port; /* the port it listens on */
	const char *addr;  /* --serve's argument */
	struct serve_conf conf;
	struct report_opts view;
	char url[96];
	pthread_mutex_t lock;
	struct pub *pub;    /* the last copy (a reference of its own) */
	uint64_t ticks;	    /* copies published: the next one's refresh */
	struct job *jobs;   /* waiting for the collector */
	unsigned int njobs; /* not yet done */
	bool stopping;
	bool quiet;		   /* serve_quiesce() done: the collector's calls do nothing */
	struct metrics_serve fig;  /* under @lock */
	struct pprof_names *names; /* the collector's: the frames' names the profiles use */
	int work;		   /* jobs wait: read without the lock by the collector */
};

/**
 * serve_pub_put() - drop a reference to a published copy (the last one frees it)
 * @sv: the server
 * @p: the copy, or NULL
 */
void serve_pub_put(struct serve *sv, struct pub *p);

/**
 * serve_job_finish() - a job's answer is ready (@j->body, @j->copy or @j->err): its
 *	connection resumed by whoever comes second, the server's thread
 *	after its suspension or this call
 * @sv: the server
 * @j: the job, in no list
 */
void serve_job_finish(struct serve *sv, struct job *j);

#endif /* STACKTOP_SERVE_PRIV_H */
