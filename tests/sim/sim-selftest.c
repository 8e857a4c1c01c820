// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-selftest.c - mount stackmap-sim for each RFC version and check that it
 * behaves like the kernel it stands in for.
 *
 *	sim-selftest PATH-TO-stackmap-sim
 *
 * Checks: format files, stack_map_stat key sets, stack_map_bin magic and
 * byte order, reset semantics (EBUSY/EINVAL, what is cleared) per version,
 * the instance gate, --fail-init, pool exhaustion, file faults, and the
 * ring-buffer pages, which are parsed with libtraceevent's kbuffer (an
 * independent parser): record types, time extends and stamps, padding,
 * missed events, event/stack pairing; finally, stack records read back and
 * resolved through stack_map_bin must match the simulator's ground truth
 * exactly.
 *
 * Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#define PAGE 4096

static const char *sim_bin;
static char mnt[256];
static pid_t sim_pid;
static int failures;
static const char *cur = "";

#define CHECK(cond, ...) check(!!(cond), __LINE__, #cond, __VA_ARGS__)

static void check(bool ok, int line, const char *expr, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failures++;
	fprintf(stderr, "FAIL [%s] line %d: %s: ", cur, line, expr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void path_of(char *buf, size_t sz, const char *rel)
{
	snprintf(buf, sz, "%s/%s", mnt, rel);
}

/* Write @s to @rel in one write(); 0 or -errno. */
static int wr(const char *rel, const char *s)
{
	char p[512];
	int fd, ret = 0;

	path_of(p, sizeof(p), rel);
	fd = open(p, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read all of @rel into a malloc'ed buffer; length or -errno. */
static ssize_t rd(const char *rel, char **out)
{
	char p[512];
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap + 1);
	ssize_t n;
	int fd;

	path_of(p, sizeof(p), rel);
	fd = open(p, O_RDONLY);
	if (fd < 0) {
		free(buf);
		*out = NULL;
		return -errno;
	}
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

static long stat_value(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static long file_value(const char *rel, const char *key)
{
	char *t;
	long v;

	if (rd(rel, &t) < 0)
		return -1;
	v = stat_value(t, key);
	free(t);
	return v;
}

/* Read @rel and tell whether it contains @needle (or equals it with @exact). */
static bool has(const char *rel, const char *needle, bool exact)
{
	char *t;
	bool ok;

	if (rd(rel, &t) < 0)
		return false;
	ok = exact ? !strcmp(t, needle) : strstr(t, needle) != NULL;
	free(t);
	return ok;
}

static int ctl(const char *cmd)
{
	return wr(".sim/control", cmd);
}

static void sim_start(const char *abi, const char *const *extra)
{
	const char *argv[40];
	struct stat st;
	char p[512];
	int n = 0, i;

	snprintf(mnt, sizeof(mnt), "/tmp/sim-selftest.XXXXXX");
	if (!mkdtemp(mnt)) {
		perror("mkdtemp");
		exit(1);
	}
	argv[n++] = sim_bin;
	argv[n++] = mnt;
	argv[n++] = "--abi";
	argv[n++] = abi;
	argv[n++] = "--step";
	argv[n++] = "--seed";
	argv[n++] = "7";
	for (i = 0; extra && extra[i] && n < 38; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	sim_pid = fork();
	if (!sim_pid) {
		execv(sim_bin, (char *const *)argv);
		_exit(127);
	}
	path_of(p, sizeof(p), "tracing_on");
	for (i = 0; i < 500; i++) {
		if (!stat(p, &st))
			return;
		usleep(10000);
	}
	fprintf(stderr, "stackmap-sim did not mount on %s\n", mnt);
	kill(sim_pid, SIGTERM);
	exit(1);
}

static void sim_stop(void)
{
	int status;
	pid_t p = fork();

	if (!p) {
		execlp("fusermount3", "fusermount3", "-u", mnt, (char *)NULL);
		_exit(127);
	}
	waitpid(p, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		kill(sim_pid, SIGTERM);
	waitpid(sim_pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "sim exit status %d", status);
	rmdir(mnt);
}

static const char stack_id_format[] =
	"name: stack_id\nID: 20\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int stack_id;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"<stack_id %d>\", REC->stack_id\n";

/* ---- stack_map_bin ------------------------------------------------------- */

struct bin_stack {
	uint32_t id;
	uint32_t nr;
	uint32_t ref;
	uint64_t *ips;
};

struct bin {
	uint32_t magic;
	uint32_t version;
	uint32_t nr_stacks;
	struct bin_stack *v;
	uint32_t n;
	bool swapped;
};

static uint32_t g32(const char *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t g64(const char *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static int bin_load(struct bin *b)
{
	char *t;
	ssize_t len = rd("stack_map_bin", &t);
	size_t off = 16;
	uint32_t i;

	memset(b, 0, sizeof(*b));
	if (len < 16) {
		free(t);
		return -1;
	}
	b->magic = g32(t, false);
	b->swapped = b->magic == 0x424d5346 || b->magic == 0x42534d46;
	b->magic = g32(t, b->swapped);
	b->version = g32(t + 4, b->swapped);
	b->nr_stacks = g32(t + 8, b->swapped);
	b->v = calloc(b->nr_stacks + 1, sizeof(*b->v));
	for (i = 0; i < b->nr_stacks && off + 16 <= (size_t)len; i++) {
		struct bin_stack *s = &b->v[i];
		uint32_t k;

		s->id = g32(t + off, b->swapped);
		s->nr = g32(t + off + 4, b->swapped);
		s->ref = g32(t + off + 8, b->swapped);
		off += 16;
		if (off + 8ULL * s->nr > (size_t)len)
			break;
		s->ips = calloc(s->nr + 1, 8);
		for (k = 0; k < s->nr; k++)
			s->ips[k] = g64(t + off + 8 * k, b->swapped);
		off += 8ULL * s->nr;
		b->n++;
	}
	free(t);
	return 0;
}

static void bin_free(struct bin *b)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		free(b->v[i].ips);
	free(b->v);
}

static const struct bin_stack *bin_find(const struct bin *b, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (b->v[i].id == id)
			return &b->v[i];
	return NULL;
}

/* ---- frame-string multiset ------------------------------------------------ */

struct tally {
	char **key;
	long *count;
	unsigned int n;
	unsigned int cap;
};

static void tally_add(struct tally *t, const char *key, long n)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (!strcmp(t->key[i], key)) {
			t->count[i] += n;
			return;
		}
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->key = realloc(t->key, t->cap * sizeof(*t->key));
		t->count = realloc(t->count, t->cap * sizeof(*t->count));
	}
	t->key[t->n] = strdup(key);
	t->count[t->n++] = n;
}

static long tally_get(const struct tally *t, const char *key)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->key[i], key))
			return t->count[i];
	return 0;
}

static void tally_free(struct tally *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		free(t->key[i]);
	free(t->key);
	free(t->count);
	memset(t, 0, sizeof(*t));
}

/* @ips may be only 4-byte aligned (ring-buffer records are) */
static void frames_key(const void *ips, unsigned int nr, char *out, size_t sz)
{
	size_t len = 0;
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < nr && len + 20 < sz; i++) {
		uint64_t ip;

		memcpy(&ip, (const char *)ips + i * sizeof(ip), sizeof(ip));
		len += snprintf(out + len, sz - len, "%s%llx", i ? "," : "", (unsigned long long)ip);
	}
}

/* ---- pages ----------------------------------------------------------------- */

struct page_scan {
	long pages;
	long records;
	long events;
	long stack_ids;
	long kstacks;
	long missed_pages;
	long missed_unknown;
	long extends;
	long stamps;
	long paddings;
	long orphans;
	long bad;
	unsigned long long last_ts;
	struct tally frames;	/* stack records, resolved */
	const struct bin *map;
	long unresolved;
};

static bool is_event_type(unsigned int type)
{
	static const unsigned int ids[] = { 372, 374, 375, 658, 657, 225, 224, 459 };
	unsigned int i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i] == type)
			return true;
	return false;
}

/* Read every page of one CPU (non-blocking) and check it with kbuffer. */
static void scan_cpu(int cpu, struct page_scan *ps)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	char p[512], page[PAGE * 2], key[4096];
	int fd, pending = 0;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", mnt, cpu);
	fd = open(p, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open %s: %s", p, strerror(errno));
	if (fd < 0)
		return;
	ps->last_ts = 0;
	while ((n = read(fd, page, sizeof(page))) > 0) {
		struct kbuffer_raw_info info = { .next = page + 16 };
		unsigned long long ts;
		void *rec;
		int missed;

		CHECK(n == PAGE, "page read returned %zd", n);
		ps->pages++;
		CHECK(!kbuffer_load_subbuffer(kb, page), "kbuffer_load_subbuffer");
		missed = kbuffer_missed_events(kb);
		if (missed) {
			ps->missed_pages++;
			if (missed < 0)
				ps->missed_unknown++;
			pending = 0;	/* the events of the lost stacks are gone */
		}
		while (kbuffer_raw_get(kb, page, &info)) {
			if (info.type == 30)
				ps->extends++;
			else if (info.type == 31)
				ps->stamps++;
			else if (info.type == 29)
				ps->paddings++;
		}
		for (rec = kbuffer_read_event(kb, &ts); rec; rec = kbuffer_next_event(kb, &ts)) {
			unsigned int size = kbuffer_event_size(kb);
			uint16_t type;

			ps->records++;
			CHECK(ts >= ps->last_ts, "time went back: %llu < %llu", ts, ps->last_ts);
			ps->last_ts = ts;
			memcpy(&type, rec, 2);
			if (is_event_type(type)) {
				ps->events++;
				pending++;
				continue;
			}
			if (!pending)
				ps->orphans++;
			else
				pending--;
			if (type == 20) {
				int32_t id;
				const struct bin_stack *bs;

				CHECK(size == 12, "stack_id record of %u bytes", size);
				memcpy(&id, (char *)rec + 8, 4);
				ps->stack_ids++;
				bs = ps->map ? bin_find(ps->map, (uint32_t)id) : NULL;
				if (!bs) {
					ps->unresolved++;
					continue;
				}
				frames_key(bs->ips, bs->nr, key, sizeof(key));
				tally_add(&ps->frames, key, 1);
			} else if (type == 4) {
				int32_t nr;

				memcpy(&nr, (char *)rec + 8, 4);
				CHECK(nr > 0 && size >= 16 + 8U * nr && size < 16 + 8U * nr + 4,
				      "kernel_stack size %u for %d frames", size, nr);
				ps->kstacks++;
				frames_key((char *)rec + 16, nr, key, sizeof(key));
				tally_add(&ps->frames, key, 1);
			} else {
				ps->bad++;
				CHECK(0, "unknown record type %u", type);
			}
		}
	}
	CHECK(n < 0 && errno == EAGAIN, "empty trace_pipe_raw: n=%zd errno=%d", n, errno);
	close(fd);
	kbuffer_free(kb);
}

static void scan_all(int cpus, struct page_scan *ps)
{
	int c;

	for (c = 0; c < cpus; c++)
		scan_cpu(c, ps);
}

/* Truth (top instance) as a multiset of frames -> read count; also sums. */
static void truth_load(struct tally *t, long *written, long *read, long *lost)
{
	char *txt, *line, *save = NULL;

	*written = *read = *lost = 0;
	if (rd(".sim/truth", &txt) < 0)
		return;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char inst[64], ev[64], ids[256], frames[4096];
		long stack, w, r, l, c, a, f, depth;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %63s %ld %ld %ld %ld %ld %ld %ld %255s %ld %4095s", inst, ev,
			   &stack, &w, &r, &l, &c, &a, &f, ids, &depth, frames) != 12) {
			CHECK(0, "bad truth line: %.80s", line);
			continue;
		}
		if (strcmp(inst, "top"))
			continue;
		*written += w;
		*read += r;
		*lost += l;
		if (r)
			tally_add(t, frames, r);
	}
	free(txt);
}

/* ---- the checks ---------------------------------------------------------------- */

static void enable_stackmap(int abi)
{
	CHECK(!wr("options/stacktrace", "1"), "stacktrace on");
	CHECK(!wr("options/stackmap", "1\n"), "stackmap on");
	CHECK(!wr("events/sched/sched_switch/enable", "1"), "enable sched_switch");
	CHECK(!wr("events/kmem/enable", "1"), "enable kmem");
	CHECK(!wr("set_event", "irq:irq_handler_entry"), "set_event");
	(void)abi;
}

static void test_formats(int abi)
{
	char *t;
	long len;

	CHECK(has("events/ftrace/stack_id/format", stack_id_format, true), "stack_id format");
	CHECK(has("events/header_page", "size:4080", false), "header_page");
	CHECK(has("events/ftrace/kernel_stack/format",
		  "field:int size;\toffset:8;\tsize:4;\tsigned:1;", false) &&
	      has("events/ftrace/kernel_stack/format",
		  "field:unsigned long caller[8];\toffset:16;\tsize:64;", false), "kernel_stack");
	CHECK(has("trace_options", "\nnostackmap\n", false), "trace_options");
	len = rd("stack_map_stat", &t);
	CHECK(len > 0, "stack_map_stat readable");
	if (abi == 1)
		CHECK(strstr(t, "hits:       0\n") && !strstr(t, "successes") &&
		      !strstr(t, "hit_rate"), "v1 stat keys:\n%s", t);
	else
		CHECK(!strcmp(t, "entries:      0 / 16384\ntable_size:   32768\nsuccesses:    0\n"
			      "drops:        0\n"), "v2+ empty stat:\n%s", t);
	free(t);
	CHECK(has("saved_cmdlines", "2296 bash\n", false), "saved_cmdlines");
	CHECK(has(".sim/kallsyms", " T _stext\n", false) && has(".sim/kallsyms", "\t[ext4]\n", false),
	      "kallsyms");
}

static void test_map_and_reset(int abi)
{
	char *t;
	struct bin b;
	int ret;

	enable_stackmap(abi);
	CHECK(!ctl("emit 400"), "emit");
	CHECK(has(".sim/control", "last: emitted 400", false), "emitted");
	CHECK(file_value("stack_map_stat", "entries:") > 0, "entries after emit");
	CHECK(has("stack_map_stat", abi == 1 ? "hit_rate:   100%" : "success_rate: 100%", false),
	      "rate");
	CHECK(has("stack_map", "stack_id ", false) && has("stack_map", "[ref ", false),
	      "stack_map text");
	rd("stack_map", &t);

	CHECK(!bin_load(&b), "stack_map_bin");
	CHECK(b.magic == (abi == 4 ? 0x46534D42U : 0x464D5342U), "magic %x", b.magic);
	CHECK(b.version == (abi == 4 ? 1U : 2U), "version %u", b.version);
	CHECK(b.nr_stacks == b.n && b.n == (uint32_t)file_value("stack_map_stat", "entries:"),
	      "nr_stacks %u records %u", b.nr_stacks, b.n);
	{
		bool marker = false;
		uint32_t i, k;

		for (i = 0; i < b.n; i++)
			for (k = 0; k < b.v[i].nr; k++)
				marker |= b.v[i].ips[k] == 0x7fffffff;
		if (marker)
			CHECK(strstr(t, abi == 4 ? "] [FTRACE TRAMPOLINE]\n" : "] 0x7fffffff\n"),
			      "trampoline frame text");
	}
	free(t);
	bin_free(&b);

	/* Reset semantics. */
	ret = wr("stack_map", "0");
	if (abi == 1) {
		CHECK(ret == 0, "v1 reset while tracing: %d", ret);
		CHECK(file_value("stack_map_stat", "entries:") == 0, "v1 reset clears");
		CHECK(!ctl("emit 50"), "emit");
		CHECK(wr("stack_map", "0junk") == 0, "v1 prefix reset");
		CHECK(wr("stack_map", "resetXX\n") == 0, "v1 reset prefix");
		CHECK(wr("stack_map", "x") == -EINVAL, "v1 junk");
		CHECK(wr("stack_map", "\n") == -EINVAL, "v1 newline");
	} else {
		CHECK(ret == -EBUSY, "reset while tracing: %d", ret);
		CHECK(wr("stack_map", "x") == -EINVAL, "junk");
		CHECK(!wr("tracing_on", "0"), "tracing off");
		CHECK(wr("stack_map", "\n") == -EINVAL, "newline");
		CHECK(wr("stack_map", "0junk") == -EINVAL, "0junk");
		CHECK(wr("stack_map", "reset\n\n") == -EINVAL, "reset + 2 newlines");
		CHECK(file_value("per_cpu/cpu0/stats", "entries:") > 0, "ring has data");
		CHECK(wr("stack_map", "reset\n") == 0, "reset");
		CHECK(file_value("stack_map_stat", "entries:") == 0, "reset clears map");
		CHECK(!has("stack_map_stat", "success_rate", false), "no rate line");
		if (abi == 4)
			CHECK(file_value("per_cpu/cpu0/stats", "entries:") == 0, "v4 clears rings");
		else
			CHECK(file_value("per_cpu/cpu0/stats", "entries:") > 0, "v2/3 keep rings");
		CHECK(wr("stack_map", "0\n") == 0, "reset 0\\n");
		CHECK(!wr("tracing_on", "1"), "tracing on");
	}

	/* The instance gate. */
	{
		char p[512], q[512];
		struct stat st;

		path_of(p, sizeof(p), "instances/gate");
		CHECK(!mkdir(p, 0750), "mkdir instance: %s", strerror(errno));
		path_of(q, sizeof(q), "instances/gate/options/stackmap");
		CHECK(stat(q, &st) && errno == ENOENT, "instance has options/stackmap");
		path_of(q, sizeof(q), "instances/gate/options/stacktrace");
		CHECK(!stat(q, &st), "instance options/stacktrace");
		path_of(q, sizeof(q), "instances/gate/stack_map");
		CHECK(stat(q, &st) && errno == ENOENT, "instance has stack_map");
		ret = wr("instances/gate/trace_options", "stackmap");
		CHECK(abi == 4 ? ret == -EINVAL : ret == 0, "instance trace_options stackmap: %d",
		      ret);
		/* v2/v3 accept the bit silently (the hole v4 closed). */
		CHECK(has("instances/gate/trace_options", abi == 4 ? "\nnostackmap\n" :
			  "\nstackmap\n", false), "instance trace_options");
		CHECK(!wr("instances/gate/events/sched/sched_switch/enable", "1"), "inst enable");
		CHECK(!wr("instances/gate/options/stacktrace", "1"), "inst stacktrace");
		CHECK(!rmdir(p), "rmdir instance: %s", strerror(errno));
		CHECK(stat(p, &st) && errno == ENOENT, "instance gone");
	}
	CHECK(wr("options/stackmap", "2") == -EINVAL, "option value 2");
	CHECK(wr("trace_options", "bogus") == -EINVAL, "bogus option");
}

static void test_pages(int abi)
{
	struct page_scan ps = { 0 };
	long overrun;

	/* A tiny buffer on cpu0 only: overwrites and missed events. */
	enable_stackmap(abi);
	CHECK(!wr("buffer_size_kb", "8"), "buffer_size_kb");
	CHECK(has("buffer_size_kb", "8\n", true), "buffer_size_kb");
	CHECK(!ctl("gap 0.05"), "gap");
	CHECK(!ctl("abs-ts 0.05"), "abs-ts");
	CHECK(!ctl("nest 0.2"), "nest");
	CHECK(!ctl("emit 3000 cpu 0"), "emit");
	overrun = file_value("per_cpu/cpu0/stats", "overrun:");
	CHECK(overrun > 0, "overrun %ld", overrun);
	scan_cpu(0, &ps);
	CHECK(ps.pages >= 2 && ps.pages <= 3, "pages %ld", ps.pages);
	CHECK(ps.missed_pages == 1, "missed-event pages %ld", ps.missed_pages);
	CHECK(file_value("per_cpu/cpu0/stats", "entries:") == 0, "drained");
	CHECK(file_value("per_cpu/cpu0/stats", "read events:") == ps.records, "read events");

	/* A big buffer: everything arrives; exact ground truth. */
	memset(&ps, 0, sizeof(ps));
	CHECK(!wr("buffer_size_kb", "4096"), "buffer_size_kb");
	CHECK(!ctl("truth-clear"), "truth-clear");
	CHECK(!ctl("emit 4000"), "emit");
	{
		struct tally truth = { 0 };
		struct bin b;
		long w, r, l;
		unsigned int i;

		CHECK(!bin_load(&b), "bin");
		ps.map = &b;
		scan_all(2, &ps);
		CHECK(ps.bad == 0 && ps.records > 8000, "records %ld", ps.records);
		CHECK(ps.orphans == 0, "stack records without an event: %ld", ps.orphans);
		CHECK(ps.extends > 0, "no time extends");
		CHECK(ps.stamps > 0, "no absolute time stamps");
		CHECK(ps.paddings > 0, "no padding");
		/* Only v4 sends deep stacks as kernel_stack; v1-v3 truncate them. */
		CHECK(ps.stack_ids > 0 && (abi < 4 || ps.kstacks > 0), "ids %ld kstacks %ld",
		      ps.stack_ids, ps.kstacks);
		CHECK(ps.unresolved == 0, "unresolved ids %ld", ps.unresolved);
		CHECK(ps.missed_pages == 0, "missed %ld", ps.missed_pages);
		truth_load(&truth, &w, &r, &l);
		CHECK(w == r && l == 0 && r == ps.stack_ids + ps.kstacks,
		      "truth written %ld read %ld lost %ld, pages had %ld", w, r, l,
		      ps.stack_ids + ps.kstacks);
		if (abi == 4) {
			/* v1-v3 merge deep stacks, so only v4 resolves exactly. */
			for (i = 0; i < truth.n; i++)
				CHECK(tally_get(&ps.frames, truth.key[i]) == truth.count[i],
				      "stack %u: read %ld, truth %ld", i,
				      tally_get(&ps.frames, truth.key[i]), truth.count[i]);
			CHECK(truth.n == ps.frames.n, "distinct %u vs %u", truth.n, ps.frames.n);
		}
		tally_free(&truth);
		bin_free(&b);
		tally_free(&ps.frames);
	}
}

/* feed-on-read: every page read finds new records; off again, the CPU drains */
static void test_feed_on_read(void)
{
	char p[512], page[PAGE];
	int fd, i, n;

	snprintf(p, sizeof(p), "%s/per_cpu/cpu0/trace_pipe_raw", mnt);
	fd = open(p, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open %s: %s", p, strerror(errno));
	if (fd < 0)
		return;
	for (n = 0; n < 10000 && read(fd, page, sizeof(page)) > 0; n++)
		;
	CHECK(read(fd, page, sizeof(page)) < 0 && errno == EAGAIN, "cpu0 not drained");
	CHECK(!ctl("feed-on-read 20"), "feed-on-read");
	for (i = 0; i < 50; i++)
		CHECK(read(fd, page, sizeof(page)) == PAGE, "read %d after feed-on-read found nothing", i);
	CHECK(!ctl("feed-on-read 0"), "feed-on-read 0");
	for (n = 0; n < 10000 && read(fd, page, sizeof(page)) > 0; n++)
		;
	CHECK(n < 10000 && errno == EAGAIN, "cpu0 does not drain after feed-on-read 0");
	close(fd);
}

static void test_faults(int abi)
{
	char p[512];
	struct stat st;
	char *t;
	ssize_t len, full;

	enable_stackmap(abi);
	CHECK(!ctl("emit 100"), "emit");
	full = rd("stack_map_bin", &t);
	free(t);
	CHECK(!ctl("bin-fault truncate"), "bin-fault");
	len = rd("stack_map_bin", &t);
	CHECK(len > 16 && len < full && len % 8, "truncated bin %zd of %zd", len, full);
	free(t);
	CHECK(!ctl("bin-fault magic"), "bin-fault");
	len = rd("stack_map_bin", &t);
	CHECK(len >= 16 && !memcmp(t, "\x0d\xf0\xad\x0b", 4), "bad magic");
	free(t);
	CHECK(!ctl("bin-fault none"), "bin-fault");
	CHECK(!ctl("hide stack_map_bin"), "hide");
	path_of(p, sizeof(p), "stack_map_bin");
	CHECK(stat(p, &st) && errno == ENOENT, "hidden bin");
	CHECK(!ctl("show stack_map_bin"), "show");
	CHECK(!stat(p, &st) && (st.st_mode & 0777) == 0440, "bin mode %o", st.st_mode);
	path_of(p, sizeof(p), "stack_map");
	CHECK(!stat(p, &st) && (st.st_mode & 0777) == 0640, "map mode %o", st.st_mode);
	CHECK(ctl("no-such-command") == -EINVAL, "bad control command");

	/* Pool exhaustion: drops and kernel_stack fallbacks. */
	CHECK(!ctl("fill-pool 0"), "fill-pool");
	CHECK(!ctl("truth-clear"), "truth-clear");
	CHECK(!ctl("emit 300"), "emit");
	CHECK(has("stack_map_stat", "1024 / 1024", false), "full pool");
	CHECK(file_value("stack_map_stat", "drops:") > 0, "drops");

	/* A blocking read of an empty buffer returns 0 after --block-ms. */
	{
		char page[PAGE];
		int fd;

		CHECK(!wr("tracing_on", "0"), "off");
		CHECK(!ctl("clear"), "clear");
		path_of(p, sizeof(p), "per_cpu/cpu1/trace_pipe_raw");
		fd = open(p, O_RDONLY);
		CHECK(fd >= 0 && read(fd, page, PAGE) == 0, "blocking read on empty");
		if (fd >= 0)
			close(fd);
	}
}

static void run_abi(int abi)
{
	char name[8];
	const char *swap[] = { "--swap", NULL };
	const char *fail[] = { "--fail-init", NULL };
	const char *small[] = { "--bits", "10", "--block-ms", "200", NULL };
	struct stat st;
	char p[512];
	struct bin b;

	snprintf(name, sizeof(name), "v%d", abi);

	cur = name;
	sim_start(name, NULL);
	test_formats(abi);
	test_map_and_reset(abi);
	sim_stop();

	sim_start(name, NULL);
	test_pages(abi);
	test_feed_on_read();
	sim_stop();

	sim_start(name, small);
	test_faults(abi);
	sim_stop();

	sim_start(name, swap);
	enable_stackmap(abi);
	CHECK(!ctl("emit 50"), "emit");
	CHECK(!bin_load(&b) && b.swapped && b.n == b.nr_stacks && b.n > 0 &&
	      b.version == (abi == 4 ? 1U : 2U), "swapped bin");
	bin_free(&b);
	sim_stop();

	sim_start(name, fail);
	CHECK(wr("options/stackmap", "1") == -EINVAL, "fail-init enable");
	path_of(p, sizeof(p), "stack_map");
	CHECK(stat(p, &st) && errno == ENOENT, "fail-init has stack_map");
	sim_stop();
}

int main(int argc, char **argv)
{
	int abi;

	if (argc != 2) {
		fprintf(stderr, "usage: sim-selftest PATH-TO-stackmap-sim\n");
		return 2;
	}
	sim_bin = argv[1];
	if (access("/dev/fuse", R_OK | W_OK)) {
		printf("SKIP: /dev/fuse is not usable\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	for (abi = 1; abi <= 4; abi++)
		run_abi(abi);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
