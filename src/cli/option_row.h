/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * option_row.h - a row of the table of options (options.h), and the
 * table's files by concern, options_<concern>.c, each an array ended by a
 * row without a name: what is traced, what is measured and ranked, the
 * output, the run. options.c lists them in --help's order.
 */
#ifndef STACKTOP_CLI_OPTION_ROW_H
#define STACKTOP_CLI_OPTION_ROW_H

#include <getopt.h>
#include <stddef.h>

/* getopt's values of the options without a short letter */
enum {
	OPT_TOP = 0x100,
	OPT_MODE,
	OPT_TRACEFS,
	OPT_KALLSYMS,
	OPT_RESET_FIRST,
	OPT_RUNDIR,
	OPT_NO_COLOR,
	OPT_BUFFER_KB,
	OPT_EXPAND,
	OPT_SORT,
	OPT_FOLDED,
	OPT_JSON,
	OPT_CUMULATIVE,
	OPT_PRINT_KEYS,
	OPT_PRINT_OPTIONS,
	OPT_MAP,
	OPT_SHOW_SELF,
	OPT_LIST_EVENTS,
	OPT_MAX_MEMORY,
	OPT_FORMAT,
	OPT_FOLDED_ROOT,
	OPT_FOLDED_LOST,
	OPT_WEIGHT,
	OPT_OFFCPU,
	OPT_DEPTH,
	OPT_BY_FUNC,
	OPT_COUNT,
	OPT_FILTER,
	OPT_FUNCTION,
	OPT_KPROBE,
	OPT_TRIGGER,
	OPT_TID,
	OPT_COMM,
	OPT_DIFF,
	OPT_USER_BUFFER,
	OPT_USER_SAMPLE,
	OPT_CLEANUP,
	OPT_PRESERVE_ENV,
	OPT_ONCPU,
	OPT_SAMPLE,
	OPT_OVERHEAD,
	OPT_DIFF_BASE,
	OPT_SERVE,
	OPT_SERVE_TOP,
	OPT_SERVE_CERT,
	OPT_SERVE_KEY,
	OPT_SERVE_AUTH,
	OPT_NO_INLINE,
	OPT_GROUP_BY,
	OPT_VMLINUX,
};

/* what the bash completion offers for an option's value */
enum cli_complete {
	CLI_FLAG,   /* no value: the next word is another option */
	CLI_NONE,   /* a value nothing can guess (a number, a name) */
	CLI_EVENTS, /* "system:event" of the kernel's events */
	CLI_WORDS,  /* one of @words */
	CLI_FILE,   /* a file name */
	CLI_DIR,    /* a directory */
};

/* how args_parse() takes an option's value (struct cli_option's @kind) */
enum cli_kind {
	CLI_K_CODE,  /* code of its own: args_set.c's args_take_code() */
	CLI_K_TRUE,  /* the bool at @off set */
	CLI_K_FALSE, /* the bool at @off cleared */
	CLI_K_COUNT, /* the int at @off counted up */
	CLI_K_STR,   /* the argument itself, a const char * at @off (@min 1: not empty) */
	CLI_K_INT,   /* an int at @off, @min to @max */
	CLI_K_UINT,  /* an unsigned int at @off, @min to @max */
	CLI_K_LONG,  /* a long at @off, @min to @max */
	CLI_K_SIZE,  /* a size_t at @off, bytes with K, M or G, @min to @max (0: no bound) */
};

/**
 * struct cli_option - one option of the command line
 * @id: what getopt_long() returns for it: its short letter, or an OPT_*
 * @name: its long name, without "--"
 * @shrt: its short letter, 0 for none
 * @has_arg: no_argument, required_argument or optional_argument
 * @metavar: what --help writes after the name, separator included
 *	     (" SYS:EVENT", "[=fp|dwarf]"), NULL for none
 * @help: --help's text, lines joined by '\n' (printed from column 26);
 *	  NULL: a hidden option (not in --help nor in the man page)
 * @man: the tag line of its entry in the man page's OPTIONS section (the
 *	 line after .TP)
 * @complete: what the completion offers for its value
 * @words: the values, space-separated (CLI_WORDS)
 * @values: the values from another table (--format's: the formats of
 *	output/export.h): the @i-th one's name, NULL past the last, and in
 *	*@line (if not NULL) its line for --help, listed after @help; the
 *	completion's words when @words is NULL
 * @kind: how its value is taken (CLI_K_CODE: by code of its own)
 * @off: where in struct args (cli/args.h) it goes, offsetof()
 * @min: the least value (CLI_K_STR: 1 refuses an empty one)
 * @max: the largest value
 * @hint: what a value is, said when one is refused ("1 to 100000")
 */
struct cli_option {
	int id;
	const char *name;
	char shrt;
	int has_arg;
	const char *metavar;
	const char *help;
	const char *man;
	enum cli_complete complete;
	const char *words;
	const char *(*values)(unsigned int i, const char **line);
	enum cli_kind kind;
	size_t off;
	long long min;
	long long max;
	const char *hint;
};

/* the table's files, each ended by a row without a name */
extern const struct cli_option cli_options_trace[];
extern const struct cli_option cli_options_measure[];
extern const struct cli_option cli_options_output[];
extern const struct cli_option cli_options_run[];

#endif /* STACKTOP_CLI_OPTION_ROW_H */
