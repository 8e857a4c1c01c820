// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * getpid-loop N [MODE] - exactly N getpid() system calls (the --sample test:
 * the exact count is known), from three call sites: MODE "fixed" calls them
 * in the fixed order a a a a a b b b c c (5:3:2), the pattern a fixed sampling
 * period aliases with; "one" (default) from one site.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the system call made here, not in libc: the sample's user IP is in the site */
static inline void getpid_here(void)
{
	long r = SYS_getpid;

	__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
}

__attribute__((noinline, noipa)) static void site_a(void)
{
	getpid_here();
}

__attribute__((noinline, noipa)) static void site_b(void)
{
	getpid_here();
}

__attribute__((noinline, noipa)) static void site_c(void)
{
	getpid_here();
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, i;
	int fixed = argc > 2 && !strcmp(argv[2], "fixed");

	for (i = 0; i < n; i++) {
		long k = i % 10;

		if (!fixed || k < 5)
			site_a();
		else if (k < 8)
			site_b();
		else
			site_c();
	}
	return 0;
}
