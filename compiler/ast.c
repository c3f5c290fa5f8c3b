/* ast.c: --emit=ast, the AST as indented text with each node's span
 * (line:col-line:col). Binary expressions print fully parenthesised so
 * that the golden tests show precedence. */
#include <string.h>
#include "plk.h"

static const char *const builtin_names[] = { [FN_CEIL_DIV] = "ceil_div", [FN_MIN] = "min", [FN_MAX] = "max" };

Builtin builtin_of(const char *name)
{
	for (int f = FN_CEIL_DIV; f <= FN_MAX; f++)
		if (name && !strcmp(name, builtin_names[f]))
			return (Builtin)f;
	return FN_UNKNOWN;
}

int builtin_call(const Expr *e)
{
	return e && e->k == EX_CALL && e->fn != FN_UNKNOWN && e->args.n == 2;
}

int expr_same(const Expr *a, const Expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->k != b->k)
		return 0;
	switch (a->k) {
	case EX_NUM: return a->num == b->num;
	case EX_NAME: return !strcmp(a->name, b->name);
	case EX_AUTO: return 1;
	case EX_NEG: return expr_same(a->a, b->a);
	case EX_BIN: return a->op == b->op && expr_same(a->a, b->a) && expr_same(a->b, b->b);
	case EX_CALL:
		if (strcmp(a->name, b->name) || a->args.n != b->args.n)
			return 0;
		for (int i = 0; i < a->args.n; i++)
			if (!expr_same(a->args.v[i], b->args.v[i]))
				return 0;
		return 1;
	}
	return 0;
}

const char *builtin_name(Builtin f)
{
	return f > FN_UNKNOWN && f <= FN_MAX ? builtin_names[f] : NULL;
}

const char *const *builtin_list(int *n)
{
	*n = FN_MAX;
	return builtin_names + 1;
}

static void span(FILE *o, Span s)
{
	fprintf(o, " @%d:%d-%d:%d", s.line, s.col, s.eline, s.ecol);
}

const char *req_op_text(ReqOp op)
{
	static const char *const t[] = { "==", "!=", "<", "<=", ">", ">=", "in" };
	return t[op];
}

/* lhs OP rhs, or lhs in {a, b}, each expression printed by pe */
void require_print(FILE *o, const Require *r, void (*pe)(FILE *, const Expr *))
{
	pe(o, r->lhs);
	fprintf(o, " %s ", req_op_text(r->op));
	if (r->op != REQ_IN) {
		pe(o, r->rhs);
		return;
	}
	fputc('{', o);
	for (int i = 0; i < r->set.n; i++) {
		if (i)
			fputs(", ", o);
		pe(o, r->set.v[i]);
	}
	fputc('}', o);
}

void names_print(FILE *o, const char *lead, const Vec *names)
{
	for (int i = 0; i < names->n; i++)
		fprintf(o, "%s%s%s", i ? ", " : lead, ((const Feature *)names->v[i])->name, i == names->n - 1 ? "\n" : "");
}

void expr_print(FILE *o, const Expr *e)
{
	if (!e) {
		fputs("?", o);
		return;
	}
	switch (e->k) {
	case EX_NUM: fprintf(o, "%lld", (long long)e->num); break;
	case EX_NAME: fputs(e->name, o); break;
	case EX_AUTO: fputs("auto", o); break;
	case EX_NEG: fputs("-", o); expr_print(o, e->a); break;
	case EX_BIN:
		fputc('(', o);
		expr_print(o, e->a);
		fprintf(o, " %c ", e->op);
		expr_print(o, e->b);
		fputc(')', o);
		break;
	case EX_CALL:
		fprintf(o, "%s(", e->name);
		for (int i = 0; i < e->args.n; i++) {
			if (i)
				fputs(", ", o);
			expr_print(o, e->args.v[i]);
		}
		fputc(')', o);
		break;
	}
}

void expr_print_names(FILE *o, const Expr *e, NamePrint name, const void *ud)
{
	switch (e ? e->k : EX_AUTO) {
	case EX_NUM: fprintf(o, "%lld", (long long)e->num); return;
	case EX_NAME: name(o, e, ud); return;
	case EX_NEG: fputs("-(", o); expr_print_names(o, e->a, name, ud); fputc(')', o); return;
	case EX_BIN:
		fputc('(', o);
		expr_print_names(o, e->a, name, ud);
		fprintf(o, " %c ", e->op);
		expr_print_names(o, e->b, name, ud);
		fputc(')', o);
		return;
	case EX_CALL:
		fprintf(o, "%s(", e->name);
		for (int i = 0; i < e->args.n; i++) {
			fputs(i ? ", " : "", o);
			expr_print_names(o, e->args.v[i], name, ud);
		}
		fputc(')', o);
		return;
	default: fputs("1", o);
	}
}

/* A string as it would be written in .plk, escapes included. */
static void str_print(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(o, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", o);
		else if (*s == '\t')
			fputs("\\t", o);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

static void exprs(FILE *o, const Vec *v, const char *open, const char *close)
{
	fputs(open, o);
	for (int i = 0; i < v->n; i++) {
		if (i)
			fputs(", ", o);
		expr_print(o, v->v[i]);
	}
	fputs(close, o);
}

void type_print(FILE *o, const Type *t)
{
	switch (t->k) {
	case TY_SCALAR: fputs(t->dtype, o); break;
	case TY_PTR: fprintf(o, "ptr<%s%s>", t->readonly ? "const " : "", t->dtype); break;
	case TY_TENSOR: fprintf(o, "tensor<%s%s>", t->readonly ? "const " : "", t->dtype); exprs(o, &t->dims, "[", "]"); break;
	case TY_TENSORMAP:
		fprintf(o, "tensormap<%s, ", t->dtype);
		expr_print(o, t->rank);
		if (t->layout)
			fprintf(o, ", %s", t->layout);
		fputc('>', o);
		if (t->dims.n)
			exprs(o, &t->dims, "[", "]");
		break;
	case TY_TILE:
	case TY_FRAG:
		fprintf(o, "%s<%s, ", t->k == TY_TILE ? "tile" : "frag", t->dtype);
		expr_print(o, t->rows);
		fputs(" x ", o);
		expr_print(o, t->cols);
		if (t->layout)
			fprintf(o, ", %s", t->layout);
		fputc('>', o);
		break;
	case TY_HOOK:
		fputs(t->hook, o);
		if (t->rows) {
			fputc('<', o);
			expr_print(o, t->rows);
			fputs(" x ", o);
			expr_print(o, t->cols);
			fputc('>', o);
		}
		if (t->base)
			fprintf(o, " = %s", t->base);
		break;
	case TY_BUNDLE:
		fputc('{', o);
		for (int i = 0; i < t->fields.n; i++) {
			const Field *f = t->fields.v[i];
			fprintf(o, "%s%s: ", i ? ", " : "", f->name);
			type_print(o, f->ty);
		}
		fputc('}', o);
		break;
	}
}

static void args(FILE *o, const Vec *v)
{
	for (int i = 0; i < v->n; i++) {
		const Arg *a = v->v[i];
		fprintf(o, "%s%s = ", i ? ", " : "", a->name);
		expr_print(o, a->val);
	}
}

/* `require` lines: a component's conditions on its constants, a kernel's
 * on its shapes */
static void requires_print(FILE *o, const Vec *rs)
{
	for (int i = 0; i < rs->n; i++) {
		const Require *r = rs->v[i];
		fputs("    require ", o);
		require_print(o, r, expr_print);
		span(o, r->sp);
		fputc('\n', o);
	}
}

static void component(FILE *o, const Component *c)
{
	fprintf(o, "  component %s", c->name);
	span(o, c->sp);
	fputc('\n', o);
	for (int i = 0; i < c->cparams.n; i++) {
		const CParam *p = c->cparams.v[i];
		fprintf(o, "    const %s", p->name);
		if (p->def) {
			fputs(" = ", o);
			expr_print(o, p->def);
		}
		span(o, p->sp);
		fputc('\n', o);
	}
	if (c->source) {
		fputs("    source ", o);
		str_print(o, c->source);
		fputc('\n', o);
	}
	if (c->entry)
		fprintf(o, "    entry %s\n", c->entry);
	if (c->arch_min) {
		fprintf(o, "    arch >= %s", c->arch_min);
		for (int i = 0; i < c->features.n; i++)
			fprintf(o, "%s%s", i ? ", " : " needs ", ((Feature *)c->features.v[i])->name);
		fputc('\n', o);
	}
	if (c->warps) {
		fprintf(o, "    %s ", c->warpgroups ? "warpgroups" : "warps");
		expr_print(o, c->warps);
		fputc('\n', o);
	}
	if (c->regs) {
		fputs("    regs ", o);
		expr_print(o, c->regs);
		fputc('\n', o);
	}
	if (c->cluster) {
		fputs("    cluster ", o);
		expr_print(o, c->cluster);
		if (c->cluster_y) {
			fputs(" x ", o);
			expr_print(o, c->cluster_y);
		}
		fputc('\n', o);
	}
	if (c->engine)
		fprintf(o, "    engine %s\n", c->engine);
	if (c->prologue)
		fputs("    prologue\n", o);
	names_print(o, "    early ", &c->early);
	names_print(o, "    zeroed ", &c->zeroed);
	requires_print(o, &c->requires);
	for (int i = 0; i < c->params.n; i++) {
		const Param *p = c->params.v[i];
		fprintf(o, "    param %s: ", p->name);
		type_print(o, p->ty);
		span(o, p->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < c->ports.n; i++) {
		const Port *p = c->ports.v[i];
		fprintf(o, "    %s %s%s: ", p->dir == PORT_IN ? "in" : "out", p->ty->k == TY_HOOK ? "hook " : "",
		        p->name);
		type_print(o, p->ty);
		if (p->per) {
			fputs(" per ", o);
			expr_print(o, p->per);
		}
		if (p->handoff)
			fputs(" handoff", o);
		if (p->split)
			fputs(" split", o);
		if (p->merge)
			fprintf(o, " merge %s", p->merge);
		if (p->ahead) {
			fputs(" ahead(", o);
			expr_print(o, p->ahead);
			fputc(')', o);
		}
		span(o, p->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < c->keeps.n; i++) {
		const Keep *kp = c->keeps.v[i];
		fprintf(o, "    regs %s: ", kp->name);
		expr_print(o, kp->words);
		span(o, kp->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < c->smem.n; i++) {
		const Smem *s = c->smem.v[i];
		fprintf(o, "    smem %s: ", s->name);
		expr_print(o, s->size);
		fputs(" bytes", o);
		if (s->align) {
			fputs(", align ", o);
			expr_print(o, s->align);
		}
		if (s->live)
			fprintf(o, ", live %s", s->live);
		span(o, s->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < c->barriers.n; i++) {
		const Barrier *b = c->barriers.v[i];
		fprintf(o, "    barrier %s", b->name);
		if (b->threads) {
			fputs(": ", o);
			expr_print(o, b->threads);
		}
		span(o, b->sp);
		fputc('\n', o);
	}
}

static void kernel(FILE *o, const Kernel *k)
{
	fprintf(o, "  kernel %s", k->name);
	span(o, k->sp);
	fputc('\n', o);
	for (int i = 0; i < k->params.n; i++) {
		const KParam *p = k->params.v[i];
		fprintf(o, "    param %s: ", p->name);
		type_print(o, p->ty);
		span(o, p->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < k->consts.n; i++) {
		const Const *c = k->consts.v[i];
		fprintf(o, "    const %s = ", c->name);
		expr_print(o, c->val);
		span(o, c->sp);
		fputc('\n', o);
	}
	requires_print(o, &k->requires);
	for (int i = 0; i < k->policies.n; i++) {
		const Policy *p = k->policies.v[i];
		fprintf(o, "    grid %s", p->name);
		if (p->sub)
			fprintf(o, " %s", p->sub);
		if (p->args.n)
			exprs(o, &p->args, "(", ")");
		span(o, p->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < k->insts.n; i++) {
		const Inst *n = k->insts.v[i];
		fprintf(o, "    inst %s = %s(", n->name, n->comp);
		args(o, &n->args);
		fputc(')', o);
		span(o, n->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < k->conns.n; i++) {
		const Conn *c = k->conns.v[i];
		fprintf(o, "    conn %s.%s -> %s.%s", c->from.inst, c->from.port, c->to.inst, c->to.port);
		if (c->stages || c->attrs.n) {
			fputs(" [", o);
			if (c->stages) {
				fputs("stages = ", o);
				expr_print(o, c->stages);
			}
			if (c->stages && c->attrs.n)
				fputs(", ", o);
			args(o, &c->attrs);
			fputc(']', o);
		}
		span(o, c->sp);
		fputc('\n', o);
	}
}

static void select_dump(FILE *o, const Select *s)
{
	fprintf(o, "  select %s", s->name);
	span(o, s->sp);
	fputc('\n', o);
	for (int i = 0; i < s->params.n; i++) {
		const KParam *p = s->params.v[i];
		fprintf(o, "    param %s: ", p->name);
		type_print(o, p->ty);
		span(o, p->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < s->branches.n; i++) {
		const Branch *b = s->branches.v[i];
		fputs(b->dflt ? "    else" : "    when ", o);
		for (int j = 0; j < b->conds.n; j++) {
			fputs(j ? ", " : "", o);
			require_print(o, b->conds.v[j], expr_print);
		}
		fprintf(o, ": %s", b->kernel);
		span(o, b->sp);
		fputc('\n', o);
	}
}

static void mitems_dump(FILE *o, const Vec *items, int depth)
{
	for (int i = 0; i < items->n; i++) {
		const MItem *m = items->v[i];
		fprintf(o, "%*s", 4 + 2 * depth, "");
		switch (m->k) {
		case MI_CONST:
			fprintf(o, "const %s = ", m->name);
			expr_print(o, m->val);
			break;
		case MI_BUFFER:
			fprintf(o, "buffer %s: ", m->name);
			type_print(o, m->ty);
			break;
		case MI_GRID:
			fprintf(o, "grid %s(", m->name);
			expr_print(o, m->val);
			fputc(')', o);
			break;
		case MI_OP:
			fprintf(o, "op %s = %s(", m->name, m->kernel);
			for (int j = 0; j < m->args.n; j++) {
				const OpArg *a = m->args.v[j];
				fprintf(o, "%s%s = ", j ? ", " : "", a->name);
				expr_print(o, a->val);
				if (a->index) {
					fputc('[', o);
					expr_print(o, a->index);
					fputc(']', o);
				}
			}
			fputc(')', o);
			break;
		case MI_FOR:
			fprintf(o, "for %s < ", m->name);
			expr_print(o, m->val);
			break;
		}
		span(o, m->sp);
		fputc('\n', o);
		if (m->k == MI_FOR)
			mitems_dump(o, &m->body, depth + 1);
	}
}

static void mega_dump(FILE *o, const Mega *mk)
{
	fprintf(o, "  megakernel %s", mk->name);
	span(o, mk->sp);
	fputc('\n', o);
	for (int i = 0; i < mk->params.n; i++) {
		const KParam *p = mk->params.v[i];
		fprintf(o, "    param %s: ", p->name);
		type_print(o, p->ty);
		span(o, p->sp);
		fputc('\n', o);
	}
	mitems_dump(o, &mk->items, 0);
}

void ast_dump(FILE *o, const Module *m)
{
	fprintf(o, "module %s\n", m->path);
	for (int i = 0; i < m->uses.n; i++) {
		const Use *u = m->uses.v[i];
		fprintf(o, "  use %s", u->object ? "object " : "");
		str_print(o, u->path);
		span(o, u->sp);
		fputc('\n', o);
	}
	for (int i = 0; i < m->comps.n; i++)
		component(o, m->comps.v[i]);
	for (int i = 0; i < m->kernels.n; i++)
		kernel(o, m->kernels.v[i]);
	for (int i = 0; i < m->selects.n; i++)
		select_dump(o, m->selects.v[i]);
	for (int i = 0; i < m->megas.n; i++)
		mega_dump(o, m->megas.v[i]);
}

/* A number as a C operand: parenthesised when negative. */
/* ll: as a long long literal (1LL), so that what it meets is computed
 * in long long */
static void print_cnum(FILE *out, int64_t v, int ll)
{
	const char *sfx = ll ? "LL" : "";
	if (v == INT64_MIN)   /* no literal spells it */
		fprintf(out, "(-9223372036854775807%s - 1)", sfx);
	else
		fprintf(out, v < 0 ? "(%lld%s)" : "%lld%s", (long long)v, sfx);
}

static void print_c(FILE *out, const Expr *e, NamePrint name, int (*nonneg)(const void *, const Expr *),
                    const void *ud, int ll)
{
#define SUB(x) print_c(out, (x), name, nonneg, ud, ll)
	switch (e->k) {
	case EX_NUM:
		print_cnum(out, e->num, ll);
		break;
	case EX_NAME:
		if (name)
			name(out, e, ud);
		else
			fputs(e->name, out);
		break;
	case EX_NEG:
		fputs("(-", out); SUB(e->a); fputc(')', out);
		break;
	case EX_BIN:
		fputc('(', out); SUB(e->a); fprintf(out, " %c ", e->op); SUB(e->b); fputc(')', out);
		break;
	case EX_CALL: {
		if (!builtin_call(e)) {   /* eval.c reports it; nvcc will too */
			fprintf(out, "%s()", e->name);
			break;
		}
		const Expr *a = e->args.v[0], *b = e->args.v[1];
		if (e->fn == FN_CEIL_DIV && nonneg && nonneg(ud, a) && nonneg(ud, b)) {   /* the glue's short form */
			fputs("(((", out); SUB(a); fputs(") + (", out); SUB(b); fputs(") - 1) / (", out);
			SUB(b); fputs("))", out);   /* whole: `x * ceil_div(..)` must not divide the product */
		} else if (e->fn == FN_CEIL_DIV && nonneg) {   /* toward +inf, any signs: the glue's general form */
			fputs("(", out); SUB(a); fputs(" / ", out); SUB(b); fputs(" + (((", out); SUB(b); fputs(") > 0 ? (", out);
			SUB(a); fputs(" % ", out); SUB(b); fputs(") : -(", out); SUB(a); fputs(" % ", out); SUB(b);
			fputs(")) > 0))", out);
		} else if (e->fn == FN_CEIL_DIV) {   /* toward +inf, any signs (the headers, for #if too; their
			                                     * text is in every object's key, so it stays as it was) */
			fputc('(', out); SUB(a); fputs(" / ", out); SUB(b);
			fputs(" + (", out); SUB(a); fputs(" % ", out); SUB(b);
			fputs(" != 0 && (", out); SUB(a); fputs(" < 0) == (", out); SUB(b); fputs(" < 0)))", out);
		} else {
			fputc('(', out); SUB(a); fputs(e->fn == FN_MAX ? " > " : " < ", out);
			SUB(b); fputs(" ? ", out); SUB(a); fputs(" : ", out); SUB(b); fputc(')', out);
		}
		break;
	}
	case EX_AUTO:
		fputs("auto", out);   /* not a constant: check.c reports it */
		break;
	}
#undef SUB
}

void expr_print_c(FILE *out, const Expr *e, NamePrint name, int (*nonneg)(const void *, const Expr *),
                  const void *ud)
{
	print_c(out, e, name, nonneg, ud, 0);
}

void expr_print_c_ll(FILE *out, const Expr *e, NamePrint name, int (*nonneg)(const void *, const Expr *),
                     const void *ud)
{
	print_c(out, e, name, nonneg, ud, 1);
}
