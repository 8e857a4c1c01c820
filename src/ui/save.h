/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * save.h - P (save.c): the view, filters applied, written to
 * ./stacktop-DATE-TIME.SUFFIX in the format picked.
 */
#ifndef STACKTOP_UI_SAVE_H
#define STACKTOP_UI_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/tui.h"

/* write the view in format @fmt (enum export_format); 0 or -errno, said in the status line */
int ui_save_view(struct ui *ui, int fmt);

#endif /* STACKTOP_UI_SAVE_H */
