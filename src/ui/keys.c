// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * keys.c - the key table: dispatcher, help screen, --help and man page.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "ui/keys.h"
#include "ui/ui.h"

#define CTRL(c) ((c)&0x1f)

/* a row per key reads as the table it is: */
/* clang-format off */
const struct ui_key ui_keys[] = {
	{ "General", { 'q', KEY_F(10) }, "q, F10", ACT_QUIT,
	  "quit (tracefs and the terminal are restored)" },
	{ NULL, { 'h', '?', KEY_F(1) }, "h, ?, F1", ACT_HELP, "this help" },
	{ NULL, { 'Z', ' ' }, "Z, Space", ACT_PAUSE,
	  "pause/resume the display (collection goes on)" },
	{ NULL, { 'z' }, "z", ACT_DELTA, "toggle delta (last interval) / cumulative counts" },
	{ NULL, { 'd' }, "d", ACT_DELAY, "set the refresh delay in seconds" },
	{ NULL, { CTRL('l') }, "Ctrl-L", ACT_REDRAW, "redraw the screen and refresh now" },

	{ "Moving", { KEY_UP, 'k' }, "Up, k", ACT_UP, "select the previous row" },
	{ NULL, { KEY_DOWN, 'j' }, "Down, j", ACT_DOWN, "select the next row" },
	{ NULL, { KEY_PPAGE, CTRL('b') }, "PgUp, Ctrl-B", ACT_PGUP, "one page up" },
	{ NULL, { KEY_NPAGE, CTRL('f') }, "PgDn, Ctrl-F", ACT_PGDN, "one page down" },
	{ NULL, { KEY_HOME, 'g' }, "Home, g", ACT_HOME, "first row" },
	{ NULL, { KEY_END, 'G' }, "End, G", ACT_END, "last row" },

	{ "Stacks", { '\n', '\r', KEY_ENTER }, "Enter", ACT_TOGGLE,
	  "expand or collapse the selected stack (tree: node)" },
	{ NULL, { KEY_RIGHT, '+' }, "Right, +", ACT_EXPAND, "expand the selected stack into frames" },
	{ NULL, { KEY_LEFT, '-' }, "Left, -", ACT_COLLAPSE,
	  "collapse (on a frame: go back to its stack)" },
	{ NULL, { 'E' }, "E", ACT_EXPAND_ALL, "expand all stacks (tree: all nodes)" },
	{ NULL, { 'C' }, "C", ACT_COLLAPSE_ALL, "collapse all (flame graph: zoom all the way out)" },
	{ NULL, { 'b' }, "b", ACT_BREAKDOWN,
	  "show/hide the breakdown of the selected stack (tree: node) by event, comm/pid, CPU and (-u) library" },
	{ NULL, { 't', KEY_F(5) }, "t, F5", ACT_TREE,
	  "cycle the views: list, caller tree (merged from the root frame), callee tree (merged by leaf, toward the callers; children/self per function)" },
	{ NULL, { 'v', KEY_F(7) }, "v, F7", ACT_FLAME,
	  "flame graph of what the view matches (again: back); arrows move, Enter zooms in" },
	{ NULL, { KEY_BACKSPACE, 127, 8 }, "Backspace", ACT_ZOOM_OUT,
	  "flame graph: zoom out one step (Esc too, once no search is on)" },
	{ NULL, { 'L' }, "L", ACT_FLAME_ORDER,
	  "flame graph: left-heavy (heaviest callee first) or alphabetical order; kept across refreshes and zooms" },
	{ NULL, { 'i' }, "i", ACT_FLAME_INVERT,
	  "flame graph: inverted (leaf functions on top, their callers below) or not; v from the callee tree opens it inverted" },
	{ NULL, { 'H' }, "H", ACT_FLAME_TRACING,
	  "flame graph: hide or show the tracing machinery's frames (trace_*, perf_trace_*, ... at the leaf)" },
	{ NULL, { ']' }, "]", ACT_DEPTH_MORE,
	  "group stacks by one more of their first frames (from whole stacks: 1, who calls the leaf)" },
	{ NULL, { '[' }, "[", ACT_DEPTH_LESS, "group by one frame fewer (below 1: whole stacks)" },
	{ NULL, { 'o' }, "o", ACT_GROUP_BY,
	  "rows keyed like perf --sort, in turn: sym (leaf user function), dso (its library), dso,sym, comm, ksym (kernel leaf), whole stacks" },
	{ NULL, { 'w' }, "w", ACT_WEIGHT,
	  "rank by weight (--weight field, --offcpu time) or by hits" },

	{ "Finding", { '/', KEY_F(3) }, "/, F3", ACT_SEARCH,
	  "search a function or comm (incremental)" },
	{ NULL, { 'n' }, "n", ACT_SEARCH_NEXT, "next search match" },
	{ NULL, { 'N' }, "N", ACT_SEARCH_PREV, "previous search match" },
	{ NULL, { '\\', KEY_F(4) }, "\\, F4", ACT_FILTER,
	  "filter: stacks with a frame or comm containing the text (a|b: either)" },
	{ NULL, { 'f' }, "f", ACT_EVENT, "filter by event (pick one of the events seen)" },
	{ NULL, { 'p' }, "p", ACT_PID, "filter by pid (a number), comm containing text, or =comm (exact or glob)" },
	{ NULL, { 'x' }, "x", ACT_CLEAR, "clear every filter and the search" },

	{ "Sorting", { '<', ',' }, "<, ,", ACT_SORT_PREV, "sort by the previous column" },
	{ NULL, { '>', '.' }, ">, .", ACT_SORT_NEXT, "sort by the next column" },
	{ NULL, { KEY_F(6) }, "F6", ACT_SORT_PICK, "pick the sort column" },
	{ NULL, { 'I' }, "I", ACT_INVERT, "invert the sort order" },

	{ "Kernel", { 'r' }, "r", ACT_RESET,
	  "reset the stack map and counts (press twice; empties a full map pool; stacks mode: counts only)" },
	{ NULL, { 's' }, "s", ACT_STACKMAP, "toggle the kernel stackmap option" },
	{ NULL, { 'F' }, "F", ACT_KFILTER,
	  "edit the kernel filter of the selected event (f's pick, else the selected stack's main event; empty: none)" },
	{ NULL, { 'P' }, "P", ACT_SAVE,
	  "save the view (filters applied) to ./stacktop-DATE-TIME.*: asks the format (Enter: json)" },
	{ NULL, { 'u' }, "u", ACT_USER,
	  "toggle user stacks (stacks and stackmap modes): user frames below the kernel ones" },
};
/* clang-format on */

const unsigned int ui_nkeys = sizeof(ui_keys) / sizeof(ui_keys[0]);

const char keys_mouse_help[] =
	"Mouse: a click selects a row, a double click folds or unfolds it, a click on a column title sorts by it (again: inverts), the wheel scrolls; in the flame graph a click selects a box and a double click zooms into it (into an ancestor bar: out to it); -M turns the mouse off.";

enum ui_action keys_lookup(int key, bool fkey)
{
	unsigned int i, j;

	if (!key)
		return ACT_NONE;
	for (i = 0; i < ui_nkeys; i++) {
		for (j = 0; j < KEYS_PER_BINDING && ui_keys[i].keys[j]; j++) {
			int k = ui_keys[i].keys[j];

			/* a character (U+0112 is 274 too) is never a function key, and back */
			if (k == key && (k >= KEY_MIN) == fkey)
				return ui_keys[i].action;
		}
	}
	return ACT_NONE;
}

void ui_print_keys(FILE *f)
{
	unsigned int i;

	for (i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].section)
			fprintf(f, "%s%s:\n", i ? "\n" : "", ui_keys[i].section);
		fprintf(f, "  %-14s %s\n", ui_keys[i].names, ui_keys[i].help);
	}
	fprintf(f, "\n%s\n", keys_mouse_help);
}

/* escape text for a man(7) line: backslashes, hyphens, a leading dot */
static void man_escape(FILE *f, const char *s, bool line_start)
{
	for (; *s; s++, line_start = false) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void keys_print_man(FILE *f)
{
	unsigned int i;

	fputs(".\\\" generated from src/ui/keys.c by keys_print_man(); do not edit by hand\n", f);
	for (i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].section) {
			fputs(".SS ", f);
			man_escape(f, ui_keys[i].section, false);
			fputc('\n', f);
		}
		fputs(".TP\n.B ", f);
		man_escape(f, ui_keys[i].names, false);
		fputc('\n', f);
		man_escape(f, ui_keys[i].help, true);
		fputc('\n', f);
	}
	fputs(".SS Mouse\n", f);
	man_escape(f, keys_mouse_help, true);
	fputc('\n', f);
}
