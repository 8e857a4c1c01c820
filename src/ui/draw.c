// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * draw.c - the drawing primitives and colours every part of the screen
 * uses (see draw.h). Calls nothing above it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/format.h"
#include "ui/draw.h"
#include "ui/screen_state.h"
#include "ui/tui.h"

#define UI_STATUS_SEC 8.0 /* a message stays this long */

double ui_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static attr_t ui_attrs[UC_MAX];

void ui_colors_init(struct ui *ui)
{
	static const struct {
		short fg, bg;
		attr_t extra;
		attr_t mono;
	} spec[UC_MAX] = {
		[UC_NORMAL] = { -1, -1, 0, A_NORMAL },
		[UC_HEADER_LABEL] = { COLOR_CYAN, -1, 0, A_NORMAL },
		[UC_HEADER_VALUE] = { -1, -1, A_BOLD, A_BOLD },
		[UC_ALERT] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
		[UC_COLTITLE] = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
		[UC_SORTCOL] = { COLOR_BLACK, COLOR_CYAN, A_BOLD,
				 A_REVERSE | A_BOLD | A_UNDERLINE },
		[UC_SELECTED] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE | A_BOLD },
		[UC_FRAME] = { COLOR_CYAN, -1, 0, A_NORMAL },
		[UC_FRAME_MOD] = { COLOR_YELLOW, -1, 0, A_NORMAL },
		[UC_STATUS_INFO] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[UC_STATUS_ERR] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
		[UC_KEYBAR_KEY] = { -1, -1, A_BOLD, A_BOLD },
		[UC_KEYBAR_TEXT] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
		[UC_PAUSED] = { COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD },
		[UC_MATCH] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
		[UC_DIM] = { -1, -1, A_DIM, A_DIM },
		/*
		 * Flame graph boxes. Monochrome: boxes in reverse video, kernel
		 * plain, modules underlined (their names also say [module]),
		 * user bold, the tracing machinery dim; the selected box is the
		 * one not reversed, matches of the search reversed, bold and
		 * underlined.
		 */
		[UC_FLAME_KERNEL] = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE },
		[UC_FLAME_MODULE] = { COLOR_BLACK, COLOR_MAGENTA, 0, A_REVERSE | A_UNDERLINE },
		[UC_FLAME_USER] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
		[UC_FLAME_TRACE] = { COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE | A_DIM },
		[UC_FLAME_SEP] = { COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE },
		[UC_FLAME_ANCESTOR] = { COLOR_BLACK, COLOR_WHITE, A_DIM, A_REVERSE | A_DIM },
		[UC_FLAME_SEL] = { COLOR_WHITE, COLOR_BLACK, A_BOLD, A_BOLD },
		[UC_FLAME_MATCH] = { COLOR_BLACK, COLOR_GREEN, A_BOLD,
				     A_REVERSE | A_BOLD | A_UNDERLINE },
	};
	int i;

	ui->priv->term.color = ui->priv->term.color && has_colors() && start_color() == OK;
	if (ui->priv->term.color)
		use_default_colors();
	for (i = 0; i < UC_MAX; i++) {
		if (!ui->priv->term.color) {
			ui_attrs[i] = spec[i].mono;
			continue;
		}
		init_pair((short)(i + 1), spec[i].fg, spec[i].bg);
		ui_attrs[i] = COLOR_PAIR(i + 1) | spec[i].extra;
	}
}

attr_t ui_attr(const struct ui *ui, enum ui_color c)
{
	(void)ui;
	return ui_attrs[c];
}

/*
 * ui_put() - @text cut to @width columns (fmt_fit: never wrapped), padded
 * with blanks, at (@y, @x) in @attr. @text must already be sanitized: it
 * comes from the core's formatters or from fixed strings.
 */
/* the terminal's charset is not UTF-8: one '?' per non-ASCII character */
static bool ui_ascii_only;

void ui_set_ascii_only(bool on)
{
	ui_ascii_only = on;
}

static const char *ui_ascii(const char *text, char *buf, size_t size)
{
	size_t n = 0;

	for (; *text && n + 1 < size; text++) {
		unsigned char c = (unsigned char)*text;

		if (c < 0x80)
			buf[n++] = (char)c;
		else if ((c & 0xc0) != 0x80) /* a lead byte; continuation bytes go */
			buf[n++] = '?';
	}
	buf[n] = '\0';
	return buf;
}

void ui_put(int y, int x, int width, attr_t attr, const char *text)
{
	char buf[1024], ascii[1024];
	int used;

	if (width <= 0 || x >= COLS || y >= LINES)
		return;
	if (x + width > COLS)
		width = COLS - x;
	if (ui_ascii_only)
		text = ui_ascii(text, ascii, sizeof(ascii));
	used = fmt_fit(buf, sizeof(buf), text, width);
	attron(attr);
	mvaddstr(y, x, buf);
	if (used < width)
		hline(' ', width - used);
	attroff(attr);
}

void ui_status(const struct ui *ui, bool err, const char *fmt, ...)
{
	char raw[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	fmt_sanitize(ui->priv->msg.text, sizeof(ui->priv->msg.text), raw, strlen(raw));
	ui->priv->msg.err = err;
	ui->priv->msg.until = ui_now() + UI_STATUS_SEC;
	ui->priv->loop.dirty = true;
}
