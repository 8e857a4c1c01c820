// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - see options.h: the table's files in --help's order, getopt's
 * arrays, the errors, and the lists printed from the table. The --help
 * lines keep their layout: the option from column 2 (its short form
 * first), its text from column 26, on the next line when the option is
 * wider than 23 columns.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "core/format.h"
#include "output/export.h"

#define HELP_COL 26

/* the table: the files of its concerns, in --help's order */
static const struct cli_option *const cli_sections[] = {
	cli_options_trace,
	cli_options_measure,
	cli_options_output,
	cli_options_run,
};

const struct cli_option *cli_option_at(unsigned int i)
{
	unsigned int k;

	for (k = 0; k < sizeof(cli_sections) / sizeof(cli_sections[0]); k++) {
		const struct cli_option *o = cli_sections[k];

		for (; o->name; o++)
			if (!i--)
				return o;
	}
	return NULL;
}

unsigned int cli_option_count(void)
{
	unsigned int n = 0;

	while (cli_option_at(n))
		n++;
	return n;
}

const struct cli_option *cli_option_find(int id)
{
	const struct cli_option *o;
	unsigned int i;

	for (i = 0; (o = cli_option_at(i)); i++)
		if (o->id == id)
			return o;
	return NULL;
}

void cli_getopt(struct option *longopts, char *shortopts, size_t size)
{
	const struct cli_option *o;
	size_t n = 0;
	unsigned int i;

	/* ':' first: a missing argument told from an unknown option (cli_getopt_error()) */
	if (size > 1)
		shortopts[n++] = ':';
	for (i = 0; (o = cli_option_at(i)); i++) {
		longopts[i] = (struct option){ o->name, o->has_arg, NULL, o->id };
		if (!o->shrt || n + 4 > size)
			continue;
		shortopts[n++] = o->shrt;
		if (o->has_arg != no_argument)
			shortopts[n++] = ':';
		if (o->has_arg == optional_argument)
			shortopts[n++] = ':';
	}
	longopts[i] = (struct option){ NULL, 0, NULL, 0 };
	if (size)
		shortopts[n < size ? n : size - 1] = '\0';
}

void cli_error(const char *fmt, ...)
{
	char msg[2048], line[2048];
	const char *p, *nl;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* line by line: the message's own line ends stay, the arguments' do not */
	for (p = msg; *p; p = *nl ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		fmt_sanitize(line, sizeof(line), p, (size_t)(nl - p));
		fprintf(stderr, "%s%s", line, *nl ? "\n" : "");
	}
}

void cli_getopt_error(char **argv, int ind, int c, int opt)
{
	const char *arg = ind > 0 ? argv[ind - 1] : "";
	bool lng = !strncmp(arg, "--", 2);

	if (lng && c == ':')
		cli_error("stacktop: option '%s' requires an argument\n", arg);
	else if (lng)
		cli_error("stacktop: unrecognized option '%s' (or ambiguous, or given a value)\n",
			  arg);
	else if (opt > ' ' && opt < 0x7f)
		cli_error("stacktop: %s -- '%c'\n",
			  c == ':' ? "option requires an argument" : "invalid option", opt);
	else
		cli_error("stacktop: invalid option -- byte 0x%02x\n", (unsigned int)opt & 0xff);
	cli_error("Try 'stacktop --help'.\n");
}

void cli_print_help(FILE *f)
{
	const struct cli_option *o;
	unsigned int i, k;

	for (i = 0; (o = cli_option_at(i)); i++) {
		const char *p, *nl;
		int w;

		if (!o->help)
			continue;
		if (o->shrt)
			w = fprintf(f, "  -%c, --%s%s", o->shrt, o->name,
				    o->metavar ? o->metavar : "");
		else
			w = fprintf(f, "      --%s%s", o->name, o->metavar ? o->metavar : "");
		/* wider than the column: the text starts on the next line */
		if (w >= HELP_COL) {
			fputc('\n', f);
			w = 0;
		}
		for (p = o->help; p; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			fprintf(f, "%*s%.*s\n", HELP_COL - w, "",
				nl ? (int)(nl - p) : (int)strlen(p), p);
			w = 0;
		}
		for (k = 0; o->values && o->values(k, &p); k++)
			fprintf(f, "%*s%s\n", HELP_COL, "", p);
	}
}

void cli_print_man(FILE *f)
{
	const struct cli_option *o;
	unsigned int i;

	for (i = 0; (o = cli_option_at(i)); i++)
		if (o->help)
			fprintf(f, "%s\n", o->man);
}

void cli_print_complete(FILE *f)
{
	static const char *const kinds[] = {
		[CLI_FLAG] = "flag",   [CLI_NONE] = "none", [CLI_EVENTS] = "events",
		[CLI_WORDS] = "words", [CLI_FILE] = "file", [CLI_DIR] = "dir",
	};
	const struct cli_option *o;
	unsigned int i, k;

	for (i = 0; (o = cli_option_at(i)); i++) {
		char shrt[4] = "-"; /* tab is blank to read: no empty field */
		const char *w;

		if (!o->help)
			continue;
		if (o->shrt)
			snprintf(shrt, sizeof(shrt), "-%c", o->shrt);
		/* an optional value comes after '=', unless --help shows it as a word of its own */
		fprintf(f, "--%s\t%s\t%s%s\t%s", o->name, shrt,
			o->has_arg == optional_argument && !(o->metavar && o->metavar[0] == ' ')
				? "optional-"
				: "",
			kinds[o->complete], o->words ? o->words : "");
		for (k = 0; !o->words && o->values && (w = o->values(k, NULL)); k++)
			fprintf(f, "%s%s", k ? " " : "", w);
		fputc('\n', f);
	}
}

void cli_print_formats_man(FILE *f)
{
	const struct export_fmt *e;
	int i, j;

	for (i = 0; (e = export_format_get(i)); i++) {
		fprintf(f, ".BR %s \" (", e->name);
		for (j = 0; j < EXPORT_SUFFIXES && e->suffixes[j]; j++)
			fprintf(f, "%s%s", j ? ", " : "", e->suffixes[j]);
		fprintf(f, "%s)\"\n", e->flags & EXPORT_F_ONE ? "; one profile" : "");
	}
}
