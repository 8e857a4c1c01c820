// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * open.c - session_open(): the files of -r go to replay.c; for the kernel,
 * tracefs is opened, what a killed run left is undone, the mode chosen,
 * the restore journal opened, kprobes made, and the mode's sources (and
 * -u's) added; then weights and grouping. On any failure everything done
 * is undone (session_close() restores tracefs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "core/log.h"
#include "core/stack_table.h"
#include "core/stack_mem.h"
#include "ingest/ingest.h"
#include "kernel/comm.h"
#include "kernel/evfmt.h"
#include "kernel/probes.h"
#include "kernel/state.h"
#include "kernel/tfs.h"
#include "kernel/trace.h"
#include "session/priv.h"
#include "session/session.h"
#include "sym/ksym.h"
#include "sym/pname.h"
#include "sym/ufile.h"
#include "sym/usym.h"

/* when instance @rel was made (its ctime), to @ts; NULL when unknown */
static const struct timespec *instance_ctime(struct tfs *tfs, const char *rel, struct timespec *ts)
{
	int fd = tfs_open_file(tfs, rel, O_RDONLY | O_DIRECTORY);
	struct stat sb;
	int r;

	if (fd < 0)
		return NULL;
	r = fstat(fd, &sb);
	close(fd);
	if (r < 0)
		return NULL;
	*ts = sb.st_ctim;
	return ts;
}

/*
 * What a run that ended without restoring left: each journal undone, and
 * each instance stacktop.<pid> of a pid that is no stacktop now, told to
 * @note (pid, 0 or -errno, what was undone).
 */
static int undo_leftovers(struct tfs *tfs, const char *rundir, state_note_fn note, void *ctx)
{
	char **names = NULL, what[STATE_NOTE_MAX];
	struct trace tr = { .tfs = tfs };
	struct timespec since;
	int n = 0, i, r;

	r = state_recover_noted(tfs, rundir, note, ctx, NULL);
	/* instances whose journal is lost (an older version, a removed run directory) */
	if (trace_list_dir(&tr, "instances", &names, &n) < 0)
		return r;
	for (i = 0; i < n; i++) {
		char rel[300], *end;
		long pid;

		if (strncmp(names[i], "stacktop.", 9))
			continue;
		pid = strtol(names[i] + 9, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			continue;
		snprintf(rel, sizeof(rel), "instances/%s", names[i]);
		if (state_pid_is_stacktop(rundir, (int)pid, instance_ctime(tfs, rel, &since)))
			continue;
		if (tfs_rmdir(tfs, rel) == 0 && note) {
			snprintf(what, sizeof(what), "removed instance %.200s (it had no journal)",
				 names[i]);
			note(ctx, (int)pid, 0, what);
		}
	}
	trace_free_list(names, n);
	return r;
}

/* what the next run says about it: a warning now, on the screen's status line later */
static void leftover_note(void *ctx, int pid, int err, const char *what)
{
	struct session *s = ctx;
	char line[STATE_NOTE_MAX + 128];

	if (err == -EPERM)
		return; /* a refused root: state_recover() said why */
	if (err)
		snprintf(
			line, sizeof(line),
			"stacktop %d ended without restoring tracing; undoing it failed (%s), kept for the next run: %s",
			pid, strerror(-err), what);
	else
		snprintf(line, sizeof(line), "stacktop %d ended without restoring tracing: %s", pid,
			 what);
	log_warn("%s", line);
	if (!s->leftovers[0])
		snprintf(s->leftovers, sizeof(s->leftovers), "%s", line);
	s->nleftovers++;
}

struct cleanup_ctx {
	session_note_fn note;
	void *ctx;
};

static void cleanup_note(void *ctx, int pid, int err, const char *what)
{
	struct cleanup_ctx *c = ctx;

	c->note(c->ctx, pid, err, what);
}

int session_cleanup(const struct session_opts *opts, session_note_fn note, void *ctx, char *err,
		    size_t errsz)
{
	struct cleanup_ctx c = { .note = note, .ctx = ctx };
	struct tfs *tfs;
	int r;

	if (err && errsz)
		err[0] = '\0';
	if (!opts->tracefs && geteuid() != 0)
		return fmt_error(
			err, errsz, -EPERM,
			"--cleanup restores tracefs: it needs root (try: sudo stacktop --cleanup)");
	r = tfs_open(opts->tracefs, &tfs);
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot open tracefs%s%s: %s",
				 opts->tracefs ? " at " : "", opts->tracefs ? opts->tracefs : "",
				 strerror(-r));
	r = undo_leftovers(tfs, opts->rundir, cleanup_note, &c);
	tfs_close(tfs);
	if (r < 0)
		fmt_error(err, errsz, r, "could not undo everything: %s", strerror(-r));
	return r;
}

/* the stack table, the symbolizers and their memory limits */
static int open_tables(struct session *s, const struct session_opts *opts)
{
	s->c.table = stack_table_new();
	s->c.tr.ksym = ksym_new(opts->kallsyms);
	/* a --tracefs may be a simulator: its tgids are not this machine's */
	s->c.usym = usym_new(opts->tracefs ? "" : NULL);
	if (!s->c.table || !s->c.tr.ksym || !s->c.usym)
		return -ENOMEM;
	ksym_set_usym(s->c.tr.ksym, s->c.usym);
	usym_set_dwarf(s->c.usym, !opts->no_inline);
	/* before anything is interned: the weights live next to the counts */
	if (opts->weight || opts->offcpu)
		stack_table_set_weighted(s->c.table, true);
	s->c.mem_limit = opts->max_memory ? opts->max_memory : SESSION_MAX_MEMORY;
	stack_table_set_limit(s->c.table, s->c.mem_limit);
	/* user frames: a quarter of the limit at most, the table has the rest */
	usym_set_limit(s->c.usym, s->c.mem_limit / 4);
	/* a --tracefs may be a simulator: its pids are not this machine's */
	s->proc_pids = !opts->tracefs;
	return 0;
}

/* tracefs opened and checked, what a killed stacktop left undone, the formats and symbols */
static int open_tracefs(struct session *s, const struct session_opts *opts, char *err, size_t errsz)
{
	int r = tfs_open(opts->tracefs, &s->c.tr.tfs);

	if (r < 0) {
		if (r == -EPERM && opts->tracefs)
			return fmt_error(
				err, errsz, r,
				"refusing --tracefs %s: neither tracefs nor a root-owned directory only root can write",
				opts->tracefs);
		if (r == -EPERM)
			return fmt_error(err, errsz, r,
					 "not allowed to mount tracefs (run as root)");
		if (opts->tracefs)
			return fmt_error(err, errsz, r, "cannot open tracefs at %s: %s",
					 opts->tracefs, strerror(-r));
		return fmt_error(
			err, errsz, r,
			"no tracefs: mount it with 'mount -t tracefs nodev /sys/kernel/tracing' (kernel without CONFIG_FTRACE?)");
	}
	s->c.comms = comm_cache_new(s->c.tr.tfs, !opts->tracefs);
	if (!s->c.comms)
		return -ENOMEM;
	fmt_sanitize(s->c.stats.tracefs, sizeof(s->c.stats.tracefs), s->c.tr.tfs->root,
		     strlen(s->c.tr.tfs->root));
	if (!tfs_exists(s->c.tr.tfs, "events/header_page"))
		return fmt_error(err, errsz, -ENODEV,
				 "%s does not look like tracefs (no events/header_page)",
				 s->c.tr.tfs->root);
	r = undo_leftovers(s->c.tr.tfs, opts->rundir, leftover_note, s);
	if (r < 0 && !s->nleftovers)
		log_warn("could not undo everything a killed stacktop left: %s", strerror(-r));

	r = evfmt_new(s->c.tr.tfs, &s->c.tr.fmt);
	if (r < 0)
		return fmt_error(
			err, errsz, r, "%s",
			r == -ENODEV
				? "this kernel cannot record stack traces (no ftrace/kernel_stack event)"
				: "cannot use the ring-buffer page header (events/header_page) or the stack event formats");
	r = ksym_load(s->c.tr.ksym, NULL);
	if (r == -EACCES)
		log_warn("kernel addresses are hidden (kptr_restrict): frames stay numeric");
	else if (r < 0)
		log_warn("cannot read %s: %s", opts->kallsyms ? opts->kallsyms : "/proc/kallsyms",
			 ksym_strerror(r));
	return 0;
}

/* --user=auto: the mode this kernel and build allow, and why when it is fp */
static void pick_user_auto(struct session *s, const struct session_opts *opts)
{
	s->c.user_mode = STACKTOP_USER_UNWIND && !opts->tracefs && s->c.tr.mode == SESSION_STACKS
				 ? SESSION_USER_DWARF
				 : SESSION_USER_FP;
	if (s->c.tr.mode != SESSION_STACKS)
		snprintf(
			s->user_note, sizeof(s->user_note),
			"fp: the stackmap mode's records join no perf sample (--user=dwarf takes the stacks mode)");
	else if (!STACKTOP_USER_UNWIND)
		snprintf(s->user_note, sizeof(s->user_note),
			 "fp: this build has no libunwind (no dwarf mode)");
	else if (opts->tracefs)
		snprintf(s->user_note, sizeof(s->user_note),
			 "fp: dwarf samples this machine's kernel, not a --tracefs");
}

/*
 * --oncpu: a mode of its own; -u unwinds each sample's copy of the user
 * stack by dwarf where this build can (--user=fp: perf's frame-pointer
 * chains); --sample takes the chains by frame pointers
 */
static int pick_oncpu(struct session *s, const struct session_opts *opts, char *err, size_t errsz)
{
	enum session_mode m = opts->oncpu_hz ? SESSION_ONCPU : SESSION_SAMPLED;
	const char *opt = opts->oncpu_hz ? "--oncpu" : "--sample";

	if (opts->mode != SESSION_AUTO && opts->mode != m)
		return fmt_error(err, errsz, -EINVAL, "%s is a mode of its own: not with --mode %s",
				 opt, session_mode_name(opts->mode));
	if (opts->user == SESSION_USER_DWARF && !opts->oncpu_hz)
		return fmt_error(err, errsz, -EOPNOTSUPP,
				 "%s takes the user stacks from perf's call chains, by frame "
				 "pointers: -u or --user=fp (not dwarf)",
				 opt);
	if (opts->user == SESSION_USER_DWARF && !STACKTOP_USER_UNWIND)
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"--user=dwarf: this stacktop was built without libunwind (see the build summary; --user=fp works)");
	if (opts->tracefs)
		return fmt_error(err, errsz, -EOPNOTSUPP,
				 "%s samples this machine's kernel with perf: not with --tracefs",
				 opt);
	s->c.tr.mode = s->c.stats.mode = m;
	s->c.user_on = opts->user != SESSION_USER_OFF;
	s->c.user_mode = !s->c.user_on			    ? SESSION_USER_OFF
			 : opts->user == SESSION_USER_DWARF ? SESSION_USER_DWARF
			 : opts->user == SESSION_USER_AUTO && opts->oncpu_hz && STACKTOP_USER_UNWIND
				 ? SESSION_USER_DWARF
				 : SESSION_USER_FP;
	if (opts->user == SESSION_USER_AUTO && opts->oncpu_hz && !STACKTOP_USER_UNWIND)
		snprintf(s->user_note, sizeof(s->user_note),
			 "fp: this build has no libunwind (no dwarf mode)");
	return 0;
}

/* the mode (stacks, stackmap, passive) and the user stacks' mode, or why not */
static int pick_modes(struct session *s, const struct session_opts *opts, char *err, size_t errsz)
{
	bool have_map =
		tfs_exists(s->c.tr.tfs, "options/stackmap") &&
		(tfs_exists(s->c.tr.tfs, "stack_map") || tfs_exists(s->c.tr.tfs, "stack_map_bin"));

	s->c.tr.mode = opts->mode;
	if (opts->oncpu_hz || opts->sample_period)
		return pick_oncpu(s, opts, err, errsz);
	if (s->c.tr.mode == SESSION_AUTO)
		s->c.tr.mode = have_map && opts->user != SESSION_USER_DWARF ? SESSION_STACKMAP
									    : SESSION_STACKS;
	if (opts->user && s->c.tr.mode == SESSION_PASSIVE)
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"--user needs --mode stacks or stackmap (passive mode changes no option)");
	if (opts->user == SESSION_USER_DWARF && s->c.tr.mode != SESSION_STACKS)
		return fmt_error(err, errsz, -EOPNOTSUPP, "--user=dwarf needs --mode stacks");
	s->c.user_on = opts->user != SESSION_USER_OFF;
	s->c.user_mode = opts->user;
	if (opts->user == SESSION_USER_DWARF && !STACKTOP_USER_UNWIND)
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"--user=dwarf: this stacktop was built without libunwind (see the build summary; --user=fp works)");
	/* perf samples this kernel: a --tracefs (a simulator, say) is not it */
	if (opts->user == SESSION_USER_DWARF && opts->tracefs)
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"--user=dwarf samples this machine's kernel with perf: not with --tracefs (--user=fp works)");
	if (opts->user == SESSION_USER_AUTO)
		pick_user_auto(s, opts);
	if ((s->c.tr.mode == SESSION_STACKMAP || s->c.tr.mode == SESSION_PASSIVE) && !have_map)
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"--mode %s needs a kernel with the ftrace stackmap series (no options/stackmap or stack_map in %s)",
			session_mode_name(s->c.tr.mode), s->c.tr.tfs->root);
	s->c.stats.mode = s->c.tr.mode;
	return 0;
}

/* --oncpu=tick: the frame of @pid's command, the root of its [user space] row */
/* a process stacktop forked for itself (sym/ufile's readers): left out as stacktop's pid is */
static void helper_exclude(void *ctx, int pid)
{
	ingest_exclude_pid(ctx, pid);
}

static uint64_t comm_frame(void *ctx, int pid)
{
	struct session *s = ctx;

	return pid > 0 ? pname_comm(comm_cache_get(s->c.comms, pid)) : 0;
}

/* the page consumer, configured for the mode */
static int open_ingest(struct session *s, const struct session_opts *opts)
{
	struct utsname un;
	bool user_fp = s->c.user_mode == SESSION_USER_FP && s->c.tr.mode != SESSION_ONCPU &&
		       s->c.tr.mode != SESSION_SAMPLED;

	s->c.ing = ingest_new(s->c.tr.fmt, s->c.table, trace_count_cpus(&s->c.tr));
	if (!s->c.ing || session_set_filters(s, !opts->tracefs) < 0)
		return -ENOMEM;
	ingest_configure(s->c.ing,
			 &(struct ingest_config){
				 .stackmap = s->c.tr.mode == SESSION_STACKMAP,
				 /* the event and its stack, unless the kernel walks
				  * user stacks too (not in NMI) or a trigger decides */
				 .records_per_event = user_fp || opts->ntriggers ? 0 : 2,
				 .defer = s->c.tr.mode == SESSION_STACKMAP,
				 .self_pid = !opts->show_self && !opts->tracefs ? (int)getpid() : 0,
				 .type_cb = trace_type_cb,
				 .type_ctx = &s->c.tr,
				 .func_cb = probes_func_cb,
				 .func_ctx = &s->c.tr,
				 .trim = s->tick_trim,
				 .ntrim = opts->oncpu_tick ? 1 : 0,
				 .comm_frame = comm_frame,
				 .comm_ctx = s,
			 });
	if (user_fp)
		ingest_set_user(s->c.ing, s->c.usym);
	/* the processes that read other users' files for stacktop are stacktop too */
	if (!opts->show_self && !opts->tracefs)
		ufile_reader_on_helper(helper_exclude, s->c.ing);
	s->c.tr.trigger_mode = opts->ntriggers > 0;
	if (uname(&un) == 0)
		fmt_sanitize(s->c.stats.kernel, sizeof(s->c.stats.kernel), un.release,
			     sizeof(un.release));
	return 0;
}

/* the restore journal, and the top level claimed for the stackmap mode */
static int open_journal(struct session *s, const struct session_opts *opts, char *err, size_t errsz)
{
	struct ingest_config cfg;
	int owner, r;

	r = state_open(s->c.tr.tfs, opts->rundir, &s->c.tr.state);
	if (r < 0)
		return fmt_error(err, errsz, r, "cannot keep a restore journal in %s: %s",
				 opts->rundir ? opts->rundir : "/run/stacktop", strerror(-r));
	if (s->c.tr.mode != SESSION_STACKMAP)
		return 0;
	r = state_lock_top(s->c.tr.state, &owner);
	if (r == -EBUSY && opts->mode == SESSION_AUTO) {
		/* the top level is taken: a private instance still works */
		log_warn(
			"another stacktop (pid %d) owns the top-level tracing; using the stacks mode",
			owner);
		s->c.tr.mode = s->c.stats.mode = SESSION_STACKS;
		cfg = *ingest_config(s->c.ing);
		cfg.stackmap = cfg.defer = false;
		ingest_configure(s->c.ing, &cfg);
	} else if (r < 0) {
		return fmt_error(
			err, errsz, r,
			r == -EBUSY
				? "another stacktop (pid %d) owns the top-level tracing: use --mode stacks or --mode passive"
				: "cannot claim the top-level tracing (pid %d): %s",
			owner, strerror(-r));
	}
	return 0;
}

/*
 * --oncpu -u: perf refused the user registers and stack (a kernel or CPU
 * without them): its frame-pointer chains instead, and the header says why
 */
static int oncpu_user_fp(struct session *s, char *err, size_t errsz)
{
	char why[160];

	snprintf(why, sizeof(why), "%s", err && err[0] ? err : "perf_event_open failed");
	s->nsources--;
	source_oncpu_ops.close(&s->sources[s->nsources]);
	s->c.user_mode = SESSION_USER_FP;
	snprintf(s->user_note, sizeof(s->user_note), "fp: dwarf unavailable (%.120s)", why);
	log_warn("user stacks: %s", s->user_note);
	if (err && errsz)
		err[0] = '\0';
	return session_add_source(s, &source_oncpu_ops, NULL, err, errsz);
}

/* the probes, the mode's source, the user stacks, weights and grouping */
static int open_sources(struct session *s, const struct session_opts *opts, char *err, size_t errsz)
{
	int r;

	if (s->c.tr.mode == SESSION_PASSIVE &&
	    (opts->nkprobes || opts->nfunctions || opts->ntriggers))
		return fmt_error(
			err, errsz, -EINVAL,
			"--mode passive changes nothing in tracefs: no --function, --kprobe or --trigger");
	/* before the source: its instance must go first on restore (probes.c) */
	r = probes_setup_kprobes(&s->c.tr, err, errsz);
	if (r < 0)
		return r;

	/* the sources: one per mode today */
	switch (s->c.tr.mode) {
	case SESSION_STACKS:
		r = session_add_source(s, &source_instance_ops, NULL, err, errsz);
		break;
	case SESSION_STACKMAP:
		r = session_add_source(s, &source_stackmap_ops, NULL, err, errsz);
		break;
	case SESSION_PASSIVE:
		r = session_add_source(s, &source_passive_ops, NULL, err, errsz);
		break;
	case SESSION_ONCPU:
	case SESSION_SAMPLED:
		r = session_add_source(s, &source_oncpu_ops, NULL, err, errsz);
		if (r < 0 && s->c.user_mode == SESSION_USER_DWARF &&
		    opts->user == SESSION_USER_AUTO)
			r = oncpu_user_fp(s, err, errsz);
		break;
	default:
		r = -EINVAL;
	}
	if (r < 0) {
		if (err && !err[0])
			fmt_error(err, errsz, r, "cannot set up tracing: %s", strerror(-r));
		return r;
	}
	r = session_setup_user_dwarf(s, err, errsz);
	if (r < 0)
		return r;
	r = session_setup_weight(s, err, errsz);
	if (r < 0)
		return r;
	if ((opts->group_depth || opts->group_func) &&
	    session_set_group(s, opts->group_depth, opts->group_func) < 0)
		return -ENOMEM;
	if (opts->group_by[0] && session_set_group_by(s, opts->group_by) < 0)
		return -ENOMEM;
	return 0;
}

/* the first interval starts now (its CPU counted from here, not from exec) */
static void start_clock(struct session *s, const struct session_opts *opts)
{
	struct rusage ru;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &s->last_tick);
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		timeradd(&ru.ru_utime, &ru.ru_stime, &s->last_cpu);
	if (opts->reset_first) {
		r = session_reset(s);
		if (r < 0)
			log_warn("reset failed: %s", strerror(-r));
	}
	session_tick(s);
	/* the set-up's interval is no interval of the run: every trend began with a 0 (issue 27) */
	stack_trend_restart(s->c.table);
}

/*
 * --vmlinux: kernel frames' source lines from its DWARF, placed where the
 * running kernel is (KASLR: a function's address in the kernel's symbols
 * less its address in the file)
 */
static int open_vmlinux(struct session *s, const struct session_opts *opts, char *err, size_t errsz)
{
	static const char *const anchors[] = { "start_kernel", "schedule", "do_syscall_64",
					       "do_idle" };
	uint64_t va, ka;
	size_t i;
	int r;

	if (!opts->vmlinux)
		return 0;
	r = usym_set_vmlinux(s->c.usym, opts->vmlinux, err, errsz);
	if (r < 0)
		return r;
	for (i = 0; i < sizeof(anchors) / sizeof(anchors[0]); i++)
		if (usym_vmlinux_addr(s->c.usym, anchors[i], &va) == 0 &&
		    ksym_addr_of(s->c.tr.ksym, anchors[i], strlen(anchors[i]), NULL, 0, &ka) == 0) {
			usym_set_kernel_offset(s->c.usym, ka - va);
			return 0;
		}
	log_warn("--vmlinux %s: none of its functions is in the kernel's symbols: its addresses "
		 "are taken as they are (no KASLR offset)",
		 opts->vmlinux);
	return 0;
}

int session_open(const struct session_opts *opts, struct session **ret, char *err, size_t errsz)
{
	struct session *s;
	int r;

	if (err && errsz)
		err[0] = '\0';
	if ((opts->replay || opts->map_file || opts->nfiles) && opts->user)
		return fmt_error(
			err, errsz, -EOPNOTSUPP,
			"--user needs a live kernel: a recording has no processes to name frames from");
	if (opts->replay || opts->map_file || opts->nfiles) {
		/* recordings: read once, at the first drain; no kernel is touched */
		s = session_new(opts);
		if (!s)
			return -ENOMEM;
		r = session_open_replay(s, err, errsz);
		if (r == 0)
			r = open_vmlinux(s, opts, err, errsz);
		if (r < 0)
			goto fail;
		*ret = s;
		return 0;
	}
	if (!opts->tracefs && geteuid() != 0)
		return fmt_error(err, errsz, -EPERM,
				 "stacktop needs root to trace the kernel (try: sudo stacktop)");
	/* pids of this system: checked before tracefs is touched */
	if (!opts->tracefs) {
		r = session_check_pids(opts, err, errsz);
		if (r < 0)
			return r;
	}
	s = session_new(opts);
	if (!s)
		return -ENOMEM;
	r = open_tables(s, opts);
	if (r == 0)
		r = open_tracefs(s, opts, err, errsz);
	if (r == 0)
		r = open_vmlinux(s, opts, err, errsz);
	if (r == 0)
		r = session_setup_tick(s, err, errsz);
	if (r == 0)
		r = pick_modes(s, opts, err, errsz);
	if (r == 0)
		r = open_ingest(s, opts);
	if (r == 0)
		r = open_journal(s, opts, err, errsz);
	if (r == 0)
		r = open_sources(s, opts, err, errsz);
	if (r < 0)
		goto fail;
	start_clock(s, opts);
	*ret = s;
	return 0;
fail:
	session_close(s);
	return r;
}
