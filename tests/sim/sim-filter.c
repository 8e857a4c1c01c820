// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-filter.c - event filters and stacktrace triggers, applied as the
 * kernel applies them.
 *
 * A filter is parsed against the fields of the event's format file
 * (whatever the format lists, common_* included): predicates
 * "FIELD OP VALUE" with == != < <= > >= & on numbers, == != ~ on quoted
 * strings for char arrays, joined by && and || (&& binds tighter), with
 * parentheses and a leading '!'.  Errors are reported with the kernel's
 * err_text and caret positions (as observed on a 6.18 kernel): EINVAL and a
 * line in the instance's error_log, the filter file then shows the error and
 * the event is unfiltered (the kernel disables a filter that failed).
 *
 * A stacktrace trigger ("stacktrace[:N] [if FILTER]", "!stacktrace") makes
 * the event record a stack after itself even with options/stacktrace off.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

enum fop { OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, OP_NONE };
static const char *const ops[] = { "~", "!=", "==", "<=", "<", ">=", ">", "&", NULL };

struct field {
	char name[64];
	unsigned int offset, size;
	bool is_signed, is_string;
};

struct sim_filter {
	/* a node: leaf predicate or && / || of two subtrees */
	char kind;			/* 'p', '&', '|' */
	bool not;
	struct sim_filter *l, *r;
	struct field f;
	enum fop op;
	int64_t val;
	char str[64];
};

#define E_INVALID_OP	"Invalid operator"
#define E_TOO_MANY_OPEN	"Too many '('"
#define E_TOO_MANY_CLOSE "Too few '('"
#define E_MISSING_QUOTE	"Missing matching quote"
#define E_EXPECT_STRING	"Expecting string field"
#define E_EXPECT_DIGIT	"Expecting numeric field"
#define E_ILLEGAL_OP	"Illegal operation for field type"
#define E_FIELD_NF	"Field not found"
#define E_ILLEGAL_INT	"Illegal integer value"
#define E_INVALID_VALUE	"Invalid value (did you forget quotes)?"
#define E_MEANINGLESS	"Meaningless filter expression"

/* Find FIELD in the event's format text. */
static bool find_field(int ev, const char *name, size_t nlen, struct field *out)
{
	const char *fmt = sim_event_format(ev), *p;

	if (!fmt)
		return false;
	for (p = strstr(fmt, "field:"); p; p = strstr(p + 1, "field:")) {
		const char *semi = strchr(p, ';'), *n, *br;
		size_t len;

		if (!semi)
			break;
		n = semi;
		br = memchr(p, '[', semi - p);
		if (br)
			n = br;
		len = 0;
		while (n - len - 1 > p && (isalnum((unsigned char)n[-(long)len - 1]) ||
					   n[-(long)len - 1] == '_'))
			len++;
		if (len != nlen || strncmp(n - len, name, nlen))
			continue;
		snprintf(out->name, sizeof(out->name), "%.*s", (int)nlen, name);
		out->offset = (unsigned int)atoi(strstr(semi, "offset:") + 7);
		out->size = (unsigned int)atoi(strstr(semi, "size:") + 5);
		out->is_signed = atoi(strstr(semi, "signed:") + 7) != 0;
		out->is_string = br && !strncmp(p + 6, "char", 4);
		return true;
	}
	return false;
}

struct parser {
	int ev;
	const char *s;
	int i;
	struct sim_filter_err *err;
	int errno_ret;
};

static struct sim_filter *fail(struct parser *ps, const char *text, int pos, int e)
{
	if (!ps->err->text) {
		ps->err->text = text;
		ps->err->pos = pos;
		ps->errno_ret = e;
	}
	return NULL;
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)ps->s[ps->i]))
		ps->i++;
}

static struct sim_filter *parse_or(struct parser *ps);

static struct sim_filter *parse_pred(struct parser *ps)
{
	struct sim_filter *n;
	int s, op;

	skip_ws(ps);
	s = ps->i;
	while (isalnum((unsigned char)ps->s[ps->i]) || ps->s[ps->i] == '_')
		ps->i++;
	if (ps->i == s)
		return fail(ps, E_MEANINGLESS, ps->i + 1, EINVAL);
	n = calloc(1, sizeof(*n));
	if (!n)
		abort();
	n->kind = 'p';
	if (!find_field(ps->ev, ps->s + s, ps->i - s, &n->f)) {
		free(n);
		return fail(ps, E_FIELD_NF, ps->i + 1, EINVAL);
	}
	skip_ws(ps);
	for (op = 0; ops[op]; op++)
		if (!strncmp(ps->s + ps->i, ops[op], strlen(ops[op])))
			break;
	if (!ops[op]) {
		free(n);
		return fail(ps, E_INVALID_OP, ps->i + 1, EINVAL);
	}
	n->op = op;
	ps->i += (int)strlen(ops[op]);
	skip_ws(ps);
	if (ps->s[ps->i] == '"' || ps->s[ps->i] == '\'') {
		char q = ps->s[ps->i];
		const char *end = strchr(ps->s + ps->i + 1, q);

		if (!end) {
			free(n);
			return fail(ps, E_MISSING_QUOTE, ps->i + 1, EINVAL);
		}
		if (!n->f.is_string) {
			free(n);
			return fail(ps, E_EXPECT_DIGIT, ps->i + 1, EINVAL);
		}
		if (n->op != OP_EQ && n->op != OP_NE && n->op != OP_GLOB) {
			free(n);
			return fail(ps, E_ILLEGAL_OP, ps->i + 1, EINVAL);
		}
		snprintf(n->str, sizeof(n->str), "%.*s", (int)(end - ps->s - ps->i - 1),
			 ps->s + ps->i + 1);
		ps->i = (int)(end - ps->s) + 1;
		return n;
	}
	if (isdigit((unsigned char)ps->s[ps->i]) || ps->s[ps->i] == '-') {
		char num[24], *e;
		int v = ps->i;

		while (isalnum((unsigned char)ps->s[ps->i]) || ps->s[ps->i] == '-')
			ps->i++;
		if (ps->i - v >= (int)sizeof(num)) {
			free(n);
			return fail(ps, E_ILLEGAL_INT, v + 1, EINVAL);
		}
		snprintf(num, sizeof(num), "%.*s", ps->i - v, ps->s + v);
		if (n->f.is_string) {
			free(n);
			return fail(ps, E_EXPECT_STRING, v + 1, EINVAL);
		}
		if (n->op == OP_GLOB) {
			free(n);
			return fail(ps, E_ILLEGAL_OP, v + 1, EINVAL);
		}
		errno = 0;
		if (num[0] == '-')
			n->val = strtoll(num, &e, 0);
		else
			n->val = (int64_t)strtoull(num, &e, 0);
		if (errno || *e) {
			free(n);
			return fail(ps, E_ILLEGAL_INT, v + 1, EINVAL);
		}
		return n;
	}
	free(n);
	return fail(ps, E_INVALID_VALUE, ps->i + 1, EINVAL);
}

static struct sim_filter *parse_term(struct parser *ps)
{
	struct sim_filter *n;
	bool not = false;

	skip_ws(ps);
	while (ps->s[ps->i] == '!') {
		not = !not;
		ps->i++;
		skip_ws(ps);
	}
	if (ps->s[ps->i] == '(') {
		ps->i++;
		n = parse_or(ps);
		if (!n)
			return NULL;
		skip_ws(ps);
		if (ps->s[ps->i] != ')') {
			filter_free(n);
			return fail(ps, E_TOO_MANY_OPEN, 0, ENOENT);
		}
		ps->i++;
	} else {
		n = parse_pred(ps);
		if (!n)
			return NULL;
	}
	n->not ^= not;
	return n;
}

static struct sim_filter *join(char kind, struct sim_filter *l, struct sim_filter *r)
{
	struct sim_filter *n = calloc(1, sizeof(*n));

	if (!n)
		abort();
	n->kind = kind;
	n->l = l;
	n->r = r;
	return n;
}

static struct sim_filter *parse_and(struct parser *ps)
{
	struct sim_filter *l = parse_term(ps), *r;

	while (l) {
		skip_ws(ps);
		if (strncmp(ps->s + ps->i, "&&", 2))
			break;
		ps->i += 2;
		r = parse_term(ps);
		if (!r) {
			filter_free(l);
			return NULL;
		}
		l = join('&', l, r);
	}
	return l;
}

static struct sim_filter *parse_or(struct parser *ps)
{
	struct sim_filter *l = parse_and(ps), *r;

	while (l) {
		skip_ws(ps);
		if (strncmp(ps->s + ps->i, "||", 2))
			break;
		ps->i += 2;
		r = parse_and(ps);
		if (!r) {
			filter_free(l);
			return NULL;
		}
		l = join('|', l, r);
	}
	return l;
}

/**
 * filter_compile() - parse a filter for event @ev
 * @ev: event index (ordinary or kprobe)
 * @str: the filter text (no trailing newline)
 * @ret: the compiled filter
 * @err: on failure, the kernel's error text and caret position
 *
 * Return: 0, or a negative errno as the kernel returns it.
 */
int filter_compile(int ev, const char *str, struct sim_filter **ret, struct sim_filter_err *err)
{
	struct parser ps = { .ev = ev, .s = str, .err = err };
	struct sim_filter *f;

	memset(err, 0, sizeof(*err));
	*ret = NULL;
	f = parse_or(&ps);
	if (f) {
		skip_ws(&ps);
		if (ps.s[ps.i] == ')') {
			filter_free(f);
			f = fail(&ps, E_TOO_MANY_CLOSE, ps.i, EPERM);
		} else if (ps.s[ps.i]) {
			filter_free(f);
			f = fail(&ps, E_INVALID_OP, ps.i + 1, EINVAL);
		}
	}
	if (!f)
		return -(ps.errno_ret ? ps.errno_ret : EINVAL);
	*ret = f;
	return 0;
}

static int64_t field_value(const struct field *f, const uint8_t *rec, unsigned int len)
{
	int64_t v = 0;

	if (f->offset + f->size > len)
		return 0;
	switch (f->size) {
	case 1:
		v = f->is_signed ? (int8_t)rec[f->offset] : rec[f->offset];
		break;
	case 2: {
		uint16_t x;

		memcpy(&x, rec + f->offset, 2);
		v = f->is_signed ? (int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, rec + f->offset, 4);
		v = f->is_signed ? (int64_t)(int32_t)x : (int64_t)x;
		break;
	}
	case 8:
		memcpy(&v, rec + f->offset, 8);
		break;
	default:
		break;
	}
	return v;
}

static bool pred_match(const struct sim_filter *n, const uint8_t *rec, unsigned int len)
{
	int64_t v;
	uint64_t u, w;

	if (n->f.is_string) {
		char s[256];
		unsigned int sz = n->f.size < sizeof(s) ? n->f.size : sizeof(s) - 1;
		bool eq;

		if (n->f.offset + sz > len)
			return false;
		memcpy(s, rec + n->f.offset, sz);
		s[sz] = '\0';
		if (n->op == OP_GLOB)
			return !fnmatch(n->str, s, 0);
		eq = !strcmp(s, n->str);
		return n->op == OP_EQ ? eq : !eq;
	}
	v = field_value(&n->f, rec, len);
	u = (uint64_t)v;
	w = (uint64_t)n->val;
	switch (n->op) {
	case OP_EQ:
		return v == n->val;
	case OP_NE:
		return v != n->val;
	case OP_BAND:
		return (u & w) != 0;
	case OP_LT:
		return n->f.is_signed ? v < n->val : u < w;
	case OP_LE:
		return n->f.is_signed ? v <= n->val : u <= w;
	case OP_GT:
		return n->f.is_signed ? v > n->val : u > w;
	case OP_GE:
		return n->f.is_signed ? v >= n->val : u >= w;
	default:
		return false;
	}
}

/**
 * filter_match() - does record @rec pass filter @f
 * @f: compiled filter, or NULL (everything passes)
 * @ev: event index (unused; fields were resolved at compile time)
 * @rec: the event payload, common fields first
 * @len: its length
 */
bool filter_match(const struct sim_filter *f, int ev, const uint8_t *rec, unsigned int len)
{
	bool m;

	(void)ev;
	if (!f)
		return true;
	switch (f->kind) {
	case '&':
		m = filter_match(f->l, ev, rec, len) && filter_match(f->r, ev, rec, len);
		break;
	case '|':
		m = filter_match(f->l, ev, rec, len) || filter_match(f->r, ev, rec, len);
		break;
	default:
		m = pred_match(f, rec, len);
		break;
	}
	return f->not ? !m : m;
}

void filter_free(struct sim_filter *f)
{
	if (!f)
		return;
	filter_free(f->l);
	filter_free(f->r);
	free(f);
}

static char *trimmed(const char *buf, size_t len)
{
	char *s = strndup(buf, len);
	size_t n;

	if (!s)
		abort();
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/**
 * sim_write_filter() - a write to events/SYS/EV/filter
 * @in: instance
 * @ev: event index
 * @buf: text written
 * @len: its length
 *
 * "0" clears the filter.  A bad filter fails with the kernel's errno, logs
 * the kernel's error_log entry, leaves the event unfiltered and makes the
 * filter file show the error.
 */
int sim_write_filter(struct sim_inst *in, int ev, const char *buf, size_t len)
{
	struct sim_filter_err err;
	struct sim_filter *f;
	struct sbuf sb = { 0 };
	char *s = trimmed(buf, len), *p = s + strspn(s, " \t\n");
	int ret, pos;

	filter_free(in->filter[ev]);
	in->filter[ev] = NULL;
	free(in->filter_str[ev]);
	in->filter_str[ev] = NULL;
	if (!strcmp(p, "0")) {
		free(s);
		return 0;
	}
	if (!*p) {
		sim_log_err(in, "event filter parse error: ", s, "Error", 0);
		sbuf_printf(&sb, "%s\nError: (0)\n", s);
		in->filter_str[ev] = sb.p;
		free(s);
		return -EINVAL;
	}
	ret = filter_compile(ev, s, &f, &err);
	if (ret) {
		sim_log_err(in, "event filter parse error: ", s, err.text, err.pos);
		pos = err.pos;
		if (pos > (int)strlen(s))
			pos = (int)strlen(s);
		if (pos)
			pos++;	/* the kernel's "indexing is off by one" */
		sbuf_printf(&sb, "%s\n%*s\nparse_error: %s\n", s, pos, "^", err.text);
		in->filter_str[ev] = sb.p;
		free(s);
		return ret;
	}
	in->filter[ev] = f;
	in->filter_str[ev] = s;
	return 0;
}

void sim_render_filter(const struct sim_inst *in, int ev, struct sbuf *sb)
{
	if (in->filter_str[ev])
		sbuf_printf(sb, "%s\n", in->filter_str[ev]);
	else
		sbuf_printf(sb, "none\n");
}

void sim_trigger_clear(struct sim_inst *in, int ev)
{
	struct sim_trigger *t = &in->trig[ev];

	filter_free(t->filter);
	free(t->filter_str);
	memset(t, 0, sizeof(*t));
}

/**
 * sim_write_trigger() - a write to events/SYS/EV/trigger
 * @in: instance
 * @ev: event index
 * @buf: text written
 * @len: its length
 *
 * Only the stacktrace command is modelled: "stacktrace", "stacktrace:N",
 * either followed by "if FILTER"; "!stacktrace" removes it (whatever count
 * or filter follows).  A second stacktrace trigger gives EEXIST, as in the
 * kernel; other commands give EINVAL.
 */
int sim_write_trigger(struct sim_inst *in, int ev, const char *buf, size_t len)
{
	struct sim_trigger *t = &in->trig[ev];
	char *s = trimmed(buf, len), *p = s + strspn(s, " \t\n"), *cond = NULL, *cmd;
	struct sim_filter_err err;
	struct sim_filter *f = NULL;
	long count = -1;
	bool remove = false;
	int ret = 0;

	if (!*p)
		goto out;
	if (*p == '!') {
		remove = true;
		p++;
	}
	cmd = p;
	p += strcspn(p, " \t:");
	if ((size_t)(p - cmd) != strlen("stacktrace") || strncmp(cmd, "stacktrace", 10)) {
		ret = -EINVAL;
		goto out;
	}
	if (*p == ':') {
		char *e;

		count = strtol(p + 1, &e, 10);
		if (e == p + 1 || count < 0 || (*e && !isspace((unsigned char)*e))) {
			ret = -EINVAL;
			goto out;
		}
		p = e;
	}
	p += strspn(p, " \t");
	if (*p) {
		if (strncmp(p, "if", 2) || !isspace((unsigned char)p[2])) {
			ret = -EINVAL;
			goto out;
		}
		cond = p + 3 + strspn(p + 3, " \t");
	}
	if (remove) {
		sim_trigger_clear(in, ev);
		goto out;
	}
	if (t->on) {
		ret = -EEXIST;
		goto out;
	}
	if (cond) {
		ret = filter_compile(ev, cond, &f, &err);
		if (ret) {
			sim_log_err(in, "event filter parse error: ", cond, err.text, err.pos);
			ret = -EINVAL;
			goto out;
		}
	}
	t->on = true;
	t->count = count;
	t->filter = f;
	t->filter_str = cond ? strdup(cond) : NULL;
out:
	free(s);
	return ret;
}

void sim_render_trigger(const struct sim_inst *in, int ev, struct sbuf *sb)
{
	const struct sim_trigger *t = &in->trig[ev];

	if (!t->on) {
		sbuf_printf(sb, "# Available triggers:\n"
			    "# traceon traceoff snapshot stacktrace enable_event disable_event\n");
		return;
	}
	sbuf_printf(sb, "stacktrace");
	if (t->count < 0)
		sbuf_printf(sb, ":unlimited");
	else
		sbuf_printf(sb, ":count=%ld", t->count);
	if (t->filter_str)
		sbuf_printf(sb, " if %s\n", t->filter_str);
	else
		sbuf_printf(sb, "\n");
}

/* Drop the filter and trigger of @ev in @in (rmdir, kprobe removal). */
void sim_event_state_free(struct sim_inst *in, int ev)
{
	filter_free(in->filter[ev]);
	in->filter[ev] = NULL;
	free(in->filter_str[ev]);
	in->filter_str[ev] = NULL;
	sim_trigger_clear(in, ev);
	in->enabled[ev] = false;
}
