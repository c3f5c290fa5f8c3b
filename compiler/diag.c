/* diag.c: rustc-style diagnostics, shared by every stage.
 *
 *   error[E0102]: unterminated string
 *    --> recipe.plk:3:10
 *     |
 *   3 |   source "gemm.cu
 *     |          ^^^^^^^^ the string starts here
 *     |
 *     = help: close the string with `"` on the same line
 *
 * Columns count bytes in Span; the caret line counts code points so it
 * lines up under UTF-8 text. Long lines are shown as a window around the
 * span. Colour only when the stream is a terminal and NO_COLOR is unset. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "plk.h"

const Span span_none = { -1, 0, 0, 0, 0, 0, 0 };

enum { WINDOW = 100 };  /* bytes of a long line shown around a span */

Span span_join(Span a, Span b)
{
	if (a.src < 0)
		return b;
	if (b.src < 0 || b.src != a.src)
		return a;
	Span r = a;
	if (b.off < r.off) {
		r.off = b.off;
		r.line = b.line;
		r.col = b.col;
	}
	if (b.end > r.end) {
		r.end = b.end;
		r.eline = b.eline;
		r.ecol = b.ecol;
	}
	return r;
}

double plk_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void ctx_time(Ctx *c, const char *what, double t0)
{
	if (c->timing)
		fprintf(c->err, "time: %-40s %9.2f ms\n", what, (plk_clock() - t0) * 1e3);
}

void ctx_init(Ctx *c, FILE *err)
{
	memset(c, 0, sizeof *c);
	c->arena = arena_new();
	c->err = err;
	c->color = err && isatty(fileno(err)) && !getenv("NO_COLOR");
	c->max_errors = 20;
}

void ctx_fini(Ctx *c)
{
	free(c->srcs);
	arena_free(c->arena);
	c->arena = NULL;
	c->srcs = NULL;
}

int ctx_add_source(Ctx *c, const char *path, const char *text, size_t len)
{
	if (c->nsrcs == c->capsrcs) {
		int cap = c->capsrcs ? c->capsrcs * 2 : 8;
		Source **n = realloc(c->srcs, sizeof *n * (size_t)cap);
		if (!n)
			return -1;
		c->srcs = n;
		c->capsrcs = cap;
	}
	Source *s = arena_alloc(c->arena, sizeof *s);
	s->path = arena_strdup(c->arena, path);
	s->text = arena_strndup(c->arena, text, len);
	s->len = len;
	c->srcs[c->nsrcs] = s;
	return c->nsrcs++;
}

/* What kind of file path is, for E0217. */
static const char *file_kind(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return "a file";
	return S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
		S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device" :
		S_ISSOCK(st.st_mode) ? "a socket" : "a regular file";
}

int input_refused(Ctx *c, Span from, const char *what, const char *path, int err, size_t max)
{
	if (err != SYS_ENOTREG && err != EISDIR && err != EFBIG)
		return 0;
	const char *mib = max >= (1u << 20) ? arena_printf(c->arena, "%zu MiB", max >> 20)
	                                    : arena_printf(c->arena, "%zu bytes", max);
	Diag *d;
	if (err == EFBIG) {
		struct stat st;
		d = diag_new(c, DIAG_ERROR, "E0217", from, "%s `%s` is too large", what, path);
		if (stat(path, &st) == 0)
			diag_note(d, "it is %lld bytes; plkc reads at most %s of it", (long long)st.st_size, mib);
		else
			diag_note(d, "plkc reads at most %s", mib);
	} else {
		d = diag_new(c, DIAG_ERROR, "E0217", from, "%s `%s` is not a regular file", what, path);
		diag_note(d, "it is %s; plkc reads only regular files (of at most %s)", file_kind(path), mib);
	}
	if (from.src >= 0)
		diag_label(d, from, "named here");
	diag_help(d, "name the file itself: a FIFO, device or directory cannot stand for one");
	diag_end(c, d);
	return 1;
}

int ctx_load_file(Ctx *c, const char *path, Span from)
{
	size_t len;
	char *buf = sys_read_file(path, PLK_MAX_TEXT, &len);
	if (!buf) {
		int e = errno;
		if (input_refused(c, from, "input", path, e, PLK_MAX_TEXT))
			return -1;
		Diag *d = diag_new(c, DIAG_ERROR, "E0601", from, "cannot read `%s`", path);
		diag_note(d, "%s", sys_strerror(e));
		diag_end(c, d);
		return -1;
	}
	int id = ctx_add_source(c, path, buf, len);
	free(buf);
	return id;
}

/* ------------------------------------------------------------ building */

static const char *vfmt(Ctx *c, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	char *p = arena_alloc(c->arena, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

/* The Diag keeps the Ctx's arena for its strings: stash it beside it. */
typedef struct DiagBox {
	Diag d;
	Ctx *c;
} DiagBox;

Diag *diag_new(Ctx *c, DiagLevel lv, const char *code, Span sp, const char *fmt, ...)
{
	DiagBox *b = arena_alloc(c->arena, sizeof *b);
	b->c = c;
	va_list ap;
	va_start(ap, fmt);
	b->d.msg = vfmt(c, fmt, ap);
	va_end(ap);
	b->d.level = lv;
	b->d.code = code;
	b->d.primary.sp = sp;
	return &b->d;
}

static Ctx *diag_ctx(Diag *d) { return ((DiagBox *)d)->c; }

/* The primary label's message: the first diag_label with the primary's
 * span sets it; others become secondary labels. */
void diag_label(Diag *d, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *m = vfmt(diag_ctx(d), fmt, ap);
	va_end(ap);
	if (!d->primary.msg && sp.src == d->primary.sp.src && sp.off == d->primary.sp.off &&
	    sp.end == d->primary.sp.end) {
		d->primary.msg = m;
		return;
	}
	if (d->nsecondary < DIAG_LABELS)
		d->secondary[d->nsecondary++] = (Label){ sp, m };
}

void diag_note(Diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (d->nnotes < 4)
		d->notes[d->nnotes++] = vfmt(diag_ctx(d), fmt, ap);
	va_end(ap);
}

void diag_help(Diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (d->nhelps < 4)
		d->helps[d->nhelps++] = vfmt(diag_ctx(d), fmt, ap);
	va_end(ap);
}

void error_at(Ctx *c, const char *code, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Diag *d = diag_new(c, DIAG_ERROR, code, sp, "%s", vfmt(c, fmt, ap));
	va_end(ap);
	diag_end(c, d);
}

/* ------------------------------------------------------------ printing */

typedef struct Style {
	const char *err, *warn, *note, *blue, *bold, *off;
} Style;

static Style style(const Ctx *c)
{
	if (!c->color)
		return (Style){ "", "", "", "", "", "" };
	return (Style){ "\033[1;31m", "\033[1;33m", "\033[1;32m", "\033[1;34m", "\033[1m", "\033[0m" };
}

static int digits(int n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* Display width of bytes [s, e): code points; tabs count 4. */
static int width(const char *s, const char *e)
{
	int w = 0;
	for (; s < e; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '\t')
			w += 4;
		else if ((ch & 0xC0) != 0x80)
			w++;
	}
	return w;
}

/* Print bytes [s, e) of a source line: tabs as 4 spaces, control bytes
 * and bytes that are not valid UTF-8 as '?', so output stays printable. */
static void put_text(FILE *o, const char *s, const char *e)
{
	while (s < e) {
		unsigned char ch = (unsigned char)*s;
		int n = ch < 0x80 ? 1 : (ch & 0xE0) == 0xC0 ? 2 : (ch & 0xF0) == 0xE0 ? 3 :
			(ch & 0xF8) == 0xF0 ? 4 : 0;
		int ok = n > 0 && s + n <= e;
		for (int i = 1; ok && i < n; i++)
			ok = ((unsigned char)s[i] & 0xC0) == 0x80;
		if (!ok || (ch < 0x20 && ch != '\t') || ch == 0x7f) {
			fputc('?', o);
			s++;
		} else if (ch == '\t') {
			fputs("    ", o);
			s++;
		} else {
			fwrite(s, 1, (size_t)n, o);
			s += n;
		}
	}
}

static void line_bounds(const Source *src, int off, const char **ls, const char **le)
{
	const char *t = src->text;
	if (off > (int)src->len)
		off = (int)src->len;
	const char *s = t + off, *e = t + off;
	while (s > t && s[-1] != '\n')
		s--;
	while (e < t + src->len && *e != '\n' && *e != '\r')
		e++;
	*ls = s;
	*le = e;
}

static void gutter(FILE *o, const Style *st, int w, const char *num)
{
	fprintf(o, "%s%*s |%s", st->blue, w, num, st->off);
}

/* One label: the source line (or a window of it) and the underline. */
static void print_label(Ctx *c, const Style *st, int w, const Label *l, int primary, int same_line_as_prev)
{
	FILE *o = c->err;
	const Source *src = c->srcs[l->sp.src];
	const char *ls, *le;
	line_bounds(src, l->sp.off, &ls, &le);
	const char *from = src->text + l->sp.off;
	const char *to = src->text + (l->sp.end > l->sp.off ? l->sp.end : l->sp.off + 1);
	if (to > le)
		to = le > from ? le : from + 1;
	const char *vs = ls, *ve = le;
	int lead = 0, trail = 0;
	if (le - ls > 2 * WINDOW) {      /* a long line: show a window */
		if (to - from > WINDOW)
			to = from + WINDOW;
		vs = from - WINDOW / 2 > ls ? from - WINDOW / 2 : ls;
		while (vs > ls && ((unsigned char)*vs & 0xC0) == 0x80)
			vs--;
		ve = to + WINDOW / 2 < le ? to + WINDOW / 2 : le;
		while (ve < le && ((unsigned char)*ve & 0xC0) == 0x80)
			ve++;
		lead = vs > ls;
		trail = ve < le;
		if (to > ve)
			to = ve;
	}
	char num[16];
	snprintf(num, sizeof num, "%d", l->sp.line);
	if (!same_line_as_prev) {
		gutter(o, st, w, num);
		fputc(' ', o);
		if (lead)
			fputs("...", o);
		put_text(o, vs, ve);
		if (trail)
			fputs("...", o);
		fputc('\n', o);
	}
	gutter(o, st, w, "");
	fprintf(o, " %*s%s", width(vs, from) + (lead ? 3 : 0), "", primary ? st->err : st->blue);
	int n = width(from, to);
	for (int i = 0; i < (n > 0 ? n : 1); i++)
		fputc(primary ? '^' : '-', o);
	if (l->msg)
		fprintf(o, " %s", l->msg);
	fprintf(o, "%s\n", st->off);
}

static const char *level_name(DiagLevel lv)
{
	return lv == DIAG_ERROR ? "error" : lv == DIAG_WARNING ? "warning" : "note";
}

void diag_end(Ctx *c, Diag *d)
{
	if (d->level == DIAG_ERROR)
		c->nerrors++;
	else if (d->level == DIAG_WARNING)
		c->nwarnings++;
	int max = c->max_errors ? c->max_errors : 20;
	if (d->level == DIAG_ERROR && c->nerrors > max) {
		if (c->nerrors == max + 1)
			fprintf(c->err, "error: too many errors (%d); stopping\n", max);
		return;
	}
	if (d->level == DIAG_ERROR && d->code) {
		int seen = 0;
		for (int i = 0; i < c->codes.n && !seen; i++)
			seen = !strcmp(c->codes.v[i], d->code);
		if (!seen)
			vec_push(c->arena, &c->codes, (void *)d->code);
	}
	FILE *o = c->err;
	Style st = style(c);
	const char *lc = d->level == DIAG_ERROR ? st.err : d->level == DIAG_WARNING ? st.warn : st.note;
	const Span *p = &d->primary.sp;
	const Source *src = p->src >= 0 && p->src < c->nsrcs ? c->srcs[p->src] : NULL;

	if (c->format == DIAGFMT_SHORT) {
		if (src)
			fprintf(o, "%s:%d:%d: ", src->path, p->line, p->col);
		fprintf(o, "%s", level_name(d->level));
		if (d->code)
			fprintf(o, "[%s]", d->code);
		fprintf(o, ": %s\n", d->msg);
		return;
	}

	fprintf(o, "%s%s", lc, level_name(d->level));
	if (d->code)
		fprintf(o, "[%s]", d->code);
	fprintf(o, "%s%s: %s%s\n", st.off, st.bold, d->msg, st.off);
	int w = 1;
	if (src) {
		w = digits(p->line);
		for (int i = 0; i < d->nsecondary; i++)
			if (d->secondary[i].sp.src >= 0 && digits(d->secondary[i].sp.line) > w)
				w = digits(d->secondary[i].sp.line);
		fprintf(o, "%*s%s-->%s %s:%d:%d\n", w, "", st.blue, st.off, src->path, p->line, p->col);
		gutter(o, &st, w, "");
		fputc('\n', o);
		/* labels in the primary's file, in line order; then the others */
		const Label *ls[DIAG_LABELS + 1];
		int prim[DIAG_LABELS + 1], n = 0;
		ls[n] = &d->primary;
		prim[n++] = 1;
		for (int i = 0; i < d->nsecondary; i++)
			if (d->secondary[i].sp.src == p->src) {
				ls[n] = &d->secondary[i];
				prim[n++] = 0;
			}
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0 && ls[j]->sp.off < ls[j - 1]->sp.off; j--) {
				const Label *t = ls[j]; ls[j] = ls[j - 1]; ls[j - 1] = t;
				int pt = prim[j]; prim[j] = prim[j - 1]; prim[j - 1] = pt;
			}
		for (int i = 0; i < n; i++) {
			if (i > 0 && ls[i]->sp.line > ls[i - 1]->sp.line + 1)
				fprintf(o, "%s...%s\n", st.blue, st.off);
			print_label(c, &st, w, ls[i], prim[i], i > 0 && ls[i]->sp.line == ls[i - 1]->sp.line);
		}
		for (int i = 0; i < d->nsecondary; i++) {
			const Label *l = &d->secondary[i];
			if (l->sp.src == p->src || l->sp.src < 0 || l->sp.src >= c->nsrcs)
				continue;
			gutter(o, &st, w, "");
			fputc('\n', o);
			fprintf(o, "%*s%s:::%s %s:%d:%d\n", w, "", st.blue, st.off, c->srcs[l->sp.src]->path,
				l->sp.line, l->sp.col);
			gutter(o, &st, w, "");
			fputc('\n', o);
			print_label(c, &st, w, l, 0, 0);
		}
	}
	if (d->nnotes || d->nhelps) {
		if (src) {
			gutter(o, &st, w, "");
			fputc('\n', o);
		}
		for (int i = 0; i < d->nnotes; i++)
			fprintf(o, "%*s%s=%s %snote%s: %s\n", w + 1, "", st.blue, st.off, st.bold, st.off, d->notes[i]);
		for (int i = 0; i < d->nhelps; i++)
			fprintf(o, "%*s%s=%s %shelp%s: %s\n", w + 1, "", st.blue, st.off, st.bold, st.off, d->helps[i]);
	}
	fputc('\n', o);
}

void diag_footer(Ctx *c)
{
	if (c->format != DIAGFMT_HUMAN || !c->codes.n)
		return;
	Style st = style(c);
	fputc('\n', c->err);
	if (c->codes.n == 1) {
		fprintf(c->err, "%sFor more information about this error, try `plkc --explain %s`.%s\n", st.bold,
			(const char *)c->codes.v[0], st.off);
		return;
	}
	fprintf(c->err, "%sSome errors have detailed explanations: ", st.bold);
	for (int i = 0; i < c->codes.n; i++)
		fprintf(c->err, "%s%s", i ? ", " : "", (const char *)c->codes.v[i]);
	fprintf(c->err, ".%s\n%sFor more information about an error, try `plkc --explain %s`.%s\n", st.off,
		st.bold, (const char *)c->codes.v[0], st.off);
}
