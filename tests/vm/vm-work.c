// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-work.c - workloads and a bare ring-buffer drain for the VM tier
 * (tests/vm) and the benchmark on the real stackmap kernel (bench/vm-bench.sh).
 * The guest is busybox: whatever needs a loop faster than a shell is here.
 *
 *   vm-work pingpong SECONDS [CPU]
 *                              two processes pass one byte back and forth
 *                              over two pipes; prints
 *                              "pingpong ROUNDTRIPS SECONDS RATE"
 *   vm-work syscall SECONDS [CPU]
 *                              read(2) one byte of /dev/zero in a loop; prints
 *                              "syscall CALLS SECONDS RATE"
 *                              (CPU: both run on that CPU only, so that a
 *                              switch is a local one and a reader runs on
 *                              another CPU)
 *   vm-work fstat N            N fstatat(2) of "/" (newfstatat on x86-64, the
 *                              long "ftrace:function __x64_sys_newfstatat"
 *                              name); prints "fstat N"
 *   vm-work write FILE TEXT [trunc|append]
 *                              one write(2) of TEXT (C escapes \n and \t
 *                              decoded) to FILE opened O_WRONLY (plus O_TRUNC
 *                              or O_APPEND); prints "ok N" (bytes written)
 *                              or the errno's name (EINVAL, EBUSY, ...), as
 *                              a shell's echo cannot say which error it got
 *   vm-work writeall FILE TEXT [trunc|append]
 *                              the same, but on a short write the rest is
 *                              written too (as echo does): "ok N" in all,
 *                              or the first error
 *   vm-work count DIR          read what DIR's per-CPU buffers hold, without
 *                              blocking, and print the records by kind:
 *                              "count events N kernel_stack N stack_id N
 *                              user_stack N"
 *   vm-work drain DIR SECONDS  read every DIR/per_cpu/cpuN/trace_pipe_raw
 *                              with blocking reads (one process per CPU, as
 *                              `cat` does) for SECONDS, then print what
 *                              was read: "drain PAGES BYTES RECORDS EVENTS
 *                              STACKS" (BYTES: the pages' committed data;
 *                              RECORDS: data records; STACKS: kernel_stack
 *                              and stack_id records; EVENTS: the others)
 *   vm-work drain DIR SECONDS notrace
 *                              the same, each reader's pid (and the
 *                              parent's) first added to DIR's
 *                              set_event_notrace_pid and
 *                              set_ftrace_notrace_pid, as stacktop adds its
 *                              own: what reading the others' records costs
 *                              (the caller puts the lists back)
 *   vm-work poll DIR SECONDS MS
 *                              read every DIR/per_cpu/cpuN/trace_pipe_raw
 *                              as stacktop's batch mode does: one process,
 *                              every MS milliseconds each CPU's buffer read
 *                              without blocking until it is empty, its pid in
 *                              the notrace lists as above; prints "poll PAGES
 *                              BYTES RECORDS EVENTS STACKS CPU"
 *
 * Not a test by itself: the callers check what it prints.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* SIGALRM after @secs, without SA_RESTART: a blocking read returns EINTR */
static void arm(double secs)
{
	struct sigaction sa;
	struct itimerspec it;
	timer_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	if (timer_create(CLOCK_MONOTONIC, NULL, &t) < 0) {
		perror("vm-work: timer_create");
		exit(1);
	}
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)secs;
	it.it_value.tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9);
	if (!it.it_value.tv_sec && !it.it_value.tv_nsec)
		it.it_value.tv_nsec = 1;
	timer_settime(t, 0, &it, NULL);
}

/* run on @cpu only (-1: anywhere) */
static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		perror("vm-work: sched_setaffinity");
}

static int pingpong(double secs, int cpu)
{
	int ab[2], ba[2];
	unsigned long n = 0;
	double t0, t1;
	pid_t pid;
	char c = 'x';

	if (pipe(ab) < 0 || pipe(ba) < 0) {
		perror("vm-work: pipe");
		return 1;
	}
	pin(cpu); /* the child inherits it */
	pid = fork();
	if (pid < 0) {
		perror("vm-work: fork");
		return 1;
	}
	if (pid == 0) {
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1)
			if (write(ba[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	t0 = now();
	arm(secs);
	while (!stop) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
		n++;
	}
	t1 = now();
	close(ab[1]);
	waitpid(pid, NULL, 0);
	printf("pingpong %lu %.3f %.0f\n", n, t1 - t0, n / (t1 - t0));
	return 0;
}

static int syscall_loop(double secs, int cpu)
{
	unsigned long n = 0;
	double t0, t1;
	char c;
	int fd = open("/dev/zero", O_RDONLY);

	pin(cpu);
	if (fd < 0) {
		perror("vm-work: /dev/zero");
		return 1;
	}
	t0 = now();
	arm(secs);
	while (!stop) {
		if (read(fd, &c, 1) != 1)
			break;
		n++;
	}
	t1 = now();
	printf("syscall %lu %.3f %.0f\n", n, t1 - t0, n / (t1 - t0));
	return 0;
}

static int fstat_loop(long n)
{
	struct stat st;
	long i;

	for (i = 0; i < n; i++)
		if (fstatat(AT_FDCWD, "/", &st, 0) < 0) {
			perror("vm-work: fstatat");
			return 1;
		}
	printf("fstat %ld\n", n);
	return 0;
}

static const char *errname(int e)
{
	switch (e) {
	case EINVAL:
		return "EINVAL";
	case EBUSY:
		return "EBUSY";
	case ENOENT:
		return "ENOENT";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EEXIST:
		return "EEXIST";
	case ENODEV:
		return "ENODEV";
	case ENOSPC:
		return "ENOSPC";
	case EFAULT:
		return "EFAULT";
	case ENOMEM:
		return "ENOMEM";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EROFS:
		return "EROFS";
	case EISDIR:
		return "EISDIR";
	default:
		return NULL;
	}
}

static int write_file(const char *path, const char *text, const char *how, bool all)
{
	static char buf[1 << 16];
	size_t n = 0;
	ssize_t r;
	int flags = O_WRONLY, fd;

	for (; *text && n < sizeof(buf); text++) {
		if (text[0] == '\\' && text[1] == 'n') {
			buf[n++] = '\n';
			text++;
		} else if (text[0] == '\\' && text[1] == 't') {
			buf[n++] = '\t';
			text++;
		} else {
			buf[n++] = *text;
		}
	}
	if (how && !strcmp(how, "trunc"))
		flags |= O_TRUNC;
	else if (how && !strcmp(how, "append"))
		flags |= O_APPEND;
	fd = open(path, flags);
	if (fd < 0) {
		r = -1;
	} else {
		size_t done = 0;

		do {
			r = write(fd, buf + done, n - done);
			if (r > 0)
				done += (size_t)r;
		} while (all && r > 0 && done < n);
		if (r >= 0)
			r = (ssize_t)done;
	}
	if (r < 0) {
		const char *e = errname(errno);

		if (e)
			printf("%s\n", e);
		else
			printf("errno %d\n", errno);
	} else {
		printf("ok %zd\n", r);
	}
	if (fd >= 0 && close(fd) < 0)
		printf("close: %s\n", errname(errno) ? errname(errno) : "error");
	return 0;
}

/* the ID: line of DIR/events/ftrace/NAME/format, -1 when there is none */
static int event_id(const char *dir, const char *name)
{
	char path[512], line[256];
	FILE *f;
	int id = -1;

	snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", dir, name);
	f = fopen(path, "re");
	if (!f) {
		/* an instance has no events/ftrace of its own: the top level's */
		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/ftrace/%s/format", name);
		f = fopen(path, "re");
	}
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ID: %d", &id) == 1)
			break;
	fclose(f);
	return id;
}

struct counts {
	unsigned long long pages, bytes, records, events, stacks;
	unsigned long long kstacks, stackids, ustacks;
};

struct ids {
	int kstack, stackid, ustack;
};

/*
 * One ring-buffer page (x86-64: u64 time stamp, u64 commit, then the
 * records; the commit's high bits are flags). Record headers: type_len in
 * the low 5 bits; 29 padding, 30 time extend, 31 time stamp; 0 a length
 * word follows; 1-28 four-byte words of data.
 */
static void walk_page(const unsigned char *p, size_t len, const struct ids *id, struct counts *c)
{
	uint64_t commit;
	size_t off = 16, end;

	if (len < 16)
		return;
	memcpy(&commit, p + 8, 8);
	end = 16 + (size_t)(commit & ((1ULL << 27) - 1));
	if (end > len)
		end = len;
	c->pages++;
	c->bytes += end - 16;
	while (off + 4 <= end) {
		uint32_t hdr, n;
		unsigned int type;
		size_t data, size;
		uint16_t ctype;

		memcpy(&hdr, p + off, 4);
		type = hdr & 31;
		if (type == 29) { /* padding: its length word, or the rest of the page */
			if (off + 8 > end || !(hdr >> 5))
				break;
			memcpy(&n, p + off + 4, 4);
			off += 4 + n;
			continue;
		}
		if (type == 30 || type == 31) {
			off += 8;
			continue;
		}
		if (type == 0) {
			if (off + 8 > end)
				break;
			memcpy(&n, p + off + 4, 4);
			data = off + 8;
			size = 4 + n;
		} else {
			data = off + 4;
			size = 4 + 4 * type;
		}
		if (data + 2 <= end) {
			memcpy(&ctype, p + data, 2);
			c->records++;
			if (ctype == id->kstack) {
				c->kstacks++;
				c->stacks++;
			} else if (ctype == id->stackid) {
				c->stackids++;
				c->stacks++;
			} else if (ctype == id->ustack) {
				c->ustacks++;
			} else {
				c->events++;
			}
		}
		off += size;
	}
}

static void get_ids(const char *dir, struct ids *id)
{
	id->kstack = event_id(dir, "kernel_stack");
	id->stackid = event_id(dir, "stack_id");
	id->ustack = event_id(dir, "user_stack");
}

static void add(struct counts *t, const struct counts *c)
{
	t->pages += c->pages;
	t->bytes += c->bytes;
	t->records += c->records;
	t->events += c->events;
	t->stacks += c->stacks;
	t->kstacks += c->kstacks;
	t->stackids += c->stackids;
	t->ustacks += c->ustacks;
}

/* what the buffers of DIR hold now, consumed without blocking */
static int count(const char *dir)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), cpu;
	static unsigned char page[4096];
	struct counts c = { 0 };
	struct ids id;

	get_ids(dir, &id);
	for (cpu = 0; cpu < ncpu; cpu++) {
		char path[512];
		ssize_t r;
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/trace_pipe_raw", dir, cpu);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		while ((r = read(fd, page, sizeof(page))) > 0)
			walk_page(page, (size_t)r, &id, &c);
		close(fd);
	}
	printf("count events %llu kernel_stack %llu stack_id %llu user_stack %llu\n", c.events,
	       c.kstacks, c.stackids, c.ustacks);
	return 0;
}

/* @pid appended to DIR's two notrace pid lists (a write adds to a list) */
static void notrace_self(const char *dir)
{
	static const char *const lists[] = { "set_event_notrace_pid", "set_ftrace_notrace_pid" };
	char path[512], pid[16];
	size_t i;

	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, lists[i]);
		fd = open(path, O_WRONLY | O_APPEND);
		if (fd < 0 || write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid)) {
			fprintf(stderr, "vm-work: %s: %s\n", path, strerror(errno));
			exit(1);
		}
		close(fd);
	}
}

static int drain(const char *dir, double secs, bool notrace)
{
	struct ids id;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), cpu;
	struct counts total = { 0 };
	struct rusage ru;
	int fds[2];

	get_ids(dir, &id);
	if (ncpu < 1 || pipe(fds) < 0) {
		perror("vm-work: drain");
		return 1;
	}
	if (notrace)
		notrace_self(dir);
	for (cpu = 0; cpu < ncpu; cpu++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("vm-work: fork");
			return 1;
		}
		if (pid == 0) {
			static unsigned char page[4096];
			struct counts c = { 0 };
			char path[512];
			ssize_t r;
			int fd;

			close(fds[0]);
			if (notrace)
				notrace_self(dir);
			snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/trace_pipe_raw", dir, cpu);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				_exit(0); /* an offline CPU */
			arm(secs);
			while (!stop) {
				r = read(fd, page, sizeof(page));
				if (r < 0 && errno == EINTR)
					break;
				if (r < 0) {
					perror("vm-work: trace_pipe_raw");
					break;
				}
				if (r == 0)
					continue; /* the kernel ends a read on an overrun: read on
						   */
				walk_page(page, (size_t)r, &id, &c);
			}
			if (write(fds[1], &c, sizeof(c)) != sizeof(c))
				_exit(1);
			_exit(0);
		}
	}
	close(fds[1]);
	for (;;) {
		struct counts c;
		ssize_t r = read(fds[0], &c, sizeof(c));

		if (r != sizeof(c))
			break;
		add(&total, &c);
	}
	while (wait(NULL) > 0)
		;
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("drain %llu %llu %llu %llu %llu %.3f\n", total.pages, total.bytes, total.records,
	       total.events, total.stacks,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}

/* the reads of stacktop's batch loop, and nothing done with the pages */
static int poll_buffers(const char *dir, double secs, int ms)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), cpu;
	static unsigned char page[4096];
	struct counts c = { 0 };
	struct rusage ru;
	struct ids id;
	int fds[256];

	get_ids(dir, &id);
	if (ncpu < 1 || ncpu > 256 || ms < 1) {
		fprintf(stderr, "vm-work: poll: %ld CPUs, %d ms\n", ncpu, ms);
		return 1;
	}
	notrace_self(dir);
	for (cpu = 0; cpu < ncpu; cpu++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/trace_pipe_raw", dir, cpu);
		fds[cpu] = open(path, O_RDONLY | O_NONBLOCK);
	}
	arm(secs);
	while (!stop) {
		for (cpu = 0; cpu < ncpu; cpu++) {
			ssize_t r;

			while (fds[cpu] >= 0 && (r = read(fds[cpu], page, sizeof(page))) > 0)
				walk_page(page, (size_t)r, &id, &c);
		}
		usleep((useconds_t)ms * 1000);
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		if (fds[cpu] >= 0)
			close(fds[cpu]);
	getrusage(RUSAGE_SELF, &ru);
	printf("poll %llu %llu %llu %llu %llu %.3f\n", c.pages, c.bytes, c.records, c.events,
	       c.stacks,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "pingpong"))
		return pingpong(atof(argv[2]), argc == 4 ? atoi(argv[3]) : -1);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "syscall"))
		return syscall_loop(atof(argv[2]), argc == 4 ? atoi(argv[3]) : -1);
	if (argc == 3 && !strcmp(argv[1], "fstat"))
		return fstat_loop(atol(argv[2]));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "write"))
		return write_file(argv[2], argv[3], argc == 5 ? argv[4] : NULL, false);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "writeall"))
		return write_file(argv[2], argv[3], argc == 5 ? argv[4] : NULL, true);
	if (argc == 3 && !strcmp(argv[1], "count"))
		return count(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "drain"))
		return drain(argv[2], atof(argv[3]), false);
	if (argc == 5 && !strcmp(argv[1], "drain") && !strcmp(argv[4], "notrace"))
		return drain(argv[2], atof(argv[3]), true);
	if (argc == 5 && !strcmp(argv[1], "poll"))
		return poll_buffers(argv[2], atof(argv[3]), atoi(argv[4]));
	fprintf(stderr,
		"usage: vm-work pingpong|syscall SECONDS [CPU] | fstat N | write|writeall FILE TEXT [trunc|append] |\n"
		"       count DIR | drain DIR SECONDS [notrace] | poll DIR SECONDS MS\n");
	return 2;
}
