// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-export.c - the export formats and export_write_file() on a real
 * session: a replay of a saved stack map (tests/fixtures/export/stack_map,
 * 3 stacks, 15 hits) symbolized with the fixture kallsyms. No kernel needed.
 */
#include <dirent.h>
#include <errno.h>
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

#include "output/export.h"
#include "session/session.h"

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
		.top = 0, .delta = false,
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

static void test_write_file_new_and_replace(void **state)
{
	struct fx *fx = *state;
	char path[128], err[256];
	struct stat a, b;

	snprintf(path, sizeof(path), "%s/snap.json", fx->dir);
	assert_int_equal(export_write_file(fx->s, &fx->o, EXPORT_JSON, 1, path, err, sizeof(err)), 0);
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

/* the top-level fields of a protobuf message, checked well-formed */
static int pb_fields(const uint8_t *p, size_t n, unsigned int want, const char *needle,
		     bool *found)
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
	assert_non_null(strstr(data, "\"nodes\":[0,-1,0,1,0,0,2,4,0,3,3,7,1,1,0,2,2,5,1,5,0,2,3,3]}"));
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
	assert_non_null(strstr(buf, "\"nodes\":[0,-1,0,1,0,0,2,1,0,3,5,0,4,4,7,2,2,0,3,3,5,2,6,0,3,4,3]}"));
	free(buf);
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
	assert_int_equal(pb_fields(buf, (size_t)n, 4, "", &found), 6);	/* locations */
	assert_int_equal(pb_fields(buf, (size_t)n, 1, "", &found), 2);	/* sample types */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names),
		cmocka_unit_test_setup_teardown(test_write_file_new_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_roots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_well_formed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
