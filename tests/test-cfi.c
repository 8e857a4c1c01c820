// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-cfi.c - cfi_scan_fde() on hand-made .eh_frame bytes: what gcc
 * emits passes; an expression that jumps back (the audit's DW_OP_skip -3),
 * remember_state nested past the bound, a program past the size bound,
 * truncated records, a CIE pointer out of the buffer, unknown ops are
 * refused; every truncation of a good FDE is refused or passes, never read
 * past the buffer (ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sym/cfi_scan.h"

struct buf {
	uint8_t b[80000];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->b));
	if (n)
		memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

/* a CIE as gcc writes it: "zR", code 1, data -8, RA 16, pcrel|sdata4, def_cfa rsp+8, offset r16 */
static size_t cie(struct buf *b, const uint8_t *extra, size_t nextra)
{
	static const uint8_t body[] = { 0,    0,  0, 0,	   1,	 'z', 'R', 0,	 1,
					0x78, 16, 1, 0x1b, 0x0c, 7,   8,   0x90, 1 };
	size_t at = b->n;

	put32(b, (uint32_t)(sizeof(body) + nextra));
	put(b, body, sizeof(body));
	put(b, extra, nextra);
	return at;
}

/* an FDE of @cie_at with @prog as its instructions; returns its offset */
static size_t fde(struct buf *b, size_t cie_at, const uint8_t *prog, size_t nprog)
{
	size_t at = b->n;
	uint8_t aug = 0;

	put32(b, (uint32_t)(4 + 4 + 4 + 1 + nprog));
	put32(b, (uint32_t)(b->n - cie_at)); /* from this field back to the CIE */
	put32(b, 0x1000);		     /* pc_begin, pcrel sdata4 */
	put32(b, 0x20);			     /* pc_range */
	put(b, &aug, 1);		     /* augmentation data length */
	put(b, prog, nprog);
	return at;
}

static enum cfi_verdict scan(const uint8_t *prog, size_t nprog)
{
	static struct buf b;
	size_t c, f;

	b.n = 0;
	c = cie(&b, NULL, 0);
	f = fde(&b, c, prog, nprog);
	return cfi_scan_fde(b.b, b.n, f);
}

static void test_gcc_ok(void **state)
{
	/* push rbp; mov rsp,rbp ... leave: advance, def_cfa_offset, offset, def_cfa_register,
	 * remember_state, def_cfa, restore_state, and a PLT-style expression */
	static const uint8_t prog[] = { 0x41, 0x0e, 16,	  0x86, 2,    0x43, 0x0d, 6, 0x0a, 0x4c,
					0x0c, 7,    8,	  0x0b, 0x0f, 11,   0x77, 8, 0x80, 0,
					0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22, 0 };

	/* OpenSSL's perlasm: def_cfa_expression { breg7 24; deref; plus_uconst 8 } */
	static const uint8_t perlasm[] = { 0x47, 0x0d, 0,  0x41, 0x83, 2, 0x0f,
					   5,	 0x77, 24, 0x06, 0x23, 8 };

	(void)state;
	assert_int_equal(scan(prog, sizeof(prog)), CFI_OK);
	assert_int_equal(scan(perlasm, sizeof(perlasm)), CFI_OK);
	assert_int_equal(scan(NULL, 0), CFI_OK);
}

static void test_expr_loop(void **state)
{
	static const uint8_t skip_back[] = { 0x0f, 3, 0x2f, 0xfd, 0xff }; /* the audit's */
	static const uint8_t bra_self[] = { 0x10, 6, 4, 0x30, 0x28, 0xfd, 0xff, 0x96 };
	static const uint8_t skip_out[] = { 0x16, 6, 3, 0x2f, 5, 0, 0x96 };    /* past its block */
	static const uint8_t skip_fwd[] = { 0x0f, 5, 0x2f, 1, 0, 0x96, 0x30 }; /* forward: fine */

	(void)state;
	assert_int_equal(scan(skip_back, sizeof(skip_back)), CFI_EXPR_LOOP);
	assert_int_equal(scan(bra_self, sizeof(bra_self)), CFI_EXPR_LOOP);
	assert_int_equal(scan(skip_out, sizeof(skip_out)), CFI_EXPR_LOOP);
	assert_int_equal(scan(skip_fwd, sizeof(skip_fwd)), CFI_OK);
}

static void test_nesting(void **state)
{
	uint8_t prog[CFI_MAX_DEPTH * 2 + 2];
	size_t i;

	(void)state;
	/* balanced pairs never nest deeper than 1 */
	for (i = 0; i < sizeof(prog) / 2; i++) {
		prog[2 * i] = 0x0a;
		prog[2 * i + 1] = 0x0b;
	}
	assert_int_equal(scan(prog, sizeof(prog)), CFI_OK);
	memset(prog, 0x0a, CFI_MAX_DEPTH);
	assert_int_equal(scan(prog, CFI_MAX_DEPTH), CFI_OK);
	memset(prog, 0x0a, CFI_MAX_DEPTH + 1);
	assert_int_equal(scan(prog, CFI_MAX_DEPTH + 1), CFI_NESTING);
}

static void test_too_long(void **state)
{
	static uint8_t prog[CFI_MAX_PROGRAM + 1];
	static const uint8_t long_expr[4 + CFI_MAX_EXPR + 1] = { 0x0f, 0x81, 0x04 }; /* 513 */

	(void)state;
	memset(prog, 0, sizeof(prog)); /* DW_CFA_nop */
	assert_int_equal(scan(prog, CFI_MAX_PROGRAM), CFI_OK);
	assert_int_equal(scan(prog, CFI_MAX_PROGRAM + 1), CFI_TOO_LONG);
	assert_int_equal(scan(long_expr, 3 + 0x201), CFI_TOO_LONG);
}

static void test_malformed(void **state)
{
	static const uint8_t unknown_cfa[] = { 0x3c };
	static const uint8_t unknown_op[] = { 0x0f, 1, 0xe0 };
	static const uint8_t leb_runs_out[] = { 0x0e, 0x80, 0x80 };
	static const uint8_t block_runs_out[] = { 0x0f, 9, 0x30 };
	static const uint8_t good[] = { 0x41, 0x0e, 16, 0x0f, 3, 0x77, 8, 0x96 };
	struct buf *b = calloc(1, sizeof(*b));
	size_t c, f, cut;

	(void)state;
	assert_non_null(b);
	assert_int_equal(scan(unknown_cfa, sizeof(unknown_cfa)), CFI_MALFORMED);
	assert_int_equal(scan(unknown_op, sizeof(unknown_op)), CFI_MALFORMED);
	assert_int_equal(scan(leb_runs_out, sizeof(leb_runs_out)), CFI_MALFORMED);
	assert_int_equal(scan(block_runs_out, sizeof(block_runs_out)), CFI_MALFORMED);
	/* the FDE cut at every length: refused, never read past the end */
	c = cie(b, NULL, 0);
	f = fde(b, c, good, sizeof(good));
	assert_int_equal(cfi_scan_fde(b->b, b->n, f), CFI_OK);
	for (cut = 0; cut < b->n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		assert_non_null(copy);
		memcpy(copy, b->b, cut);
		assert_int_equal(cfi_scan_fde(copy, cut, f), CFI_MALFORMED);
		free(copy);
	}
	/* a CIE pointer to before the buffer, to a FDE (not a CIE), an FDE offset past it */
	b->n = 0;
	f = fde(b, 0, good, sizeof(good));
	memset(b->b + 4, 0xff, 4);
	assert_int_equal(cfi_scan_fde(b->b, b->n, f), CFI_MALFORMED);
	b->n = 0;
	c = fde(b, 0, good, sizeof(good));
	f = fde(b, c, good, sizeof(good));
	assert_int_equal(cfi_scan_fde(b->b, b->n, f), CFI_MALFORMED);
	assert_int_equal(cfi_scan_fde(b->b, b->n, b->n + 10), CFI_MALFORMED);
	assert_int_equal(cfi_scan_fde(NULL, 0, 0), CFI_MALFORMED);
	free(b);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(cfi_verdict_name(CFI_EXPR_LOOP), "CFA expression loop");
	assert_string_equal(cfi_verdict_name(CFI_NESTING), "remember_state nested too deep");
	assert_string_equal(cfi_verdict_name(CFI_VERDICT_MAX), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcc_ok),	  cmocka_unit_test(test_expr_loop),
		cmocka_unit_test(test_nesting),	  cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_malformed), cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
