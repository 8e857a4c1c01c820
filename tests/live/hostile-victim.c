// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostile-victim.c - the attacker's process of tests/live/hostile.sh (run
 * as nobody): it writes a byte to /dev/null every 10 ms, and prints
 * "ready PID" after the first write; exits when stdin reaches EOF.
 *
 *   hostile-victim lib PATH   from hv_a() of the library PATH (dlopen'd);
 *                             SIGUSR1: from hv_b() from then on
 *   hostile-victim mangled    from a function whose symbol is a mangled C++
 *                             name that demangles to 109 MB (every nesting
 *                             level refers twice to the one before)
 *   hostile-victim jit        from an anonymous executable page named in
 *                             /tmp/perf-PID.map (as a JIT runtime does),
 *                             through hv_plain()
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t use_b;
static int devnull;

/* f(p<a, p>, a<p<a, p>, p<a, p> >, ...): 23 levels, 254 bytes */
void hv_mangled(int fd) __asm__(
	"_Z1f1pI1aS_E" "S0_IS1_S1_E" "S0_IS2_S2_E" "S0_IS3_S3_E" "S0_IS4_S4_E" "S0_IS5_S5_E"
	"S0_IS6_S6_E" "S0_IS7_S7_E" "S0_IS8_S8_E" "S0_IS9_S9_E" "S0_ISA_SA_E" "S0_ISB_SB_E"
	"S0_ISC_SC_E" "S0_ISD_SD_E" "S0_ISE_SE_E" "S0_ISF_SF_E" "S0_ISG_SG_E" "S0_ISH_SH_E"
	"S0_ISI_SI_E" "S0_ISJ_SJ_E" "S0_ISK_SK_E" "S0_ISL_SL_E" "S0_ISM_SM_E");
__attribute__((noinline)) void hv_mangled(int fd)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(&ret), "d"(1L)
			 : "rcx", "r11", "memory");
	__asm__ volatile("" ::: "memory");
}

void hv_plain(int fd);
__attribute__((noinline)) void hv_plain(int fd)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(&ret), "d"(1L)
			 : "rcx", "r11", "memory");
	__asm__ volatile("" ::: "memory");
}

static void on_usr1(int sig)
{
	(void)sig;
	use_b = 1;
}

typedef void (*jit_fn)(void);

static void jit_target(void)
{
	hv_plain(devnull);
}

/* push rbp; mov rbp,rsp; call *%rax; pop rbp; ret */
static jit_fn make_jit(void)
{
	static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0,
					      0,    0,    0,    0xff, 0xd0, 0x5d, 0xc3 };
	void (*target)(void) = jit_target;
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
	fprintf(f, "%lx %zx hostile_jit_fn\n", (unsigned long)p, sizeof(code));
	fclose(f);
	return (jit_fn)p;
}

int main(int argc, char **argv)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	void (*a)(int) = NULL, (*b)(int) = NULL;
	jit_fn jit = NULL;
	int first = 1;

	devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0 || argc < 2)
		return 2;
	if (!strcmp(argv[1], "lib") && argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);

		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		a = (void (*)(int))dlsym(h, "hv_a");
		b = (void (*)(int))dlsym(h, "hv_b");
		if (!a || !b)
			return 1;
		signal(SIGUSR1, on_usr1);
	} else if (!strcmp(argv[1], "jit")) {
		jit = make_jit();
		if (!jit)
			return 1;
	} else if (strcmp(argv[1], "mangled")) {
		return 2;
	}
	for (;;) {
		char buf[64];

		if (a)
			(use_b ? b : a)(devnull);
		else if (jit)
			jit();
		else
			hv_mangled(devnull);
		if (first) {
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
			first = 0;
		}
		if (poll(&pfd, 1, 10) > 0 && read(0, buf, sizeof(buf)) <= 0)
			break;
	}
	_exit(0); /* no library destructors: its data may be gone */
}
