/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-udwarf.c - inlined calls and source lines from DWARF (sym/udwarf.c)
 * on a real -O2 -g program (tests/ustack/inline.c: mix_step() inlined in
 * hot_loop()): the chain at each address of hot_loop as addr2line -i gives
 * it; the same from its debug file alone (objcopy --only-keep-debug: .text
 * without bytes) and from a copy with zlib-compressed debug sections; the
 * .gnu_debuglink of a stripped copy. Then the file as an attacker would
 * make it: damaged .debug_info and .debug_line (no crash, every lookup
 * ends), a compressed section that declares 1 TiB (refused before anything
 * is inflated), a file cut short, a budget too small.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <elf.h>

#include "sym/udwarf.h"
#include "sym/uelf.h"

#define BUDGET (64u << 20)

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	b = malloc((size_t)st.st_size + 1);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static const char *env_path(const char *name)
{
	const char *p = getenv(name);

	if (!p || !p[0])
		skip();
	return p;
}

/* hot_loop's address range, from the program's own symbols */
static void hot_loop_range(uint64_t *lo, uint64_t *hi)
{
	size_t len = 0, i;
	uint8_t *img = slurp(env_path("INLINE_BIN"), &len);
	struct uelf_src src = { .fd = -1, .mem = img, .size = len };
	struct uelf *e = NULL;

	assert_non_null(img);
	assert_int_equal(uelf_load(&src, NULL, &e), 0);
	*lo = *hi = 0;
	for (i = 0; i < e->nsyms; i++)
		if (!strcmp(e->names + e->syms[i].name, "hot_loop")) {
			*lo = e->syms[i].start;
			*hi = e->syms[i].start + e->syms[i].size;
		}
	uelf_free(e);
	free(img);
	assert_true(*hi > *lo);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* every address of hot_loop: the inlined mix_step at its lines, under hot_loop at the call */
static void check_chains(const uint8_t *img, size_t len)
{
	struct uelf_src src = { .fd = -1, .mem = img, .size = len };
	struct udwarf_frame fr[UDWARF_FRAMES_MAX];
	struct udwarf *d = NULL;
	uint64_t lo, hi, a;
	unsigned int inl = 0, n;

	hot_loop_range(&lo, &hi);
	assert_true(udwarf_has_debug(&src));
	assert_int_equal(udwarf_open(&src, BUDGET, &d), 0);
	for (a = lo; a < hi; a++) {
		n = udwarf_frames(d, a, fr, UDWARF_FRAMES_MAX);
		assert_true(n >= 1 && n <= 2);
		assert_string_equal(fr[n - 1].name, "hot_loop");
		assert_false(fr[n - 1].inlined);
		if (n == 1) {
			assert_true(fr[0].line >= 29 && fr[0].line <= 37);
			continue;
		}
		/* inline.c's marks: mix_step is lines 20-24, called at line 35 */
		inl++;
		assert_string_equal(fr[0].name, "mix_step");
		assert_true(fr[0].inlined);
		assert_true(fr[0].line >= 20 && fr[0].line <= 24);
		assert_true(ends_with(fr[0].file, "/inline.c"));
		assert_int_equal(fr[1].line, 35);
		assert_true(ends_with(fr[1].file, "/inline.c"));
	}
	assert_true(inl >= 8); /* most of the loop is mix_step */
	/* an address no unit covers */
	assert_int_equal(udwarf_frames(d, 1, fr, UDWARF_FRAMES_MAX), 0);
	assert_true(udwarf_bytes(d) > 0 && udwarf_bytes(d) <= BUDGET);
	udwarf_free(d);
}

static void test_program(void **state)
{
	size_t len = 0;
	uint8_t *img = slurp(env_path("INLINE_BIN"), &len);

	(void)state;
	assert_non_null(img);
	check_chains(img, len);
	free(img);
}

/* the debug file alone (Debian's -dbgsym layout): the same chains */
static void test_debug_file(void **state)
{
	size_t len = 0;
	uint8_t *img = slurp(env_path("INLINE_DEBUG"), &len);

	(void)state;
	assert_non_null(img);
	check_chains(img, len);
	free(img);
}

/* zlib-compressed debug sections (SHF_COMPRESSED): inflated by libdw within the budget */
static void test_compressed(void **state)
{
	size_t len = 0;
	uint8_t *img = slurp(env_path("INLINE_ZDEBUG"), &len);
	struct uelf_src src = { .fd = -1, .mem = img, .size = len };
	struct udwarf *d = NULL;

	(void)state;
	assert_non_null(img);
	check_chains(img, len);
	/* a budget smaller than the sections inflated: refused, nothing inflated */
	assert_int_equal(udwarf_open(&src, 4096, &d), -E2BIG);
	assert_null(d);
	free(img);
}

/* a stripped copy: no DWARF, a .gnu_debuglink naming the debug file with its CRC */
static void test_debuglink(void **state)
{
	size_t len = 0, dlen = 0;
	uint8_t *img = slurp(env_path("INLINE_STRIPPED"), &len);
	uint8_t *dbg = slurp(env_path("INLINE_DEBUG"), &dlen);
	struct uelf_src src = { .fd = -1, .mem = img, .size = len };
	struct uelf_src dsrc = { .fd = -1, .mem = dbg, .size = dlen };
	struct udwarf *d = NULL;
	char name[256];
	uint32_t crc = 0, got = 1;

	(void)state;
	assert_non_null(img);
	assert_non_null(dbg);
	assert_false(udwarf_has_debug(&src));
	assert_int_equal(udwarf_open(&src, BUDGET, &d), -ENOENT);
	assert_int_equal(udwarf_debuglink(&src, name, sizeof(name), &crc), 0);
	assert_true(ends_with(name, ".debug") && !strchr(name, '/'));
	assert_int_equal(udwarf_crc32(&dsrc, &got), 0);
	assert_true(got == crc);
	free(img);
	free(dbg);
}

/* the section named @name of an ELF64 image: its bytes' place */
static bool find_sec(const uint8_t *img, size_t len, const char *name, Elf64_Shdr *ret)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)img;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(const void *)(img + eh->e_shoff);
	const char *strs = (const char *)img + sh[eh->e_shstrndx].sh_offset;
	unsigned int i;

	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(strs + sh[i].sh_name, name) && sh[i].sh_offset + sh[i].sh_size <= len) {
			*ret = sh[i];
			return true;
		}
	return false;
}

/* every address of hot_loop looked up: whatever it gives, it ends */
static void lookup_all(const uint8_t *img, size_t len)
{
	struct uelf_src src = { .fd = -1, .mem = img, .size = len };
	struct udwarf_frame fr[UDWARF_FRAMES_MAX];
	struct udwarf *d = NULL;
	uint64_t lo, hi, a;

	hot_loop_range(&lo, &hi);
	if (udwarf_open(&src, BUDGET, &d) < 0)
		return;
	for (a = lo - 64; a < hi + 64; a++) {
		unsigned int n = udwarf_frames(d, a, fr, UDWARF_FRAMES_MAX), k;

		assert_true(n <= UDWARF_FRAMES_MAX);
		for (k = 0; k < n; k++)
			if (fr[k].name)
				assert_true(strlen(fr[k].name) < 1u << 20);
	}
	udwarf_free(d);
}

/* an attacker's DWARF: damaged units, line programs, sizes; a file cut short */
static void test_hostile(void **state)
{
	size_t len = 0, i;
	uint8_t *img = slurp(env_path("INLINE_BIN"), &len), *copy;
	struct uelf_src src = { .fd = -1, .size = len };
	struct udwarf *d = NULL;
	static const char *const secs[] = { ".debug_info", ".debug_line",    ".debug_abbrev",
					    ".debug_str",  ".debug_aranges", ".debug_rnglists" };
	Elf64_Shdr sh;
	unsigned int s, pass;

	(void)state;
	assert_non_null(img);
	copy = malloc(len);
	assert_non_null(copy);
	for (s = 0; s < sizeof(secs) / sizeof(secs[0]); s++) {
		if (!find_sec(img, len, secs[s], &sh))
			continue;
		for (pass = 0; pass < 4; pass++) {
			uint32_t x = 0x9e3779b9u * (s + 1) + pass;

			memcpy(copy, img, len);
			for (i = 0; i < sh.sh_size; i++) {
				x = x * 1103515245u + 12345u;
				/* pass 0: every byte; 1: one in 16; 2: all 0xff; 3: the headers */
				if (pass == 0 || (pass == 1 && !(x >> 28)) || (pass == 3 && i < 64))
					copy[sh.sh_offset + i] = (uint8_t)(x >> 16);
				else if (pass == 2)
					copy[sh.sh_offset + i] = 0xff;
			}
			lookup_all(copy, len);
		}
	}
	/* cut short: a section past the end is refused, nothing read beyond */
	assert_true(find_sec(img, len, ".debug_line", &sh));
	src.mem = img;
	src.size = sh.sh_offset + sh.sh_size / 2;
	assert_int_equal(udwarf_open(&src, BUDGET, &d), -ENOEXEC);
	/* a budget too small for the sections */
	src.size = len;
	assert_int_equal(udwarf_open(&src, 1024, &d), -E2BIG);
	free(copy);
	free(img);
}

/* a compressed section that says it inflates to 1 TiB: refused before libdw inflates it */
static void test_bomb(void **state)
{
	size_t len = 0;
	uint8_t *img = slurp(env_path("INLINE_ZDEBUG"), &len);
	struct uelf_src src = { .fd = -1, .mem = img, .size = len };
	struct udwarf *d = NULL;
	Elf64_Shdr sh;
	Elf64_Chdr ch;

	(void)state;
	assert_non_null(img);
	assert_true(find_sec(img, len, ".debug_info", &sh));
	assert_true(sh.sh_flags & SHF_COMPRESSED);
	memcpy(&ch, img + sh.sh_offset, sizeof(ch));
	ch.ch_size = 1ULL << 40;
	memcpy(img + sh.sh_offset, &ch, sizeof(ch));
	assert_int_equal(udwarf_open(&src, BUDGET, &d), -E2BIG);
	/* another compression type: not read */
	ch.ch_size = 4096;
	ch.ch_type = 77;
	memcpy(img + sh.sh_offset, &ch, sizeof(ch));
	assert_int_equal(udwarf_open(&src, BUDGET, &d), -ENOEXEC);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program),	   cmocka_unit_test(test_debug_file),
		cmocka_unit_test(test_compressed), cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_hostile),	   cmocka_unit_test(test_bomb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
