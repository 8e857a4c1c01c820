// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_user_vdso.c - the dwarf source's copies of the [vdso] (see
 * perf_user_priv.h): its code and unwind tables are in no file, so the
 * image is copied from a process's memory once per build-id, the way perf
 * keeps a copy of it, and each process's [vdso] mappings point at it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "source/perf_user_priv.h"
#include "sym/ufile.h"

#define PU_VDSO_MAX (1u << 20) /* a [vdso] larger than this is not copied */

/*
 * The image of @m, the [vdso] of @tgid, copied from the process's memory
 * (once per process: it lives, a sample of it was just taken) and kept once
 * per build-id - every process of a kernel has the same few.
 */
static const struct pu_vdso *vdso_get(struct perf_user *pu, uint32_t tgid, const struct umap *m)
{
	size_t len = (size_t)(m->end - m->start);
	uint8_t bid[64], *img;
	struct pu_vdso *v;
	unsigned int i;
	int bidlen;
	int64_t n;

	if (len > PU_VDSO_MAX)
		return NULL;
	/* by the reader: a process can hold the lock a read of its memory takes */
	img = malloc(len);
	n = img ? ufile_proc_read("/proc", tgid, "mem", img, len, m->start) : -1;
	if (n != (int64_t)len) {
		free(img);
		return NULL;
	}
	bidlen = dwunwind_image_buildid(img, len, bid, sizeof(bid));
	if (bidlen < 0)
		bidlen = 0;
	for (i = 0; i < pu->nvdsos; i++) {
		v = &pu->vdsos[i];
		if (v->bidlen == bidlen && v->len == len &&
		    (bidlen ? !memcmp(v->bid, bid, (size_t)bidlen) : !memcmp(v->image, img, len))) {
			free(img);
			return v;
		}
	}
	if (pu->nvdsos == PU_VDSOS_MAX) {
		free(img);
		return NULL;
	}
	v = &pu->vdsos[pu->nvdsos++];
	memcpy(v->bid, bid, (size_t)bidlen);
	v->bidlen = bidlen;
	v->image = img;
	v->len = len;
	log_debug("user stacks: a [vdso] image of %zu bytes copied from %u", len, tgid);
	return v;
}

void pu_vdso_attach(struct perf_user *pu, struct pu_proc *p)
{
	const struct pu_vdso *v;
	size_t i;

	if (p->vdso_tried)
		return;
	p->vdso_tried = true;
	for (i = 0; i < p->n; i++) {
		if (p->m[i].image || !pu_is_vdso(p->m[i].path))
			continue;
		v = vdso_get(pu, p->tgid, &p->m[i]);
		if (!v)
			continue;
		p->m[i].image = v->image;
		p->m[i].image_size = v->len;
		p->gen++;
	}
}
