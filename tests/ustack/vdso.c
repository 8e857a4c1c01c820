// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vdso.c - a process that spends its time in the vdso: clock_gettime(2) in
 * a loop, which never enters the kernel. A user stack whose leaf is in the
 * vdso therefore comes only with an interrupt (or a fault) taken there;
 * tests/live/ustack-vdso.sh samples it with the local timer interrupt.
 *
 *   vdso     print "ready <pid>", then loop until killed
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timespec ts;
	unsigned long n = 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n += (unsigned long)ts.tv_nsec & 1;
		if (n == ~0UL)
			break;
	}
	return 0;
}
