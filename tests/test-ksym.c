/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-ksym.c - kallsyms loading, lookups, reload and name lookups.
 *
 * The fixture is tests/fixtures/ksym/kallsyms (found through $ST_FIXTURES,
 * or relative to the source tree when run by hand): a hand-written excerpt
 * with aliases, a duplicate static name, data symbols, weak symbols and two
 * modules.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/stack.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "sym/pname.h"

#define FIXTURE_NSYMS 14

static FILE *open_fixture(void)
{
	const char *dir = getenv("ST_FIXTURES");
	char path[4096];

	snprintf(path, sizeof(path), "%s/ksym/kallsyms", dir ? dir : "tests/fixtures");
	return fopen(path, "re");
}

static int setup_fixture(void **state)
{
	struct ksym *ks = ksym_new("/nonexistent/kallsyms");
	FILE *f = open_fixture();
	int r;

	if (!ks || !f) {
		if (f)
			fclose(f);
		ksym_free(ks);
		return -1;
	}
	r = ksym_load(ks, f);
	fclose(f);
	if (r != FIXTURE_NSYMS) {
		ksym_free(ks);
		return -1;
	}
	*state = ks;
	return 0;
}

static int teardown_fixture(void **state)
{
	ksym_free(*state);
	return 0;
}

static FILE *mem(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");

	assert_non_null(f);
	return f;
}

static void expect_sym(struct ksym *ks, uint64_t addr, const char *name, const char *module,
		       uint64_t start, uint64_t size)
{
	struct ksym_hit h;

	assert_int_equal(ksym_lookup(ks, addr, &h), 0);
	assert_string_equal(h.name, name);
	if (module)
		assert_string_equal(h.module, module);
	else
		assert_null(h.module);
	assert_true(h.start == start);
	assert_true(h.size == size);
}

static void test_ksym_load_counts_text_only(void **state)
{
	struct ksym *ks = *state;

	assert_int_equal(ksym_count(ks), FIXTURE_NSYMS);
}

static void test_ksym_lookup_start_middle_end(void **state)
{
	struct ksym *ks = *state;

	expect_sym(ks, 0xffffffff81002100ULL, "schedule", NULL, 0xffffffff81002100ULL, 0xc0);
	expect_sym(ks, 0xffffffff81002148ULL, "schedule", NULL, 0xffffffff81002100ULL, 0xc0);
	expect_sym(ks, 0xffffffff810021bfULL, "schedule", NULL, 0xffffffff81002100ULL, 0xc0);
	expect_sym(ks, 0xffffffff810021c0ULL, "schedule_timeout", NULL, 0xffffffff810021c0ULL,
		   0x30);
	expect_sym(ks, 0xffffffff810021f4ULL, "weak_func", NULL, 0xffffffff810021f0ULL, 0x10);
}

static void test_ksym_lookup_skips_data(void **state)
{
	struct ksym *ks = *state;
	struct ksym_hit h;

	/* the D symbol in between is not a boundary: cleanup runs to schedule */
	expect_sym(ks, 0xffffffff81002000ULL, "cleanup", NULL, 0xffffffff81001800ULL, 0x900);
	/* d data_sym is beyond the bounded size of _etext */
	assert_int_equal(ksym_lookup(ks, 0xffffffff82000000ULL, &h), -ENOENT);
}

static void test_ksym_lookup_alias_first_in_file(void **state)
{
	struct ksym *ks = *state;

	expect_sym(ks, 0xffffffff81000000ULL, "_text", NULL, 0xffffffff81000000ULL, 0x70);
	expect_sym(ks, 0xffffffff81000010ULL, "_text", NULL, 0xffffffff81000000ULL, 0x70);
}

static void test_ksym_lookup_modules(void **state)
{
	struct ksym *ks = *state;
	struct ksym_hit h;

	expect_sym(ks, 0xffffffffc0a001a2ULL, "nvme_queue_rq", "nvme", 0xffffffffc0a00000ULL,
		   0x7f0);
	/* last symbol of a module: bounded size, not the distance to ext4 */
	expect_sym(ks, 0xffffffffc0a007f0ULL, "nvme_poll", "nvme", 0xffffffffc0a007f0ULL, 4096);
	assert_int_equal(ksym_lookup(ks, 0xffffffffc0a017f0ULL, &h), -ENOENT);
	expect_sym(ks, 0xffffffffc0b00150ULL, "ext4_file_write_iter", "ext4", 0xffffffffc0b00000ULL,
		   0x200);
	expect_sym(ks, 0xffffffffc0b00200ULL, "cleanup", "ext4", 0xffffffffc0b00200ULL, 4096);
	/* last core symbol: bounded too */
	expect_sym(ks, 0xffffffff81002200ULL, "_etext", NULL, 0xffffffff81002200ULL, 4096);
}

static void test_ksym_lookup_outside(void **state)
{
	struct ksym *ks = *state;
	struct ksym_hit h = { .name = "untouched" };

	assert_int_equal(ksym_lookup(ks, 0xffffffff80ffffffULL, &h), -ENOENT);
	assert_int_equal(ksym_lookup(ks, 0, &h), -ENOENT);
	assert_int_equal(ksym_lookup(ks, UINT64_MAX, &h), -ENOENT);
	assert_string_equal(h.name, "untouched");
}

static void test_ksym_all_zero_is_eacces(void **state)
{
	struct ksym *ks = ksym_new(NULL);
	FILE *f = mem("ffffffff81000000 T a\nffffffff81000100 T b\n");
	struct ksym_hit h;

	assert_int_equal(ksym_load(ks, f), 2);
	fclose(f);
	f = mem("0000000000000000 T a\n0000000000000000 T b\n"
		"0000000000000000 t m\t[mod]\n0000000000000000 D d\n");
	assert_int_equal(ksym_load(ks, f), -EACCES);
	fclose(f);
	/* the old symbols are kept */
	assert_int_equal(ksym_count(ks), 2);
	assert_int_equal(ksym_lookup(ks, 0xffffffff81000004ULL, &h), 0);
	assert_string_equal(h.name, "a");
	ksym_free(ks);
}

static void test_ksym_empty_and_malformed(void **state)
{
	struct ksym *ks = ksym_new(NULL);
	FILE *f = mem("");
	struct ksym_hit h;

	assert_int_equal(ksym_load(ks, f), 0);
	fclose(f);
	assert_int_equal(ksym_lookup(ks, 0xffffffff81000000ULL, &h), -ENOENT);

	f = mem("garbage\n"
		"ffffffff81000000\n"
		"ffffffff81000000 T\n"
		"zzzz T bad_addr\n"
		"11112222333344445 T too_long\n"
		"ffffffff81000000 T ok\n"
		"ffffffff81000100 T  \n"
		"ffffffff81000200 t no_newline");
	assert_int_equal(ksym_load(ks, f), 2);
	fclose(f);
	expect_sym(ks, 0xffffffff81000150ULL, "ok", NULL, 0xffffffff81000000ULL, 0x200);
	expect_sym(ks, 0xffffffff81000200ULL, "no_newline", NULL, 0xffffffff81000200ULL, 4096);
	ksym_free(ks);
	ksym_free(NULL);
}

/*
 * Return addresses are named as the kernel's %pB names a backtrace's: by
 * the byte before them. Only an address that starts a symbol changes:
 * after a call to a noreturn function that ends its caller, the next
 * function's __pfx_ padding (or first byte) follows (issue 18: __pfx_
 * names in the stacks). A function's first byte after its padding is an
 * interrupted IP, named as it is (issue 27).
 */
static void test_ksym_return_addresses(void **state)
{
	struct ksym *ks = ksym_new(NULL);
	FILE *f = mem("ffffffff81000000 T __pfx_caller\n"
		      "ffffffff81000010 T caller\n"
		      "ffffffff81000040 T __pfx_dies\n"
		      "ffffffff81000050 T dies\n"
		      "ffffffff81000080 T next\n"
		      "ffffffff810000c0 T _etext\n");
	struct ksym_hit h;
	char buf[128];

	(void)state;
	assert_int_equal(ksym_load(ks, f), 6);
	fclose(f);
	/* the end of caller, where __pfx_dies begins */
	assert_int_equal(ksym_lookup(ks, 0xffffffff81000040ULL, &h), 0);
	assert_string_equal(h.name, "__pfx_dies");
	assert_int_equal(ksym_lookup_ret(ks, 0xffffffff81000040ULL, &h), 0);
	assert_string_equal(h.name, "caller");
	assert_true(h.start == 0xffffffff81000010ULL && h.size == 0x30);
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000040ULL);
	assert_string_equal(buf, "caller+0x30/0x30");
	/* the end of dies, where next begins (no padding) */
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000080ULL);
	assert_string_equal(buf, "dies+0x30/0x30");
	fmt_func(buf, sizeof(buf), ks, 0xffffffff81000080ULL, 0);
	assert_string_equal(buf, "dies");
	/* anywhere else: the address's own symbol and offset, as before */
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000021ULL);
	assert_string_equal(buf, "caller+0x11/0x30");
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000051ULL);
	assert_string_equal(buf, "dies+0x1/0x30");
	/* the first byte of the table: nothing before it */
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000000ULL);
	assert_string_equal(buf, "__pfx_caller+0x0/0x10");
	/* stacks grouped by function hold function starts: named as they are */
	ksym_set_funcs(ks, true);
	assert_true(ksym_funcs(ks));
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000050ULL);
	assert_string_equal(buf, "dies+0x0/0x30");
	assert_int_equal(ksym_lookup_ret(ks, 0xffffffff81000040ULL, &h),
			 0); /* grouping asks this */
	assert_string_equal(h.name, "caller");
	ksym_set_funcs(ks, false);
	/*
	 * a function's first byte after its padding: no call is in padding, so
	 * it is an interrupted IP (a timer tick at function entry), named as
	 * it is, not as the kernel's %pB would (__pfx_dies+0x10/0x10; issue 27)
	 */
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000050ULL);
	assert_string_equal(buf, "dies+0x0/0x30");
	fmt_frame(buf, sizeof(buf), ks, 0xffffffff81000010ULL);
	assert_string_equal(buf, "caller+0x0/0x30");
	ksym_free(ks);
}

static void test_ksym_nul_in_name(void **state)
{
	static const char t[] = "ffffffff81000000 t \0\0evil\n"
				"ffffffff81000100 t good\0tail\n"
				"ffffffff81000200 t other\t[m\0od]\n";
	FILE *f = fmemopen((void *)t, sizeof(t) - 1, "r");
	struct ksym *ks = ksym_new(NULL);
	uint64_t a;

	assert_non_null(f);
	/* a NUL ends a field: no empty names, no names hiding their tail */
	assert_int_equal(ksym_load(ks, f), 2);
	fclose(f);
	expect_sym(ks, 0xffffffff81000100ULL, "good", NULL, 0xffffffff81000100ULL, 0x100);
	expect_sym(ks, 0xffffffff81000200ULL, "other", NULL, 0xffffffff81000200ULL, 4096);
	assert_int_equal(ksym_addr_of(ks, "good", 4, NULL, 0, &a), 0);
	ksym_free(ks);
}

static void test_ksym_load_missing_file(void **state)
{
	struct ksym *ks = ksym_new("/nonexistent/kallsyms");

	assert_non_null(ks);
	assert_int_equal(ksym_load(ks, NULL), -ENOENT);
	assert_int_equal(ksym_count(ks), 0);
	ksym_free(ks);
}

/* no hang, no unbounded read: a device, a FIFO nobody writes, an endless line */
static void test_ksym_load_bounded(void **state)
{
	char dir[] = "/tmp/stacktop-ksym.XXXXXX", path[64];
	struct ksym *ks;
	int fd;

	(void)state;
	ks = ksym_new("/dev/zero");
	assert_non_null(ks);
	assert_int_equal(ksym_load(ks, NULL), -EINVAL);
	assert_string_equal(ksym_strerror(-EINVAL), "not a regular file");
	ksym_free(ks);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	ks = ksym_new(path);
	assert_non_null(ks);
	assert_int_equal(ksym_load(ks, NULL), -EINVAL); /* at once: no writer needed */
	ksym_free(ks);
	unlink(path);

	/* 64 MiB of NULs in one "line": refused after the first kilobyte */
	snprintf(path, sizeof(path), "%s/sparse", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64 << 20), 0);
	close(fd);
	ks = ksym_new(path);
	assert_non_null(ks);
	assert_int_equal(ksym_load(ks, NULL), -EBADMSG);
	assert_int_equal(ksym_count(ks), 0);
	ksym_free(ks);
	unlink(path);
	rmdir(dir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_ksym_refresh_reloads_after_miss(void **state)
{
	char path[] = "/tmp/test-ksym-XXXXXX";
	int fd = mkstemp(path);
	struct ksym *ks;
	struct ksym_hit h;

	assert_true(fd >= 0);
	close(fd);
	write_file(path, "ffffffff81000000 T core_fn\n");
	ks = ksym_new(path);
	assert_non_null(ks);
	assert_int_equal(ksym_load(ks, NULL), 1);

	/* nothing missed: nothing to do */
	assert_int_equal(ksym_refresh(ks), 0);

	/* a module gets loaded: its address misses and marks the table stale */
	write_file(path, "ffffffff81000000 T core_fn\n"
			 "ffffffffc0a00000 t new_fn\t[newmod]\n");
	assert_int_equal(ksym_lookup(ks, 0xffffffffc0a00010ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 1);
	assert_int_equal(ksym_count(ks), 2);
	assert_int_equal(ksym_lookup(ks, 0xffffffffc0a00010ULL, &h), 0);
	assert_string_equal(h.name, "new_fn");
	assert_string_equal(h.module, "newmod");
	assert_int_equal(ksym_refresh(ks), 0);

	/* an address that still misses after a reload stops causing reloads */
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000000ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 1);
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000000ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 0);

	/* a failed reload keeps the old symbols */
	unlink(path);
	assert_int_equal(ksym_lookup(ks, 0xffffffffb0000000ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), -ENOENT);
	assert_int_equal(ksym_count(ks), 2);
	assert_int_equal(ksym_lookup(ks, 0xffffffff81000000ULL, &h), 0);
	assert_string_equal(h.name, "core_fn");
	ksym_free(ks);
}

/*
 * Code kallsyms does not name (a BPF program with bpf_jit_kallsyms off, a
 * trampoline), sampled at a new address each time: one reload for its
 * range, not one a refresh; two such ranges do not take turns reloading;
 * a symbol that comes in a remembered range (the file changed) is named.
 */
static void test_ksym_unnamed_range_one_reload(void **state)
{
	char path[] = "/tmp/test-ksym-XXXXXX";
	int fd = mkstemp(path);
	struct ksym *ks;
	struct ksym_hit h;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_file(path, "ffffffff81000000 T core_fn\n"
			 "ffffffffc0000000 t mod_fn\t[mod]\n");
	ks = ksym_new(path);
	assert_non_null(ks);
	assert_int_equal(ksym_load(ks, NULL), 2);

	/* the first miss in a range: a reload, then the range is known */
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000000ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 1);
	assert_int_equal(ksym_reloads(ks), 1);
	/* other addresses of it: no reload */
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000100ULL, &h), -ENOENT);
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0001234ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 0);
	/* another range: one reload; then neither reloads, in turns or together */
	assert_int_equal(ksym_lookup(ks, 0xffffffffc1000000ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 1);
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000008ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 0);
	assert_int_equal(ksym_lookup(ks, 0xffffffffc1000040ULL, &h), -ENOENT);
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000010ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 0);
	assert_int_equal(ksym_reloads(ks), 2);
	/* a named address near them marks nothing */
	assert_int_equal(ksym_lookup(ks, 0xffffffffc0000010ULL, &h), 0);
	assert_int_equal(ksym_refresh(ks), 0);

	/* a module loaded in the first range: the next miss there reloads and names it */
	write_file(path, "ffffffff81000000 T core_fn\n"
			 "ffffffffa0000000 t new_fn\t[newmod]\n"
			 "ffffffffc0000000 t mod_fn\t[mod]\n");
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000020ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 1);
	assert_int_equal(ksym_lookup(ks, 0xffffffffa0000020ULL, &h), 0);
	assert_string_equal(h.name, "new_fn");
	assert_int_equal(ksym_reloads(ks), 3);
	/* the other range is still known: no reload */
	assert_int_equal(ksym_lookup(ks, 0xffffffffc1000080ULL, &h), -ENOENT);
	assert_int_equal(ksym_refresh(ks), 0);
	unlink(path);
	ksym_free(ks);
}

static void test_ksym_addr_of(void **state)
{
	struct ksym *ks = *state;
	static const char frame[] = "schedule_timeout+0x1c/0x30 [nvme]";
	uint64_t a = 0;

	assert_int_equal(ksym_addr_of(ks, "schedule", 8, NULL, 0, &a), 0);
	assert_true(a == 0xffffffff81002100ULL);
	/* counted strings: a prefix of a longer name inside a frame line */
	assert_int_equal(ksym_addr_of(ks, frame, 16, NULL, 0, &a), 0);
	assert_true(a == 0xffffffff810021c0ULL);
	assert_int_equal(ksym_addr_of(ks, frame, 8, NULL, 0, &a), 0);
	assert_true(a == 0xffffffff81002100ULL);
	assert_int_equal(ksym_addr_of(ks, "nvme_poll", 9, frame + 28, 4, &a), 0);
	assert_true(a == 0xffffffffc0a007f0ULL);
	/* aliases are all found by name */
	assert_int_equal(ksym_addr_of(ks, "startup_64", 10, NULL, 0, &a), 0);
	assert_true(a == 0xffffffff81000000ULL);
	/* duplicate static names: lowest address of that object */
	assert_int_equal(ksym_addr_of(ks, "cleanup", 7, NULL, 0, &a), 0);
	assert_true(a == 0xffffffff81001000ULL);
	assert_int_equal(ksym_addr_of(ks, "cleanup", 7, "ext4", 4, &a), 0);
	assert_true(a == 0xffffffffc0b00200ULL);

	a = 1;
	assert_int_equal(ksym_addr_of(ks, "nvme_poll", 9, NULL, 0, &a), -ENOENT);
	assert_int_equal(ksym_addr_of(ks, "nvme_poll", 9, "ext4", 4, &a), -ENOENT);
	assert_int_equal(ksym_addr_of(ks, "nvme_poll", 9, "nvm", 3, &a), -ENOENT);
	assert_int_equal(ksym_addr_of(ks, "schedul", 7, NULL, 0, &a), -ENOENT);
	assert_int_equal(ksym_addr_of(ks, "schedule_x", 10, NULL, 0, &a), -ENOENT);
	assert_int_equal(ksym_addr_of(ks, "some_data", 9, NULL, 0, &a), -ENOENT);
	assert_int_equal(ksym_addr_of(ks, "", 0, NULL, 0, &a), -ENOENT);
	assert_int_equal(ksym_addr_of(ks, "zzz", 3, NULL, 0, &a), -ENOENT);
	assert_true(a == 1);
	/* a miss by name does not mark the table stale */
	assert_int_equal(ksym_refresh(ks), 0);
}

static void test_ksym_addr_of_after_reload(void **state)
{
	struct ksym *ks = ksym_new(NULL);
	FILE *f = mem("ffffffff81000000 T alpha\n");
	uint64_t a;

	assert_int_equal(ksym_load(ks, f), 1);
	fclose(f);
	assert_int_equal(ksym_addr_of(ks, "alpha", 5, NULL, 0, &a), 0);
	f = mem("ffffffff81000000 T beta\nffffffff81000100 T alpha\n");
	assert_int_equal(ksym_load(ks, f), 2);
	fclose(f);
	assert_int_equal(ksym_addr_of(ks, "alpha", 5, NULL, 0, &a), 0);
	assert_true(a == 0xffffffff81000100ULL);
	assert_int_equal(ksym_addr_of(ks, "beta", 4, NULL, 0, &a), 0);
	assert_true(a == 0xffffffff81000000ULL);
	ksym_free(ks);
}

/* a command's frame: one word per name, named by it, sanitized when printed */
static void test_pname_commands(void **state)
{
	uint64_t a = pname_comm("make"), b = pname_comm("cc1"), esc = pname_comm("\033[2Jx");
	char buf[128];

	(void)state;
	assert_true(STACK_IP_IS_COMM(a) && STACK_IP_IS_COMM(b) && a != b);
	assert_int_equal(pname_comm("make"), a);
	assert_string_equal(pname_get(b), "cc1");
	assert_null(pname_get(STACK_IP_USER_MODE));
	assert_null(pname_get(STACK_IP_COMM(0xfffff)));
	fmt_frame(buf, sizeof(buf), NULL, a);
	assert_string_equal(buf, "make");
	fmt_frame(buf, sizeof(buf), NULL, STACK_IP_COMM(0xfffff));
	assert_string_equal(buf, "[command ?]");
	fmt_frame(buf, sizeof(buf), NULL, esc);
	assert_null(strchr(buf, '\033'));
	assert_int_equal(pname_comm(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pname_commands),
		cmocka_unit_test_setup_teardown(test_ksym_load_counts_text_only, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_ksym_lookup_start_middle_end, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_ksym_lookup_skips_data, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_ksym_lookup_alias_first_in_file, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_ksym_lookup_modules, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_ksym_lookup_outside, setup_fixture,
						teardown_fixture),
		cmocka_unit_test_setup_teardown(test_ksym_addr_of, setup_fixture, teardown_fixture),
		cmocka_unit_test(test_ksym_all_zero_is_eacces),
		cmocka_unit_test(test_ksym_empty_and_malformed),
		cmocka_unit_test(test_ksym_nul_in_name),
		cmocka_unit_test(test_ksym_load_missing_file),
		cmocka_unit_test(test_ksym_load_bounded),
		cmocka_unit_test(test_ksym_return_addresses),
		cmocka_unit_test(test_ksym_refresh_reloads_after_miss),
		cmocka_unit_test(test_ksym_unnamed_range_one_reload),
		cmocka_unit_test(test_ksym_addr_of_after_reload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
