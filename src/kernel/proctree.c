// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proctree.c - see proctree.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/hmap.h"
#include "kernel/proctree.h"

#define PROCTREE_RCVBUF (4 << 20) /* some 5000 fork reports between two reads */
#define PROCTREE_DEPTH	64	  /* parents walked up in /proc at most */

/* what the map says of a tid */
#define OUTSIDE 1
#define INSIDE	2

struct proctree {
	int root;
	int fd;	 /* the connector's socket, -1 without */
	int err; /* why there is none */
	uint64_t lost;
	struct hmap known; /* tid -> OUTSIDE or INSIDE */
};

/* subscribe (@op: PROC_CN_MCAST_LISTEN or _IGNORE) */
static int cn_send(int fd, enum proc_cn_mcast_op op)
{
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) m;

	memset(&m, 0, sizeof(m));
	m.nl.nlmsg_len = sizeof(m);
	m.nl.nlmsg_type = NLMSG_DONE;
	m.nl.nlmsg_pid = 0;
	m.cn.id.idx = CN_IDX_PROC;
	m.cn.id.val = CN_VAL_PROC;
	m.cn.len = sizeof(m.op);
	m.op = op;
	return send(fd, &m, sizeof(m), 0) < 0 ? -errno : 0;
}

static int cn_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int fd, size = PROCTREE_RCVBUF, r;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	/* root may go past rmem_max; a plain SO_RCVBUF is the fallback */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	r = cn_send(fd, PROC_CN_MCAST_LISTEN);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

struct proctree *proctree_new(int root)
{
	struct proctree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->root = root;
	hmap_init(&t->known);
	if (hmap_put(&t->known, (uint64_t)root, INSIDE) < 0) {
		free(t);
		return NULL;
	}
	t->fd = cn_open();
	if (t->fd < 0) {
		t->err = t->fd;
		t->fd = -1;
	}
	return t;
}

int proctree_error(const struct proctree *t)
{
	return t->err;
}

uint64_t proctree_lost(const struct proctree *t)
{
	return t->lost;
}

static bool is_inside(const struct proctree *t, int pid)
{
	uint64_t v;

	return hmap_get(&t->known, (uint64_t)pid, &v) && v == INSIDE;
}

static void on_fork(struct proctree *t, const struct fork_proc_event *f)
{
	/* a process a member started, or a thread of a member */
	if (is_inside(t, f->parent_tgid) || is_inside(t, f->child_tgid)) {
		hmap_put(&t->known, (uint64_t)f->child_pid, INSIDE);
		hmap_put(&t->known, (uint64_t)f->child_tgid, INSIDE);
	} else if (hmap_get(&t->known, (uint64_t)f->child_pid, NULL)) {
		/* a pid we knew, taken by a process outside */
		hmap_put(&t->known, (uint64_t)f->child_pid, OUTSIDE);
	}
}

void proctree_update(struct proctree *t)
{
	union {
		struct nlmsghdr nl;
		char buf[8192];
	} u;
	ssize_t n;

	if (t->fd < 0)
		return;
	for (;;) {
		struct nlmsghdr *h;

		n = recv(t->fd, u.buf, sizeof(u.buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			t->lost++; /* the /proc walk stands in for what was dropped */
			continue;
		}
		if (n <= 0)
			break;
		for (h = &u.nl; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			struct cn_msg *cn = NLMSG_DATA(h);
			struct proc_event ev;

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(ev)) ||
			    cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
				continue;
			/* at offset 36 of the message: copied out, it wants 8-byte alignment */
			memcpy(&ev, cn->data, sizeof(ev));
			if (ev.what == PROC_EVENT_FORK)
				on_fork(t, &ev.event_data.fork);
		}
	}
}

/* Tgid and PPid of a live thread, from /proc/<tid>/status */
static int proc_ids(int tid, int *tgid, int *ppid)
{
	char path[64], line[128];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (found < 2 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Tgid: %d", tgid) == 1 || sscanf(line, "PPid: %d", ppid) == 1)
			found++;
	}
	fclose(f);
	return found == 2 ? 0 : -EINVAL;
}

/* the /proc walk: @tid's process, then its parents, up to one known */
static bool walk_proc(struct proctree *t, int tid)
{
	int pid = tid, depth, tgid, ppid;
	uint64_t v;

	for (depth = 0; depth < PROCTREE_DEPTH && pid > 1; depth++) {
		if (hmap_get(&t->known, (uint64_t)pid, &v))
			return v == INSIDE;
		if (proc_ids(pid, &tgid, &ppid) < 0)
			return false;
		if (tgid != pid) {
			pid = tgid; /* a thread: its process decides */
			continue;
		}
		pid = ppid;
	}
	return false;
}

bool proctree_has(struct proctree *t, int tid)
{
	uint64_t v;
	bool in;

	if (tid <= 0)
		return false;
	if (hmap_get(&t->known, (uint64_t)tid, &v))
		return v == INSIDE;
	/* a fork not read yet, or one the socket dropped, or no socket */
	in = walk_proc(t, tid);
	hmap_put(&t->known, (uint64_t)tid, in ? INSIDE : OUTSIDE);
	return in;
}

void proctree_free(struct proctree *t)
{
	if (!t)
		return;
	if (t->fd >= 0) {
		cn_send(t->fd, PROC_CN_MCAST_IGNORE);
		close(t->fd);
	}
	hmap_done(&t->known);
	free(t);
}

/* a process of /proc as the descendants' walk sees it */
struct proc_ent {
	int pid;
	int ppid;
	char state;
	unsigned long long start;
};

/* state, parent and start time (clock ticks after boot) of @pid, from /proc/<pid>/stat */
static int proc_stat(int pid, struct proc_ent *e)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	int fd, ppid, i;
	ssize_t n;
	char st;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* the comm may hold anything, ')' too: the last one ends it */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", &st, &ppid) != 2)
		return -EBADMSG;
	/* field 22 (starttime): 20 fields after the comm's ')' */
	for (i = 0; i < 19 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return -EBADMSG;
	e->pid = pid;
	e->ppid = ppid;
	e->state = st;
	e->start = start;
	return 0;
}

/* every process of /proc, to *@ret (freed by the caller) */
static int proc_list(struct proc_ent **ret, size_t *ret_n)
{
	struct proc_ent *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > INT_MAX)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		if (proc_stat((int)pid, &v[n]) == 0)
			n++;
	}
	closedir(d);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* signal @e (still the process the walk saw, its parent still in @in) */
static void signal_checked(const struct proc_ent *e, const struct hmap *in, int sig)
{
	struct proc_ent now;
	int pfd = (int)syscall(SYS_pidfd_open, e->pid, 0);

	if (pfd < 0 && errno != ENOSYS)
		return; /* gone */
	/* (with the pidfd open, the pid cannot be reused: what it is now is what we signal) */
	if (proc_stat(e->pid, &now) < 0 || now.start != e->start ||
	    !hmap_get(in, (uint64_t)now.ppid, NULL)) {
		if (pfd >= 0)
			close(pfd);
		return;
	}
	if (pfd >= 0) {
		syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0);
		close(pfd);
	} else {
		kill(e->pid, sig); /* no pidfds (before Linux 5.3): checked just above */
	}
}

int proctree_signal_descendants(int ancestor, int sig)
{
	struct proc_ent *v;
	struct hmap in;
	size_t n, i;
	bool grew = true;
	int r, live = 0;

	r = proc_list(&v, &n);
	if (r < 0)
		return r;
	hmap_init(&in);
	if (hmap_put(&in, (uint64_t)ancestor, 1) < 0) {
		free(v);
		return -ENOMEM;
	}
	/* a pass per generation (children before their parents in /proc's order) */
	while (grew) {
		grew = false;
		for (i = 0; i < n; i++) {
			if (v[i].pid == ancestor || hmap_get(&in, (uint64_t)v[i].pid, NULL) ||
			    !hmap_get(&in, (uint64_t)v[i].ppid, NULL))
				continue;
			if (hmap_put(&in, (uint64_t)v[i].pid, 1) < 0) {
				hmap_done(&in);
				free(v);
				return -ENOMEM;
			}
			grew = true;
		}
	}
	for (i = 0; i < n; i++) {
		if (v[i].pid == ancestor || v[i].state == 'Z' ||
		    !hmap_get(&in, (uint64_t)v[i].pid, NULL))
			continue;
		live++;
		if (sig)
			signal_checked(&v[i], &in, sig);
	}
	hmap_done(&in);
	free(v);
	return live;
}
