// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * chain.c - a known user call chain for the user-stack tests:
 * main -> ustack_a -> ustack_b -> ustack_c -> write(2), made with the
 * syscall instruction inside ustack_c so that a frame-pointer walk starts in
 * a function of this file (a libc wrapper keeps no frame of its own).
 *
 *   chain [deep]   write to /dev/null from the chain (deep: under a
 *                  40-level recursion, deeper than the kernel's 8 frames)
 *                  every 10 ms; print "ready <pid>" after the first write;
 *                  exit when stdin reaches EOF
 *   chain jit      also map an anonymous executable page, write a
 *                  perf-<pid>.map naming it ustack_jit_fn, and make the write
 *                  from inside it (x86-64 only); the map file is left for
 *                  the caller to remove
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int devnull;

/* global (not static): the names the tests look for stay in the symbol table */
void ustack_c(void);
void ustack_b(void);
void ustack_a(void);
void ustack_deep(int n);

__attribute__((noinline)) void ustack_c(void)
{
#if defined(__x86_64__)
	long ret;

	/* a frame of its own even as a leaf (gcc drops it for leaves) */
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)devnull), "S"("x"), "d"(1L)
			 : "rcx", "r11", "memory");
	(void)ret;
#else
	syscall(SYS_write, devnull, "x", 1);
#endif
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void ustack_b(void)
{
	ustack_c();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void ustack_a(void)
{
	ustack_b();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void ustack_deep(int n)
{
	if (n > 0)
		ustack_deep(n - 1);
	else
		ustack_a();
	__asm__ volatile("" ::: "memory");
}

typedef void (*jit_fn)(void);

/* push rbp; mov rbp,rsp; call *%rax (ustack_c); pop rbp; ret */
static jit_fn make_jit(void)
{
#if defined(__x86_64__)
	static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0,
					      0,    0,    0,    0xff, 0xd0, 0x5d, 0xc3 };
	void (*target)(void) = ustack_c;
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, code, sizeof(code));
	memcpy(p + 6, &target, sizeof(target));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "%lx %zx ustack_jit_fn\n", (unsigned long)p, sizeof(code));
	fclose(f);
	return (jit_fn)p;
#else
	return NULL;
#endif
}

int main(int argc, char **argv)
{
	int deep = argc > 1 && !strcmp(argv[1], "deep");
	jit_fn jit = argc > 1 && !strcmp(argv[1], "jit") ? make_jit() : NULL;
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	int first = 1;

	devnull = open("/dev/null", 1);
	if (devnull < 0 || (argc > 1 && !strcmp(argv[1], "jit") && !jit))
		return 1;
	for (;;) {
		char buf[64];

		if (jit)
			jit();
		else if (deep)
			ustack_deep(40);
		else
			ustack_a();
		if (first) {
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
			first = 0;
		}
		if (poll(&pfd, 1, 10) > 0 && read(0, buf, sizeof(buf)) <= 0)
			break;
	}
	return 0; /* a perf-<pid>.map stays, as a JIT's does: the test removes it */
}
