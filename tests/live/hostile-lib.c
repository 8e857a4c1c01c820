// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostile-lib.c - the library of tests/live/hostile.sh's victim: two
 * functions that write a byte to a descriptor with the syscall instruction
 * and touch nothing else of the library (no data, no PLT, no strings), so
 * the victim keeps running from the library's text after its owner cut
 * the file short behind it.
 */
#include <sys/syscall.h>

void hv_a(int fd);
void hv_b(int fd);

__attribute__((noinline)) void hv_a(int fd)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(&ret), "d"(1L)
			 : "rcx", "r11", "memory");
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void hv_b(int fd)
{
	long ret;

	__asm__ volatile("nop; nop; nop; nop; syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(&ret), "d"(1L)
			 : "rcx", "r11", "memory");
	__asm__ volatile("" ::: "memory");
}
