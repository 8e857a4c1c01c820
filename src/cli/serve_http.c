// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * serve_http.c - see serve.h: the HTTP server (libmicrohttpd: one thread, epoll,
 * bounded connections, request size and idle time) and its exchange with
 * the collector.
 *
 * /metrics is written on the server's thread from the copy the collector
 * published last (a reference taken under the lock, the writing outside
 * it). A profile, the JSON snapshot and the flame page need the session:
 * the request becomes a job the collector does on its own thread when it
 * next reads (serve_work()); the connection waits suspended meanwhile and
 * is resumed when the job's answer is ready. A job is in one of three
 * places: the list the collector takes (sv->jobs), the collector's hands
 * (between two takes), or done (answered, freed when the request ends).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cli/serve_priv.h"
#include "output/export.h"
#include "output/formats.h"
#include "output/metrics.h"
#include "output/pprof_copy.h"
#include "output/since.h"
#include "session/session.h"

/* a request that is not a job: req_cls points here */
static int plain_req;

/* ---- the server's side --------------------------------------------------- */

/* requests refused (a status of 400 or more): one server a process */
static uint64_t refused_n;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     const char *text)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (status >= 400)
		__atomic_fetch_add(&refused_n, 1, __ATOMIC_RELAXED);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* a malloc'd body, freed by MHD once sent */
static enum MHD_Result reply_mem(struct MHD_Connection *c, const char *type, char *body, size_t len,
				 const char *disposition)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (disposition)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disposition);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_unauthorized(struct serve *sv, struct MHD_Connection *c)
{
	static const char text[] = "stacktop: authentication required\n";
	struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(text) - 1, (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	__atomic_fetch_add(&refused_n, 1, __ATOMIC_RELAXED);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
				sv->conf.scheme_len == 5 ? "Basic realm=\"stacktop\""
							 : "Bearer realm=\"stacktop\"");
	ret = MHD_queue_response(c, MHD_HTTP_UNAUTHORIZED, r);
	MHD_destroy_response(r);
	return ret;
}

/* the Authorization header against the one expected: the scheme in any case, the rest in constant
 * time */
static bool authorized(const struct serve *sv, struct MHD_Connection *c)
{
	const char *want = sv->conf.auth_header,
		   *got = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_AUTHORIZATION);
	size_t n = strlen(want), i;
	unsigned char diff = 0;

	if (!got || strlen(got) != n || strncasecmp(got, want, sv->conf.scheme_len))
		return false;
	for (i = sv->conf.scheme_len; i < n; i++)
		diff |= (unsigned char)(got[i] ^ want[i]);
	return diff == 0;
}

static enum MHD_Result answer_metrics(struct serve *sv, struct MHD_Connection *c)
{
	const char *accept =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	bool om = accept && strstr(accept, "application/openmetrics-text");
	struct metrics_serve fig;
	struct pub *p;
	size_t len = 0;
	char *body = NULL;
	FILE *f;
	int r;

	pthread_mutex_lock(&sv->lock);
	p = sv->pub;
	if (p)
		p->refs++;
	sv->fig.scrapes++;
	fig = sv->fig;
	fig.refused = __atomic_load_n(&refused_n, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sv->lock);
	if (!p)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			     "stacktop: no figures yet (starting)\n");
	f = open_memstream(&body, &len);
	r = f ? metrics_write(f, p->m, &fig, om) : -ENOMEM;
	if (f && fclose(f) && r >= 0)
		r = -EIO;
	serve_pub_put(sv, p);
	if (r < 0) {
		free(body);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
			     "stacktop: cannot write the metrics\n");
	}
	return reply_mem(c,
			 om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			    : "text/plain; version=0.0.4; charset=utf-8",
			 body, len, NULL);
}

/*
 * a profile, written here from the copy the collector took (and gzip'd):
 * its thread is spared the writing; the time it takes is counted
 */
static enum MHD_Result answer_profile(struct serve *sv, struct MHD_Connection *c, struct job *j)
{
	struct timespec t0, t1;
	char *gz = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&gz, &len);
	int r;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	r = f ? export_pprof_copy(f, j->copy, j->since, true) : -ENOMEM;
	if (f && fclose(f) && r >= 0)
		r = -EIO;
	pprof_copy_put(j->copy);
	j->copy = NULL;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	pthread_mutex_lock(&sv->lock);
	sv->fig.writer_cpu +=
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (r >= 0)
		sv->fig.profiles++;
	pthread_mutex_unlock(&sv->lock);
	if (r < 0) {
		free(gz);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
			     "stacktop: cannot write the profile\n");
	}
	return reply_mem(c, "application/octet-stream", gz, len,
			 "attachment; filename=\"profile.pb.gz\"");
}

/* a job's answer, once done */
static enum MHD_Result answer_job(struct serve *sv, struct MHD_Connection *c, struct job *j)
{
	static const char *const types[] = {
		[JOB_PROFILE] = "application/octet-stream",
		[JOB_JSON] = "application/json",
		[JOB_HTML] = "text/html; charset=utf-8",
	};
	char *body = j->body;

	if (j->err == -ECANCELED)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", "stacktop: stopping\n");
	if (!j->err && j->kind == JOB_PROFILE && j->copy)
		return answer_profile(sv, c, j);
	if (j->err || !body)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
			     "stacktop: cannot write the answer\n");
	j->body = NULL; /* MHD's now */
	return reply_mem(c, types[j->kind], body, j->len, NULL);
}

/* ?seconds=N: 1 to SERVE_SECONDS_MAX, SERVE_SECONDS_DEF when absent; < 0: refused */
static double query_seconds(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	char *end;
	double d;

	if (!v)
		return SERVE_SECONDS_DEF;
	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !(d >= 1 && d <= SERVE_SECONDS_MAX))
		return -1;
	return d;
}

/* ?top=N: 0 (every stack) to 1000000, SERVE_JSON_TOP when absent; < 0: refused */
static int query_top(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "top");
	char *end;
	long n;

	if (!v)
		return SERVE_JSON_TOP;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 0 || n > 1000000)
		return -1;
	return (int)n;
}

/* a job for the collector; the connection waits, suspended */
static enum MHD_Result queue_job(struct serve *sv, struct MHD_Connection *c, enum job_kind kind,
				 double seconds, int top, void **req_cls)
{
	struct job *j;
	bool resume = false, full;

	j = calloc(1, sizeof(*j));
	if (!j)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			     "stacktop: out of memory\n");
	j->conn = c;
	j->kind = kind;
	j->seconds = seconds;
	j->top = top;
	pthread_mutex_lock(&sv->lock);
	full = sv->stopping || sv->njobs >= SERVE_JOBS_MAX;
	if (!full) {
		j->next = sv->jobs;
		sv->jobs = j;
		sv->njobs++;
		__atomic_store_n(&sv->work, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sv->lock);
	if (full) {
		free(j);
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			     "stacktop: too many profiles and snapshots in progress\n");
	}
	*req_cls = j;
	MHD_suspend_connection(c);
	pthread_mutex_lock(&sv->lock);
	j->suspended = true;
	if (j->done && !j->resumed)
		resume = j->resumed = true;
	pthread_mutex_unlock(&sv->lock);
	if (resume)
		MHD_resume_connection(c);
	return MHD_YES;
}

static const char index_text[] =
	"stacktop\n"
	"  /metrics                          Prometheus text (OpenMetrics on Accept)\n"
	"  /debug/pprof/profile?seconds=N    a pprof profile of the next N seconds\n"
	"  /snapshot.json?top=N              the JSON snapshot of the N stacks with most hits\n"
	"                                    (1000; 0: all; stacktop -r reads it)\n"
	"  /flame.html                       the flame graph page\n";

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	struct serve *sv = cls;
	struct job *j = *req_cls;
	double secs;
	int top;

	(void)version;
	(void)upload;
	if (j && j != (struct job *)&plain_req)
		return j->done ? answer_job(sv, c, j) : MHD_YES;
	*req_cls = &plain_req;
	if (*upload_size)
		return MHD_NO; /* a body was refused already: close */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     "stacktop: only GET and HEAD\n");
	if (sv->conf.auth_header && !authorized(sv, c))
		return reply_unauthorized(sv, c);
	if (!strcmp(url, "/metrics"))
		return answer_metrics(sv, c);
	if (!strcmp(url, "/debug/pprof/profile")) {
		secs = query_seconds(c);
		if (secs < 0)
			return reply(c, MHD_HTTP_BAD_REQUEST, "text/plain",
				     "stacktop: seconds must be a number from 1 to 600\n");
		return queue_job(sv, c, JOB_PROFILE, secs, 0, req_cls);
	}
	if (!strcmp(url, "/snapshot.json")) {
		top = query_top(c);
		if (top < 0)
			return reply(
				c, MHD_HTTP_BAD_REQUEST, "text/plain",
				"stacktop: top must be a number from 0 (every stack) to 1000000\n");
		return queue_job(sv, c, JOB_JSON, 0, top, req_cls);
	}
	if (!strcmp(url, "/flame.html"))
		return queue_job(sv, c, JOB_HTML, 0, 0, req_cls);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", index_text);
	return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", "stacktop: no such page\n");
}

/* the request has ended (answered, or its connection closed): its job is freed */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct job *j = *req_cls;

	(void)cls;
	(void)c;
	(void)toe;
	*req_cls = NULL;
	if (!j || j == (struct job *)&plain_req)
		return;
	export_since_free(j->since);
	pprof_copy_put(j->copy);
	free(j->body);
	free(j);
}

/* libmicrohttpd's messages: a client's errors are not the screen's business */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

/* room for the connections: the soft limit of descriptors raised toward the hard one */
static unsigned int conn_limit(void)
{
	struct rlimit rl;
	rlim_t want = SERVE_CONN_MAX + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 256;
	if (rl.rlim_cur < want) {
		rl.rlim_cur =
			rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur <= 256 + 64)
		return 64;
	return rl.rlim_cur - 256 < SERVE_CONN_MAX ? (unsigned int)(rl.rlim_cur - 256)
						  : SERVE_CONN_MAX;
}

/* "http://127.0.0.1:PORT/", "https://[::1]:PORT/" */
static void serve_set_url(struct serve *sv, unsigned int port)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)&sv->conf.sa;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&sv->conf.sa;
	const char *scheme = sv->conf.cert ? "https" : "http";
	char host[INET6_ADDRSTRLEN];

	if (sv->conf.sa.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(sv->url, sizeof(sv->url), "%s://[%s]:%u/", scheme, host, port);
	} else {
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(sv->url, sizeof(sv->url), "%s://%s:%u/", scheme, host, port);
	}
}

void serve_set_view(struct serve *sv, const struct report_opts *view)
{
	sv->view = *view;
	sv->view.rank.match = NULL;
	sv->view.rank.attr_match = NULL;
}

int serve_prepare(const struct serve_opts *o, struct serve **ret, char *err, size_t errsz)
{
	struct serve *sv = calloc(1, sizeof(*sv));
	int r;

	if (!sv)
		return -ENOMEM;
	sv->lfd = -1;
	r = serve_conf_read(o, &sv->conf, err, errsz);
	if (r >= 0)
		r = sv->lfd = serve_conf_listen(&sv->conf, &sv->port, err, errsz);
	if (r < 0) {
		serve_conf_done(&sv->conf);
		free(sv);
		return r;
	}
	sv->addr = o->addr;
	sv->view.rank = (struct rank_opts){ .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 };
	pthread_mutex_init(&sv->lock, NULL);
	serve_set_url(sv, sv->port);
	*ret = sv;
	return 0;
}

int serve_start(struct serve *sv, char *err, size_t errsz)
{
	unsigned int flags =
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;

	sigset_t all, old;
	int e;

	if (sv->conf.cert)
		flags |= MHD_USE_TLS;
	/*
	 * the server's thread takes no signal (it inherits this mask): a stop
	 * signal is the main thread's, whose loop ends the run; one taken by
	 * the server's thread left libmicrohttpd unable to stop it (an abort
	 * in MHD_stop_daemon() in 2 runs of 5)
	 */
	sigfillset(&all);
	e = pthread_sigmask(SIG_BLOCK, &all, &old);
	sv->d = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, sv, MHD_OPTION_LISTEN_SOCKET, sv->lfd,
		MHD_OPTION_CONNECTION_LIMIT, conn_limit(), MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		sv->conf.loopback ? 0u : (unsigned int)SERVE_IP_CONN_MAX,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_TIMEOUT_SEC,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_REQ_MAX,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv, MHD_OPTION_EXTERNAL_LOGGER, on_log,
		sv, MHD_OPTION_HTTPS_MEM_CERT, sv->conf.cert, MHD_OPTION_HTTPS_MEM_KEY,
		sv->conf.key, MHD_OPTION_HTTPS_PRIORITIES,
		sv->conf.cert ? "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2" : NULL,
		MHD_OPTION_END);
	if (!e)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!sv->d) {
		snprintf(err, errsz, "--serve %s: the HTTP server did not start%s", sv->addr,
			 sv->conf.cert ? " (are --serve-cert and --serve-key a PEM certificate "
					 "and its key?)"
				       : "");
		return -EINVAL;
	}
	sv->lfd = -1; /* the daemon's: closed when it stops */
	return 0;
}

const char *serve_url(const struct serve *sv)
{
	return sv->url;
}

void serve_quiesce(struct serve *sv)
{
	struct job *j, *next;

	if (!sv || sv->quiet)
		return;
	pthread_mutex_lock(&sv->lock);
	sv->stopping = true;
	j = sv->jobs;
	sv->jobs = NULL;
	pthread_mutex_unlock(&sv->lock);
	/* every suspended connection resumed first (MHD_stop_daemon()'s rule) */
	for (; j; j = next) {
		next = j->next;
		j->err = -ECANCELED;
		serve_job_finish(sv, j);
	}
	if (sv->d)
		MHD_stop_daemon(sv->d);
	sv->d = NULL;
	if (sv->lfd >= 0)
		close(sv->lfd);
	sv->lfd = -1;
	sv->quiet = true;
}

void serve_stop(struct serve *sv)
{
	if (!sv)
		return;
	serve_quiesce(sv);
	serve_pub_put(sv, sv->pub);
	pprof_names_put(sv->names);
	pthread_mutex_destroy(&sv->lock);
	serve_conf_done(&sv->conf);
	free(sv);
}
