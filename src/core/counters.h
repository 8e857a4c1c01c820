/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * counters.h - the header's counters, one row each (an X-macro, as tig's
 * REQ_INFO): the member of struct session_stats (source/stats.h), its
 * interval count, where it comes from, its JSON key and whether the JSON
 * reader needs it, and its place in the batch header, the screen's header,
 * the diff and the comments of pprof and speedscope. Every one of those
 * iterates this list; a counter added here is shown everywhere its row
 * says, and read back from a snapshot:
 *
 *   source/stats.h      the members of struct session_stats
 *   session/run.c       copied from ingest's counters, interval counts
 *   ingest/snapshot.c   read from a snapshot (struct snapshot's @count)
 *   source/replay_json.c  a snapshot's counts added to the session's
 *   output/counters.c   the table the writers read (output/counters.h):
 *                       output/header.c (batch), output/json.c, diff.c,
 *                       pprof.c and speedscope.c; ui/uifmt.c (screen)
 *
 * The list is in core/ so that every layer that names a counter, the
 * reader in ingest/ among them, can expand it; it needs no type of its own.
 *
 * A row: X(field, type, delta, from, json, read, text, screen, extra, help)
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
 *          JT(place, "key") the total only; NONE not written. The places
 *          (HCJ_*) are the root object (HEAD before the view's counts,
 *          LOSS with its deltas after the totals, ROOT), "memory",
 *          "ringbuf" and the off-CPU part of "weight"; in a place the
 *          keys come in the list's order
 * @read:   REQ the reader refuses a snapshot without it; REQ2 and without
 *          its delta; OPT read when present (0 when absent: every counter
 *          newer than the first files of version 2); NO not read
 * @text:   TX(line, pos, "words") its words in a line of the batch header
 *          (HCT_*, output/header.c), at position @pos among the line's,
 *          "%s" standing for the value and a second one for the delta;
 *          NONE not there (or written by a sentence of its own)
 * @screen: SC(line, pos, "label", how) a segment of the screen's header
 *          (HCS_*, ui/uifmt.c), @how one of PLAIN, DELTA ("total (+n)",
 *          an alert when n > 0), NZ_ALERT (only when not 0, an alert),
 *          NZ_DELTA (only when not 0, "total (+n)"); NONE not there
 * @extra:  NONE, DIFF (each side of --diff names it when not 0), NOTE
 *          (pprof's comments and speedscope's name name it when not 0),
 *          DIFF_NOTE
 * @help:   what it counts
 */
#ifndef STACKTOP_COUNTERS_H
#define STACKTOP_COUNTERS_H

/* clang-format off */
#define SESSION_COUNTERS(X)                                                                    \
	X(events, U64, D, ING(events), J(HEAD, "hits"), REQ2, NONE,                            \
	  SC(EVENTS, 0, "events", PLAIN), NONE,                                                \
	  "stack-carrying events counted")                                                     \
	X(lost, U64, DL, ING(lost), J(LOSS, "lost"), REQ, TX(LOSS, 0, "lost: %s (+%s)"),      \
	  SC(LOSS, 0, "lost", DELTA), NONE,                                                    \
	  "missed events from page headers")                                                   \
	X(overrun, U64, D, SRC, J(LOSS, "overrun"), REQ, TX(LOSS, 1, "overrun: %s"),          \
	  SC(LOSS, 2, "overrun", DELTA), NONE,                                                 \
	  "per_cpu/cpuN/stats overrun, summed")                                                \
	X(dropped, U64, D, SRC, J(LOSS, "dropped"), REQ, TX(LOSS, 2, "dropped: %s"),          \
	  SC(LOSS, 1, "dropped", DELTA), NONE,                                                 \
	  "per_cpu/cpuN/stats dropped events")                                                 \
	X(records, U64, D, ING(records), J(ROOT, "records"), OPT, NONE, NONE, NONE,           \
	  "ring-buffer records read (what lost_delta is out of)")                              \
	X(filtered, U64, D, ING(filtered), J(ROOT, "filtered"), OPT, NONE,                     \
	  SC(EVENTS, 1, "left out", NZ_DELTA), NONE,                                           \
	  "events with a stack that the pid filter left out")                                  \
	X(ustack_one, U64, ND, ING(ustack_one), J(ROOT, "user_one_frame"), OPT,                \
	  TX(NOTE, 9, "note: %s user stacks were a single frame: the frame-pointer walk found " \
		      "no chain (code built without frame pointers; --user=dwarf walks it)"),   \
	  SC(RATES, 1, "1-frame user stacks", NZ_ALERT), NONE,                                 \
	  "-u fp: user stacks of the leaf alone (no frame-pointer chain)")                     \
	X(foreign, U64, ND, ING(foreign), J(ROOT, "foreign"), OPT,                             \
	  TX(NOTE, 8, "note: %s records of events this run does not trace were skipped, "     \
		      "with their stacks (left in the ring buffer by a run before it)"),        \
	  NONE, NONE, "records of events not traced, skipped (page.c)")                        \
	X(tick_whole, U64, ND, ING(tick_whole), J(ROOT, "tick_whole"), OPT,                   \
	  TX(NOTE, 7, "note: %s tick stacks had no interrupt entry frame: kept whole "        \
		      "(--oncpu=tick starts a stack at the interrupted function)"),             \
	  SC(EVENTS, 3, "untrimmed", NZ_ALERT), NONE,                                          \
	  "--oncpu=tick: stacks with no interrupt entry frame (kept whole)")                   \
	X(throttled, U64, D, SRC, J(ROOT, "throttled"), OPT,                                  \
	  TX(NOTE, 4, "note: perf throttled the sampling %s times (over "                     \
		      "kernel.perf_event_max_sample_rate: fewer samples than asked)"),          \
	  SC(LOSS, 3, "throttled", NZ_ALERT), NONE,                                            \
	  "--oncpu: times perf throttled the cpu-clock sampling")                              \
	X(exact_events, U64, D, SRC, J(ROOT, "exact_events"), OPT,                             \
	  TX(NOTE, 5, "exact: %s events counted by perf (+%s); a stack's hits are "            \
		      "estimates: each sample stands for the hits since the one before"),       \
	  SC(EVENTS, 2, "exact", NZ_DELTA), NOTE,                                              \
	  "--sample: every hit of the sampled events, counted by perf")                        \
	X(samples, U64, ND, SRC, J(ROOT, "samples"), OPT, NONE, NONE, NONE,                    \
	  "--sample: samples counted; hits / samples is the weight a sample stands for")     \
	X(overhead_target, U32, ND, SRC, J(ROOT, "overhead_target_milli"), NO, NONE, NONE, NONE, \
	  "--overhead: the share of the CPUs the stacks may cost, thousandths of a percent")   \
	X(overhead_est, U32, ND, SRC, J(ROOT, "overhead_est_milli"), NO, NONE, NONE, NONE,     \
	  "--overhead: what they cost at the N in force, estimated (the same unit)")           \
	X(stack_cost_ns, U32, ND, SRC, J(ROOT, "stack_cost_ns"), NO, NONE, NONE, NONE,         \
	  "--overhead: what a stack costs the task, calibrated and scaled by depth")           \
	X(sample_period, U32, ND, SRC, J(ROOT, "sample_period"), NO, NONE, NONE, NOTE,         \
	  "--sample: one hit in this many gets its stack (0: every hit)")                      \
	X(sample_deff, U32, ND, SRC, J(ROOT, "sample_deff_milli"), NO, NONE, NONE, NONE,       \
	  "--sample: the design effect of the samples' batches, 1/1000 (each row's interval "  \
	  "is widened by its square root)")                                                    \
	X(orphans, U64, ND, ING(orphans), J(ROOT, "orphans"), REQ,                             \
	  TX(DAMAGED, 2, "%s stack records with no event before them (not counted)"), NONE,   \
	  NONE, "stack records with no event before them")                                     \
	X(bad_pages, U64, ND, ING(bad_pages), J(ROOT, "bad_pages"), REQ,                       \
	  TX(DAMAGED, 0, "%s malformed pages"), NONE, NONE,                                    \
	  "pages that failed to parse")                                                        \
	X(damaged, U64, ND, ING(damaged), J(ROOT, "damaged"), NO,                              \
	  TX(DAMAGED, 1, "%s damaged records"), NONE, NONE,                                    \
	  "records shorter than their format, timestamps out of order")                        \
	X(fallbacks, U64, DL, ING(fallbacks), JT(ROOT, "fallbacks"), REQ,                      \
	  TX(MAP, 0, "fallbacks %s (+%s)"), SC(MAP, 0, "fallbacks", DELTA), NONE,              \
	  "full kernel_stack records in stackmap mode")                                        \
	X(unresolved, U64, ND, ING(unresolved), J(ROOT, "unresolved"), REQ,                    \
	  TX(MAP, 1, "unresolved ids %s"), SC(MAP, 1, "unresolved", NZ_ALERT), NONE,           \
	  "stack ids not found in the map snapshot")                                           \
	X(bad_ids, U64, ND, ING(bad_ids), J(ROOT, "bad_ids"), NO, TX(MAP, 2, "bad ids %s"),   \
	  SC(MAP, 2, "bad ids", NZ_ALERT), NONE,                                               \
	  "stack ids at or above the map's table_size")                                        \
	X(buffer_kb, U32, ND, SRC, J(ROOT, "buffer_kb"), NO, NONE, NONE, NONE,                 \
	  "the per-CPU ring buffer read, KiB (what a loss's hint says to raise)")              \
	X(generation, U32, ND, SRC, J(ROOT, "generation"), NO, TX(MAP, 3, "generation %s"),   \
	  SC(MAP, 3, "gen", PLAIN), NONE,                                                      \
	  "bumped by every reset")                                                             \
	X(tracing_on, BOOL, ND, SRC, J(ROOT, "tracing_on"), NO, NONE, NONE, NONE,              \
	  "tracing_on of the instance read")                                                   \
	X(stackmap_on, BOOL, ND, SRC, J(ROOT, "stackmap_on"), NO, TX(MAP, 4, "option %s"),    \
	  NONE, NONE, "options/stackmap (stackmap kernels)")                                   \
	X(drains_cut, U64, ND, SRC, J(ROOT, "drains_cut"), NO,                                 \
	  TX(NOTE, 3, "note: reading fell behind the kernel (%s reads ended on their time "   \
		      "budget with data left; what the kernel overwrote is in lost/overrun)"),  \
	  NONE, NONE, "drains that ran out of budget")                                         \
	X(comm_unnamed, U64, D, SRC, J(ROOT, "comm_unnamed"), OPT,                             \
	  TX(NOTE, 6, "note: %s pid lookups found no command name (+%s in the interval; "      \
		      "their rows show ?: the process ended before stacktop asked, and "        \
		      "saved_cmdlines or the recording did not name it)"),                      \
	  SC(RATES, 0, "unnamed", NZ_DELTA), NONE,                                             \
	  "pid -> command lookups no source answered (kernel/comm.c)")                         \
	X(mem_bytes, BYTES, ND, SRC, J(MEM, "bytes"), NO, NONE, NONE, NONE,                    \
	  "held by the stack table")                                                           \
	X(mem_limit, BYTES, ND, SRC, J(MEM, "limit"), NO, NONE, NONE, NONE,                    \
	  "--max-memory: bounds mem_bytes + mem_usym + mem_unwind")                            \
	X(mem_rss, BYTES, ND, SRC, J(MEM, "rss"), NO, NONE, NONE, NONE,                        \
	  "the process's resident memory, 0 if unknown")                                       \
	X(mem_folded, U64, ND, SRC, J(MEM, "folded"), NO, NONE, NONE, NONE,                    \
	  "breakdown records of exited pids folded")                                           \
	X(mem_over_stacks, U64, ND, SRC, J(MEM, "over_stacks"), NO,                            \
	  TX(OVER, 0, "%s new stacks not kept"), NONE, NONE,                                   \
	  "new stacks not kept: over the limit")                                               \
	X(mem_over_hits, U64, ND, SRC, J(MEM, "over_hits"), NO,                                \
	  TX(OVER, 1, "%s hits counted without their stack or process"), NONE, NONE,           \
	  "hits kept without their stack or breakdown")                                        \
	X(mem_usym, BYTES, ND, SRC, J(MEM, "usym"), NO, NONE, NONE, NONE,                      \
	  "held by the user-space symbolizer (-u)")                                            \
	X(mem_usym_refused, U64, ND, SRC, J(MEM, "usym_refused"), NO,                          \
	  TX(NOTE, 0, "note: over --max-memory: %s user frames not kept (the symbolizer's "   \
		      "quarter is full; stacks end in the cut mark)"),                          \
	  NONE, NONE, "user frames not interned: its share was full")                          \
	X(mem_trend, BYTES, ND, SRC, J(MEM, "trend"), NO, NONE, NONE, NONE,                    \
	  "of mem_bytes, the trends' slots")                                                   \
	X(mem_trend_refused, U64, ND, SRC, J(MEM, "trend_refused"), NO, NONE, NONE, NONE,      \
	  "stacks refused a trend slot: over the limit")                                       \
	X(mem_unwind, BYTES, ND, SRC, J(MEM, "unwind"), NO, NONE, NONE, NONE,                  \
	  "dwarf: unwind tables and vdso copies held")                                         \
	X(usym_files_refused, U64, ND, SRC, J(MEM, "usym_files_refused"), NO,                  \
	  TX(NOTE, 2, "note: %s mapped files not read (not a regular file, or on a FUSE "     \
		      "mount; their frames show the file offset)"),                             \
	  NONE, NONE, "mapped files not read: not regular, FUSE, ...")                         \
	X(usym_files_big, U64, ND, SRC, J(MEM, "usym_files_big"), NO,                          \
	  TX(NOTE, 1, "note: over --max-memory: the symbols of %s files not loaded (larger "  \
		      "than the symbolizer's quarter; their frames show the file offset)"),     \
	  NONE, NONE, "files whose symbols did not fit the share")                             \
	X(rb_bytes, BYTES, ND, ING(bytes), J(RINGBUF, "bytes"), NO, NONE, NONE, NONE,          \
	  "ring-buffer bytes read (struct ingest_stats.bytes)")                                \
	X(sized_records, U64, ND, ING(sized_records), J(RINGBUF, "sized_records"), NO, NONE,   \
	  NONE, NONE, "stack records of known depth,")                                         \
	X(sized_bytes, BYTES, ND, ING(sized_bytes), J(RINGBUF, "sized_bytes"), NO, NONE,       \
	  NONE, NONE, "their ring-buffer bytes as read,")                                      \
	X(alt_bytes, BYTES, ND, ING(alt_bytes), J(RINGBUF, "alt_bytes"), NO, NONE, NONE,       \
	  NONE, "and in the other representation")                                             \
	X(offcpu_sleeps, U64, ND, ING(offcpu_sleeps), J(OFFCPU, "sleeps"), NO, NONE, NONE,     \
	  NONE, "--offcpu: switch-outs ended (a sentence of output/header.c and a screen "    \
		"segment give the share of them ended at the wakeup)")                          \
	X(offcpu_woken, U64, ND, ING(offcpu_woken), J(OFFCPU, "ended_at_wakeup"), NO, NONE,    \
	  NONE, NONE, "--offcpu: times ended at the wakeup (no switch-in)")                    \
	X(offcpu_unpaired, U64, ND, ING(offcpu_unpaired), J(OFFCPU, "unpaired"), NO,           \
	  TX(OFFCPU, 1, "%s switch-outs with neither (not counted)"), NONE, NONE,              \
	  "--offcpu: switch-outs with neither: not counted")                                   \
	X(offcpu_dropped, U64, ND, ING(offcpu_dropped), J(OFFCPU, "dropped"), NO,              \
	  TX(OFFCPU, 2, "%s not followed"), NONE, NONE,                                        \
	  "--offcpu: switches not followed (table full)")
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
/* @text's lines of the batch header (output/header.c) */
enum { HCT_NONE, HCT_LOSS, HCT_MAP, HCT_DAMAGED, HCT_OVER, HCT_NOTE, HCT_OFFCPU };
/* @screen's places in the screen's header (ui/uifmt.c) */
enum { HCS_NONE, HCS_LOSS, HCS_EVENTS, HCS_RATES, HCS_MAP };
/* @screen's @how: bits (the delta shown, only when not 0, an alert), and their names */
enum { HCS_BIT_DELTA = 1, HCS_BIT_NZ = 2, HCS_BIT_ALERT = 4 };
#define HCS_SHOW_PLAIN	  0
#define HCS_SHOW_DELTA	  (HCS_BIT_DELTA | HCS_BIT_ALERT)
#define HCS_SHOW_NZ_ALERT (HCS_BIT_NZ | HCS_BIT_ALERT)
#define HCS_SHOW_NZ_DELTA (HCS_BIT_NZ | HCS_BIT_DELTA)
/* @extra, bits */
enum { HCX_NONE = 0, HCX_DIFF = 1, HCX_NOTE = 2 };
#define HCX_DIFF_NOTE (HCX_DIFF | HCX_NOTE)

/*
 * The columns, spelled for an expansion: paste the prefix to the column
 * (HCY_##type, HCD_##delta, HCR_##read, HCX_##extra) or to its first word
 * (HCJP_##json, HCJK_##json, ...), which turns J(ROOT, "x") into
 * HCJP_J(ROOT, "x"): HCJ_ROOT.
 */
#define HCJP_J(place, key)		HCJ_##place
#define HCJP_JT(place, key)		HCJ_##place
#define HCJP_NONE			HCJ_NONE
#define HCJK_J(place, key)		key
#define HCJK_JT(place, key)		key
#define HCJK_NONE			((const char *)0)
#define HCJD_J(place, key)		1
#define HCJD_JT(place, key)		0
#define HCJD_NONE			0
#define HCTL_TX(line, pos, words)	HCT_##line
#define HCTL_NONE			HCT_NONE
#define HCTP_TX(line, pos, words)	pos
#define HCTP_NONE			0
#define HCTW_TX(line, pos, words)	words
#define HCTW_NONE			((const char *)0)
#define HCSL_SC(place, pos, label, how) HCS_##place
#define HCSL_NONE			HCS_NONE
#define HCSP_SC(place, pos, label, how) pos
#define HCSP_NONE			0
#define HCSW_SC(place, pos, label, how) label
#define HCSW_NONE			((const char *)0)
#define HCSH_SC(place, pos, label, how) HCS_SHOW_##how
#define HCSH_NONE			0
#define HCI_ING(member)			1
#define HCI_SRC				0

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
