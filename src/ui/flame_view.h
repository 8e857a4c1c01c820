/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame_view.h - the flame graph view (flame_view.c; its graph is
 * flame_graph.c's, its pure layout flame_layout.c's): built from the
 * matching stacks at every refresh, drawn over the list's area with the
 * selected box's line at its foot; moved through with the arrows, zoomed
 * with Enter and Backspace, searched with /.
 */
#ifndef STACKTOP_UI_FLAME_VIEW_H
#define STACKTOP_UI_FLAME_VIEW_H

#include "ui/tui.h"

/* the flame graph: v opens it, v again goes back to the view it came from */
extern const struct ui_view_ops flame_view_ops;

#endif /* STACKTOP_UI_FLAME_VIEW_H */
