/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagegen.h - build little-endian, 8-byte-long ring-buffer pages in memory
 * for tests and benchmarks: event records, kernel_stack records and
 * stack_id records with the field layout of a real kernel (see
 * tests/fixtures/ringbuf/ for the formats they mirror).
 */
#ifndef STACKTOP_TESTS_PAGEGEN_H
#define STACKTOP_TESTS_PAGEGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernel/evfmt.h"

#define PG_SIZE		4096
#define PG_DATA		16
#define PG_EVENT_TYPE	372 /* sched_switch on the test kernel */
#define PG_EVENT2_TYPE	300
#define PG_KSTACK_TYPE	4
#define PG_STACKID_TYPE 20

struct pagegen {
	uint8_t buf[PG_SIZE];
	uint32_t len;
};

static inline void pagegen_init_fmt(struct evfmt *f)
{
	memset(f, 0, sizeof(*f));
	memset(f->index, 0xff, sizeof(f->index));
	f->layout.long_size = 8;
	f->layout.big_endian = false;
	f->layout.data_offset = PG_DATA;
	f->layout.subbuf_size = PG_SIZE;
	f->kstack_type = PG_KSTACK_TYPE;
	f->kstack_size_off = 8;
	f->kstack_caller_off = 16;
	f->stackid_type = PG_STACKID_TYPE;
	f->stackid_off = 8;
	f->ustack_type = 13;
	f->ustack_tgid_off = 8;
	f->ustack_caller_off = 16;
	f->pid_off = 4;
	f->index[PG_EVENT_TYPE] = 0;
	f->index[PG_EVENT2_TYPE] = 1;
}

static inline void pagegen_start(struct pagegen *p, uint64_t ts)
{
	memset(p->buf, 0, sizeof(p->buf));
	memcpy(p->buf, &ts, 8);
	p->len = PG_DATA;
}

static inline bool pagegen_room(const struct pagegen *p, uint32_t payload)
{
	return p->len + 8 + payload + 16 <= PG_SIZE;
}

/* one record: common header (type, flags, preempt, pid) + @extra payload bytes */
static inline uint8_t *pagegen_record(struct pagegen *p, uint16_t type, int32_t pid,
				      uint32_t payload)
{
	uint32_t hdr;
	uint8_t *d;

	payload = (payload + 3) & ~3u;
	if (payload <= 112) {
		hdr = (1u << 5) | (payload / 4); /* delta 1 */
		memcpy(p->buf + p->len, &hdr, 4);
		p->len += 4;
	} else {
		uint32_t w = payload + 4;

		hdr = 1u << 5;
		memcpy(p->buf + p->len, &hdr, 4);
		memcpy(p->buf + p->len + 4, &w, 4);
		p->len += 8;
	}
	d = p->buf + p->len;
	memset(d, 0, payload);
	memcpy(d, &type, 2);
	memcpy(d + 4, &pid, 4);
	p->len += payload;
	return d;
}

static inline void pagegen_event(struct pagegen *p, uint16_t type, int32_t pid)
{
	pagegen_record(p, type, pid, 64);
}

static inline void pagegen_kstack(struct pagegen *p, int32_t pid, const uint64_t *ips, int n)
{
	uint8_t *d = pagegen_record(p, PG_KSTACK_TYPE, pid, 16 + 8 * (uint32_t)n);

	memcpy(d + 8, &n, 4);
	memcpy(d + 16, ips, 8 * (size_t)n);
}

/* a user_stack record: tgid and 8 callers (@n given, the rest 0) */
static inline void pagegen_ustack(struct pagegen *p, int32_t pid, uint32_t tgid,
				  const uint64_t *ips, int n)
{
	uint8_t *d = pagegen_record(p, 13, pid, 16 + 8 * 8);

	memcpy(d + 8, &tgid, 4);
	memcpy(d + 16, ips, 8 * (size_t)n);
}

static inline void pagegen_stackid(struct pagegen *p, int32_t pid, int32_t id)
{
	uint8_t *d = pagegen_record(p, PG_STACKID_TYPE, pid, 12);

	memcpy(d + 8, &id, 4);
}

static inline void pagegen_finish(struct pagegen *p, uint64_t flags)
{
	uint64_t commit = (p->len - PG_DATA) | flags;

	memcpy(p->buf + 8, &commit, 8);
}

#endif /* STACKTOP_TESTS_PAGEGEN_H */
