/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters.h - the header's counters, one row each (an X-macro, as tig's
 * REQ_INFO): numbers and names only. A row is the member of struct
 * session_stats (source/stats.h), its interval count, where it comes from,
 * its name (the JSON key a snapshot writes and reads it by) and whether the
 * JSON reader needs it. How a counter is put into words (the batch header's
 * sentences, the screen's labels, the notes of pprof and speedscope) and in
 * which order is the output layer's table, output/counters.c. Every layer
 * that names a counter iterates this list:
 *
 *   source/stats.h      the members of struct session_stats
 *   session/run.c       copied from ingest's counters, interval counts
 *   ingest/snapshot.c   read from a snapshot (struct snapshot's @count)
 *   source/replay_json.c  a snapshot's counts added to the session's
 *   output/counters.c   the table the writers read (output/counters.h):
 *                       output/json.c by name, and the rows of words of
 *                       output/header.c (batch), diff.c, pprof.c,
 *                       speedscope.c and ui/uifmt.c (screen)
 *
 * The list is in core/ so that every layer that names a counter, the
 * reader in ingest/ among them, can expand it; it needs no type of its own.
 *
 * A row, after a comment saying what it counts:
 * X(field, type, delta, from, json, read)
 *
 * @field:  the member of struct session_stats
 * @type:   U64 a count; BYTES a count of bytes; U32 a plain number; BOOL
 * @delta:  ND none; D a member field_delta, the last closed interval's
 *          count (set at each tick); DL the same, kept from the last tick
 *          on between ticks (found while reading: a total shown before
 *          the next tick never rises beside a "+0")
 * @from:   ING(member) the member of struct ingest_stats the session
 *          copies at every sync (and a snapshot's count is added to);
 *          SRC the sources or the session set it themselves
 * @json:   J(place, "key") the total and, with a delta, "key_delta";
 *          JT(place, "key") the total only; NONE not written. The key
 *          is the counter's name. The places (HCJ_*) are the root object
 *          (HEAD before the view's counts, LOSS with its deltas after the
 *          totals, ROOT), "memory", "ringbuf" and the off-CPU part of
 *          "weight"; in a place the keys come in the list's order
 * @read:   REQ the reader refuses a snapshot without it; REQ2 and without
 *          its delta; OPT read when present (0 when absent: every counter
 *          newer than the first files of version 2); NO not read
 */
#ifndef STACKTOP_COUNTERS_H
#define STACKTOP_COUNTERS_H

/* clang-format off */
#define SESSION_COUNTERS(X)                                                                    \
	/* stack-carrying events counted */                                                     \
	X(events, U64, D, ING(events), J(HEAD, "hits"), REQ2)                                   \
	/* events missing from the counts: overrun + dropped (+ perf's lost samples) */         \
	X(lost, U64, DL, ING(lost), J(LOSS, "lost"), REQ)                                       \
	/* events the kernel overwrote before they were read (ingest_stats()) */                \
	X(overrun, U64, DL, ING(overrun), J(LOSS, "overrun"), REQ)                              \
	/* events the kernel refused: per_cpu stats' dropped events + commit overrun */         \
	X(dropped, U64, DL, ING(dropped), J(LOSS, "dropped"), REQ)                              \
	/* ring-buffer records read: events, their stacks */                                    \
	X(records, U64, D, ING(records), J(ROOT, "records"), OPT)                               \
	/* events read whole, each with its stack (what lost is out of: lost / (it + lost)) */  \
	X(events_read, U64, DL, ING(events_read), J(ROOT, "events_read"), OPT)                  \
	/* events with a stack that the pid filter left out */                                  \
	X(filtered, U64, D, ING(filtered), J(ROOT, "filtered"), OPT)                            \
	/* -u fp: user stacks of the leaf alone (no frame-pointer chain) */                     \
	X(ustack_one, U64, ND, ING(ustack_one), J(ROOT, "user_one_frame"), OPT)                 \
	/* records of events not traced, skipped (page.c) */                                    \
	X(foreign, U64, ND, ING(foreign), J(ROOT, "foreign"), OPT)                              \
	/* --oncpu=tick: stacks with no interrupt entry frame (kept whole) */                   \
	X(tick_whole, U64, ND, ING(tick_whole), J(ROOT, "tick_whole"), OPT)                     \
	/* --oncpu: times perf throttled the cpu-clock sampling */                              \
	X(throttled, U64, D, SRC, J(ROOT, "throttled"), OPT)                                    \
	/* --sample: every hit of the sampled events, counted by perf */                        \
	X(exact_events, U64, D, SRC, J(ROOT, "exact_events"), OPT)                              \
	/* --sample: samples counted; hits / samples is the weight a sample stands for */       \
	X(samples, U64, ND, SRC, J(ROOT, "samples"), OPT)                                       \
	/* --overhead: the share of the CPUs the stacks may cost, thousandths of a percent */   \
	X(overhead_target, U32, ND, SRC, J(ROOT, "overhead_target_milli"), NO)                  \
	/* --overhead: what they cost at the N in force, estimated (the same unit) */           \
	X(overhead_est, U32, ND, SRC, J(ROOT, "overhead_est_milli"), NO)                        \
	/* --overhead: what a stack costs the task, calibrated and scaled by depth */           \
	X(stack_cost_ns, U32, ND, SRC, J(ROOT, "stack_cost_ns"), NO)                            \
	/* --overhead: the N in force over the last interval, weighted by the hits it */         \
	/* sampled, and the least and the most it was */                                          \
	X(overhead_n, U32, ND, SRC, J(ROOT, "overhead_n_mean"), NO)                              \
	X(overhead_n_min, U32, ND, SRC, J(ROOT, "overhead_n_min"), NO)                           \
	X(overhead_n_max, U32, ND, SRC, J(ROOT, "overhead_n_max"), NO)                           \
	/* --sample: one hit in this many gets its stack (0: every hit) */                      \
	X(sample_period, U32, ND, SRC, J(ROOT, "sample_period"), NO)                            \
	/* --sample: the design effect of the samples' batches, 1/1000 (each row's interval is */ \
	/* widened by its square root) */                                                       \
	X(sample_deff, U32, ND, SRC, J(ROOT, "sample_deff_milli"), NO)                          \
	/* --sample: the rows' variance: the samples' weights squared, added up, times the */   \
	/* design effect (a row of h hits of H: h (1 - h / H) sample_var / hits) */              \
	X(sample_var, U64, ND, SRC, J(ROOT, "sample_var"), OPT)                                 \
	/* --sample: hits counted before any sample of their event came (in exact_events, */    \
	/* in no row yet) */                                                                    \
	X(sample_unplaced, U64, ND, SRC, J(ROOT, "sample_unplaced"), OPT)                       \
	/* stack records with no event before them */                                           \
	X(orphans, U64, ND, ING(orphans), J(ROOT, "orphans"), REQ)                              \
	/* pages that failed to parse */                                                        \
	X(bad_pages, U64, ND, ING(bad_pages), J(ROOT, "bad_pages"), REQ)                        \
	/* records shorter than their format, timestamps out of order */                        \
	X(damaged, U64, ND, ING(damaged), J(ROOT, "damaged"), NO)                               \
	/* full kernel_stack records in stackmap mode */                                        \
	X(fallbacks, U64, DL, ING(fallbacks), JT(ROOT, "fallbacks"), REQ)                       \
	/* stack ids not found in the map snapshot */                                           \
	X(unresolved, U64, ND, ING(unresolved), J(ROOT, "unresolved"), REQ)                     \
	/* stack ids at or above the map's table_size */                                        \
	X(bad_ids, U64, ND, ING(bad_ids), J(ROOT, "bad_ids"), NO)                               \
	/* the per-CPU ring buffer read, KiB (what a loss's hint says to raise) */              \
	X(buffer_kb, U32, ND, SRC, J(ROOT, "buffer_kb"), NO)                                    \
	/* bumped by every reset */                                                             \
	X(generation, U32, ND, SRC, J(ROOT, "generation"), NO)                                  \
	/* tracing_on of the instance read */                                                   \
	X(tracing_on, BOOL, ND, SRC, J(ROOT, "tracing_on"), NO)                                 \
	/* options/stackmap (stackmap kernels) */                                               \
	X(stackmap_on, BOOL, ND, SRC, J(ROOT, "stackmap_on"), NO)                               \
	/* reads of kallsyms after the first (a miss in code not named before: sym/ksym.h) */   \
	X(ksym_reloads, U64, ND, SRC, J(ROOT, "ksym_reloads"), NO)                              \
	/* stacktop's own CPU over the last interval, thousandths of a percent of one CPU */    \
	/* (the header's "self cpu") */                                                         \
	X(self_cpu_milli, U32, ND, SRC, J(ROOT, "self_cpu_milli"), NO)                          \
	/* drains that ran out of budget */                                                     \
	X(drains_cut, U64, ND, SRC, J(ROOT, "drains_cut"), NO)                                  \
	/* pid -> command lookups no source answered (kernel/comm.c) */                         \
	X(comm_unnamed, U64, D, SRC, J(ROOT, "comm_unnamed"), OPT)                              \
	/* held by the stack table */                                                           \
	X(mem_bytes, BYTES, ND, SRC, J(MEM, "bytes"), NO)                                       \
	/* --max-memory: bounds mem_bytes + mem_usym + mem_unwind */                            \
	X(mem_limit, BYTES, ND, SRC, J(MEM, "limit"), NO)                                       \
	/* the process's resident memory, 0 if unknown */                                       \
	X(mem_rss, BYTES, ND, SRC, J(MEM, "rss"), NO)                                           \
	/* breakdown records of exited pids folded */                                           \
	X(mem_folded, U64, ND, SRC, J(MEM, "folded"), NO)                                       \
	/* new stacks not kept: over the limit */                                               \
	X(mem_over_stacks, U64, ND, SRC, J(MEM, "over_stacks"), NO)                             \
	/* hits kept without their stack or breakdown */                                        \
	X(mem_over_hits, U64, ND, SRC, J(MEM, "over_hits"), NO)                                 \
	/* held by the user-space symbolizer (-u) */                                            \
	X(mem_usym, BYTES, ND, SRC, J(MEM, "usym"), NO)                                         \
	/* user frames not interned: its share was full */                                      \
	X(mem_usym_refused, U64, ND, SRC, J(MEM, "usym_refused"), NO)                           \
	/* of mem_bytes, the trends' slots */                                                   \
	X(mem_trend, BYTES, ND, SRC, J(MEM, "trend"), NO)                                       \
	/* stacks refused a trend slot: over the limit */                                       \
	X(mem_trend_refused, U64, ND, SRC, J(MEM, "trend_refused"), NO)                         \
	/* dwarf: unwind tables and vdso copies held */                                         \
	X(mem_unwind, BYTES, ND, SRC, J(MEM, "unwind"), NO)                                     \
	/* mapped files not read: not regular, FUSE, ... */                                     \
	X(usym_files_refused, U64, ND, SRC, J(MEM, "usym_files_refused"), NO)                   \
	/* files whose symbols did not fit the share */                                         \
	X(usym_files_big, U64, ND, SRC, J(MEM, "usym_files_big"), NO)                           \
	/* reads of other users' files abandoned past their deadline (sym/ufile.h) */           \
	X(user_files_stalled, U64, ND, SRC, J(MEM, "user_files_stalled"), NO)                   \
	/* ring-buffer bytes read (struct ingest_stats.bytes) */                                \
	X(rb_bytes, BYTES, ND, ING(bytes), J(RINGBUF, "bytes"), NO)                             \
	/* stack records of known depth, */                                                     \
	X(sized_records, U64, ND, ING(sized_records), J(RINGBUF, "sized_records"), NO)          \
	/* their ring-buffer bytes as read, */                                                  \
	X(sized_bytes, BYTES, ND, ING(sized_bytes), J(RINGBUF, "sized_bytes"), NO)              \
	/* and in the other representation */                                                   \
	X(alt_bytes, BYTES, ND, ING(alt_bytes), J(RINGBUF, "alt_bytes"), NO)                    \
	/* read() calls of trace_pipe_raw that returned a page (source/cpubufs.c) */            \
	X(rb_reads, U64, ND, SRC, J(RINGBUF, "reads"), NO)                                      \
	/* of them, pages copied while the kernel still wrote on them: the reader caught up */  \
	X(rb_partial, U64, ND, SRC, J(RINGBUF, "partial_pages"), NO)                            \
	/* drains: the reader's wakeups (a poll, a key, the end of an interval) */              \
	X(rb_drains, U64, ND, SRC, J(RINGBUF, "drains"), NO)                                    \
	/* --offcpu: switch-outs ended (a sentence of output/header.c and a screen segment give */ \
	/* the share of them ended at the wakeup) */                                            \
	X(offcpu_sleeps, U64, ND, ING(offcpu_sleeps), J(OFFCPU, "sleeps"), NO)                  \
	/* --offcpu: times ended at the wakeup (no switch-in) */                                \
	X(offcpu_woken, U64, ND, ING(offcpu_woken), J(OFFCPU, "ended_at_wakeup"), NO)           \
	/* --offcpu: switch-outs with neither: not counted */                                   \
	X(offcpu_unpaired, U64, ND, ING(offcpu_unpaired), J(OFFCPU, "unpaired"), NO)            \
	/* --offcpu: switches not followed (table full) */                                      \
	X(offcpu_dropped, U64, ND, ING(offcpu_dropped), J(OFFCPU, "dropped"), NO)
/* clang-format on */

/* the counters by name: HC_events, HC_lost, ...; HC_N of them */
#define HC_ENUM(field, ...) HC_##field,
enum session_counter { SESSION_COUNTERS(HC_ENUM) HC_N };
#undef HC_ENUM

/* @type */
enum { HCY_U64, HCY_BYTES, HCY_U32, HCY_BOOL };
/* @delta */
enum { HCD_ND, HCD_D, HCD_DL };
/* @read */
enum { HCR_NO, HCR_OPT, HCR_REQ, HCR_REQ2 };
/* @json's places */
enum { HCJ_NONE, HCJ_HEAD, HCJ_LOSS, HCJ_ROOT, HCJ_MEM, HCJ_RINGBUF, HCJ_OFFCPU };

/*
 * The columns, spelled for an expansion: paste the prefix to the column
 * (HCY_##type, HCD_##delta, HCR_##read) or to its first word
 * (HCJP_##json, HCJK_##json, HCJD_##json), which turns J(ROOT, "x") into
 * HCJP_J(ROOT, "x"): HCJ_ROOT.
 */
#define HCJP_J(place, key)  HCJ_##place
#define HCJP_JT(place, key) HCJ_##place
#define HCJP_NONE	    HCJ_NONE
#define HCJK_J(place, key)  key
#define HCJK_JT(place, key) key
#define HCJK_NONE	    ((const char *)0)
#define HCJD_J(place, key)  1
#define HCJD_JT(place, key) 0
#define HCJD_NONE	    0
#define HCI_ING(member)	    1
#define HCI_SRC		    0

/* the C type of a member, and its _delta member */
#define HC_CTYPE_U64   uint64_t
#define HC_CTYPE_BYTES uint64_t
#define HC_CTYPE_U32   uint32_t
#define HC_CTYPE_BOOL  bool
#define HC_DMEMBER_ND(field)
#define HC_DMEMBER_D(field)  uint64_t field##_delta;
#define HC_DMEMBER_DL(field) uint64_t field##_delta;

/* for struct session_stats: the members of the rows */
#define HC_MEMBERS(field, type, delta, ...)                                                        \
	HC_CTYPE_##type field;                                                                     \
	HC_DMEMBER_##delta(field)

#endif /* STACKTOP_COUNTERS_H */
