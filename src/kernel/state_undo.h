/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_undo.h - undo one journal entry: what the journal's restore
 * (state.c), its fatal-signal path and the recovery of killed runs
 * (state_recover.c) all do with an entry. Async-signal-safe.
 */
#ifndef STACKTOP_STATE_UNDO_H
#define STACKTOP_STATE_UNDO_H

struct tfs;

/**
 * state_undo_one() - undo one journal entry in @t
 * @t:     the tracefs root the entry was made under
 * @kind:  'W' (write @value back), 'D' (remove the directory @rel),
 *         'A' (append @value to @rel), 'P' (take the pid @value out of
 *         the pid list @rel)
 * @rel:   the path under @t
 * @value: as @kind says
 *
 * Plain system calls on static buffers: safe in a signal handler.
 * Return: 0 (also when what it undoes is gone already), -errno.
 */
int state_undo_one(struct tfs *t, char kind, const char *rel, const char *value);

#endif /* STACKTOP_STATE_UNDO_H */
