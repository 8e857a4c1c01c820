/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-stackmap.c - stack_map_bin, stack_map and stack_map_stat parsers.
 *
 * Binary inputs are inline byte arrays with one comment per field, written
 * in both byte orders with the LE32/BE32/LE64/BE64 macros so that the tests
 * do not depend on the host's byte order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ingest/ingest.h"
#include "source/mapsnap.h"
#include "session/session.h"
#include "core/stack_table.h"
#include "kernel/stackmap.h"
#include "kernel/stackmap_health.h"
#include "kernel/tfs.h"

#define LE32(x)                                                                                    \
	(uint8_t)((x)&0xff), (uint8_t)(((x) >> 8) & 0xff), (uint8_t)(((x) >> 16) & 0xff),          \
		(uint8_t)(((x) >> 24) & 0xff)
#define BE32(x)                                                                                    \
	(uint8_t)(((x) >> 24) & 0xff), (uint8_t)(((x) >> 16) & 0xff),                              \
		(uint8_t)(((x) >> 8) & 0xff), (uint8_t)((x)&0xff)
#define LE64(x) LE32((uint64_t)(x)&0xffffffffu), LE32((uint64_t)(x) >> 32)
#define BE64(x) BE32((uint64_t)(x) >> 32), BE32((uint64_t)(x)&0xffffffffu)

#define IP_A 0xffffffff81234567ULL
#define IP_B 0xffffffff81000010ULL
#define IP_C 0xffffffffc0a01234ULL

/* What the visitor saw, flattened. */
struct seen {
	unsigned int nrec;
	uint32_t id[8];
	uint32_t ref[8];
	uint32_t nr[8];
	uint64_t ips[8][4];
	int stop_after; /* return 99 after this many records, 0 = never */
};

static int bin_visit(void *ctx, uint32_t id, uint32_t ref, const uint64_t *ips, uint32_t nr)
{
	struct seen *s = ctx;
	unsigned int i = s->nrec;

	if (i < 8) {
		s->id[i] = id;
		s->ref[i] = ref;
		s->nr[i] = nr;
		for (uint32_t k = 0; k < nr && k < 4; k++)
			s->ips[i][k] = ips[k];
	}
	s->nrec++;
	if (s->stop_after && (int)s->nrec >= s->stop_after)
		return 99;
	return 0;
}

/* v4 little endian: two records. */
static const uint8_t bin_v4_le[] = {
	LE32(0x46534D42u), /* magic 'FSMB' (v4) */
	LE32(1),	   /* version */
	LE32(2),	   /* nr_stacks */
	LE32(0),	   /* reserved */
	/* record 0 */
	LE32(42),   /* stack_id */
	LE32(2),    /* nr */
	LE32(1337), /* ref_count */
	LE32(0),    /* reserved */
	LE64(IP_A), /* ips[0] */
	LE64(IP_B), /* ips[1] */
	/* record 1 */
	LE32(4025), /* stack_id */
	LE32(1),    /* nr */
	LE32(29),   /* ref_count */
	LE32(0),    /* reserved */
	LE64(IP_C), /* ips[0] */
};

/* The same snapshot from a big-endian kernel. */
static const uint8_t bin_v4_be[] = {
	BE32(0x46534D42u), /* magic: bytes "FSMB" */
	BE32(1),	   /* version */
	BE32(2),	   /* nr_stacks */
	BE32(0),	   /* reserved */
	BE32(42),	   BE32(2), BE32(1337), BE32(0), BE64(IP_A), BE64(IP_B),
	BE32(4025),	   BE32(1), BE32(29),	BE32(0), BE64(IP_C),
};

/* v1-v3: old magic, version 2. */
static const uint8_t bin_old_le[] = {
	LE32(0x464D5342u), /* magic (v1-v3) */
	LE32(2),	   /* version */
	LE32(1),	   /* nr_stacks */
	LE32(0),	   /* reserved */
	LE32(7),	   LE32(1), LE32(3), LE32(0), LE64(IP_A),
};

static const uint8_t bin_old_be[] = {
	BE32(0x464D5342u), /* magic (v1-v3) */
	BE32(2),	   /* version */
	BE32(1),	   /* nr_stacks */
	BE32(0),	   /* reserved */
	BE32(7),	   BE32(1), BE32(3), BE32(0), BE64(IP_A),
};

static void check_two_records(const struct seen *s)
{
	assert_int_equal(s->nrec, 2);
	assert_int_equal(s->id[0], 42);
	assert_int_equal(s->ref[0], 1337);
	assert_int_equal(s->nr[0], 2);
	assert_true(s->ips[0][0] == IP_A);
	assert_true(s->ips[0][1] == IP_B);
	assert_int_equal(s->id[1], 4025);
	assert_int_equal(s->ref[1], 29);
	assert_int_equal(s->nr[1], 1);
	assert_true(s->ips[1][0] == IP_C);
}

static bool host_is_le(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

static void test_stackmap_bin_v4_le(void **state)
{
	struct stackmap_bin_info info;
	struct seen s = { 0 };

	assert_int_equal(stackmap_bin_parse(bin_v4_le, sizeof(bin_v4_le), bin_visit, &s, &info), 0);
	check_two_records(&s);
	assert_int_equal(info.magic, STACKMAP_BIN_MAGIC);
	assert_int_equal(info.version, 1);
	assert_int_equal(info.nr_stacks, 2);
	assert_int_equal(info.parsed, 2);
	assert_false(info.truncated);
	assert_int_equal(info.swapped, !host_is_le());
}

static void test_stackmap_bin_v4_be(void **state)
{
	struct stackmap_bin_info info;
	struct seen s = { 0 };

	assert_int_equal(stackmap_bin_parse(bin_v4_be, sizeof(bin_v4_be), bin_visit, &s, &info), 0);
	check_two_records(&s);
	assert_int_equal(info.magic, STACKMAP_BIN_MAGIC);
	assert_int_equal(info.swapped, host_is_le());
	assert_false(info.truncated);
}

static void test_stackmap_bin_old_magic_both_orders(void **state)
{
	const uint8_t *bufs[] = { bin_old_le, bin_old_be };
	const size_t lens[] = { sizeof(bin_old_le), sizeof(bin_old_be) };

	for (int i = 0; i < 2; i++) {
		struct stackmap_bin_info info;
		struct seen s = { 0 };

		assert_int_equal(stackmap_bin_parse(bufs[i], lens[i], bin_visit, &s, &info), 0);
		assert_int_equal(s.nrec, 1);
		assert_int_equal(s.id[0], 7);
		assert_int_equal(s.ref[0], 3);
		assert_true(s.ips[0][0] == IP_A);
		assert_int_equal(info.magic, STACKMAP_BIN_MAGIC_OLD);
		assert_int_equal(info.version, 2);
		assert_false(info.truncated);
	}
}

static void test_stackmap_bin_unaligned_buffer(void **state)
{
	uint8_t *raw = malloc(sizeof(bin_v4_le) + 1);
	struct seen s = { 0 };

	assert_non_null(raw);
	memcpy(raw + 1, bin_v4_le, sizeof(bin_v4_le));
	assert_int_equal(stackmap_bin_parse(raw + 1, sizeof(bin_v4_le), bin_visit, &s, NULL), 0);
	check_two_records(&s);
	free(raw);
}

static void test_stackmap_bin_truncated_header(void **state)
{
	struct stackmap_bin_info info = { .parsed = 77 };
	struct seen s = { 0 };

	assert_int_equal(stackmap_bin_parse(bin_v4_le, 15, bin_visit, &s, &info), -EBADMSG);
	assert_int_equal(stackmap_bin_parse(bin_v4_le, 0, bin_visit, &s, &info), -EBADMSG);
	assert_int_equal(s.nrec, 0);
	assert_int_equal(info.parsed, 77); /* untouched */
}

static void test_stackmap_bin_truncated_record(void **state)
{
	struct stackmap_bin_info info;
	struct seen s = { 0 };
	/* cut inside record 1's ips, inside its header, and right after record 0 */
	const size_t cuts[] = { sizeof(bin_v4_le) - 1, 16 + 32 + 8, 16 + 32 };

	for (size_t i = 0; i < 3; i++) {
		memset(&s, 0, sizeof(s));
		assert_int_equal(stackmap_bin_parse(bin_v4_le, cuts[i], bin_visit, &s, &info), 0);
		assert_int_equal(s.nrec, 1);
		assert_int_equal(s.id[0], 42);
		assert_int_equal(info.parsed, 1);
		assert_int_equal(info.nr_stacks, 2);
		assert_true(info.truncated);
	}

	/* header only: nothing delivered, truncated */
	memset(&s, 0, sizeof(s));
	assert_int_equal(stackmap_bin_parse(bin_v4_le, 16, bin_visit, &s, &info), 0);
	assert_int_equal(s.nrec, 0);
	assert_true(info.truncated);
}

static void test_stackmap_bin_nr_stacks_beyond_data(void **state)
{
	uint8_t buf[sizeof(bin_v4_le)];
	struct stackmap_bin_info info;
	struct seen s = { 0 };

	memcpy(buf, bin_v4_le, sizeof(buf));
	buf[8] = 200; /* nr_stacks = 200 (LE) */
	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, &s, &info), 0);
	check_two_records(&s);
	assert_int_equal(info.nr_stacks, 200);
	assert_int_equal(info.parsed, 2);
	assert_true(info.truncated);
}

static void test_stackmap_bin_fewer_stacks_than_data(void **state)
{
	uint8_t buf[sizeof(bin_v4_le)];
	struct stackmap_bin_info info;
	struct seen s = { 0 };

	memcpy(buf, bin_v4_le, sizeof(buf));
	buf[8] = 1; /* nr_stacks = 1: the rest is ignored */
	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, &s, &info), 0);
	assert_int_equal(s.nrec, 1);
	assert_false(info.truncated);
}

static void test_stackmap_bin_corrupt_nr(void **state)
{
	static const uint8_t buf[] = {
		LE32(0x46534D42u), LE32(1),	      LE32(2), LE32(0),	   LE32(1),
		LE32(1),	   LE32(1),	      LE32(0), LE64(IP_A), /* good record */
		LE32(2),	   LE32(0xfffffff0u), LE32(1), LE32(0),	   /* nr absurd */
		LE64(IP_B),
	};
	struct stackmap_bin_info info;
	struct seen s = { 0 };

	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, &s, &info), -EBADMSG);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(info.parsed, 1);
}

static void test_stackmap_bin_max_nr_accepted(void **state)
{
	/* nr = 1024 is still accepted (limit is STACKMAP_MAX_DEPTH * 16) */
	size_t len = 32 + 1024 * 8;
	uint8_t *buf = calloc(1, len);
	const uint8_t hdr[] = { LE32(0x46534D42u), LE32(1),    LE32(1), LE32(0),
				LE32(5),	   LE32(1024), LE32(1), LE32(0) };
	struct seen s = { 0 };

	assert_non_null(buf);
	memcpy(buf, hdr, sizeof(hdr));
	assert_int_equal(stackmap_bin_parse(buf, len, bin_visit, &s, NULL), 0);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(s.nr[0], 1024);
	buf[20] = 0x01; /* nr = 1025 */
	buf[21] = 0x04;
	assert_int_equal(stackmap_bin_parse(buf, len, bin_visit, &s, NULL), -EBADMSG);
	free(buf);
}

static void test_stackmap_bin_bad_magic(void **state)
{
	uint8_t buf[sizeof(bin_v4_le)];
	struct stackmap_bin_info info = { .parsed = 77 };

	memcpy(buf, bin_v4_le, sizeof(buf));
	buf[0] = 0x43;
	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, NULL, &info), -EPROTO);
	assert_int_equal(info.parsed, 77);
	memset(buf, 0, 16);
	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, NULL, NULL), -EPROTO);
}

static void test_stackmap_bin_bad_version(void **state)
{
	uint8_t buf[sizeof(bin_v4_le)];
	uint8_t old[sizeof(bin_old_le)];
	struct seen s = { 0 };

	memcpy(buf, bin_v4_le, sizeof(buf));
	buf[4] = 2; /* v4 magic with version 2 */
	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, &s, NULL), -EPROTO);
	buf[4] = 0;
	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, &s, NULL), -EPROTO);

	memcpy(old, bin_old_le, sizeof(old));
	old[4] = 3; /* old magic with version 3 */
	assert_int_equal(stackmap_bin_parse(old, sizeof(old), bin_visit, &s, NULL), -EPROTO);
	old[4] = 1; /* the v1-era tool accepted version 1 with the old magic */
	assert_int_equal(stackmap_bin_parse(old, sizeof(old), bin_visit, &s, NULL), 0);
	assert_int_equal(s.nrec, 1);
}

static void test_stackmap_bin_trampoline(void **state)
{
	static const uint8_t buf[] = {
		LE32(0x46534D42u), LE32(1),    LE32(1), LE32(0), LE32(9), /* stack_id */
		LE32(3),						  /* nr */
		LE32(1),						  /* ref_count */
		LE32(0),						  /* reserved */
		LE64(0x7fffffffu), /* FTRACE_TRAMPOLINE_MARKER, verbatim */
		LE64(IP_A),	   LE64(IP_B),
	};
	struct seen s = { 0 };

	assert_int_equal(stackmap_bin_parse(buf, sizeof(buf), bin_visit, &s, NULL), 0);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(s.nr[0], 3);
	assert_true(s.ips[0][0] == STACKMAP_TRAMPOLINE);
	assert_true(s.ips[0][1] == IP_A);
}

static void test_stackmap_bin_empty_and_zero_depth(void **state)
{
	static const uint8_t empty[] = { LE32(0x46534D42u), LE32(1), LE32(0), LE32(0) };
	static const uint8_t zero[] = { LE32(0x46534D42u), LE32(1), LE32(1), LE32(0),
					LE32(3),	   LE32(0), LE32(5), LE32(0) };
	struct stackmap_bin_info info;
	struct seen s = { 0 };

	assert_int_equal(stackmap_bin_parse(empty, sizeof(empty), bin_visit, &s, &info), 0);
	assert_int_equal(s.nrec, 0);
	assert_false(info.truncated);
	assert_int_equal(stackmap_bin_parse(zero, sizeof(zero), bin_visit, &s, &info), 0);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(s.nr[0], 0);
}

static void test_stackmap_bin_visitor_stops(void **state)
{
	struct stackmap_bin_info info;
	struct seen s = { .stop_after = 1 };

	assert_int_equal(stackmap_bin_parse(bin_v4_le, sizeof(bin_v4_le), bin_visit, &s, &info),
			 99);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(info.parsed, 1);
	/* NULL visitor: just count */
	assert_int_equal(stackmap_bin_parse(bin_v4_le, sizeof(bin_v4_le), NULL, NULL, &info), 0);
	assert_int_equal(info.parsed, 2);
}

/* --- text ------------------------------------------------------------- */

struct tseen {
	unsigned int nrec;
	uint32_t id[8], ref[8], depth[8], nframes[8];
	struct {
		char sym[64];
		char mod[32];
		uint64_t off;
		uint64_t addr;
		bool trampoline;
	} f[8][4];
	int stop_after;
};

static int text_visit(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
		      const struct stackmap_frame *frames, uint32_t nframes)
{
	struct tseen *s = ctx;
	unsigned int i = s->nrec;

	if (i < 8) {
		s->id[i] = id;
		s->ref[i] = ref;
		s->depth[i] = depth;
		s->nframes[i] = nframes;
		for (uint32_t k = 0; k < nframes && k < 4; k++) {
			const struct stackmap_frame *fr = &frames[k];

			if (fr->sym)
				snprintf(s->f[i][k].sym, sizeof(s->f[i][k].sym), "%.*s",
					 (int)fr->sym_len, fr->sym);
			if (fr->mod)
				snprintf(s->f[i][k].mod, sizeof(s->f[i][k].mod), "%.*s",
					 (int)fr->mod_len, fr->mod);
			s->f[i][k].off = fr->off;
			s->f[i][k].addr = fr->addr;
			s->f[i][k].trampoline = fr->trampoline;
		}
	}
	s->nrec++;
	if (s->stop_after && (int)s->nrec >= s->stop_after)
		return 99;
	return 0;
}

static int text_parse(const char *t, struct tseen *s)
{
	return stackmap_text_parse(t, strlen(t), text_visit, s);
}

static void test_stackmap_text_doc_example(void **state)
{
	static const char t[] = "stack_id 42 [ref 1337, depth 8]\n"
				"  [0] schedule+0x48/0xc0\n"
				"  [1] schedule_timeout+0x1c/0x30\n"
				"\n"
				"stack_id 4025 [ref 29, depth 1]\n"
				"  [0] schedule+0x2e/0x3f\n"
				"\n";
	struct tseen s = { 0 };

	assert_int_equal(text_parse(t, &s), 2);
	assert_int_equal(s.id[0], 42);
	assert_int_equal(s.ref[0], 1337);
	assert_int_equal(s.depth[0], 8);
	assert_int_equal(s.nframes[0], 2);
	assert_string_equal(s.f[0][0].sym, "schedule");
	assert_true(s.f[0][0].off == 0x48);
	assert_string_equal(s.f[0][0].mod, "");
	assert_string_equal(s.f[0][1].sym, "schedule_timeout");
	assert_true(s.f[0][1].off == 0x1c);
	assert_int_equal(s.id[1], 4025);
	assert_int_equal(s.nframes[1], 1);
	assert_true(s.f[1][0].off == 0x2e);
}

static void test_stackmap_text_module_frames(void **state)
{
	static const char t[] = "stack_id 1 [ref 2, depth 3]\n"
				"  [0] nvme_queue_rq+0x1a2/0x7f0 [nvme]\n"
				"  [1] ext4_file_write_iter.cold+0x5/0x10 [ext4]\n"
				"  [2] __x64_sys_write+0x19/0x20\n"
				"\n";
	struct tseen s = { 0 };

	assert_int_equal(text_parse(t, &s), 1);
	assert_int_equal(s.nframes[0], 3);
	assert_string_equal(s.f[0][0].sym, "nvme_queue_rq");
	assert_string_equal(s.f[0][0].mod, "nvme");
	assert_true(s.f[0][0].off == 0x1a2);
	assert_string_equal(s.f[0][1].sym, "ext4_file_write_iter.cold");
	assert_string_equal(s.f[0][1].mod, "ext4");
	assert_string_equal(s.f[0][2].sym, "__x64_sys_write");
	assert_string_equal(s.f[0][2].mod, "");
}

static void test_stackmap_text_bare_address(void **state)
{
	static const char t[] = "stack_id 5 [ref 1, depth 2]\n"
				"  [0] 0xffffffffc0123456\n"
				"  [1] do_syscall_64+0x5d/0x90\n";
	struct tseen s = { 0 };

	assert_int_equal(text_parse(t, &s), 1);
	assert_string_equal(s.f[0][0].sym, "");
	assert_true(s.f[0][0].addr == 0xffffffffc0123456ULL);
	assert_false(s.f[0][0].trampoline);
	assert_string_equal(s.f[0][1].sym, "do_syscall_64");
}

static void test_stackmap_text_trampoline(void **state)
{
	static const char t[] = "stack_id 4025 [ref 29, depth 2]\n"
				"  [0] [FTRACE TRAMPOLINE]\n"
				"  [1] schedule+0x2e/0x3f\n"
				"\n";
	struct tseen s = { 0 };

	assert_int_equal(text_parse(t, &s), 1);
	assert_true(s.f[0][0].trampoline);
	assert_true(s.f[0][0].addr == STACKMAP_TRAMPOLINE);
	assert_string_equal(s.f[0][0].sym, "");
	assert_string_equal(s.f[0][1].sym, "schedule");
}

static void test_stackmap_text_eof_mid_record(void **state)
{
	static const char t[] = "stack_id 1 [ref 1, depth 1]\n"
				"  [0] a+0x1/0x2\n"
				"\n"
				"stack_id 2 [ref 7, depth 5]\n"
				"  [0] b+0x1/0x2\n"
				"  [1] c+0x3/0x4"; /* no final newline */
	struct tseen s = { 0 };

	assert_int_equal(text_parse(t, &s), 2);
	assert_int_equal(s.id[1], 2);
	assert_int_equal(s.depth[1], 5);
	assert_int_equal(s.nframes[1], 2);
	assert_string_equal(s.f[1][1].sym, "c");
	assert_true(s.f[1][1].off == 3);

	/* cut inside the last frame line: the partial line is dropped */
	memset(&s, 0, sizeof(s));
	assert_int_equal(stackmap_text_parse(t, strlen(t) - 6, text_visit, &s), 2);
	assert_int_equal(s.nframes[1], 1);
}

static void test_stackmap_text_no_blank_between(void **state)
{
	static const char t[] = "stack_id 1 [ref 1, depth 1]\n"
				"  [0] a+0x1/0x2\n"
				"stack_id 2 [ref 2, depth 1]\n"
				"  [0] b+0x1/0x2\n\n\n";
	struct tseen s = { 0 };

	assert_int_equal(text_parse(t, &s), 2);
	assert_int_equal(s.nframes[0], 1);
	assert_int_equal(s.nframes[1], 1);
}

static void test_stackmap_text_garbage_line(void **state)
{
	static const char *bad[] = {
		"stack_id 1 [ref 1, depth 1]\n  [0] a+0x1/0x2\nhello world\n",
		"  [0] a+0x1/0x2\n", /* frame outside a record */
		"stack_id x [ref 1, depth 1]\n",
		"stack_id 1 [ref 1, depth 1] trailing\n",
		"stack_id 99999999999 [ref 1, depth 1]\n",
		"stack_id 1 [ref 1, depth 1]\n  [0] two words\n",
		"stack_id 1 [ref 1, depth 1]\n  [0] a+0xzz/0x2\n",
		"stack_id 1 [ref 1, depth 1]\n  [0] \n",
		"stack_id 1 [ref 1, depth 1]\n  [0] a+0x1/0x2 [mod] x\n",
	};
	struct tseen s = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(text_parse(bad[i], &s), -EBADMSG);
}

static void test_stackmap_text_empty_and_stop(void **state)
{
	static const char t[] = "stack_id 1 [ref 1, depth 0]\n\nstack_id 2 [ref 1, depth 0]\n\n";
	struct tseen s = { .stop_after = 1 };

	assert_int_equal(stackmap_text_parse("", 0, text_visit, &s), 0);
	assert_int_equal(text_parse("\n\n", &s), 0);
	assert_int_equal(text_parse(t, &s), 99);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(s.nframes[0], 0);
}

static void test_stackmap_text_depth_cap(void **state)
{
	char t[4096];
	size_t n = 0;
	struct tseen s = { 0 };

	n += (size_t)snprintf(t + n, sizeof(t) - n, "stack_id 3 [ref 1, depth 70]\n");
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(t + n, sizeof(t) - n, "  [%d] f%d+0x1/0x2\n", i, i);
	assert_int_equal(text_parse(t, &s), 1);
	assert_int_equal(s.depth[0], 70);
	assert_int_equal(s.nframes[0], STACKMAP_MAX_DEPTH);
}

/* --- stat ------------------------------------------------------------- */

static void test_stackmap_stat_v1(void **state)
{
	static const char t[] = "entries:    2500 / 16384\n"
				"table_size: 32768\n"
				"hits:       148923\n"
				"drops:      12\n"
				"hit_rate:   99%\n";
	struct stackmap_stat st;

	assert_int_equal(stackmap_stat_parse(t, &st), 0);
	assert_true(st.entries == 2500);
	assert_true(st.capacity == 16384);
	assert_true(st.table_size == 32768);
	assert_true(st.successes == 148923);
	assert_true(st.drops == 12);
	assert_int_equal(st.success_rate, 99);
	assert_true(st.v1_names);
}

static void test_stackmap_stat_v1_doc_entries(void **state)
{
	struct stackmap_stat st;

	assert_int_equal(stackmap_stat_parse("entries:    2500\nhits: 3\n", &st), 0);
	assert_true(st.entries == 2500);
	assert_true(st.capacity == 0);
	assert_int_equal(st.success_rate, -1);
}

static void test_stackmap_stat_v2(void **state)
{
	static const char t[] = "entries:      2500 / 16384\n"
				"table_size:   32768\n"
				"successes:    148923\n"
				"drops:        0\n"
				"success_rate: 100%\n";
	struct stackmap_stat st;

	assert_int_equal(stackmap_stat_parse(t, &st), 0);
	assert_true(st.entries == 2500);
	assert_true(st.capacity == 16384);
	assert_true(st.table_size == 32768);
	assert_true(st.successes == 148923);
	assert_true(st.drops == 0);
	assert_int_equal(st.success_rate, 100);
	assert_false(st.v1_names);
}

static void test_stackmap_stat_empty_map(void **state)
{
	static const char t[] = "entries:      0 / 16384\n"
				"table_size:   32768\n"
				"successes:    0\n"
				"drops:        0\n";
	struct stackmap_stat st;

	assert_int_equal(stackmap_stat_parse(t, &st), 0);
	assert_true(st.entries == 0);
	assert_int_equal(st.success_rate, -1);
}

static void test_stackmap_stat_full_pool(void **state)
{
	static const char t[] = "entries:      1024 / 1024\ntable_size:   2048\n"
				"successes:    5000\ndrops:        154\nsuccess_rate: 99%\n";
	struct stackmap_stat st;

	assert_int_equal(stackmap_stat_parse(t, &st), 0);
	assert_true(st.entries == 1024 && st.capacity == 1024);
	assert_true(st.drops == 154);
	assert_int_equal(st.success_rate, 99);
}

static void test_stackmap_stat_not_initialized(void **state)
{
	struct stackmap_stat st = { .entries = 5 };

	assert_int_equal(stackmap_stat_parse("stackmap not initialized\n", &st), -ENODATA);
	assert_int_equal(stackmap_stat_parse("stackmap not initialized", &st), -ENODATA);
	assert_true(st.entries == 5); /* untouched */
}

static void test_stackmap_stat_padded_keys(void **state)
{
	static const char t[] = "  entries :2500/16384  \r\n"
				"table_size:\t32768\n"
				"successes:1\n"
				"unknown_key: whatever\n"
				"\n"
				"drops   :  2\n"
				"success_rate:33 %\n";
	struct stackmap_stat st;

	assert_int_equal(stackmap_stat_parse(t, &st), 0);
	assert_true(st.entries == 2500);
	assert_true(st.capacity == 16384);
	assert_true(st.table_size == 32768);
	assert_true(st.successes == 1);
	assert_true(st.drops == 2);
	assert_int_equal(st.success_rate, 33);
}

static void test_stackmap_stat_bad(void **state)
{
	struct stackmap_stat st;

	assert_int_equal(stackmap_stat_parse("", &st), -EBADMSG);
	assert_int_equal(stackmap_stat_parse("foo: 1\n", &st), -EBADMSG);
	assert_int_equal(stackmap_stat_parse("entries: many\n", &st), -EBADMSG);
	assert_int_equal(stackmap_stat_parse("entries: 1 / \n", &st), -EBADMSG);
	assert_int_equal(stackmap_stat_parse("drops: 99999999999999999999999\n", &st), -EBADMSG);
	assert_int_equal(stackmap_stat_parse("success_rate: 5x\n", &st), -EBADMSG);
}

/*
 * Frames of a saved stack_map text whose symbol is not known get an address
 * that gives the text back: distinct text, distinct address (stacks that
 * differ only there are not merged), the same text the same symbol.
 */
struct named_ctx {
	struct stackmap_names *n;
	uint64_t ips[3][4];
	int rec;
};

static int named_visit(void *ctx, uint32_t id, uint32_t ref, uint32_t depth,
		       const struct stackmap_frame *fr, uint32_t n)
{
	struct named_ctx *c = ctx;
	uint32_t i;

	for (i = 0; i < n && i < 4; i++)
		assert_int_equal(stackmap_names_intern(c->n, &fr[i], &c->ips[c->rec][i]), 0);
	c->rec++;
	return 0;
}

static void test_stackmap_names(void **state)
{
	static const char text[] = "stack_id 1 [ref 5, depth 2]\n"
				   "  [0] gone_a+0x1c/0x30 [mod]\n"
				   "  [1] caller+0x8/0x40\n\n"
				   "stack_id 2 [ref 3, depth 2]\n"
				   "  [0] gone_b+0x1c/0x30 [mod]\n"
				   "  [1] caller+0x8/0x40\n\n"
				   "stack_id 3 [ref 1, depth 2]\n"
				   "  [0] gone_a+0x20/0x30 [mod]\n"
				   "  [1] caller+0x8/0x40\n";
	struct named_ctx c = { .n = stackmap_names_new() };
	const char *name, *mod;
	uint64_t start, size;
	struct stackmap_frame bare = { .addr = 0x1234 };

	(void)state;
	assert_non_null(c.n);
	assert_int_equal(stackmap_text_parse(text, strlen(text), named_visit, &c), 3);
	/* distinct symbols never share an address; the caller is one symbol */
	assert_true(c.ips[0][0] != c.ips[1][0]);
	assert_int_equal(c.ips[0][1], c.ips[1][1]);
	assert_int_equal(c.ips[0][1], c.ips[2][1]);
	/* the same symbol at another offset: the same slot, another address */
	assert_int_equal(c.ips[2][0] - c.ips[0][0], 4);
	assert_true(c.ips[0][0] >= STACKMAP_NAMED_BASE);
	assert_int_equal(stackmap_names_count(c.n), 3);

	assert_int_equal(stackmap_names_lookup(c.n, c.ips[1][0], &name, &mod, &start, &size), 0);
	assert_string_equal(name, "gone_b");
	assert_string_equal(mod, "mod");
	assert_int_equal(c.ips[1][0] - start, 0x1c);
	assert_int_equal(size, 0x30);
	assert_int_equal(stackmap_names_lookup(c.n, c.ips[0][1], &name, &mod, &start, &size), 0);
	assert_string_equal(name, "caller");
	assert_null(mod);
	assert_int_equal(
		stackmap_names_lookup(c.n, 0xffffffff81000000ULL, &name, &mod, &start, &size),
		-ENOENT);
	assert_int_equal(stackmap_names_lookup(c.n, STACKMAP_NAMED_BASE + 3 * STACKMAP_NAMED_SPAN,
					       &name, &mod, &start, &size),
			 -ENOENT);
	assert_int_equal(stackmap_names_intern(c.n, &bare, &start), -EINVAL);
	stackmap_names_free(c.n);
}

/* ---- mapsnap: passive counting with ids above 2^22 ------------------------- */

static void put_file(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_bin(const char *dir, uint32_t ref_low, uint32_t ref_high)
{
	const uint8_t bin[] = {
		LE32(0x46534D42u),
		LE32(1),
		LE32(3),
		LE32(0),
		LE32(42),
		LE32(1),
		LE32(ref_low),
		LE32(0),
		LE64(IP_A),
		/* a map of 2^24 slots (bits 23) hands out ids far above 2^22 */
		LE32((1u << 23) + 7),
		LE32(1),
		LE32(ref_high),
		LE32(0),
		LE64(IP_B),
		/* not a slot of that table: damage, counted, never a stack */
		LE32((1u << 24) + 1),
		LE32(1),
		LE32(5),
		LE32(0),
		LE64(IP_C),
	};

	put_file(dir, "stack_map_bin", bin, sizeof(bin));
}

static uint64_t total_of(struct stack_table *t, uint64_t ip)
{
	struct stack *st = stack_table_intern(t, &ip, 1);

	return st ? st->total : 0;
}

/*
 * The passive source counts what each ref_count grew by; the ids come from
 * the map's table_size (stack_map_stat), not from a limit of stacktop's own.
 */
static void test_mapsnap_passive_ids_above_2_22(void **state)
{
	static const char stat[] = "entries:      2 / 8388608\ntable_size:   16777216\n"
				   "successes:    10\ndrops:        0\nsuccess_rate: 100%\n";
	char dir[] = "/tmp/stacktop-mapsnap.XXXXXX", path[512];
	struct session_stats stats;
	struct stack_table *t;
	struct ingest *ing;
	struct mapsnap m;
	struct tfs *tfs;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put_file(dir, "stack_map_stat", stat, sizeof(stat) - 1);
	put_bin(dir, 3, 4);
	assert_int_equal(tfs_open(dir, &tfs), 0);
	t = stack_table_new();
	assert_non_null(t);
	ing = ingest_new(NULL, t, 1);
	assert_non_null(ing);
	memset(&stats, 0, sizeof(stats));
	mapsnap_init(&m, tfs, ing, t, NULL, &stats, true);

	assert_int_equal(mapsnap_stat_check(&m), 0);
	assert_int_equal(stats.map.table_size, 1u << 24);
	assert_int_equal(mapsnap_read(&m), 0);
	assert_int_equal(total_of(t, IP_A), 3);
	assert_int_equal(total_of(t, IP_B), 4);
	assert_int_equal(ingest_stats(ing)->bad_ids, 1);
	/* the next snapshot counts what each ref_count grew by */
	put_bin(dir, 5, 10);
	assert_int_equal(mapsnap_read(&m), 0);
	assert_int_equal(total_of(t, IP_A), 5);
	assert_int_equal(total_of(t, IP_B), 10);
	assert_int_equal(ingest_stats(ing)->events, 15);
	assert_int_equal(ingest_stats(ing)->bad_ids, 2);

	mapsnap_fini(&m);
	ingest_free(ing);
	stack_table_free(t);
	tfs_close(tfs);
	snprintf(path, sizeof(path), "%s/stack_map_stat", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stack_map_bin", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- the map's health (stackmap_health.c) ---------------------------------- */

static struct stackmap_stat mkstat(uint64_t entries, uint64_t cap, uint64_t succ, uint64_t drops)
{
	struct stackmap_stat st = { .entries = entries,
				    .capacity = cap,
				    .table_size = 2 * cap,
				    .successes = succ,
				    .drops = drops,
				    .success_rate = -1 };

	return st;
}

static void test_health_bits_for(void **state)
{
	(void)state;
	assert_int_equal(stackmap_bits_for(0), 10);
	assert_int_equal(stackmap_bits_for(1), 10);
	assert_int_equal(stackmap_bits_for(1024), 10);
	assert_int_equal(stackmap_bits_for(1025), 11);
	assert_int_equal(stackmap_bits_for(16384), 14);
	assert_int_equal(stackmap_bits_for(1u << 18), 18);
	assert_int_equal(stackmap_bits_for((1u << 18) + 1), 19);
	assert_true(stackmap_fallback_pct(0, 0) < 0);
	assert_true(stackmap_fallback_pct(50, 50) == 50.0);
	assert_true(stackmap_fallback_pct(0, 7) == 100.0);
}

/* filling fast: the rate, the time until full, a warning, the advice */
static void test_health_filling(void **state)
{
	struct stackmap_watch w;
	struct stackmap_stat st = mkstat(0, 1024, 0, 0);

	(void)state;
	stackmap_watch_reset(&w);
	assert_false(w.h.known);
	stackmap_watch_stat(&w, &st, 100.0, 5000);
	assert_true(w.h.known && !w.h.full && w.h.bits == 10);
	/* the first second: a rate, but every stack is new at a start */
	st = mkstat(100, 1024, 400, 0);
	stackmap_watch_stat(&w, &st, 101.0, 5001);
	stackmap_watch_tick(&w, 101.0, 0, NULL);
	assert_true(w.h.growth == 100.0 && !w.h.settled);
	assert_true(w.h.eta > 9.23 && w.h.eta < 9.25); /* 924 left at 100/s */
	assert_true(!w.h.warn && !w.h.bits_advice);
	assert_true(w.h.successes_delta == 400 && w.h.successes_run == 400);
	/* measured over the whole window: 500 in 10 s */
	st = mkstat(500, 1024, 1000, 0);
	stackmap_watch_stat(&w, &st, 110.0, 5010);
	stackmap_watch_tick(&w, 110.0, 0, NULL);
	assert_true(w.h.growth == 50.0 && w.h.settled);
	assert_true(w.h.eta > 10.47 && w.h.eta < 10.49);
	assert_true(w.h.warn && !w.h.full);
	/* 500 seen and a minute more at 50/s: 3500, 2^12 */
	assert_int_equal(w.h.bits_advice, 12);
	assert_false(w.h.advice_short);
	assert_true(w.h.successes_delta == 600 && w.h.successes_run == 1000);
	assert_true(w.h.demand == 500 && w.h.fell_back == 0);
}

/* slow growth in a big pool: no warning, no advice; idle: no rate at all */
static void test_health_slow_and_idle(void **state)
{
	struct stackmap_watch w;
	struct stackmap_stat st = mkstat(100, 16384, 0, 0);
	double t;

	(void)state;
	stackmap_watch_reset(&w);
	stackmap_watch_stat(&w, &st, 0.0, 1);
	assert_true(w.h.growth < 0 && w.h.eta < 0); /* not measured yet */
	/* the session's tick at open, milliseconds later: still not measured */
	stackmap_watch_tick(&w, 0.01, 0, NULL);
	assert_true(w.h.growth < 0 && w.h.eta < 0);
	st = mkstat(110, 16384, 50, 0);
	stackmap_watch_stat(&w, &st, 10.0, 11);
	stackmap_watch_tick(&w, 10.0, 0, NULL);
	assert_true(w.h.growth == 1.0);
	assert_true(w.h.eta == 16274.0);
	assert_false(w.h.warn);
	assert_int_equal(w.h.bits_advice, 0);
	/* nothing new for longer than the window: growth 0, not filling */
	for (t = 11; t <= 22; t += 1) {
		stackmap_watch_stat(&w, &st, t, (int64_t)t);
		stackmap_watch_tick(&w, t, 0, NULL);
	}
	assert_true(w.h.growth == 0 && w.h.eta < 0 && !w.h.warn);
	assert_true(w.h.successes_delta == 0 && w.h.successes_run == 50);
}

/* the rate is measured over the last window, not since start */
static void test_health_window(void **state)
{
	struct stackmap_watch w;
	struct stackmap_stat st = mkstat(0, 1u << 18, 0, 0);
	int t;

	(void)state;
	stackmap_watch_reset(&w);
	stackmap_watch_stat(&w, &st, 0.0, 0);
	/* 1000/s for 20 s, then 10/s for 20 s */
	for (t = 1; t <= 40; t++) {
		st.entries += t <= 20 ? 1000 : 10;
		stackmap_watch_stat(&w, &st, t, t);
		stackmap_watch_tick(&w, t, 0, NULL);
	}
	assert_true(w.h.growth == 10.0);
	/* more samples than the ring holds: still the window's rate */
	for (t = 41; t <= 200; t++) {
		st.entries += 3;
		stackmap_watch_stat(&w, &st, t, t);
		stackmap_watch_tick(&w, t, 0, NULL);
	}
	assert_true(w.h.growth == 3.0);
}

/* full: since when, the stacks without room, the bytes before and after */
static void test_health_full(void **state)
{
	struct stackmap_watch w;
	struct stackmap_stat st = mkstat(1000, 1024, 9000, 0);
	struct stackmap_rb rb = { 100, 2000, 20000 };

	(void)state;
	stackmap_watch_reset(&w);
	stackmap_watch_stat(&w, &st, 50.0, 7000);
	stackmap_watch_tick(&w, 50.0, 0, &rb);
	/* a drain starts: everything read so far is sized */
	rb.records = 120;
	stackmap_watch_mark(&w, &rb);
	/* read in that drain, before the read that sees it full: counted as after */
	rb.records = 150;
	st = mkstat(1024, 1024, 9100, 0);
	stackmap_watch_stat(&w, &st, 52.0, 7002);
	assert_true(w.h.full && !w.h.full_at_start && w.h.warn);
	assert_true(w.h.full_since == 7002 && w.h.eta == 0);
	assert_true(w.h.rb_at_full.records == 120 && w.h.rb_at_full.alt == 20000);
	/* marks after it filled change nothing */
	stackmap_watch_mark(&w, &rb);
	assert_true(w.h.rb_at_full.records == 120);
	st = mkstat(1024, 1024, 9500, 300);
	rb.records = 900;
	stackmap_watch_stat(&w, &st, 55.0, 7005);
	stackmap_watch_tick(&w, 55.0, 40, &rb);
	assert_true(w.h.rb_at_full.records == 120 && w.h.full_since == 7002);
	assert_true(w.h.full_for == 3.0);
	assert_true(w.h.fell_back == 40 && w.h.demand == 1064);
	assert_true(w.h.drops_delta == 300 && w.h.successes_delta == 500);
	assert_true(w.h.drops_run == 300 && w.h.successes_run == 500);
	/* how fast it filled: 24 entries in the 2 s up to the read that saw it */
	assert_true(w.h.growth_before == 12.0);
	/* 1064 seen, 64 more in 5 s: 12.8/s, not over the whole window yet:
	 * room for twice what was seen, 2128, 2^12 */
	assert_true(w.h.growth > 12.79 && w.h.growth < 12.81 && !w.h.settled);
	assert_int_equal(w.h.bits_advice, 12);
	/* 10 s after the first read: a minute more at this rate, 1064 + 60 * 6.4 */
	stackmap_watch_stat(&w, &st, 60.0, 7010);
	stackmap_watch_tick(&w, 60.0, 40, &rb);
	assert_true(w.h.settled && w.h.growth == 6.4);
	assert_int_equal(w.h.bits_advice, 11);
}

/* a crowded table refuses stacks before the pool is used up: drops grow */
static void test_health_drops_before_capacity(void **state)
{
	struct stackmap_watch w;
	struct stackmap_stat st = mkstat(900, 1024, 100, 5); /* old drops: not "full" yet */

	(void)state;
	stackmap_watch_reset(&w);
	stackmap_watch_stat(&w, &st, 1.0, 1);
	assert_false(w.h.full);
	st.drops = 7;
	stackmap_watch_stat(&w, &st, 2.0, 2);
	assert_true(w.h.full && w.h.full_since == 2);
	stackmap_watch_tick(&w, 2.0, 0, NULL);
	/* it holds what it was asked for, yet refused: a bigger one all the same */
	assert_int_equal(w.h.bits_advice, 11);
	assert_true(w.h.drops_run == 2);
}

/* full at the first read; beyond the kernel's largest pool */
static void test_health_full_at_start_and_short(void **state)
{
	struct stackmap_watch w;
	struct stackmap_stat st = mkstat(1u << 18, 1u << 18, 5, 5);
	struct stackmap_rb rb = { 10, 10, 10 };

	(void)state;
	stackmap_watch_reset(&w);
	stackmap_watch_stat(&w, &st, 1.0, 77);
	assert_true(w.h.full && w.h.full_at_start && w.h.full_since == 77);
	assert_true(w.h.rb_at_full.records == 0); /* nothing known of before */
	stackmap_watch_tick(&w, 3.0, 5000, &rb);
	assert_int_equal(w.h.bits, 18);
	assert_int_equal(w.h.bits_advice, 18);
	assert_true(w.h.advice_short);
	assert_true(w.h.growth_before < 0);
	stackmap_watch_reset(&w);
	assert_false(w.h.known || w.h.full);
}

/* passive mode's r: since-start counts from the last read; the fill stays */
static void test_health_rebase(void **state)
{
	struct stackmap_watch w;
	struct stackmap_stat st = mkstat(1024, 1024, 1000, 0);

	(void)state;
	stackmap_watch_reset(&w);
	stackmap_watch_rebase(&w); /* nothing read yet: nothing to rebase */
	assert_false(w.h.known);
	stackmap_watch_stat(&w, &st, 1.0, 1);
	st = mkstat(1024, 1024, 1400, 600);
	stackmap_watch_stat(&w, &st, 2.0, 2);
	stackmap_watch_tick(&w, 2.0, 0, NULL);
	assert_true(w.h.successes_run == 400 && w.h.drops_run == 600);
	stackmap_watch_rebase(&w);
	assert_true(w.h.successes_run == 0 && w.h.drops_run == 0);
	assert_true(w.h.full && w.h.entries == 1024 && w.h.full_since == 1);
	st = mkstat(1024, 1024, 1450, 650);
	stackmap_watch_stat(&w, &st, 3.0, 3);
	stackmap_watch_tick(&w, 3.0, 0, NULL);
	assert_true(w.h.successes_run == 50 && w.h.drops_run == 50);
	assert_true(w.h.successes_delta == 50 && w.h.drops_delta == 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stackmap_bin_v4_le),
		cmocka_unit_test(test_stackmap_bin_v4_be),
		cmocka_unit_test(test_stackmap_bin_old_magic_both_orders),
		cmocka_unit_test(test_stackmap_bin_unaligned_buffer),
		cmocka_unit_test(test_stackmap_bin_truncated_header),
		cmocka_unit_test(test_stackmap_bin_truncated_record),
		cmocka_unit_test(test_stackmap_bin_nr_stacks_beyond_data),
		cmocka_unit_test(test_stackmap_bin_fewer_stacks_than_data),
		cmocka_unit_test(test_stackmap_bin_corrupt_nr),
		cmocka_unit_test(test_stackmap_bin_max_nr_accepted),
		cmocka_unit_test(test_stackmap_bin_bad_magic),
		cmocka_unit_test(test_stackmap_bin_bad_version),
		cmocka_unit_test(test_stackmap_bin_trampoline),
		cmocka_unit_test(test_stackmap_bin_empty_and_zero_depth),
		cmocka_unit_test(test_stackmap_bin_visitor_stops),
		cmocka_unit_test(test_stackmap_text_doc_example),
		cmocka_unit_test(test_stackmap_text_module_frames),
		cmocka_unit_test(test_stackmap_text_bare_address),
		cmocka_unit_test(test_stackmap_text_trampoline),
		cmocka_unit_test(test_stackmap_text_eof_mid_record),
		cmocka_unit_test(test_stackmap_text_no_blank_between),
		cmocka_unit_test(test_stackmap_text_garbage_line),
		cmocka_unit_test(test_stackmap_text_empty_and_stop),
		cmocka_unit_test(test_stackmap_text_depth_cap),
		cmocka_unit_test(test_stackmap_stat_v1),
		cmocka_unit_test(test_stackmap_stat_v1_doc_entries),
		cmocka_unit_test(test_stackmap_stat_v2),
		cmocka_unit_test(test_stackmap_stat_empty_map),
		cmocka_unit_test(test_stackmap_stat_full_pool),
		cmocka_unit_test(test_health_bits_for),
		cmocka_unit_test(test_health_filling),
		cmocka_unit_test(test_health_slow_and_idle),
		cmocka_unit_test(test_health_window),
		cmocka_unit_test(test_health_full),
		cmocka_unit_test(test_health_drops_before_capacity),
		cmocka_unit_test(test_health_full_at_start_and_short),
		cmocka_unit_test(test_health_rebase),
		cmocka_unit_test(test_stackmap_stat_not_initialized),
		cmocka_unit_test(test_stackmap_stat_padded_keys),
		cmocka_unit_test(test_stackmap_stat_bad),
		cmocka_unit_test(test_stackmap_names),
		cmocka_unit_test(test_mapsnap_passive_ids_above_2_22),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
