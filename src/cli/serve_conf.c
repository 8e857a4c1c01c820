// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * serve_conf.c - see serve_conf.h: --serve's address, TLS files and
 * credentials, and its listening socket.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/serve_conf.h"
#include "core/format.h"

static int conf_err(char *err, size_t errsz, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return r;
}

/* "[ADDR:]PORT": ADDR an IPv4 address, [IPv6] or localhost */
static int parse_addr(const char *arg, struct serve_conf *c, char *err, size_t errsz)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(arg, ':'), *port = colon ? colon + 1 : arg;
	struct sockaddr_in *in = (struct sockaddr_in *)&c->sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&c->sa;
	size_t hl = colon ? (size_t)(colon - arg) : 0;
	unsigned long p;
	char *end;

	errno = 0;
	p = strtoul(port, &end, 10);
	if (!*port || *end || errno || p > 65535 || *port == '-' || *port == '+')
		return conf_err(err, errsz, -EINVAL,
				"--serve %s: the port must be a number from 0 to 65535 "
				"([ADDR:]PORT, 0: a free one)",
				arg);
	if (!colon)
		snprintf(host, sizeof(host), SERVE_DEFAULT_ADDR);
	else if (hl >= sizeof(host))
		return conf_err(err, errsz, -EINVAL, "--serve %s: not an address", arg);
	else
		snprintf(host, sizeof(host), "%.*s", (int)hl, arg);
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), SERVE_DEFAULT_ADDR);
	memset(&c->sa, 0, sizeof(c->sa));
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			return conf_err(err, errsz, -EINVAL,
					"--serve %s: %s is not an IPv6 address", arg, host + 1);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		c->salen = sizeof(*in6);
		c->loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
			      (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
			       in6->sin6_addr.s6_addr[12] == 127);
		return 0;
	}
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return conf_err(err, errsz, -EINVAL,
				"--serve %s: '%s' is not an IPv4 address, [IPv6] or localhost "
				"(names are not resolved)",
				arg, host);
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)p);
	c->salen = sizeof(*in);
	c->loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	return 0;
}

/*
 * A file of @what, read whole: a regular file opened without following a
 * symlink, at most @max bytes; @secret: owned by root (or the user
 * stacktop runs as) and neither readable nor writable by anyone else
 */
static int read_file(const char *path, const char *what, bool secret, size_t max, char **ret,
		     size_t *ret_len, char *err, size_t errsz)
{
	struct stat sb;
	ssize_t n;
	size_t len = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return conf_err(err, errsz, -errno, "%s %s: %s%s", what, path, strerror(errno),
				errno == ELOOP ? " (a symlink: give the file itself)" : "");
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return conf_err(err, errsz, -EINVAL, "%s %s: not a regular file", what, path);
	}
	if (secret && (sb.st_mode & 077 || (sb.st_uid != 0 && sb.st_uid != geteuid()))) {
		close(fd);
		return conf_err(err, errsz, -EPERM,
				"%s %s: a secret must be in a file only its owner, root, reads "
				"(mode %03o, owner %u: chown root and chmod 600 it)",
				what, path, (unsigned int)(sb.st_mode & 0777),
				(unsigned int)sb.st_uid);
	}
	if ((size_t)sb.st_size > max) {
		close(fd);
		return conf_err(err, errsz, -EFBIG, "%s %s: larger than %zu bytes", what, path,
				max);
	}
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		return conf_err(err, errsz, -ENOMEM, "%s %s: out of memory", what, path);
	}
	while (len < max && (n = read(fd, buf + len, max - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			free(buf);
			return conf_err(err, errsz, -e, "%s %s: %s", what, path, strerror(e));
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64(char *out, const unsigned char *in, size_t n)
{
	size_t i;

	for (i = 0; i + 2 < n; i += 3, out += 4) {
		out[0] = b64[in[i] >> 2];
		out[1] = b64[(in[i] & 3) << 4 | in[i + 1] >> 4];
		out[2] = b64[(in[i + 1] & 15) << 2 | in[i + 2] >> 6];
		out[3] = b64[in[i + 2] & 63];
	}
	if (i < n) {
		out[0] = b64[in[i] >> 2];
		out[1] = b64[(in[i] & 3) << 4 | (i + 1 < n ? in[i + 1] >> 4 : 0)];
		out[2] = i + 1 < n ? b64[(in[i + 1] & 15) << 2] : '=';
		out[3] = '=';
		out += 4;
	}
	*out = '\0';
}

/* --serve-auth bearer:FILE (the token) or basic:FILE (USER:PASSWORD): its first line */
static int read_auth(const char *arg, struct serve_conf *c, char *err, size_t errsz)
{
	bool bearer = !strncmp(arg, "bearer:", 7), basic = !strncmp(arg, "basic:", 6);
	const char *path = bearer ? arg + 7 : arg + 6;
	char *s, *nl;
	size_t len, i;
	int r;

	if (!bearer && !basic)
		return conf_err(err, errsz, -EINVAL,
				"--serve-auth %s: bearer:FILE (a token) or basic:FILE "
				"(USER:PASSWORD)",
				arg);
	r = read_file(path, "--serve-auth", true, SERVE_SECRET_MAX, &s, &len, err, errsz);
	if (r < 0)
		return r;
	nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	len = strlen(s);
	if (len && s[len - 1] == '\r')
		s[--len] = '\0';
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			break;
	if (!len || i < len || (basic && (!strchr(s, ':') || s[0] == ':'))) {
		explicit_bzero(s, SERVE_SECRET_MAX);
		free(s);
		return conf_err(err, errsz, -EINVAL,
				"--serve-auth %s: its first line must be %s, with no space", arg,
				bearer ? "the token" : "USER:PASSWORD");
	}
	c->auth_header = malloc(16 + (len + 2) / 3 * 4 + 1);
	if (c->auth_header) {
		if (bearer) {
			snprintf(c->auth_header, 16 + len, "Bearer %s", s);
			c->scheme_len = 6;
		} else {
			memcpy(c->auth_header, "Basic ", 6);
			base64(c->auth_header + 6, (const unsigned char *)s, len);
			c->scheme_len = 5;
		}
	}
	explicit_bzero(s, SERVE_SECRET_MAX);
	free(s);
	return c->auth_header ? 0 : conf_err(err, errsz, -ENOMEM, "out of memory");
}

int serve_conf_read(const struct serve_opts *o, struct serve_conf *c, char *err, size_t errsz)
{
	int r;

	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	c->top = o->top;
	r = parse_addr(o->addr, c, err, errsz);
	if (r < 0)
		return r;
	if (!o->cert != !o->key)
		return conf_err(err, errsz, -EINVAL,
				"--serve-cert and --serve-key go together (TLS needs both)");
	if (!c->loopback && (!o->cert || !o->auth))
		return conf_err(
			err, errsz, -EACCES,
			"--serve %s: not a loopback address: stacktop serves another machine only "
			"over TLS (--serve-cert, --serve-key) and to a scraper that authenticates "
			"(--serve-auth bearer:FILE or basic:FILE); without%s%s, serve loopback "
			"(--serve %s:PORT) and reach it through a tunnel or a proxy",
			o->addr, o->cert ? "" : " TLS",
			o->auth	  ? ""
			: o->cert ? " credentials"
				  : " or credentials",
			SERVE_DEFAULT_ADDR);
	if (o->cert) {
		r = read_file(o->cert, "--serve-cert", false, SERVE_PEM_MAX, &c->cert, NULL, err,
			      errsz);
		if (r >= 0)
			r = read_file(o->key, "--serve-key", true, SERVE_PEM_MAX, &c->key, NULL,
				      err, errsz);
		if (r < 0)
			return r;
	}
	if (o->auth)
		return read_auth(o->auth, c, err, errsz);
	return 0;
}

void serve_conf_done(struct serve_conf *c)
{
	if (c->key)
		explicit_bzero(c->key, strlen(c->key));
	if (c->auth_header)
		explicit_bzero(c->auth_header, strlen(c->auth_header));
	free(c->cert);
	free(c->key);
	free(c->auth_header);
	c->cert = c->key = c->auth_header = NULL;
}

int serve_conf_listen(const struct serve_conf *c, unsigned int *ret_port, char *err, size_t errsz)
{
	struct sockaddr_storage got;
	socklen_t gl = sizeof(got);
	char host[INET6_ADDRSTRLEN];
	const void *ap;
	int fd, one = 1, e;

	if (c->sa.ss_family == AF_INET6)
		ap = &((const struct sockaddr_in6 *)&c->sa)->sin6_addr;
	else
		ap = &((const struct sockaddr_in *)&c->sa)->sin_addr;
	inet_ntop(c->sa.ss_family, ap, host, sizeof(host));
	fd = socket(c->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return conf_err(err, errsz, -errno, "--serve: socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (c->sa.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&c->sa, c->salen) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&got, &gl) < 0) {
		e = errno;
		close(fd);
		return conf_err(err, errsz, -e, "--serve: cannot listen on %s port %u: %s%s", host,
				ntohs(((const struct sockaddr_in *)&c->sa)->sin_port), strerror(e),
				e == EADDRINUSE ? " (another program listens there)" : "");
	}
	*ret_port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
						    : ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}
