// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym_demangle.c - usym_demangle(): C++ and Rust names made readable,
 * within bounds a hostile symbol table cannot push.
 *
 * A mangled name refers back to earlier parts of itself, so its demangled
 * form can double with every nesting level: a 290-byte name once grew to
 * 1.1 GB. libiberty's callback demanglers (cplus_demangle_v3_callback(),
 * rust_demangle_callback()) allocate nothing on the heap and hand the
 * output over in pieces; the piece that would pass USYM_DEMANGLE_MAX bytes
 * ends the demangling (longjmp out of the callback: the demangler's state
 * is all on the stack), so both its memory and its time are bounded. Its
 * stack use grows with the mangled name's length (about 72 bytes a
 * character), so names longer than USYM_MANGLED_MAX are not demangled.
 * A name refused either way is shown as it is in the symbol table.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "sym/usym.h"

#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#define USYM_MANGLED_MAX 4096 /* longer mangled names are not demangled */

#ifdef HAVE_LIBIBERTY
struct dm_out {
	char buf[USYM_DEMANGLE_MAX + 1];
	size_t len;
	jmp_buf over;
};

static void dm_piece(const char *s, size_t n, void *opaque)
{
	struct dm_out *o = opaque;

	if (n > USYM_DEMANGLE_MAX - o->len)
		longjmp(o->over, 1); /* past the bound: refused */
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* 1: demangled into @o, 0: not a name this demangler knows, -1: refused */
static int dm_run(struct dm_out *o, const char *name, bool rust)
{
	int ok;

	o->len = 0;
	if (setjmp(o->over))
		return -1;
	if (rust)
		ok = rust_demangle_callback(name, DMGL_PARAMS | DMGL_ANSI, dm_piece, o);
	else
		ok = cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, dm_piece, o);
	if (!ok)
		return 0;
	o->buf[o->len] = '\0';
	return 1;
}
#endif

char *usym_demangle_bounded(const char *name, bool *refused)
{
	const char *at = name[0] ? strchr(name + 1, '@') : NULL;
	size_t len = at ? (size_t)(at - name) : strlen(name);
	char *bare, *r = NULL;

	*refused = false;
	/*
	 * A versioned symbol (__libc_start_main@@GLIBC_2.34, clock_gettime@
	 * GLIBC_2.17) is named without its version, as perf names it: one
	 * function, one name in flame graphs merged with perf's.
	 */
	bare = strndup(name, len);
	if (!bare)
		return NULL;
	if (bare[0] != '_' || (bare[1] != 'Z' && bare[1] != 'R'))
		return bare;
	if (len > USYM_MANGLED_MAX) {
		*refused = true;
		return bare;
	}
#ifdef HAVE_LIBIBERTY
	{
		struct dm_out *o = malloc(sizeof(*o));
		int k = 0;

		if (!o) {
			free(bare);
			return NULL;
		}
		/* Rust first (v0 `_R`, and legacy `_ZN..17h<hash>E` without its hash), then C++ */
		k = dm_run(o, bare, true);
		if (k == 0 && bare[1] == 'Z')
			k = dm_run(o, bare, false);
		if (k > 0)
			r = strdup(o->buf);
		*refused = k < 0;
		free(o);
		if (r) {
			free(bare);
			return r;
		}
	}
#endif
	return bare;
}

char *usym_demangle(const char *name)
{
	bool refused;

	return usym_demangle_bounded(name, &refused);
}
