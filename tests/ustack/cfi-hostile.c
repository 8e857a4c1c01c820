// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cfi-hostile: a user program whose hot function carries call frame
 * information made to hurt an unwinder (issue 25), for the live tests of
 * --user=dwarf. The function sleeps 1 ms in nanosleep(2) from inside
 * itself, so sched_switch and syscall samples have their user IP there:
 *   loop  its CFA is DW_CFA_def_cfa_expression { DW_OP_skip -3 }, an
 *         expression that jumps to itself: libunwind evaluates it forever
 *   nest  its FDE opens with 1,200,000 DW_CFA_remember_state: libunwind
 *         pushes a register state for each (about 200 bytes), from a pool
 *         it never gives back
 *   nest20 20 DW_CFA_remember_state: past stacktop's nesting bound, not
 *         its size bound
 *   deep  a chain of 40 functions, each FDE 15,000 bytes of DW_CFA_nop
 *         (each within every bound of the scan): one walk reads 600,000
 *         table bytes, past its read budget
 *   plain the same function with ordinary CFI (the control)
 * It prints "ready" and runs until its stdin closes (or is killed).
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FN(name, cfi)                                                        \
	__asm__(".text\n.globl " #name "\n.type " #name ",@function\n" #name ":\n" \
		".cfi_startproc\n" cfi "mov $35, %eax\n"                      \
		"xor %esi, %esi\n"                                            \
		"syscall\n"                                                   \
		"ret\n"                                                       \
		".cfi_endproc\n.size " #name ",.-" #name "\n")

/* DW_CFA_def_cfa_expression (0x0f), 3 bytes: DW_OP_skip (0x2f) -3 */
FN(hostile_loop, ".cfi_escape 0x0f, 3, 0x2f, 0xfd, 0xff\n");
FN(hostile_nest, ".rept 1200000\n.cfi_remember_state\n.endr\n");
FN(hostile_nest20, ".rept 20\n.cfi_remember_state\n.endr\n");
FN(hostile_plain, "");

/*
 * hostile_deep(ts): a chain of 40 functions, each calling the next (the
 * next "1:"), each FDE 15,000 bytes of DW_CFA_nop, the last one sleeps
 */
__asm__(".text\n.globl hostile_deep\n.type hostile_deep,@function\nhostile_deep:\n"
	".rept 40\n1:\n.cfi_startproc\n"
	".rept 15000\n.cfi_escape 0\n.endr\n"
	"sub $8, %rsp\n.cfi_adjust_cfa_offset 8\n"
	"call 1f\n"
	"add $8, %rsp\n.cfi_adjust_cfa_offset -8\n"
	"ret\n.cfi_endproc\n.endr\n"
	"1:\n.cfi_startproc\nmov $35, %eax\nxor %esi, %esi\nsyscall\nret\n.cfi_endproc\n"
	".size hostile_deep,.-hostile_deep\n");

void hostile_loop(const struct timespec *ts);
void hostile_nest(const struct timespec *ts);
void hostile_nest20(const struct timespec *ts);
void hostile_plain(const struct timespec *ts);
void hostile_deep(const struct timespec *ts);

int main(int argc, char **argv)
{
	const struct timespec ts = { 0, 1000000 };
	void (*fn)(const struct timespec *) = hostile_plain;
	struct pollfd in = { .fd = 0, .events = POLLIN };

	if (argc > 1 && !strcmp(argv[1], "loop"))
		fn = hostile_loop;
	else if (argc > 1 && !strcmp(argv[1], "nest"))
		fn = hostile_nest;
	else if (argc > 1 && !strcmp(argv[1], "nest20"))
		fn = hostile_nest20;
	else if (argc > 1 && !strcmp(argv[1], "deep"))
		fn = hostile_deep;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		fn(&ts);
		if (poll(&in, 1, 0) > 0) {
			char c;

			if (read(0, &c, 1) <= 0)
				break;
		}
	}
	return 0;
}
