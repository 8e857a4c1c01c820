// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym-bench.c - the user symbolizer's reading path alone, for instruction
 * counts (valgrind --tool=callgrind; doc/performance.md "Reading other
 * users' files"):
 *
 *   usym-bench [--reader] PID N [ROUNDS [print]]
 *
 * N addresses spread over every executable file mapping of process PID
 * (its binary and libraries), each interned and formatted ROUNDS times
 * (default 2): the first round opens the files and loads their symbol
 * tables, the others name from what is kept. Prints the frames named and
 * the symbolizer's memory (with "print": every frame of the last round),
 * and each round's wall time. --reader: the files opened and read by a
 * reader process (sym/ufile.h, ufile_reader_start()), as a run reads them;
 * without it, in this process (what the reader itself does).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sym/ufile.h"
#include "sym/usym.h"

int main(int argc, char **argv)
{
	struct usym_map *m = NULL;
	size_t n = 0, i, files = 0, len = 0, cap = 1 << 16;
	unsigned int pid, want, rounds, r, k, named = 0;
	bool print;
	char path[64], buf[512], *txt;
	uint64_t span = 0;
	struct usym *u;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "--reader")) {
		if (ufile_reader_start(NULL) < 0)
			return 1;
		argc--;
		argv++;
	}
	if (argc < 3)
		return 2;
	pid = (unsigned int)atoi(argv[1]);
	want = (unsigned int)atoi(argv[2]);
	rounds = argc > 3 ? (unsigned int)atoi(argv[3]) : 2;
	print = argc > 4 && !strcmp(argv[4], "print");
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "r");
	txt = malloc(cap + 1);
	if (!f || !txt)
		return 1;
	len = fread(txt, 1, cap, f);
	txt[len] = '\0';
	fclose(f);
	if (usym_parse_maps(txt, &m, &n) < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (m[i].ino && m[i].path[0] == '/') {
			span += m[i].end - m[i].start;
			files++;
		}
	if (!span)
		return 1;
	u = usym_new(NULL);
	usym_set_limit(u, 64u << 20); /* a quarter of the default --max-memory */
	for (r = 0; r < rounds; r++) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		named = 0;
		for (k = 0; k < want; k++) {
			uint64_t off = span / want * k, tok;

			/* the k-th address of the file mappings laid end to end */
			for (i = 0; i < n; i++) {
				if (!m[i].ino || m[i].path[0] != '/')
					continue;
				if (off < m[i].end - m[i].start)
					break;
				off -= m[i].end - m[i].start;
			}
			tok = usym_intern(u, pid, m[i].start + off);
			if (!tok)
				continue;
			usym_format(u, tok, buf, sizeof(buf), true, true);
			named += strncmp(buf, "[unknown]", 9) != 0;
			if (print && r == rounds - 1)
				printf("%s\n", buf);
		}
		usym_tick(u);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("round %u: %.3f ms\n", r + 1,
		       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	}
	printf("mappings %zu addresses %u named %u memory %zu\n", files, want, named,
	       usym_memory(u));
	{
		struct ufile_reader_stats rs;

		ufile_reader_stats(&rs);
		if (rs.readers)
			printf("reader requests %llu\n", (unsigned long long)rs.requests);
	}
	usym_free(u);
	usym_maps_free(m, n);
	free(txt);
	return 0;
}
