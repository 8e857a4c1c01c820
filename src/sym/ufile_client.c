// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ufile_client.c - ufile.h's calls as the run makes them: without
 * ufile_reader_start() in the caller's process (ufile.c's checks, real
 * descriptors); after it, every open and read of a file is a request to a
 * reader process (ufile_reader.c, protocol in ufile_priv.h) and the
 * descriptors the callers hold are handles (UFILE_HBASE and up: no real
 * descriptor is that high) naming the reader's.
 *
 * Every answer is waited for with a deadline (UFILE_DEADLINE_MS a
 * message: a read's chunks each have theirs, so a large file read from a
 * slow disk goes on while it moves). Past it the request is abandoned:
 * the reader is killed (it ends when the kernel lets go of it), the device
 * of the file is not asked about again, the request fails with
 * -ETIMEDOUT (the caller shows the frame as unread), and the next request
 * goes to a new reader. After UFILE_STALLS_MAX stalls, or one once a stop
 * signal came, no file is read any more: the run's waits stay bounded
 * whatever users put behind their files. A handle opened by a reader
 * that was abandoned since is opened again by the new one, checked to be
 * the same device and inode.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "sym/ufile_priv.h"

#define UFILE_HBASE	  (1 << 30) /* handles; descriptors are below (fs.nr_open) */
#define UFILE_STOP_MS	  100	    /* the deadline once a stop signal came */
#define UFILE_STALLED_DEV 16	    /* devices remembered as stalled */

/* an open file of the reader's, as the run holds it */
struct uhandle {
	bool used;
	bool mapped; /* ufile_open_mapped() (else ufile_open_at()) */
	bool has_path;
	uint32_t gen; /* the reader that holds @slot */
	int32_t slot;
	uint32_t pid, flags;
	uint64_t start, end;
	struct ufile_want want; /* with the device and inode first opened */
	struct ufile_stat st;
	char *path;
	char proc[64];
};

static struct {
	bool started;	 /* ufile_reader_start() was called */
	bool gave_up;	 /* no file is read any more */
	bool spawning;	 /* a reader asked of the zygote, not received yet */
	int zsock;	 /* the zygote's socket, -1: none */
	int sock;	 /* the reader's, -1: none now */
	int pidfd;	 /* the reader's pidfd, -1: none */
	pid_t pid;	 /* the reader's pid */
	uint32_t gen;	 /* bumped for every reader */
	unsigned int ms; /* the deadline */
	const volatile sig_atomic_t *stop;
	struct uhandle *h;
	size_t nh;
	uint64_t stalled_dev[UFILE_STALLED_DEV];
	unsigned int nstalled_dev;
	struct ufile_reader_stats stats;
	pthread_mutex_t lock;
} R = {
	.zsock = -1,
	.sock = -1,
	.pidfd = -1,
	.ms = UFILE_DEADLINE_MS,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static bool stopping(void)
{
	return R.stop && *R.stop;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * @fd readable within the deadline: 0, or -ETIMEDOUT. A stop signal
 * shortens the wait to UFILE_STOP_MS from then on.
 */
static int wait_in(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t t0 = now_ms(), ms = stopping() && R.ms > UFILE_STOP_MS ? UFILE_STOP_MS : R.ms;

	for (;;) {
		uint64_t el = now_ms() - t0;
		int r;

		if (el >= ms)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)(ms - el));
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
		if (stopping() && ms - el > UFILE_STOP_MS) {
			t0 = now_ms();
			ms = UFILE_STOP_MS;
		}
	}
}

static bool dev_stalled(uint64_t dev)
{
	unsigned int i;

	for (i = 0; dev && i < R.nstalled_dev; i++)
		if (R.stalled_dev[i] == dev)
			return true;
	return false;
}

/* the reader let go of: killed, its socket closed (never waited for) */
static void reader_drop(void)
{
	if (R.pidfd >= 0) {
		syscall(SYS_pidfd_send_signal, R.pidfd, SIGKILL, NULL, 0);
		close(R.pidfd);
	}
	if (R.sock >= 0)
		close(R.sock);
	R.sock = R.pidfd = -1;
	R.pid = 0;
}

/* a request unanswered in time: its reader abandoned, its device not asked again */
static void stalled(uint64_t dev, const char *what)
{
	reader_drop();
	R.stats.stalls++;
	if (dev && !dev_stalled(dev) && R.nstalled_dev < UFILE_STALLED_DEV)
		R.stalled_dev[R.nstalled_dev++] = dev;
	log_info("files of other users: %.200s did not answer within %u ms: abandoned", what,
		 stopping() ? UFILE_STOP_MS : R.ms);
	if (!R.gave_up && (R.stats.stalls >= UFILE_STALLS_MAX || stopping())) {
		R.gave_up = true;
		R.stats.gave_up = true;
		log_warn("files of other users: %u reads stalled (a file a user made block): "
			 "no more are read in this run; their frames show the file offset",
			 (unsigned int)R.stats.stalls);
	}
}

/* the reader's socket and pidfd, from the zygote's answer */
static int zygote_recv(void)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	int32_t pid = -1;
	struct iovec iov = { &pid, sizeof(pid) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int fds[2] = { -1, -1 };
	ssize_t n;

	n = recvmsg(R.zsock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n != (ssize_t)sizeof(pid))
		return -EPROTO;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(fds, CMSG_DATA(c),
			       c->cmsg_len >= CMSG_LEN(2 * sizeof(int)) ? 2 * sizeof(int)
									: sizeof(int));
	if (pid <= 0 || fds[0] < 0) {
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		return -EAGAIN;
	}
	R.sock = fds[0];
	R.pidfd = fds[1];
	R.pid = pid;
	ufile_helper_add(pid);
	return 0;
}

/* a reader that died since its last answer (its end closed) let go of */
static void reader_check(void)
{
	struct pollfd p = { .fd = R.sock, .events = 0 };

	if (R.sock >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR)))
		reader_drop();
}

/* a reader to ask: the one there, or a new one from the zygote */
static int reader_get(void)
{
	int r;

	reader_check();
	if (R.sock >= 0)
		return 0;
	if (R.gave_up)
		return -ETIMEDOUT;
	if (R.zsock < 0)
		return -ENOTCONN;
	/* asked once; a fork slower than the deadline (a loaded machine) is awaited next time */
	r = 0;
	if (!R.spawning && send(R.zsock, "S", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
		r = -errno;
	R.spawning = true;
	if (r == 0)
		r = wait_in(R.zsock);
	if (r == -ETIMEDOUT)
		return r;
	R.spawning = false;
	if (r == 0)
		r = zygote_recv();
	if (r < 0) {
		/* the zygote never blocks on a file: gone or broken, it is not asked again */
		log_warn("files of other users: no reader process (%s): none is read in this run",
			 strerror(-r));
		close(R.zsock);
		R.zsock = -1;
		return -ENOTCONN;
	}
	R.gen++;
	R.stats.readers++;
	return 0;
}

/* @rq to the reader (its path cut to its length) */
static int rq_send(struct ufile_rq *rq)
{
	size_t len = offsetof(struct ufile_rq, path) + strlen(rq->path) + 1;

	R.stats.requests++;
	/* a reader that reads nothing more (stuck) fills its socket: that is a stall too */
	if (send(R.sock, rq, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len)
		return errno == EAGAIN ? -ETIMEDOUT : -EPIPE;
	return 0;
}

/* one answer: its header, and for a read at most @len bytes after it into @buf */
static int rp_recv(struct ufile_rp *rp, void *buf, size_t len, bool data)
{
	struct iovec iov[2] = { { rp, sizeof(*rp) }, { buf, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;
	int r = wait_in(R.sock);

	if (r < 0)
		return r;
	n = recvmsg(R.sock, &mh, MSG_DONTWAIT);
	if (n < (ssize_t)sizeof(*rp) || (mh.msg_flags & MSG_TRUNC))
		return -EPIPE; /* it died (its end closed), or spoke nonsense */
	if ((size_t)n - sizeof(*rp) != (data && rp->ret > 0 ? (size_t)rp->ret : 0))
		return -EPIPE;
	return 0;
}

/* a request failed for want of its reader: let go of it; the caller's error */
static int rq_failed(int r, uint64_t dev, const char *what)
{
	if (r == -ETIMEDOUT)
		stalled(dev, what);
	else
		reader_drop(); /* it died or broke: the next request starts another */
	return r == -ETIMEDOUT ? r : -EIO;
}

/* @h opened by the reader now there: its slot, or -errno */
static int rq_open(struct uhandle *h, struct ufile_stat *st)
{
	struct ufile_rq rq;
	struct ufile_rp rp;
	int r;

	if (R.gave_up || dev_stalled(h->want.dev))
		return -ETIMEDOUT;
	r = reader_get();
	if (r < 0)
		return r;
	memset(&rq, 0, offsetof(struct ufile_rq, path));
	rq.op = h->mapped ? UFILE_OP_OPEN_MAPPED : UFILE_OP_OPEN_AT;
	rq.pid = h->pid;
	rq.flags = h->flags;
	rq.start = h->start;
	rq.end = h->end;
	rq.has_want = 1;
	rq.want = h->want;
	rq.has_path = h->has_path;
	snprintf(rq.proc, sizeof(rq.proc), "%s", h->proc);
	snprintf(rq.path, sizeof(rq.path), "%s", h->has_path ? h->path : "");
	r = rq_send(&rq);
	if (r == 0)
		r = rp_recv(&rp, NULL, 0, false);
	if (r < 0)
		return rq_failed(r, h->want.dev, h->has_path ? h->path : "a mapped file");
	if (rp.ret >= 0)
		*st = rp.st;
	return rp.ret;
}

static struct uhandle *handle_of(int fd)
{
	size_t i = (size_t)(fd - UFILE_HBASE);

	return fd >= UFILE_HBASE && i < R.nh && R.h[i].used ? &R.h[i] : NULL;
}

static void handle_free(struct uhandle *h)
{
	free(h->path);
	memset(h, 0, sizeof(*h));
}

/* a request to open: a handle, or -errno */
static int remote_open(struct uhandle *tmpl, struct ufile_stat *st)
{
	struct ufile_stat got;
	struct uhandle *h;
	size_t i;
	int r;

	for (i = 0; i < R.nh && R.h[i].used; i++)
		;
	if (i == R.nh) {
		size_t n = R.nh ? R.nh * 2 : 64;
		struct uhandle *nh = n < UFILE_HBASE ? realloc(R.h, n * sizeof(*nh)) : NULL;

		if (!nh)
			return -ENOMEM;
		memset(nh + R.nh, 0, (n - R.nh) * sizeof(*nh));
		R.h = nh;
		R.nh = n;
	}
	h = &R.h[i];
	*h = *tmpl;
	h->used = true;
	if (tmpl->has_path) {
		h->path = strdup(tmpl->path);
		if (!h->path) {
			handle_free(h);
			return -ENOMEM;
		}
	}
	r = rq_open(h, &got);
	if (r < 0) {
		handle_free(h);
		return r;
	}
	h->slot = r;
	h->gen = R.gen;
	h->st = got;
	/* opened again after a reader is abandoned: this file and no other */
	h->want.dev = got.dev;
	h->want.ino = got.ino;
	if (st)
		*st = got;
	return UFILE_HBASE + (int)i;
}

static void tmpl_fill(struct uhandle *t, const char *proc, uint32_t pid, const char *path,
		      const struct ufile_want *want)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->proc, sizeof(t->proc), "%s", proc);
	t->pid = pid;
	t->has_path = path != NULL;
	t->path = (char *)path;
	if (want)
		t->want = *want;
}

int ufile_open_mapped(const char *proc, uint32_t pid, uint64_t start, uint64_t end,
		      const char *path, const struct ufile_want *want, struct ufile_stat *st)
{
	struct uhandle t;
	int r;

	if (!R.started)
		return ufile_local_open_mapped(proc, pid, start, end, path, want, st);
	if (!want || !want->dev || !want->ino)
		return -EINVAL;
	if (strlen(proc) >= sizeof(t.proc) || (path && strlen(path) >= PATH_MAX))
		return -ENAMETOOLONG;
	tmpl_fill(&t, proc, pid, path, want);
	t.mapped = true;
	t.start = start;
	t.end = end;
	pthread_mutex_lock(&R.lock);
	r = remote_open(&t, st);
	pthread_mutex_unlock(&R.lock);
	return r;
}

int ufile_open_at(const char *proc, uint32_t pid, const char *path, unsigned int flags,
		  const struct ufile_want *want, struct ufile_stat *st)
{
	struct uhandle t;
	int r;

	if (!R.started)
		return ufile_local_open_at(proc, pid, path, flags, want, st);
	if (strlen(proc) >= sizeof(t.proc) || strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	tmpl_fill(&t, proc, pid, path, want);
	t.flags = flags;
	pthread_mutex_lock(&R.lock);
	r = remote_open(&t, st);
	pthread_mutex_unlock(&R.lock);
	return r;
}

/* @len bytes at @off of @h's file, read by the reader into @buf */
static int remote_pread(struct uhandle *h, void *buf, size_t len, uint64_t off)
{
	struct ufile_rq rq;
	struct ufile_rp rp;
	size_t done = 0;
	int r;

	reader_check();
	if (h->gen != R.gen || R.sock < 0) {
		/* its reader was abandoned: the same file opened by a new one */
		struct ufile_stat st;

		r = rq_open(h, &st);
		if (r < 0)
			return r;
		h->slot = r;
		h->gen = R.gen;
	}
	memset(&rq, 0, offsetof(struct ufile_rq, path) + 1);
	rq.op = UFILE_OP_PREAD;
	rq.slot = h->slot;
	rq.off = off;
	rq.len = len;
	r = rq_send(&rq);
	do {
		if (r == 0)
			r = rp_recv(&rp, (char *)buf + done, len - done, true);
		if (r < 0)
			return rq_failed(r, h->st.dev, h->has_path ? h->path : "a mapped file");
		if (rp.ret < 0)
			return rp.last ? rp.ret : rq_failed(-EPIPE, 0, NULL);
		done += (size_t)rp.ret;
	} while (!rp.last);
	return done == len ? 0 : rq_failed(-EPIPE, 0, NULL);
}

int ufile_pread(int fd, void *buf, size_t len, uint64_t off)
{
	struct uhandle *h;
	int r;

	if (fd < UFILE_HBASE)
		return ufile_local_pread(fd, buf, len, off);
	if (off > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return -EINVAL;
	pthread_mutex_lock(&R.lock);
	h = handle_of(fd);
	r = h ? remote_pread(h, buf, len, off) : -EBADF;
	pthread_mutex_unlock(&R.lock);
	return r;
}

void *ufile_read(int fd, uint64_t off, size_t len)
{
	void *b = malloc(len ? len : 1);
	int r;

	if (!b)
		return NULL;
	r = ufile_pread(fd, b, len, off);
	if (r < 0) {
		free(b);
		errno = -r;
		return NULL;
	}
	return b;
}

int ufile_size(int fd, uint64_t *size)
{
	struct uhandle *h;
	struct stat sb;
	int r = 0;

	if (fd < UFILE_HBASE) {
		if (fstat(fd, &sb) < 0)
			return -errno;
		*size = (uint64_t)sb.st_size;
		return 0;
	}
	pthread_mutex_lock(&R.lock);
	h = handle_of(fd);
	if (h)
		*size = h->st.size;
	else
		r = -EBADF;
	pthread_mutex_unlock(&R.lock);
	return r;
}

void ufile_close(int fd)
{
	struct uhandle *h;

	if (fd < 0)
		return;
	if (fd < UFILE_HBASE) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&R.lock);
	h = handle_of(fd);
	if (h && h->gen == R.gen && R.sock >= 0) {
		struct ufile_rq rq;

		memset(&rq, 0, offsetof(struct ufile_rq, path) + 1);
		rq.op = UFILE_OP_CLOSE;
		rq.slot = h->slot;
		if (rq_send(&rq) < 0)
			reader_drop(); /* stuck or gone: the next request starts another */
	}
	if (h)
		handle_free(h);
	pthread_mutex_unlock(&R.lock);
}

_Static_assert(UFILE_CHUNK == UFILE_PROC_CHUNK, "a reader's message is a piece of a /proc file");

/* ufile_proc_stream() by the reader; -errno: none of it */
static int64_t remote_proc(struct ufile_rq *rq, char *buf, ufile_chunk_fn *fn, void *ctx)
{
	char what[128];
	struct ufile_rp rp;
	uint64_t done = 0;
	bool want = true;
	int r;

	snprintf(what, sizeof(what), "%.63s/%u/%.31s", rq->proc, rq->pid, rq->path);
	if (R.gave_up)
		return -ETIMEDOUT;
	r = reader_get();
	if (r == 0)
		r = rq_send(rq);
	if (r < 0)
		return r == -ETIMEDOUT || r == -ENOTCONN ? r : rq_failed(r, 0, what);
	do {
		r = rp_recv(&rp, buf, UFILE_CHUNK, true);
		if (r < 0)
			return rq_failed(r, 0, what);
		if (rp.ret < 0)
			return done ? (int64_t)done : rp.ret;
		/* the rest is read by the reader all the same: the answer ends */
		if (rp.ret > 0 && want) {
			done += (uint64_t)rp.ret;
			want = fn(ctx, buf, (size_t)rp.ret);
		}
	} while (!rp.last);
	return (int64_t)done;
}

int64_t ufile_proc_stream(const char *proc, uint32_t pid, const char *name, uint64_t off,
			  uint64_t max, ufile_chunk_fn *fn, void *ctx)
{
	struct ufile_rq rq;
	char *buf;
	int64_t r;

	if (!R.started)
		return ufile_local_proc_stream(proc, pid, name, off, max, fn, ctx);
	if (strlen(proc) >= sizeof(rq.proc) || strlen(name) >= 32 || !name[0] || strchr(name, '/'))
		return -EINVAL;
	buf = malloc(UFILE_CHUNK);
	if (!buf)
		return -ENOMEM;
	memset(&rq, 0, offsetof(struct ufile_rq, path));
	rq.op = UFILE_OP_PROC;
	rq.pid = pid;
	rq.off = off;
	rq.len = max;
	snprintf(rq.proc, sizeof(rq.proc), "%s", proc);
	snprintf(rq.path, sizeof(rq.path), "%s", name);
	pthread_mutex_lock(&R.lock);
	r = remote_proc(&rq, buf, fn, ctx);
	pthread_mutex_unlock(&R.lock);
	free(buf);
	return r;
}

struct proc_buf {
	char *p;
	size_t left;
};

static bool proc_copy(void *ctx, const char *data, size_t len)
{
	struct proc_buf *b = ctx;
	size_t n = len < b->left ? len : b->left;

	memcpy(b->p, data, n);
	b->p += n;
	b->left -= n;
	return b->left > 0;
}

int64_t ufile_proc_read(const char *proc, uint32_t pid, const char *name, void *buf, size_t len,
			uint64_t off)
{
	struct proc_buf b = { buf, len };

	return ufile_proc_stream(proc, pid, name, off, len, proc_copy, &b);
}

int ufile_reader_start(const volatile sig_atomic_t *stop)
{
	int sv[2], r;

	if (R.started)
		return 0;
	R.started = true; /* from now on, no file is opened in this process */
	R.stop = stop;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	r = ufile_zygote_fork(sv[1]);
	close(sv[1]);
	if (r < 0) {
		close(sv[0]);
		return r;
	}
	R.zsock = sv[0];
	return 0;
}

void ufile_reader_end(void)
{
	size_t i;

	pthread_mutex_lock(&R.lock);
	/* an idle reader and the zygote end at the end of their sockets */
	if (R.sock >= 0)
		close(R.sock);
	if (R.pidfd >= 0)
		close(R.pidfd);
	if (R.zsock >= 0)
		close(R.zsock);
	R.sock = R.pidfd = R.zsock = -1;
	for (i = 0; i < R.nh; i++)
		if (R.h[i].used)
			handle_free(&R.h[i]);
	free(R.h);
	R.h = NULL;
	R.nh = 0;
	pthread_mutex_unlock(&R.lock);
}

void ufile_reader_stats(struct ufile_reader_stats *st)
{
	pthread_mutex_lock(&R.lock);
	*st = R.stats;
	st->pid = R.pid;
	pthread_mutex_unlock(&R.lock);
}

void ufile_reader_set_deadline(unsigned int ms)
{
	pthread_mutex_lock(&R.lock);
	R.ms = ms ? ms : UFILE_DEADLINE_MS;
	pthread_mutex_unlock(&R.lock);
}
