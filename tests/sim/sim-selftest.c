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
#include <poll.h>
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

/* check one page read from trace_pipe_raw with kbuffer; @pending: events waiting for a stack */
static void scan_one(struct kbuffer *kb, char *page, struct page_scan *ps, int *pending)
{
	struct kbuffer_raw_info info = { .next = page + 16 };
	char key[4096];
	unsigned long long ts;
	void *rec;
	int missed;

	ps->pages++;
	CHECK(!kbuffer_load_subbuffer(kb, page), "kbuffer_load_subbuffer");
	missed = kbuffer_missed_events(kb);
	if (missed) {
		ps->missed_pages++;
		if (missed < 0)
			ps->missed_unknown++;
		*pending = 0;	/* the events of the lost stacks are gone */
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
			(*pending)++;
			continue;
		}
		if (!*pending)
			ps->orphans++;
		else
			(*pending)--;
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

/* Read every page of one CPU (non-blocking) and check it with kbuffer. */
static void scan_cpu(int cpu, struct page_scan *ps)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	char p[512], page[PAGE * 2];
	int fd, pending = 0;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", mnt, cpu);
	fd = open(p, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open %s: %s", p, strerror(errno));
	if (fd < 0)
		return;
	ps->last_ts = 0;
	while ((n = read(fd, page, sizeof(page))) > 0) {
		CHECK(n == PAGE, "page read returned %zd", n);
		scan_one(kb, page, ps, &pending);
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
	tally_free(&ps.frames);
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
		/* no padding: a page the writer left ends before it (test_read_semantics) */
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

/* a page's commit: its data bytes */
static unsigned long page_commit(const char *page)
{
	uint64_t c;

	memcpy(&c, page + 8, 8);
	return (unsigned long)(c & ((1UL << 27) - 1));
}

/* the last record type on @page (29: padding), -1 when empty */
static int last_type(char *page)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct kbuffer_raw_info info = { .next = page + 16 };
	int t = -1;

	kbuffer_load_subbuffer(kb, page);
	while (kbuffer_raw_get(kb, page, &info))
		t = info.type;
	kbuffer_free(kb);
	return t;
}

static bool readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

/*
 * What ring_buffer_read_page() hands out: the page the writer is on, the
 * records written since the last read (the page stays the writer's, the
 * next read has only what came after); once it is left, the rest of it,
 * padding included; a page nobody read, whole up to its padding. A page
 * read in part is the kernel's reader page: never overwritten. poll()
 * waits for buffer_percent of the ring, never for the writer's page alone.
 */
static void test_read_semantics(int abi)
{
	char p[512], page[PAGE];
	unsigned long c1, c2, c3;
	int fd, n, t;

	enable_stackmap(abi);
	CHECK(!wr("buffer_size_kb", "40"), "buffer_size_kb");
	path_of(p, sizeof(p), "per_cpu/cpu0/trace_pipe_raw");
	fd = open(p, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open %s: %s", p, strerror(errno));
	if (fd < 0)
		return;
	for (n = 0; n < 1000 && read(fd, page, PAGE) > 0; n++)
		;
	CHECK(!ctl("emit 2 cpu 0"), "emit");
	CHECK(!readable(fd), "poll: the writer's page alone is readable at buffer_percent 50");
	CHECK(read(fd, page, PAGE) == PAGE, "the writer's page");
	c1 = page_commit(page);
	CHECK(c1 > 0 && c1 < PAGE / 2, "the writer's page copied: commit %lu", c1);
	CHECK(read(fd, page, PAGE) < 0 && errno == EAGAIN, "read again: not EAGAIN");
	CHECK(!ctl("emit 1 cpu 0"), "emit");
	CHECK(read(fd, page, PAGE) == PAGE, "the writer's page again");
	c2 = page_commit(page);
	CHECK(c2 > 0 && c2 < c1, "only what came since: commit %lu after %lu", c2, c1);
	/* the writer moves on: the rest, its padding included (unless it filled the page) */
	CHECK(!ctl("emit 400 cpu 0"), "emit");
	CHECK(read(fd, page, PAGE) == PAGE, "the rest");
	c3 = page_commit(page);
	t = last_type(page);
	CHECK(c1 + c2 + c3 <= PAGE - 16 && (t == 29 || c1 + c2 + c3 >= PAGE - 16 - 4),
	      "the rest: commit %lu, last record type %d", c3, t);
	for (n = 0; t != 29 && n < 20; n++) {
		while (read(fd, page, PAGE) > 0)
			;
		CHECK(!ctl("emit 1 cpu 0"), "emit");
		CHECK(read(fd, page, PAGE) == PAGE, "the writer's page");
		CHECK(!ctl("emit 400 cpu 0"), "emit");
		CHECK(read(fd, page, PAGE) == PAGE, "the rest");
		t = last_type(page);
	}
	CHECK(t == 29, "no rest of a page ended in padding in 20 tries");
	/* a page nobody read: whole, its commit before the padding */
	CHECK(read(fd, page, PAGE) == PAGE, "a whole page");
	c3 = page_commit(page);
	CHECK(c3 > PAGE / 2 && last_type(page) != 29, "a whole page: commit %lu, last type %d",
	      c3, last_type(page));
	for (n = 0; n < 1000 && read(fd, page, PAGE) > 0; n++)
		;
	/* the watermark: 50% of 10 pages */
	CHECK(!ctl("emit 50 cpu 0"), "emit");
	CHECK(!readable(fd), "poll: readable below the watermark");
	CHECK(!ctl("emit 1000 cpu 0"), "emit");
	CHECK(readable(fd), "poll: not readable over the watermark");
	for (n = 0; n < 1000 && read(fd, page, PAGE) > 0; n++)
		;
	CHECK(!wr("buffer_percent", "0"), "buffer_percent 0");
	CHECK(!ctl("emit 1 cpu 0"), "emit");
	CHECK(readable(fd), "poll at buffer_percent 0: any record");
	CHECK(!wr("buffer_percent", "50"), "buffer_percent 50");
	/* the reader's page is not overwritten: its rest comes, then the loss */
	CHECK(read(fd, page, PAGE) == PAGE, "the writer's page");
	CHECK(!ctl("emit 2000 cpu 0"), "emit");
	CHECK(file_value("per_cpu/cpu0/stats", "overrun:") > 0, "no overrun");
	CHECK(read(fd, page, PAGE) == PAGE && !(page[11] & 0x80),
	      "the reader page's rest: missed flag (rb_get_reader_page() sets it on the next)");
	CHECK(read(fd, page, PAGE) == PAGE && (page[11] & 0x80), "the next page: no missed flag");
	close(fd);
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

/* ---- function tracer, kprobes, filters, triggers ---------------------------- */

struct rec {
	int cpu;
	uint16_t type;
	unsigned int size;
	unsigned char data[1024];
};

struct recs {
	struct rec *v;
	unsigned int n;
	unsigned int cap;
};

/* Read every page of every CPU of instance @prefix ("" or "instances/X/"). */
static void read_records(const char *prefix, int cpus, struct recs *out)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	char p[512], page[PAGE];
	int cpu, fd;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < cpus; cpu++) {
		snprintf(p, sizeof(p), "%s/%sper_cpu/cpu%d/trace_pipe_raw", mnt, prefix, cpu);
		fd = open(p, O_RDONLY | O_NONBLOCK);
		CHECK(fd >= 0, "open %s", p);
		if (fd < 0)
			continue;
		while (read(fd, page, sizeof(page)) == PAGE) {
			unsigned long long ts;
			void *r;

			CHECK(!kbuffer_load_subbuffer(kb, page), "kbuffer_load_subbuffer");
			for (r = kbuffer_read_event(kb, &ts); r; r = kbuffer_next_event(kb, &ts)) {
				struct rec *x;

				if (out->n == out->cap) {
					out->cap = out->cap ? out->cap * 2 : 256;
					out->v = realloc(out->v, out->cap * sizeof(*out->v));
				}
				x = &out->v[out->n++];
				x->cpu = cpu;
				x->size = kbuffer_event_size(kb);
				if (x->size > sizeof(x->data))
					x->size = sizeof(x->data);
				memcpy(x->data, r, x->size);
				memcpy(&x->type, r, 2);
			}
		}
		close(fd);
	}
	kbuffer_free(kb);
}

static uint64_t rec64(const struct rec *r, unsigned int off)
{
	uint64_t v = 0;

	if (off + 8 <= r->size)
		memcpy(&v, r->data + off, 8);
	return v;
}

/* Address of @name in the simulated kallsyms, or 0. */
static uint64_t sym_addr(const char *name)
{
	char *t, *line, *save = NULL;
	uint64_t a = 0;

	if (rd(".sim/kallsyms", &t) < 0)
		return 0;
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char nm[128];
		unsigned long long addr;
		char type;

		if (sscanf(line, "%llx %c %127s", &addr, &type, nm) == 3 && !strcmp(nm, name)) {
			a = addr;
			break;
		}
	}
	free(t);
	return a;
}

/* Sum of the truth's "read" column over lines matching @inst, @event, @func. */
static long truth_read(const char *inst, const char *event, const char *func)
{
	char *t, *line, *save = NULL;
	long sum = 0;

	if (rd(".sim/truth", &t) < 0)
		return -1;
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char in[64], ev[64], f[80];
		long r, stack, w;

		if (line[0] == '#' ||
		    sscanf(line, "%63s %63s %ld %ld %ld", in, ev, &stack, &w, &r) != 5)
			continue;
		if (strcmp(in, inst) || strcmp(ev, event))
			continue;
		if (func) {
			snprintf(f, sizeof(f), " func=%s", func);
			if (!strstr(line, f) || strstr(line, f)[strlen(f)])
				continue;
		}
		sum += r;
	}
	free(t);
	return sum;
}

/*
 * Write all of @s to @rel, opened with @flags, going on after short writes
 * as a shell's echo does (set_ftrace_filter takes one token per write):
 * 0 or the first error.
 */
static int wr_all(const char *rel, const char *s, int flags)
{
	size_t len = strlen(s);
	char p[512];
	int fd, ret = 0;
	ssize_t n;

	path_of(p, sizeof(p), rel);
	fd = open(p, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	while (len && !ret) {
		n = write(fd, s, len);
		if (n <= 0)
			ret = n < 0 ? -errno : -EIO;
		else
			s += n, len -= (size_t)n;
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

static int wr_append(const char *rel, const char *s)
{
	return wr_all(rel, s, O_APPEND);
}

static int wr_trunc(const char *rel, const char *s)
{
	return wr_all(rel, s, O_TRUNC);
}

/* One write(2) of @s to @rel (O_TRUNC): the bytes it took, or -errno. */
static ssize_t wr_once(const char *rel, const char *s)
{
	char p[512];
	ssize_t n;
	int fd;

	path_of(p, sizeof(p), rel);
	fd = open(p, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		n = -errno;
	if (close(fd) < 0 && n >= 0)
		n = -errno;
	return n;
}

static bool is_stack_type(unsigned int type)
{
	return type == 4 || type == 20;
}

/* The function tracer: files, filter semantics, entries + stacks, truth. */
static void test_function(int abi)
{
	uint64_t a_sched = sym_addr("schedule"), a_kfree = sym_addr("kfree");
	long n_sched = 0, n_kfree = 0, sid = 0, ks = 0, bad = 0;
	struct recs rs;
	char *t;
	unsigned int i;

	CHECK(has("available_tracers", "function nop\n", true), "available_tracers");
	CHECK(wr("current_tracer", "bogus\n") == -EINVAL, "bogus tracer");
	CHECK(has("events/ftrace/function/format",
		  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n", false) &&
	      has("events/ftrace/function/format", "ID: 1\n", false), "function format");
	CHECK(has("events/ftrace/function/id", "1\n", true) &&
	      rd("events/ftrace/function/enable", &t) == -ENOENT, "function id, no enable");
	free(t);
	CHECK(has("set_ftrace_filter", "#### all functions enabled ####\n", true), "empty filter");
	CHECK(has("set_ftrace_notrace", "#### no functions disabled ####\n", true), "empty notrace");
	CHECK(!wr_trunc("set_ftrace_filter", "vfs_*\n"), "glob");
	CHECK(has("set_ftrace_filter", "vfs_read\n", false) &&
	      has("set_ftrace_filter", "vfs_write\n", false) &&
	      !has("set_ftrace_filter", "kfree\n", false), "glob listing");
	CHECK(wr_append("set_ftrace_filter", "no_such_function\n") == -EINVAL, "unknown name");
	/* one token per write(2), each applied when white space ends it: the
	 * kernel keeps kfree, then refuses the next token */
	CHECK(wr_append("set_ftrace_filter", "kfree no_such_function\n") == -EINVAL, "half unknown");
	CHECK(has("set_ftrace_filter", "kfree\n", false), "the token before a bad one was lost");
	CHECK(!wr_append("set_ftrace_filter", "!kfree\n") &&
	      !has("set_ftrace_filter", "kfree\n", false), "remove kfree");
	CHECK(wr_append("set_ftrace_filter", "!no_such_function\n") == -EINVAL, "remove unknown");
	/* a token at the very end applies at close(2), where its error is lost */
	CHECK(!wr_append("set_ftrace_filter", "no_such_function"), "unknown last token refused");
	CHECK(!wr_append("set_ftrace_filter", "!vfs_write"), "remove");
	CHECK(!has("set_ftrace_filter", "vfs_write\n", false) &&
	      has("set_ftrace_filter", "vfs_read\n", false), "remove listing");
	CHECK(wr_once("set_ftrace_filter", "schedule kfree\n") == 9 &&
	      has("set_ftrace_filter", "schedule\n", true), "one token per write: a short write");
	CHECK(wr_once("set_ftrace_filter", "  \n\t") == 4, "white space only");
	CHECK(wr_once("set_ftrace_filter", "no_such_function") == 16 &&
	      has("set_ftrace_filter", "#### all functions enabled ####\n", true),
	      "an unknown last token: the write succeeds, the filter stays empty");
	CHECK(!wr_trunc("set_ftrace_filter", "schedule kfree\n"), "replace");
	CHECK(has("set_ftrace_filter", "kfree\nschedule\n", true) ||
	      has("set_ftrace_filter", "schedule\nkfree\n", true), "replaced listing");
	CHECK(has("options/func_stack_trace", "0\n", true) && has("options/function-trace", "1\n", true),
	      "function options");

	/* Top level with the stack map: entries + stack_id records. */
	CHECK(!ctl("nest 0"), "nest 0");
	CHECK(!wr("options/stackmap", "1"), "stackmap");
	CHECK(wr("trace_options", "func_stack_trace") == -EINVAL &&
	      !has("trace_options", "func_stack_trace", false), "tracer option of another tracer");
	CHECK(!wr("current_tracer", "function\n") && has("current_tracer", "function\n", true),
	      "function tracer");
	CHECK(!wr("trace_options", "func_stack_trace") &&
	      has("trace_options", "\nfunc_stack_trace\n", false) &&
	      has("options/func_stack_trace", "1\n", true), "func_stack_trace in trace_options");
	/* an instance traces only kfree, into kernel_stack records */
	CHECK(!mkdir(strcat(strcpy((char[600]){ 0 }, mnt), "/instances/ft"), 0750), "mkdir");
	CHECK(!wr("instances/ft/current_tracer", "function"), "instance tracer");
	CHECK(!wr_trunc("instances/ft/set_ftrace_filter", "kfree"), "instance filter");
	CHECK(!wr("instances/ft/options/func_stack_trace", "1"), "instance func_stack_trace");
	CHECK(!ctl("truth-clear"), "truth-clear");
	CHECK(!ctl("emit 400"), "emit");
	CHECK(has(".sim/control", "last: emitted 400\n", false), "400 function entries");

	read_records("", 2, &rs);
	for (i = 0; i < rs.n; i++) {
		const struct rec *r = &rs.v[i];

		if (r->type != 1)
			continue;
		CHECK(r->size >= 24, "function entry of %u bytes", r->size);
		if (rec64(r, 8) == a_sched)
			n_sched++;
		else if (rec64(r, 8) == a_kfree)
			n_kfree++;
		else
			bad++;
		CHECK(rec64(r, 16) >> 32 == 0xffffffffULL, "parent_ip %llx",
		      (unsigned long long)rec64(r, 16));
		/* func_stack_trace: the next record on this CPU is the stack */
		CHECK(i + 1 < rs.n && rs.v[i + 1].cpu == r->cpu && is_stack_type(rs.v[i + 1].type),
		      "function entry without its stack");
		if (i + 1 < rs.n && rs.v[i + 1].type == 20)
			sid++;
		else if (i + 1 < rs.n && rs.v[i + 1].type == 4)
			ks++;
	}
	CHECK(!bad, "%ld entries of functions outside the filter", bad);
	CHECK(n_sched > 0 && n_kfree > 0, "schedule %ld kfree %ld", n_sched, n_kfree);
	/* v4: deep stacks skip the map; v1-v3 put every stack in it */
	CHECK(sid > 0 && (abi < 4 || sid + ks == n_sched + n_kfree) && (abi == 4 || ks == 0),
	      "stack_id %ld kernel_stack %ld", sid, ks);
	CHECK(truth_read("top", "ftrace:function", "schedule") == n_sched &&
	      truth_read("top", "ftrace:function", "kfree") == n_kfree,
	      "truth: schedule %ld/%ld kfree %ld/%ld",
	      truth_read("top", "ftrace:function", "schedule"), n_sched,
	      truth_read("top", "ftrace:function", "kfree"), n_kfree);
	free(rs.v);

	read_records("instances/ft/", 2, &rs);
	n_kfree = bad = 0;
	for (i = 0; i < rs.n; i++) {
		const struct rec *r = &rs.v[i];

		if (r->type == 1) {
			if (rec64(r, 8) == a_kfree)
				n_kfree++;
			else
				bad++;
		} else if (r->type != 4) {
			bad++;
		}
	}
	CHECK(!bad && n_kfree > 0 && n_kfree * 2 == (long)rs.n &&
	      truth_read("instances/ft", "ftrace:function", "kfree") == n_kfree,
	      "instance: %ld kfree entries, %u records, %ld bad", n_kfree, rs.n, bad);
	free(rs.v);

	/* notrace wins over the filter; nop stops it */
	CHECK(!wr_trunc("set_ftrace_notrace", "schedule kfree"), "notrace");
	CHECK(!ctl("emit 10"), "emit");
	read_records("", 2, &rs);
	for (i = bad = 0; i < rs.n; i++)
		bad += rs.v[i].type == 1;
	CHECK(bad == 0, "%ld entries of notrace functions", bad);
	free(rs.v);
	CHECK(!wr_trunc("set_ftrace_notrace", "") &&
	      has("set_ftrace_notrace", "#### no functions disabled ####\n", true), "notrace cleared");
	CHECK(!wr("current_tracer", "function") && !ctl("emit 10") &&
	      file_value("per_cpu/cpu0/stats", "entries:") > 0, "same tracer keeps the buffer");
	CHECK(!wr("current_tracer", "nop") && !wr("instances/ft/current_tracer", "nop"), "nop");
	CHECK(file_value("per_cpu/cpu0/stats", "entries:") == 0 &&
	      file_value("per_cpu/cpu1/stats", "entries:") == 0, "a tracer change resets");
	CHECK(!ctl("emit 10") && has(".sim/control", "last: emitted 0\n", false), "nop traces");
	CHECK(!rmdir(strcat(strcpy((char[600]){ 0 }, mnt), "/instances/ft")), "rmdir");
}

/* Kprobe events through kprobe_events / dynamic_events. */
static void test_kprobes(void)
{
	uint64_t a = sym_addr("try_to_wake_up");
	char *t, p[600];
	long n = 0, bad = 0, id;
	struct recs rs;
	unsigned int i;

	CHECK(has("kprobe_events", "", true) && has("dynamic_events", "", true), "no probes");
	CHECK(wr_append("kprobe_events", "p:kprobes/nope no_such_fn\n") == -ENOENT, "unknown sym");
	CHECK(has("error_log", "] trace_kprobe: error: Invalid probed address or symbol\n"
		  "  Command: p:kprobes/nope no_such_fn\n" "                          ^\n", false),
	      "kprobe error_log");
	CHECK(wr_append("kprobe_events", "p:bad-name kfree\n") == -EINVAL, "bad name");
	CHECK(wr_append("kprobe_events", "r:rr kfree+4\n") == -EINVAL, "retprobe offset");
	CHECK(!wr_append("kprobe_events", "p:ttwu try_to_wake_up\n"), "create");
	CHECK(wr_append("kprobe_events", "p:ttwu kfree\n") == -EEXIST, "exists");
	CHECK(!wr_append("dynamic_events", "r:grp/kf kfree $retval:u32\n"), "create kretprobe");
	CHECK(has("kprobe_events", "p:kprobes/ttwu try_to_wake_up\nr:grp/kf kfree arg1=$retval:u32\n",
		  true), "kprobe_events listing");
	CHECK(has("events/grp/kf/format", "\tfield:unsigned long __probe_func;\toffset:8;", false) &&
	      has("events/grp/kf/format", "\tfield:u32 arg1;\toffset:24;\tsize:4;\tsigned:0;\n",
		  false), "kretprobe format");
	CHECK(has("events/kprobes/ttwu/format",
		  "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n", false),
	      "kprobe format");
	CHECK(has("available_events", "kprobes:ttwu\n", false), "available_events");
	id = file_value("events/kprobes/ttwu/id", "");
	CHECK(id > 0, "id %ld", id);
	CHECK(!mkdir(strcat(strcpy(p, mnt), "/instances/kp"), 0750), "mkdir");
	CHECK(has("instances/kp/events/kprobes/ttwu/enable", "0\n", true), "probe in instance");
	CHECK(!wr("instances/kp/events/kprobes/ttwu/enable", "1"), "enable in instance");
	CHECK(wr_append("kprobe_events", "-:ttwu\n") == -EBUSY, "remove while enabled");
	CHECK(wr_trunc("kprobe_events", "") == -EBUSY, "truncate while enabled");
	CHECK(!wr("instances/kp/options/stacktrace", "1"), "stacktrace");
	CHECK(!ctl("truth-clear; nest 0"), "truth-clear");
	CHECK(!ctl("emit 50"), "emit");
	CHECK(has(".sim/control", "last: emitted 50\n", false), "50 probe hits");
	read_records("instances/kp/", 2, &rs);
	for (i = 0; i < rs.n; i++) {
		if (rs.v[i].type == (uint16_t)id && rec64(&rs.v[i], 8) == a)
			n++;
		else if (rs.v[i].type != 4)
			bad++;
	}
	CHECK(n == 50 && !bad && rs.n == 100, "probe records %ld, others %ld, total %u", n, bad,
	      rs.n);
	CHECK(truth_read("instances/kp", "kprobes:ttwu", "try_to_wake_up") == 50, "probe truth");
	free(rs.v);
	CHECK(!wr("instances/kp/events/kprobes/ttwu/enable", "0"), "disable");
	CHECK(!wr_append("kprobe_events", "-:kprobes/ttwu\n"), "remove");
	CHECK(wr_append("kprobe_events", "-:ttwu\n") == -ENOENT, "remove twice");
	path_of(p, sizeof(p), "instances/kp/events/kprobes");
	CHECK(access(p, F_OK) && errno == ENOENT, "kprobes system gone");
	CHECK(!wr_trunc("dynamic_events", ""), "truncate");
	CHECK(rd("kprobe_events", &t) == 0, "all removed");
	free(t);
	CHECK(!rmdir(strcat(strcpy(p, mnt), "/instances/kp")), "rmdir");
}

/* Event filters and stacktrace triggers. */
static void test_filters(void)
{
	static const char log_bad[] =
		"] event filter parse error: error: Invalid value (did you forget quotes)?\n"
		"  Command: prev_state &&& 3\n"
		"                        ^\n";
	static const char file_bad[] =
		"prev_state &&& 3\n             ^\nparse_error: Invalid value (did you forget quotes)?\n\n";
	long sw = 0, bad = 0, stacks = 0, km = 0;
	struct recs rs;
	unsigned int i;
	char p[600];

	CHECK(!mkdir(strcat(strcpy(p, mnt), "/instances/fl"), 0750), "mkdir");
	CHECK(has("instances/fl/events/sched/sched_switch/format",
		  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n", false), "prev_state");
	CHECK(wr("instances/fl/events/sched/sched_switch/filter", "prev_state &&& 3\n") == -EINVAL,
	      "bad filter");
	CHECK(has("instances/fl/error_log", log_bad, false), "filter error_log");
	CHECK(has("instances/fl/events/sched/sched_switch/filter", file_bad, true), "filter file");
	CHECK(!has("error_log", "prev_state", false), "error logged in the top level");
	CHECK(wr("instances/fl/events/sched/sched_switch/filter", "bogus == 1") == -EINVAL &&
	      has("instances/fl/error_log", "error: Field not found\n  Command: bogus == 1\n"
		  "                 ^\n", false), "field not found");
	CHECK(wr("instances/fl/events/sched/sched_switch/filter", "(prev_pid == 1") == -ENOENT,
	      "unbalanced (");
	CHECK(!wr("instances/fl/error_log", "") , "error_log write");
	CHECK(!wr_trunc("instances/fl/error_log", "") && has("instances/fl/error_log", "", true),
	      "error_log cleared");
	CHECK(!wr("instances/fl/events/sched/sched_switch/filter",
		  "(prev_state & 3) && common_pid != 0 || next_pid == -5"), "good filter");
	CHECK(has("instances/fl/events/sched/sched_switch/filter",
		  "(prev_state & 3) && common_pid != 0 || next_pid == -5\n", true), "filter text");
	CHECK(!wr("instances/fl/events/sched/sched_switch/enable", "1"), "enable");
	/* kmalloc: not enabled, only a trigger with a count */
	CHECK(has("instances/fl/events/kmem/kmalloc/enable", "0\n", true), "kmalloc off");
	CHECK(!wr("instances/fl/events/kmem/kmalloc/trigger", "stacktrace:3"), "trigger");
	/* the trigger puts the event in soft mode: registered, records discarded */
	CHECK(has("instances/fl/events/kmem/kmalloc/enable", "0*\n", true) &&
	      has("instances/fl/set_event", "kmem:kmalloc\n", false) &&
	      has("instances/fl/events/kmem/enable", "X\n", true), "soft mode: 0*, set_event, X");
	CHECK(wr("instances/fl/events/kmem/kmalloc/enable", "0*") == -EINVAL, "0* refused");
	CHECK(!wr_trunc("instances/fl/events/kmem/kmalloc/trigger", "") &&
	      has("instances/fl/events/kmem/kmalloc/trigger", "stacktrace:count=3\n", true),
	      "O_TRUNC keeps a stacktrace trigger");
	CHECK(wr("instances/fl/events/kmem/kmalloc/trigger", "stacktrace") == -EEXIST, "twice");
	CHECK(wr("instances/fl/events/kmem/kmalloc/trigger", "snapshot") == -EINVAL, "other cmd");
	CHECK(has("instances/fl/events/kmem/kmalloc/trigger", "stacktrace:count=3\n", true),
	      "trigger text");
	CHECK(!ctl("truth-clear; nest 0"), "truth-clear");
	CHECK(!ctl("emit 600"), "emit");
	CHECK(has("instances/fl/events/kmem/kmalloc/trigger", "stacktrace:count=0\n", true),
	      "trigger count");
	read_records("instances/fl/", 2, &rs);
	for (i = 0; i < rs.n; i++) {
		const struct rec *r = &rs.v[i];
		int32_t pid;

		if (r->type == 372) {
			memcpy(&pid, r->data + 4, 4);
			sw++;
			if (!((rec64(r, 32) & 3) && pid != 0))
				bad++;
		} else if (is_stack_type(r->type)) {
			stacks++;
		} else if (r->type == 658) {
			km++;
		} else {
			bad++;
		}
	}
	CHECK(sw > 0 && !bad && !km && stacks == 3, "sched_switch %ld (bad %ld), kmalloc %ld, "
	      "stacks %ld", sw, bad, km, stacks);
	CHECK(truth_read("instances/fl", "kmem:kmalloc", NULL) == 3 &&
	      truth_read("instances/fl", "sched:sched_switch", NULL) == 0, "trigger truth");
	free(rs.v);
	/* "0" clears; "!stacktrace" removes */
	CHECK(!wr("instances/fl/events/sched/sched_switch/filter", "0") &&
	      has("instances/fl/events/sched/sched_switch/filter", "none\n", true), "clear filter");
	CHECK(!wr("instances/fl/events/kmem/kmalloc/trigger", "!stacktrace") &&
	      has("instances/fl/events/kmem/kmalloc/trigger", "# Available triggers:", false),
	      "remove trigger");
	CHECK(has("instances/fl/events/kmem/kmalloc/enable", "0\n", true) &&
	      !has("instances/fl/set_event", "kmem:kmalloc\n", false), "soft mode gone");
	/* a trigger with a filter on an enabled event, options/stacktrace off */
	CHECK(!wr("instances/fl/events/sched/sched_switch/trigger",
		  "stacktrace if prev_state & 2"), "filtered trigger");
	CHECK(has("instances/fl/events/sched/sched_switch/trigger",
		  "stacktrace:unlimited if prev_state & 2\n", true), "filtered trigger text");
	CHECK(has("instances/fl/events/sched/sched_switch/enable", "1*\n", true), "1*");
	CHECK(!ctl("emit 300"), "emit");
	read_records("instances/fl/", 2, &rs);
	for (i = sw = bad = stacks = 0; i < rs.n; i++) {
		const struct rec *r = &rs.v[i];

		if (r->type != 372)
			continue;
		sw++;
		if (i + 1 < rs.n && is_stack_type(rs.v[i + 1].type) && rs.v[i + 1].cpu == r->cpu) {
			stacks++;
			bad += !(rec64(r, 32) & 2);
		} else {
			bad += !!(rec64(r, 32) & 2);
		}
	}
	CHECK(sw > 0 && stacks > 0 && stacks < sw && !bad, "switches %ld, stacks %ld, bad %ld", sw,
	      stacks, bad);
	free(rs.v);
	CHECK(!rmdir(strcat(strcpy(p, mnt), "/instances/fl")), "rmdir");
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

	sim_start(name, NULL);
	test_read_semantics(abi);
	sim_stop();

	sim_start(name, NULL);
	test_function(abi);
	if (abi == 4) {
		test_kprobes();
		test_filters();
	}
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
