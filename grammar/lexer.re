/* lexer.re: the .plk lexer (re2c). One token per call; positions as Spans.
 *
 * The source is NUL-terminated (ctx_add_source); a NUL before the end is
 * an error. Lexical errors are reported here and returned as YYerror,
 * which puts the Bison parser into error recovery without a second
 * message. Brackets are counted so that nesting stays bounded (E0109) and
 * an unexpected end of file can point at the bracket left open. */
#include <stdlib.h>
#include <string.h>
#include "plk.h"
#include "lexer.h"
#include "parser.h"

static Span mkspan(const Lexer *lx, const char *s, const char *e, int line, const char *ls)
{
	Span sp;
	sp.src = lx->src;
	sp.off = (int)(s - lx->start);
	sp.end = (int)(e - lx->start);
	sp.line = line;
	sp.col = (int)(s - ls) + 1;
	sp.eline = lx->line;
	sp.ecol = (int)(e - lx->line_start) + 1;
	return sp;
}

/* Advance line bookkeeping over [s, e), which may hold newlines. */
static void count_lines(Lexer *lx, const char *s, const char *e)
{
	for (; s < e; s++)
		if (*s == '\n') {
			lx->line++;
			lx->line_start = s + 1;
		}
}

/* Length of a valid UTF-8 sequence at s (before lim), or 0. */
static int utf8_len(const unsigned char *s, const unsigned char *lim)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 :
		(s[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (n == 0 || s + n > lim || (n == 2 && s[0] < 0xC2))
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

/* Check that [s, e) (a comment or string body) is UTF-8; report the
 * first bad byte. */
static int check_utf8(Lexer *lx, const char *s, const char *e, int line, const char *ls)
{
	for (const char *p = s; p < e;) {
		if (*p == '\n') {
			line++;
			ls = p + 1;
		}
		int n = utf8_len((const unsigned char *)p, (const unsigned char *)e);
		if (!n) {
			Span sp = mkspan(lx, p, p + 1, line, ls);
			sp.eline = line;
			sp.ecol = sp.col + 1;
			Diag *d = diag_new(lx->c, DIAG_ERROR, "E0107", sp,
				"invalid UTF-8: byte 0x%02x", (unsigned char)*p);
			diag_note(d, ".plk files are UTF-8 text");
			diag_help(d, "re-save the file as UTF-8, or write the text in ASCII");
			diag_end(lx->c, d);
			return 0;
		}
		p += n;
	}
	return 1;
}

/* INT: decimal, 0x hex, 0b binary, '_' between digits, suffix K/KiB/M/MiB. */
static int lex_int(Lexer *lx, const char *s, const char *e, Span sp, int64_t *out)
{
	int base = 10;
	const char *p = s;
	if (e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (e - s > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		p += 2;
	}
	int64_t mul = 1;
	const char *q = e;
	if (base == 10) {
		static const struct { const char *suf; int64_t mul; } sufs[] = {
			{ "KiB", 1024 }, { "MiB", 1048576 }, { "K", 1024 }, { "M", 1048576 },
		};
		for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++) {
			size_t n = strlen(sufs[i].suf);
			if ((size_t)(e - p) > n && !memcmp(e - n, sufs[i].suf, n)) {
				mul = sufs[i].mul;
				q = e - n;
				break;
			}
		}
	}
	uint64_t v = 0;
	int ndig = 0, prev_us = 1;
	const char *why = NULL;
	for (const char *c = p; c < q && !why; c++) {
		int d;
		if (*c == '_') {
			if (prev_us)
				why = "`_` must stand between two digits";
			prev_us = 1;
			continue;
		}
		if (*c >= '0' && *c <= '9')
			d = *c - '0';
		else if (*c >= 'a' && *c <= 'f')
			d = *c - 'a' + 10;
		else if (*c >= 'A' && *c <= 'F')
			d = *c - 'A' + 10;
		else
			d = 99;
		if (d >= base) {
			why = base == 10 ? "a decimal number has only the digits 0-9 and a K, KiB, M or MiB suffix"
			    : base == 16 ? "a hexadecimal number has only the digits 0-9, a-f and A-F"
			    : "a binary number has only the digits 0 and 1";
			break;
		}
		if (v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)d) / (uint64_t)base) {
			Diag *dg = diag_new(lx->c, DIAG_ERROR, "E0105", sp, "integer literal is too large");
			diag_label(dg, sp, "does not fit in 64 bits");
			diag_note(dg, "integers in .plk are signed 64-bit values");
			diag_end(lx->c, dg);
			return 0;
		}
		v = v * (uint64_t)base + (uint64_t)d;
		ndig++;
		prev_us = 0;
	}
	if (!why && (ndig == 0 || prev_us))
		why = ndig == 0 ? "no digits after the prefix" : "`_` must stand between two digits";
	if (why) {
		Diag *dg = diag_new(lx->c, DIAG_ERROR, "E0104", sp, "invalid number `%.*s`",
			(int)(e - s > 40 ? 40 : e - s), s);
		diag_label(dg, sp, "not a number");
		diag_note(dg, "%s", why);
		diag_help(dg, "write e.g. `1024`, `0x400`, `0b1010`, `232_448` or `64KiB`");
		diag_end(lx->c, dg);
		return 0;
	}
	if (mul > 1 && v > (uint64_t)INT64_MAX / (uint64_t)mul) {
		error_at(lx->c, "E0105", sp, "integer literal is too large");
		return 0;
	}
	*out = (int64_t)(v * (uint64_t)mul);
	return 1;
}

/* STRING body: escapes \" \\ \n \t; returns the unescaped text. */
static const char *lex_string(Lexer *lx, const char *s, const char *e, Span sp)
{
	char *out = arena_alloc(lx->c->arena, (size_t)(e - s) + 1), *o = out;
	for (const char *p = s; p < e; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		p++;
		switch (*p) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		default: {
			Span es = sp;
			es.off = (int)(p - 1 - lx->start);
			es.end = es.off + 2;
			es.col = sp.col + (int)(p - 1 - (s - 1));
			es.eline = es.line;
			es.ecol = es.col + 2;
			Diag *d = diag_new(lx->c, DIAG_ERROR, "E0108", es, "unknown escape `\\%c` in string",
				*p >= 0x20 && *p < 0x7f ? *p : '?');
			diag_label(d, es, "unknown escape");
			diag_help(d, "the escapes are \\\" \\\\ \\n and \\t");
			diag_end(lx->c, d);
			return NULL;
		}
		}
	}
	*o = 0;
	return out;
}

static int open_bracket(Lexer *lx, Span sp, int ch)
{
	if (lx->depth >= LEX_MAX_DEPTH) {
		Diag *d = diag_new(lx->c, DIAG_ERROR, "E0109", sp, "brackets nested more than %d deep",
			LEX_MAX_DEPTH);
		diag_label(d, sp, "too deep");
		diag_help(d, "name an inner part with `const` and use the name");
		diag_end(lx->c, d);
		return 0;
	}
	lx->open[lx->depth] = sp;
	lx->open_ch[lx->depth++] = (char)ch;
	return 1;
}

int yylex(YYSTYPE *lval, Span *lloc, Lexer *lx)
{
	const char *cur = lx->cur, *mar = cur, *tok;
	int tline;
	const char *tls;
	/* past the error limit nothing more is shown: stop reading, so that
	 * junk costs no memory for diagnostics nobody sees */
	if (lx->c->nerrors > (lx->c->max_errors ? lx->c->max_errors : 20))
		lx->stop = 1;
	if (lx->stop)
		return END;
loop:
	tok = cur;
	tline = lx->line;
	tls = lx->line_start;
#define SPAN() (lx->cur = cur, *lloc = mkspan(lx, tok, cur, tline, tls), \
	lx->prev = lx->last, lx->last = *lloc)
	/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:define:YYCURSOR = cur;
	re2c:define:YYMARKER = mar;
	re2c:yyfill:enable = 0;
	re2c:flags:input = default;

	ident = [A-Za-z_][A-Za-z0-9_]*;

	"\x00" {
		if (cur - 1 >= lx->lim) { cur--; SPAN(); return END; }
		SPAN();
		Diag *d = diag_new(lx->c, DIAG_ERROR, "E0114", *lloc, "NUL byte in source");
		diag_help(d, "is this a binary file? .plk files are UTF-8 text");
		diag_end(lx->c, d);
		lx->stop = 1;
		return YYerror;
	}
	[ \t\r\f\v]+ { goto loop; }
	"\n" { lx->line++; lx->line_start = cur; goto loop; }
	"//" [^\n\x00]* {
		if (!check_utf8(lx, tok, cur, tline, tls)) { SPAN(); return YYerror; }
		goto loop;
	}
	"/*" {
		const char *e = strstr(cur, "*/");
		if (!e || e >= lx->lim) {
			cur = tok + 2;
			SPAN();
			Diag *d = diag_new(lx->c, DIAG_ERROR, "E0103", *lloc, "unterminated block comment");
			diag_label(d, *lloc, "the comment starts here");
			diag_note(d, "block comments do not nest");
			diag_help(d, "close it with `*/`");
			diag_end(lx->c, d);
			lx->cur = lx->lim;
			lx->stop = 1;
			return YYerror;
		}
		int ok = check_utf8(lx, tok, e, tline, tls);
		count_lines(lx, cur, e + 2);
		cur = e + 2;
		if (!ok) { SPAN(); return YYerror; }
		goto loop;
	}

	"use"        { SPAN(); return KW_USE; }
	"object"     { SPAN(); return KW_OBJECT; }
	"component"  { SPAN(); return KW_COMPONENT; }
	"kernel"     { SPAN(); return KW_KERNEL; }
	"source"     { SPAN(); return KW_SOURCE; }
	"entry"      { SPAN(); return KW_ENTRY; }
	"arch"       { SPAN(); return KW_ARCH; }
	"needs"      { SPAN(); return KW_NEEDS; }
	"warps"      { SPAN(); return KW_WARPS; }
	"warpgroups" { SPAN(); return KW_WARPGROUPS; }
	"regs"       { SPAN(); return KW_REGS; }
	"param"      { SPAN(); return KW_PARAM; }
	"in"         { SPAN(); return KW_IN; }
	"out"        { SPAN(); return KW_OUT; }
	"smem"       { SPAN(); return KW_SMEM; }
	"bytes"      { SPAN(); return KW_BYTES; }
	"align"      { SPAN(); return KW_ALIGN; }
	"live"       { SPAN(); return KW_LIVE; }
	"barrier"    { SPAN(); return KW_BARRIER; }
	"const"      { SPAN(); return KW_CONST; }
	"grid"       { SPAN(); return KW_GRID; }
	"raster"     { SPAN(); return KW_RASTER; }
	"auto"       { SPAN(); return KW_AUTO; }
	"x"          { SPAN(); return KW_X; }
	"tile"       { SPAN(); return KW_TILE; }
	"frag"       { SPAN(); return KW_FRAG; }
	"tensor"     { SPAN(); return KW_TENSOR; }
	"tensormap"  { SPAN(); return KW_TENSORMAP; }
	"ptr"        { SPAN(); return KW_PTR; }
	"per"        { SPAN(); return KW_PER; }
	"handoff"    { SPAN(); return KW_HANDOFF; }
	"ahead"      { SPAN(); return KW_AHEAD; }
	"split"      { SPAN(); return KW_SPLIT; }
	"merge"      { SPAN(); return KW_MERGE; }
	"require"    { SPAN(); return KW_REQUIRE; }
	"hook"       { SPAN(); return KW_HOOK; }
	"cluster"    { SPAN(); return KW_CLUSTER; }
	"engine"     { SPAN(); return KW_ENGINE; }
	"prologue"   { SPAN(); return KW_PROLOGUE; }
	"early"      { SPAN(); return KW_EARLY; }
	"zeroed"     { SPAN(); return KW_ZEROED; }
	"select"     { SPAN(); return KW_SELECT; }
	"when"       { SPAN(); return KW_WHEN; }
	"else"       { SPAN(); return KW_ELSE; }
	"megakernel" { SPAN(); return KW_MEGAKERNEL; }
	"op"         { SPAN(); return KW_OP; }
	"buffer"     { SPAN(); return KW_BUFFER; }
	"for"        { SPAN(); return KW_FOR; }

	"sm_" [0-9]+ "a"? {
		SPAN();
		lval->str = arena_strndup(lx->c->arena, tok, (size_t)(cur - tok));
		return ARCH;
	}
	ident {
		SPAN();
		lval->str = arena_strndup(lx->c->arena, tok, (size_t)(cur - tok));
		return IDENT;
	}
	[0-9][0-9A-Za-z_]* {
		SPAN();
		if (!lex_int(lx, tok, cur, *lloc, &lval->num))
			return YYerror;
		return INT;
	}
	["] ([^"\\\n\x00] | [\\][^\n\x00])* ["] {
		SPAN();
		if (!check_utf8(lx, tok + 1, cur - 1, tline, tls))
			return YYerror;
		lval->str = lex_string(lx, tok + 1, cur - 1, *lloc);
		return lval->str ? STRING : YYerror;
	}
	["] ([^"\\\n\x00] | [\\][^\n\x00])* [\\]? {
		SPAN();
		Diag *d = diag_new(lx->c, DIAG_ERROR, "E0102", *lloc, "unterminated string");
		diag_label(d, *lloc, "the string starts here");
		diag_help(d, "close it with `\"` on the same line: strings do not span lines");
		diag_end(lx->c, d);
		return YYerror;
	}

	"->" { SPAN(); return ARROW; }
	">=" { SPAN(); return GE; }
	"<=" { SPAN(); return LE; }
	"==" { SPAN(); return EQ; }
	"!=" { SPAN(); return NE; }
	"=>" | "<-" | "- >" | "-->" | "~>" {
		SPAN();
		Diag *d = diag_new(lx->c, DIAG_ERROR, "E0112", *lloc, "malformed arrow `%.*s`",
			(int)(cur - tok), tok);
		diag_label(d, *lloc, "not a dataflow arrow");
		diag_help(d, "connect an output to an input with `->`: `load.ab -> mma.ab`");
		diag_end(lx->c, d);
		lval->str = NULL;
		return ARROW;   /* recover as if `->` */
	}
	[({[] {
		SPAN();
		if (!open_bracket(lx, *lloc, tok[0])) { lx->stop = 1; return END; }
		return tok[0];
	}
	[)}\]] {
		SPAN();
		if (lx->depth > 0)
			lx->depth--;
		return tok[0];
	}
	[=,;:.<>+\-*/%] { SPAN(); return tok[0]; }

	[\x80-\xff] {
		int n = utf8_len((const unsigned char *)tok, (const unsigned char *)lx->lim);
		if (!n) {
			SPAN();
			Diag *d = diag_new(lx->c, DIAG_ERROR, "E0107", *lloc, "invalid UTF-8: byte 0x%02x",
				(unsigned char)*tok);
			diag_note(d, ".plk files are UTF-8 text");
			diag_help(d, "re-save the file as UTF-8");
			diag_end(lx->c, d);
			return YYerror;
		}
		cur = tok + n;
		SPAN();
		Diag *d = diag_new(lx->c, DIAG_ERROR, "E0106", *lloc, "unexpected character `%.*s`",
			n, tok);
		diag_label(d, *lloc, "not part of the language");
		diag_help(d, "names are ASCII letters, digits and `_`; other text belongs in comments and strings");
		diag_end(lx->c, d);
		return YYerror;
	}
	* {
		SPAN();
		unsigned char ch = (unsigned char)*tok;
		Diag *d = ch >= 0x20 && ch < 0x7f
			? diag_new(lx->c, DIAG_ERROR, "E0106", *lloc, "unexpected character `%c`", ch)
			: diag_new(lx->c, DIAG_ERROR, "E0106", *lloc, "unexpected control character 0x%02x", ch);
		diag_label(d, *lloc, "not part of the language");
		if (ch == '#')
			diag_help(d, "comments start with `//`");
		else if (ch == '\'')
			diag_help(d, "strings use double quotes: \"...\"");
		diag_end(lx->c, d);
		return YYerror;
	}
	*/
#undef SPAN
}

void lexer_init(Lexer *lx, Ctx *c, int src)
{
	memset(lx, 0, sizeof *lx);
	lx->c = c;
	lx->src = src;
	lx->start = lx->cur = lx->line_start = c->srcs[src]->text;
	lx->lim = lx->start + c->srcs[src]->len;
	lx->line = 1;
}
