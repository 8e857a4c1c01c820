// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * save.c - `P`: the current view, filters applied, written to
 * ./stacktop-DATE-TIME.<suffix> in the format picked (output/export.c's
 * table: its first suffix) through export_write_file(): never a
 * partial file, never through a symlink, never over an existing file.
 *
 * Paused, the screen shows the counts of the ranking made when it was
 * paused while collection goes on: P writes those, not the newer ones the
 * table holds by then. The pause writes the view (every stack that passes
 * the filters, its totals and its interval's hits, the header's counters)
 * as a JSON snapshot into a directory of its own (mkdtemp(), mode 0700,
 * /tmp/stacktop-paused.PID.XXXXXX, removed on resume and on exit);
 * P reads it back as -r does (a session of that file) and writes the
 * format picked from it, the numbers on the screen in every format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output/export.h"
#include "session/session.h"
#include "ui/draw.h"
#include "ui/save.h"
#include "ui/screen_state.h"
#include "ui/tui.h"
#include "ui/uifmt.h"

#define FROZEN_FILE "/view.json"

/* the view as the screen shows it: its filters, its count, its order */
static void save_opts(const struct ui *ui, struct report_opts *o)
{
	*o = (struct report_opts){
		.top = 0,
		.expand = 5,
		.delta = ui->delta,
		.rank = ui->rank,
		.filter = ui->flt->filter[0] ? ui->flt->filter : NULL,
		.comm = ui->flt->comm[0] ? ui->flt->comm : NULL,
	};
}

void ui_save_thaw(struct ui *ui)
{
	char *f = ui->priv->frozen, *slash;

	if (!f[0])
		return;
	unlink(f);
	slash = strrchr(f, '/');
	if (slash)
		*slash = '\0';
	rmdir(f);
	f[0] = '\0';
}

int ui_save_freeze(struct ui *ui)
{
	char dir[64], err[512];
	struct report_opts o;
	int n;

	ui_save_thaw(ui);
	/* stacktop's pid in the name: whose it is, for a user looking at /tmp */
	snprintf(dir, sizeof(dir), "/tmp/stacktop-paused.%d.XXXXXX", (int)getpid());
	if (!mkdtemp(dir)) {
		n = -errno;
		ui_status(ui, true, "P cannot keep the paused view: %s: %s", dir, strerror(-n));
		return n;
	}
	snprintf(ui->priv->frozen, sizeof(ui->priv->frozen), "%s" FROZEN_FILE, dir);
	save_opts(ui, &o);
	n = export_write_file(ui->s, &o, EXPORT_JSON, 0, ui->priv->frozen, err, sizeof(err));
	if (n < 0) {
		ui_save_thaw(ui);
		ui_status(ui, true, "P cannot keep the paused view: %s", err);
		return n;
	}
	return 0;
}

/*
 * @fmt written from the paused view's snapshot: a session reading it back
 * (its stacks passed the filters when it was written: none is applied
 * again, the filters' texts are kept for the file's view)
 */
static int save_frozen(struct ui *ui, int fmt, const char *name, char *err, size_t errsz)
{
	const char *file = ui->priv->frozen;
	struct session_opts so = { .files = &file, .nfiles = 1 };
	struct session *fs;
	struct report_opts o;
	int n;

	n = session_open(&so, &fs, err, errsz);
	if (n < 0) {
		if (!err[0])
			snprintf(err, errsz, "the paused view: %s", strerror(-n));
		return n;
	}
	session_drain(fs, 0);
	session_tick(fs);
	save_opts(ui, &o);
	o.rank.event = o.rank.pid = o.rank.cpu = -1;
	o.rank.match = NULL;
	o.rank.match_ctx = NULL;
	o.rank.attr_match = NULL;
	o.rank.attr_ctx = NULL;
	o.rank.hide_idle = false;
	n = export_write_file(fs, &o, (enum export_format)fmt, 0, name, err, errsz);
	session_close(fs);
	return n;
}

int ui_save_view(struct ui *ui, int fmt)
{
	struct report_opts o;
	char name[128], err[512] = "";
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
	if (ui->paused && ui->priv->frozen[0]) {
		n = save_frozen(ui, fmt, name, err, sizeof(err));
	} else {
		save_opts(ui, &o);
		n = export_write_file(ui->s, &o, (enum export_format)fmt, 0, name, err,
				      sizeof(err));
	}
	if (n < 0)
		ui_status(ui, true, "%s", err);
	else if (fmt == EXPORT_FOLDED)
		ui_status(ui, false, "wrote %d folded stacks (%s%s, current filters) to ./%s", n,
			  ui->delta ? "last interval" : "cumulative", ui->paused ? ", paused" : "",
			  name);
	else
		ui_status(ui, false, "wrote the view as %s (%s%s, current filters) to ./%s",
			  export_format_name((enum export_format)fmt),
			  ui->delta ? "last interval" : "cumulative", ui->paused ? ", paused" : "",
			  name);
	return R_REDRAW;
}
