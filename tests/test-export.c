// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-export.c - the export formats and export_write_file() on a real
 * session: a replay of a saved stack map (tests/fixtures/export/stack_map,
 * 3 stacks, 15 hits) symbolized with the fixture kallsyms. No kernel needed.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "output/colblob.h"
#include "output/export.h"
#include "output/formats.h"
#include "output/losses.h"
#include "session/session.h"
#include "source/stats.h"

struct fx {
	char dir[64];
	char map[512];
	char ksyms[512];
	struct session *s;
	struct report_opts o;
};

static int setup(void **state)
{
	const char *fix = getenv("ST_FIXTURES");
	struct session_opts so = { 0 };
	struct fx *fx = calloc(1, sizeof(*fx));
	char err[256];

	assert_non_null(fx);
	assert_non_null(fix);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/stacktop-export.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->map, sizeof(fx->map), "%s/export/stack_map", fix);
	snprintf(fx->ksyms, sizeof(fx->ksyms), "%s/ksym/kallsyms", fix);
	so.map_file = fx->map;
	so.kallsyms = fx->ksyms;
	assert_int_equal(session_open(&so, &fx->s, err, sizeof(err)), 0);
	assert_true(session_drain(fx->s, 0) >= 0);
	session_tick(fx->s);
	fx->o = (struct report_opts){
		.top = 0,
		.delta = false,
		.rank = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 },
	};
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char cmd[128];

	session_close(fx->s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* entries of @dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_format_names(void **state)
{
	(void)state;
	assert_int_equal(export_format_guess("a/out.pb.gz"), EXPORT_PPROF);
	assert_int_equal(export_format_guess("out.PPROF"), EXPORT_PPROF);
	assert_int_equal(export_format_guess("x.speedscope.json"), EXPORT_SPEEDSCOPE);
	assert_int_equal(export_format_guess("x.json"), EXPORT_JSON);
	assert_int_equal(export_format_guess("x.collapsed"), EXPORT_FOLDED);
	assert_int_equal(export_format_guess("x.txt"), EXPORT_TEXT);
	assert_int_equal(export_format_guess("x.json/out"), -EINVAL);
	assert_int_equal(export_format_guess(".json"), -EINVAL);
	assert_int_equal(export_format_parse("speedscope"), EXPORT_SPEEDSCOPE);
	assert_int_equal(export_format_guess("flame.html"), EXPORT_HTML);
	assert_int_equal(export_format_guess("FLAME.HTM"), EXPORT_HTML);
	assert_int_equal(export_format_parse("html"), EXPORT_HTML);
	assert_string_equal(export_format_name(EXPORT_HTML), "html");
	assert_int_equal(export_format_guess("flame.svg"), EXPORT_SVG);
	assert_int_equal(export_format_parse("svg"), EXPORT_SVG);
	assert_int_equal(export_format_parse("xml"), -EINVAL);
	assert_string_equal(export_format_name(EXPORT_PPROF), "pprof");
}

/*
 * export_format_list() of the formats with every bit of @with and none of
 * @without, against the same list made here from the table: "a, b and c"
 */
static void assert_list(unsigned int with, unsigned int without, const char *last)
{
	const struct export_fmt *e;
	char want[256] = "", got[256];
	int i, n = 0, k = 0;

	for (i = 0; (e = export_format_get(i)); i++)
		n += (e->flags & with) == with && !(e->flags & without);
	for (i = 0; (e = export_format_get(i)); i++) {
		if ((e->flags & with) != with || (e->flags & without))
			continue;
		if (k)
			strcat(want, k == n - 1 ? last : ", ");
		strcat(want, e->name);
		k++;
	}
	assert_true(n > 0);
	assert_int_equal(export_format_list(got, sizeof(got), with, without, last), n);
	assert_string_equal(got, want);
}

/* the formats' table: each name and suffix leads back to its format; the lists made from it */
static void test_format_table(void **state)
{
	const struct export_fmt *e;
	char buf[256], path[64];
	int i, j;

	(void)state;
	for (i = 0; (e = export_format_get(i)); i++) {
		assert_int_equal(export_format_parse(e->name), i);
		assert_string_equal(export_format_name((enum export_format)i), e->name);
		assert_non_null(e->write);
		assert_non_null(e->suffixes[0]);
		for (j = 0; j < EXPORT_SUFFIXES && e->suffixes[j]; j++) {
			snprintf(path, sizeof(path), "dir.x/out%s", e->suffixes[j]);
			assert_int_equal(export_format_guess(path), i);
			assert_int_equal(export_suffix_len(path), strlen(e->suffixes[j]));
		}
		/* the picker's line: the name in 12 columns, what it is, its file's suffix */
		snprintf(buf, sizeof(buf), "%-12s%s (%s)", e->name, e->help, e->suffixes[0]);
		assert_string_equal(export_format_line((enum export_format)i), buf);
	}
	assert_int_equal(i, EXPORT_FORMAT_MAX);
	assert_null(export_format_get(-1));
	assert_string_equal(export_format_line(EXPORT_PPROF), "pprof       go tool pprof (.pb.gz)");
	assert_string_equal(export_format_name(EXPORT_FORMAT_MAX), "?");
	/* a refresh's number goes before the longest suffix (out.3.pb.gz) */
	assert_int_equal(export_suffix_len("out.PB.GZ"), 6);
	assert_int_equal(export_suffix_len("a/b.speedscope.json"), 16);
	assert_int_equal(export_suffix_len("out.data"), 0);
	assert_int_equal(export_suffix_len(".pb.gz"), 0);
	/* the lists, against the table (a new format changes no line here) */
	assert_list(EXPORT_F_ROOT, 0, " and ");
	assert_list(EXPORT_F_DIFF, 0, " or ");
	assert_list(0, EXPORT_F_LOST, " and ");
	assert_list(0, 0, ", ");
	assert_int_equal(export_format_list(buf, 8, 0, 0, ", "), EXPORT_FORMAT_MAX);
	assert_int_equal(strlen(buf), 7);
	assert_int_equal(strncmp(buf, export_format_name(EXPORT_TEXT), 4), 0);
}

static void test_write_file_new_and_replace(void **state)
{
	struct fx *fx = *state;
	char path[128], err[256];
	struct stat a, b;

	snprintf(path, sizeof(path), "%s/snap.json", fx->dir);
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_JSON, 1, path, err, sizeof(err)),
			 0);
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(a.st_mode & 07777, 0600);
	assert_non_null(strstr(slurp(path), "{\"schema\":\"stacktop-snapshot\",\"version\":2,"));
	/* replaced by a new file, whole */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_FOLDED, 1, path, err, sizeof(err)),
			 3);
	assert_int_equal(stat(path, &b), 0);
	assert_int_not_equal(a.st_ino, b.st_ino);
	assert_int_equal(b.st_mode & 07777, 0600);
	assert_non_null(strstr(slurp(path), "_text_[k];schedule_timeout_[k];schedule_[k] 7\n"));
	assert_int_equal(entries(fx->dir), 1); /* no temporary file left */
}

static void test_write_file_refused(void **state)
{
	struct fx *fx = *state;
	char victim[128], link[128], dir[128], nodir[128], err[512];

	snprintf(victim, sizeof(victim), "%s/victim", fx->dir);
	snprintf(link, sizeof(link), "%s/link.json", fx->dir);
	snprintf(dir, sizeof(dir), "%s/sub", fx->dir);
	snprintf(nodir, sizeof(nodir), "%s/none/x.json", fx->dir);
	fclose(fopen(victim, "w"));
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_JSON, 1, link, err, sizeof(err)),
			 -ELOOP);
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_string_equal(slurp(victim), "");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_JSON, 1, dir, err, sizeof(err)),
			 -EISDIR);
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_JSON, 1, nodir, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no such directory"));
	assert_int_equal(entries(fx->dir), 3); /* victim, link, sub: nothing else */
	/* the kernel's file systems: the true reason, not "no such directory" */
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_TEXT, 1, "/proc/self/mem", err,
					   sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "cannot write /proc/self/mem: it is on procfs, a kernel file "
				 "system, not a place for a file");
	assert_int_equal(
		export_write_file(fx->s, &fx->o, EXPORT_TEXT, 1, "/sys/x.txt", err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "it is on sysfs"));
	/* a directory that is there but takes no new file (removed, still the cwd) */
	{
		char cwd[PATH_MAX], gone[160];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		snprintf(gone, sizeof(gone), "%s/gone", fx->dir);
		assert_int_equal(mkdir(gone, 0700), 0);
		assert_int_equal(chdir(gone), 0);
		assert_int_equal(rmdir(gone), 0);
		assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_TEXT, 1, "./x.txt", err,
						   sizeof(err)),
				 -ENOENT);
		assert_int_equal(chdir(cwd), 0);
		assert_string_equal(err,
				    "cannot write ./x.txt: . takes no new file (No such file or "
				    "directory; -o writes a new file there and renames it over "
				    "the target)");
	}
}

static void test_folded_roots(void **state)
{
	struct fx *fx = *state;
	char path[128], err[256];

	snprintf(path, sizeof(path), "%s/x.folded", fx->dir);
	fx->o.root = EXPORT_ROOT_COMM;
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_FOLDED, 1, path, err, sizeof(err)),
			 3);
	assert_non_null(strstr(slurp(path), "[unknown];weak_func_[k];schedule_[k] 3\n"));
}

/* csv: a header, a row per stack, the totals of the folded file */
static void test_csv(void **state)
{
	struct fx *fx = *state;
	char path[128], err[256], *p, *line;
	uint64_t sum = 0;
	int rows = 0;

	snprintf(path, sizeof(path), "%s/x.csv", fx->dir);
	assert_int_equal(export_format_guess(path), EXPORT_CSV);
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_CSV, 1, path, err, sizeof(err)),
			 3);
	p = slurp(path);
	assert_true(!strncmp(p,
			     "refresh,rank,key,hits,hits_total,percent,hits_per_sec,event,comm,"
			     "pid,pids,depth,stack\n",
			     84));
	for (line = strchr(p, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		char key[17], stack[512];
		unsigned long long delta, total;
		int refresh, rank;

		assert_int_equal(sscanf(line, "%d,%d,%16[0-9a-f],%llu,%llu,", &refresh, &rank, key,
					&delta, &total),
				 5);
		assert_int_equal(refresh, 1);
		assert_int_equal(rank, ++rows);
		sum += total;
		/* the frames last, leaf first, joined by ';' */
		assert_int_equal(sscanf(strrchr(line, ',') + 1, "%511[^\n]", stack), 1);
		assert_non_null(strchr(stack, ';'));
	}
	assert_int_equal(rows, 3);
	assert_int_equal(sum, 15); /* 7 + 5 + 3, as in the folded and html files */
}

/* csv fields: quoted as RFC 4180 says, formulas defused, controls sanitized */
static void test_csv_field(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "schedule", "schedule" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\"" },
		{ "+1", "\"'+1\"" },
		{ "-x", "\"'-x\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "", "" },
	};
	char *buf;
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		export_csv_field(f, cases[i].in);
		fclose(f);
		assert_string_equal(buf, cases[i].out);
		free(buf);
	}
	/* a line break or an escape never reaches the file raw */
	{
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		export_csv_field(f, "evil\n\x1b[31mname");
		fclose(f);
		assert_null(strchr(buf, '\n'));
		assert_null(strchr(buf, '\x1b'));
		free(buf);
	}
	/* a field longer than any fixed buffer (a deep stack) is never cut */
	{
		size_t n = 20000;
		char *in = malloc(n + 1);
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(in);
		assert_non_null(f);
		memset(in, 'x', n);
		in[n] = '\0';
		in[n - 1] = ',';
		export_csv_field(f, in);
		fclose(f);
		assert_int_equal(len, n + 2);
		assert_int_equal(buf[n], ',');
		free(buf);
		free(in);
	}
}

/* the top-level fields of a protobuf message, checked well-formed */
static int pb_fields(const uint8_t *p, size_t n, unsigned int want, const char *needle, bool *found)
{
	size_t i = 0;
	int count = 0;

	while (i < n) {
		uint64_t tag = 0, v = 0;
		int sh = 0;

		do {
			assert_true(i < n);
			tag |= (uint64_t)(p[i] & 0x7f) << sh;
			sh += 7;
		} while (p[i++] & 0x80);
		sh = 0;
		do {
			assert_true(i < n);
			v |= (uint64_t)(p[i] & 0x7f) << sh;
			sh += 7;
		} while (p[i++] & 0x80);
		assert_true((tag & 7) == 0 || (tag & 7) == 2);
		if ((tag & 7) == 2) {
			assert_true(v <= n - i);
			if ((tag >> 3) == 6 && v == strlen(needle) && !memcmp(p + i, needle, v))
				*found = true;
			i += v;
		}
		if ((tag >> 3) == want)
			count++;
	}
	return count;
}

/*
 * The flame graph page: the page around the profile, the names sorted and
 * deduplicated, the tree merged in preorder with children in name order:
 * _text;schedule_timeout;schedule 7, ext4_file_write_iter;nvme_queue_rq 5,
 * weak_func;schedule 3 (schedule is one name in two places).
 */
static void test_html_tree(void **state)
{
	struct fx *fx = *state;
	char *buf = NULL, *data, *end;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(export_html(f, fx->s, &fx->o), 3);
	assert_int_equal(fclose(f), 0);
	assert_memory_equal(buf, "<!DOCTYPE html>", 15);
	assert_non_null(strstr(buf, "content=\"default-src 'none'; script-src 'sha256-"));
	data = strstr(buf, "<script id=\"stacktop-data\" type=\"application/json\">{");
	assert_non_null(data);
	end = strstr(data, "</script>");
	assert_non_null(end);
	*end = '\0';
	assert_non_null(strstr(data, "\"format\":\"stacktop-flame\",\"version\":1,"));
	assert_non_null(strstr(data, "\"counts\":\"total\""));
	assert_non_null(strstr(data, "\"root\":\"none\""));
	assert_non_null(strstr(data, "\"weight\":null"));
	assert_non_null(strstr(data,
			       "\"names\":[[\"_text\",0],[\"ext4_file_write_iter\",1,\"ext4\"],"
			       "[\"nvme_queue_rq\",1,\"nvme\"],[\"schedule\",0],"
			       "[\"schedule_timeout\",0],[\"weak_func\",0]],\"stride\":3,"));
	/* depth, name, self: all; _text; schedule_timeout; schedule 7; ext4...;
	 * nvme_queue_rq 5; weak_func; schedule 3 */
	assert_non_null(
		strstr(data, "\"nodes\":[0,-1,0,1,0,0,2,4,0,3,3,7,1,1,0,2,2,5,1,5,0,2,3,3]"));
	/* the records under the self counts, for the page's filters: the map's
	 * hits have no event name and no process (-1), on CPU 0 */
	assert_non_null(strstr(data, "3,3],\"ev\":[],\"attrs\":[0,-1,0],\"comms\":[null]}"));
	/* and their splits in an element of their own, parsed at the first filter */
	assert_non_null(strstr(end + 1, "<script id=\"stacktop-splits\" type=\"application/json\">"
					"{\"splits\":[3,0,7,5,0,5,7,0,3]}</script>"));
	assert_non_null(strstr(end + 1, "</html>"));
	free(buf);

	/* rooted at the command: the map's hits have no process */
	fx->o.root = EXPORT_ROOT_COMM;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(export_html(f, fx->s, &fx->o), 3);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "[\"[unknown]\",4]"));
	assert_non_null(
		strstr(buf, "\"nodes\":[0,-1,0,1,0,0,2,1,0,3,5,0,4,4,7,2,2,0,3,3,5,2,6,0,3,4,3]"));
	free(buf);
}

/*
 * The flame page's large documents (colblob.h): the header's length, the
 * header, each column little-endian from a multiple of 8 bytes on, the
 * narrowest type for its values; a column given the wrong number of values
 * is an error, not a page the browser misreads.
 */
static void test_colblob_layout(void **state)
{
	static const uint64_t vals[] = { 0, 255, 256, 65535, 65536, UINT32_MAX };
	static const enum colblob_type want[] = { COLBLOB_U8,  COLBLOB_U8,  COLBLOB_U16,
						  COLBLOB_U16, COLBLOB_U32, COLBLOB_U32 };
	const unsigned char *u;
	struct colblob c;
	char *doc = NULL, *head = NULL;
	size_t len = 0, hlen = 0, i;
	double d;
	FILE *h;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		assert_int_equal(colblob_type_for(vals[i]), want[i]);
	assert_int_equal(colblob_type_for(UINT32_MAX + 1ULL), COLBLOB_F64);

	assert_int_equal(colblob_init(&c), 0);
	colblob_column(&c, "up", COLBLOB_U8, 3);
	colblob_put(&c, 0);
	colblob_put(&c, 1);
	colblob_put(&c, 2);
	colblob_column(&c, "name", COLBLOB_U16, 2);
	colblob_put(&c, 0x1234);
	colblob_put(&c, 7);
	colblob_column(&c, "big", COLBLOB_F64, 1);
	colblob_put(&c, 1ULL << 40);
	h = open_memstream(&head, &hlen);
	assert_non_null(h);
	fputs("{\"n\":3,", h);
	colblob_spec(&c, h);
	fputc('}', h);
	assert_int_equal(fclose(h), 0);
	assert_string_equal(head, "{\"n\":3,\"columns\":[[\"up\",\"u8\",3],[\"name\",\"u16\",2],"
				  "[\"big\",\"f64\",1]]}");
	assert_int_equal(colblob_finish(&c, head, hlen, &doc, &len), 0);
	u = (const unsigned char *)doc;
	/* 4 + 66 bytes of header, to 72; up at 72, name at 80, big at 88 */
	assert_int_equal(hlen, 66);
	assert_int_equal(len, 96);
	assert_int_equal(u[0] | u[1] << 8 | u[2] << 16 | (uint32_t)u[3] << 24, hlen);
	assert_memory_equal(doc + 4, head, hlen);
	for (i = 4 + hlen; i < 72; i++)
		assert_int_equal(u[i], 0);
	assert_int_equal(u[72], 0);
	assert_int_equal(u[73], 1);
	assert_int_equal(u[74], 2);
	for (i = 75; i < 80; i++)
		assert_int_equal(u[i], 0);
	assert_int_equal(u[80], 0x34);
	assert_int_equal(u[81], 0x12);
	assert_int_equal(u[82], 7);
	assert_int_equal(u[83], 0);
	memcpy(&d, doc + 88, sizeof(d)); /* little-endian here, as the browsers */
	assert_true(d == 1099511627776.0);
	free(doc);
	free(head);
	colblob_free(&c);

	/* one value short: the document is refused */
	assert_int_equal(colblob_init(&c), 0);
	colblob_column(&c, "up", COLBLOB_U8, 2);
	colblob_put(&c, 0);
	assert_int_equal(colblob_finish(&c, "{}", 2, &doc, &len), -EINVAL);
	assert_null(doc);
	colblob_free(&c);
	/* one too many */
	assert_int_equal(colblob_init(&c), 0);
	colblob_column(&c, "up", COLBLOB_U8, 1);
	colblob_put(&c, 0);
	colblob_put(&c, 1);
	assert_int_equal(colblob_finish(&c, "{}", 2, &doc, &len), -EINVAL);
	colblob_free(&c);
}

static void test_pprof_well_formed(void **state)
{
	struct fx *fx = *state;
	static uint8_t buf[65536];
	char path[128], err[256];
	bool found = false;
	gzFile gz;
	int n;

	snprintf(path, sizeof(path), "%s/p.pb.gz", fx->dir);
	/* one sample per (stack, event, cpu, pid) record: 3 */
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_PPROF, 1, path, err, sizeof(err)),
			 3);
	gz = gzopen(path, "rb");
	assert_non_null(gz);
	n = gzread(gz, buf, sizeof(buf));
	gzclose(gz);
	assert_true(n > 0 && n < (int)sizeof(buf));
	assert_int_equal(pb_fields(buf, (size_t)n, 2, "nvme_queue_rq", &found), 3); /* samples */
	assert_true(found);
	assert_int_equal(pb_fields(buf, (size_t)n, 4, "", &found), 6); /* locations */
	assert_int_equal(pb_fields(buf, (size_t)n, 1, "", &found), 2); /* sample types */
}

/*
 * tests/fixtures/export/stack_map_ret: a return address at the first byte
 * of weak_func (what %pS prints for the return of a noreturn call that
 * ended schedule_timeout) is schedule_timeout's frame, as %pB names it: in
 * the symbols, the key, folded lines (where the two stacks fold to one line,
 * counted once with both counts); grouped by function, the two stacks are one.
 */
static void test_return_address_names(void **state)
{
	const char *fix = getenv("ST_FIXTURES");
	struct session_opts so = { 0 };
	struct report_opts o = {
		.rank = { .key = RANK_TOTAL, .event = -1, .pid = -1, .cpu = -1 },
	};
	char map[512], ksyms[512], err[256], *buf = NULL;
	struct session *s;
	size_t len = 0;
	FILE *f;

	(void)state;
	snprintf(map, sizeof(map), "%s/export/stack_map_ret", fix);
	snprintf(ksyms, sizeof(ksyms), "%s/ksym/kallsyms", fix);
	so.map_file = map;
	so.kallsyms = ksyms;
	assert_int_equal(session_open(&so, &s, err, sizeof(err)), 0);
	assert_true(session_drain(s, 0) >= 0);
	session_tick(s);
	f = open_memstream(&buf, &len);
	/* two stacks, one folded line: the counts summed (a reader need not merge) */
	assert_int_equal(export_folded_root(f, s, &o), 1);
	assert_int_equal(export_json(f, s, &o, 1), 0);
	fclose(f);
	assert_non_null(strstr(buf, "_text_[k];schedule_timeout_[k];schedule_[k] 6\n{"));
	assert_null(strstr(buf, "weak_func"));
	assert_non_null(strstr(buf, "\"symbols\":[\"schedule+0x10/0xc0\","
				    "\"schedule_timeout+0x30/0x30\",\"_text+0x20/0x70\"]"));
	free(buf);
	/* by function: the frames are function starts, named as they are */
	assert_int_equal(session_set_group(s, 0, true), 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(export_folded_root(f, s, &o), 1);
	fclose(f);
	assert_string_equal(buf, "_text_[k];schedule_timeout_[k];schedule_[k] 6\n");
	free(buf);
	session_close(s);
}

/* ---- losses (output/losses.h): every format says what it misses ------------ */

/*
 * tests/fixtures/export/lost.json: 2 stacks, 30 hits in the interval (100
 * since start); the interval lost 5 (page headers), overran 30, read 60
 * records; since start 8, 100 and 200. Records gone: max(lost, overrun) +
 * dropped = 30 (100): a third of what was written, and a view of 30 hits
 * misses 30 * 30 / 60 = 15 (since start 100 * 100 / 200 = 50).
 */
static int setup_lost(void **state)
{
	const char *fix = getenv("ST_FIXTURES");
	struct session_opts so = { 0 };
	struct fx *fx = calloc(1, sizeof(*fx));
	static char path[512];
	static const char *files[1];
	char err[256];

	assert_non_null(fx);
	assert_non_null(fix);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/stacktop-export.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(path, sizeof(path), "%s/export/lost.json", fix);
	files[0] = path;
	so.files = files;
	so.nfiles = 1;
	assert_int_equal(session_open(&so, &fx->s, err, sizeof(err)), 0);
	assert_true(session_drain(fx->s, 0) >= 0);
	session_tick(fx->s);
	fx->o = (struct report_opts){
		.top = 0,
		.delta = true,
		.rank = { .key = RANK_DELTA, .event = -1, .pid = -1, .cpu = -1 },
	};
	*state = fx;
	return 0;
}

/* what @fmt writes for the view of @fx, in memory (NUL-terminated) */
static char *write_mem(struct fx *fx, enum export_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_true(export_write(f, fx->s, &fx->o, fmt, 1) >= 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_losses_counts(void **state)
{
	struct fx *fx = *state;
	struct export_losses l;
	char text[512];

	export_losses_get(fx->s, true, &l);
	assert_int_equal(l.lost, 5);
	assert_int_equal(l.overrun, 30);
	assert_int_equal(l.dropped, 0);
	assert_true(l.records_unit); /* lost.json predates events_read */
	assert_int_equal(l.read, 60);
	assert_int_equal(export_losses_gone(&l), 30);
	assert_int_equal(export_losses_scale(&l, 30), 15);
	assert_true(export_losses_share(&l) > 0.333 && export_losses_share(&l) < 0.334);
	export_losses_text(text, sizeof(text), &l);
	assert_string_equal(text, "lost 5, overrun 30, dropped 0 ring-buffer records in the last "
				  "interval (60 read): about 33.3% of the events are missing from "
				  "the counts");
	export_losses_get(fx->s, false, &l);
	assert_int_equal(export_losses_gone(&l), 100);
	assert_int_equal(export_losses_scale(&l, 100), 50);
	/* dropped records never reached a page: they add to the lost ones */
	l.dropped = 20;
	assert_int_equal(export_losses_gone(&l), 120);
	/* nothing read to compare with: no share, no estimate */
	l.read = 0;
	assert_true(export_losses_share(&l) < 0);
	assert_int_equal(export_losses_scale(&l, 100), 0);
	export_losses_text(text, sizeof(text), &l);
	assert_non_null(strstr(text, "how many records were read is not known"));
}

/* counts in events (issue 35): lost is every event missing, out of those read whole */
static void test_losses_events(void **state)
{
	struct export_losses l = {
		.delta = true, .lost = 30, .overrun = 25, .dropped = 5, .read = 60
	};
	char text[512];

	(void)state;
	assert_int_equal(export_losses_gone(&l), 30);
	assert_int_equal(export_losses_scale(&l, 30), 15);
	assert_true(export_losses_share(&l) > 0.333 && export_losses_share(&l) < 0.334);
	export_losses_text(text, sizeof(text), &l);
	assert_string_equal(text, "lost 30 events in the last interval (overrun 25, dropped 5; 60 "
				  "read): 33.3% of the events are missing from the counts");
	/* nothing read (a period that read nothing whole): all of it is missing */
	l.read = 0;
	assert_true(export_losses_share(&l) == 1.0);
	assert_int_equal(export_losses_scale(&l, 100), 0);
}

/* -u: how user stacks were taken, and (dwarf) the events without one, why */
static void test_losses_user_text(void **state)
{
	struct session_stats st = { .user = SESSION_USER_OFF };
	char text[320];

	(void)state;
	assert_int_equal(export_user_text(text, sizeof(text), &st), 0);
	assert_string_equal(text, "");
	st.user = SESSION_USER_FP;
	export_user_text(text, sizeof(text), &st);
	assert_string_equal(text, "user stacks: fp (the kernel's frame-pointer walk, 8 frames)");
	st.user = SESSION_USER_DWARF;
	st.ujoin.why[UJOIN_OK] = 950;
	export_user_text(text, sizeof(text), &st);
	assert_string_equal(text, "user stacks: dwarf, 950 of 950 events (100.0%) with one");
	st.ujoin.why[UJOIN_NO_SAMPLE] = 30;
	st.ujoin.why[UJOIN_UNWIND_FAILED] = 20;
	export_user_text(text, sizeof(text), &st);
	assert_string_equal(text, "user stacks: dwarf, 950 of 1000 events (95.0%) with one; 50 "
				  "without: 30 no sample, 20 unwind failed");
	/* cut to the buffer, the length it wanted */
	assert_int_equal(export_user_text(text, 20, &st), 99);
	assert_string_equal(text, "user stacks: dwarf,");
	/* --user-sample 10: the share is a sampling's */
	memset(&st.ujoin, 0, sizeof(st.ujoin));
	st.user_period = 10;
	st.ujoin.why[UJOIN_OK] = 100;
	st.ujoin.why[UJOIN_NOT_SAMPLED] = 900;
	export_user_text(text, sizeof(text), &st);
	assert_string_equal(text, "user stacks: dwarf, 1 event in 10 sampled, 100 of 1000 events "
				  "(10.0%) with one; 900 without: 900 not sampled");
}

static void test_losses_folded(void **state)
{
	struct fx *fx = *state;
	char *buf = write_mem(fx, EXPORT_FOLDED);

	/* not asked for: the lines are the stacks' only (the note is the batch loop's) */
	assert_null(strstr(buf, "lost"));
	free(buf);
	fx->o.lost_stack = true;
	buf = write_mem(fx, EXPORT_FOLDED);
	assert_non_null(strstr(buf, "startup_64_[k];schedule_timeout_[k];schedule_[k] 20\n"
				    "ext4_file_write_iter_[k];nvme_queue_rq_[k] 10\n"
				    "[lost_events] 15\n"));
	free(buf);
	fx->o.delta = false;
	fx->o.rank.key = RANK_TOTAL;
	buf = write_mem(fx, EXPORT_FOLDED);
	assert_non_null(strstr(buf, "\n[lost_events] 50\n"));
	free(buf);
}

static void test_losses_json(void **state)
{
	struct fx *fx = *state;
	char path[128], err[256], *buf = write_mem(fx, EXPORT_JSON);
	const struct session_stats *st;
	struct session_opts so = { 0 };
	const char *files[1] = { path };
	struct session *back;
	FILE *f;

	assert_non_null(strstr(buf, "\"lost\":8,\"overrun\":100,\"dropped\":0,\"lost_delta\":5,"
				    "\"overrun_delta\":30,\"dropped_delta\":0,\"records\":200,"
				    "\"records_delta\":60,"));
	/* and read back, the same */
	snprintf(path, sizeof(path), "%s/again.json", fx->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(buf, f);
	fclose(f);
	free(buf);
	so.files = files;
	so.nfiles = 1;
	assert_int_equal(session_open(&so, &back, err, sizeof(err)), 0);
	assert_true(session_drain(back, 0) >= 0);
	session_tick(back);
	st = session_stats(back);
	assert_int_equal(st->lost_delta, 5);
	assert_int_equal(st->overrun_delta, 30);
	assert_int_equal(st->records_delta, 60);
	assert_int_equal(st->records, 200);
	session_close(back);
}

/*
 * A counter is one row of core/counters.h: comm_unnamed (pid lookups that
 * found no name) read from a snapshot, said by the text header, written to
 * JSON and read back; a pid the replay cannot name adds to it at once
 */
static void test_counter_comm_unnamed(void **state)
{
	struct fx *fx = *state;
	char path[128], err[256], *buf = write_mem(fx, EXPORT_JSON), *at;
	const char *files[1] = { path };
	struct session_opts so = { 0 };
	struct session *back;
	FILE *f;

	/* lost.json predates the counter: 0, and written as 0 */
	assert_int_equal(session_stats(fx->s)->comm_unnamed, 0);
	assert_non_null(strstr(buf, "\"drains_cut\":0,\"comm_unnamed\":0,\"comm_unnamed_delta\":0,"
				    "\"memory\":"));
	/* the same snapshot with 7 of them, 3 in its interval */
	at = strstr(buf, "\"comm_unnamed\":0,\"comm_unnamed_delta\":0");
	assert_non_null(at);
	snprintf(path, sizeof(path), "%s/unnamed.json", fx->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*s\"comm_unnamed\":7,\"comm_unnamed_delta\":3%s", (int)(at - buf), buf,
		at + strlen("\"comm_unnamed\":0,\"comm_unnamed_delta\":0"));
	fclose(f);
	free(buf);
	so.files = files;
	so.nfiles = 1;
	assert_int_equal(session_open(&so, &back, err, sizeof(err)), 0);
	assert_true(session_drain(back, 0) >= 0);
	session_tick(back);
	assert_int_equal(session_stats(back)->comm_unnamed, 7);
	assert_int_equal(session_stats(back)->comm_unnamed_delta, 3);
	session_close(fx->s);
	fx->s = back;
	buf = write_mem(fx, EXPORT_TEXT);
	assert_non_null(strstr(buf, "\nnote: 7 pid lookups found no command name (+3 in the "
				    "interval; their rows show ?: "));
	free(buf);
	buf = write_mem(fx, EXPORT_JSON);
	assert_non_null(strstr(buf, "\"comm_unnamed\":7,\"comm_unnamed_delta\":3,"));
	free(buf);
	/* the snapshot's rows are named; a pid it does not name counts, once */
	assert_string_equal(session_comm(back, 42), "sleeper");
	assert_string_equal(session_comm(back, 4242), "?");
	assert_string_equal(session_comm(back, 4242), "?");
	assert_int_equal(session_stats(back)->comm_unnamed, 8);
}

/*
 * user_one_frame (fp user stacks of the leaf alone) read from a snapshot:
 * the text header's note names the remedy this build has (--user=dwarf
 * needs libunwind: a build without it does not advise it)
 */
static void test_counter_ustack_one(void **state)
{
	struct fx *fx = *state;
	char path[128], err[256], *buf = write_mem(fx, EXPORT_JSON), *at;
	const char *files[1] = { path };
	struct session_opts so = { 0 };
	struct session *back;
	FILE *f;

	at = strstr(buf, "\"comm_unnamed\":");
	assert_non_null(at);
	snprintf(path, sizeof(path), "%s/one.json", fx->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*s\"user_one_frame\":4,%s", (int)(at - buf), buf, at);
	fclose(f);
	free(buf);
	so.files = files;
	so.nfiles = 1;
	assert_int_equal(session_open(&so, &back, err, sizeof(err)), 0);
	assert_true(session_drain(back, 0) >= 0);
	session_tick(back);
	assert_int_equal(session_stats(back)->ustack_one, 4);
	session_close(fx->s);
	fx->s = back;
	buf = write_mem(fx, EXPORT_TEXT);
	assert_non_null(strstr(buf, "\nnote: 4 user stacks were a single frame: the frame-pointer "
				    "walk found no chain (code built without frame pointers; "));
#if STACKTOP_USER_UNWIND
	assert_non_null(strstr(buf, "; --user=dwarf walks it, in the stacks mode)\n"));
#else
	assert_null(strstr(buf, "--user=dwarf walks"));
	assert_non_null(strstr(buf, "; this stacktop was built without libunwind: a build with it "
				    "walks them by --user=dwarf)\n"));
#endif
	free(buf);
}

static void test_losses_pprof(void **state)
{
	struct fx *fx = *state;
	static uint8_t pb[65536];
	char path[128], err[256];
	bool found = false;
	gzFile gz;
	int n;

	snprintf(path, sizeof(path), "%s/p.pb.gz", fx->dir);
	fx->o.lost_stack = true;
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_PPROF, 1, path, err, sizeof(err)),
			 2);
	gz = gzopen(path, "rb");
	assert_non_null(gz);
	n = gzread(gz, pb, sizeof(pb));
	gzclose(gz);
	assert_true(n > 0 && n < (int)sizeof(pb));
	/* the comments go tool pprof -top prints */
	pb_fields(pb, (size_t)n, 13,
		  "losses: lost 5, overrun 30, dropped 0 ring-buffer records in "
		  "the last interval (60 read): about 33.3% of the events are "
		  "missing from the counts",
		  &found);
	assert_true(found);
	found = false;
	pb_fields(pb, (size_t)n, 13,
		  "losses: lost 8, overrun 100, dropped 0 ring-buffer records "
		  "since start (200 read): about 33.3% of the events are missing "
		  "from the counts",
		  &found);
	assert_true(found);
	found = false;
	/* the stacks' two samples and the lost events' one */
	assert_int_equal(pb_fields(pb, (size_t)n, 2, "[lost events]", &found), 3);
	assert_true(found);
}

static void test_losses_speedscope(void **state)
{
	struct fx *fx = *state;
	char *buf;

	fx->o.lost_stack = true;
	buf = write_mem(fx, EXPORT_SPEEDSCOPE);
	assert_non_null(strstr(buf,
			       "\"name\":\"stacktop kernel stacks; lost 5, overrun 30, dropped 0 "
			       "ring-buffer records in the last interval (60 read): about "
			       "33.3% of the events are missing from the counts\""));
	assert_non_null(strstr(buf, "{\"name\":\"[lost events]\"}]}"));
	assert_non_null(strstr(buf, "\"name\":\"sched:sched_switch (about 33.3% of the events "
				    "lost)\""));
	assert_non_null(strstr(buf, "\"endValue\":45,"));
	assert_non_null(strstr(buf, "\"weights\":[20,10,15]}"));
	free(buf);
}

static void test_losses_flame(void **state)
{
	struct fx *fx = *state;
	char *buf = write_mem(fx, EXPORT_HTML);

	assert_non_null(strstr(buf, "\"lost\":8,\"lost_delta\":5,\"overrun\":100,\"dropped\":0,"));
	assert_non_null(strstr(
		buf,
		"\"overrun_delta\":30,\"dropped_delta\":0,\"records\":200,"
		"\"records_delta\":60,\"gone\":30,\"gone_unit\":\"records\",\"missing\":0.333333,"
		"\"losses\":\"lost 5, overrun 30,"));
	assert_null(strstr(buf, "[lost events]"));
	free(buf);
	buf = write_mem(fx, EXPORT_SVG);
	assert_non_null(strstr(buf, " · lost records 30</text>"));
	assert_non_null(strstr(buf,
			       "<text class=\"notes\" x=\"10\" y=\"60\">lost 5, overrun 30, "
			       "dropped 0 ring-buffer records in the last interval (60 read): "
			       "about 33.3% of the events are missing from the counts</text>"));
	free(buf);
	/* --folded-lost: a root of its own, a third of the graph */
	fx->o.lost_stack = true;
	buf = write_mem(fx, EXPORT_HTML);
	assert_non_null(strstr(buf, "[\"[lost events]\",6]"));
	free(buf);
	buf = write_mem(fx, EXPORT_SVG);
	assert_non_null(strstr(buf, "<title>[lost events] (15 hits, 33.33%)</title>"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_format_table),
		cmocka_unit_test_setup_teardown(test_write_file_new_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_roots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_well_formed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test_setup_teardown(test_html_tree, setup, teardown),
		cmocka_unit_test(test_colblob_layout),
		cmocka_unit_test(test_return_address_names),
		cmocka_unit_test_setup_teardown(test_losses_counts, setup_lost, teardown),
		cmocka_unit_test(test_losses_events),
		cmocka_unit_test(test_losses_user_text),
		cmocka_unit_test_setup_teardown(test_losses_folded, setup_lost, teardown),
		cmocka_unit_test_setup_teardown(test_losses_json, setup_lost, teardown),
		cmocka_unit_test_setup_teardown(test_counter_comm_unnamed, setup_lost, teardown),
		cmocka_unit_test_setup_teardown(test_counter_ustack_one, setup_lost, teardown),
		cmocka_unit_test_setup_teardown(test_losses_pprof, setup_lost, teardown),
		cmocka_unit_test_setup_teardown(test_losses_speedscope, setup_lost, teardown),
		cmocka_unit_test_setup_teardown(test_losses_flame, setup_lost, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
