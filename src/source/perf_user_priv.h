/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_user_priv.h - what the files of the dwarf user-stack source share.
 * Not for other modules: perf_user.h and source.h are its interface.
 *
 * The files, each using only the ones listed before it (perf_user.c, named
 * after perf_user.h, calls none of the others):
 *	perf_user.c       the sample path: each sample unwound, or deferred
 *	                  to the end of the drain when its maps are not in yet
 *	perf_user_vdso.c  the [vdso] copies (its unwind tables are in no file)
 *	perf_user_maps.c  the processes' maps (perf's records, /proc)
 *	perf_user_join.c  the wiring to the session: held kernel stacks,
 *	                  samples as tokens, the join, what is counted
 *	perf_user_ops.c   the source's operations
 */
#ifndef STACKTOP_PERF_USER_PRIV_H
#define STACKTOP_PERF_USER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "core/ujoin.h"
#include "ingest/ingest.h"
#include "kernel/perfsamp.h"
#include "source/perf_user.h"
#include "source/source.h"
#include "sym/dwunwind.h"

#define PU_TIMEOUT_NS (500ULL * 1000 * 1000) /* a record waits for its sample (a read was cut) */
#define PU_DEFER_MAX  64		     /* samples waiting for their process's maps */
#define PU_VDSOS_MAX  8 /* images kept (the kernel has 3: 64-bit, x32, 32-bit) */

struct pu_proc {
	uint32_t tgid;
	uint32_t gen;	     /* bumped by every change of @m */
	unsigned int exited; /* refreshes since its exit, 0 while it runs */
	bool given;	     /* handed to the symbolizer (usym_add_maps()) */
	bool vdso_tried;     /* its [vdso] image was looked for */
	uint32_t fork_of;    /* forked from this process, no map of its own since */
	bool dropped;	     /* its table dropped for memory: read again when asked for */
	bool unread;	     /* its /proc maps not read yet (a refresh's reads were spent) */
	uint64_t used;	     /* when its table was last asked for (struct glue @clock) */
	struct umap *m;	     /* paths interned (perf_user_maps.c) */
	size_t n, cap;
};

struct pu_held {
	struct ingest_held h;
	unsigned int n;
	uint64_t *frames; /* room for the user part too */
};

/* a sample's user part: what the matched record gets */
struct pu_ustack {
	uint32_t tgid;
	unsigned int n; /* tokens, USYM_CUT included */
	uint64_t toks[];
};

struct glue {
	struct source_ctx *s;
	struct ujoin *join;
	bool on;		 /* `u` turned it off: records are counted at once */
	bool discard;		 /* a reset: matches are dropped, not counted */
	struct ujoin_stats base; /* the join's counts at the last reset */
	uint32_t self;
	/* processes: @procs, and an open-addressing index tgid -> slot + 1 */
	struct pu_proc *procs;
	size_t nprocs, cprocs;
	uint32_t *idx;
	size_t idxcap;
	/* the processes' maps: their paths interned, what they hold in all,
	 * bounded by @maps_limit (an eighth of --max-memory), tables dropped */
	struct pu_str **strs;
	size_t nstrs, cstrs;
	size_t maps_bytes, maps_limit;
	uint64_t maps_dropped;
	size_t read_lines; /* lines of /proc maps read this refresh */
	uint64_t clock;
	/* held records: slots, a free list of their numbers */
	struct pu_held *held;
	uint32_t nheld, cheld;
	uint32_t *free;
	uint32_t nfree;
	int *evmap;    /* perfsamp event number -> session event index */
	bool *sampled; /* by session event index: has a perf event */
	unsigned int nsampled;
};

/* a copy of a [vdso] image: the unwind tables of its code are in no file */
struct pu_vdso {
	uint8_t bid[64];
	int bidlen; /* 0: no build-id, compared byte for byte */
	uint8_t *image;
	size_t len;
};

/* a sample copied to wait until the other CPUs' rings were read */
struct pu_defer {
	struct perfsamp_sample s;
	uint8_t *stack;
};

struct perf_user {
	struct perf_user_cfg cfg;
	struct pu_defer defer[PU_DEFER_MAX];
	unsigned int ndefer;
	bool retrying;
	struct perfsamp *ps;
	struct dwunwind *uw;
	struct glue *g; /* opened by the session */
	const char **events;
	char **filters; /* per perf event, NULL: none */
	pid_t *tasks;	/* -p/--tid: the threads sampled */
	unsigned int ntasks, ctasks;
	unsigned int nevents;
	uint64_t unwound, failed, nomaps, skipped;
	uint64_t restarted; /* when the sample period's count started again (mono ns) */
	struct pu_vdso vdsos[PU_VDSOS_MAX];
	unsigned int nvdsos;
	uint64_t ips[PERF_USER_MAX_FRAMES];
	uint64_t utoks[PERF_USER_MAX_TOKENS]; /* a sample's tokens, inlined calls included */
	/* another source's unwinder (perf_user_unwinder_new()): where samples go */
	void (*to)(void *ctx, const struct perf_user_stack *st);
	void *to_ctx;
};

/* perf_user.c: perfsamp's sample callback (@ctx: struct perf_user) */
void pu_sample(void *ctx, const struct perfsamp_sample *s);
/* perf_user.c: the samples that waited for maps (every ring was read since) */
void pu_retry(struct perf_user *pu);

/* a [vdso] mapping's name */
static inline bool pu_is_vdso(const char *path)
{
	return !strcmp(path, "[vdso]");
}

/* perf_user_vdso.c: the [vdso] mappings of @p get their image (once per process) */
void pu_vdso_attach(struct perf_user *pu, struct pu_proc *p);

/* perf_user_maps.c: perfsamp's callbacks that change the maps (@ctx: struct perf_user) */
void pu_on_mmap(void *ctx, const struct perfsamp_mmap *m);
/* perf_user_maps.c: a COMM record: on exec, @pid's maps start again (MMAP2 records follow) */
void pu_on_comm(void *ctx, uint32_t pid, uint32_t tid, const char *comm, bool exec);
/* perf_user_maps.c: a FORK or EXIT record of @tid: a process's table made or marked ended */
void pu_on_task(void *ctx, uint32_t pid, uint32_t ppid, uint32_t tid, bool exit, uint64_t time);
/* perf_user_maps.c: struct perf_user_cfg @maps_for: the table of @pid, its identity */
size_t pu_maps_for(void *ctx, uint32_t pid, const struct umap **ret, uint64_t *id);
/* perf_user_maps.c: the symbolizer reads /proc/<tgid>/maps; ours serve when that is gone */
void pu_give_maps(struct glue *g, uint32_t tgid);
/* perf_user_maps.c: the maps of exited processes go a few refreshes after the exit */
void pu_procs_expire(struct glue *g);
/* perf_user_maps.c: the processes running already, their maps read now */
void pu_procs_scan(struct glue *g);
/* perf_user_maps.c: every process and its maps freed */
void pu_procs_free(struct glue *g);

/* perf_user_join.c: the session's source, everything wired to it; NULL: ENOMEM */
struct perf_user *pu_glue_new(struct source_ctx *s);
/* perf_user_join.c: what pu_glue_new() made, freed (NULL: nothing) */
void pu_glue_free(struct glue *g);
/* perf_user_join.c: ingest's hold callback (ingest_set_user_hold(), @ctx: the glue) */
bool pu_on_hold(void *ctx, const struct ingest_held *h, const uint64_t *frames, unsigned int n);

#endif /* STACKTOP_PERF_USER_PRIV_H */
