/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * screen.h - what the screen's own files share (screen.c, actions.c,
 * overlay.c, header.c). The views (list_view.c, stack_view.c, tree_view.c)
 * and draw.c never include it: they are below the screen
 * (tests/check-layering.sh checks it).
 */
#ifndef STACKTOP_UI_SCREEN_H
#define STACKTOP_UI_SCREEN_H

#include "ui/tui.h"

#define UI_DRAIN_MS 50       /* longest sleep between two drains */
#define UI_DRAIN_PAGES 256   /* pages per drain: bounded work per pass */
#define UI_HOLD_SEC 2.0      /* no re-sort this long after a navigation key */
#define UI_CONFIRM_SEC 5.0   /* window for the second r */
#define UI_DCLICK_SEC 0.4    /* two presses on a row within this: a double click */
#define UI_DEBOUNCE_SEC 0.12 /* typing in the filter re-ranks after this pause */

enum {
	R_REDRAW = 1 << 0,  /* draw again */
	R_RESORT = 1 << 1,  /* re-rank; a paused snapshot is only re-sorted */
	R_REFRESH = 1 << 2, /* re-rank from live data even when paused */
	R_QUIT = 1 << 3,
	R_NAV = 1 << 4,     /* the user moved: hold the order for a while */
	R_LAYOUT = 1 << 5,  /* screen areas changed */
	R_CLEAR = 1 << 6,   /* repaint every cell (Ctrl-L) */
	R_GONE = 1 << 7,    /* the terminal is gone */
};

#define UI_EMPTY_READS 200 /* readable but no key, this often in a row: hung up */

/* screen.c */
void ui_layout(struct ui *ui);
int ui_header_lines(const struct ui *ui);
int ui_apply_filters(struct ui *ui);
void ui_rank(struct ui *ui, bool live);
int ui_refresh_now(struct ui *ui);
bool ui_check_generation(struct ui *ui);
void ui_forget_stacks(struct ui *ui);

/* actions.c */
int ui_dispatch(struct ui *ui, enum ui_action act);
int ui_key(struct ui *ui, int key, bool fkey);

/* overlay.c */
void help_open(struct ui *ui);
void help_draw(struct ui *ui);
void help_key(struct ui *ui, int key, bool fkey);
void picker_open(struct ui *ui, enum ui_picker kind);
void picker_draw(struct ui *ui);
int picker_key(struct ui *ui, int key, bool fkey);
int picker_pick(struct ui *ui);

/* save.c */
int ui_save_view(struct ui *ui, int fmt);
void prompt_open(struct ui *ui, enum ui_prompt p, const char *initial);
int prompt_key(struct ui *ui, int key, bool fkey);
int ui_search(struct ui *ui, int dir, bool include_current);

/* header.c */
extern const char *const prompt_label[];
extern const char *const rank_key_name[RANK_KEY_MAX];

/**
 * ui_sort_name() - what the stack view is sorted by: a column's name, or
 * "CHG%" (diff mode, by the change of share)
 * @ui: screen
 */
const char *ui_sort_name(const struct ui *ui);
void ui_draw_header(struct ui *ui);
void ui_draw_bottom(struct ui *ui);

#endif /* STACKTOP_UI_SCREEN_H */
