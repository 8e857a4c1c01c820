/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-usym.c - user frames: maps parsing, tokens, and the symbol cache on
 * real processes (this test binary and a child of it that exits before its
 * frames are named), perf-<pid>.map names, sanitizing, ingest pairing.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <elf.h>
#include <dirent.h>
#include <sys/auxv.h>
#include <time.h>

#include "core/format.h"
#include "core/stack_table.h"
#include "core/ujoin.h"
#include "sym/brief.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "sym/uelf.h"
#include "sym/usym.h"

/* a function with a known name in this binary's symbol table */
__attribute__((noinline)) int usym_test_marker(int x);
__attribute__((noinline)) int usym_test_marker(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

/* a C++ name (ns::marker(int)) given to a C function: demangling, no C++ */
int usym_test_mangled(int x) __asm__("_ZN2ns6markerEi");
__attribute__((noinline)) int usym_test_mangled(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 7;
}

/* a Rust v0 name (taken from rustc 1.95's output for m::outer::inner::leaf_fn) */
int usym_test_rust_v0(int x) __asm__("_RNvNtNtCskK7mfDs1mzF_1m5outer5inner7leaf_fn");
__attribute__((noinline)) int usym_test_rust_v0(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 11;
}

/*
 * A stripped file's functions: the .eh_frame_hdr search table lists where
 * they start (uelf_func_start()); a damaged table is no list, and a table
 * encoded otherwise than the linkers write it is not read.
 */
static size_t fde_image(uint8_t *img, size_t size, uint8_t table_enc, uint32_t count)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)(void *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(img + sizeof(*eh));
	static const int32_t starts[] = { 0x100, 0x180, 0x400 }; /* from the header */
	uint8_t *h = img + 0x200;
	uint32_t i;

	memset(img, 0, size);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_phnum = 2;
	eh->e_phentsize = sizeof(*ph);
	eh->e_ehsize = sizeof(*eh);
	ph[0].p_type = PT_LOAD;
	ph[0].p_offset = 0;
	ph[0].p_vaddr = 0x1000;
	ph[0].p_filesz = ph[0].p_memsz = 0x800;
	ph[1].p_type = PT_GNU_EH_FRAME;
	ph[1].p_offset = 0x200;
	ph[1].p_vaddr = 0x1200;
	ph[1].p_filesz = 12 + 8 * 3;
	h[0] = 1;
	h[1] = 0x1b; /* pcrel | sdata4 */
	h[2] = 0x03; /* udata4 */
	h[3] = table_enc;
	memcpy(h + 8, &count, 4);
	for (i = 0; i < 3; i++)
		memcpy(h + 12 + 8 * i, &starts[i], 4);
	return 0x800;
}

static void test_fde_starts(void **state)
{
	uint8_t img[0x800];
	struct uelf_src src = { .fd = -1, .mem = img };
	struct uelf *e = NULL;
	uint64_t start = 0;

	(void)state;
	src.size = fde_image(img, sizeof(img), 0x3b, 3);
	assert_int_equal(uelf_load(&src, NULL, &e), 0);
	assert_int_equal(e->nfstarts, 3);
	assert_int_equal(uelf_func_start(e, 0x1300, &start), 0);
	assert_true(start == 0x1300);
	assert_int_equal(uelf_func_start(e, 0x1377, &start), 0);
	assert_true(start == 0x1300);
	assert_int_equal(uelf_func_start(e, 0x1381, &start), 0);
	assert_true(start == 0x1380);
	/* the last function ends with its segment */
	assert_int_equal(uelf_func_start(e, 0x17ff, &start), 0);
	assert_true(start == 0x1600);
	assert_int_equal(uelf_func_start(e, 0x1800, &start), -ENOENT);
	assert_int_equal(uelf_func_start(e, 0x12ff, &start), -ENOENT);
	uelf_free(e);
	/* a count past the segment: no list, the file's symbols still load */
	src.size = fde_image(img, sizeof(img), 0x3b, 1000000);
	assert_int_equal(uelf_load(&src, NULL, &e), 0);
	assert_int_equal(e->nfstarts, 0);
	assert_int_equal(uelf_func_start(e, 0x1300, &start), -ENOENT);
	uelf_free(e);
	/* another table encoding: not read */
	src.size = fde_image(img, sizeof(img), 0x1b, 3);
	assert_int_equal(uelf_load(&src, NULL, &e), 0);
	assert_int_equal(e->nfstarts, 0);
	uelf_free(e);
}

static const char maps_text[] =
	"55d0a0000000-55d0a0001000 r--p 00000000 08:01 1234 /usr/bin/prog\n"
	"55d0a0001000-55d0a0005000 r-xp 00001000 08:01 1234 /usr/bin/prog\n"
	"55d0a0005000-55d0a0006000 rw-p 00005000 08:01 1234 /usr/bin/prog\n"
	"7f0000000000-7f0000100000 r-xp 00028000 fd:00 99 /lib/with space/libc.so.6\n"
	"7f0000200000-7f0000201000 rwxp 00000000 00:00 0 \n"
	"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]\n"
	"garbage line\n"
	"7f0000300000-7f0000301000 r-xp 00001000 08:01 77 /tmp/old (deleted)";

static void test_parse_maps(void **state)
{
	const struct usym_map *f;
	struct usym_map *m;
	size_t n;

	(void)state;
	assert_int_equal(usym_parse_maps(maps_text, &m, &n), 0);
	assert_int_equal(n, 5); /* executable lines only; garbage skipped */
	assert_int_equal(m[0].start, 0x55d0a0001000ULL);
	assert_int_equal(m[0].pgoff, 0x1000);
	assert_int_equal(m[0].ino, 1234);
	assert_int_equal(m[0].dev, (8ULL << 32) | 1);
	assert_string_equal(m[0].path, "/usr/bin/prog");
	assert_string_equal(m[1].path, "/lib/with space/libc.so.6");
	assert_int_equal(m[1].dev, (0xfdULL << 32) | 0);
	assert_string_equal(m[2].path, ""); /* anonymous */
	assert_int_equal(m[2].ino, 0);
	assert_string_equal(m[3].path, "/tmp/old (deleted)");
	assert_string_equal(m[4].path, "[vdso]");
	/* sorted, half-open ranges */
	f = usym_find_map(m, n, 0x55d0a0001000ULL);
	assert_non_null(f);
	assert_int_equal(f->start, 0x55d0a0001000ULL);
	assert_null(usym_find_map(m, n, 0x55d0a0005000ULL));
	assert_null(usym_find_map(m, n, 0x55d0a0000fffULL));
	f = usym_find_map(m, n, 0x7ffd00001fffULL);
	assert_non_null(f);
	assert_string_equal(f->path, "[vdso]");
	usym_maps_free(m, n);

	assert_int_equal(usym_parse_maps("", &m, &n), 0);
	assert_int_equal(n, 0);
	usym_maps_free(m, n);
}

static void test_tokens(void **state)
{
	struct usym *u = usym_new(NULL);
	uint64_t a, b, c, addr;
	uint32_t tgid;

	(void)state;
	assert_non_null(u);
	a = usym_intern(u, (uint32_t)getpid(), 0x1234);
	b = usym_intern(u, (uint32_t)getpid(), 0x1234);
	c = usym_intern(u, (uint32_t)getpid() + 1000000, 0x1234);
	assert_true(a && c);
	assert_true(a == b);
	assert_true(a != c); /* same address, another process: never merged */
	assert_true(usym_is_user(a) && usym_is_user(usym_sep(5)) && usym_is_user(USYM_CUT));
	assert_true(usym_is_sep(usym_sep(5)) && !usym_is_sep(a));
	assert_false(usym_is_user(0xffffffff81000000ULL));
	assert_false(usym_is_user(0x00007fffffffe000ULL));
	assert_int_equal(usym_lookup(u, c, &tgid, &addr), 0);
	assert_int_equal(tgid, (uint32_t)getpid() + 1000000);
	assert_int_equal(addr, 0x1234);
	assert_int_equal(usym_lookup(u, USYM_TAG_FRAME | 999999, &tgid, &addr), -ENOENT);
	{
		uint64_t ips[] = { 0xffffffff81000000ULL, usym_sep(9), a, USYM_CUT };

		assert_int_equal(usym_user_start(ips, 4), 1);
		assert_int_equal(usym_user_start(ips, 1), 1);
	}
	usym_free(u);
}

static void test_own_symbols(void **state)
{
	struct usym *u = usym_new(NULL);
	uint64_t fn = (uint64_t)(uintptr_t)usym_test_marker;
	uint64_t t1, t2;
	char buf[512];

	(void)state;
	assert_int_equal(usym_test_marker(1), 4);
	t1 = usym_intern(u, (uint32_t)getpid(), fn + 1);
	t2 = usym_intern(u, (uint32_t)getpid(), fn + 2);
	usym_format(u, t1, buf, sizeof(buf), true, true);
	assert_string_equal(buf, "usym_test_marker+0x1 (test-usym)");
	usym_format(u, t1, buf, sizeof(buf), false, false);
	assert_string_equal(buf, "usym_test_marker");
	/* the caller tree's key: one per function */
	assert_true(usym_start(u, t1) == usym_start(u, t2));
	assert_true(usym_start(u, t1) != t1);
	{
		uint64_t m = (uint64_t)(uintptr_t)usym_test_mangled;

		assert_int_equal(usym_test_mangled(1), 8);
		usym_format(u, usym_intern(u, (uint32_t)getpid(), m + 1), buf, sizeof(buf), true,
			    false);
#ifdef HAVE_LIBIBERTY
		assert_string_equal(buf, "ns::marker(int)+0x1");
#else
		assert_string_equal(buf, "_ZN2ns6markerEi+0x1");
#endif
	}
	{
		uint64_t m = (uint64_t)(uintptr_t)usym_test_rust_v0;

		assert_int_equal(usym_test_rust_v0(1), 12);
		usym_format(u, usym_intern(u, (uint32_t)getpid(), m + 1), buf, sizeof(buf), true,
			    false);
#ifdef HAVE_LIBIBERTY
		assert_string_equal(buf, "m::outer::inner::leaf_fn+0x1");
#else
		assert_string_equal(buf, "_RNvNtNtCskK7mfDs1mzF_1m5outer5inner7leaf_fn+0x1");
#endif
	}
	/* through the shared frame formatters */
	{
		struct ksym *ks = ksym_new("/nonexistent");

		ksym_set_usym(ks, u);
		fmt_frame(buf, sizeof(buf), ks, usym_sep(1));
		assert_string_equal(buf, "--");
		fmt_frame(buf, sizeof(buf), ks, USYM_CUT);
		assert_string_equal(buf, "[cut: more user frames]");
		/* the mark says why the walk ended: depth is not a failure */
		fmt_frame(buf, sizeof(buf), ks, USYM_CUT_FAILED);
		assert_string_equal(buf, "[cut: unwind failed: no unwind table]");
		fmt_frame(buf, sizeof(buf), ks, USYM_CUT_STACK);
		assert_string_equal(buf, "[cut: end of the copied user stack]");
		fmt_frame(buf, sizeof(buf), ks, USYM_CUT_MEMORY);
		assert_string_equal(buf, "[cut: --max-memory: user frames not kept]");
		assert_true(usym_is_cut(USYM_CUT_FAILED) && usym_is_user(USYM_CUT_FAILED));
		assert_false(usym_is_cut(usym_sep(3)));
		assert_string_equal(usym_cut_why(USYM_CUT), "depth");
		assert_string_equal(usym_cut_why(USYM_CUT_FAILED), "unwind");
		ksym_free(ks);
	}
	usym_free(u);
}

/*
 * An event whose user stack was wanted and not had: the mark after the
 * separator says why, the one-line form starts with it (no column width
 * hides it), and it is no kernel frame
 */
static void test_none_marks(void **state)
{
	struct ksym *ks = ksym_new("/nonexistent");
	struct stack_table *t = stack_table_new();
	uint64_t lost = usym_none(UJOIN_SAMPLE_LOST);
	uint64_t ips[] = { 0xffffffff81000000ULL, 0xffffffff81000100ULL, usym_sep(0), lost };
	const struct stack *st;
	char buf[512];

	(void)state;
	assert_non_null(ks);
	assert_non_null(t);
	assert_true(usym_is_user(lost) && usym_is_none(lost) && !usym_is_sep(lost));
	assert_false(usym_is_none(USYM_CUT) || usym_is_none(usym_sep(3)));
	assert_int_equal(usym_none_why(lost), UJOIN_SAMPLE_LOST);
	assert_true(usym_stack_none(ips, 4) == lost);
	assert_true(usym_stack_none(ips, 3) == 0);
	assert_int_equal(usym_user_start(ips, 4), 2);
	fmt_frame(buf, sizeof(buf), ks, lost);
	assert_string_equal(buf, "[user stack lost: perf ring full]");
	fmt_frame(buf, sizeof(buf), ks, usym_none(UJOIN_NOT_SAMPLED));
	assert_string_equal(buf, "[user stack not sampled]");
	fmt_frame(buf, sizeof(buf), ks, usym_none(UJOIN_NO_SAMPLE));
	assert_string_equal(buf, "[user stack lost: no perf sample]");
	fmt_frame(buf, sizeof(buf), ks, usym_none(UJOIN_UNWIND_FAILED));
	assert_string_equal(buf, "[user stack lost: unwind failed]");
	fmt_frame(buf, sizeof(buf), ks, usym_none(UJOIN_NO_MAPS));
	assert_string_equal(buf, "[user stack lost: process maps unknown]");
	st = stack_table_intern(t, ips, 4);
	assert_non_null(st);
	brief_format(buf, sizeof(buf), ks, st, 3, 0);
	assert_string_equal(buf, "[user stack lost: perf ring full] 0xffffffff81000000 < "
				 "0xffffffff81000100");
	/* cut short: the mark comes first */
	brief_format(buf, 20, ks, st, 3, 0);
	assert_string_equal(buf, "[user stack lost: p");
	stack_table_free(t);
	ksym_free(ks);
}

/*
 * Rows that share their first frames show one past them (issue 35: two
 * diff rows "finish_task_switch < __schedule < schedule" alike); a row
 * alone keeps the three; two stacks of the same frames stay alike
 */
static void test_brief_apart(void **state)
{
	static const uint64_t a[] = { 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 };
	static const uint64_t b[] = { 0x1000, 0x2000, 0x3000, 0x4000, 0x6000 };
	static const uint64_t c[] = { 0x1000, 0x2000, 0x3000, 0x7000 };
	static const uint64_t e[] = { 0x9000, 0x8000 };
	struct stack_table *t = stack_table_new();
	const struct stack *st[4];
	struct ksym *ks[4] = { NULL, NULL, NULL, NULL };
	int fr[4];
	char buf[256];

	(void)state;
	assert_non_null(t);
	st[0] = stack_table_intern(t, a, 5);
	st[1] = stack_table_intern(t, b, 5);
	st[2] = stack_table_intern(t, c, 4);
	st[3] = stack_table_intern(t, e, 2);
	assert_int_equal(brief_apart(ks, st, 4, 0, 3, fr), 0);
	assert_int_equal(fr[0], 5);
	assert_int_equal(fr[1], 5);
	assert_int_equal(fr[2], 4);
	assert_int_equal(fr[3], 3);
	brief_format(buf, sizeof(buf), NULL, st[2], fr[2], 0);
	assert_string_equal(buf, "0x1000 < 0x2000 < 0x3000 < 0x7000");
	/* after the frames every row shares, left out */
	assert_int_equal(brief_apart(ks, st, 3, 2, 1, fr), 0);
	assert_int_equal(fr[0], 3);
	assert_int_equal(fr[2], 2);
	stack_table_free(t);
}

/*
 * Names as rustc 1.95 (legacy: -C symbol-mangling-version=legacy; v0: its
 * default) and g++ write them, from the symbol tables of real binaries.
 */
static void test_demangle(void **state)
{
	static const struct {
		const char *in, *out;
	} plain[] = {
		{ "main", "main" },
		{ "_start", "_start" },
		{ "_Rxyz", "_Rxyz" }, /* not a v0 name: unchanged */
		{ "_ZZZ", "_ZZZ" },   /* not a C++ name either */
		{ "_R", "_R" },
		/* symbol versions are left out, as perf does */
		{ "__libc_start_main@@GLIBC_2.34", "__libc_start_main" },
		{ "clock_gettime@GLIBC_2.17", "clock_gettime" },
		{ "_ZN3foo3barEv@@V1", "foo::bar()" },
	};
	static const struct {
		const char *in, *out;
	} demangled[] = {
		{ "_ZN2ns6markerEi", "ns::marker(int)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		/* Rust legacy: the hash is dropped, the escapes decoded */
		{ "_ZN1m5outer5inner7leaf_fn17h0de515fe3ada841cE", "m::outer::inner::leaf_fn" },
		{ "_ZN1m5outer5inner10S$LT$T$GT$6method17ha67a7e6f87b2b42fE",
		  "m::outer::inner::S<T>::method" },
		{ "_ZN1m4main17h4009bc0cd8b193aaE", "m::main" },
	};
	static const struct {
		const char *in, *out;
	} v0[] = {
		{ "_RNvCskK7mfDs1mzF_1m4main", "m::main" },
		{ "_RNvNtNtCskK7mfDs1mzF_1m5outer5inner7leaf_fn", "m::outer::inner::leaf_fn" },
		{ "_RNvMNtNtCskK7mfDs1mzF_1m5outer5innerINtB2_1SmE6methodB6_",
		  "<m::outer::inner::S<u32>>::method" },
		{ "_RNvMNtNtCsgEmfK2I1SDS_4core4char7methodsc16escape_debug_ext",
		  "<char>::escape_debug_ext" },
	};
	unsigned int i;
	char *d;

	(void)state;
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		d = usym_demangle(plain[i].in);
		assert_string_equal(d, plain[i].out);
		free(d);
	}
	for (i = 0; i < sizeof(demangled) / sizeof(demangled[0]); i++) {
		d = usym_demangle(demangled[i].in);
#ifdef HAVE_LIBIBERTY
		assert_string_equal(d, demangled[i].out);
#else
		assert_string_equal(d, demangled[i].in);
#endif
		free(d);
	}
	for (i = 0; i < sizeof(v0) / sizeof(v0[0]); i++) {
		d = usym_demangle(v0[i].in);
#ifdef HAVE_LIBIBERTY
		assert_string_equal(d, v0[i].out);
#else
		assert_string_equal(d, v0[i].in);
#endif
		free(d);
	}
}

/* the address of @name in this process's vdso (its symbols, read by uelf), 0 if none */
static uint64_t vdso_symbol(const char *name)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), found = 0;
	struct uelf_src src = { .fd = -1 };
	struct uelf *e = NULL;
	size_t len = 0, i;
	char line[512];
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2 && a == base)
			len = (size_t)(b - a);
	}
	if (f)
		fclose(f);
	if (!base || !len)
		return 0;
	src.mem = (const uint8_t *)(uintptr_t)base;
	src.size = len;
	if (uelf_load(&src, NULL, &e) < 0)
		return 0;
	for (i = 0; i < e->nsyms; i++)
		if (!strcmp(e->names + e->syms[i].name, name))
			found = base + e->syms[i].start;
	uelf_free(e);
	return found;
}

/*
 * A frame in the vdso (clock_gettime does not enter the kernel; a frame
 * there comes with an interrupt or a fault): named from the image copied
 * out of the process's memory, as every process shares the kernel's image.
 */
static void test_vdso(void **state)
{
	uint64_t fn = vdso_symbol("__vdso_clock_gettime"), tok;
	struct usym *u;
	char buf[512];
	struct timespec ts;

	(void)state;
	if (!fn)
		skip(); /* no vdso (or none with that symbol) on this machine */
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
	u = usym_new(NULL);
	tok = usym_intern(u, (uint32_t)getpid(), fn + 4);
	usym_format(u, tok, buf, sizeof(buf), true, true);
	/* the same address may carry the alias clock_gettime */
	if (strcmp(buf, "__vdso_clock_gettime+0x4 ([vdso])"))
		assert_string_equal(buf, "clock_gettime+0x4 ([vdso])");
	usym_format(u, tok, buf, sizeof(buf), false, false);
	assert_non_null(strstr(buf, "clock_gettime"));
	/* a second process shares the image: no second copy */
	{
		size_t before = usym_memory(u);
		pid_t child = fork();
		int ws;

		if (child == 0) {
			pause();
			_exit(0);
		}
		assert_true(child > 0);
		tok = usym_intern(u, (uint32_t)child, fn + 8);
		usym_format(u, tok, buf, sizeof(buf), true, true);
		kill(child, SIGKILL);
		waitpid(child, &ws, 0);
		assert_non_null(strstr(buf, "clock_gettime+0x8 ([vdso])"));
		/* the child's maps and tokens, not another image of a page or more */
		assert_true(usym_memory(u) - before < 4096);
	}
	usym_free(u);
}

/* the memory bound: what was interned stays, nothing new past it */
static void test_limit(void **state)
{
	struct usym *u = usym_new("");
	uint64_t first, tok = 1;
	char buf[128];
	size_t base;
	uint64_t a;

	(void)state;
	first = usym_intern(u, 42, 0x1000);
	assert_true(first != 0);
	base = usym_memory(u);
	usym_set_limit(u, base + 64 * 1024);
	assert_int_equal(usym_refused(u), 0);
	for (a = 0x2000; tok && a < 0x2000 + 1000000 * 16; a += 16)
		tok = usym_intern(u, 42, a);
	assert_true(tok == 0); /* refused before a million addresses */
	assert_true(usym_refused(u) == 1);
	assert_true(usym_memory(u) <= base + 64 * 1024); /* growth included */
	/* known frames still resolve to their tokens; a new process is refused */
	assert_true(usym_intern(u, 42, 0x1000) == first);
	assert_true(usym_intern(u, 43, 0x1000) == 0);
	assert_true(usym_refused(u) == 2);
	usym_format(u, first, buf, sizeof(buf), true, true);
	assert_string_equal(buf, "[unknown] 0x1000");
	/* no bound: interning goes on */
	usym_set_limit(u, 0);
	assert_true(usym_intern(u, 42, a) != 0);
	usym_free(u);
}

/* a child, seen while it runs and named after it exited and was reaped */
static void test_after_exit(void **state)
{
	struct usym *u = usym_new(NULL);
	uint64_t fn = (uint64_t)(uintptr_t)usym_test_marker, tok;
	int pfd[2], st;
	char buf[512], c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(pfd[1]);
		while (read(pfd[0], &c, 1) > 0)
			;
		_exit(usym_test_marker(0) == 1 ? 0 : 1);
	}
	close(pfd[0]);
	tok = usym_intern(u, (uint32_t)pid, fn + 4); /* first sight: maps read now */
	close(pfd[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	usym_format(u, tok, buf, sizeof(buf), true, true);
	assert_string_equal(buf, "usym_test_marker+0x4 (test-usym)");
	/* a process never seen alive has no maps: [unknown], never a guess */
	tok = usym_intern(u, (uint32_t)pid, fn + 8); /* same tgid: maps kept */
	usym_format(u, tok, buf, sizeof(buf), true, true);
	assert_string_equal(buf, "usym_test_marker+0x8 (test-usym)");
	usym_free(u);
}

/* frames from before an exec keep their names; after it, the new image's */
static void test_exec(void **state)
{
	struct usym *u = usym_new(NULL);
	uint64_t fn = (uint64_t)(uintptr_t)usym_test_marker, before, after, again;
	char buf[512], link[256], want[256];
	int pfd[2], st, tries;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char c;

		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1) /* the first go: exec */
			_exit(1);
		dup2(pfd[0], 0);
		execl("/bin/cat", "cat", (char *)NULL);
		_exit(1);
	}
	close(pfd[0]);
	before = usym_intern(u, (uint32_t)pid, fn + 1); /* the image of this test */
	assert_int_equal(write(pfd[1], "x", 1), 1);
	/* wait (bounded) until the child runs cat */
	snprintf(want, sizeof(want), "/proc/%d/exe", (int)pid);
	for (tries = 0; tries < 500; tries++) {
		ssize_t n = readlink(want, link, sizeof(link) - 1);

		if (n > 0) {
			link[n] = '\0';
			if (strstr(link, "cat"))
				break;
		}
		usleep(10000);
	}
	assert_true(tries < 500);
	again = usym_intern(u, (uint32_t)pid, fn + 1);
	assert_true(again == before); /* same refresh: not checked again */
	usym_tick(u);
	after = usym_intern(u, (uint32_t)pid, fn + 1);
	assert_true(after != before);
	close(pfd[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	usym_format(u, before, buf, sizeof(buf), true, true);
	assert_string_equal(buf, "usym_test_marker+0x1 (test-usym)");
	usym_format(u, after, buf, sizeof(buf), true, true);
	assert_null(strstr(buf, "usym_test_marker")); /* cat has no such function */
	assert_null(strstr(buf, "test-usym"));
	usym_free(u);
}

static void test_perf_map(void **state)
{
	struct usym *u = usym_new(NULL);
	char path[64], buf[512];
	uint64_t tok, bad, miss;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	/* low addresses nothing maps (below mmap_min_addr) */
	fprintf(f, "2000 100 JS:*fast_path /app.js:3\n"
		   "1000 80 Interp\x1b[31mevil\n"
		   "not a line\n");
	fclose(f);
	tok = usym_intern(u, (uint32_t)getpid(), 0x2010);
	bad = usym_intern(u, (uint32_t)getpid(), 0x1004);
	miss = usym_intern(u, (uint32_t)getpid(), 0x2100); /* just past the region */
	usym_format(u, tok, buf, sizeof(buf), true, true);
	snprintf(path, sizeof(path), "JS:*fast_path /app.js:3+0x10 (perf-%d.map)", (int)getpid());
	assert_string_equal(buf, path);
	usym_format(u, bad, buf, sizeof(buf), false, false);
	assert_null(strchr(buf, '\x1b')); /* sanitized */
	assert_non_null(strstr(buf, "Interp"));
	usym_format(u, miss, buf, sizeof(buf), true, true);
	assert_string_equal(buf, "[unknown] 0x2100");
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	usym_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_maps),  cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_own_symbols), cmocka_unit_test(test_none_marks),
		cmocka_unit_test(test_demangle),    cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_brief_apart), cmocka_unit_test(test_limit),
		cmocka_unit_test(test_after_exit),  cmocka_unit_test(test_exec),
		cmocka_unit_test(test_perf_map),    cmocka_unit_test(test_fde_starts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
