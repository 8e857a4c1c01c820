/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame.h - the name of one frame of a stack, for every output: a kernel
 * address through the kernel symbols (ksym.h), a user token (usym.h)
 * through the user symbolizer attached to them (ksym_set_usym()), and the
 * table's own markers (the ftrace trampoline, an unresolved stack id).
 * Same conventions as format.h: at most @size bytes written, always
 * terminated, the wanted length returned, every name sanitized.
 */
#ifndef STACKTOP_FRAME_H
#define STACKTOP_FRAME_H

#include <stddef.h>
#include <stdint.h>

struct ksym;

/**
 * fmt_frame() - "func+0xoff/0xsize [module]" for a kernel address
 * @buf: output
 * @size: size of @buf
 * @ks: symbols (may be NULL: the bare address is printed)
 * @ip: address; STACK_IP_TRAMPOLINE prints "[FTRACE TRAMPOLINE]"
 *
 * Return: wanted length.
 */
int fmt_frame(char *buf, size_t size, struct ksym *ks, uint64_t ip);

/**
 * fmt_frame_src() - fmt_frame(), then "  file.c:123" when the frame's
 *	source line is known (user frames with DWARF: usym_srcline(); kernel
 *	frames with --vmlinux: usym_kernel_srcline())
 * @buf: output
 * @size: size of @buf
 * @ks: symbols (may be NULL)
 * @ip: address or user token
 *
 * Return: wanted length.
 */
int fmt_frame_src(char *buf, size_t size, struct ksym *ks, uint64_t ip);

/**
 * fmt_func() - just "func" (or "func [module]" when @with_module), for
 * narrow columns and folded output
 * @buf: output
 * @size: size of @buf
 * @ks: symbols (may be NULL)
 * @ip: address
 * @with_module: append " [module]" for module symbols
 *
 * Return: wanted length.
 */
int fmt_func(char *buf, size_t size, struct ksym *ks, uint64_t ip, int with_module);

#endif /* STACKTOP_FRAME_H */
