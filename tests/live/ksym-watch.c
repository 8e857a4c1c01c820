// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ksym-watch - sym/ksym_watch.c on the real kernel: a BPF program loaded
 * after the baseline is a change of the kernel's code (its name is in
 * kallsyms now, a miss near it is worth a reload). Loads a two-instruction
 * socket filter (nothing attaches it), checks, closes it. Exit 0 when the
 * change was seen, 1 when not, 77 when BPF programs cannot be loaded.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sym/ksym_watch.h"

static int load_filter(void)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	return (int)syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

int main(void)
{
	struct ksym_watch w;
	int fd;

	memset(&w, 0, sizeof(w));
	ksym_watch_mark(&w, KSYM_WATCH_PROC);
	if (!w.bpf_ok) {
		printf("BPF program ids cannot be listed here\n");
		return 77;
	}
	fd = load_filter();
	if (fd < 0) {
		printf("cannot load a BPF program: %s\n", strerror(errno));
		return 77;
	}
	if (!ksym_watch_changed(&w, KSYM_WATCH_PROC)) {
		printf("a BPF program loaded after the baseline (newest id %u then) was not seen\n",
		       w.bpf_id);
		close(fd);
		return 1;
	}
	close(fd);
	printf("a BPF program loaded after the baseline (newest id %u then) is a change\n",
	       w.bpf_id);
	return 0;
}
