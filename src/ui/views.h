/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * views.h - what every view shows alike: counts or weights in the
 * weight's unit, rates, the titles that say which, and the frames a stack
 * starts with that are the tracing machinery's (skipped, cached).
 */
#ifndef STACKTOP_UI_VIEWS_H
#define STACKTOP_UI_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/tui.h"

/* brief_skip() of @st (the tracing machinery's frames), cached per stack */
unsigned int ui_stack_skip(struct ui *ui, const struct stack *st);

/* counts in the unit of the weight in force (hits when none) */
int ui_fmt_count(const struct ui *ui, char *buf, size_t size, uint64_t n);
int ui_fmt_rate(const struct ui *ui, char *buf, size_t size, uint64_t delta);
const char *ui_count_title(const struct ui *ui);
const char *ui_weight_note(const struct ui *ui);
uint64_t ui_attr_count(const struct ui *ui, const struct stack_attr *a);
/* off-CPU time of the interval as a share of the interval (a thread's wall time) */
bool ui_wall_pct(const struct ui *ui, char *buf, size_t size, uint64_t ns);


#endif /* STACKTOP_UI_VIEWS_H */
