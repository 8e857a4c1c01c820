/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * serve_conf.h - --serve's configuration (serve.h): the command line's
 * options, the address, the TLS files and credentials read from them, the
 * listening socket, and the server's bounds.
 */
#ifndef STACKTOP_SERVE_CONF_H
#define STACKTOP_SERVE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* the server's bounds (doc/serve.md, "Limits") */
#define SERVE_CONN_MAX	   2000	 /* connections at once */
#define SERVE_IP_CONN_MAX  64	 /* ... from one address, on a non-loopback address */
#define SERVE_TIMEOUT_SEC  10	 /* a connection idle this long is closed */
#define SERVE_REQ_MAX	   16384 /* a request's line and headers */
#define SERVE_JOBS_MAX	   16	 /* profiles and snapshots waiting for the collector */
#define SERVE_SECONDS_MAX  600	 /* the longest profile window */
#define SERVE_SECONDS_DEF  30	 /* without ?seconds= (Go's net/http/pprof's) */
#define SERVE_JSON_TOP	   1000	 /* /snapshot.json's stacks without ?top= */
#define SERVE_SECRET_MAX   4096	 /* a credentials file */
#define SERVE_PEM_MAX	   65536 /* a certificate or key file */
#define SERVE_DEFAULT_ADDR "127.0.0.1"

/**
 * struct serve_opts - the command line's --serve options
 * @addr: --serve [ADDR:]PORT (NULL: no server)
 * @cert: --serve-cert FILE: the TLS certificate chain (PEM)
 * @key: --serve-key FILE: its private key (PEM; a file only root reads)
 * @auth: --serve-auth bearer:FILE or basic:FILE (a file only root reads)
 * @top: --serve-top K: the stacks /metrics lists
 */
struct serve_opts {
	const char *addr;
	const char *cert;
	const char *key;
	const char *auth;
	unsigned int top;
};

/**
 * struct serve_conf - what serve_conf_read() made of struct serve_opts
 * @sa: the address to listen on
 * @salen: its length
 * @loopback: it is a loopback address
 * @cert: the certificate's PEM text (NUL-terminated), NULL without TLS
 * @key: the key's
 * @auth_header: the Authorization header a request must carry
 *	("Bearer TOKEN", "Basic BASE64"), NULL: none asked
 * @scheme_len: the length of its scheme word ("Bearer", "Basic")
 * @top: the stacks /metrics lists
 */
struct serve_conf {
	struct sockaddr_storage sa;
	socklen_t salen;
	bool loopback;
	char *cert;
	char *key;
	char *auth_header;
	size_t scheme_len;
	unsigned int top;
};

/**
 * serve_conf_read() - check the options and read their files: the address
 *	([ADDR:]PORT, ADDR an IPv4 address, [IPv6], or localhost; PORT 0
 *	takes a free one), the TLS files and the credentials (regular files,
 *	not through a symlink, owned by root and read by no one else: the key
 *	and the credentials); a non-loopback address without both TLS and
 *	credentials is refused
 * @o: the options
 * @c: filled (serve_conf_done() it, also after a failure)
 * @err: the reason, for the user
 * @errsz: its size
 *
 * Return: 0, or -errno.
 */
int serve_conf_read(const struct serve_opts *o, struct serve_conf *c, char *err, size_t errsz);

/**
 * serve_conf_done() - free what serve_conf_read() read (the secrets wiped)
 * @c: the configuration
 */
void serve_conf_done(struct serve_conf *c);

/**
 * serve_conf_listen() - the listening socket on @c's address
 * @c: the configuration
 * @ret_port: the port it listens on (the one the kernel chose for 0)
 * @err: the reason, for the user
 * @errsz: its size
 *
 * Return: the socket, or -errno.
 */
int serve_conf_listen(const struct serve_conf *c, unsigned int *ret_port, char *err, size_t errsz);

#endif /* STACKTOP_SERVE_CONF_H */
