// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-gen.c - what the simulated kernel knows and does: its symbols, the
 * population of distinct stacks, and the recording of events.
 *
 * Stacks are built from call-chain templates of real kernel paths (one set
 * per event), with a run of helper frames spliced in at '*' so that a few
 * hundred distinct stacks of depth 5..60 exist, plus a few pairs deeper than
 * 64 frames that share their first 64 frames (v1-v3 merge them into one id).
 * A return address is sym + an offset fixed per caller->callee edge, so the
 * same call site always has the same address.  Events pick a stack with a
 * Zipf-like distribution.
 *
 * Recording one event on one CPU (sim_fire): for every instance with the
 * event enabled and tracing_on, the event record goes to that instance's
 * ring; occasionally an interrupt's event and stack are recorded next
 * (nesting, as on a real CPU); then each instance with options/stacktrace
 * gets the stack: a stack_id record at the top level when options/stackmap
 * is on and the map takes the stack, else a full kernel_stack record; then,
 * with options/userstacktrace, the task's user_stack record.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"
#include "sim-formats.h"

const struct sim_event_def sim_events[SIM_EV_MAX] = {
	[SIM_EV_SCHED_SWITCH] = { "sched", "sched_switch", 372, fmt_sched_switch, 64, 30 },
	[SIM_EV_SCHED_WAKEUP] = { "sched", "sched_wakeup", 374, fmt_sched_wakeup, 36, 12 },
	[SIM_EV_SCHED_WAKING] = { "sched", "sched_waking", 375, fmt_sched_waking, 36, 12 },
	[SIM_EV_KMALLOC] = { "kmem", "kmalloc", 658, fmt_kmalloc, 56, 25 },
	[SIM_EV_KFREE] = { "kmem", "kfree", 657, fmt_kfree, 24, 20 },
	[SIM_EV_IRQ_ENTRY] = { "irq", "irq_handler_entry", 225, fmt_irq_handler_entry, 16, 5 },
	[SIM_EV_IRQ_EXIT] = { "irq", "irq_handler_exit", 224, fmt_irq_handler_exit, 16, 5 },
	[SIM_EV_HRTIMER_ENTRY] = { "timer", "hrtimer_expire_entry", 459,
				   fmt_hrtimer_expire_entry, 32, 6 },
};

const struct sim_event_def sim_fevents[SIM_FEV_MAX] = {
	[SIM_FEV_KERNEL_STACK] = { "ftrace", "kernel_stack", 4, fmt_kernel_stack, 16, 0 },
	[SIM_FEV_USER_STACK] = { "ftrace", "user_stack", 13, fmt_user_stack, 16, 0 },
	[SIM_FEV_STACK_ID] = { "ftrace", "stack_id", 20, NULL, 12, 0 },
	[SIM_FEV_FUNCTION] = { "ftrace", "function", 1, fmt_function, 24, 0 },
};

const char *const sim_header_page = fmt_header_page;
const char *const sim_header_event = fmt_header_event;

/* ---- small helpers ---------------------------------------------------- */

void sbuf_add(struct sbuf *sb, const void *data, size_t len)
{
	if (sb->len + len + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 256;
		char *p;

		while (cap < sb->len + len + 1)
			cap *= 2;
		p = realloc(sb->p, cap);
		if (!p)
			abort();
		sb->p = p;
		sb->cap = cap;
	}
	memcpy(sb->p + sb->len, data, len);
	sb->len += len;
	sb->p[sb->len] = '\0';
}

void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		sbuf_add(sb, tmp, n);
		return;
	}
	sbuf_add(sb, "", 0);
	{
		char *big = malloc(n + 1);

		if (!big)
			abort();
		va_start(ap, fmt);
		vsnprintf(big, n + 1, fmt, ap);
		va_end(ap);
		sbuf_add(sb, big, n);
		free(big);
	}
}

void sbuf_free(struct sbuf *sb)
{
	free(sb->p);
	memset(sb, 0, sizeof(*sb));
}

/* xorshift64*: deterministic for a given --seed. */
uint64_t sim_rand(void)
{
	sim.rng ^= sim.rng >> 12;
	sim.rng ^= sim.rng << 25;
	sim.rng ^= sim.rng >> 27;
	return sim.rng * 0x2545F4914F6CDD1DULL;
}

double sim_frand(void)
{
	return (double)(sim_rand() >> 11) / (double)(1ULL << 53);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The trace clock ("local"): monotonic time plus the injected idle gaps. */
uint64_t sim_clock(void)
{
	return mono_ns() + sim.skew;
}

static uint32_t str_hash(const char *a, const char *b)
{
	uint32_t h = 2166136261U;

	for (; *a; a++)
		h = (h ^ (uint8_t)*a) * 16777619U;
	h = (h ^ '>') * 16777619U;
	for (; b && *b; b++)
		h = (h ^ (uint8_t)*b) * 16777619U;
	return h ^ (h >> 15);
}

/* ---- call-chain templates -------------------------------------------- */

/*
 * Innermost frame first.  "name[mod]" is a module function, '*' is where
 * helper frames get spliced in, '@' appends an interrupted context.  The
 * class letter picks the pids: u user task, k kthread, i idle/any (irq), s
 * softirq.
 */
struct tmpl {
	enum sim_ev ev;
	char cls;
	const char *chain;
};

#define SYSCALL "x64_sys_call do_syscall_64 entry_SYSCALL_64_after_hwframe"
#define KTHREAD "kthread ret_from_fork ret_from_fork_asm"
#define IDLE "do_idle cpu_startup_entry start_secondary common_startup_64"
#define APIC "__sysvec_apic_timer_interrupt sysvec_apic_timer_interrupt " \
	"asm_sysvec_apic_timer_interrupt"
#define IRQ "handle_irq_event handle_edge_irq __common_interrupt common_interrupt " \
	"asm_common_interrupt"

static const struct tmpl tmpls[] = {
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule schedule_hrtimeout_range_clock "
		"schedule_hrtimeout_range do_poll do_sys_poll __x64_sys_poll * " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule futex_wait_queue __futex_wait "
		"futex_wait do_futex __x64_sys_futex * " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule do_nanosleep hrtimer_nanosleep "
		"common_nsleep __x64_sys_clock_nanosleep * " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule schedule_hrtimeout_range_clock "
		"ep_poll do_epoll_wait __x64_sys_epoll_wait * " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule pipe_read * vfs_read ksys_read "
		"__x64_sys_read " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'k', "__schedule schedule worker_thread " KTHREAD },
	{ SIM_EV_SCHED_SWITCH, 'k', "__schedule schedule smpboot_thread_fn " KTHREAD },
	{ SIM_EV_SCHED_SWITCH, 'i', "__schedule schedule_idle " IDLE },
	{ SIM_EV_SCHED_SWITCH, 'k', "__schedule schedule schedule_timeout rcu_gp_fqs_loop "
		"rcu_gp_kthread " KTHREAD },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule io_schedule folio_wait_bit_common "
		"filemap_get_pages filemap_read ext4_file_read_iter[ext4] * vfs_read ksys_read "
		"__x64_sys_read " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule kvm_vcpu_block[kvm] "
		"kvm_vcpu_halt[kvm] vcpu_run[kvm] kvm_arch_vcpu_ioctl_run[kvm] "
		"kvm_vcpu_ioctl[kvm] __x64_sys_ioctl * " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'k', "__schedule schedule kjournald2[jbd2] " KTHREAD },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule schedule_timeout "
		"unix_stream_read_generic unix_stream_recvmsg sock_recvmsg * __sys_recvfrom "
		"__x64_sys_recvfrom " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule do_wait kernel_wait4 "
		"__x64_sys_wait4 * " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule schedule schedule_timeout wait_woken "
		"n_tty_read tty_read * vfs_read ksys_read __x64_sys_read " SYSCALL },
	{ SIM_EV_SCHED_SWITCH, 'u', "__schedule preempt_schedule_irq irqentry_exit "
		"asm_sysvec_apic_timer_interrupt" },

	{ SIM_EV_SCHED_WAKEUP, 'u', "ttwu_do_activate try_to_wake_up "
		"autoremove_wake_function __wake_up_common __wake_up_sync_key "
		"sock_def_readable unix_stream_sendmsg * sock_sendmsg __sys_sendto "
		"__x64_sys_sendto " SYSCALL },
	{ SIM_EV_SCHED_WAKEUP, 'u', "ttwu_do_activate try_to_wake_up pollwake "
		"__wake_up_common __wake_up pipe_write * vfs_write ksys_write "
		"__x64_sys_write " SYSCALL },
	{ SIM_EV_SCHED_WAKEUP, 'i', "ttwu_do_activate try_to_wake_up hrtimer_wakeup "
		"__hrtimer_run_queues hrtimer_interrupt " APIC " @" },
	{ SIM_EV_SCHED_WAKEUP, 'u', "ttwu_do_activate try_to_wake_up wake_up_q "
		"futex_wake do_futex __x64_sys_futex * " SYSCALL },
	{ SIM_EV_SCHED_WAKEUP, 'k', "ttwu_do_activate try_to_wake_up swake_up_one "
		"rcu_gp_kthread_wake rcu_report_qs_rnp * rcu_core handle_softirqs "
		"run_ksoftirqd smpboot_thread_fn " KTHREAD },

	{ SIM_EV_SCHED_WAKING, 'u', "try_to_wake_up autoremove_wake_function "
		"__wake_up_common __wake_up_sync_key sock_def_readable "
		"unix_stream_sendmsg * sock_sendmsg __sys_sendto __x64_sys_sendto " SYSCALL },
	{ SIM_EV_SCHED_WAKING, 'i', "try_to_wake_up hrtimer_wakeup __hrtimer_run_queues "
		"hrtimer_interrupt " APIC " @" },
	{ SIM_EV_SCHED_WAKING, 'u', "try_to_wake_up wake_up_q futex_wake do_futex "
		"__x64_sys_futex * " SYSCALL },
	{ SIM_EV_SCHED_WAKING, 'u', "try_to_wake_up ep_autoremove_wake_function "
		"__wake_up_common ep_poll_callback __wake_up_common __wake_up_sync_key "
		"sock_def_readable tcp_data_queue tcp_rcv_established tcp_v4_do_rcv "
		"__release_sock release_sock tcp_sendmsg * sock_sendmsg __sys_sendto "
		"__x64_sys_sendto " SYSCALL },
	{ SIM_EV_SCHED_WAKING, 'u', "try_to_wake_up wake_up_new_task kernel_clone "
		"__do_sys_clone3 * " SYSCALL },

	{ SIM_EV_KMALLOC, 'u', "__kmalloc_cache_noprof alloc_pipe_info create_pipe_files "
		"__do_pipe_flags do_pipe2 __x64_sys_pipe2 * " SYSCALL },
	{ SIM_EV_KMALLOC, 'u', "__kmalloc_node_track_caller_noprof kmalloc_reserve "
		"__alloc_skb alloc_skb_with_frags sock_alloc_send_pskb unix_stream_sendmsg * "
		"sock_sendmsg __sys_sendto __x64_sys_sendto " SYSCALL },
	{ SIM_EV_KMALLOC, 'u', "__kmalloc_noprof __kvmalloc_node_noprof seq_read_iter "
		"seq_read proc_reg_read * vfs_read ksys_read __x64_sys_read " SYSCALL },
	{ SIM_EV_KMALLOC, 'u', "__kmalloc_cache_noprof single_open do_dentry_open vfs_open "
		"path_openat do_filp_open do_sys_openat2 __x64_sys_openat * " SYSCALL },
	{ SIM_EV_KMALLOC, 'u', "__kmalloc_noprof ext4_htree_store_dirent[ext4] "
		"htree_dirblock_to_tree[ext4] ext4_htree_fill_tree[ext4] "
		"ext4_dx_readdir[ext4] ext4_readdir[ext4] iterate_dir "
		"__x64_sys_getdents64 * " SYSCALL },
	{ SIM_EV_KMALLOC, 'u', "__kmalloc_cache_noprof alloc_bprm do_execveat_common "
		"__x64_sys_execve * " SYSCALL },
	{ SIM_EV_KMALLOC, 's', "__kmalloc_node_track_caller_noprof kmalloc_reserve "
		"__alloc_skb __netdev_alloc_skb e1000_alloc_rx_buffers[e1000e] "
		"e1000_clean_rx_irq[e1000e] e1000e_poll[e1000e] __napi_poll net_rx_action "
		"handle_softirqs __irq_exit_rcu irq_exit_rcu common_interrupt "
		"asm_common_interrupt @" },
	{ SIM_EV_KMALLOC, 'u', "__kmalloc_noprof nvme_setup_cmd[nvme_core] "
		"nvme_queue_rq[nvme] blk_mq_dispatch_rq_list __blk_mq_sched_dispatch_requests "
		"blk_mq_sched_dispatch_requests blk_mq_run_hw_queue blk_mq_flush_plug_list "
		"__blk_flush_plug blk_finish_plug ext4_do_writepages[ext4] "
		"ext4_writepages[ext4] do_writepages filemap_fdatawrite_wbc * "
		"file_write_and_wait_range ext4_sync_file[ext4] __x64_sys_fsync " SYSCALL },

	{ SIM_EV_KFREE, 'u', "kfree skb_release_data consume_skb unix_stream_read_generic "
		"unix_stream_recvmsg sock_recvmsg * __sys_recvfrom __x64_sys_recvfrom " SYSCALL },
	{ SIM_EV_KFREE, 'u', "kfree free_pipe_info pipe_release __fput task_work_run * "
		"syscall_exit_to_user_mode do_syscall_64 entry_SYSCALL_64_after_hwframe" },
	{ SIM_EV_KFREE, 'u', "kfree seq_release single_release __fput task_work_run * "
		"syscall_exit_to_user_mode do_syscall_64 entry_SYSCALL_64_after_hwframe" },
	{ SIM_EV_KFREE, 'u', "kfree free_bprm do_execveat_common __x64_sys_execve * " SYSCALL },
	{ SIM_EV_KFREE, 'k', "kfree rcu_do_batch rcu_core handle_softirqs run_ksoftirqd "
		"smpboot_thread_fn " KTHREAD },
	{ SIM_EV_KFREE, 'u', "kfree ext4_htree_free_dir_info[ext4] "
		"ext4_release_dir[ext4] __fput task_work_run * syscall_exit_to_user_mode "
		"do_syscall_64 entry_SYSCALL_64_after_hwframe" },

	{ SIM_EV_IRQ_ENTRY, 'i', "__handle_irq_event_percpu " IRQ " @" },
	{ SIM_EV_IRQ_ENTRY, 'i', "__handle_irq_event_percpu handle_irq_event "
		"handle_fasteoi_irq __common_interrupt common_interrupt asm_common_interrupt @" },
	{ SIM_EV_IRQ_EXIT, 'i', "__handle_irq_event_percpu " IRQ " @" },
	{ SIM_EV_HRTIMER_ENTRY, 'i', "__hrtimer_run_queues hrtimer_interrupt " APIC " @" },
};

/* Interrupted contexts appended at '@' (may be empty: from user mode). */
static const char *const contexts[] = {
	"pv_native_safe_halt default_idle default_idle_call " IDLE,
	"pv_native_safe_halt default_idle default_idle_call cpuidle_idle_call " IDLE,
	"",
	"clear_page_erms get_page_from_freelist __alloc_pages_noprof "
		"alloc_pages_mpol_noprof vma_alloc_folio_noprof do_anonymous_page "
		"__handle_mm_fault handle_mm_fault do_user_addr_fault exc_page_fault "
		"asm_exc_page_fault",
	"_raw_spin_unlock_irqrestore try_to_wake_up pollwake __wake_up_common __wake_up "
		"pipe_write vfs_write ksys_write __x64_sys_write " SYSCALL,
};

/* Helper frames spliced in at '*' (in this order, a random window). */
static const char *const helpers =
	"mutex_lock __mutex_lock_slowpath down_read rwsem_down_read_slowpath "
	"__fdget_pos rw_verify_area security_file_permission selinux_file_permission "
	"fsnotify __fsnotify_parent lock_sock_nested release_sock "
	"__might_fault _copy_to_user _copy_from_user copy_page_to_iter "
	"filemap_get_read_batch folio_mark_accessed touch_atime atime_needs_update "
	"current_time ktime_get_coarse_real_ts64 __check_object_size check_heap_object "
	"kmem_cache_alloc_noprof memcg_slab_post_alloc_hook obj_cgroup_charge "
	"refill_obj_stock mod_objcg_state __rcu_read_lock __rcu_read_unlock "
	"_raw_spin_lock _raw_spin_lock_irqsave __x64_sys_sched_yield "
	"do_sched_yield ep_item_poll ep_send_events sock_poll tcp_poll "
	"unix_poll pipe_poll __pollwait add_wait_queue remove_wait_queue "
	"finish_wait prepare_to_wait_event init_wait_entry "
	"apparmor_file_permission aa_file_perm __aa_path_perm "
	"ovl_read_iter[overlay] ovl_real_fdget[overlay] ovl_write_iter[overlay] "
	"backing_file_read_iter backing_file_write_iter "
	"xfs_file_read_iter[xfs] xfs_file_buffered_read[xfs] xfs_ilock[xfs] "
	"xfs_iunlock[xfs] fuse_file_read_iter[fuse] fuse_simple_request[fuse] "
	"request_wait_answer[fuse] vfs_iter_read do_iter_readv_writev "
	"import_iovec __import_iovec iov_iter_init "
	"sock_read_iter sock_write_iter unix_stream_read_actor "
	"skb_copy_datagram_iter __skb_datagram_iter simple_copy_to_iter "
	"tcp_recv_timestamp tcp_cleanup_rbuf __tcp_cleanup_rbuf tcp_rcv_space_adjust "
	"tcp_push __tcp_push_pending_frames tcp_write_xmit __tcp_transmit_skb "
	"ip_queue_xmit __ip_queue_xmit ip_finish_output2 __dev_queue_xmit "
	"dev_hard_start_xmit e1000_xmit_frame[e1000e] sch_direct_xmit "
	"__qdisc_run net_tx_action validate_xmit_skb netif_skb_features";

/* ---- symbols ---------------------------------------------------------- */

struct name_ent {
	char name[64];
	char mod[24];
};

static struct name_ent *names;
static unsigned int nnames, names_cap;

static void add_name(const char *tok, size_t len)
{
	struct name_ent e = { 0 };
	const char *br = memchr(tok, '[', len);
	unsigned int i;

	if (br) {
		snprintf(e.name, sizeof(e.name), "%.*s", (int)(br - tok), tok);
		snprintf(e.mod, sizeof(e.mod), "%.*s", (int)(len - (br - tok) - 2), br + 1);
	} else {
		snprintf(e.name, sizeof(e.name), "%.*s", (int)len, tok);
	}
	for (i = 0; i < nnames; i++)
		if (!strcmp(names[i].name, e.name))
			return;
	if (nnames == names_cap) {
		names_cap = names_cap ? names_cap * 2 : 256;
		names = realloc(names, names_cap * sizeof(*names));
		if (!names)
			abort();
	}
	names[nnames++] = e;
}

static void add_names(const char *s)
{
	while (*s) {
		size_t n;

		while (*s == ' ')
			s++;
		n = strcspn(s, " ");
		if (n && *s != '*' && *s != '@')
			add_name(s, n);
		s += n;
	}
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sim_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static int name_order(const void *a, const void *b)
{
	const struct name_ent *x = a, *y = b;
	int c = strcmp(x->mod, y->mod);
	uint32_t hx, hy;

	if (c)
		return c;
	hx = str_hash(x->name, NULL);
	hy = str_hash(y->name, NULL);
	if (hx != hy)
		return hx < hy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A few more real names so kallsyms does not only hold what stacks use. */
static const char *const extra_names =
	"startup_64 secondary_startup_64 start_kernel rest_init kernel_init "
	"panic printk vprintk_emit console_unlock schedule_preempt_disabled "
	"preempt_schedule preempt_schedule_common yield_to update_curr "
	"pick_next_task_fair put_prev_task_fair enqueue_task_fair dequeue_task_fair "
	"load_balance rebalance_domains run_rebalance_domains tick_nohz_idle_enter "
	"ext4_map_blocks[ext4] ext4_es_lookup_extent[ext4] ext4_lookup[ext4] "
	"jbd2_journal_commit_transaction[jbd2] jbd2__journal_start[jbd2] "
	"nvme_irq[nvme] nvme_pci_complete_batch[nvme] nvme_complete_rq[nvme_core] "
	"e1000_intr_msi[e1000e] vmx_vcpu_run[kvm_intel] vmx_handle_exit[kvm_intel] "
	"kvm_vcpu_kick[kvm] fuse_dev_read[fuse] xfs_buf_ioend[xfs]";

static void syms_add(struct sim_syms *s, unsigned int *cap, uint64_t addr, char type,
		     const char *name, const char *mod)
{
	if (s->n == *cap) {
		*cap = *cap ? *cap * 2 : 512;
		s->v = realloc(s->v, *cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n++] = (struct sim_sym){ addr, 0, type, strdup(name), mod ? strdup(mod) : NULL };
}

/**
 * syms_init() - lay out the simulated kernel text and modules
 * @s: symbol table to fill
 * @text_base: address of _stext
 */
int syms_init(struct sim_syms *s, uint64_t text_base)
{
	uint64_t addr = text_base, mod_addr = 0xffffffffc0000000ULL + 0x201000;
	const char *cur_mod = "";
	unsigned int i, cap = 0;

	memset(s, 0, sizeof(*s));
	s->text_base = text_base;
	for (i = 0; i < sizeof(tmpls) / sizeof(tmpls[0]); i++)
		add_names(tmpls[i].chain);
	for (i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++)
		add_names(contexts[i]);
	add_names(helpers);
	add_names(extra_names);
	qsort(names, nnames, sizeof(*names), name_order);

	syms_add(s, &cap, addr, 'T', "_stext", NULL);
	syms_add(s, &cap, addr, 'T', "startup_64", NULL);
	addr += 0x180;
	for (i = 0; i < nnames; i++) {
		struct name_ent *e = &names[i];
		uint32_t size = 0x40 + (str_hash(e->name, "size") % 0x5c0);

		size = (size + 15) & ~15U;
		if (!strcmp(e->name, "startup_64"))
			continue;
		if (!e->mod[0]) {
			syms_add(s, &cap, addr, 'T', e->name, NULL);
			addr += size;
			continue;
		}
		if (strcmp(cur_mod, e->mod)) {
			/* Each module's text starts on its own pages. */
			mod_addr = (mod_addr + 0x40fff) & ~0xfffULL;
			cur_mod = e->mod;
		}
		syms_add(s, &cap, mod_addr, (str_hash(e->name, "t") & 1) ? 't' : 'T', e->name,
			 e->mod);
		mod_addr += size;
	}
	syms_add(s, &cap, addr, 'T', "_etext", NULL);
	addr = (addr + 0x1fffff) & ~0x1fffffULL;
	syms_add(s, &cap, addr, 'D', "init_task", NULL);
	syms_add(s, &cap, addr + 0x3c40, 'D', "jiffies", NULL);
	syms_add(s, &cap, addr + 0x3c80, 'B', "__bss_start", NULL);
	qsort(s->v, s->n, sizeof(*s->v), sym_cmp);
	for (i = 0; i + 1 < s->n; i++) {
		uint64_t d = s->v[i + 1].addr - s->v[i].addr;

		/* Within a module or the core: up to the next symbol. */
		s->v[i].size = d > 0x10000 ? 0x100 : (uint32_t)d;
	}
	s->v[s->n - 1].size = 0x100;
	return 0;
}

void syms_free(struct sim_syms *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		free((char *)s->v[i].name);
		free((char *)s->v[i].mod);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
	free(names);
	names = NULL;
	nnames = names_cap = 0;
}

const struct sim_sym *syms_find(const struct sim_syms *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name) && s->v[i].size)
			return &s->v[i];
	return NULL;
}

const struct sim_sym *syms_lookup(const struct sim_syms *s, uint64_t addr)
{
	unsigned int lo = 0, hi = s->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo - 1 is the last symbol at or below addr; skip zero-size labels. */
	while (lo > 0 && !s->v[lo - 1].size)
		lo--;
	if (!lo)
		return NULL;
	if (addr >= s->v[lo - 1].addr + s->v[lo - 1].size)
		return NULL;
	return &s->v[lo - 1];
}

/**
 * syms_print_ps() - print @addr as the kernel's %pS does
 * @s: symbols
 * @addr: address
 * @sb: output
 */
void syms_print_ps(const struct sim_syms *s, uint64_t addr, struct sbuf *sb)
{
	const struct sim_sym *sym = syms_lookup(s, addr);

	if (!sym) {
		sbuf_printf(sb, "0x%llx", (unsigned long long)addr);
		return;
	}
	sbuf_printf(sb, "%s+0x%llx/0x%x", sym->name, (unsigned long long)(addr - sym->addr),
		    sym->size);
	if (sym->mod)
		sbuf_printf(sb, " [%s]", sym->mod);
}

/**
 * syms_kallsyms() - /proc/kallsyms text of the simulated kernel
 * @s: symbols
 * @sb: output
 */
void syms_kallsyms(const struct sim_syms *s, struct sbuf *sb)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct sim_sym *y = &s->v[i];

		if (y->mod)
			sbuf_printf(sb, "%016llx %c %s\t[%s]\n", (unsigned long long)y->addr,
				    y->type, y->name, y->mod);
		else
			sbuf_printf(sb, "%016llx %c %s\n", (unsigned long long)y->addr, y->type,
				    y->name);
	}
}

/* ---- stacks ------------------------------------------------------------ */

struct chain {
	const struct sim_sym *f[SIM_MAX_FRAMES + 64];
	unsigned int n;
};

static void chain_add(struct chain *c, const char *s, size_t len)
{
	char name[64];
	const char *br = memchr(s, '[', len);
	const struct sim_sym *sym;

	snprintf(name, sizeof(name), "%.*s", (int)(br ? (size_t)(br - s) : len), s);
	sym = syms_find(&sim.syms, name);
	if (!sym) {
		fprintf(stderr, "stackmap-sim: internal error: no symbol %s\n", name);
		abort();
	}
	if (c->n < sizeof(c->f) / sizeof(c->f[0]))
		c->f[c->n++] = sym;
}

static void chain_words(struct chain *c, const char *s, const char **words, unsigned int *nw)
{
	*nw = 0;
	while (*s) {
		size_t n;

		while (*s == ' ')
			s++;
		n = strcspn(s, " ");
		if (n && *nw < 128)
			words[(*nw)++] = s;
		s += n;
	}
	(void)c;
}

static size_t word_len(const char *w)
{
	return strcspn(w, " ");
}

/* Build one candidate stack of about @target frames from template @t. */
static void build_stack(const struct tmpl *t, unsigned int target, struct sim_stack *st)
{
	const char *words[128], *hw[128];
	unsigned int nw, nh, i, j, fixed = 0;
	struct chain c = { .n = 0 };
	const char *ctx = NULL;
	const char *tp_tag;

	chain_words(&c, t->chain, words, &nw);
	chain_words(&c, helpers, hw, &nh);
	for (i = 0; i < nw; i++)
		if (words[i][0] != '*' && words[i][0] != '@')
			fixed++;
	for (i = 0; i < nw; i++) {
		if (words[i][0] == '*') {
			unsigned int want = target > fixed ? target - fixed : 0;
			unsigned int start = sim_rand() % nh;

			for (j = 0; j < want; j++) {
				/* Mostly a contiguous window, sometimes a jump. */
				if (sim_frand() < 0.2)
					start = sim_rand() % nh;
				chain_add(&c, hw[(start + j) % nh], word_len(hw[(start + j) % nh]));
			}
			continue;
		}
		if (words[i][0] == '@') {
			ctx = contexts[sim_rand() % (sizeof(contexts) / sizeof(contexts[0]))];
			continue;
		}
		chain_add(&c, words[i], word_len(words[i]));
	}
	if (ctx) {
		const char *cw[128];
		unsigned int ncw;

		chain_words(&c, ctx, cw, &ncw);
		for (i = 0; i < ncw; i++)
			chain_add(&c, cw[i], word_len(cw[i]));
	}

	tp_tag = sim_events[t->ev].name;
	st->ev = t->ev;
	st->nr = 0;
	for (i = 0; i < c.n && st->nr < SIM_MAX_FRAMES; i++) {
		const struct sim_sym *f = c.f[i];
		const char *callee = i ? c.f[i - 1]->name : tp_tag;
		uint32_t span = f->size > 12 ? f->size - 10 : 1;

		st->ips[st->nr++] = f->addr + 5 + str_hash(f->name, callee) % span;
	}
}

static bool stack_exists(const struct sim_stack *st, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct sim_stack *o = &sim.stacks[i];

		if (o->nr == st->nr && o->ips[0] == st->ips[0] &&
		    !memcmp(o->ips, st->ips, st->nr * sizeof(st->ips[0])))
			return true;
	}
	return false;
}

static unsigned int pick_depth(void)
{
	double r = sim_frand();

	if (r < 0.70)
		return 8 + sim_rand() % 13;	/* 8..20 */
	if (r < 0.95)
		return 20 + sim_rand() % 21;	/* 20..40 */
	return 40 + sim_rand() % 21;		/* 40..60 */
}

static const struct tmpl *pick_tmpl(void)
{
	unsigned int total = 0, i;
	uint64_t r;

	for (i = 0; i < sizeof(tmpls) / sizeof(tmpls[0]); i++)
		total += sim_events[tmpls[i].ev].weight;
	r = sim_rand() % total;
	for (i = 0; i < sizeof(tmpls) / sizeof(tmpls[0]); i++) {
		if (r < sim_events[tmpls[i].ev].weight)
			return &tmpls[i];
		r -= sim_events[tmpls[i].ev].weight;
	}
	return &tmpls[0];
}

static int gen_stacks(void)
{
	unsigned int n = sim.cfg.nstacks, ndeep, i, tries = 0;
	struct sim_stack *st;

	sim.stacks = calloc(n, sizeof(*sim.stacks));
	if (!sim.stacks)
		return -ENOMEM;
	ndeep = (unsigned int)(n * sim.cfg.deep_p);
	if (sim.cfg.deep_p > 0 && n >= 50 && ndeep < 2)
		ndeep = 2;
	ndeep &= ~1U;

	for (i = 0; i < n; tries++) {
		const struct tmpl *t = pick_tmpl();
		bool deep = i < ndeep;
		unsigned int target = deep ? 70 + sim_rand() % 12 : pick_depth();

		st = &sim.stacks[i];
		build_stack(t, target, st);
		if (deep && (st->nr <= SIM_MAP_MAX_DEPTH || st->nr >= SIM_MAX_FRAMES))
			continue;
		/* Not too shallow: at least 5 frames. */
		if (st->nr < 5)
			continue;
		/* An ftrace trampoline on the stack now and then. */
		if (!deep && sim_frand() < 0.03 && st->nr < SIM_MAX_FRAMES) {
			unsigned int at = 1 + sim_rand() % 2;

			memmove(&st->ips[at + 1], &st->ips[at], (st->nr - at) * sizeof(st->ips[0]));
			st->ips[at] = SIM_TRAMPOLINE;
			st->nr++;
		}
		if (stack_exists(st, i) && tries < 100000)
			continue;
		st->cls = t->cls;
		st->fsym = -1;
		i++;
		if (deep) {
			/* The twin: same first 64 frames, another tail. */
			struct sim_stack *tw = &sim.stacks[i];
			const struct sim_sym *h = syms_find(&sim.syms, "fsnotify");
			unsigned int k;

			*tw = *st;
			tw->fsym = -1;
			for (k = SIM_MAP_MAX_DEPTH; k < tw->nr; k++)
				tw->ips[k] = h->addr + 9 + k;
			i++;
		}
	}
	sim.nstacks = n;

	/* Per event: the stacks and a Zipf CDF over them (in random order). */
	for (i = 0; i < SIM_EV_MAX; i++) {
		unsigned int k, cnt = 0;
		double sum = 0;

		sim.ev_stacks[i] = calloc(n, sizeof(unsigned int));
		sim.ev_cdf[i] = calloc(n, sizeof(double));
		if (!sim.ev_stacks[i] || !sim.ev_cdf[i])
			return -ENOMEM;
		for (k = 0; k < n; k++)
			if (sim.stacks[k].ev == (enum sim_ev)i)
				sim.ev_stacks[i][cnt++] = k;
		for (k = cnt; k > 1; k--) {
			unsigned int j = sim_rand() % k, tmp = sim.ev_stacks[i][k - 1];

			sim.ev_stacks[i][k - 1] = sim.ev_stacks[i][j];
			sim.ev_stacks[i][j] = tmp;
		}
		for (k = 0; k < cnt; k++) {
			sum += 1.0 / pow(k + 1, 1.1);
			sim.ev_cdf[i][k] = sum;
		}
		for (k = 0; k < cnt; k++)
			sim.ev_cdf[i][k] /= sum;
		sim.ev_nstacks[i] = cnt;
	}
	return sim_gen_func_stacks();
}

/* ---- instances ---------------------------------------------------------- */

struct sim_inst *sim_inst_new(const char *name, bool top)
{
	struct sim_inst *in = calloc(1, sizeof(*in));
	unsigned int i;

	if (!in)
		return NULL;
	snprintf(in->name, sizeof(in->name), "%s", name);
	in->top = top;
	in->serial = sim.inst_serial++;
	in->tracing_on = true;
	in->expanded = !top;
	for (i = 0; i < sim_noptions; i++)
		in->opts[i] = top ? sim_options[i].def_top : sim_options[i].def_inst;
	snprintf(in->tracer, sizeof(in->tracer), "nop");
	snprintf(in->clock, sizeof(in->clock), "local");
	in->buffer_percent = 50;
	in->truth = calloc((size_t)sim.nall * SIM_TRUTH_COLS, sizeof(*in->truth));
	if (!in->truth || sim_ftrace_inst_init(in)) {
		sim_ftrace_inst_free(in);
		free(in->truth);
		free(in);
		return NULL;
	}
	for (i = 0; i < sim.cfg.cpus; i++)
		ring_init(&in->ring[i], sim.cfg.buffer_kb, in->truth);
	return in;
}

void sim_inst_free(struct sim_inst *in)
{
	unsigned int i;

	if (!in)
		return;
	for (i = 0; i < sim.cfg.cpus; i++)
		ring_free(&in->ring[i]);
	sim_ftrace_inst_free(in);
	free(in->truth);
	free(in);
}

void sim_inst_clear(struct sim_inst *in)
{
	unsigned int i;

	for (i = 0; i < sim.cfg.cpus; i++)
		ring_clear(&in->ring[i]);
}

/* Is @ev recorded (enabled) or watched (a trigger) where tracing is on? */
bool sim_inst_fireable(int ev)
{
	struct sim_inst *in;

	for (in = sim.insts; in; in = in->next)
		if (in->tracing_on && (in->enabled[ev] || in->trig[ev].on))
			return true;
	return false;
}

static bool inst_function_on(const struct sim_inst *in)
{
	return in->tracing_on && !strcmp(in->tracer, "function");
}

/* ---- recording ---------------------------------------------------------- */

static const struct {
	int pid;
	const char *comm;
	char cls;
} pids[] = {
	{ 1, "systemd", 'u' },
	{ 14, "ksoftirqd/0", 's' },
	{ 15, "rcu_preempt", 'k' },
	{ 312, "kworker/0:1", 'k' },
	{ 587, "jbd2/sda1-8", 'k' },
	{ 1024, "sshd", 'u' },
	{ 2296, "bash", 'u' },
	{ 3131, "make", 'u' },
	{ 3140, "cc1", 'u' },
	{ 4001, "postgres", 'u' },
	{ 4410, "nginx", 'u' },
	{ 5555, "stress-ng", 'u' },
};

#define NPIDS (sizeof(pids) / sizeof(pids[0]))

/**
 * sim_saved_cmdlines() - the saved_cmdlines text
 * @sb: output
 */
void sim_saved_cmdlines(struct sbuf *sb)
{
	unsigned int i;

	for (i = 0; i < NPIDS; i++)
		sbuf_printf(sb, "%d %s\n", pids[i].pid, pids[i].comm);
}

static unsigned int pick_pid(char cls)
{
	unsigned int i, n = 0, idx[NPIDS];

	if (cls == 'i' && sim_frand() < 0.6)
		return NPIDS;	/* idle: pid 0 */
	for (i = 0; i < NPIDS; i++)
		if (pids[i].cls == cls || (cls == 'i' && pids[i].cls == 'u') ||
		    (cls == 's' && pids[i].cls != 'k'))
			idx[n++] = i;
	if (!n)
		return NPIDS;
	return idx[sim_rand() % n];
}

static int pid_of(unsigned int p)
{
	return p < NPIDS ? pids[p].pid : 0;
}

static const char *comm_of(unsigned int p)
{
	return p < NPIDS ? pids[p].comm : "swapper/0";
}

struct fire {
	int cpu;
	int ev;		/* ordinary event, SIM_KP_EV(slot), or SIM_TRUTH_FUNC */
	unsigned int stack;
	unsigned int pidx;
	uint8_t flags;
	uint8_t preempt;
};

static void put_common(uint8_t *b, int type, const struct fire *f)
{
	uint16_t t = (uint16_t)type;
	int32_t pid = pid_of(f->pidx);

	memcpy(b, &t, 2);
	b[2] = f->flags;
	b[3] = f->preempt;
	memcpy(b + 4, &pid, 4);
}

static void put32(uint8_t *b, unsigned int off, int32_t v)
{
	memcpy(b + off, &v, 4);
}

static void put64(uint8_t *b, unsigned int off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static unsigned int build_event(const struct fire *f, uint8_t *b)
{
	const struct sim_stack *st = &sim.stacks[f->stack];
	unsigned int other = pick_pid('u');
	unsigned int len;
	static const char *const irqs[] = { "eth0-rx-0", "nvme0q1", "ahci[0000:00:1f.2]",
					    "i8042", "acpi" };
	const char *irqname;
	unsigned int r;

	memset(b, 0, 256);
	if (f->ev == SIM_TRUTH_FUNC) {
		/* ftrace/function: ip, parent_ip */
		put_common(b, sim_fevents[SIM_FEV_FUNCTION].id, f);
		put64(b, 8, sim.syms.v[st->fsym].addr);
		put64(b, 16, st->ips[1]);
		return sim_fevents[SIM_FEV_FUNCTION].size;
	}
	if (f->ev >= SIM_EV_MAX) {
		const struct sim_kprobe *kp = &sim.kprobes[f->ev - SIM_EV_MAX];

		put_common(b, kp->id, f);
		if (kp->ret) {
			put64(b, 8, sim.syms.v[kp->sym].addr);
			put64(b, 16, st->ips[1]);
		} else {
			put64(b, 8, sim.syms.v[kp->sym].addr + kp->offset);
		}
		sim_kprobe_fill(kp, b);
		return kp->size;
	}
	put_common(b, sim_events[f->ev].id, f);
	len = sim_events[f->ev].size;
	switch (f->ev) {
	case SIM_EV_SCHED_SWITCH:
		snprintf((char *)b + 8, 16, "%s", comm_of(f->pidx));
		put32(b, 24, pid_of(f->pidx));
		put32(b, 28, 120);
		/* prev_state: S, D or R (preempted); the idle task is R */
		r = sim_rand() % 20;
		put64(b, 32, f->pidx >= NPIDS ? 0 : r < 12 ? 1 : r < 15 ? 2 : 0);
		snprintf((char *)b + 40, 16, "%s", comm_of(other));
		put32(b, 56, pid_of(other));
		put32(b, 60, 120);
		break;
	case SIM_EV_SCHED_WAKEUP:
	case SIM_EV_SCHED_WAKING:
		snprintf((char *)b + 8, 16, "%s", comm_of(other));
		put32(b, 24, pid_of(other));
		put32(b, 28, 120);
		put32(b, 32, (int32_t)(sim_rand() % sim.cfg.cpus));
		break;
	case SIM_EV_KMALLOC: {
		uint64_t bytes = 8ULL << (sim_rand() % 9);

		put64(b, 8, st->nr > 1 ? st->ips[1] : st->ips[0]);
		put64(b, 16, 0xffff888100000000ULL + (sim_rand() & 0xffffff80ULL));
		put64(b, 24, bytes - sim_rand() % 8);
		put64(b, 32, bytes);
		put64(b, 40, 0xcc0);	/* GFP_KERNEL */
		put32(b, 48, -1);
		break;
	}
	case SIM_EV_KFREE:
		put64(b, 8, st->nr > 1 ? st->ips[1] : st->ips[0]);
		put64(b, 16, 0xffff888100000000ULL + (sim_rand() & 0xffffff80ULL));
		break;
	case SIM_EV_IRQ_ENTRY:
		irqname = irqs[f->stack % 5];
		put32(b, 8, 24 + (int32_t)(f->stack % 5));
		/* __data_loc: length << 16 | offset */
		put32(b, 12, (int32_t)(((strlen(irqname) + 1) << 16) | 16));
		memcpy(b + 16, irqname, strlen(irqname) + 1);
		len = 16 + strlen(irqname) + 1;
		break;
	case SIM_EV_IRQ_EXIT:
		put32(b, 8, 24 + (int32_t)(f->stack % 5));
		put32(b, 12, 1);
		break;
	case SIM_EV_HRTIMER_ENTRY:
		put64(b, 8, 0xffffc90000000000ULL + (sim_rand() & 0xfff0));
		put64(b, 16, (int64_t)sim_clock());
		put64(b, 24, st->ips[0]);
		break;
	default:
		break;
	}
	return len;
}

static uint64_t next_ts(int cpu)
{
	uint64_t now = sim_clock(), t = sim.cpu_ts[cpu] + 40 + sim_rand() % 400;

	if (now > t)
		t = now;
	sim.cpu_ts[cpu] = t;
	return t;
}

static bool want_abs(void)
{
	return sim.cfg.abs_p > 0 && sim_frand() < sim.cfg.abs_p;
}

static void note_id(struct sim_stack *st, int id)
{
	unsigned int i;

	for (i = 0; i < st->nids; i++)
		if (st->ids[i] == id)
			return;
	if (st->nids < SIM_MAX_IDS)
		st->ids[st->nids++] = id;
}

/* The stack record of @f for instance @in: a stack_id or a kernel_stack. */
static void record_stack(struct sim_inst *in, const struct fire *f, uint64_t ts)
{
	struct sim_stack *st = &sim.stacks[f->stack];
	struct sim_ring *r = &in->ring[f->cpu];
	int64_t tidx = (int64_t)f->stack * SIM_TRUTH_COLS + f->ev;
	uint8_t b[16 + 8 * SIM_MAX_FRAMES];
	unsigned int len;
	int stackmap = sim_option_index("stackmap");

	memset(b, 0, sizeof(b));
	if (in->top && sim.map_live && in->opts[stackmap] &&
	    !(sim.cfg.abi >= 4 && st->nr > SIM_MAP_MAX_DEPTH)) {
		bool race = st->race_pending && st->nids > 0;
		bool fresh;
		int id;

		/* v4 reserves the slot first: a full ring leaves the map alone. */
		if (ring_would_drop(r, 12)) {
			r->dropped++;
			return;
		}
		id = map_get_id(&sim.map, sim.cfg.abi, st->ips, st->nr, race, &fresh);
		if (id >= 0) {
			if (race) {
				st->race_pending = false;
				sim.races++;
			} else if (fresh && sim.cfg.race_p > 0 && sim_frand() < sim.cfg.race_p) {
				st->race_pending = true;
			}
			note_id(st, id);
			put_common(b, sim.cfg.stack_id_type, f);
			put32(b, 8, id);
			if (!ring_write(r, ts, b, 12, tidx, want_abs()))
				in->truth[tidx].as_id++;
			return;
		}
	}
	put_common(b, sim_fevents[SIM_FEV_KERNEL_STACK].id, f);
	put32(b, 8, (int32_t)st->nr);
	memcpy(b + 16, st->ips, st->nr * 8);
	len = 16 + st->nr * 8;
	if (!ring_write(r, ts, b, len, tidx, want_abs()))
		in->truth[tidx].fallback++;
}

/*
 * User stacks (options/userstacktrace): ftrace_trace_userstack() writes,
 * after the event's kernel stack, a user_stack record of the current task:
 * its tgid (here: the pid, the simulator has no threads) and 8 longs from
 * the frame-pointer walk, zero after the last. A kernel thread (and the
 * idle task) walks nothing: all zero. The synthetic addresses say who and
 * where (doc/simulator.md): SIM_USER_BASE | pid << 24 | stack << 8 |
 * frame << 4, frame 0 the leaf; SIM_USER_DEPTH frames, of which the kernel
 * keeps the first 8.
 */
#define SIM_USER_BASE 0x560000000000ULL

static unsigned int user_depth(int pid, unsigned int stack)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | stack) * 0x9e3779b97f4a7c15ULL;

	return 2 + (unsigned int)(h >> 60) % 9; /* 2..10 */
}

static void record_user_stack(struct sim_inst *in, const struct fire *f, uint64_t ts)
{
	uint8_t b[16 + 8 * 8];
	int pid = pid_of(f->pidx);
	unsigned int i, d;

	memset(b, 0, sizeof(b));
	put_common(b, sim_fevents[SIM_FEV_USER_STACK].id, f);
	put32(b, 8, pid);
	if (f->pidx < NPIDS && pids[f->pidx].cls == 'u') {
		d = user_depth(pid, f->stack);
		for (i = 0; i < d && i < 8; i++)
			put64(b, 16 + 8 * i, SIM_USER_BASE | (uint64_t)pid << 24 |
						     (uint64_t)(f->stack & 0xffff) << 8 | i << 4);
	}
	if (!ring_write(&in->ring[f->cpu], ts, b, sizeof(b), -1, want_abs()))
		sim.ustacks++;
}

static unsigned int pick_stack(enum sim_ev ev)
{
	double r = sim_frand();
	unsigned int lo = 0, hi = sim.ev_nstacks[ev];

	if (!hi)
		return sim_rand() % sim.nstacks;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (sim.ev_cdf[ev][mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= sim.ev_nstacks[ev])
		lo = sim.ev_nstacks[ev] - 1;
	return sim.ev_stacks[ev][lo];
}

#define FUNC_WEIGHT	40	/* the function tracer, against the events' weights */
#define KPROBE_WEIGHT	10

/*
 * Candidate function stacks per function tracer (slot 0) and kprobe (1 + k),
 * recomputed when the tree was written to (sim.cfg_gen moved).
 */
static unsigned int *cand[SIM_MAX_KPROBES + 1];
static unsigned int ncand[SIM_MAX_KPROBES + 1];
static uint64_t cand_gen[SIM_MAX_KPROBES + 1];

/*
 * The function stacks a function entry (@kp < 0) or kprobe @kp could come
 * from: those entering a function some instance traces / the probed one.
 */
static unsigned int func_candidates(int kp)
{
	unsigned int s, n = 0, c = (unsigned int)(kp + 1);

	if (cand_gen[c] == sim.cfg_gen + 1)
		return ncand[c];
	if (!cand[c]) {
		cand[c] = malloc((sim.nfstacks + 1) * sizeof(*cand[c]));
		if (!cand[c])
			abort();
	}
	for (s = sim.nstacks; s < sim.nall; s++) {
		const struct sim_stack *st = &sim.stacks[s];
		const struct sim_inst *in;

		if (kp >= 0) {
			if (st->fsym == sim.kprobes[kp].sym)
				cand[c][n++] = s;
			continue;
		}
		for (in = sim.insts; in; in = in->next)
			if (inst_function_on(in) && sim_func_traced(in, st->fsym))
				break;
		if (in)
			cand[c][n++] = s;
	}
	ncand[c] = n;
	cand_gen[c] = sim.cfg_gen + 1;
	return n;
}

static bool kprobe_fireable(int k)
{
	return sim.kprobes[k].live && sim_inst_fireable(SIM_KP_EV(k)) && func_candidates(k);
}

static bool function_fireable(void)
{
	const struct sim_inst *in;

	for (in = sim.insts; in; in = in->next)
		if (inst_function_on(in))
			return func_candidates(-1) > 0;
	return false;
}

/* An event to fire: ordinary, SIM_KP_EV(k), SIM_TRUTH_FUNC, or -1. */
static int pick_event(void)
{
	unsigned int total = 0, i, w[SIM_TRUTH_COLS] = { 0 };
	uint64_t r;

	for (i = 0; i < SIM_EV_MAX; i++)
		if (sim_inst_fireable(i) && sim.ev_nstacks[i])
			w[i] = sim_events[i].weight;
	for (i = 0; i < SIM_MAX_KPROBES; i++)
		if (kprobe_fireable((int)i))
			w[SIM_KP_EV(i)] = KPROBE_WEIGHT;
	if (function_fireable())
		w[SIM_TRUTH_FUNC] = FUNC_WEIGHT;
	for (i = 0; i < SIM_TRUTH_COLS; i++)
		total += w[i];
	if (!total)
		return -1;
	r = sim_rand() % total;
	for (i = 0; i < SIM_TRUTH_COLS; i++) {
		if (r < w[i])
			return (int)i;
		r -= w[i];
	}
	return -1;
}

/* A function stack for a function entry or kprobe (more often the first ones). */
static unsigned int pick_func_stack(int ev)
{
	int kp = ev == SIM_TRUTH_FUNC ? -1 : ev - SIM_EV_MAX;
	unsigned int n = func_candidates(kp);
	double u = sim_frand();

	if (!n)
		return 0;
	return cand[kp + 1][(unsigned int)(u * u * n) % n];
}

static void flags_for(struct fire *f)
{
	char cls = sim.stacks[f->stack].cls;

	switch (f->ev) {
	case SIM_EV_SCHED_SWITCH:
		f->flags = 0x01;		/* irqs off */
		f->preempt = 0x02;
		break;
	case SIM_EV_SCHED_WAKEUP:
	case SIM_EV_SCHED_WAKING:
		f->flags = 0x01;
		f->preempt = 0x03;
		break;
	case SIM_EV_IRQ_ENTRY:
	case SIM_EV_IRQ_EXIT:
	case SIM_EV_HRTIMER_ENTRY:
		f->flags = 0x09;		/* irqs off, hardirq */
		f->preempt = 0x01;
		break;
	default:
		f->flags = 0;
		f->preempt = 0;
		break;
	}
	if (cls == 's')
		f->flags |= 0x10;		/* softirq */
	else if (cls == 'i' && f->ev != SIM_EV_SCHED_SWITCH)
		f->flags |= 0x09;
}

/* An event that can happen in hard interrupt context, if one is enabled. */
static int pick_irq_event(void)
{
	static const enum sim_ev order[] = { SIM_EV_IRQ_ENTRY, SIM_EV_HRTIMER_ENTRY,
					     SIM_EV_SCHED_WAKING, SIM_EV_SCHED_WAKEUP,
					     SIM_EV_KMALLOC, SIM_EV_KFREE };
	unsigned int i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (sim_inst_fireable(order[i]) && sim.ev_nstacks[order[i]])
			return order[i];
	return -1;
}

/* Does instance @in record (or watch, through a trigger) what @f fires? */
static bool inst_takes(const struct sim_inst *in, const struct fire *f)
{
	if (!in->tracing_on)
		return false;
	if (f->ev == SIM_TRUTH_FUNC)
		return !strcmp(in->tracer, "function") &&
		       sim_func_traced(in, sim.stacks[f->stack].fsym);
	return in->enabled[f->ev] || in->trig[f->ev].on;
}

/*
 * Record @f on its CPU in every instance that takes it.  Per instance, as
 * the kernel: the event is committed if enabled and its filter passes; a
 * stacktrace trigger is evaluated on the record (its own filter, its count)
 * even when the event itself is only soft-enabled or filtered out; then the
 * stacks: options/stacktrace (func_stack_trace for the function tracer)
 * after a committed record, and the trigger's (a post trigger) after that.
 */
static void fire(struct fire *f, bool may_nest)
{
	struct sim_inst *in, *hit[64];
	bool stack_opt[64], stack_trig[64], ustack[64];
	uint8_t b[256];
	unsigned int n = 0, i, len;
	uint64_t ts;
	int st_opt = sim_option_index("stacktrace"), fst_opt = sim_option_index("func_stack_trace");
	int ust_opt = sim_option_index("userstacktrace");

	for (in = sim.insts; in && n < 64; in = in->next)
		if (inst_takes(in, f))
			hit[n++] = in;
	if (!n)
		return;
	sim.fired++;
	len = build_event(f, b);
	ts = next_ts(f->cpu);
	for (i = 0; i < n; i++) {
		bool commit = true;

		in = hit[i];
		stack_trig[i] = false;
		ustack[i] = false;
		if (f->ev == SIM_TRUTH_FUNC) {
			/* trace_function() writes no user stack */
			stack_opt[i] = in->opts[fst_opt];
		} else {
			struct sim_trigger *t = &in->trig[f->ev];

			commit = in->enabled[f->ev] && filter_match(in->filter[f->ev], f->ev, b, len);
			if (t->on && t->count != 0 && filter_match(t->filter, f->ev, b, len)) {
				stack_trig[i] = true;
				if (t->count > 0)
					t->count--;
			}
			stack_opt[i] = commit && in->opts[st_opt];
			/* trace_buffer_unlock_commit_regs(): committed events only */
			ustack[i] = commit && in->opts[ust_opt];
		}
		if (commit)
			ring_write(&in->ring[f->cpu], ts, b, len, -1, want_abs());
	}

	if (may_nest && sim.cfg.nest_p > 0 && sim_frand() < sim.cfg.nest_p) {
		/* An interrupt between the event and its stack. */
		struct fire irq = { .cpu = f->cpu };
		int ev = pick_irq_event();

		if (ev >= 0) {
			irq.ev = ev;
			irq.stack = pick_stack(ev);
			irq.pidx = f->pidx;
			flags_for(&irq);
			irq.flags |= 0x09;
			irq.preempt = (uint8_t)(f->preempt + 1);
			sim.nested++;
			fire(&irq, false);
		}
	}

	ts = next_ts(f->cpu);
	for (i = 0; i < n; i++) {
		bool any = false;

		if (stack_opt[i]) {
			record_stack(hit[i], f, ts);
			any = true;
		}
		/* the user stack comes after the kernel one, before the post trigger's */
		if (ustack[i]) {
			record_user_stack(hit[i], f, any ? next_ts(f->cpu) : ts);
			any = true;
		}
		if (stack_trig[i])
			record_stack(hit[i], f, any ? next_ts(f->cpu) : ts);
		sim_notify_data(&hit[i]->ring[f->cpu]);
	}
}

/**
 * sim_fire_random() - record one event of a random enabled type on @cpu
 * @cpu: CPU
 *
 * Return: 1 if an event was recorded, 0 if nothing is enabled anywhere.
 */
unsigned int sim_fire_random(int cpu)
{
	struct fire f = { .cpu = cpu };
	int ev = pick_event();

	if (ev < 0)
		return 0;
	f.ev = ev;
	f.stack = ev < SIM_EV_MAX ? pick_stack(ev) : pick_func_stack(ev);
	f.pidx = pick_pid(sim.stacks[f.stack].cls);
	flags_for(&f);
	fire(&f, true);
	return 1;
}

/**
 * sim_emit() - step mode: record exactly @count events
 * @count: events
 * @cpu: CPU, or -1 for round robin
 *
 * Return: events recorded (fewer when nothing is enabled or tracing is off).
 */
unsigned int sim_emit(unsigned int count, int cpu)
{
	unsigned int i, n = 0;

	for (i = 0; i < count; i++) {
		int c = cpu >= 0 ? cpu : (int)(sim.rr_cpu++ % sim.cfg.cpus);

		/* Now and then a long idle gap: the next record needs a time extend. */
		if (sim.cfg.gap_p > 0 && sim_frand() < sim.cfg.gap_p)
			sim.skew += 150000000ULL + sim_rand() % 400000000ULL;
		n += sim_fire_random(c);
	}
	sim.emitted += n;
	return n;
}

/**
 * sim_fill_pool() - use up the map's pool with stacks nobody will trace
 * again (other users of the map), leaving @keep_free elements
 * @keep_free: elements left free
 */
void sim_fill_pool(unsigned int keep_free)
{
	uint64_t ips[16];
	unsigned int i, guard = 0;
	bool fresh;

	while (sim.map.next_elt + keep_free < sim.map.max_elts && guard++ < 4 * sim.map.size) {
		for (i = 0; i < 16; i++)
			ips[i] = sim.syms.v[sim_rand() % sim.syms.n].addr + 1 + sim_rand() % 8;
		map_get_id(&sim.map, sim.cfg.abi, ips, 16, false, &fresh);
	}
}

/**
 * sim_map_reset() - reset the map (a new generation)
 * @clear_rings: also clear the top-level ring buffers (v4)
 */
void sim_map_reset(bool clear_rings)
{
	unsigned int i;

	map_reset(&sim.map);
	for (i = 0; i < sim.nall; i++) {
		sim.stacks[i].nids = 0;
		sim.stacks[i].race_pending = false;
	}
	sim.generation++;
	if (clear_rings)
		sim_inst_clear(sim.insts);
}

/**
 * sim_truth_render() - the .sim/truth file
 * @sb: output
 *
 * One line per (instance, event, stack) with at least one stack record
 * written: counts, the stack's ids in the current map generation, depth and
 * the frames in hex, innermost first.
 */
void sim_truth_render(struct sbuf *sb)
{
	struct sim_inst *in;
	unsigned int s, e, i;

	sbuf_printf(sb, "# generation %u\n", sim.generation);
	sbuf_printf(sb, "# instance event stack written read lost cleared as_id fallback "
		    "ids depth frames [func=FUNCTION]\n");
	for (in = sim.insts; in; in = in->next) {
		for (s = 0; s < sim.nall; s++) {
			const struct sim_stack *st = &sim.stacks[s];

			for (e = 0; e < SIM_TRUTH_COLS; e++) {
				const struct sim_truth *t = &in->truth[(size_t)s * SIM_TRUTH_COLS + e];
				const char *sys = "ftrace", *name = "function";

				if (!t->written)
					continue;
				if (e < SIM_EV_MAX) {
					sys = sim_events[e].sys;
					name = sim_events[e].name;
				} else if (e < SIM_NEV) {
					sys = sim.kprobes[e - SIM_EV_MAX].group;
					name = sim.kprobes[e - SIM_EV_MAX].name;
				}
				sbuf_printf(sb, "%s%s %s:%s %u %llu %llu %llu %llu %llu %llu ",
					    in->top ? "top" : "instances/", in->top ? "" : in->name,
					    sys, name, s,
					    (unsigned long long)t->written,
					    (unsigned long long)t->read,
					    (unsigned long long)t->lost,
					    (unsigned long long)t->cleared,
					    (unsigned long long)t->as_id,
					    (unsigned long long)t->fallback);
				if (!st->nids)
					sbuf_add(sb, "-", 1);
				for (i = 0; i < st->nids; i++)
					sbuf_printf(sb, "%s%d", i ? "," : "", st->ids[i]);
				sbuf_printf(sb, " %u ", st->nr);
				for (i = 0; i < st->nr; i++)
					sbuf_printf(sb, "%s%llx", i ? "," : "",
						    (unsigned long long)st->ips[i]);
				if (st->fsym >= 0)
					sbuf_printf(sb, " func=%s", sim.syms.v[st->fsym].name);
				sbuf_add(sb, "\n", 1);
			}
		}
	}
}

void sim_truth_clear(void)
{
	struct sim_inst *in;

	for (in = sim.insts; in; in = in->next)
		memset(in->truth, 0, (size_t)sim.nall * SIM_TRUTH_COLS * sizeof(*in->truth));
}

/**
 * sim_generator() - the timed generator thread: --rate events per second
 * per CPU while something is enabled, with idle spells now and then
 * @arg: unused
 */
void *sim_generator(void *arg)
{
	uint64_t last = mono_ns(), idle_until[SIM_MAX_CPUS] = { 0 };
	double acc[SIM_MAX_CPUS] = { 0 };
	unsigned int cpu;

	for (;;) {
		uint64_t now;
		double dt;

		usleep(10000);
		pthread_mutex_lock(&sim.lock);
		now = mono_ns();
		dt = (double)(now - last) / 1e9;
		last = now;
		if (sim.paused || sim.cfg.step || !sim.cfg.rate) {
			pthread_mutex_unlock(&sim.lock);
			continue;
		}
		for (cpu = 0; cpu < sim.cfg.cpus; cpu++) {
			unsigned int n, i;

			if (idle_until[cpu] > now)
				continue;
			if (sim.cfg.gap_p > 0 && sim_frand() < sim.cfg.gap_p * 5) {
				/* An idle CPU: > 2^27 ns until its next record. */
				idle_until[cpu] = now + 150000000ULL + sim_rand() % 250000000ULL;
				acc[cpu] = 0;
				continue;
			}
			acc[cpu] += sim.cfg.rate * dt;
			n = (unsigned int)acc[cpu];
			acc[cpu] -= n;
			if (n > sim.cfg.rate)
				n = sim.cfg.rate;
			for (i = 0; i < n; i++)
				sim_fire_random(cpu);
		}
		pthread_mutex_unlock(&sim.lock);
	}
	return NULL;
}

int sim_gen_init(void)
{
	uint64_t base = 0xffffffff81000000ULL;
	int ret;

	sim.next_kprobe_id = 1800;	/* dynamic event IDs, after the static ones */
	sim.rng = sim.cfg.seed * 0x9e3779b97f4a7c15ULL + 0x2545F4914F6CDD1DULL;
	if (!sim.rng)
		sim.rng = 1;
	if (sim.cfg.kaslr)
		base += (sim_rand() % 256) * 0x200000ULL;
	ret = syms_init(&sim.syms, base);
	if (ret)
		return ret;
	ret = map_init(&sim.map, sim.cfg.bits, (uint32_t)sim_rand());
	if (ret)
		return ret;
	return gen_stacks();
}

void sim_gen_free(void)
{
	unsigned int i;

	for (i = 0; i < SIM_EV_MAX; i++) {
		free(sim.ev_stacks[i]);
		free(sim.ev_cdf[i]);
	}
	free(sim.stacks);
	for (i = 0; i <= SIM_MAX_KPROBES; i++) {
		free(cand[i]);
		cand[i] = NULL;
	}
	map_free(&sim.map);
	syms_free(&sim.syms);
}
