// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-ftrace.c - the function tracer and kprobe (dynamic) events of the
 * simulated kernel, and its error_log.
 *
 * Function tracer: set_ftrace_filter / set_ftrace_notrace hold sets of
 * symbols from available_filter_functions; an empty filter traces every
 * function.  What gets traced comes from "function stacks": the innermost
 * SIM_FUNC_DEPTHS frames of every event stack, each taken as a function being
 * entered: frame 0 is the function (its address + 5, past the fentry call),
 * then its caller's return address and the rest of the chain.  An entry
 * records ip = the function's address and parent_ip = the return address
 * into its caller, as the kernel's ftrace/function entry does.
 *
 * Kprobes: "p:[GRP/]EVENT SYM[+OFFS] [ARGS]", "r..." and "-:[GRP/]EVENT"
 * written to kprobe_events or dynamic_events create and remove events under
 * events/GRP/ in every instance.  A probe on SYM fires where the function
 * stacks enter SYM.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* ---- error_log ---------------------------------------------------------- */

#define CMD_PREFIX "  Command: "

/**
 * sim_log_err() - add an entry to @in's error_log, in the kernel's format
 * @in: instance (the top level for probes)
 * @loc: "event filter parse error: ", "trace_kprobe: "
 * @cmd: the command
 * @text: the error text
 * @pos: caret position in @cmd
 */
void sim_log_err(struct sim_inst *in, const char *loc, const char *cmd, const char *text,
		 int pos)
{
	uint64_t ns = sim_clock();

	sbuf_printf(&in->errlog, "[%5llu.%06u] %serror: %s\n" CMD_PREFIX "%s\n%*s^\n",
		    (unsigned long long)(ns / 1000000000ULL), (unsigned int)(ns % 1000000000ULL / 1000),
		    loc, text, cmd, (int)(strlen(CMD_PREFIX) + pos), "");
}

/* ---- formats ------------------------------------------------------------ */

const char *sim_event_format(int ev)
{
	if (ev < 0)
		return NULL;
	if (ev < SIM_EV_MAX)
		return sim_events[ev].format;
	if (ev < SIM_NEV)
		return sim.kprobes[ev - SIM_EV_MAX].live ? sim.kprobes[ev - SIM_EV_MAX].format : NULL;
	if (ev - SIM_FEV_BASE < SIM_FEV_MAX)
		return sim_fevents[ev - SIM_FEV_BASE].format;
	return NULL;
}

/* ---- the function tracer ------------------------------------------------ */

/* Listed in available_filter_functions (and so traceable). */
bool sim_sym_traceable(int i)
{
	const struct sim_sym *y = &sim.syms.v[i];

	if (y->type != 'T' && y->type != 't')
		return false;
	return strcmp(y->name, "_stext") && strcmp(y->name, "_etext");
}

int sim_ftrace_inst_init(struct sim_inst *in)
{
	in->func_filter = calloc(sim.syms.n, sizeof(bool));
	in->func_notrace = calloc(sim.syms.n, sizeof(bool));
	return in->func_filter && in->func_notrace ? 0 : -ENOMEM;
}

void sim_ftrace_inst_free(struct sim_inst *in)
{
	int ev;

	for (ev = 0; ev < SIM_NEV; ev++)
		sim_event_state_free(in, ev);
	free(in->func_filter);
	free(in->func_notrace);
	for (ev = 0; ev < SIM_NPIDLISTS; ev++)
		free(in->pidlist[ev].pid);
	sbuf_free(&in->errlog);
}

/*
 * The pid lists, as trace_pid_write() takes them: pids separated by
 * blanks, each a number (base 0, as kstrtoul) below PID_MAX_LIMIT, all or
 * nothing; a write adds to the list, O_TRUNC empties it (there is no way
 * to remove one pid). Read back one a line, ascending; the function
 * tracer's lists say "no pid" when empty.
 */
#define SIM_PID_MAX_LIMIT (4 * 1024 * 1024)

static int pidlist_add(struct sim_pidlist *pl, int pid)
{
	unsigned int i;

	for (i = 0; i < pl->n && pl->pid[i] < pid; i++)
		;
	if (i < pl->n && pl->pid[i] == pid)
		return 0;
	if (pl->n == pl->cap) {
		unsigned int cap = pl->cap ? pl->cap * 2 : 16;
		int *np = realloc(pl->pid, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		pl->pid = np;
		pl->cap = cap;
	}
	memmove(pl->pid + i + 1, pl->pid + i, (pl->n - i) * sizeof(*pl->pid));
	pl->pid[i] = pid;
	pl->n++;
	return 0;
}

int sim_write_pidlist(struct sim_inst *in, int which, const char *buf, size_t len)
{
	struct sim_pidlist *pl = &in->pidlist[which], nl = { 0 };
	char *tmp = strndup(buf, len), *tok, *save = NULL, *end;
	unsigned int i;
	int ret = 0;

	if (!tmp)
		return -ENOMEM;
	/* a new list of the old pids and the new ones: all or nothing */
	for (i = 0; i < pl->n && !ret; i++)
		ret = pidlist_add(&nl, pl->pid[i]);
	for (tok = strtok_r(tmp, " \t\n", &save); tok && !ret;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		unsigned long v;

		errno = 0;
		v = strtoul(tok, &end, 0);
		if (*end || errno || tok[0] == '-' || v >= SIM_PID_MAX_LIMIT)
			ret = -EINVAL;
		else
			ret = pidlist_add(&nl, (int)v);
	}
	free(tmp);
	if (ret) {
		free(nl.pid);
		return ret;
	}
	free(pl->pid);
	*pl = nl;
	return 0;
}

void sim_clear_pidlist(struct sim_inst *in, int which)
{
	in->pidlist[which].n = 0;
}

void sim_render_pidlist(const struct sim_inst *in, int which, struct sbuf *sb)
{
	const struct sim_pidlist *pl = &in->pidlist[which];
	unsigned int i;

	if (!pl->n && which == SIM_PL_FTRACE_NOTRACE)
		sbuf_printf(sb, "no pid\n");
	for (i = 0; i < pl->n; i++)
		sbuf_printf(sb, "%d\n", pl->pid[i]);
}

void sim_clear_func_filter(struct sim_inst *in, bool notrace)
{
	memset(notrace ? in->func_notrace : in->func_filter, 0, sim.syms.n * sizeof(bool));
	if (!notrace)
		in->nfunc_filter = 0;
}

/**
 * sim_write_func_filter() - apply text to set_ftrace_filter / set_ftrace_notrace
 * @in: instance
 * @notrace: set_ftrace_notrace
 * @buf: text: names or globs separated by white space, '!' removes
 * @len: its length
 *
 * sim-fs.c hands it one token at a time, as the kernel's parser does (one
 * token per write(2)). A token that matches no function fails with EINVAL
 * and changes nothing.  Truncation (O_TRUNC) is handled at open.
 */
int sim_write_func_filter(struct sim_inst *in, bool notrace, const char *buf, size_t len)
{
	bool *set = notrace ? in->func_notrace : in->func_filter;
	bool *copy = malloc(sim.syms.n * sizeof(bool));
	char *tmp = strndup(buf, len), *save = NULL, *tok;
	unsigned int i, n = 0;
	int ret = 0;

	if (!copy || !tmp)
		abort();
	memcpy(copy, set, sim.syms.n * sizeof(bool));
	for (tok = strtok_r(tmp, " \t\n", &save); tok && !ret; tok = strtok_r(NULL, " \t\n", &save)) {
		bool del = *tok == '!', any = false;
		const char *glob = tok + del;

		/* Commands (func:cmd) and :mod: are not modelled. */
		if (!*glob || strchr(glob, ':')) {
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < sim.syms.n; i++) {
			if (!sim_sym_traceable(i) || fnmatch(glob, sim.syms.v[i].name, 0))
				continue;
			copy[i] = !del;
			any = true;
		}
		if (!any)
			ret = -EINVAL;
	}
	if (!ret) {
		memcpy(set, copy, sim.syms.n * sizeof(bool));
		for (i = 0; i < sim.syms.n; i++)
			n += set[i];
		if (!notrace)
			in->nfunc_filter = n;
	}
	free(copy);
	free(tmp);
	return ret;
}

void sim_render_func_filter(const struct sim_inst *in, bool notrace, struct sbuf *sb)
{
	const bool *set = notrace ? in->func_notrace : in->func_filter;
	unsigned int i;
	bool any = false;

	for (i = 0; i < sim.syms.n; i++) {
		const struct sim_sym *y = &sim.syms.v[i];

		if (!set[i])
			continue;
		any = true;
		if (y->mod)
			sbuf_printf(sb, "%s [%s]\n", y->name, y->mod);
		else
			sbuf_printf(sb, "%s\n", y->name);
	}
	if (!any)
		sbuf_printf(sb, notrace ? "#### no functions disabled ####\n" :
			    "#### all functions enabled ####\n");
}

/* Does instance @in's function tracer trace function @sym? */
bool sim_func_traced(const struct sim_inst *in, int sym)
{
	if (sym < 0 || in->func_notrace[sym])
		return false;
	return !in->nfunc_filter || in->func_filter[sym];
}

static int sym_index(const struct sim_sym *y)
{
	return (int)(y - sim.syms.v);
}

/**
 * sim_gen_func_stacks() - append the function stacks to sim.stacks
 *
 * Return: 0 or -ENOMEM.
 */
int sim_gen_func_stacks(void)
{
	unsigned int s, d, cap = sim.nstacks * SIM_FUNC_DEPTHS, n = sim.nstacks;
	struct sim_stack *v = realloc(sim.stacks, (size_t)(sim.nstacks + cap) * sizeof(*v));

	unsigned int hsize = 1, *htab;

	if (!v)
		return -ENOMEM;
	sim.stacks = v;
	/* dedupe through a hash table of stack indexes (0: empty) */
	while (hsize < 2 * cap + 2)
		hsize <<= 1;
	htab = calloc(hsize, sizeof(*htab));
	if (!htab)
		return -ENOMEM;
	for (s = 0; s < sim.nstacks; s++) {
		const struct sim_stack *st = &sim.stacks[s];

		for (d = 0; d < SIM_FUNC_DEPTHS && d + 2 < st->nr; d++) {
			const struct sim_sym *y;
			struct sim_stack *fs = &sim.stacks[n];
			unsigned int k;
			uint64_t h;

			/* parent_ip must be a real return address */
			if (st->ips[d] == SIM_TRAMPOLINE || st->ips[d + 1] == SIM_TRAMPOLINE)
				continue;
			y = syms_lookup(&sim.syms, st->ips[d]);
			if (!y || !sim_sym_traceable(sym_index(y)))
				continue;
			memset(fs, 0, sizeof(*fs));
			fs->ev = SIM_EV_MAX;
			fs->cls = st->cls;
			fs->fsym = sym_index(y);
			fs->ips[0] = y->addr + 5;
			memcpy(&fs->ips[1], &st->ips[d + 1], (st->nr - d - 1) * sizeof(st->ips[0]));
			fs->nr = st->nr - d;
			h = 14695981039346656037ULL;
			for (k = 0; k < fs->nr; k++)
				h = (h ^ fs->ips[k]) * 1099511628211ULL;
			for (k = (unsigned int)(h ^ (h >> 29)) & (hsize - 1); htab[k];
			     k = (k + 1) & (hsize - 1)) {
				const struct sim_stack *o = &sim.stacks[htab[k] - 1];

				if (o->nr == fs->nr &&
				    !memcmp(o->ips, fs->ips, fs->nr * sizeof(fs->ips[0])))
					break;
			}
			if (!htab[k])
				htab[k] = ++n;
		}
	}
	free(htab);
	sim.nfstacks = n - sim.nstacks;
	sim.nall = n;
	return 0;
}

/* ---- kprobes -------------------------------------------------------------- */

#define E_BAD_PROBE_ADDR "Invalid probed address or symbol"
#define E_EVENT_EXIST	"Given group/event name is already used by another event"
#define E_BAD_EVENT_NAME "Event name must follow the same rules as C identifiers"
#define E_BAD_GROUP_NAME "Group name must follow the same rules as C identifiers"
#define E_BAD_RETPROBE	"Retprobe address must be an function entry"
#define E_BAD_FETCH_ARG	"Invalid fetch argument"
#define E_BAD_TYPE	"Unknown type"
#define E_RETVAL_ON_PROBE "$retval can be used only on retprobe"
#define E_BAD_MAXACT	"Invalid maxactive number"
#define E_NO_EVENT_NAME "Event name is not specified"

struct pcmd {
	char *argv[SIM_MAX_ARGS + 4];
	int argc;
	char line[512];
};

static int plog(const struct pcmd *c, int index, int offset, const char *text, int e)
{
	char cmd[512] = "";
	int i, pos = 0;

	for (i = 0; i < c->argc; i++) {
		if (i < index)
			pos += (int)strlen(c->argv[i]) + 1;
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%s%s", i ? " " : "",
			 c->argv[i]);
	}
	sim_log_err(sim.insts, "trace_kprobe: ", cmd, text, pos + offset);
	return -e;
}

static bool c_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int kprobe_find(const char *group, const char *name)
{
	int k;

	for (k = 0; k < SIM_MAX_KPROBES; k++)
		if (sim.kprobes[k].live && !strcmp(sim.kprobes[k].name, name) &&
		    (!group || !strcmp(sim.kprobes[k].group, group)))
			return k;
	return -1;
}

static bool kprobe_in_use(int k)
{
	struct sim_inst *in;

	for (in = sim.insts; in; in = in->next)
		if (in->enabled[SIM_KP_EV(k)] || in->trig[SIM_KP_EV(k)].on)
			return true;
	return false;
}

static void kprobe_free(int k)
{
	struct sim_inst *in;

	for (in = sim.insts; in; in = in->next)
		sim_event_state_free(in, SIM_KP_EV(k));
	free(sim.kprobes[k].format);
	sim.kprobes[k].format = NULL;
	sim.kprobes[k].live = false;
}

static const char *type_fmt(const char *t)
{
	if (t[0] == 'x')
		return !strcmp(t, "x64") ? "0x%Lx" : "0x%x";
	if (t[0] == 's')
		return !strcmp(t, "s64") ? "%Ld" : "%d";
	return !strcmp(t, "u64") ? "%Lu" : "%u";
}

static void kprobe_format(struct sim_kprobe *kp)
{
	struct sbuf sb = { 0 };
	unsigned int i, off;

	sbuf_printf(&sb, "name: %s\nID: %d\nformat:\n", kp->name, kp->id);
	sbuf_printf(&sb, "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	if (kp->ret) {
		sbuf_printf(&sb, "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
			    "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n");
		off = 24;
	} else {
		sbuf_printf(&sb, "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n");
		off = 16;
	}
	for (i = 0; i < kp->nargs; i++) {
		sbuf_printf(&sb, "\tfield:%c%u %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			    kp->arg_type[i][0] == 's' ? 's' : 'u', kp->arg_size[i] * 8,
			    kp->arg_name[i], off, kp->arg_size[i], kp->arg_type[i][0] == 's');
		off += kp->arg_size[i];
	}
	kp->size = off;
	sbuf_printf(&sb, "\nprint fmt: \"%s", kp->ret ? "(%lx <- %lx)" : "(%lx)");
	for (i = 0; i < kp->nargs; i++)
		sbuf_printf(&sb, " %s=%s", kp->arg_name[i], type_fmt(kp->arg_type[i]));
	sbuf_printf(&sb, "\"%s", kp->ret ? ", REC->__probe_func, REC->__probe_ret_ip" :
		    ", REC->__probe_ip");
	for (i = 0; i < kp->nargs; i++)
		sbuf_printf(&sb, ", REC->%s", kp->arg_name[i]);
	sbuf_printf(&sb, "\n");
	kp->format = sb.p;
}

static int parse_arg(const struct pcmd *c, int index, struct sim_kprobe *kp)
{
	static const char *const types[] = { "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
					     "x8", "x16", "x32", "x64" };
	char *a = c->argv[index], *eq = strchr(a, '='), *colon, *fetch = a;
	unsigned int n = kp->nargs, i;
	char type[8] = "x64", what[64];

	if (n == SIM_MAX_ARGS)
		return plog(c, index, 0, "Too many arguments are specified", EINVAL);
	if (eq) {
		*eq = '\0';
		if (!c_ident(a))
			return plog(c, index, 0, "Invalid argument name", EINVAL);
		snprintf(kp->arg_name[n], sizeof(kp->arg_name[n]), "%s", a);
		*eq = '=';
		fetch = eq + 1;
	} else {
		snprintf(kp->arg_name[n], sizeof(kp->arg_name[n]), "arg%u", n + 1);
	}
	colon = strrchr(fetch, ':');
	if (colon) {
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (!strcmp(colon + 1, types[i]))
				break;
		if (i == sizeof(types) / sizeof(types[0]))
			return plog(c, index, (int)(colon + 1 - a), E_BAD_TYPE, EINVAL);
		snprintf(type, sizeof(type), "%s", colon + 1);
	}
	snprintf(what, sizeof(what), "%.*s", (int)(colon ? colon - fetch : (long)strlen(fetch)),
		 fetch);
	if (!strcmp(what, "$retval") && !kp->ret)
		return plog(c, index, (int)(fetch - a), E_RETVAL_ON_PROBE, EINVAL);
	if (!strchr("$%@+-0123456789", what[0]) || !what[1])
		return plog(c, index, (int)(fetch - a), E_BAD_FETCH_ARG, EINVAL);
	/* kprobe_events shows the argument as written */
	snprintf(kp->arg_fetch[n], sizeof(kp->arg_fetch[n]), "%s", fetch);
	snprintf(kp->arg_type[n], sizeof(kp->arg_type[n]), "%s", type);
	kp->arg_size[n] = (unsigned int)atoi(type + 1) / 8;
	kp->nargs++;
	return 0;
}

static int kprobe_remove(const struct pcmd *c)
{
	char *spec = c->argv[0] + 2, *slash = strchr(spec, '/');
	const char *group = NULL, *name = spec;
	int k;

	if (slash) {
		*slash = '\0';
		group = spec;
		name = slash + 1;
	}
	if (!*name)
		return -EINVAL;
	k = kprobe_find(group, name);
	if (slash)
		*slash = '/';
	if (k < 0)
		return -ENOENT;
	if (kprobe_in_use(k))
		return -EBUSY;
	kprobe_free(k);
	return 0;
}

static int kprobe_create(struct pcmd *c)
{
	struct sim_kprobe kp = { 0 };
	char *a0 = c->argv[0], *p = a0 + 1, *sym, *plus;
	const struct sim_sym *y;
	struct sim_inst *in;
	int k, i, ret, s;

	kp.ret = a0[0] == 'r';
	snprintf(kp.group, sizeof(kp.group), "kprobes");
	if (isdigit((unsigned char)*p)) {
		if (!kp.ret)
			return plog(c, 0, 1, E_BAD_MAXACT, EINVAL);
		kp.maxactive = (int)strtol(p, &p, 10);
	}
	if (*p == ':') {
		char *slash = strchr(++p, '/');

		if (slash) {
			*slash = '\0';
			if (!c_ident(p)) {
				*slash = '/';
				return plog(c, 0, (int)(p - a0), E_BAD_GROUP_NAME, EINVAL);
			}
			snprintf(kp.group, sizeof(kp.group), "%s", p);
			*slash = '/';
			p = slash + 1;
		}
		if (*p && !c_ident(p))
			return plog(c, 0, (int)(p - a0), E_BAD_EVENT_NAME, EINVAL);
		snprintf(kp.name, sizeof(kp.name), "%s", p);
	} else if (*p) {
		return -EINVAL;
	}
	if (c->argc < 2)
		return plog(c, 0, (int)strlen(a0), "Symbol or address is not specified", EINVAL);
	sym = c->argv[1];
	plus = strchr(sym, '+');
	if (plus) {
		char *e;

		kp.offset = (unsigned int)strtoul(plus + 1, &e, 0);
		if (e == plus + 1 || *e)
			return plog(c, 1, (int)(plus - sym), "Invalid symbol offset", EINVAL);
	}
	snprintf(kp.symbol, sizeof(kp.symbol), "%.*s",
		 (int)(plus ? plus - sym : (long)strlen(sym)), sym);
	if (kp.ret && kp.offset)
		return plog(c, 1, 0, E_BAD_RETPROBE, EINVAL);
	y = syms_find(&sim.syms, kp.symbol);
	if (!y || !sim_sym_traceable(sym_index(y)) || kp.offset >= y->size)
		return plog(c, 1, 0, E_BAD_PROBE_ADDR, ENOENT);
	kp.sym = sym_index(y);
	if (!kp.name[0]) {
		snprintf(kp.name, sizeof(kp.name), "%c_%.40s_%u", kp.ret ? 'r' : 'p', kp.symbol,
			 kp.offset);
		for (p = kp.name; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_')
				*p = '_';
	}
	if (kprobe_find(kp.group, kp.name) >= 0)
		return plog(c, 0, 0, E_EVENT_EXIST, EEXIST);
	for (i = 2; i < c->argc; i++) {
		ret = parse_arg(c, i, &kp);
		if (ret)
			return ret;
	}
	for (k = 0; k < SIM_MAX_KPROBES; k++)
		if (!sim.kprobes[k].live)
			break;
	if (k == SIM_MAX_KPROBES)
		return -ENOSPC;	/* the simulator's limit, not the kernel's */
	kp.live = true;
	kp.id = sim.next_kprobe_id++;
	for (in = sim.insts; in; in = in->next)
		sim_event_state_free(in, SIM_KP_EV(k));
	kprobe_format(&kp);
	sim.kprobes[k] = kp;
	/* A reused slot starts with fresh ground truth. */
	for (in = sim.insts; in; in = in->next)
		for (s = 0; s < (int)sim.nall; s++)
			memset(&in->truth[(size_t)s * SIM_TRUTH_COLS + SIM_KP_EV(k)], 0,
			       sizeof(struct sim_truth));
	return 0;
}

static int dyn_line(char *line, bool kprobe_only)
{
	struct pcmd c = { .argc = 0 };
	char *save = NULL, *tok, *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	snprintf(c.line, sizeof(c.line), "%s", line);
	for (tok = strtok_r(c.line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (c.argc == (int)(sizeof(c.argv) / sizeof(c.argv[0])))
			return -E2BIG;
		c.argv[c.argc++] = tok;
	}
	if (!c.argc)
		return 0;
	if (c.argv[0][0] == '-' && c.argv[0][1] == ':')
		return kprobe_remove(&c);
	if (c.argv[0][0] == 'p' || c.argv[0][0] == 'r')
		return kprobe_create(&c);
	(void)kprobe_only;
	return -EINVAL;	/* other dynamic events (fprobe, eprobe, synth) are not modelled */
}

/**
 * sim_write_dynevents() - a write to kprobe_events or dynamic_events
 * @kprobe_only: kprobe_events
 * @buf: one command per line
 * @len: its length
 */
int sim_write_dynevents(bool kprobe_only, const char *buf, size_t len)
{
	char *tmp = strndup(buf, len), *save = NULL, *line;
	int ret = 0;

	if (!tmp)
		abort();
	for (line = strtok_r(tmp, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save))
		ret = dyn_line(line, kprobe_only);
	free(tmp);
	return ret;
}

/* O_TRUNC: remove every probe; EBUSY (and nothing removed) if one is in use. */
int sim_clear_dynevents(bool kprobe_only)
{
	int k;

	(void)kprobe_only;
	for (k = 0; k < SIM_MAX_KPROBES; k++)
		if (sim.kprobes[k].live && kprobe_in_use(k))
			return -EBUSY;
	for (k = 0; k < SIM_MAX_KPROBES; k++)
		if (sim.kprobes[k].live)
			kprobe_free(k);
	return 0;
}

void sim_render_dynevents(struct sbuf *sb)
{
	int k;
	unsigned int i;

	for (k = 0; k < SIM_MAX_KPROBES; k++) {
		const struct sim_kprobe *kp = &sim.kprobes[k];

		if (!kp->live)
			continue;
		sbuf_printf(sb, "%c", kp->ret ? 'r' : 'p');
		if (kp->ret && kp->maxactive)
			sbuf_printf(sb, "%d", kp->maxactive);
		sbuf_printf(sb, ":%s/%s %s", kp->group, kp->name, kp->symbol);
		if (kp->offset)
			sbuf_printf(sb, "+%u", kp->offset);
		for (i = 0; i < kp->nargs; i++)
			sbuf_printf(sb, " %s=%s", kp->arg_name[i], kp->arg_fetch[i]);
		sbuf_printf(sb, "\n");
	}
}

/* The probe-specific part of a kprobe record (after the common fields). */
void sim_kprobe_fill(const struct sim_kprobe *kp, uint8_t *b)
{
	unsigned int i, off = kp->ret ? 24 : 16;

	for (i = 0; i < kp->nargs; i++) {
		uint64_t v = sim_rand();

		if (kp->arg_size[i] < 8)
			v &= (1ULL << (kp->arg_size[i] * 8)) - 1;
		memcpy(b + off, &v, kp->arg_size[i]);
		off += kp->arg_size[i];
	}
}
