/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_priv.h - what the journal (state.c) and the recovery of killed
 * runs (state_recover.c) share: the directory, the format's helpers.
 */
#ifndef STACKTOP_STATE_PRIV_H
#define STACKTOP_STATE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#define STATE_RUNDIR "/run/stacktop"
#define STATE_MAX    256

/* one change journaled */
struct state_entry {
	char kind; /* 'W', 'D', 'A' or 'P' */
	char *rel;
	char *value;
};

/* the run directory (@rundir, NULL for STATE_RUNDIR) checked and opened, made if @create */
int state_dir_open(const char *rundir, bool create);
/* the bytes a journal's hex field @h (@len digits) stands for, malloc'd; NULL if bad */
char *state_hex_get(const char *h, size_t len);

#endif /* STACKTOP_STATE_PRIV_H */
