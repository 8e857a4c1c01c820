/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.h - stackmap-sim: a FUSE file system that behaves like the tracefs of
 * a kernel carrying the ftrace "stackmap" RFC (v1-v4).
 *
 * Layers (one global lock, sim.lock, protects everything below the FUSE
 * callbacks and the generator thread):
 *
 *	sim-ring.c   per-CPU ring buffers of real sub-buffer pages
 *	sim-map.c    the kernel's stack map (hash slots, pool, counters) and
 *	             the stack_map / stack_map_stat / stack_map_bin renderers
 *	sim-gen.c    symbols, kallsyms, the stack population, the event
 *	             generator (what the kernel would record and where)
 *	sim-fs.c     the tracefs tree, FUSE callbacks, control file, main()
 *
 * Ground truth: every stack-carrying record written to a ring buffer is
 * counted per (instance, stack, event) in struct sim_truth, and the count
 * moves to read / lost / cleared when its page is read, overwritten or
 * wiped; .sim/truth prints it.
 */
#ifndef STACKMAP_SIM_H
#define STACKMAP_SIM_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_PAGE_SIZE		4096	/* sub-buffer, as read from trace_pipe_raw */
#define SIM_PAGE_HDR		16	/* u64 timestamp + local_t commit */
#define SIM_PAGE_DATA		(SIM_PAGE_SIZE - SIM_PAGE_HDR)
#define SIM_MISSED_EVENTS	(1UL << 31)
#define SIM_MISSED_STORED	(1UL << 30)

#define SIM_TYPE_PADDING	29
#define SIM_TYPE_TIME_EXTEND	30
#define SIM_TYPE_TIME_STAMP	31
#define SIM_TS_SHIFT		27
#define SIM_TS_MASK		((1ULL << SIM_TS_SHIFT) - 1)

#define SIM_MAP_MAX_DEPTH	64		/* FTRACE_STACKMAP_MAX_DEPTH */
#define SIM_MAP_MAX_PROBE	64		/* FTRACE_STACKMAP_MAX_PROBE, v2+ */
#define SIM_MAX_FRAMES		96		/* deepest simulated stack */
#define SIM_TRAMPOLINE		0x7fffffffULL	/* FTRACE_TRAMPOLINE_MARKER */
#define SIM_MAX_CPUS		64
#define SIM_MAX_IDS		4		/* ids remembered per stack */

/* Trace event types the generator can fire (ordinary events). */
enum sim_ev {
	SIM_EV_SCHED_SWITCH,
	SIM_EV_SCHED_WAKEUP,
	SIM_EV_SCHED_WAKING,
	SIM_EV_KMALLOC,
	SIM_EV_KFREE,
	SIM_EV_IRQ_ENTRY,
	SIM_EV_IRQ_EXIT,
	SIM_EV_HRTIMER_ENTRY,
	SIM_EV_MAX,
};

/* ftrace-internal entries: a format file but no enable file. */
enum sim_fev {
	SIM_FEV_KERNEL_STACK,
	SIM_FEV_USER_STACK,
	SIM_FEV_STACK_ID,
	SIM_FEV_FUNCTION,	/* the function tracer's entry (ftrace/function) */
	SIM_FEV_MAX,
};

/*
 * Event indexes with enable/filter/trigger files: the ordinary events, then
 * the kprobe slots.  ftrace-internal entries come after (format only).
 */
#define SIM_MAX_KPROBES		16
#define SIM_KP_EV(slot)		(SIM_EV_MAX + (slot))
#define SIM_NEV			(SIM_EV_MAX + SIM_MAX_KPROBES)
#define SIM_FEV_BASE		SIM_NEV
/* Ground-truth columns per stack: the SIM_NEV events, then the function tracer. */
#define SIM_TRUTH_FUNC		SIM_NEV
#define SIM_TRUTH_COLS		(SIM_NEV + 1)
#define SIM_FUNC_DEPTHS		8	/* traced functions: the innermost 8 frames */
#define SIM_MAX_ARGS		8	/* kprobe fetch args */
#define SIM_FILTER_LEN		256

struct sim_event_def {
	const char *sys;
	const char *name;
	int id;
	const char *format;
	unsigned int size;	/* fixed payload size (before dynamic data) */
	unsigned int weight;	/* how often the generator fires it */
};

extern const struct sim_event_def sim_events[SIM_EV_MAX];
extern const struct sim_event_def sim_fevents[SIM_FEV_MAX];
extern const char *const sim_header_page;
extern const char *const sim_header_event;

/* A growable output buffer (file contents are rendered into one at open). */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
};

void sbuf_printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_add(struct sbuf *sb, const void *data, size_t len);
void sbuf_free(struct sbuf *sb);

/* Ground-truth counters of one (instance, stack, event). */
struct sim_truth {
	uint64_t written;	/* stack records written to the ring buffer */
	uint64_t as_id;		/* ... of which as stack_id records */
	uint64_t fallback;	/* ... of which as full kernel_stack records */
	uint64_t read;		/* handed to a trace_pipe_raw reader */
	uint64_t lost;		/* overwritten before being read */
	uint64_t cleared;	/* wiped by a reset / buffer clear */
};

/* One sub-buffer page while it is in the ring. */
struct sim_page {
	uint8_t raw[SIM_PAGE_SIZE];	/* header + data, exactly as read */
	unsigned int tail;		/* data bytes used (the padding at the end included) */
	unsigned int real_end;		/* where that padding starts (0: none) */
	unsigned int entries;		/* data records (not extends/padding) */
	uint64_t ts_first;
	uint64_t ts_last;
	uint32_t *truth;		/* truth indexes of stack records here */
	unsigned int ntruth;
	unsigned int truth_cap;
	/* a reader's copy of the page while it was written (the kernel's reader page) */
	unsigned int read_off;		/* data bytes handed out */
	unsigned int read_entries;	/* ... records among them */
	unsigned int read_truth;	/* ... truth indexes among them */
	uint64_t ts_read;		/* time of the last record handed out */
	struct sim_page *next;
};

struct fuse_pollhandle;

/* One per-CPU ring buffer (overwrite mode by default). */
struct sim_ring {
	struct sim_page *head;		/* oldest unread page */
	struct sim_page *tail;		/* page being written (if open) */
	unsigned int npages;		/* pages holding data */
	unsigned int nr_pages;		/* capacity */
	unsigned int size_kb;
	bool tail_open;
	bool overwrite;
	uint64_t last_ts;		/* timestamp of the last record */
	uint64_t overrun;		/* entries lost to overwriting */
	uint64_t lost_pending;		/* ... not yet reported to the reader */
	uint64_t read_entries;
	uint64_t dropped;		/* non-overwrite mode: records refused */
	struct sim_truth *truth;	/* the owning instance's truth table */
	struct fuse_pollhandle *ph;	/* pending poll() */
	unsigned int percent;		/* the instance's buffer_percent: poll's watermark */
};

void ring_init(struct sim_ring *r, unsigned int size_kb, struct sim_truth *truth);
void ring_resize(struct sim_ring *r, unsigned int size_kb);
void ring_clear(struct sim_ring *r);
void ring_free(struct sim_ring *r);
int ring_write(struct sim_ring *r, uint64_t ts, const void *payload, unsigned int len,
	       int64_t truth_idx, bool abs_ts);
int ring_read(struct sim_ring *r, uint8_t *page);
bool ring_empty(const struct sim_ring *r);
bool ring_watermark(const struct sim_ring *r);
bool ring_would_drop(const struct sim_ring *r, unsigned int len);
void ring_stats(const struct sim_ring *r, uint64_t now, struct sbuf *sb);
unsigned int ring_event_len(unsigned int payload);

/* The kernel's stack map. */
struct sim_slot {
	uint32_t key;		/* 0: empty */
	int32_t elt;		/* -1: claimed without element (gravestone) */
};

struct sim_elt {
	uint32_t nr;
	uint32_t ref;
	uint64_t ips[SIM_MAP_MAX_DEPTH];
};

struct sim_map {
	unsigned int bits;
	unsigned int size;	/* table_size = 2^(bits+1) */
	unsigned int max_elts;	/* pool = 2^bits */
	unsigned int next_elt;
	uint32_t seed;
	struct sim_slot *table;
	struct sim_elt *pool;
	uint64_t successes;
	uint64_t drops;
};

int map_init(struct sim_map *m, unsigned int bits, uint32_t seed);
void map_free(struct sim_map *m);
void map_reset(struct sim_map *m);
int map_get_id(struct sim_map *m, int abi, const uint64_t *ips, unsigned int nr, bool race,
	       bool *ret_new);

enum sim_bin_fault {
	SIM_BIN_OK,
	SIM_BIN_TRUNCATE,	/* cut in the middle of the last record */
	SIM_BIN_MAGIC,		/* bad magic */
	SIM_BIN_COUNT,		/* nr_stacks larger than the records written */
	SIM_BIN_SHORT,		/* only 10 bytes of header */
	SIM_BIN_EMPTY,		/* zero bytes */
};

struct sim_syms;
void map_render_text(const struct sim_map *m, int abi, const struct sim_syms *syms,
		     struct sbuf *sb);
void map_render_stat(const struct sim_map *m, int abi, struct sbuf *sb);
void map_render_bin(const struct sim_map *m, int abi, bool swap, enum sim_bin_fault fault,
		    struct sbuf *sb);

/* Symbols. */
struct sim_sym {
	uint64_t addr;
	uint32_t size;
	char type;		/* kallsyms type letter */
	const char *name;
	const char *mod;	/* NULL for core kernel */
};

struct sim_syms {
	struct sim_sym *v;
	unsigned int n;
	uint64_t text_base;
};

int syms_init(struct sim_syms *s, uint64_t text_base);
void syms_free(struct sim_syms *s);
const struct sim_sym *syms_find(const struct sim_syms *s, const char *name);
const struct sim_sym *syms_lookup(const struct sim_syms *s, uint64_t addr);
void syms_print_ps(const struct sim_syms *s, uint64_t addr, struct sbuf *sb);
void syms_kallsyms(const struct sim_syms *s, struct sbuf *sb);

/* One distinct simulated stack (the "truth" identity of a stack). */
struct sim_stack {
	enum sim_ev ev;		/* the event whose stacks it belongs to */
	char cls;		/* pid class: u user, k kthread, i irq, s softirq */
	unsigned int nr;
	uint64_t ips[SIM_MAX_FRAMES];
	int ids[SIM_MAX_IDS];	/* map ids in the current generation */
	int fsym;		/* function stacks: the traced function (index in syms), else -1 */
	unsigned int nids;
	bool race_pending;	/* next insert simulates the cmpxchg race */
};

/* Options that live in options/ and trace_options. */
enum {
	SIM_OPT_TOP_ONLY = 1,	/* hidden in instances' options/ */
	SIM_OPT_DIR_ONLY = 2,	/* tracer option: options/ only, not listed */
	SIM_OPT_STACKMAP = 4,	/* exists only on stackmap kernels */
};

struct sim_option {
	const char *name;
	bool def_top;
	bool def_inst;
	unsigned int flags;
};

extern const struct sim_option sim_options[];
extern const unsigned int sim_noptions;
int sim_option_index(const char *name);

/* A compiled event filter (sim-filter.c). */
struct sim_filter;

/* A stacktrace trigger on one event of one instance. */
struct sim_trigger {
	bool on;
	long count;			/* -1: unlimited */
	struct sim_filter *filter;	/* "if FILTER", or NULL */
	char *filter_str;
};

/* A dynamic (kprobe) event, created through kprobe_events/dynamic_events. */
struct sim_kprobe {
	bool live;
	bool ret;			/* r: kretprobe */
	int maxactive;
	char group[64];
	char name[64];
	char symbol[64];
	unsigned int offset;
	int sym;			/* index in syms */
	int id;				/* event ID */
	unsigned int nargs;
	char arg_name[SIM_MAX_ARGS][32];
	char arg_fetch[SIM_MAX_ARGS][64];
	char arg_type[SIM_MAX_ARGS][8];	/* u64, x32, s16, ... */
	unsigned int arg_size[SIM_MAX_ARGS];
	unsigned int size;		/* payload size */
	char *format;			/* the format file */
};

/* A trace instance: the top level or instances/NAME. */
/* a pid list (set_event_notrace_pid, set_ftrace_notrace_pid): stored, not applied */
struct sim_pidlist {
	int *pid;		/* ascending, no duplicates */
	unsigned int n, cap;
};

enum { SIM_PL_EVENT_NOTRACE, SIM_PL_FTRACE_NOTRACE, SIM_NPIDLISTS };

struct sim_inst {
	char name[64];
	bool top;
	unsigned int serial;
	int refs;		/* open files */
	bool tracing_on;
	bool expanded;		/* buffer_size_kb shows "7 (expanded: N)" */
	bool opts[64];
	bool enabled[SIM_NEV];
	struct sim_filter *filter[SIM_NEV];	/* compiled event filter, or NULL */
	char *filter_str[SIM_NEV];		/* its text as written, or NULL */
	struct sim_trigger trig[SIM_NEV];	/* stacktrace trigger */
	char tracer[32];
	bool *func_filter;	/* set_ftrace_filter, per symbol */
	bool *func_notrace;	/* set_ftrace_notrace, per symbol */
	unsigned int nfunc_filter;
	struct sim_pidlist pidlist[SIM_NPIDLISTS];
	struct sbuf errlog;	/* error_log */
	char clock[16];
	unsigned int buffer_percent;
	struct sim_ring ring[SIM_MAX_CPUS];
	struct sim_truth *truth;	/* [nall * SIM_TRUTH_COLS] */
	struct sim_inst *next;
};

struct sim_config {
	int abi;			/* 1..4 */
	unsigned int bits;
	unsigned int cpus;
	unsigned int rate;		/* events per second per CPU */
	unsigned int nstacks;
	uint64_t seed;
	bool swap;
	bool fail_init;
	bool step;			/* no timed generation, only "emit" */
	bool kaslr;
	int stack_id_type;
	unsigned int buffer_kb;
	double race_p;			/* cmpxchg race on a new insert */
	double nest_p;			/* irq nested between event and stack */
	double abs_p;			/* absolute time stamp instead of delta */
	double gap_p;			/* long idle gap (time extend) */
	double deep_p;			/* share of deep (>64) stacks */
	unsigned int block_ms;		/* blocking trace_pipe_raw read wait */
	const char *kallsyms_out;
	const char *mountpoint;
};

struct sim {
	pthread_mutex_t lock;
	pthread_cond_t data_cond;
	struct sim_config cfg;
	struct sim_syms syms;
	struct sim_map map;
	bool map_live;			/* !fail_init */
	uint32_t generation;
	struct sim_stack *stacks;	/* nstacks event stacks, then nfstacks function stacks */
	unsigned int nstacks;
	unsigned int nfstacks;
	unsigned int nall;		/* nstacks + nfstacks */
	struct sim_kprobe kprobes[SIM_MAX_KPROBES];
	uint64_t cfg_gen;		/* bumped by every change through the tree */
	int next_kprobe_id;
	unsigned int *ev_stacks[SIM_EV_MAX];	/* stack indexes per event */
	double *ev_cdf[SIM_EV_MAX];		/* Zipf CDF over them */
	unsigned int ev_nstacks[SIM_EV_MAX];
	struct sim_inst *insts;		/* top first */
	unsigned int inst_serial;
	uint64_t rng;
	uint64_t skew;			/* added to the monotonic clock */
	uint64_t cpu_ts[SIM_MAX_CPUS];
	unsigned int rr_cpu;
	bool paused;
	unsigned int feed_on_read;	/* events recorded on a CPU before each page read of it */
	unsigned int emit_on_write;	/* events recorded after each write to a tracefs file */
	uint64_t fired;			/* kernel events fired */
	uint64_t emitted;		/* ... of which by "emit" */
	uint64_t nested;
	uint64_t races;
	uint64_t ustacks;		/* user_stack records written (options/userstacktrace) */
	enum sim_bin_fault bin_fault;
	bool reset_busy; /* another reset "in progress": writes get EBUSY */
	bool option_einval; /* enabling options/stackmap fails as after a failed init */
	bool hidden_map, hidden_stat, hidden_bin, hidden_opt;
	char last_ctl[128];
};

extern struct sim sim;

/* sim-gen.c */
uint64_t sim_rand(void);
double sim_frand(void);
uint64_t sim_clock(void);
int sim_gen_init(void);
void sim_gen_free(void);
unsigned int sim_fire_random(int cpu);
unsigned int sim_emit(unsigned int count, int cpu);
void sim_fill_pool(unsigned int keep_free);
void sim_map_reset(bool clear_rings);
void sim_truth_render(struct sbuf *sb);
void sim_truth_clear(void);
void sim_saved_cmdlines(struct sbuf *sb);
struct sim_inst *sim_inst_new(const char *name, bool top);
void sim_inst_free(struct sim_inst *in);
void sim_inst_clear(struct sim_inst *in);
bool sim_inst_fireable(int ev);
void *sim_generator(void *arg);

/* sim-fs.c */
void sim_notify_data(struct sim_ring *r);

/* sim-filter.c: event filters and stacktrace triggers */
struct sim_filter_err {
	const char *text;	/* the kernel's err_text[] entry */
	int pos;		/* caret position in the command */
};

int filter_compile(int ev, const char *str, struct sim_filter **ret, struct sim_filter_err *err);
bool filter_match(const struct sim_filter *f, int ev, const uint8_t *rec, unsigned int len);
void filter_free(struct sim_filter *f);
int sim_write_filter(struct sim_inst *in, int ev, const char *buf, size_t len);
void sim_render_filter(const struct sim_inst *in, int ev, struct sbuf *sb);
int sim_write_trigger(struct sim_inst *in, int ev, const char *buf, size_t len);
void sim_render_trigger(const struct sim_inst *in, int ev, struct sbuf *sb);
void sim_trigger_clear(struct sim_inst *in, int ev);
void sim_event_state_free(struct sim_inst *in, int ev);

/* sim-ftrace.c: the function tracer, dynamic events, error_log */
const char *sim_event_format(int ev);
bool sim_sym_traceable(int i);	/* format text of an event with a format file */
int sim_ftrace_inst_init(struct sim_inst *in);
void sim_ftrace_inst_free(struct sim_inst *in);
int sim_write_func_filter(struct sim_inst *in, bool notrace, const char *buf, size_t len);
void sim_clear_func_filter(struct sim_inst *in, bool notrace);
void sim_render_func_filter(const struct sim_inst *in, bool notrace, struct sbuf *sb);
bool sim_func_traced(const struct sim_inst *in, int sym);
int sim_write_pidlist(struct sim_inst *in, int which, const char *buf, size_t len);
void sim_clear_pidlist(struct sim_inst *in, int which);
void sim_render_pidlist(const struct sim_inst *in, int which, struct sbuf *sb);
int sim_gen_func_stacks(void);
int sim_write_dynevents(bool kprobe_only, const char *buf, size_t len);
int sim_clear_dynevents(bool kprobe_only);
void sim_render_dynevents(struct sbuf *sb);
void sim_log_err(struct sim_inst *in, const char *loc, const char *cmd, const char *text,
		 int pos);
void sim_kprobe_fill(const struct sim_kprobe *kp, uint8_t *b);

#endif /* STACKMAP_SIM_H */
