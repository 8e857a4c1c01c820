/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfi_scan.h - check one FDE of a file's .eh_frame (and its CIE) before
 * libunwind runs its call frame program: the file belongs to the traced
 * user, so the program is hostile input. libunwind interprets what it is
 * given without bounds: a DW_OP_skip back to itself in a CFA expression
 * loops forever (under its lock, every signal blocked), and each
 * DW_CFA_remember_state pushes a register state from a pool it never gives
 * back. The scan walks every instruction of both programs once, and every
 * operation of their DWARF expressions, without evaluating anything: it
 * refuses a program past a size, remember_state nesting past a depth,
 * expressions that branch backwards (the only way one can loop) or out of
 * their block, and anything it cannot decode. What real compilers emit
 * passes (remember_state nests 1 or 2 deep; expressions are a few bytes,
 * branch-free).
 *
 * Pure: bytes in, a verdict out; no I/O, no allocation (fuzzed by
 * tests/fuzz/fuzz-cfi.c, unit-tested by tests/test-cfi.c).
 */
#ifndef STACKTOP_CFI_SCAN_H
#define STACKTOP_CFI_SCAN_H

#include <stddef.h>
#include <stdint.h>

#define CFI_MAX_PROGRAM 16384 /* bytes of one CIE's or FDE's instructions */
#define CFI_MAX_DEPTH	16    /* DW_CFA_remember_state nesting */
#define CFI_MAX_EXPR	512   /* bytes of one DWARF expression */

/**
 * enum cfi_verdict - what the scan found
 * @CFI_OK: nothing past the bounds: libunwind may run it
 * @CFI_MALFORMED: a length, pointer or operand runs out of its record, or
 *	an encoding, version or instruction the scan does not know
 * @CFI_TOO_LONG: a program longer than CFI_MAX_PROGRAM, or an expression
 *	longer than CFI_MAX_EXPR
 * @CFI_NESTING: DW_CFA_remember_state nested deeper than CFI_MAX_DEPTH
 * @CFI_EXPR_LOOP: an expression's DW_OP_skip or DW_OP_bra branches
 *	backwards (it could loop) or out of its block
 * @CFI_BUDGET: never returned by the scan: the walk that ran what passed
 *	read more than its budget (dwunwind.c), the bound behind the scan
 * @CFI_VERDICT_MAX: the number of verdicts
 */
enum cfi_verdict {
	CFI_OK,
	CFI_MALFORMED,
	CFI_TOO_LONG,
	CFI_NESTING,
	CFI_EXPR_LOOP,
	CFI_BUDGET,
	CFI_VERDICT_MAX,
};

/**
 * cfi_scan_fde() - check the FDE at @fde and the CIE it points to
 * @buf: the bytes of .eh_frame (with what surrounds it: the CIE is found
 *	by the FDE's backward offset and must lie in @buf too)
 * @len: the size of @buf
 * @fde: the offset of the FDE's length field in @buf
 *
 * Return: CFI_OK, or why the FDE must not be handed to libunwind.
 */
enum cfi_verdict cfi_scan_fde(const uint8_t *buf, size_t len, size_t fde);

/**
 * cfi_verdict_name() - @v in words, for a cut mark ("CFA expression loop")
 * @v: the verdict
 *
 * Return: a static string.
 */
const char *cfi_verdict_name(enum cfi_verdict v);

#endif /* STACKTOP_CFI_SCAN_H */
