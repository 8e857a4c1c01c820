/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonrd.h - a small streaming JSON reader for untrusted input: a file is
 * read through a window (JSON_RD_WINDOW), never whole; nesting, string
 * lengths and numbers are bounded; every error names the byte (syntax)
 * or what the caller says (jr_fail()). The snapshot reader (snapshot*.c)
 * is built on it.
 */
#ifndef STACKTOP_JSONRD_H
#define STACKTOP_JSONRD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_RD_NESTING 16
#ifdef SNAPSHOT_WINDOW
#define JSON_RD_WINDOW SNAPSHOT_WINDOW /* the fuzzer reads through a tiny window */
#else
#define JSON_RD_WINDOW (256u << 10)
#endif
#define JSON_RD_STRING (64u << 10) /* a longer string is no symbol, name or comm */

/**
 * struct json_rd - a reader: set @p, @n, @len (a buffer, @fd -1) or @fd,
 * @buf of JSON_RD_WINDOW bytes and @len (a file); @err, @errsz receive the
 * first error
 */
struct json_rd {
	const char *p; /* the window */
	size_t n;      /* bytes in it */
	size_t i;      /* position in it */
	uint64_t base; /* input offset of p[0] */
	uint64_t len;  /* input length */
	int fd;	       /* -1: @p is the whole input */
	char *buf;     /* storage of the window (a file) */
	char *s;       /* the last string read, decoded, NUL-terminated */
	size_t slen;
	size_t scap;
	char *err;
	size_t errsz;
	bool syntax; /* the error is a JSON syntax error */
};

enum ntype { N_INT, N_NEG, N_FLOAT };

struct json_num {
	enum ntype type;
	uint64_t u; /* N_INT: the value; N_NEG: its magnitude */
	double d;   /* every number */
	bool big;   /* an integer beyond 64 bits */
};

/* the first error (user-facing, with where it was) into r->err; returns @e */
int jr_fail(struct json_rd *r, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* the input offset of the next byte */
uint64_t jr_off(const struct json_rd *r);

/* go to input offset @off (a file: the window is read again) */
int jr_seek(struct json_rd *r, uint64_t off);

/* skip blanks: the next byte, -1 at the end */
int jr_ws(struct json_rd *r);

/* the next non-blank byte must be @want (taken) */
int jr_expect(struct json_rd *r, int want);

/* a string (the opening quote next); decoded into r->s when @keep */
int jr_string(struct json_rd *r, bool keep);

/* a number into @ret */
int jr_number(struct json_rd *r, struct json_num *ret);

/* any value, checked and dropped */
int jr_skip(struct json_rd *r, int depth);

/* after '{' or a member: 1 and the key in r->s for another member, 0 at '}' */
int jr_next_key(struct json_rd *r, bool *first);

/* after '[' or an element: 1 when another element follows, 0 at ']' */
int jr_next_elem(struct json_rd *r, bool *first);

/* the type of the next value: one of {["tfn or '0' for a number */
int jr_kind(struct json_rd *r);

/* a count (an integer 0..2^64-1) of field @name */
int jr_count(struct json_rd *r, uint64_t *ret, const char *where, const char *name);

/* an integer in [lo, hi], or null (-1) when @nullable */
int jr_int(struct json_rd *r, long lo, long hi, bool nullable, int *ret, const char *where,
	   const char *name);

/* true or false; anything else is skipped and false (as before: lenient) */
int jr_bool(struct json_rd *r, bool *ret);

/* field @name must be a string (read into r->s) */
int jr_need_string(struct json_rd *r, const char *where, const char *name);

/* a sanitized copy of r->s */
char *jr_dup_clean(struct json_rd *r);

/* a string into @dst (sanitized); another type is skipped and "" */
int jr_copy_clean(struct json_rd *r, char *dst, size_t size);

/* "0x..." into @ret */
int jr_parse_hex(const char *s, uint64_t *ret);

/*
 * An array of at most @max strings (JSON member @name, for the messages):
 * each cleaned, into *@ret (NULL-terminated, owned by the caller, freed
 * string by string then itself also on error) and their count *@ret_n.
 * Return: 0, -EBADMSG (said with jr_fail()) or -ENOMEM.
 */
int jr_str_array(struct json_rd *r, unsigned int max, char ***ret, unsigned int *ret_n,
		 const char *name);

#endif /* STACKTOP_JSONRD_H */
