// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fakekernel.c - a small "vmlinux" for the --vmlinux test (tests/vmlinux.sh):
 * built -O2 -g at the kernel's text address, so that its functions sit
 * where x86-64 kernels put theirs, with DWARF for their lines. Nothing runs
 * it: its symbols become a kallsyms file and its addresses the kernel
 * frames of a snapshot. The lines the test expects are marked.
 */
static volatile unsigned long sink;

__attribute__((noinline)) void do_idle(unsigned long n);
__attribute__((noinline)) void do_idle(unsigned long n)
{
	sink += n * 3; /* IDLE (line 14) */
}

__attribute__((noinline)) void schedule(void);
__attribute__((noinline)) void schedule(void)
{
	do_idle(sink); /* SCHEDULE_CALL (line 20) */
	sink++;
}

void start_kernel(void);
void start_kernel(void)
{
	for (;;)
		schedule(); /* START_CALL (line 28) */
}
