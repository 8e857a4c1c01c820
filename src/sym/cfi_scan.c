// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cfi_scan.c - check an FDE and its CIE before libunwind runs them (see
 * cfi_scan.h). The encodings are DWARF 4's section 6.4.2 (call frame
 * instructions) and 2.5 (expressions), and the .eh_frame layout of the
 * LSB (CIE id 0, the FDE's CIE pointer relative to itself, augmentation
 * "z...").
 */
#include <stdbool.h>
#include <string.h>

#include "sym/cfi_scan.h"

/* a cursor over [p, end) that turns false at the first read past the end */
struct rd {
	const uint8_t *p, *end;
	bool ok;
};

static uint64_t rd_fixed(struct rd *r, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	if (!r->ok || (size_t)(r->end - r->p) < n) {
		r->ok = false;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i); /* x86_64: little-endian */
	r->p += n;
	return v;
}

/* a LEB128 number, unsigned or signed (the value is not needed: only its end) */
static uint64_t rd_leb(struct rd *r)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (r->ok) {
		uint8_t b;

		if (r->p == r->end || shift > 63) { /* 10 bytes hold any 64-bit value */
			r->ok = false;
			break;
		}
		b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static void rd_skip(struct rd *r, uint64_t n)
{
	if (!r->ok || (uint64_t)(r->end - r->p) < n) {
		r->ok = false;
		return;
	}
	r->p += n;
}

/* the size of a pointer in DW_EH_PE encoding @enc (the low nibble), 0 for LEB128, -1: unknown */
static int enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00:
		return 8; /* absptr */
	case 0x01:
		return 0; /* uleb128 */
	case 0x02:
		return 2; /* udata2 */
	case 0x03:
		return 4; /* udata4 */
	case 0x04:
		return 8; /* udata8 */
	case 0x09:
		return 0; /* sleb128 */
	case 0x0a:
		return 2; /* sdata2 */
	case 0x0b:
		return 4; /* sdata4 */
	case 0x0c:
		return 8; /* sdata8 */
	}
	return -1;
}

static void rd_enc(struct rd *r, uint8_t enc)
{
	int n = enc_size(enc);

	if (n < 0)
		r->ok = false;
	else if (n == 0)
		rd_leb(r);
	else
		rd_skip(r, (uint64_t)n);
}

/*
 * The operand bytes of DW_OP @op that follow it (after LEB128 operands
 * are read by the caller as @nleb of them), or -1 for an operation the
 * scan does not know (libunwind knows no more than these either).
 */
static int op_fixed(uint8_t op, int *nleb)
{
	*nleb = 0;
	if ((op >= 0x30 && op <= 0x6f) || (op >= 0x12 && op <= 0x14) ||
	    (op >= 0x16 && op <= 0x22) || (op >= 0x24 && op <= 0x27) ||
	    (op >= 0x29 && op <= 0x2e) || op == 0x06 || op == 0x96 || op == 0x97 || op == 0x9c ||
	    op == 0x9f)
		return 0; /* literals, registers, stack and arithmetic ops, nop */
	if (op >= 0x70 && op <= 0x8f) {
		*nleb = 1; /* breg0..31 SLEB */
		return 0;
	}
	switch (op) {
	case 0x03:
		return 8; /* addr */
	case 0x08:
	case 0x09:
	case 0x15: /* const1u/s, pick */
	case 0x94:
	case 0x95:
		return 1; /* deref_size, xderef_size */
	case 0x0a:
	case 0x0b:
	case 0x28:
	case 0x2f:
		return 2; /* const2u/s, bra, skip */
	case 0x0c:
	case 0x0d:
		return 4; /* const4u/s */
	case 0x0e:
	case 0x0f:
		return 8; /* const8u/s */
	case 0x10:
	case 0x11:
	case 0x23:
	case 0x90:
	case 0x91:
	case 0x93:
		*nleb = 1; /* constu, consts, plus_uconst, regx, fbreg, piece */
		return 0;
	case 0x92:
	case 0x9d:
		*nleb = 2; /* bregx, bit_piece */
		return 0;
	}
	return -1;
}

/* one DWARF expression of @n bytes at @r: forward branches only, within the block */
static enum cfi_verdict scan_expr(struct rd *r, uint64_t n)
{
	const uint8_t *start = r->p, *end;
	struct rd e;

	if (n > CFI_MAX_EXPR)
		return CFI_TOO_LONG;
	rd_skip(r, n);
	if (!r->ok)
		return CFI_MALFORMED;
	end = start + n;
	e = (struct rd){ .p = start, .end = end, .ok = true };
	while (e.p < e.end) {
		uint8_t op = *e.p++;
		int nleb, k = op_fixed(op, &nleb);

		if (k < 0)
			return CFI_MALFORMED;
		if (op == 0x28 || op == 0x2f) {
			/* the target is relative to the end of the operand */
			int16_t off = (int16_t)rd_fixed(&e, 2);

			if (!e.ok)
				return CFI_MALFORMED;
			if (off < 0 || (size_t)off > (size_t)(e.end - e.p))
				return CFI_EXPR_LOOP;
			continue;
		}
		rd_skip(&e, (uint64_t)k);
		while (nleb--)
			rd_leb(&e);
		if (!e.ok)
			return CFI_MALFORMED;
	}
	return CFI_OK;
}

/* what a program's scan needs of its CIE */
struct prog {
	uint8_t fde_enc;    /* DW_CFA_set_loc's operand */
	unsigned int depth; /* remember_state nesting so far */
};

/* the call frame instructions in [p, end) */
static enum cfi_verdict scan_program(const uint8_t *p, const uint8_t *end, struct prog *pg)
{
	struct rd r = { .p = p, .end = end, .ok = true };
	enum cfi_verdict v;

	if (end - p > CFI_MAX_PROGRAM)
		return CFI_TOO_LONG;
	while (r.ok && r.p < r.end) {
		uint8_t op = *r.p++;

		switch (op >> 6) {
		case 1: /* advance_loc */
		case 3: /* restore */
			continue;
		case 2: /* offset: ULEB */
			rd_leb(&r);
			continue;
		}
		switch (op) {
		case 0x00:
		case 0x0b: /* nop, restore_state */
			if (op == 0x0b && pg->depth)
				pg->depth--;
			break;
		case 0x0a: /* remember_state */
			if (++pg->depth > CFI_MAX_DEPTH)
				return CFI_NESTING;
			break;
		case 0x01: /* set_loc */
			rd_enc(&r, pg->fde_enc);
			break;
		case 0x02:
			rd_skip(&r, 1);
			break; /* advance_loc1 */
		case 0x03:
			rd_skip(&r, 2);
			break; /* advance_loc2 */
		case 0x04:
			rd_skip(&r, 4);
			break; /* advance_loc4 */
		case 0x1d:
			rd_skip(&r, 8);
			break; /* MIPS_advance_loc8 */
		case 0x06:
		case 0x07:
		case 0x08:
		case 0x0d:
		case 0x0e:
		case 0x13:
		case 0x2e:
			rd_leb(&r); /* restore_extended, undefined, same_value, def_cfa_register,
				     * def_cfa_offset, def_cfa_offset_sf, GNU_args_size */
			break;
		case 0x05:
		case 0x09:
		case 0x0c:
		case 0x11:
		case 0x12:
		case 0x14:
		case 0x15:
		case 0x2f:
			rd_leb(&r); /* offset_extended, register, def_cfa, offset_extended_sf, */
			rd_leb(&r); /* def_cfa_sf, val_offset, val_offset_sf, GNU_neg_offset_ext */
			break;
		case 0x10:
		case 0x16: /* expression, val_expression: register, block */
			rd_leb(&r);
			/* fall through */
		case 0x0f: /* def_cfa_expression: block */
			v = scan_expr(&r, rd_leb(&r));
			if (!r.ok)
				return CFI_MALFORMED;
			if (v != CFI_OK)
				return v;
			break;
		default:
			return CFI_MALFORMED;
		}
	}
	return r.ok ? CFI_OK : CFI_MALFORMED;
}

/*
 * A record's length field at @off: sets [*body, *end) (what follows the
 * length) and *wide for the 64-bit format.
 */
static bool record(const uint8_t *buf, size_t len, size_t off, size_t *body, size_t *end,
		   bool *wide)
{
	struct rd r;
	uint64_t n;

	if (off >= len)
		return false;
	r = (struct rd){ .p = buf + off, .end = buf + len, .ok = true };
	n = rd_fixed(&r, 4);
	*wide = n == 0xffffffffu;
	if (*wide)
		n = rd_fixed(&r, 8);
	if (!r.ok || n == 0 || n > (uint64_t)(r.end - r.p))
		return false;
	*body = (size_t)(r.p - buf);
	*end = *body + (size_t)n;
	return true;
}

/* the CIE at @off: its initial instructions and what the FDE needs */
static enum cfi_verdict scan_cie(const uint8_t *buf, size_t len, size_t off, struct prog *pg,
				 bool *aug_z)
{
	size_t body, end;
	bool wide;
	struct rd r;
	const uint8_t *aug;
	size_t naug;
	uint8_t version;

	if (!record(buf, len, off, &body, &end, &wide))
		return CFI_MALFORMED;
	r = (struct rd){ .p = buf + body, .end = buf + end, .ok = true };
	if (rd_fixed(&r, wide ? 8 : 4) != 0)
		return CFI_MALFORMED; /* not a CIE */
	version = (uint8_t)rd_fixed(&r, 1);
	if (!r.ok || (version != 1 && version != 3 && version != 4))
		return CFI_MALFORMED;
	aug = r.p;
	naug = strnlen((const char *)aug, (size_t)(r.end - r.p));
	rd_skip(&r, naug + 1);
	if (version == 4)
		rd_skip(&r, 2); /* address_size, segment_size */
	rd_leb(&r);		/* code alignment */
	rd_leb(&r);		/* data alignment */
	if (version == 1)
		rd_skip(&r, 1); /* return address register */
	else
		rd_leb(&r);
	if (!r.ok)
		return CFI_MALFORMED;
	pg->fde_enc = 0; /* absptr */
	*aug_z = naug && aug[0] == 'z';
	if (*aug_z) {
		uint64_t n = rd_leb(&r);
		struct rd a = { .p = r.p, .end = r.p, .ok = r.ok };
		size_t i;

		rd_skip(&r, n);
		if (!r.ok)
			return CFI_MALFORMED;
		a.end = r.p;
		for (i = 1; i < naug && a.ok; i++) {
			switch (aug[i]) {
			case 'L': /* the LSDA pointer's encoding */
				rd_skip(&a, 1);
				break;
			case 'R':
				pg->fde_enc = (uint8_t)rd_fixed(&a, 1);
				if (enc_size(pg->fde_enc) < 0)
					return CFI_MALFORMED;
				break;
			case 'P': { /* the personality routine: its encoding, then it */
				uint8_t enc = (uint8_t)rd_fixed(&a, 1);

				rd_enc(&a, enc);
				break;
			}
			case 'S':
			case 'B':
			case 'G':
				break;
			default:
				return CFI_MALFORMED; /* libunwind would refuse it too */
			}
		}
		if (!a.ok)
			return CFI_MALFORMED;
	} else if (naug) {
		return CFI_MALFORMED;
	}
	return scan_program(r.p, r.end, pg);
}

enum cfi_verdict cfi_scan_fde(const uint8_t *buf, size_t len, size_t fde)
{
	size_t body, end, cie;
	struct prog pg = { 0 };
	enum cfi_verdict v;
	uint64_t cie_ptr;
	bool wide, aug_z;
	struct rd r;
	int n;

	if (!buf || !record(buf, len, fde, &body, &end, &wide))
		return CFI_MALFORMED;
	r = (struct rd){ .p = buf + body, .end = buf + end, .ok = true };
	/* the CIE pointer: the distance back from this field to the CIE */
	cie_ptr = rd_fixed(&r, wide ? 8 : 4);
	if (!r.ok || cie_ptr == 0 || cie_ptr > body)
		return CFI_MALFORMED;
	cie = body - (size_t)cie_ptr;
	v = scan_cie(buf, len, cie, &pg, &aug_z);
	if (v != CFI_OK)
		return v;
	n = enc_size(pg.fde_enc);
	if (n < 0)
		return CFI_MALFORMED;
	rd_enc(&r, pg.fde_enc);	       /* initial location */
	rd_enc(&r, pg.fde_enc & 0x0f); /* address range: never relative */
	if (aug_z)
		rd_skip(&r, rd_leb(&r)); /* the FDE's augmentation data */
	if (!r.ok)
		return CFI_MALFORMED;
	return scan_program(r.p, r.end, &pg);
}

const char *cfi_verdict_name(enum cfi_verdict v)
{
	switch (v) {
	case CFI_OK:
		return "ok";
	case CFI_MALFORMED:
		return "malformed call frame information";
	case CFI_TOO_LONG:
		return "call frame program too long";
	case CFI_NESTING:
		return "remember_state nested too deep";
	case CFI_EXPR_LOOP:
		return "CFA expression loop";
	case CFI_BUDGET:
		return "unwind read budget spent";
	case CFI_VERDICT_MAX:
		break;
	}
	return "?";
}
