/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - the command line's options, one table that drives
 * everything that lists them: getopt_long()'s arrays, the option
 * lines of --help, the tag lines of the man page's OPTIONS section
 * (tests/check-options-man.sh compares them) and the bash completion
 * (completion/stacktop asks `stacktop --print-options=complete`), and the
 * parsing of the plain options (a flag, a string, a bounded number or
 * size: @kind, @off, @min, @max). The table is in files by concern,
 * options_<concern>.c (options.c lists them in --help's order): what is
 * traced, what is measured and ranked, the output, the run. Adding a plain
 * option is one row in the file of its concern and its entry in the man
 * page; one with logic of its own (CLI_K_CODE) has its case in
 * args_set.c's args_take_code().
 */
#ifndef STACKTOP_CLI_OPTIONS_H
#define STACKTOP_CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/option_row.h"

/**
 * cli_option_at() - the table's @i-th row, in --help's order
 * @i: from 0
 *
 * Return: the row, NULL past the last.
 */
const struct cli_option *cli_option_at(unsigned int i);

/**
 * cli_option_count() - the table's rows
 *
 * Return: how many.
 */
unsigned int cli_option_count(void);

/**
 * cli_option_find() - the row of an option
 * @id: what getopt_long() returned for it
 *
 * Return: the row, NULL for none.
 */
const struct cli_option *cli_option_find(int id);

/**
 * cli_getopt() - getopt_long()'s arrays from the table
 * @longopts: receives cli_option_count() + 1 entries (the last all zero)
 * @shortopts: receives the short options (":e:p:...u::": ':' first, so that
 *	getopt_long() returns ':' for a missing argument)
 * @size: size of @shortopts
 */
void cli_getopt(struct option *longopts, char *shortopts, size_t size);

/**
 * cli_error() - an error message on standard error, as fprintf() formats it,
 *	with what the arguments put in it made inert
 * @fmt: printf format; its line ends ('\n') stay
 *
 * Each line goes through fmt_sanitize(): an escape sequence, a control byte
 * or a line end in a command-line argument (-p $'1\e[2J') is never replayed
 * on the terminal. At most 2 KiB.
 */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * cli_getopt_error() - say what getopt_long() refused (its own messages,
 *	opterr, would print the argument raw), then "Try 'stacktop --help'."
 * @argv: the arguments
 * @ind: getopt's optind after the refusal
 * @c: what getopt_long() returned: '?' or ':' (missing argument)
 * @opt: getopt's optopt
 */
void cli_getopt_error(char **argv, int ind, int c, int opt);

/**
 * cli_print_help() - the option lines of --help, in the table's order
 * @f: output
 */
void cli_print_help(FILE *f);

/**
 * cli_print_man() - the man page's OPTIONS tag lines, one a line, in the
 *	table's order (what tests/check-options-man.sh finds in the man page)
 * @f: output
 */
void cli_print_man(FILE *f);

/**
 * cli_print_formats_man() - the tag lines of the man page's FORMATS
 *	entries, one a line, in the formats' table's order: the name, its
 *	suffixes and "one profile" for a format that writes one a file (what
 *	tests/check-formats-man.sh finds in the man page)
 * @f: output
 */
void cli_print_formats_man(FILE *f);

/**
 * cli_print_complete() - for the bash completion: "--name", "-x" ("-"
 *	when it has none), the value's kind (flag, none, events, words, file, dir;
 *	"optional-" before it: a value only after '=', as getopt takes an
 *	optional one, unless --help shows it as a word of its own), and the
 *	words, tab-separated, one option a line
 * @f: output
 */
void cli_print_complete(FILE *f);

#endif /* STACKTOP_CLI_OPTIONS_H */
