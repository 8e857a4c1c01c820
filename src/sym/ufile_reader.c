// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ufile_reader.c - the processes that open and read the files of other
 * users for a run (protocol: ufile_priv.h). A reader may wait forever in
 * the kernel (a FUSE daemon that never answers, behind an overlay the user
 * mounted in a namespace of their own; a stalled NFS server): it is a
 * process the run can abandon, not the run's own thread.
 *
 * The zygote is forked while the run has no thread (fork() is then safe)
 * and is nobody's child but init's (a double fork): a session of its own,
 * no terminal, stdio on /dev/null, no descriptor but its socket, so that
 * neither a shell waiting for stacktop, a pipe's reader waiting for its
 * end, nor stacktop's own end of a command's tree (cli/child.c) ever waits
 * for it or a reader. Each reader it forks dies with it (PR_SET_PDEATHSIG)
 * and ends at the end of its socket; one the run abandoned has a SIGKILL
 * pending and ends when the kernel lets go of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sym/ufile_priv.h"

#define READER_NAME "stacktop-files"

/* the helper processes of this run (the zygote, every reader), for the run's caller */
static struct {
	pid_t pid[UFILE_HELPERS];
	unsigned int n;
	void (*fn)(void *ctx, int pid);
	void *ctx;
	pthread_mutex_t lock;
} H = { .lock = PTHREAD_MUTEX_INITIALIZER };

void ufile_helper_add(pid_t pid)
{
	pthread_mutex_lock(&H.lock);
	if (H.n < UFILE_HELPERS)
		H.pid[H.n++] = pid;
	if (H.fn)
		H.fn(H.ctx, (int)pid);
	pthread_mutex_unlock(&H.lock);
}

void ufile_reader_on_helper(void (*fn)(void *ctx, int pid), void *ctx)
{
	unsigned int i;

	pthread_mutex_lock(&H.lock);
	H.fn = fn;
	H.ctx = ctx;
	for (i = 0; fn && i < H.n; i++)
		fn(ctx, (int)H.pid[i]);
	pthread_mutex_unlock(&H.lock);
}

/* the reader's descriptors, by slot */
static int *slots;
static size_t nslots;

static int slot_put(int fd)
{
	size_t i;

	for (i = 0; i < nslots; i++)
		if (slots[i] < 0)
			break;
	if (i == nslots) {
		size_t n = nslots ? nslots * 2 : 64;
		int *ns = realloc(slots, n * sizeof(*ns));

		if (!ns || n > INT32_MAX)
			return -EMFILE;
		for (i = nslots; i < n; i++)
			ns[i] = -1;
		slots = ns;
		i = nslots;
		nslots = n;
	}
	slots[i] = fd;
	return (int)i;
}

static int slot_fd(int32_t slot)
{
	return slot >= 0 && (size_t)slot < nslots ? slots[slot] : -1;
}

static void reply(int sock, const struct ufile_rp *rp, const void *data, size_t len)
{
	struct iovec iov[2] = { { (void *)rp, sizeof(*rp) }, { (void *)data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

	while (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			_exit(0); /* the run is gone, or abandoned us */
}

static void serve_open(int sock, const struct ufile_rq *rq)
{
	struct ufile_rp rp = { .last = 1 };
	const struct ufile_want *w = rq->has_want ? &rq->want : NULL;
	int fd;

	if (rq->op == UFILE_OP_OPEN_MAPPED)
		fd = ufile_local_open_mapped(rq->proc, rq->pid, rq->start, rq->end,
					     rq->has_path ? rq->path : NULL, w, &rp.st);
	else
		fd = ufile_local_open_at(rq->proc, rq->pid, rq->path, rq->flags, w, &rp.st);
	rp.ret = fd;
	if (fd >= 0) {
		rp.ret = slot_put(fd);
		if (rp.ret < 0)
			close(fd);
	}
	reply(sock, &rp, NULL, 0);
}

/* @rq->len bytes at @rq->off, a chunk a message */
static void serve_pread(int sock, const struct ufile_rq *rq, char *buf)
{
	struct ufile_rp rp = { 0 };
	uint64_t off = rq->off, left = rq->len;
	int fd = slot_fd(rq->slot);

	if (fd < 0) {
		rp.ret = -EBADF;
		rp.last = 1;
		reply(sock, &rp, NULL, 0);
		return;
	}
	do {
		size_t n = left < UFILE_CHUNK ? (size_t)left : UFILE_CHUNK;
		int r = ufile_local_pread(fd, buf, n, off);

		rp.ret = r < 0 ? r : (int32_t)n;
		rp.last = r < 0 || n == left;
		reply(sock, &rp, buf, r < 0 ? 0 : n);
		if (r < 0)
			return;
		off += n;
		left -= n;
	} while (left);
}

/* at most @rq->len bytes of a /proc file, a chunk a message; an empty last one at its end */
static void serve_proc(int sock, const struct ufile_rq *rq, char *buf)
{
	struct ufile_rp rp = { 0 };
	uint64_t off = rq->off, left = rq->len;
	int fd = -1;

	do {
		size_t n = left < UFILE_CHUNK ? (size_t)left : UFILE_CHUNK;
		ssize_t r = n ? ufile_proc_chunk(&fd, rq->proc, rq->pid, rq->path, buf, n, off) : 0;

		rp.ret = (int32_t)r;
		rp.last = r <= 0 || (uint64_t)r == left;
		reply(sock, &rp, buf, r > 0 ? (size_t)r : 0);
		if (r > 0) {
			off += (uint64_t)r;
			left -= (uint64_t)r;
		}
	} while (!rp.last);
	if (fd >= 0)
		close(fd);
}

static __attribute__((noreturn)) void reader_main(int sock)
{
	struct ufile_rq *rq = malloc(sizeof(*rq));
	char *buf = malloc(UFILE_CHUNK);
	ssize_t n;
	int fd;

	if (!rq || !buf)
		_exit(1);
	for (;;) {
		n = recv(sock, rq, sizeof(*rq), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)offsetof(struct ufile_rq, path))
			_exit(0); /* the run's end (or nonsense: the run starts another) */
		/* the path ends with the message */
		rq->path[(size_t)n - offsetof(struct ufile_rq, path) < sizeof(rq->path)
				 ? (size_t)n - offsetof(struct ufile_rq, path)
				 : sizeof(rq->path) - 1] = '\0';
		rq->proc[sizeof(rq->proc) - 1] = '\0';
		switch (rq->op) {
		case UFILE_OP_OPEN_MAPPED:
		case UFILE_OP_OPEN_AT:
			serve_open(sock, rq);
			break;
		case UFILE_OP_PREAD:
			serve_pread(sock, rq, buf);
			break;
		case UFILE_OP_PROC:
			serve_proc(sock, rq, buf);
			break;
		case UFILE_OP_CLOSE:
			fd = slot_fd(rq->slot);
			if (fd >= 0) {
				close(fd);
				slots[rq->slot] = -1;
			}
			break;
		default:
			_exit(1);
		}
	}
}

/* a new reader; its socket and pidfd sent to the run with its pid */
static void zygote_spawn(int zsock)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int sv[2], fds[2], nfd = 1;
	pid_t me = getpid(), pid;
	int32_t answer = -1;

	iov.iov_base = &answer;
	iov.iov_len = sizeof(answer);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		send(zsock, &answer, sizeof(answer), MSG_NOSIGNAL);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(zsock);
		close(sv[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != me)
			_exit(0);
		reader_main(sv[1]);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		send(zsock, &answer, sizeof(answer), MSG_NOSIGNAL);
		return;
	}
	answer = (int32_t)pid;
	fds[0] = sv[0];
	fds[1] = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fds[1] >= 0)
		nfd = 2;
	mh.msg_control = u.buf;
	mh.msg_controllen = CMSG_SPACE((size_t)nfd * sizeof(int));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)nfd * sizeof(int));
	memcpy(CMSG_DATA(c), fds, (size_t)nfd * sizeof(int));
	if (sendmsg(zsock, &mh, MSG_NOSIGNAL) < 0)
		kill(pid, SIGKILL); /* (alive: it waits on sv[1], whose peer is still open) */
	close(sv[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

static __attribute__((noreturn)) void zygote_main(int zsock)
{
	char c;
	ssize_t n;

	for (;;) {
		n = recv(zsock, &c, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0); /* the run ended */
		zygote_spawn(zsock);
	}
}

/* the zygote's process: its session, stdio, descriptors and signals */
static __attribute__((noreturn)) void zygote_child(int sock, int pfd)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t none;
	int null, s, i;
	pid_t g;

	if (setsid() < 0)
		_exit(1);
	g = fork();
	if (g != 0) /* the zygote's pid to the run, before this process ends */
		_exit(g < 0 || write(pfd, &g, sizeof(g)) != (ssize_t)sizeof(g));
	close(pfd);
	s = fcntl(sock, F_DUPFD_CLOEXEC, 10);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (s < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 ||
	    dup3(s, 3, O_CLOEXEC) < 0)
		_exit(1);
	close_range(4, ~0U, 0);
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			sigaction(i, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &sa, NULL); /* the readers reaped as they end */
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (chdir("/") < 0)
		_exit(1);
	prctl(PR_SET_NAME, READER_NAME, 0, 0, 0);
	zygote_main(3);
}

int ufile_zygote_fork(int sock)
{
	pid_t mid, w = 0, z = 0;
	int st, p[2], r = 0;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	mid = fork();
	if (mid < 0)
		r = -errno;
	if (mid == 0) {
		close(p[0]);
		zygote_child(sock, p[1]);
	}
	close(p[1]);
	while (mid > 0 && (w = waitpid(mid, &st, 0)) < 0 && errno == EINTR)
		;
	if (mid > 0 && w == mid && (!WIFEXITED(st) || WEXITSTATUS(st)))
		r = -EAGAIN;
	/* written before the intermediate's exit: there now, or never */
	if (!r && read(p[0], &z, sizeof(z)) == (ssize_t)sizeof(z) && z > 0)
		ufile_helper_add(z);
	close(p[0]);
	return r;
}
