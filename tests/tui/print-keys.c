// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print-keys - print the UI key table: as in --help (default) or as the
 * man page's KEYS section (--man). Used by check-keys-man.sh and the tmux
 * help test, so that all of them compare against the one table.
 */
#include <stdio.h>
#include <string.h>

#include "ui/keys.h"
#include "ui/ui.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--man"))
		keys_print_man(stdout);
	else
		ui_print_keys(stdout);
	return ferror(stdout) ? 1 : 0;
}
