// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - see replay.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "ingest.h"
#include "replay.h"

struct replay {
	struct tracecmd_input *top;
	int nbuf; /* instance buffers, besides the top one */
	int ncpus;
	char *names;
};

struct run_ctx {
	struct ingest *ing;
	unsigned int base; /* first slot of the buffer being read */
	unsigned long long first, last;
	long long n;
};

int replay_open(const char *path, struct replay **ret)
{
	struct replay *r;
	size_t len;
	int fd, i;

	/* a clear errno for a missing or unreadable file */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!r->top) {
		free(r);
		return -EBADMSG;
	}
	r->ncpus = tep_get_cpus(tracecmd_get_tep(r->top));
	if (r->ncpus <= 0)
		r->ncpus = 1;
	r->nbuf = tracecmd_buffer_instances(r->top);
	if (r->nbuf < 0)
		r->nbuf = 0;
	len = 4;
	for (i = 0; i < r->nbuf; i++)
		len += strlen(tracecmd_buffer_instance_name(r->top, i)) + 1;
	r->names = calloc(1, len + 1);
	if (!r->names) {
		replay_close(r);
		return -ENOMEM;
	}
	strcpy(r->names, "top");
	for (i = 0; i < r->nbuf; i++) {
		strcat(r->names, ",");
		strcat(r->names, tracecmd_buffer_instance_name(r->top, i));
	}
	*ret = r;
	return 0;
}

void *replay_tep(struct replay *r)
{
	return tracecmd_get_tep(r->top);
}

unsigned int replay_slots(struct replay *r)
{
	return (unsigned int)(r->ncpus * (r->nbuf + 1));
}

const char *replay_buffers(struct replay *r)
{
	return r->names;
}

static int one(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct run_ctx *c = data;

	(void)h;
	if (!c->n || rec->ts < c->first)
		c->first = rec->ts;
	if (rec->ts > c->last)
		c->last = rec->ts;
	ingest_record_at(c->ing, c->base + (unsigned int)cpu, (unsigned int)cpu, rec->data,
			 (uint32_t)rec->size, rec->missed_events, rec->ts);
	c->n++;
	return 0;
}

long long replay_run(struct replay *r, struct ingest *ing, double *ret_seconds)
{
	struct run_ctx c = { .ing = ing };
	int i;

	if (tracecmd_iterate_events(r->top, NULL, 0, one, &c) < 0)
		return -EBADMSG;
	for (i = 0; i < r->nbuf; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(r->top, i);

		if (!h)
			continue;
		c.base = (unsigned int)((i + 1) * r->ncpus);
		tracecmd_iterate_events(h, NULL, 0, one, &c);
		tracecmd_close(h);
	}
	*ret_seconds = c.n ? (double)(c.last - c.first) / 1e9 : 0;
	return c.n;
}

void replay_close(struct replay *r)
{
	if (!r)
		return;
	if (r->top)
		tracecmd_close(r->top);
	free(r->names);
	free(r);
}
