// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * threads.c - a test workload for -p/--tid: a process whose threads sleep
 * in a loop (each one context-switches hundreds of times a second). Two
 * threads ("worker-a", "worker-b") start at once; a third ("late-c") starts
 * when the process gets SIGUSR1, so a test can start it after stacktop.
 * Each thread appends "<name> <tid>\n" to the file named by argv[1] once it
 * runs. Runs until killed.
 *
 * "st-threads -1" is one thread ("hotloop") that naps 100 us in a loop:
 * one stack hit thousands of times a second by one pid (the COMM/PID test).
 *
 * "st-threads -s FIRST MORE US OUTFILE" starts FIRST threads that block at
 * once, writes "ready" to OUTFILE, then starts MORE, one every US
 * microseconds, and writes "done": threads started while stacktop sets up
 * its pid filter (the set_event_pid race, doc/design.md).
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *out_path;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t start_late;

static void announce(const char *name)
{
	FILE *f;

	prctl(PR_SET_NAME, name, 0, 0, 0);
	pthread_mutex_lock(&out_lock);
	f = fopen(out_path, "a");
	if (f) {
		fprintf(f, "%s %ld\n", name, (long)syscall(SYS_gettid));
		fclose(f);
	}
	pthread_mutex_unlock(&out_lock);
}

static void nap(void)
{
	struct timespec ts = { 0, 2000000 }; /* 2 ms */

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	announce(arg);
	for (;;)
		nap();
	return NULL;
}

static void *blocked(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int spawn(long n, long us)
{
	pthread_attr_t at;
	pthread_t t;
	long i;

	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 65536);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, &at, blocked, NULL))
			return 1;
		if (us)
			usleep((useconds_t)us);
	}
	return 0;
}

static void say(const char *path, const char *what)
{
	FILE *f = fopen(path, "a");

	if (f) {
		fprintf(f, "%s\n", what);
		fclose(f);
	}
}

static void on_usr1(int sig)
{
	(void)sig;
	start_late = 1;
}

int main(int argc, char **argv)
{
	pthread_t a, b, c;
	bool late = false;

	if (argc == 6 && !strcmp(argv[1], "-s")) {
		if (spawn(atol(argv[2]), 0))
			return 1;
		say(argv[5], "ready");
		if (spawn(atol(argv[3]), atol(argv[4])))
			return 1;
		say(argv[5], "done");
		for (;;)
			pause();
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTFILE | -1 | -s FIRST MORE US OUTFILE\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "-1")) {
		struct timespec ts = { 0, 100000 };

		prctl(PR_SET_NAME, "hotloop", 0, 0, 0);
		for (;;)
			nanosleep(&ts, NULL);
	}
	out_path = argv[1];
	signal(SIGUSR1, on_usr1);
	announce("main-thread");
	if (pthread_create(&a, NULL, worker, "worker-a") ||
	    pthread_create(&b, NULL, worker, "worker-b"))
		return 1;
	for (;;) {
		nap();
		if (start_late && !late) {
			late = true;
			if (pthread_create(&c, NULL, worker, "late-c"))
				return 1;
		}
	}
}
