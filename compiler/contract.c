/* contract.c: a component as canonical .plk text.
 *
 * This is what a component object's .plk.contract section carries, and
 * what `--emit=contract` prints. Reading it back is parse_source on the
 * text, so the printer emits only syntax of docs/language.md, in one fixed
 * order and spacing: print -> parse -> print is the identity.
 *
 * With cvals, each compile-time constant is printed with the value the
 * object was built for as its default; expressions stay symbolic, so they
 * still say how a size depends on the constants. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "plk.h"

/* Binding strength: an operand is parenthesised when it binds looser than
 * its place requires. */
enum { P_ADD = 1, P_MUL = 2, P_UNARY = 3, P_ATOM = 4 };

static int prec(const Expr *e)
{
	if (e->k == EX_BIN)
		return e->op == '+' || e->op == '-' ? P_ADD : P_MUL;
	if (e->k == EX_NEG || (e->k == EX_NUM && e->num < 0))
		return P_UNARY;
	return P_ATOM;
}

static void print_num(FILE *out, int64_t v)
{
	if (v == INT64_MIN)         /* no literal spells it: the lexer reads magnitudes */
		fputs("(-9223372036854775807 - 1)", out);
	else
		fprintf(out, "%" PRId64, v);
}

static void print_expr(FILE *out, const Expr *e, int need)
{
	int paren = prec(e) < need;
	if (paren)
		fputc('(', out);
	switch (e->k) {
	case EX_NUM:
		print_num(out, e->num);
		break;
	case EX_NAME:
		fputs(e->name, out);
		break;
	case EX_AUTO:
		fputs("auto", out);
		break;
	case EX_NEG:
		fputc('-', out);
		print_expr(out, e->a, P_UNARY);
		break;
	case EX_BIN: {
		int p = prec(e);
		print_expr(out, e->a, p);          /* left-associative */
		fprintf(out, " %c ", e->op);
		print_expr(out, e->b, p + 1);
		break;
	}
	case EX_CALL:
		fprintf(out, "%s(", e->name);
		for (int i = 0; i < e->args.n; i++) {
			if (i)
				fputs(", ", out);
			print_expr(out, e->args.v[i], P_ADD);
		}
		fputc(')', out);
		break;
	}
	if (paren)
		fputc(')', out);
}

static void print_expr_top(FILE *out, const Expr *e)
{
	print_expr(out, e, P_ADD);
}

void contract_print_require(FILE *out, const Require *r)
{
	require_print(out, r, print_expr_top);
}

/* r as its recipe text ("N % 8 == 0"), in the arena; "?" when out of memory. */
const char *require_text(Arena *a, const Require *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return "?";
	contract_print_require(f, r);
	fclose(f);
	const char *t = buf ? arena_printf(a, "%s", buf) : "?";
	free(buf);
	return t;
}

static void print_exprs(FILE *out, const Vec *v)
{
	for (int i = 0; i < v->n; i++) {
		if (i)
			fputs(", ", out);
		print_expr(out, v->v[i], P_ADD);
	}
}

static void print_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		switch (*s) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		default: fputc(*s, out);
		}
	}
	fputc('"', out);
}

static void print_type(FILE *out, const Type *t)
{
	switch (t->k) {
	case TY_SCALAR:
		fputs(t->dtype, out);
		break;
	case TY_PTR:
		fprintf(out, "ptr<%s%s>", t->readonly ? "const " : "", t->dtype);
		break;
	case TY_TENSOR:
		fprintf(out, "tensor<%s>[", t->dtype);
		print_exprs(out, &t->dims);
		fputc(']', out);
		break;
	case TY_TENSORMAP:
		fprintf(out, "tensormap<%s, ", t->dtype);
		print_expr(out, t->rank, P_ADD);
		if (t->layout)
			fprintf(out, ", %s", t->layout);
		fputc('>', out);
		if (t->dims.n) {
			fputc('[', out);
			print_exprs(out, &t->dims);
			fputc(']', out);
		}
		break;
	case TY_TILE:
	case TY_FRAG:
		fprintf(out, "%s<%s, ", t->k == TY_TILE ? "tile" : "frag", t->dtype);
		print_expr(out, t->rows, P_ADD);
		fputs(" x ", out);
		print_expr(out, t->cols, P_ADD);
		if (t->layout)
			fprintf(out, ", %s", t->layout);
		fputc('>', out);
		break;
	case TY_HOOK:
		fputs(t->hook, out);
		if (t->rows) {
			fputc('<', out);
			print_expr(out, t->rows, P_ADD);
			fputs(" x ", out);
			print_expr(out, t->cols, P_ADD);
			fputc('>', out);
		}
		if (t->base)
			fprintf(out, " = %s", t->base);
		break;
	case TY_BUNDLE:
		fputs("{ ", out);
		for (int i = 0; i < t->fields.n; i++) {
			const Field *f = t->fields.v[i];
			if (i)
				fputs(", ", out);
			fprintf(out, "%s: ", f->name);
			print_type(out, f->ty);
		}
		fputs(" }", out);
		break;
	}
}

void contract_print(FILE *out, const Component *comp, const int64_t *cvals)
{
	fprintf(out, "component %s", comp->name);
	if (comp->cparams.n) {
		fputc('(', out);
		for (int i = 0; i < comp->cparams.n; i++) {
			const CParam *p = comp->cparams.v[i];
			fprintf(out, "%s%s", i ? ", " : "", p->name);
			if (cvals) {
				fputs(" = ", out);
				print_num(out, cvals[i]);
			} else if (p->def) {
				fputs(" = ", out);
				print_expr(out, p->def, P_ADD);
			}
		}
		fputc(')', out);
	}
	fputs(" {\n", out);
	if (comp->source) {
		fputs("  source ", out);
		print_string(out, comp->source);
		fputc('\n', out);
	}
	if (comp->entry)
		fprintf(out, "  entry %s\n", comp->entry);
	if (comp->arch_min) {
		fprintf(out, "  arch >= %s", comp->arch_min);
		for (int i = 0; i < comp->features.n; i++) {
			const Feature *f = comp->features.v[i];
			fprintf(out, "%s%s", i ? ", " : " needs ", f->name);
		}
		fputc('\n', out);
	}
	if (comp->warps) {
		fputs(comp->warpgroups ? "  warpgroups " : "  warps ", out);
		print_expr(out, comp->warps, P_ADD);
		fputc('\n', out);
	}
	if (comp->regs) {
		fputs("  regs ", out);
		print_expr(out, comp->regs, P_ADD);
		fputc('\n', out);
	}
	if (comp->cluster) {
		fputs("  cluster ", out);
		print_expr(out, comp->cluster, P_ADD);
		if (comp->cluster_y) {
			fputs(" x ", out);
			print_expr(out, comp->cluster_y, P_ADD);
		}
		fputc('\n', out);
	}
	if (comp->engine)
		fprintf(out, "  engine %s\n", comp->engine);
	if (comp->prologue)
		fputs("  prologue\n", out);
	for (int i = 0; i < comp->requires.n; i++) {
		fputs("  require ", out);
		contract_print_require(out, comp->requires.v[i]);
		fputc('\n', out);
	}
	for (int i = 0; i < comp->params.n; i++) {
		const Param *p = comp->params.v[i];
		fprintf(out, "  param %s: ", p->name);
		print_type(out, p->ty);
		fputc('\n', out);
	}
	names_print(out, "  early ", &comp->early);
	names_print(out, "  zeroed ", &comp->zeroed);
	for (int i = 0; i < comp->ports.n; i++) {
		const Port *p = comp->ports.v[i];
		fprintf(out, "  %s %s%s: ", p->dir == PORT_IN ? "in" : "out", p->ty->k == TY_HOOK ? "hook " : "",
		        p->name);
		print_type(out, p->ty);
		if (p->per) {
			fputs(" per ", out);
			print_expr(out, p->per, P_ADD);
		}
		if (p->handoff)
			fputs(" handoff", out);
		if (p->split)
			fputs(" split", out);
		if (p->merge)
			fprintf(out, " merge %s", p->merge);
		if (p->ahead) {
			fputs(" ahead(", out);
			print_expr(out, p->ahead, P_ADD);
			fputc(')', out);
		}
		fputc('\n', out);
	}
	for (int i = 0; i < comp->keeps.n; i++) {
		const Keep *kp = comp->keeps.v[i];
		fprintf(out, "  regs %s: ", kp->name);
		print_expr(out, kp->words, P_ADD);
		fputc('\n', out);
	}
	for (int i = 0; i < comp->smem.n; i++) {
		const Smem *s = comp->smem.v[i];
		fprintf(out, "  smem %s: ", s->name);
		print_expr(out, s->size, P_ADD);
		fputs(" bytes", out);
		if (s->align) {
			fputs(", align ", out);
			print_expr(out, s->align, P_ADD);
		}
		if (s->live)
			fprintf(out, ", live %s", s->live);
		fputc('\n', out);
	}
	for (int i = 0; i < comp->barriers.n; i++) {
		const Barrier *b = comp->barriers.v[i];
		fprintf(out, "  barrier %s", b->name);
		if (b->threads) {
			fputs(": ", out);
			print_expr(out, b->threads, P_ADD);
		}
		fputc('\n', out);
	}
	fputs("}\n", out);
}

/* ------------------------------------------------------------- header */

static void upper(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s, out);
}

/* "\tCOMP_KIND_NAME[_SUB] = i,": one id of the header's enum */
static void id_line(FILE *out, const char *comp, const char *kind, const char *name, const char *sub,
                    int i)
{
	fputc('\t', out);
	upper(out, comp);
	fprintf(out, "_%s_", kind);
	upper(out, name);
	if (sub) {
		fputc('_', out);
		upper(out, sub);
	}
	fprintf(out, " = %d,\n", i);
}

static const char *param_ctype(const Type *t)
{
	const DtypeInfo *d = t->dtype ? dtype_lookup(t->dtype) : NULL;
	switch (t->k) {
	case TY_TENSORMAP: return "const void *";
	case TY_PTR: return NULL;   /* T *: printed by the caller */
	default: return d ? d->ctype : "int";
	}
}

/* ", T name" for each param, as the entry takes them */
static void print_params(FILE *out, const Component *comp)
{
	for (int i = 0; i < comp->params.n; i++) {
		const Param *p = comp->params.v[i];
		const char *ct = param_ctype(p->ty);
		if (ct)
			fprintf(out, ", %s%s%s", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", p->name);
		else {
			const DtypeInfo *d = dtype_lookup(p->ty->dtype);
			fprintf(out, ", %s%s *%s", p->ty->readonly ? "const " : "", d ? d->ctype : "void", p->name);
		}
	}
}

/* One `require` clause as a C condition over the cparam macros: a
 * comparison as it is, a set as (lhs == a || lhs == b ...). */
static void require_c(FILE *out, const Require *r)
{
	if (r->op != REQ_IN) {
		expr_print_c(out, r->lhs, NULL, NULL, NULL);
		fprintf(out, " %s ", req_op_text(r->op));
		expr_print_c(out, r->rhs, NULL, NULL, NULL);
		return;
	}
	if (!r->set.n) {
		fputc('0', out);   /* nothing meets an empty set */
		return;
	}
	fputc('(', out);
	for (int i = 0; i < r->set.n; i++) {
		if (i)
			fputs(" || ", out);
		expr_print_c(out, r->lhs, NULL, NULL, NULL);
		fputs(" == ", out);
		expr_print_c(out, r->set.v[i], NULL, NULL, NULL);
	}
	fputc(')', out);
}

/* <component>.plk.h: the component's compile-time constants (a macro the
 * includer defined wins, else the contract's default: with cvals, the
 * values an object is built for), each `require` clause as a static_assert
 * over them (a build that bypasses plkc's check, E0353, stops at the
 * clause too), the ids of its ports, bundle fields, buffers and barriers
 * (declaration order, each kind from 0), and the prototype of its entry
 * as the glue calls it (docs/abi.md). The source
 * includes it, so the contract is the only place these are written and
 * the C++ compiler checks the source against it. Ids carry the
 * component's name: a monolith holds several headers in one unit. */
void contract_header(FILE *out, const Component *comp, const int64_t *cvals)
{
	fprintf(out, "/* %s.plk.h: generated by plkc %s from the contract of `%s`. Do not edit. */\n",
	        comp->name, PLK_VERSION, comp->name);
	fputs("#ifndef PLK_", out);
	upper(out, comp->name);
	fputs("_PLK_H\n#define PLK_", out);
	upper(out, comp->name);
	fputs("_PLK_H\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include \"plk.cuh\"\n\n", out);
	for (int i = 0; i < comp->cparams.n; i++) {
		const CParam *p = comp->cparams.v[i];
		fprintf(out, "#ifndef %s\n", p->name);
		if (cvals) {
			fprintf(out, "#define %s ", p->name);
			expr_print_c(out, &(Expr){ .k = EX_NUM, .num = cvals[i] }, NULL, NULL, NULL);
		} else if (p->def) {
			fprintf(out, "#define %s ", p->name);
			expr_print_c(out, p->def, NULL, NULL, NULL);
		} else
			fprintf(out, "#error \"constant %s of component %s has no default: define it\"", p->name, comp->name);
		fputs("\n#endif\n", out);
	}
	if (comp->cparams.n)
		fputc('\n', out);
	for (int i = 0; i < comp->requires.n; i++) {
		const Require *r = comp->requires.v[i];
		fputs("static_assert(", out);
		require_c(out, r);
		fprintf(out, ", \"contract of %s: require ", comp->name);
		contract_print_require(out, r);
		fputs("\");\n", out);
	}
	if (comp->requires.n)
		fputc('\n', out);
	/* no ids, no enum: an empty one declares nothing (a warning) */
	int nids = comp->ports.n + comp->smem.n + comp->barriers.n;
	if (nids)
		fputs("enum {\n", out);
	for (int i = 0; i < comp->ports.n; i++) {
		const Port *p = comp->ports.v[i];
		id_line(out, comp->name, "PORT", p->name, NULL, i);
		for (int f = 0; p->ty->k == TY_BUNDLE && f < p->ty->fields.n; f++)
			id_line(out, comp->name, "FIELD", p->name, ((const Field *)p->ty->fields.v[f])->name, f);
	}
	for (int i = 0; i < comp->smem.n; i++)
		id_line(out, comp->name, "BUF", ((const Smem *)comp->smem.v[i])->name, NULL, i);
	for (int i = 0; i < comp->barriers.n; i++)
		id_line(out, comp->name, "BAR", ((const Barrier *)comp->barriers.v[i])->name, NULL, i);
	if (nids)
		fputs("};\n\n", out);
	/* a hook provider: its hooks' functions, no entry (docs/abi.md, Hooks) */
	int hooks = 0;
	for (int i = 0; i < comp->ports.n; i++) {
		const Port *p = comp->ports.v[i];
		const HookKind *hk = p->dir == PORT_OUT && p->ty->k == TY_HOOK ? hook_kind_lookup(p->ty->hook) : NULL;
		int nf;
		const HookFnInfo *f = hk ? hook_fns(hk->id, &nf) : NULL;
		for (int j = 0; f && j < nf; j++) {
			fprintf(out, "extern \"C\" __device__ %s %s%s(int inst", f[j].cret, p->ty->base, f[j].suffix);
			print_params(out, comp);
			fprintf(out, ", %s;\n", f[j].cargs + 1);   /* "(int b, int h)" without its "(" */
			hooks++;
		}
	}
	if (hooks) {
		fputs("#endif\n", out);
		return;
	}
	fprintf(out, "extern \"C\" __device__ void %s(int inst", comp->entry ? comp->entry : comp->name);
	print_params(out, comp);
	for (int i = 0; i < comp->ports.n; i++) {
		const Port *p = comp->ports.v[i];
		if (p->ty->k == TY_HOOK)
			fprintf(out, ", const void *%s", p->name);
		else if (p->ty->k == TY_FRAG) {
			const DtypeInfo *d = dtype_lookup(p->ty->dtype);
			fprintf(out, ", %s *%s", d ? d->ctype : "float", p->name);
		} else
			fprintf(out, ", plk_pipe *%s", p->name);
	}
	for (int i = 0; i < comp->keeps.n; i++)   /* `regs NAME: WORDS`: the glue's words, kept across calls */
		fprintf(out, ", void *%s", ((const Keep *)comp->keeps.v[i])->name);
	fprintf(out, ", int tile_m, int tile_n%s);\n#endif\n", comp_split_port(comp) ? ", int k_first, int k_count" : "");
}

/* The port whose `per` count the component walks a share of (`split`);
 * NULL: none (check_inst allows one). */
const Port *comp_split_port(const Component *c)
{
	for (int i = 0; i < c->ports.n; i++)
		if (((const Port *)c->ports.v[i])->split)
			return c->ports.v[i];
	return NULL;
}
