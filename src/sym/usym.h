/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usym.h - user-space frames: tokens, maps snapshots and symbols.
 *
 * A user frame is stored in a stack's frame array (struct stack, after the
 * kernel frames) as a 64-bit token, never as the bare address: the address
 * only means something with the process it was taken in. A token is an
 * index into the (tgid, address) pairs this module interned; its top 16
 * bits (USYM_TAG_*) are not a canonical address on any 64-bit architecture
 * Linux runs on, so a token never equals a kernel frame. A user part is:
 *
 *	kernel leaf ... kernel root, USYM_SEP|tgid, user leaf ... user root
 *	[, a cut mark when the walk stopped before the end: USYM_CUT at its
 *	   depth, USYM_CUT_STACK, _FAILED or _MEMORY for the other reasons]
 *
 * An event whose user stack was wanted but not had (the dwarf mode: its
 * perf sample lost, not taken under --user-sample, not unwound) is
 *
 *	kernel leaf ... kernel root, USYM_SEP|0, usym_none(why)
 *
 * so it is a row of its own that says so, never its kernel stack alone
 * (which reads as the stack of a kernel thread, and ranked first when
 * most samples were lost).
 *
 * Because the tgid and the tokens are part of the frame array, interning
 * keys stacks on (kernel stack, user stack, process): the same user
 * addresses of two processes never merge (see doc/design.md).
 *
 * The maps of a process are read the first time its tgid is interned, and
 * kept after it exits; each executable file it maps is a file another user
 * may control: it is opened as ufile.h says (through /proc/<tgid>/map_files,
 * the exact file mapped, even from a container or replaced on disk since;
 * never a FIFO, a device, a symlink or a file on a FUSE mount) and read
 * with pread (uelf.h: never mapped, every size checked). Names are looked
 * up lazily (usym_format()): symbol tables, .gnu_debugdata, debug files
 * under /usr/lib/debug/.build-id, and a perf-<pid>.map for JIT code. What
 * all this holds counts against usym_set_limit(). No printing: the core's
 * conventions.
 */
#ifndef STACKTOP_USYM_H
#define STACKTOP_USYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USYM_TAG_MASK  0xffff000000000000ULL
#define USYM_TAG_FRAME 0x7573000000000000ULL /* "us": a (tgid, address) token */
#define USYM_TAG_SEP   0x757c000000000000ULL /* "u|": kernel/user separator, low bits tgid */
#define USYM_CUT       0x7578000000000000ULL /* "ux": user walk cut at its limit */
#define USYM_TAG_NONE  0x756e000000000000ULL /* "un": no user stack, low bits why (ujoin.h) */
/*
 * The cut mark says why the user part ends there (its low bits; every one
 * is a USYM_CUT by usym_is_cut()):
 */
#define USYM_CUT_STACK	(USYM_CUT | 1) /* dwarf: the sample's copy of the stack ends */
#define USYM_CUT_FAILED (USYM_CUT | 2) /* dwarf: no unwind table for a frame's code */
#define USYM_CUT_MEMORY (USYM_CUT | 3) /* the symbolizer's share of --max-memory is full */
/* dwarf: the walk refused call frame info past its bounds, or spent its read
 * budget; | 0x10 + an enum cfi_verdict says which (sym/cfi_scan.h), plain: read
 * back from a file that kept only "refused" */
#define USYM_CUT_REFUSED (USYM_CUT | 4)

#define USYM_FP_FRAMES 8 /* frames the kernel's userstacktrace records */

struct usym;

/**
 * usym_is_user() - whether a frame word is a token of this module
 * @ip: frame from a stack's frame array
 */
static inline bool usym_is_user(uint64_t ip)
{
	uint64_t t = ip & USYM_TAG_MASK;

	return t == USYM_TAG_FRAME || t == USYM_TAG_SEP || t == USYM_CUT || t == USYM_TAG_NONE;
}

/**
 * usym_none() - the mark of an event without its user stack
 * @why: why (enum ujoin_why, not UJOIN_OK)
 */
static inline uint64_t usym_none(unsigned int why)
{
	return USYM_TAG_NONE | why;
}

/**
 * usym_is_none() - whether a frame word is such a mark
 * @ip: frame
 */
static inline bool usym_is_none(uint64_t ip)
{
	return (ip & USYM_TAG_MASK) == USYM_TAG_NONE;
}

/**
 * usym_stack_none() - the mark of a stack whose user stack is missing, or 0
 * @ips: frames, leaf first
 * @depth: how many
 */
static inline uint64_t usym_stack_none(const uint64_t *ips, unsigned int depth)
{
	return depth && usym_is_none(ips[depth - 1]) ? ips[depth - 1] : 0;
}

/**
 * usym_none_why() - the reason (enum ujoin_why) of a mark usym_none() made
 * @ip: the mark
 */
static inline unsigned int usym_none_why(uint64_t ip)
{
	return (unsigned int)(ip & 0xff);
}

/**
 * usym_is_cut() - whether a frame word is a cut mark (of any reason)
 * @ip: frame
 */
static inline bool usym_is_cut(uint64_t ip)
{
	return (ip & USYM_TAG_MASK) == USYM_CUT;
}

/**
 * usym_cut_why() - the reason of a cut mark as one word, for JSON
 *	("depth", "stack", "unwind", "memory")
 * @ip: a cut mark
 */
static inline const char *usym_cut_why(uint64_t ip)
{
	switch (ip) {
	case USYM_CUT_STACK:
		return "stack";
	case USYM_CUT_FAILED:
		return "unwind";
	case USYM_CUT_MEMORY:
		return "memory";
	case USYM_CUT:
		return "depth";
	default:
		return "refused"; /* USYM_CUT_REFUSED, plain or with a verdict */
	}
}

/**
 * usym_is_sep() - whether a frame word is the kernel/user separator
 * @ip: frame
 */
static inline bool usym_is_sep(uint64_t ip)
{
	return (ip & USYM_TAG_MASK) == USYM_TAG_SEP;
}

/**
 * usym_sep() - the separator word of process @tgid
 * @tgid: thread-group id
 */
static inline uint64_t usym_sep(uint32_t tgid)
{
	return USYM_TAG_SEP | tgid;
}

/**
 * usym_user_start() - index of the separator in @ips, or @depth if none
 * @ips: frames, leaf first
 * @depth: how many
 */
static inline unsigned int usym_user_start(const uint64_t *ips, unsigned int depth)
{
	unsigned int i;

	for (i = depth; i-- > 0;)
		if (usym_is_sep(ips[i]))
			return i;
	return depth;
}

/**
 * struct usym_map - one executable mapping of a process
 * @start: first address
 * @end: address after the last
 * @pgoff: file offset of @start
 * @dev: device (major << 32 | minor)
 * @ino: inode (0: anonymous)
 * @path: file or pseudo name ("[vdso]"), "" when anonymous
 */
struct usym_map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t dev;
	uint64_t ino;
	char *path;
};

/**
 * usym_parse_maps() - the executable mappings of a /proc/<pid>/maps text
 * @text: file contents (need not end with a newline)
 * @ret: array (free with usym_maps_free()), sorted by @start
 * @ret_n: entries
 *
 * Lines that do not parse are skipped.
 *
 * Return: 0, or -ENOMEM.
 */
int usym_parse_maps(const char *text, struct usym_map **ret, size_t *ret_n);

/**
 * usym_maps_free() - free what usym_parse_maps() returned
 * @m: array
 * @n: entries
 */
void usym_maps_free(struct usym_map *m, size_t n);

/**
 * usym_find_map() - the mapping holding @addr
 * @m: sorted array
 * @n: entries
 * @addr: address
 *
 * Return: the entry, or NULL.
 */
const struct usym_map *usym_find_map(const struct usym_map *m, size_t n, uint64_t addr);

/**
 * usym_new() - an empty symbolizer
 * @proc: the proc root ("/proc" when NULL); "": the tgids are not this
 *        machine's (a simulated tracefs), nothing is read and every frame
 *        prints as `[unknown] 0xaddr`
 *
 * Return: the symbolizer, NULL on OOM.
 */
struct usym *usym_new(const char *proc);

/**
 * usym_free() - free everything; NULL is a no-op
 * @u: symbolizer
 */
void usym_free(struct usym *u);

/**
 * usym_intern() - the token of @addr in process @tgid
 * @u: symbolizer
 * @tgid: thread-group id
 * @addr: user address
 *
 * The first token of a tgid reads its maps (one file read per process).
 *
 * Return: the token, or 0 on OOM or at the limit (usym_set_limit()).
 */
uint64_t usym_intern(struct usym *u, uint32_t tgid, uint64_t addr);

/**
 * usym_intern_chain() - the tokens of @addr in process @tgid with its
 *	inlined calls: each call inlined at the address a token of its own
 *	(innermost first, named "func (inlined)"), then the token of @addr,
 *	from the DWARF of the file mapped there (its own, its debug file by
 *	build-id or .gnu_debuglink; read once per file, under the share)
 * @u: symbolizer
 * @tgid: thread-group id
 * @addr: user address
 * @ret: @addr is a return address: the call, and its line, is the byte
 *	before
 * @toks: receives the tokens, innermost first
 * @max: room in @toks (the innermost calls are kept when it is short)
 *
 * Return: how many (at least 1), 0 as usym_intern().
 */
unsigned int usym_intern_chain(struct usym *u, uint32_t tgid, uint64_t addr, bool ret,
			       uint64_t *toks, unsigned int max);

/**
 * usym_set_dwarf() - whether usym_intern_chain() reads DWARF (default:
 *	yes); off, frames have no inlined calls and no source lines
 *	(--no-inline)
 * @u: symbolizer
 * @on: read it
 */
void usym_set_dwarf(struct usym *u, bool on);

/**
 * usym_set_vmlinux() - the source lines of kernel frames from @path, a
 *	vmlinux with DWARF (--vmlinux): read as any other user's file (a
 *	regular file, no symlink), its DWARF into memory within half the
 *	symbolizer's share
 * @u: symbolizer
 * @path: the file
 * @err: receives a user-facing reason on failure
 * @errsz: its size
 *
 * Return: 0, or -errno (-ENOENT: no DWARF; -E2BIG: larger than the share).
 */
int usym_set_vmlinux(struct usym *u, const char *path, char *err, size_t errsz);

/**
 * usym_vmlinux_addr() - the link-time address of function @name in the
 *	vmlinux (to place the running kernel: KASLR)
 * @u: symbolizer
 * @name: a function
 * @ret: receives its address
 *
 * Return: 0, or -ENOENT.
 */
int usym_vmlinux_addr(const struct usym *u, const char *name, uint64_t *ret);

/**
 * usym_set_kernel_offset() - the running kernel's addresses less the
 *	vmlinux's (KASLR's offset)
 * @u: symbolizer
 * @offset: the offset
 */
void usym_set_kernel_offset(struct usym *u, uint64_t offset);

/**
 * usym_has_vmlinux() - whether usym_set_vmlinux() gave kernel lines
 * @u: symbolizer, or NULL
 */
bool usym_has_vmlinux(const struct usym *u);

/**
 * usym_kernel_srcline() - a kernel frame's source line, "file.c:123", ""
 *	when unknown (no --vmlinux, an address its DWARF does not cover)
 * @u: symbolizer (NULL: "")
 * @ip: the running kernel's address
 * @ret: @ip is a return address: the call, the byte before it, is looked up
 * @buf: output
 * @size: its size
 * @full: the path as the DWARF gives it, not its last part
 *
 * Return: the length of the full text (as snprintf), 0 when unknown.
 */
int usym_kernel_srcline(struct usym *u, uint64_t ip, bool ret, char *buf, size_t size, bool full);

/**
 * usym_is_inline() - whether a token is an inlined call (of
 *	usym_intern_chain(), or read back as one)
 * @u: symbolizer (NULL: false)
 * @tok: frame word
 */
bool usym_is_inline(const struct usym *u, uint64_t tok);

/**
 * usym_srcline() - a frame's source line, "file.c:123", from the DWARF (or
 *	as read back); "" when unknown. The line of an inlined call's frame is
 *	in the function inlined; of the frame it was inlined into, the call's.
 * @u: symbolizer (NULL: "")
 * @tok: frame word
 * @buf: output
 * @size: its size
 * @full: the path as the DWARF gives it, not its last part
 *
 * Return: the length of the full text (as snprintf), 0 when unknown.
 */
int usym_srcline(const struct usym *u, uint64_t tok, char *buf, size_t size, bool full);

/**
 * usym_intern_text() - the token of a frame named by a snapshot read back
 * @u: symbolizer
 * @tgid: thread-group id (of the machine the snapshot was taken on)
 * @addr: user address
 * @text: the frame as usym_format() wrote it with offset and file
 *        ("func+0xoff (file)", "[unknown] 0xaddr (file+0xoff)"), sanitized
 *
 * No process is looked at: the frame prints as @text (its shorter forms cut
 * from it), and one (tgid, address, text) is one token.
 *
 * Return: the token, or 0 on OOM.
 */
uint64_t usym_intern_text(struct usym *u, uint32_t tgid, uint64_t addr, const char *text);

/**
 * usym_intern_text_line() - usym_intern_text(), with the frame's source
 *	line as read back ("path:123"; NULL or "": none)
 * @u: symbolizer
 * @tgid: thread-group id
 * @addr: user address
 * @text: the frame as written (an inlined call: "name (inlined) (file)")
 * @line: its source line, or NULL
 *
 * Return: the token, or 0 on OOM.
 */
uint64_t usym_intern_text_line(struct usym *u, uint32_t tgid, uint64_t addr, const char *text,
			       const char *line);

/**
 * usym_intern_label() - the token of a row's key (--group-by: a library,
 *	a command): shown as @text is, whatever it holds (sanitized)
 * @u: symbolizer
 * @text: the text
 *
 * Return: the token (one per text), or 0 on OOM.
 */
uint64_t usym_intern_label(struct usym *u, const char *text);

/**
 * usym_tick() - a new refresh: each process is checked for an exec again
 * @u: symbolizer
 *
 * The first token of a process in each refresh compares its
 * /proc/<tgid>/exe with the one seen before; after an exec its maps are
 * read again, and its later frames get tokens of their own.
 */
void usym_tick(struct usym *u);

/**
 * usym_add_maps() - the executable mappings of @tgid for when its
 * /proc/<tgid>/maps cannot be read (it exited before its first frame was
 * interned; the dwarf mode keeps them from perf's MMAP2 records)
 * @u: symbolizer
 * @tgid: thread-group id
 * @m: its mappings, sorted by start (copied)
 * @n: how many
 *
 * Call before the first usym_intern() of @tgid: a process known already, or
 * whose maps /proc still gives, keeps those.
 *
 * Return: 0 when @m is used, -EEXIST when not needed, -ENOMEM.
 */
int usym_add_maps(struct usym *u, uint32_t tgid, const struct usym_map *m, size_t n);

/**
 * usym_lookup() - the process and address of a token
 * @u: symbolizer
 * @tok: token (USYM_TAG_FRAME)
 * @ret_tgid: receives the tgid
 * @ret_addr: receives the address
 *
 * Return: 0, or -ENOENT when @tok is not a token of @u.
 */
int usym_lookup(const struct usym *u, uint64_t tok, uint32_t *ret_tgid, uint64_t *ret_addr);

/**
 * usym_format() - the text of a user frame word, sanitized
 * @u: symbolizer (NULL: bare tokens)
 * @ip: token, separator, cut mark or usym_none() mark
 * @buf: output
 * @size: size of @buf
 * @offset: "func+0xoff" rather than "func"
 * @with_file: append " (file)"
 *
 * Frames print as `func+0xoff (file)`, or `[unknown] 0xaddr (file+0xoff)`
 * when no symbol covers the address; the separator as `--`; a mark as
 * usym_none_label() says.
 *
 * Return: the length of the full text (as snprintf).
 */
int usym_format(struct usym *u, uint64_t ip, char *buf, size_t size, bool offset, bool with_file);

/**
 * usym_none_label() - what a usym_none() mark says, e.g. "[user stack
 * lost: perf ring full]", "[user stack not sampled]"
 * @ip: the mark
 *
 * Return: a static string.
 */
const char *usym_none_label(uint64_t ip);

/**
 * usym_start() - the token of the start of @ip's symbol (@ip if unknown)
 * @u: symbolizer
 * @ip: token
 *
 * Frames of one function share it: the caller tree's merge key.
 */
uint64_t usym_start(struct usym *u, uint64_t ip);

#define USYM_DEMANGLE_MAX 4096 /* bytes of a demangled name at most */

/**
 * usym_demangle() - the readable form of a symbol name
 * @name: symbol as in the ELF symbol table
 *
 * C++ (`_Z`), Rust legacy (`_ZN...17h<hash>E`: shown without the hash) and
 * Rust v0 (`_R`) names are demangled with libiberty's callback demanglers
 * when built with them (else every name stays as it is), within bounds: a
 * mangled name longer than 4 KiB, or one whose demangled form would pass
 * USYM_DEMANGLE_MAX bytes (its parts refer back to each other: the output
 * can double at each nesting level), is refused and returned unchanged.
 * A symbol version (`name@@GLIBC_2.34`, `name@VER`) is left out first, as
 * perf does. Anything else, or a name that does not demangle, is returned
 * unchanged.
 *
 * Return: an allocated string (free()), NULL on OOM.
 */
char *usym_demangle(const char *name);

/**
 * usym_demangle_bounded() - usym_demangle(), saying whether the bound
 * refused the name
 * @name: symbol as in the ELF symbol table
 * @refused: receives true when the name was not demangled for its size
 *
 * Return: as usym_demangle().
 */
char *usym_demangle_bounded(const char *name, bool *refused);

/**
 * usym_memory() - bytes held: tokens, processes, maps, cached names, vdso
 * copies, loaded symbol tables and their demangled names, perf maps
 * @u: symbolizer
 */
size_t usym_memory(const struct usym *u);

/**
 * usym_set_limit() - bound what the symbolizer holds
 * @u: symbolizer
 * @bytes: the bound on usym_memory(); 0: none
 *
 * Cached names take at most a quarter of it (all are dropped past that and
 * resolved again when shown). Symbol tables are loaded within what is left
 * (the least recently used dropped to make room; one larger than the whole
 * bound is not loaded, usym_files_big()), a perf map is read until the
 * bound is reached. At the bound no new process or address is interned:
 * usym_intern() returns 0 (usym_refused() counts them) while the tokens
 * interned before stay valid.
 */
void usym_set_limit(struct usym *u, size_t bytes);

/**
 * usym_refused() - new frames (or processes) refused at the limit
 * @u: symbolizer
 */
uint64_t usym_refused(const struct usym *u);

/**
 * usym_files_refused() - mapped files never opened: not a regular file, a
 * symlink, on a FUSE or unknown mount (their frames stay `[unknown]` with
 * the file offset)
 * @u: symbolizer
 */
uint64_t usym_files_refused(const struct usym *u);

/**
 * usym_files_big() - files whose symbol table did not fit the bound
 * @u: symbolizer
 */
uint64_t usym_files_big(const struct usym *u);

#endif /* STACKTOP_USYM_H */
