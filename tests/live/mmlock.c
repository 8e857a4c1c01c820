// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mmlock.c - the attacker's process of tests/live/mmlock.sh (run as
 * nobody): it makes the kernel locks of its own process wait for good on
 * a file of its FUSE mount whose reads and flushes are never answered
 * (blockfs's "hold"), so that whoever reads its /proc files waits behind
 * them, then writes a byte to /dev/null every 10 ms from mm_loop() and
 * prints "ready PID" once the locks are held. It exits when stdin reaches
 * EOF (or is killed: the threads that wait are killable).
 *
 *   mmlock mem HOLD    thread A reads its own mapping of HOLD through
 *                      /proc/self/mem: the page fault waits for the
 *                      daemon holding the mmap lock for reading (a remote
 *                      access does not drop it); thread B then mmap()s:
 *                      a writer queues, and every later reader of the
 *                      mmap lock (/proc/PID/mem, maps, environ, cmdline,
 *                      map_files of this process) waits behind it.
 *   mmlock exec HOLD   HOLD stays open (close-on-exec); after a line on
 *                      stdin ("go") it writes for 0.3 s, then execve()s:
 *                      the exec closes HOLD with the process's
 *                      exec_update_lock held for writing and waits for
 *                      the flush, so every open of /proc/PID/mem, maps,
 *                      environ (ptrace_may_access, mm_access) waits too.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *map;
static int devnull;

void mm_loop(int n);
__attribute__((noinline)) void mm_loop(int n)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; n < 0 || i < n; i++) {
		if (write(devnull, "x", 1) < 0)
			exit(1);
		nanosleep(&ts, NULL);
	}
	__asm__ volatile("" ::: "memory");
}

/* thread A: the fault that holds the mmap lock */
static void *fault_remote(void *arg)
{
	char c;
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0 || pread(fd, &c, 1, (off_t)(uintptr_t)map) < 0)
		perror("mmlock: /proc/self/mem");
	return NULL;
}

/* thread B: the writer that queues behind it */
static void *writer(void *arg)
{
	(void)arg;
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		perror("mmlock: mmap");
	return NULL;
}

/* the state letter of thread @tid ('D': waits in the kernel) */
static char task_state(pid_t tid)
{
	char p[64], buf[512], *e;
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/self/task/%d/stat", (int)tid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	e = strrchr(buf, ')');
	return e && e[1] && e[2] ? e[2] : '?';
}

/* a thread that waits for its go (a byte on its pipe), and its tid */
struct waiter {
	pthread_t t;
	int go[2];
	pid_t tid;
	void *(*fn)(void *);
};

static void *waiter_run(void *arg)
{
	struct waiter *w = arg;
	char c;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	if (read(w->go[0], &c, 1) != 1)
		return NULL;
	return w->fn(NULL);
}

/* every thread is made first: a thread made later mmap()s its stack */
static int waiter_make(struct waiter *w, void *(*fn)(void *))
{
	w->fn = fn;
	return pipe(w->go) || pthread_create(&w->t, NULL, waiter_run, w) ? -1 : 0;
}

/* @w let go, awaited until it waits in the kernel (state D or S for 0.2 s) */
static int waiter_go(struct waiter *w)
{
	int i, still = 0;
	char s;

	while (!__atomic_load_n(&w->tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	if (write(w->go[1], "g", 1) != 1)
		return -1;
	for (i = 0; i < 1000 && still < 20; i++) {
		usleep(10000);
		s = task_state(w->tid);
		still = s == 'D' || s == 'S' ? still + 1 : 0;
	}
	return still < 20 ? -1 : 0;
}

/* the process ends at stdin's end */
static void *stdin_watch(void *arg)
{
	char buf[64];

	(void)arg;
	while (read(0, buf, sizeof(buf)) > 0)
		;
	_exit(0);
}

int main(int argc, char **argv)
{
	struct waiter a, b;
	char line[16];
	pthread_t t;
	int fd;

	if (argc != 3 || (strcmp(argv[1], "mem") && strcmp(argv[1], "exec"))) {
		fprintf(stderr, "usage: mmlock mem|exec HOLD\n");
		return 2;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || fd < 0) {
		perror("mmlock: open");
		return 1;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(argv[1], "mem")) {
		map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			perror("mmlock: mmap");
			return 1;
		}
		if (waiter_make(&a, fault_remote) < 0 || waiter_make(&b, writer) < 0 ||
		    pthread_create(&t, NULL, stdin_watch, NULL))
			return 1;
		if (waiter_go(&a) < 0 || waiter_go(&b) < 0) {
			fprintf(stderr, "mmlock: the threads do not wait in the kernel\n");
			return 1;
		}
		printf("ready %d\n", (int)getpid());
		mm_loop(-1);
		return 0;
	}
	printf("ready %d\n", (int)getpid());
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	mm_loop(30);
	printf("exec\n");
	execl("/bin/true", "true", (char *)NULL);
	perror("mmlock: exec");
	return 1;
}
