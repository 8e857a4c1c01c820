// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unwind-live.c - the DWARF user-stack path on the real kernel: perfsamp
 * samples syscalls:sys_enter_write of uprog (built -fomit-frame-pointer),
 * the mappings come from perf's own MMAP2 records, dwunwind unwinds each
 * sample, and a tiny .symtab lookup names the frames of uprog. Every sample
 * must show c, b, a, main in that order, right after the libc frames. Then
 * with only 128 bytes of stack copied every unwind must stop at c or b and
 * say the copy ended there.
 *
 *   unwind-live UPROG      exit 0 pass, 1 fail, 77 skip (not root, no
 *                          tracefs or perf_event_open)
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include "sym/dwunwind.h"
#include "kernel/perfsamp.h"

#define WANT 40
#define MAXMAPS 256

static pid_t child = -1;
static char prog[4096];

static struct umap maps[MAXMAPS];
static char *paths[MAXMAPS];
static size_t nmaps;

static struct dwunwind *uw;
static int nsamples, ngood, nbad, nmmap2;
static char first_bad[1024];
/* phase 2: a copy of 128 bytes of stack only */
static int short_phase, nshort, nshort_cut, nshort_c;

/* ---- a tiny symbolizer for uprog's own functions ------------------------ */

static const uint8_t *elf;
static size_t elf_size;

static const char *sym_of(uint64_t vaddr)
{
	const Elf64_Ehdr *eh = (const void *)elf;
	const Elf64_Shdr *sh = (const void *)(elf + eh->e_shoff);
	int i;

	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym = (const void *)(elf + sh[i].sh_offset);
		const char *str = (const char *)elf + sh[sh[i].sh_link].sh_offset;
		size_t k, n = sh[i].sh_size / sizeof(*sym);

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		for (k = 0; k < n; k++)
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && vaddr >= sym[k].st_value &&
			    vaddr < sym[k].st_value + sym[k].st_size)
				return str + sym[k].st_name;
	}
	return NULL;
}

/* uprog's function at @ip, "?" elsewhere in uprog, NULL outside uprog */
static const char *name_of(uint64_t ip)
{
	const Elf64_Ehdr *eh = (const void *)elf;
	const Elf64_Phdr *ph = (const void *)(elf + eh->e_phoff);
	size_t i;
	int k;

	for (i = 0; i < nmaps; i++) {
		uint64_t off;

		if (ip < maps[i].start || ip >= maps[i].end || strcmp(maps[i].path, prog))
			continue;
		off = ip - maps[i].start + maps[i].pgoff;
		for (k = 0; k < eh->e_phnum; k++)
			if (ph[k].p_type == PT_LOAD && off >= ph[k].p_offset &&
			    off < ph[k].p_offset + ph[k].p_filesz) {
				const char *s = sym_of(ph[k].p_vaddr + off - ph[k].p_offset);

				return s ? s : "?";
			}
		return "?";
	}
	return NULL;
}

/* ---- the callbacks ------------------------------------------------------ */

static int cmp_map(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void on_mmap(void *ctx, const struct perfsamp_mmap *m)
{
	if ((pid_t)m->pid != child || m->filename[0] != '/' || nmaps == MAXMAPS)
		return;
	nmmap2++;
	paths[nmaps] = strdup(m->filename);
	if (!paths[nmaps])
		return;
	maps[nmaps].start = m->start;
	maps[nmaps].end = m->start + m->len;
	maps[nmaps].pgoff = m->pgoff;
	maps[nmaps].path = paths[nmaps];
	maps[nmaps].dev = m->dev;
	maps[nmaps].ino = m->ino;
	nmaps++;
	qsort(maps, nmaps, sizeof(maps[0]), cmp_map);
}

static void on_sample(void *ctx, const struct perfsamp_sample *s)
{
	struct dwunwind_sample in = {
		.regs = s->regs, .stack = s->stack, .stack_size = s->stack_size,
		.maps = maps, .nmaps = nmaps, .pid = s->pid,
	};
	static const char *const want[] = { "c", "b", "a", "main" };
	char line[512];
	size_t len = 0;
	enum dwunwind_end why;
	uint64_t ips[64];
	int n, i, w = 0, in_prog = 0;

	if ((pid_t)s->pid != child)
		return;
	if (short_phase) {
		/* the copy ends inside b's frame: write, c, maybe b, then the cut */
		n = dwunwind_stack(uw, &in, ips, 64, &why);
		nshort++;
		if (n > 0 && why == DWUNWIND_END_STACK)
			nshort_cut++;
		if (n >= 2 && name_of(ips[1] - 1) && !strcmp(name_of(ips[1] - 1), "c"))
			nshort_c++;
		return;
	}
	nsamples++;
	n = dwunwind_stack(uw, &in, ips, 64, &why);
	line[0] = 0;
	for (i = 0; i < n; i++) {
		const char *nm = name_of(i ? ips[i] - 1 : ips[i]);

		len += snprintf(line + len, sizeof(line) - len, " %s", nm ? nm : "(lib)");
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		if (!nm) {
			if (in_prog) /* libc again after uprog: __libc_start_main */
				break;
			continue;
		}
		/* the first uprog frames must be exactly c, b, a, main */
		in_prog = 1;
		if (w < 4 && !strcmp(nm, want[w]))
			w++;
		else if (w < 4)
			break;
	}
	if (n > 0 && w == 4) {
		ngood++;
	} else {
		nbad++;
		if (!first_bad[0])
			snprintf(first_bad, sizeof(first_bad), "n=%d end=%s frames:%s", n,
				 n > 0 ? dwunwind_end_name(why) : "-", line);
	}
	if (nsamples == 1)
		printf("first sample: %d frames (%s):%s\n", n, n > 0 ? dwunwind_end_name(why) : "-", line);
}

static void kill_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
}

static int skip(const char *why)
{
	printf("SKIP: %s\n", why);
	kill_child();
	return 77;
}

int main(int argc, char **argv)
{
	const char *ev[] = { "syscalls:sys_enter_write" };
	struct perfsamp_opts o = { .events = ev, .nevents = 1 };
	struct perfsamp_cb cb = { .sample = on_sample, .mmap = on_mmap };
	struct perfsamp *p = NULL;
	struct timespec t0, t;
	int go[2], fd, r, rc = 1;
	char err[256];
	struct stat st;
	size_t i;

	if (argc != 2 || !realpath(argv[1], prog)) {
		fprintf(stderr, "usage: unwind-live UPROG\n");
		return 2;
	}
	if (geteuid() != 0)
		return skip("not root");
	if (access("/sys/kernel/tracing/events/syscalls/sys_enter_write/id", R_OK))
		return skip("no syscalls:sys_enter_write tracepoint");
	fd = open(prog, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return skip("cannot read uprog");
	elf_size = st.st_size;
	elf = mmap(NULL, elf_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (elf == MAP_FAILED)
		return skip("cannot map uprog");
	uw = dwunwind_new();
	if (!uw || pipe(go))
		return 1;

	/* the child waits until the events are on, then execs uprog */
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl(prog, prog, "60", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	o.pid = child;
	r = perfsamp_open(&p, &o, &cb, err, sizeof(err));
	if (r < 0) {
		close(go[1]);
		return skip(err);
	}
	if (write(go[1], "x", 1) != 1)
		goto out;
	close(go[1]);

	/* bounded wait for WANT samples: polled, no sleeps */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (nsamples < WANT) {
		struct pollfd pfd[1024];
		int n = perfsamp_pollfds(p, pfd, 1024);
		bool more;

		poll(pfd, n, 100);
		if (perfsamp_drain(p, 0, &more) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20)
			break;
	}
	perfsamp_close(p);
	p = NULL;

	/* the same process with 128 bytes of stack copied: cut, and said so */
	short_phase = 1;
	o.stack_size = 128;
	cb.mmap = NULL;
	r = perfsamp_open(&p, &o, &cb, err, sizeof(err));
	if (r < 0) {
		printf("FAIL: second perfsamp_open: %s\n", err);
		goto out;
	}
	while (nshort < 10) {
		struct pollfd pfd[1024];
		int n = perfsamp_pollfds(p, pfd, 1024);
		bool more;

		poll(pfd, n, 100);
		if (perfsamp_drain(p, 0, &more) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 40)
			break;
	}
	kill_child();

	{
		struct dwunwind_sample none = { .regs = (uint64_t[24]){ 0 }, .stack = (const uint8_t *)"x",
						.stack_size = 1 };
		uint64_t ip;

		/* a sample with no mappings cannot be unwound: -ENOENT */
		if (dwunwind_stack(uw, &none, &ip, 1, NULL) != -ENOENT) {
			printf("FAIL: a sample without maps was not refused with -ENOENT\n");
			goto out;
		}
	}
	printf("samples %d, unwound c<b<a<main %d, wrong %d, mmap2 records %d; "
	       "128-byte stacks: %d, cut %d\n", nsamples, ngood, nbad, nmmap2, nshort, nshort_cut);
	if (nmmap2 == 0)
		printf("FAIL: no PERF_RECORD_MMAP2 of uprog\n");
	else if (nsamples < WANT)
		printf("FAIL: only %d samples of uprog's write() in 20 s\n", nsamples);
	else if (nbad)
		printf("FAIL: %d samples without the chain; first: %s\n", nbad, first_bad);
	else if (nshort < 10 || nshort_cut != nshort || nshort_c != nshort)
		printf("FAIL: 128-byte stacks: %d samples, %d cut at the end of the copy, %d with c\n",
		       nshort, nshort_cut, nshort_c);
	else
		rc = 0;
out:
	kill_child();
	perfsamp_close(p);
	dwunwind_free(uw);
	for (i = 0; i < nmaps; i++)
		free(paths[i]);
	munmap((void *)elf, elf_size);
	return rc;
}
