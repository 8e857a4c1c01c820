// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * save.c - `P`: the current view, filters applied, written to
 * ./stacktop-DATE-TIME.<suffix> in the format picked (output/export.c's
 * table: its first suffix) through export_write_file(): never a
 * partial file, never through a symlink, never over an existing file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "output/export.h"
#include "ui/draw.h"
#include "ui/save.h"
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/uifmt.h"

int ui_save_view(struct ui *ui, int fmt)
{
	struct report_opts o = {
		.top = 0,
		.expand = 5,
		.delta = ui->delta,
		.rank = ui->rank,
		.filter = ui->flt->filter[0] ? ui->flt->filter : NULL,
		.comm = ui->flt->comm[0] ? ui->flt->comm : NULL,
	};
	char name[128], err[512];
	struct stat sb;
	int seq, n;

	if (fmt < 0 || fmt >= EXPORT_FORMAT_MAX)
		return R_REDRAW;
	/* a name nobody uses yet: P never replaces a file */
	for (seq = 0; seq < 100; seq++) {
		uifmt_save_name(name, sizeof(name), time(NULL), seq,
				export_format_get(fmt)->suffixes[0]);
		if (lstat(name, &sb) < 0 && errno == ENOENT)
			break;
	}
	if (seq == 100) {
		ui_status(ui, true, "cannot find a free name for %s", name);
		return R_REDRAW;
	}
	n = export_write_file(ui->s, &o, (enum export_format)fmt, 0, name, err, sizeof(err));
	if (n < 0)
		ui_status(ui, true, "%s", err);
	else if (fmt == EXPORT_FOLDED)
		ui_status(ui, false, "wrote %d folded stacks (%s, current filters) to ./%s", n,
			  ui->delta ? "last interval" : "cumulative", name);
	else
		ui_status(ui, false, "wrote the view as %s (%s, current filters) to ./%s",
			  export_format_name((enum export_format)fmt),
			  ui->delta ? "last interval" : "cumulative", name);
	return R_REDRAW;
}
