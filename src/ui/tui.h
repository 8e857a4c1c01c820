/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui.h - the state of the interactive screen: struct ui, the views'
 * structs, the reaction flags actions return. Types only: each file's
 * functions are declared in its own header, so that including the state
 * never makes a file depend on a file above it.
 *
 * The files of ui/, each calling only the ones listed after it (the
 * layering test checks there is no circle):
 *
 *	screen.c          ui_run(): the poll loop, layout, drawing a frame
 *	actions.c         one function per action; keys and mouse
 *	overlay.c         help, pickers, the input line
 *	header.c          the header, the key bar
 *	refresh.c         filters, ranking, forgetting stacks
 *	stack_view.c      the ranked table: columns, drawing, actions, search
 *	stack_rank.c      its ranking, rows, selection, per-row facts
 *	breakdown.c       the pane of who hits the selected stack or node
 *	flame_draw.c      the flame graph drawn
 *	flame_view.c      the flame graph: build, moving, zoom (layout: flame_layout.c)
 *	tree_view.c       the caller/callee trees
 *	save.c            P: the view saved to a file
 *	views.c           counts or weights in the weight's unit; brief_skip cache
 *	list_view.c       the list widget every list embeds
 *	diffcol.c         --diff: BEFORE's shares, the CHG% column
 *	draw.c (draw.h)   ui_put, ui_attr, ui_status, colours: curses
 *	keys.c            the key table
 *	symcache.c, uifmt.c, flame_layout.c   pure helpers (no curses)
 */
#ifndef STACKTOP_UI_TUI_H
#define STACKTOP_UI_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/calltree.h"
#include "core/hmap.h"
#include "core/stack_table.h"
#include "core/rank.h"
#include "output/header.h"
#include "session/session.h"
#include "ui/flame_layout.h"
#include "ui/symcache.h"
#include "ui/uifmt.h"
#include "ui/ui.h"

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif

#define UI_MIN_COLS 80
#define UI_MIN_LINES 24

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

/* ---- list widget ------------------------------------------------------- */

struct list_view;

/**
 * struct list_view_ops - what a concrete list provides
 * @draw_row: draw row @row at screen line @y (full width), @selected when it
 *            is the selection
 */
struct list_view_ops {
	void (*draw_row)(struct list_view *lv, int row, int y, bool selected);
};

/**
 * struct list_view - selection and scrolling over @nr rows in a screen area
 * @ops: callbacks
 * @nr: rows
 * @sel: selected row (-1 when @nr is 0)
 * @top: first row shown
 * @y: first screen line of the area
 * @height: lines of the area
 */
struct list_view {
	const struct list_view_ops *ops;
	int nr;
	int sel;
	int top;
	int y;
	int height;
};

/* ---- the screen ----------------------------------------------------------- */

enum ui_view {
	UI_VIEW_STACKS,
	UI_VIEW_TREE,
	UI_VIEW_FLAME,
};

/* columns of the ranked table */
enum ui_col {
	COL_RANK,
	COL_ID,
	COL_DELTA,
	COL_TOTAL,
	COL_PCT,
	COL_BEFORE, /* --diff: the share before */
	COL_DIFF,   /* --diff: the change of the share against BEFORE */
	COL_RATE,
	COL_TREND,  /* the last intervals' counts as a sparkline */
	COL_DEPTH,
	COL_EVENT,
	COL_COMM,
	COL_ORIGIN, /* several -r snapshots: where the hits came from */
	COL_FUNC,
	COL_MAX,
};

/* what a stack row shows about who hits it, frozen with the ranking */
struct sv_info {
	int origin;   /* the origin with most hits, -1 none */
	bool origins; /* others have hits too */
	int event;
	int pid;
	uint32_t npids; /* pids with hits under the view's count and filters */
	char comm[32];
	int ntrend;     /* intervals in @trend; -1: refused by the memory limit */
	uint64_t trend[STACK_TREND]; /* hits (or weights) per interval, oldest first */
};

struct sv_row {
	struct stack *st;
	int frame;     /* -1: the stack's own row */
	uint32_t rank; /* index into stack_view.ranked */
};

/**
 * struct stack_view - the ranked table
 * @lv: list widget (first member)
 * @ranked: the rows of the last ranking (a snapshot: frozen while paused)
 * @nranked: rows in @ranked
 * @cap: room in @ranked
 * @rows: what is on screen: stack rows and their expanded frames
 * @nrows: rows in @rows
 * @rcap: room in @rows
 * @expanded: stack pointer -> 1 for expanded stacks (view state, never in the core)
 * @cols: column positions for the current width
 */
struct stack_view {
	struct list_view lv;
	struct rank_row *ranked;
	size_t nranked;
	size_t cap;
	struct sv_row *rows;
	size_t nrows;
	size_t rcap;
	struct hmap expanded;
	struct col_pos cols[COL_MAX];
	struct hmap info_index;    /* stack pointer -> index into @info */
	struct sv_info *info;
	size_t ninfo;
	size_t icap;
	struct breakdown *bd;      /* cached breakdown of the selected stack */
	bool chosen;               /* the user moved the selection: it follows its stack */
	bool opened;               /* the last key opened or closed the selected stack */
	unsigned int common;       /* leaf frames every ranked stack shares (brief_common()) */
	char common_text[160];     /* those frames in one line, for the column title */
	unsigned int *evcommon;    /* per event index: what its rows share (several events) */
	size_t nevcommon;
	bool per_event;            /* rows skip their event's shared frames, not @common */
	unsigned short *evlabel;   /* per event index: where its short label starts in the name */
	size_t nevlabel;
	int evw;                   /* widest event label */
	struct stack *search_opened; /* unfolded by the last search step, folded by the next */
	struct sv_saved {          /* the view when a search prompt opened (Esc restores it) */
		bool valid;
		struct hmap expanded;
		struct stack *sel_st;
		int sel_frame;
		int top;
		bool chosen;
	} saved;
};

struct tnode {
	uint64_t key;    /* hash of the path from the root */
	uint64_t sym;    /* symbol start (the merge key) */
	uint64_t ip;     /* a representative address */
	uint64_t count;  /* hits through this node */
	uint64_t self;   /* hits of stacks ending here */
	uint32_t parent; /* UINT32_MAX for roots */
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t nchild;
	uint16_t depth;
};

/**
 * struct tree_view - the caller tree
 * @lv: list widget (first member)
 * @nodes: all nodes of the last build
 * @nnodes: nodes used
 * @ncap: room
 * @index: path key -> node index
 * @expanded: path key -> 1 (survives rebuilds)
 * @rows: node indexes shown, depth-first
 * @nrows: rows used
 * @rcap: room
 * @all: scratch ranking of every matching stack
 * @allcap: room in @all
 * @total: hits of all roots
 */
struct tree_view {
	struct list_view lv;
	struct tnode *nodes;
	size_t nnodes;
	size_t ncap;
	struct hmap index;
	struct hmap expanded;
	uint32_t *rows;
	size_t nrows;
	size_t rcap;
	struct rank_row *all;
	size_t allcap;
	size_t nall; /* rows of @all the tree was built from */
	uint64_t total;
	uint32_t roots;
	bool callee;       /* the inverted tree: leaf first */
	struct calltree ct; /* the core's tree; @nodes is the screen's copy */
	struct tv_saved {          /* the view when a search prompt opened */
		bool valid;
		struct hmap expanded;
		uint64_t sel_key;
		int top;
	} saved;
};

/* what a flame graph box stands for (its colour) */
enum flame_kind {
	FK_ROOT,   /* "all" */
	FK_KERNEL,
	FK_MODULE, /* kernel code in a module */
	FK_USER,
	FK_TRACE,  /* the tracing machinery (brief_skip()) */
	FK_SEP,    /* where a process's user stack ends and the kernel's begins */
};

#define FLAME_ZOOM_MAX 256

/**
 * struct flame_view - the flame graph (flame_view.c): the caller tree of
 * the matching stacks, the tracing machinery kept as its leaves, every
 * frame a box as wide as its share; the layout is flame_layout.c's
 * @ct: the tree of the last build
 * @links: per node, its place in the graph's order (flame_layout.h)
 * @kind: per node, enum flame_kind
 * @match: per node, the search matches it (1) or an ancestor of it (2)
 * @ncap: room in @links, @kind, @match
 * @all: scratch ranking of every matching stack
 * @allcap: room in @all
 * @boxes: the layout of the last draw (mouse, moving)
 * @nboxes: boxes used
 * @bcap: room
 * @zoom: path keys of the zoomed nodes, outermost first (Enter pushes,
 *        Backspace pops); the innermost one the tree has is shown
 * @nzoom: entries in @zoom
 * @zoom_node: the node shown zoomed after the last build (0: none)
 * @sel_key: path key of the selected box (0: the root "all")
 * @sel: its node after the last build
 * @down_key: the child Up left, where Down goes back to
 * @top: first level on screen
 * @width: columns of the last layout
 * @saved_sel: the selection when a search prompt opened (Esc restores it)
 */
struct flame_view {
	struct calltree ct;
	struct flame_link *links;
	uint8_t *kind;
	uint8_t *match;
	size_t ncap;
	struct rank_row *all;
	size_t allcap;
	size_t nall; /* rows of @all the tree was built from */
	struct flame_box *boxes;
	size_t nboxes;
	size_t bcap;
	uint64_t zoom[FLAME_ZOOM_MAX];
	int nzoom;
	uint32_t zoom_node;
	uint64_t sel_key;
	uint32_t sel;
	uint64_t down_key;
	int top;
	int width;
	uint64_t saved_sel;
	enum ui_view back; /* the view v goes back to */
	uint32_t build;    /* bumped by every build and zoom: the other count's cache key */
	uint32_t other_build;
	uint32_t other_node;
	uint64_t other;    /* the selected box's other count (hits or weight), cached */
};

enum ui_overlay {
	OV_NONE,
	OV_HELP,
	OV_PICKER,
};

enum ui_prompt {
	PR_NONE,
	PR_SEARCH,
	PR_FILTER,
	PR_PID,
	PR_DELAY,
	PR_KFILTER,
};

enum ui_picker {
	PK_EVENT,
	PK_SORT,
	PK_FORMAT,  /* P: the format to save the view in */
};

#define UI_TEXT 128
#define UI_PICK_MAX 512

struct ui;

/**
 * struct picker - a pop-up list with a type-to-narrow line
 * @lv: list widget
 * @kind: what is picked
 * @query: typed text
 * @items: indexes of the items that match @query (-1: "all")
 * @nitems: count
 */
struct picker {
	struct list_view lv;
	enum ui_picker kind;
	char query[UI_TEXT];
	int items[UI_PICK_MAX];
	int nitems;
	struct ui *ui;
};

struct help_view {
	struct list_view lv;
	struct ui *ui;
};

struct ui {
	int ifd;         /* the terminal's input, non-blocking (screen.c) */
	int empty_reads; /* POLLIN without a key, in a row */
	double click_at; /* time, row and list of the last button-1 press */
	int click_row;
	const struct list_view *click_lv;
	bool prompt_fresh; /* the input still holds the prefilled old value */
	struct session *s;
	struct stack_table *t;
	struct ksym *ks;
	struct ui_opts opts;
	struct uidiff *diff;  /* --diff: BEFORE's shares by stack key (diffcol.c) */
	bool diff_sort;       /* --diff: ranked by the change of share (CHG%), not ui->rank.key */

	/* what is shown */
	enum ui_view view;
	enum ui_overlay overlay;
	bool delta;
	bool paused;
	bool breakdown;
	bool color;
	bool utf8;
	bool too_small;
	bool dirty;        /* redraw needed */
	bool rerank;       /* re-rank needed (filters, sort, expand) */
	int lines, cols;
	int list_y, list_h;        /* table area */
	int bd_y, bd_h;            /* breakdown pane */
	int coltitle_y;

	/* timing */
	double delay;
	double next_tick;
	double last_nav;
	double last_rank;
	uint32_t ranked_epoch; /* the table's interval at the last live ranking */
	double rerank_at;          /* debounced re-rank after typing */
	bool pending;              /* a refresh was held back */
	bool cmd_done;             /* -- CMD has ended: the view stays, nothing is read */
	char cmd_what[128];        /* how it ended ("make exited with status 2") */
	bool go_home;              /* the filters changed: select the first row after ranking */
	size_t seen;               /* stack_table_count() at the last check */

	/* data snapshot */
	struct report_head head; /* the session's header, read once per refresh (output/header.h) */
	struct rank_opts rank;
	struct rank_summary sum;
	uint32_t generation;
	size_t nstacks;
	size_t shown_k;

	/* filters and search */
	char filter[UI_TEXT];
	char search[UI_TEXT];
	char comm[UI_TEXT];
	struct symcache *syms;
	struct hmap skips;         /* stack -> brief_skip() + 1 */
	struct textmatch fmatch;   /* the \ filter */
	struct textmatch cmatch;   /* the p comm filter */
	struct textmatch smatch;   /* the / search */

	/* input line */
	enum ui_prompt prompt;
	int kfilter_event;         /* the event F edits the kernel filter of */
	char input[UI_TEXT];
	char input_saved[UI_TEXT];
	char prompt_note[64];      /* shown after the input: "not found", "12 match" */

	/* status line */
	char status[256];
	bool status_err;
	double status_until;
	bool confirm_reset;
	double confirm_until;

	struct stack_view sv;
	struct tree_view tv;
	struct flame_view fv;
	struct picker pk;
	struct help_view help;
};

#endif /* STACKTOP_UI_TUI_H */
