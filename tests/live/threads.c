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
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
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

static void on_usr1(int sig)
{
	(void)sig;
	start_late = 1;
}

int main(int argc, char **argv)
{
	pthread_t a, b, c;
	bool late = false;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTFILE | -1\n", argv[0]);
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
