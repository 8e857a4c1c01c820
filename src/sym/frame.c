// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * frame.c - see frame.h: a frame's name from the kernel symbols, or from
 * the user symbolizer for a user token.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/stack.h"
#include "sym/frame.h"
#include "sym/ksym.h"
#include "sym/pname.h"
#include "sym/usym.h"

#define TRAMPOLINE_LABEL "[FTRACE TRAMPOLINE]"

static int frame_common(char *buf, size_t size, struct ksym *ks, uint64_t ip, bool offset,
			bool with_module)
{
	struct ksym_hit h;
	struct fmt_out o;

	/* --by-func: a user frame is its function's start too, named without an offset */
	if (usym_is_user(ip))
		return usym_format(ksym_usym(ks), ip, buf, size, offset && !ksym_funcs(ks),
				   with_module);
	fmt_out_init(&o, buf, size);
	if (ip == STACK_IP_TRAMPOLINE) {
		fmt_out_str(&o, TRAMPOLINE_LABEL);
	} else if (ip == STACK_IP_USER_MODE) {
		fmt_out_str(&o, "[user space]");
	} else if (ip == STACK_IP_LEFT_OUT) {
		fmt_out_str(&o, "[stacks not in the snapshot]");
	} else if (STACK_IP_IS_COMM(ip)) {
		const char *comm = pname_get(ip);

		if (comm)
			fmt_out_sanitized(&o, comm, strlen(comm));
		else
			fmt_out_str(&o, "[command ?]");
	} else if (STACK_IP_IS_UNRESOLVED(ip)) {
		fmt_out_printf(&o, "[unresolved stack_id %u]", (uint32_t)ip);
	} else if (ks && ksym_lookup_frame(ks, ip, &h) == 0) {
		/* a return address: the call's function; the offset is the address's */
		fmt_out_sanitized(&o, h.name, strlen(h.name));
		if (offset)
			fmt_out_printf(&o, "+0x%" PRIx64 "/0x%" PRIx64, ip - h.start, h.size);
		if (with_module && h.module) {
			fmt_out_str(&o, " [");
			fmt_out_sanitized(&o, h.module, strlen(h.module));
			fmt_out_str(&o, "]");
		}
	} else {
		fmt_out_printf(&o, "0x%" PRIx64, ip);
	}
	return fmt_out_ret(&o);
}

int fmt_frame(char *buf, size_t size, struct ksym *ks, uint64_t ip)
{
	return frame_common(buf, size, ks, ip, true, true);
}

int fmt_func(char *buf, size_t size, struct ksym *ks, uint64_t ip, int with_module)
{
	return frame_common(buf, size, ks, ip, false, with_module);
}

int fmt_frame_src(char *buf, size_t size, struct ksym *ks, uint64_t ip)
{
	char src[256];
	int n = fmt_frame(buf, size, ks, ip), l;

	/* a kernel frame (--vmlinux): its call, the byte before the return address */
	if (!usym_is_user(ip))
		l = ip == STACK_IP_TRAMPOLINE || ip == STACK_IP_USER_MODE ||
				    STACK_IP_IS_UNRESOLVED(ip)
			    ? 0
			    : usym_kernel_srcline(ksym_usym(ks), ip, true, src, sizeof(src), false);
	else
		l = usym_srcline(ksym_usym(ks), ip, src, sizeof(src), false);
	if (l > 0)
		n += snprintf((size_t)n < size ? buf + n : NULL,
			      (size_t)n < size ? size - (size_t)n : 0, "  %s", src);
	return n;
}
