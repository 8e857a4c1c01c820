// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-dwunwind-vdso.c - dwunwind through the [vdso]: the code is in no
 * file, so the unwind table comes from a copy of the image given with the
 * mapping (struct umap @image). This process loops on clock_gettime(), a
 * profiling timer signal takes the registers and a copy of the stack when
 * it lands in the vdso (what perf copies at an interrupt there), and the
 * unwind must leave the vdso and reach spin() and main() below it. Also the
 * image's build-id (the key of the copies kept) and a damaged image.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

#include <asm/perf_regs.h>
#include <cmocka.h>

#include "sym/dwunwind.h"

#define MAXMAPS 512
#define STACK_COPY 16384

static struct umap maps[MAXMAPS];
static size_t nmaps;
static uint64_t vdso_start, vdso_end, stack_end;
static uint8_t *vdso_image;

/* what the signal took */
static volatile sig_atomic_t taken;
static uint64_t regs[DWUNWIND_NREGS];
static uint8_t stack_copy[STACK_COPY];
static size_t stack_len;

/* this process's file mappings and its [vdso] (with a copy of the image) */
static void maps_read(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && nmaps < MAXMAPS) {
		unsigned long long start, end, off, ino;
		char perms[8], path[4096] = "";
		unsigned int maj, min;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095s", &start, &end, perms, &off,
			   &maj, &min, &ino, path) < 7)
			continue;
		if (!strcmp(path, "[stack]"))
			stack_end = end;
		if (!strcmp(path, "[vdso]")) {
			vdso_start = start;
			vdso_end = end;
			vdso_image = malloc(end - start);
			assert_non_null(vdso_image);
			memcpy(vdso_image, (const void *)(uintptr_t)start, end - start);
			maps[nmaps].image = vdso_image;
			maps[nmaps].image_size = end - start;
		} else if (!ino || path[0] != '/') {
			continue;
		}
		maps[nmaps].start = start;
		maps[nmaps].end = end;
		maps[nmaps].pgoff = off;
		maps[nmaps].dev = (uint64_t)maj << 32 | min;
		maps[nmaps].ino = ino;
		maps[nmaps].path = strdup(path);
		assert_non_null(maps[nmaps].path);
		nmaps++;
	}
	fclose(f);
}

static void maps_free(void)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		free((char *)maps[i].path);
	free(vdso_image);
}

/* the stack as it is (ASan's redzones included): no instrumented copy */
__attribute__((no_sanitize("address"))) static void copy_stack(uint64_t sp)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)sp;
	size_t i, n = STACK_COPY;

	if (stack_end > sp && stack_end - sp < n)
		n = stack_end - sp;
	for (i = 0; i < n; i++)
		stack_copy[i] = p[i];
	stack_len = n;
}

__attribute__((no_sanitize("address"))) static void on_prof(int sig, siginfo_t *si, void *ctx)
{
	const greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	uint64_t ip = (uint64_t)g[REG_RIP];

	(void)sig;
	(void)si;
	if (taken || ip < vdso_start || ip >= vdso_end)
		return;
	regs[PERF_REG_X86_AX] = g[REG_RAX];
	regs[PERF_REG_X86_BX] = g[REG_RBX];
	regs[PERF_REG_X86_CX] = g[REG_RCX];
	regs[PERF_REG_X86_DX] = g[REG_RDX];
	regs[PERF_REG_X86_SI] = g[REG_RSI];
	regs[PERF_REG_X86_DI] = g[REG_RDI];
	regs[PERF_REG_X86_BP] = g[REG_RBP];
	regs[PERF_REG_X86_SP] = g[REG_RSP];
	regs[PERF_REG_X86_IP] = g[REG_RIP];
	regs[PERF_REG_X86_FLAGS] = g[REG_EFL];
	regs[PERF_REG_X86_R8] = g[REG_R8];
	regs[PERF_REG_X86_R9] = g[REG_R9];
	regs[PERF_REG_X86_R10] = g[REG_R10];
	regs[PERF_REG_X86_R11] = g[REG_R11];
	regs[PERF_REG_X86_R12] = g[REG_R12];
	regs[PERF_REG_X86_R13] = g[REG_R13];
	regs[PERF_REG_X86_R14] = g[REG_R14];
	regs[PERF_REG_X86_R15] = g[REG_R15];
	copy_stack((uint64_t)g[REG_RSP]);
	taken = 1;
}

/* clock_gettime() until the signal lands in the vdso (5 s at most) */
__attribute__((noinline)) int spin(void);
__attribute__((noinline)) int spin(void)
{
	struct timespec ts, t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (!taken && ts.tv_sec - t0.tv_sec < 5);
	return taken;
}

static const char *name_of(uint64_t ip)
{
	Dl_info di;

	if (!dladdr((void *)(uintptr_t)(ip - 1), &di) || !di.dli_sname)
		return "?";
	return di.dli_sname;
}

static void test_buildid(void **state)
{
	uint8_t bid[64], damaged[64];
	int n;

	(void)state;
	n = dwunwind_image_buildid(vdso_image, vdso_end - vdso_start, bid, sizeof(bid));
	assert_true(n > 0);
	/* the same as the vdso this process runs (the kernel's one image) */
	assert_int_equal(dwunwind_image_buildid((const uint8_t *)getauxval(AT_SYSINFO_EHDR),
						vdso_end - vdso_start, damaged, sizeof(damaged)), n);
	assert_memory_equal(bid, damaged, (size_t)n);
	/* too little room, no ELF, cut short */
	assert_int_equal(dwunwind_image_buildid(vdso_image, vdso_end - vdso_start, bid, 4), -ENOENT);
	memset(damaged, 0, sizeof(damaged));
	assert_int_equal(dwunwind_image_buildid(damaged, sizeof(damaged), bid, sizeof(bid)), -ENOENT);
	assert_int_equal(dwunwind_image_buildid(vdso_image, 32, bid, sizeof(bid)), -ENOENT);
}

static void test_unwind_vdso(void **state)
{
	struct dwunwind_sample s = {
		.regs = regs, .stack = stack_copy, .maps = maps, .nmaps = nmaps, .maps_id = 1,
		.pid = (uint32_t)getpid(),
	};
	struct sigaction sa = { .sa_sigaction = on_prof, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct itimerval it = { .it_interval = { 0, 1000 }, .it_value = { 0, 1000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	uint64_t ips[64], first[64], word, moved;
	struct dwunwind_stats st, st2;
	enum dwunwind_end why;
	struct dwunwind *u;
	bool got_spin = false, got_main = false;
	size_t k;
	int n, i;

	(void)state;
	assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_PROF, &it, NULL), 0);
	n = spin();
	setitimer(ITIMER_PROF, &off, NULL);
	signal(SIGPROF, SIG_IGN);
	assert_true(n); /* the timer landed in the vdso */
	s.stack_size = stack_len;

	u = dwunwind_new();
	assert_non_null(u);
	n = dwunwind_stack(u, &s, ips, 64, &why);
	for (i = 0; i < n; i++)
		print_message("#%d %#llx %s\n", i, (unsigned long long)ips[i],
			      i ? name_of(ips[i]) : "(leaf)");
	print_message("%d frames, %s\n", n, n > 0 ? dwunwind_end_name(why) : "-");
	assert_true(n >= 3);
	assert_true(ips[0] >= vdso_start && ips[0] < vdso_end);
	/*
	 * out of the vdso within its own few frames: the timer may land in
	 * clock_gettime itself or in an internal function it calls (this
	 * kernel's vdso has seven FDEs), whose caller is then clock_gettime;
	 * the first frame outside it is libc's (or an interceptor's)
	 */
	for (k = 1; k < (size_t)n && ips[k] >= vdso_start && ips[k] < vdso_end; k++)
		;
	assert_true(k < (size_t)n && k <= 3);
	for (i = 1; i < n; i++) {
		got_spin |= !strcmp(name_of(ips[i]), "spin");
		got_main |= got_spin && !strcmp(name_of(ips[i]), "main");
	}
	assert_true(got_spin);
	assert_true(got_main);

	/* the same again: replayed from the walk kept for that maps_id, IP and SP */
	dwunwind_stats(u, &st);
	assert_int_equal(st.replayed, 0);
	memcpy(first, ips, sizeof(first));
	assert_int_equal(dwunwind_stack(u, &s, ips, 64, NULL), n);
	assert_memory_equal(ips, first, (size_t)n * sizeof(*ips));
	dwunwind_stats(u, &st2);
	assert_int_equal(st2.replayed, 1);
	assert_int_equal(st2.walked, st.walked);
	/*
	 * a return address the walk read now says another caller: no replay,
	 * the walk sees it (a word the walk did not read changes nothing)
	 */
	for (k = 0; k + 8 <= stack_len; k += 8)
		if (!memcmp(stack_copy + k, &ips[2], 8))
			break;
	assert_true(k + 8 <= stack_len);
	memcpy(&word, stack_copy + k, 8);
	moved = word + 1;
	memcpy(stack_copy + k, &moved, 8);
	assert_true(dwunwind_stack(u, &s, ips, 64, NULL) >= 3);
	dwunwind_stats(u, &st);
	assert_int_equal(st.walked, st2.walked + 1);
	assert_int_equal(st.replayed, 1);
	assert_true(ips[2] == moved);
	memcpy(stack_copy + k, &word, 8);
	assert_int_equal(dwunwind_stack(u, &s, ips, 64, NULL), n);
	assert_memory_equal(ips, first, (size_t)n * sizeof(*ips));
	/* another depth limit is another result */
	assert_int_equal(dwunwind_stack(u, &s, ips, 2, &why), 2);
	assert_int_equal(why, DWUNWIND_END_DEPTH);
	/* without the image the vdso is in no file: no maps */
	for (i = 0; i < (int)nmaps; i++)
		if (maps[i].image)
			maps[i].image = NULL;
	s.maps_id = 0;
	assert_int_equal(dwunwind_stack(u, &s, ips, 64, NULL), -ENOENT);
	dwunwind_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buildid),
		cmocka_unit_test(test_unwind_vdso),
	};
	int r;

	maps_read();
	if (!vdso_image) {
		printf("1..0 # SKIP no [vdso] in this process\n");
		return 77;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	maps_free();
	return r;
}
