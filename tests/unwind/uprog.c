// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprog.c - a known user call chain for the DWARF unwinder's live test:
 * main -> a -> b -> c -> write(2), in a loop. Built with -O2
 * -fomit-frame-pointer (tests/meson.build): no frame pointer chain to
 * follow, only the .eh_frame tables. Each function keeps a buffer on the
 * stack and does work after its call, so none is inlined or tail-called.
 * Exits by itself after a minute (or SECONDS, on the monotonic clock) in
 * case nobody kills it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int out = -1;
volatile unsigned long sink;

#define FRAME __attribute__((noinline, noclone, used))

void a(unsigned long n);
void b(unsigned long n);
void c(unsigned long n);

FRAME void c(unsigned long n)
{
	char buf[48];

	memset(buf, 'c', sizeof(buf));
	buf[0] = (char)n;
	if (write(out, buf, sizeof(buf)) < 0)
		exit(1);
	sink += (unsigned long)buf[1];
	__asm__ volatile("" ::: "memory");
}

FRAME void b(unsigned long n)
{
	volatile char pad[80];

	pad[0] = (char)n;
	c(n + pad[0]);
	sink += pad[0];
	__asm__ volatile("" ::: "memory");
}

FRAME void a(unsigned long n)
{
	volatile char pad[112];

	pad[0] = (char)n;
	b(n ^ pad[0]);
	sink += pad[0];
	__asm__ volatile("" ::: "memory");
}

/*
 * RATE calls a second: a batch every millisecond, each millisecond's
 * deadline absolute (a late wake-up is made up at once, so the mean rate
 * holds while the machine is busy, unless the machine cannot keep up)
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long paced_rate(double end, unsigned long rate)
{
	struct timespec next;
	unsigned long i = 0, ms = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (now() < end) {
		unsigned long due = (ms + 1) * rate / 1000;

		for (; i < due; i++)
			a(i);
		ms++;
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return i;
}

/*
 * uprog [SECONDS [busy|paced|rate N]]: busy calls without the pause every
 * 64 calls; rate makes N calls a second; any of them makes it print how
 * many calls it made (bench/unwind.py, tests/live/ustack-rate.sh)
 */
int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atoi(argv[1]) : 60);
	int busy = argc > 2 && !strcmp(argv[2], "busy");
	unsigned long i;

	out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out < 0)
		return 1;
	if (argc > 3 && !strcmp(argv[2], "rate"))
		i = paced_rate(end, strtoul(argv[3], NULL, 10));
	else
		for (i = 0; (i & 63) || now() < end; i++) {
			a(i);
			if (!busy && i % 64 == 0)
				usleep(1000);
		}
	if (argc > 2) {
		char line[64];
		int len = snprintf(line, sizeof(line), "calls %lu\n", i);

		if (write(1, line, len) < 0)
			return 1;
	}
	return 0;
}
