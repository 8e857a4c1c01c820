// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - see replay.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

/* the comm in field @cname of @rec, for the pid in field @pname */
static void learn_comm(struct tep_handle *tep, struct tep_event *ev, struct tep_record *rec,
		       const char *cname, const char *pname)
{
	struct tep_format_field *cf = tep_find_field(ev, cname), *pf = tep_find_field(ev, pname);
	unsigned long long pid;
	char comm[17];
	int len;

	if (!cf || !pf || rec->size < 0 || (long)cf->offset + cf->size > (long)rec->size ||
	    tep_read_number_field(pf, rec->data, &pid) || !pid || pid > INT32_MAX)
		return;
	len = cf->size < 16 ? cf->size : 16;
	memcpy(comm, (char *)rec->data + cf->offset, (size_t)len);
	comm[len] = '\0';
	if (comm[0] && strcmp(tep_data_comm_from_pid(tep, (int)pid), comm))
		tep_register_comm(tep, comm, (int)pid);
}

/*
 * The saved cmdlines of a recording hold the last 128 (by default) comms
 * only: the scheduler events name the rest (what trace-cmd's sched_switch
 * plugin does for its report)
 */
static void learn_comms(struct tracecmd_input *h, struct tep_record *rec)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep ? tep_find_event_by_record(tep, rec) : NULL;

	if (!ev || !ev->system || strcmp(ev->system, "sched"))
		return;
	learn_comm(tep, ev, rec, "prev_comm", "prev_pid");
	learn_comm(tep, ev, rec, "next_comm", "next_pid");
	learn_comm(tep, ev, rec, "comm", "pid");
}

static int one(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct run_ctx *c = data;

	learn_comms(h, rec);
	if (!c->n || rec->ts < c->first)
		c->first = rec->ts;
	if (rec->ts > c->last)
		c->last = rec->ts;
	ingest_record(c->ing, c->base + (unsigned int)cpu, (unsigned int)cpu, rec->data,
		      (uint32_t)rec->size, rec->missed_events);
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
