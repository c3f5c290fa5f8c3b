/* parser.y: the .plk grammar (Bison, pure, with locations and LAC).
 *
 * Each rule carries its production from docs/language.md. Recovery: a bad
 * item, component item or kernel item is skipped up to the next token
 * that can start one, so one run reports several errors. Syntax errors
 * are reported by yyreport_syntax_error below, in the diagnostics style
 * of diag.c: what was found, what was expected, and a help line where a
 * likely fix is known (a misspelled keyword, a missing bracket). */

%code requires {
#include "plk.h"
typedef struct Lexer Lexer;
}

%code top {
#include <stdlib.h>
#include <string.h>
}

%code {
#include "lexer.h"
int yylex(YYSTYPE *lval, Span *lloc, Lexer *lx);
static void yyerror(Span *loc, Lexer *lx, const char *msg);

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                         \
	do {                                                                    \
		if (N) {                                                            \
			(Cur) = span_join(YYRHSLOC(Rhs, 1), YYRHSLOC(Rhs, N));          \
		} else {                                                            \
			(Cur) = YYRHSLOC(Rhs, 0);                                       \
			(Cur).off = (Cur).end;                                          \
			(Cur).line = (Cur).eline;                                       \
			(Cur).col = (Cur).ecol;                                         \
		}                                                                   \
	} while (0)

#define A (lx->c->arena)
#define NEW(T) ((T *)arena_alloc(A, sizeof(T)))

enum { MAX_EXPR_DEPTH = 200 };

static Expr *mk_expr(Lexer *lx, ExprKind k, Span sp)
{
	Expr *e = NEW(Expr);
	e->k = k;
	e->sp = sp;
	return e;
}

/* Expressions are trees: cap their depth so that every later recursive
 * walk (eval, dump) stays within a small stack. */
static int expr_depth(const Expr *e)
{
	return e ? e->depth : 0;
}

static Expr *mk_bin(Lexer *lx, int op, Expr *a, Expr *b, Span sp)
{
	Expr *e = mk_expr(lx, EX_BIN, sp);
	int d = 1 + (expr_depth(a) > expr_depth(b) ? expr_depth(a) : expr_depth(b));
	e->op = op;
	e->depth = d;
	e->a = a;
	e->b = b;
	if (d == MAX_EXPR_DEPTH) {
		Diag *dg = diag_new(lx->c, DIAG_ERROR, "E0116", sp,
			"expression nested more than %d levels deep", MAX_EXPR_DEPTH);
		diag_help(dg, "split it with `const` names");
		diag_end(lx->c, dg);
	}
	return e;
}

static Type *mk_type(Lexer *lx, TypeKind k, Span sp)
{
	Type *t = NEW(Type);
	t->k = k;
	t->sp = sp;
	return t;
}
}

%define api.pure full
%define api.location.type {Span}
%define parse.error custom
%define parse.lac full
%locations
%lex-param {Lexer *lx}
%parse-param {Lexer *lx}
%initial-action { @$ = span_none; @$.src = lx->src; @$.line = @$.eline = 1; @$.col = @$.ecol = 1; }

%union {
	int64_t num;
	const char *str;
	Expr *expr;
	Type *type;
	Field *field;
	Vec vec;
	Component *comp;
	Kernel *kernel;
	Policy *policy;
	Arg *arg;
	PortRef pref;
	Port *port;
	int dir;
	Require *req;
	Select *sel;
	Branch *branch;
	Mega *mega;
	OpArg *oarg;
}

%token END 0 "end of file"
%token KW_USE "use" KW_OBJECT "object" KW_COMPONENT "component" KW_KERNEL "kernel"
%token KW_SOURCE "source" KW_ENTRY "entry" KW_ARCH "arch" KW_NEEDS "needs"
%token KW_WARPS "warps" KW_WARPGROUPS "warpgroups" KW_REGS "regs" KW_PARAM "param"
%token KW_IN "in" KW_OUT "out" KW_SMEM "smem" KW_BYTES "bytes" KW_ALIGN "align"
%token KW_LIVE "live" KW_BARRIER "barrier" KW_CONST "const" KW_GRID "grid"
%token KW_RASTER "raster" KW_AUTO "auto" KW_X "x" KW_TILE "tile" KW_FRAG "frag"
%token KW_TENSOR "tensor" KW_TENSORMAP "tensormap" KW_PER "per" KW_CLUSTER "cluster"
%token KW_HANDOFF "handoff" KW_REQUIRE "require" KW_HOOK "hook" KW_SELECT "select"
%token KW_ENGINE "engine" KW_PROLOGUE "prologue" KW_EARLY "early" KW_ZEROED "zeroed"
%token KW_WHEN "when" KW_ELSE "else" KW_SPLIT "split" KW_MERGE "merge" KW_AHEAD "ahead"
%token KW_MEGAKERNEL "megakernel" KW_OP "op" KW_BUFFER "buffer" KW_FOR "for" KW_PTR "ptr"
%token <str> IDENT "identifier" STRING "string" ARCH "arch name"
%token <num> INT "integer"
%token ARROW "->" GE ">=" LE "<=" EQ "==" NE "!="

%type <expr> expr term unary primary
%type <vec> exprs exprs_opt fields args args_opt wconds
%type <type> ptype porttype hooktype
%type <field> field
%type <comp> component citems
%type <kernel> kernel kitems
%type <policy> policy
%type <arg> arg
%type <pref> portref
%type <dir> dir relop
%type <req> cond
%type <port> port
%type <sel> select branches
%type <branch> branch
%type <mega> megakernel
%type <vec> mitems mitem mconsts oargs oargs_opt
%type <oarg> oarg

%%

/* file = { item } . */
file
	: %empty
	| file item
	;

/* item = use | component | kernel | select | megakernel | ";" . */
item
	: use
	| component  { vec_push(A, &lx->mod->comps, $1); }
	| kernel     { vec_push(A, &lx->mod->kernels, $1); }
	| select     { vec_push(A, &lx->mod->selects, $1); }
	| megakernel { vec_push(A, &lx->mod->megas, $1); }
	| ';'
	| error
	;

/* use = "use" [ "object" ] STRING . */
use
	: "use" STRING {
		Use *u = NEW(Use);
		u->path = $2; u->sp = @$; u->path_sp = @2;
		vec_push(A, &lx->mod->uses, u);
	}
	| "use" "object" STRING {
		Use *u = NEW(Use);
		u->path = $3; u->sp = @$; u->path_sp = @3; u->object = 1;
		vec_push(A, &lx->mod->uses, u);
	}
	;

/* component = "component" IDENT [ "(" [ cparam { "," cparam } ] ")" ] "{" { citem } "}" . */
component
	: "component" IDENT cparams_opt '{' citems '}' {
		$$ = $5;
		$$->name = $2; $$->name_sp = @2; $$->sp = @$;
		$$->file = lx->c->srcs[lx->src]->path;
	}
	;

cparams_opt
	: %empty
	| '(' ')'
	| '(' cparams ')'
	;

cparams
	: cparam
	| cparams ',' cparam
	;

/* cparam = IDENT [ "=" expr ] .  The Component is created by citems,
 * after the parameters: they wait in lx->pending_cparams. */
cparam
	: IDENT {
		CParam *p = NEW(CParam);
		p->name = $1; p->sp = @$;
		vec_push(A, &lx->pending_cparams, p);
	}
	| IDENT '=' expr {
		CParam *p = NEW(CParam);
		p->name = $1; p->sp = @$; p->def = $3;
		vec_push(A, &lx->pending_cparams, p);
	}
	;

/* { citem } */
citems
	: %empty {
		$$ = lx->comp = NEW(Component);
		$$->cparams = lx->pending_cparams;
		memset(&lx->pending_cparams, 0, sizeof lx->pending_cparams);
	}
	| citems citem { $$ = $1; }
	;

/* citem = "source" STRING | "entry" IDENT | "arch" ">=" ARCH [ "needs" IDENT { "," IDENT } ]
 *       | "warps" expr | "warpgroups" expr | "regs" expr | "regs" IDENT ":" expr | "param" IDENT ":" ptype
 *       | port { "handoff" | "split" | "merge" IDENT | "ahead" [ "(" expr ")" ] }
 *                                                        (port: a tile, frag or bundle port, or a hook)
 *       | "smem" IDENT ":" expr "bytes" { "," smemattr } | "barrier" IDENT [ ":" expr ]
 *       | "cluster" expr [ "x" expr ] | "require" cond { "," cond }
 *       | "engine" IDENT | "prologue" | "early" IDENT { "," IDENT }
 *       | "zeroed" IDENT { "," IDENT } | ";" . */
citem
	: "source" STRING    { Component *c = lx->comp; c->source = $2; c->source_sp = @2; }
	| "entry" IDENT      { Component *c = lx->comp; c->entry = $2; c->entry_sp = @2; }
	| "arch" GE ARCH needs_opt {
		Component *c = lx->comp; c->arch_min = $3; c->arch_sp = @3;
		c->features = lx->pending_features;
		memset(&lx->pending_features, 0, sizeof lx->pending_features);
	}
	| "warps" expr       { Component *c = lx->comp; c->warps = $2; c->warpgroups = 0; }
	| "warpgroups" expr  { Component *c = lx->comp; c->warps = $2; c->warpgroups = 1; }
	| "regs" expr        { Component *c = lx->comp; c->regs = $2; }
	| "regs" IDENT ':' expr {   /* registers the glue keeps for the component across its calls */
		Keep *kp = NEW(Keep);
		kp->name = $2; kp->sp = @$; kp->words = $4;
		vec_push(A, &lx->comp->keeps, kp);
	}
	| "cluster" expr     { Component *c = lx->comp; c->cluster = $2; c->cluster_sp = @$; }
	| "cluster" expr "x" expr {
		Component *c = lx->comp; c->cluster = $2; c->cluster_y = $4; c->cluster_sp = @$;
	}
	| "engine" IDENT     { Component *c = lx->comp; c->engine = $2; c->engine_sp = @2; }
	| "prologue"         { Component *c = lx->comp; c->prologue = 1; c->prologue_sp = @$; }
	| "early"  { lx->names = &lx->comp->early; } param_names
	| "zeroed" { lx->names = &lx->comp->zeroed; } param_names
	| "require" conds
	| "param" IDENT ':' ptype {
		Param *p = NEW(Param);
		p->name = $2; p->sp = @$; p->ty = $4;
		vec_push(A, &lx->comp->params, p);
	}
	| port
	| port portattrs
	| "smem" IDENT ':' expr "bytes" {
		Smem *s = NEW(Smem);
		s->name = $2; s->sp = span_join(@1, @5); s->size = $4;
		vec_push(A, &lx->comp->smem, s);
		lx->last_smem = s;
	  } smemattrs
	| "barrier" IDENT {
		Barrier *b = NEW(Barrier);
		b->name = $2; b->sp = @$;
		vec_push(A, &lx->comp->barriers, b);
	}
	| "barrier" IDENT ':' expr {
		Barrier *b = NEW(Barrier);
		b->name = $2; b->sp = @$; b->threads = $4;
		vec_push(A, &lx->comp->barriers, b);
	}
	| ';'
	| error
	;

/* { "handoff" | "split" | "merge" IDENT | "ahead" [ "(" expr ")" ] }: attributes of the port just
 * parsed (lx->last_port) */
portattrs
	: portattr
	| portattrs portattr
	;

portattr
	: "handoff" { lx->last_port->handoff = 1; lx->last_port->handoff_sp = @1; }
	| "split"   { lx->last_port->split = 1; lx->last_port->split_sp = @1; }
	| "merge" IDENT { lx->last_port->merge = $2; lx->last_port->merge_sp = span_join(@1, @2); }
	| "ahead"   {
		Expr *one = mk_expr(lx, EX_NUM, @1);
		one->num = 1, one->depth = 1;
		lx->last_port->ahead = one; lx->last_port->ahead_sp = @1;
	}
	| "ahead" '(' expr ')' { lx->last_port->ahead = $3; lx->last_port->ahead_sp = @$; }
	;

/* port = ( "in" | "out" ) IDENT ":" porttype [ "per" expr ]
 *      | "in" "hook" IDENT ":" hooktype | "out" "hook" IDENT ":" hooktype "=" IDENT . */
port
	: dir IDENT ':' porttype {
		Port *p = NEW(Port);
		p->dir = (PortDir)$1; p->name = $2; p->sp = @$; p->ty = $4;
		vec_push(A, &lx->comp->ports, p);
		$$ = lx->last_port = p;
	}
	| dir IDENT ':' porttype "per" expr {
		Port *p = NEW(Port);
		p->dir = (PortDir)$1; p->name = $2; p->sp = @$; p->ty = $4; p->per = $6;
		vec_push(A, &lx->comp->ports, p);
		$$ = lx->last_port = p;
	}
	| "in" "hook" IDENT ':' hooktype {
		Port *p = NEW(Port);
		p->dir = PORT_IN; p->name = $3; p->sp = @$; p->ty = $5;
		vec_push(A, &lx->comp->ports, p);
		$$ = lx->last_port = p;
	}
	| "out" "hook" IDENT ':' hooktype '=' IDENT {
		Port *p = NEW(Port);
		p->dir = PORT_OUT; p->name = $3; p->sp = @$; p->ty = $5;
		p->ty->base = $7; p->ty->base_sp = @7;
		vec_push(A, &lx->comp->ports, p);
		$$ = lx->last_port = p;
	}
	;

/* hooktype = IDENT [ "<" shape ">" ] .  (the kind, and its index space) */
hooktype
	: IDENT {
		$$ = mk_type(lx, TY_HOOK, @$); $$->hook = $1; $$->hook_sp = @1;
	}
	| IDENT '<' expr "x" expr '>' {
		$$ = mk_type(lx, TY_HOOK, @$); $$->hook = $1; $$->hook_sp = @1;
		$$->rows = $3; $$->cols = $5;
	}
	;

dir
	: "in"  { $$ = PORT_IN; }
	| "out" { $$ = PORT_OUT; }
	;

/* "require" cond { "," cond } : each cond goes to the component */
conds
	: cond           { vec_push(A, &lx->comp->requires, $1); }
	| conds ',' cond { vec_push(A, &lx->comp->requires, $3); }
	;

/* cond = expr relop expr | expr "in" "{" expr { "," expr } "}" . */
cond
	: expr relop expr {
		$$ = NEW(Require);
		$$->lhs = $1; $$->op = (ReqOp)$2; $$->rhs = $3; $$->sp = @$;
	}
	| expr "in" '{' exprs '}' {
		$$ = NEW(Require);
		$$->lhs = $1; $$->op = REQ_IN; $$->set = $4; $$->sp = @$;
	}
	;

/* relop = "==" | "!=" | "<" | "<=" | ">" | ">=" . */
relop
	: EQ  { $$ = REQ_EQ; }
	| NE  { $$ = REQ_NE; }
	| '<' { $$ = REQ_LT; }
	| LE  { $$ = REQ_LE; }
	| '>' { $$ = REQ_GT; }
	| GE  { $$ = REQ_GE; }
	;

/* [ "needs" IDENT { "," IDENT } ] */
/* names = IDENT { "," IDENT } .  (the params `early` lists, read before
 * the component calls plk_wait_inputs: docs/megakernel.md, "Early reads";
 * or `zeroed`, memory that is zero when the kernel starts and that the
 * component leaves zero: "Zeroed params") */
param_names
	: param_name
	| param_names ',' param_name
	;

param_name
	: IDENT {
		Feature *f = NEW(Feature);
		f->name = $1; f->sp = @1;
		vec_push(A, lx->names, f);
	}
	;

needs_opt
	: %empty
	| "needs" features
	;

features
	: feature
	| features ',' feature
	;

feature
	: IDENT {
		Feature *f = NEW(Feature);
		f->name = $1; f->sp = @1;
		vec_push(A, &lx->pending_features, f);
	}
	;

/* smemattr = "align" expr | "live" ( IDENT | "prologue" ) .  (the smem
 * item's mid-rule action pushed the buffer; its attributes go to
 * lx->last_smem. `prologue` is a keyword, the `prologue` clause, and
 * also the name of a phase.) */
smemattrs
	: %empty
	| smemattrs ',' "align" expr { lx->last_smem->align = $4; }
	| smemattrs ',' "live" IDENT { lx->last_smem->live = $4; lx->last_smem->live_sp = @4; }
	| smemattrs ',' "live" "prologue" { lx->last_smem->live = "prologue"; lx->last_smem->live_sp = @4; }
	;

/* kernel = "kernel" IDENT "(" [ kparam { "," kparam } ] ")" "{" { kitem } "}" . */
kernel
	: "kernel" IDENT '(' kparams_opt ')' '{' kitems '}' {
		$$ = $7;
		$$->name = $2; $$->name_sp = @2; $$->sp = @$;
	}
	;

kparams_opt
	: %empty
	| kparams
	;

kparams
	: kparam
	| kparams ',' kparam
	;

/* kparam = IDENT ":" ptype . */
kparam
	: IDENT ':' ptype {
		KParam *p = NEW(KParam);
		p->name = $1; p->sp = @$; p->ty = $3;
		vec_push(A, &lx->pending_kparams, p);
	}
	;

kitems
	: %empty {
		$$ = lx->kernel = NEW(Kernel);
		$$->params = lx->pending_kparams;
		memset(&lx->pending_kparams, 0, sizeof lx->pending_kparams);
	}
	| kitems kitem { $$ = $1; }
	;

/* kitem = "const" IDENT "=" expr { "," IDENT "=" expr } | "grid" policy { "," policy }
 *       | "require" cond { "," cond }
 *       | IDENT "=" IDENT "(" [ arg { "," arg } ] ")"
 *       | portref "->" portref [ "[" arg { "," arg } "]" ] | ";" . */
kitem
	: "const" consts
	| "grid" policies
	| "require" wconds { for (int i = 0; i < $2.n; i++) vec_push(A, &lx->kernel->requires, $2.v[i]); }
	| IDENT '=' IDENT '(' args_opt ')' {
		Inst *i = NEW(Inst);
		i->name = $1; i->name_sp = @1; i->comp = $3; i->comp_sp = @3;
		i->args = $5; i->sp = @$;
		vec_push(A, &lx->kernel->insts, i);
	}
	| portref "->" portref {
		Conn *cn = NEW(Conn);
		cn->from = $1; cn->to = $3; cn->sp = @$;
		vec_push(A, &lx->kernel->conns, cn);
	}
	| portref "->" portref '[' args ']' {
		Conn *cn = NEW(Conn);
		cn->from = $1; cn->to = $3; cn->sp = @$;
		for (int i = 0; i < $5.n; i++) {
			Arg *a = $5.v[i];
			if (!strcmp(a->name, "stages") && !cn->stages)
				cn->stages = a->val;
			else
				vec_push(A, &cn->attrs, a);
		}
		vec_push(A, &lx->kernel->conns, cn);
	}
	| ';'
	| error
	;

/* select = "select" IDENT "(" [ kparam { "," kparam } ] ")" "{" { branch } "}" . */
select
	: "select" IDENT '(' kparams_opt ')' '{' branches '}' {
		$$ = $7;
		$$->name = $2; $$->name_sp = @2; $$->sp = @$;
	}
	;

/* megakernel = "megakernel" IDENT "(" [ kparam { "," kparam } ] ")" "{" { mitem } "}" .
 * Its parameters wait in lx->pending_kparams until the end: no mitem adds any. */
megakernel
	: "megakernel" IDENT '(' kparams_opt ')' '{' mitems '}' {
		$$ = NEW(Mega);
		$$->name = $2; $$->name_sp = @2; $$->sp = @$; $$->items = $7;
		$$->params = lx->pending_kparams;
		memset(&lx->pending_kparams, 0, sizeof lx->pending_kparams);
	}
	;

mitems
	: %empty { memset(&$$, 0, sizeof $$); }
	| mitems mitem { $$ = $1; for (int i = 0; i < $2.n; i++) vec_push(A, &$$, $2.v[i]); }
	;

/* mitem = "const" IDENT "=" expr { "," IDENT "=" expr }
 *       | "buffer" IDENT ":" ptype
 *       | "op" IDENT "=" IDENT "(" [ oarg { "," oarg } ] ")"
 *       | "for" IDENT "<" expr "{" { mitem } "}"
 *       | "grid" IDENT "(" expr ")"                  (* grid blocks(132) *)
 *       | ";" . */
mitem
	: "const" mconsts { $$ = $2; }
	| "buffer" IDENT ':' ptype {
		MItem *m = NEW(MItem);
		m->k = MI_BUFFER; m->name = $2; m->name_sp = @2; m->ty = $4; m->sp = @$;
		memset(&$$, 0, sizeof $$); vec_push(A, &$$, m);
	}
	| "op" IDENT '=' IDENT '(' oargs_opt ')' {
		MItem *m = NEW(MItem);
		m->k = MI_OP; m->name = $2; m->name_sp = @2; m->kernel = $4; m->kernel_sp = @4;
		m->args = $6; m->sp = @$;
		memset(&$$, 0, sizeof $$); vec_push(A, &$$, m);
	}
	| "for" IDENT '<' expr '{' mitems '}' {
		MItem *m = NEW(MItem);
		m->k = MI_FOR; m->name = $2; m->name_sp = @2; m->val = $4; m->body = $6; m->sp = @$;
		memset(&$$, 0, sizeof $$); vec_push(A, &$$, m);
	}
	| "grid" IDENT '(' expr ')' {
		MItem *m = NEW(MItem);
		m->k = MI_GRID; m->name = $2; m->name_sp = @2; m->val = $4; m->sp = @$;
		memset(&$$, 0, sizeof $$); vec_push(A, &$$, m);
	}
	| ';'   { memset(&$$, 0, sizeof $$); }
	| error { memset(&$$, 0, sizeof $$); }
	;

mconsts
	: IDENT '=' expr {
		MItem *m = NEW(MItem);
		m->k = MI_CONST; m->name = $1; m->name_sp = @1; m->val = $3; m->sp = @$;
		memset(&$$, 0, sizeof $$); vec_push(A, &$$, m);
	}
	| mconsts ',' IDENT '=' expr {
		MItem *m = NEW(MItem);
		m->k = MI_CONST; m->name = $3; m->name_sp = @3; m->val = $5; m->sp = span_join(@3, @5);
		$$ = $1; vec_push(A, &$$, m);
	}
	;

oargs_opt
	: %empty { memset(&$$, 0, sizeof $$); }
	| oargs
	;

oargs   /* recovery as args' */
	: oarg { memset(&$$, 0, sizeof $$); vec_push(A, &$$, $1); }
	| oargs ',' oarg { $$ = $1; vec_push(A, &$$, $3); }
	| error { memset(&$$, 0, sizeof $$); }
	| oargs ',' error { $$ = $1; }
	;

/* oarg = IDENT "=" expr | IDENT "=" IDENT "[" expr "]" . */
oarg
	: IDENT '=' expr { $$ = NEW(OpArg); $$->name = $1; $$->sp = @$; $$->val = $3; }
	| IDENT '=' IDENT '[' expr ']' {
		$$ = NEW(OpArg); $$->name = $1; $$->sp = @$;
		$$->val = mk_expr(lx, EX_NAME, @3); $$->val->name = $3; $$->index = $5;
	}
	;

/* { branch }: the Select is created first, with the parameters that
 * wait in lx->pending_kparams */
branches
	: %empty {
		$$ = NEW(Select);
		$$->params = lx->pending_kparams;
		memset(&lx->pending_kparams, 0, sizeof lx->pending_kparams);
	}
	| branches branch { $$ = $1; if ($2) vec_push(A, &$$->branches, $2); }
	;

/* branch = "when" cond { "," cond } ":" IDENT | "else" ":" IDENT | ";" . */
branch
	: "when" wconds ':' IDENT {
		$$ = NEW(Branch);
		$$->conds = $2; $$->kernel = $4; $$->kernel_sp = @4; $$->sp = @$;
	}
	| "else" ':' IDENT {
		$$ = NEW(Branch);
		$$->dflt = 1; $$->kernel = $3; $$->kernel_sp = @3; $$->sp = @$;
	}
	| ';'   { $$ = NULL; }
	| error { $$ = NULL; }
	;

/* cond { "," cond } */
wconds
	: cond            { memset(&$$, 0, sizeof $$); vec_push(A, &$$, $1); }
	| wconds ',' cond { $$ = $1; vec_push(A, &$$, $3); }
	;

consts
	: const1
	| consts ',' const1
	;

const1
	: IDENT '=' expr {
		Const *k = NEW(Const);
		k->name = $1; k->sp = @$; k->val = $3;
		vec_push(A, &lx->kernel->consts, k);
	}
	;

policies
	: policy { vec_push(A, &lx->kernel->policies, $1); }
	| policies ',' policy { vec_push(A, &lx->kernel->policies, $3); }
	;

/* policy = IDENT [ "(" [ expr { "," expr } ] ")" ] | "raster" IDENT [ "(" ... ")" ]
 *        | "cluster" "(" expr "," expr ")" | "split" "(" expr ")" . */
policy
	: IDENT { $$ = NEW(Policy); $$->name = $1; $$->sp = @$; }
	| IDENT '(' exprs_opt ')' { $$ = NEW(Policy); $$->name = $1; $$->sp = @$; $$->args = $3; }
	| "cluster" '(' exprs_opt ')' { $$ = NEW(Policy); $$->name = "cluster"; $$->sp = @$; $$->args = $3; }
	| "split" '(' exprs_opt ')' { $$ = NEW(Policy); $$->name = "split"; $$->sp = @$; $$->args = $3; }
	| "raster" IDENT { $$ = NEW(Policy); $$->name = "raster"; $$->sub = $2; $$->sp = @$; }
	| "raster" IDENT '(' exprs_opt ')' {
		$$ = NEW(Policy); $$->name = "raster"; $$->sub = $2; $$->sp = @$; $$->args = $4;
	}
	;

/* portref = IDENT "." IDENT . */
portref
	: IDENT '.' IDENT {
		$$.inst = $1; $$.port = $3; $$.sp = @$; $$.inst_sp = @1; $$.port_sp = @3;
	}
	;

args_opt
	: %empty { memset(&$$, 0, sizeof $$); }
	| args
	;

/* Recovery: a bad argument is skipped up to the `,` or the bracket that
 * ends it, so the arguments after it parse as themselves. */
args
	: arg { memset(&$$, 0, sizeof $$); vec_push(A, &$$, $1); }
	| args ',' arg { $$ = $1; vec_push(A, &$$, $3); }
	| error { memset(&$$, 0, sizeof $$); }
	| args ',' error { $$ = $1; }
	;

/* arg = IDENT "=" expr . */
arg
	: IDENT '=' expr { $$ = NEW(Arg); $$->name = $1; $$->sp = @$; $$->val = $3; }
	;

/* ptype = IDENT | "ptr" "<" [ "const" ] IDENT ">" | "tensor" "<" [ "const" ] IDENT ">" "[" expr { "," expr } "]"
 *       | "tensormap" "<" IDENT "," expr [ "," IDENT ] ">" [ "[" expr { "," expr } "]" ] . */
ptype
	: IDENT {
		$$ = mk_type(lx, TY_SCALAR, @$); $$->dtype = $1; $$->dtype_sp = @1;
	}
	| "ptr" '<' IDENT '>' {
		$$ = mk_type(lx, TY_PTR, @$); $$->dtype = $3; $$->dtype_sp = @3;
	}
	| "ptr" '<' "const" IDENT '>' {
		$$ = mk_type(lx, TY_PTR, @$); $$->dtype = $4; $$->dtype_sp = @4; $$->readonly = 1;
	}
	| "tensor" '<' IDENT '>' '[' exprs ']' {
		$$ = mk_type(lx, TY_TENSOR, @$); $$->dtype = $3; $$->dtype_sp = @3; $$->dims = $6;
	}
	| "tensor" '<' "const" IDENT '>' '[' exprs ']' {
		$$ = mk_type(lx, TY_TENSOR, @$); $$->dtype = $4; $$->dtype_sp = @4; $$->dims = $7; $$->readonly = 1;
	}
	| "tensormap" '<' IDENT ',' expr '>' {
		$$ = mk_type(lx, TY_TENSORMAP, @$); $$->dtype = $3; $$->dtype_sp = @3; $$->rank = $5;
	}
	| "tensormap" '<' IDENT ',' expr '>' '[' exprs ']' {
		$$ = mk_type(lx, TY_TENSORMAP, @$); $$->dtype = $3; $$->dtype_sp = @3; $$->rank = $5;
		$$->dims = $8;
	}
	| "tensormap" '<' IDENT ',' expr ',' IDENT '>' {
		$$ = mk_type(lx, TY_TENSORMAP, @$); $$->dtype = $3; $$->dtype_sp = @3; $$->rank = $5;
		$$->layout = $7; $$->layout_sp = @7;
	}
	| "tensormap" '<' IDENT ',' expr ',' IDENT '>' '[' exprs ']' {
		$$ = mk_type(lx, TY_TENSORMAP, @$); $$->dtype = $3; $$->dtype_sp = @3; $$->rank = $5;
		$$->layout = $7; $$->layout_sp = @7; $$->dims = $10;
	}
	;

/* porttype = "tile" "<" IDENT "," shape [ "," IDENT ] ">"
 *          | "frag" "<" IDENT "," shape "," IDENT ">" | "{" field { "," field } "}" .
 * shape = expr "x" expr . */
porttype
	: "tile" '<' IDENT ',' expr "x" expr '>' {
		$$ = mk_type(lx, TY_TILE, @$); $$->dtype = $3; $$->dtype_sp = @3;
		$$->rows = $5; $$->cols = $7;
	}
	| "tile" '<' IDENT ',' expr "x" expr ',' IDENT '>' {
		$$ = mk_type(lx, TY_TILE, @$); $$->dtype = $3; $$->dtype_sp = @3;
		$$->rows = $5; $$->cols = $7; $$->layout = $9; $$->layout_sp = @9;
	}
	| "frag" '<' IDENT ',' expr "x" expr ',' IDENT '>' {
		$$ = mk_type(lx, TY_FRAG, @$); $$->dtype = $3; $$->dtype_sp = @3;
		$$->rows = $5; $$->cols = $7; $$->layout = $9; $$->layout_sp = @9;
	}
	| '{' fields '}' {
		$$ = mk_type(lx, TY_BUNDLE, @$); $$->fields = $2;
	}
	;

fields
	: field { memset(&$$, 0, sizeof $$); vec_push(A, &$$, $1); }
	| fields ',' field { $$ = $1; vec_push(A, &$$, $3); }
	;

/* field = IDENT ":" porttype . */
field
	: IDENT ':' porttype { $$ = NEW(Field); $$->name = $1; $$->sp = @$; $$->ty = $3; }
	;

exprs_opt
	: %empty { memset(&$$, 0, sizeof $$); }
	| exprs
	;

exprs
	: expr { memset(&$$, 0, sizeof $$); vec_push(A, &$$, $1); }
	| exprs ',' expr { $$ = $1; vec_push(A, &$$, $3); }
	;

/* expr = term { ( "+" | "-" ) term } . */
expr
	: term
	| expr '+' term { $$ = mk_bin(lx, '+', $1, $3, @$); }
	| expr '-' term { $$ = mk_bin(lx, '-', $1, $3, @$); }
	;

/* term = unary { ( "*" | "/" | "%" ) unary } . */
term
	: unary
	| term '*' unary { $$ = mk_bin(lx, '*', $1, $3, @$); }
	| term '/' unary { $$ = mk_bin(lx, '/', $1, $3, @$); }
	| term '%' unary { $$ = mk_bin(lx, '%', $1, $3, @$); }
	;

/* unary = "-" unary | primary . */
unary
	: '-' unary {
		$$ = mk_expr(lx, EX_NEG, @$); $$->a = $2;
		$$->depth = expr_depth($2) + 1;
	}
	| primary
	;

/* primary = INT | IDENT | "auto" | IDENT "(" expr { "," expr } ")" | "(" expr ")" . */
primary
	: INT    { $$ = mk_expr(lx, EX_NUM, @$); $$->num = $1; }
	| IDENT  { $$ = mk_expr(lx, EX_NAME, @$); $$->name = $1; }
	| "auto" { $$ = mk_expr(lx, EX_AUTO, @$); }
	| IDENT '(' exprs ')' {
		$$ = mk_expr(lx, EX_CALL, @$); $$->name = $1; $$->fn = builtin_of($1); $$->args = $3;
	}
	| '(' expr ')' { $$ = $2; $$->sp = @$; }
	;

%%

/* Bison calls yyerror only for stack exhaustion: the grammar is nested
 * more deeply than the parser's stack allows. */
static void yyerror(Span *loc, Lexer *lx, const char *msg)
{
	Diag *d = diag_new(lx->c, DIAG_ERROR, "E0109", *loc, "input nested too deeply (%s)", msg);
	diag_help(d, "split deep expressions with `const` names");
	diag_end(lx->c, d);
}

/* A token's name for messages: `component`, identifier, `->`. Bison
 * gives keyword aliases without quotes and characters as 'c'. */
static const char *tok_name(Lexer *lx, yysymbol_kind_t k)
{
	const char *n = yysymbol_name(k);
	size_t len = strlen(n);
	if (k == YYSYMBOL_IDENT || k == YYSYMBOL_STRING || k == YYSYMBOL_INT ||
	    k == YYSYMBOL_ARCH || k == YYSYMBOL_YYEOF)
		return n;
	if (len >= 2 && (n[0] == '"' || n[0] == '\''))
		return arena_printf(A, "`%.*s`", (int)len - 2, n + 1);
	return arena_printf(A, "`%s`", n);
}

static int is_keyword(yysymbol_kind_t k)
{
	return k >= YYSYMBOL_KW_USE && k <= YYSYMBOL_KW_PTR;
}

static const char *token_text(Lexer *lx, Span sp)
{
	int n = sp.end - sp.off;
	if (n > 40)
		n = 40;
	return arena_strndup(A, lx->start + sp.off, (size_t)(n > 0 ? n : 0));
}

/* The decimal number before w when w is a size suffix (docs/language.md)
 * written apart from it on one line, `200 KiB`; else NULL. */
static const char *suffix_apart(Lexer *lx, Span w)
{
	static const char *const sfx[] = { "K", "KiB", "M", "MiB" };
	int is = 0;
	for (size_t i = 0; w.src == lx->src && i < sizeof sfx / sizeof *sfx; i++)
		is |= !strcmp(token_text(lx, w), sfx[i]);
	if (!is)
		return NULL;
	const char *b = lx->start, *e = b + w.off;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	const char *s = e;
	while (s > b && ((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '_'))
		s--;
	int word = s > b && ((s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= 'A' && s[-1] <= 'Z'));
	if (e == b + w.off || s == e || word || *s < '0' || *s > '9')
		return NULL;
	return arena_strndup(A, s, (size_t)(e - s));
}

static int yyreport_syntax_error(const yypcontext_t *ctx, Lexer *lx)
{
	enum { NEXP = YYNTOKENS };
	yysymbol_kind_t exp[NEXP];
	int n = yypcontext_expected_tokens(ctx, exp, NEXP);
	yysymbol_kind_t got = yypcontext_token(ctx);
	Span sp = *yypcontext_location(ctx);
	if (got == YYSYMBOL_YYerror)
		return 0;   /* the lexer already reported it */

	/* expected: `a`, `b` or `c` */
	char list[512] = "";
	size_t len = 0;
	int shown = n < 0 ? 0 : n > 7 ? 7 : n;
	for (int i = 0; i < shown; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
			i == 0 ? "" : i == shown - 1 && n <= 7 ? " or " : ", ", tok_name(lx, exp[i]));
	if (n > 7)
		snprintf(list + len, sizeof list - len, ", or one of %d more", n - 7);

	Diag *d;
	if (got == YYSYMBOL_YYEOF) {
		sp.end = sp.off;
		d = diag_new(lx->c, DIAG_ERROR, "E0110", sp, "unexpected end of file");
		diag_label(d, sp, n > 0 ? "expected %s" : "the file ends here", list);
		if (lx->depth > 0) {
			Span o = lx->open[lx->depth - 1];
			char oc = lx->open_ch[lx->depth - 1];
			char cc = oc == '{' ? '}' : oc == '(' ? ')' : ']';
			diag_label(d, o, "this `%c` is never closed", oc);
			diag_help(d, "add `%c` to close it", cc);
		}
	} else {
		d = diag_new(lx->c, DIAG_ERROR, "E0101", sp, "expected %s, found %s",
			n > 0 ? list : "something else", got == YYSYMBOL_IDENT || got == YYSYMBOL_INT ||
			got == YYSYMBOL_STRING || got == YYSYMBOL_ARCH
				? arena_printf(A, "%s `%s`", tok_name(lx, got), token_text(lx, sp))
				: tok_name(lx, got));
		diag_label(d, sp, "unexpected %s", tok_name(lx, got));
		/* a misspelled keyword: an identifier close to an expected one */
		if (got == YYSYMBOL_IDENT) {
			const char *kws[YYNTOKENS];
			int nk = 0;
			for (int i = 0; i < n; i++)
				if (is_keyword(exp[i]))
					kws[nk++] = yysymbol_name(exp[i]);
			const char *best = did_you_mean(token_text(lx, sp), kws, nk);
			if (best)
				diag_help(d, "a keyword is expected here: did you mean `%s`?", best);
		}
		/* a misspelled keyword one token back: `cosnt BM = 1` */
		if (lx->prev.src == lx->src && lx->prev.end > lx->prev.off) {
			static const char *const starts[] = {
				"const", "grid", "source", "entry", "arch", "warps", "warpgroups", "regs",
				"param", "smem", "barrier", "component", "kernel", "use", "require", "select", "when",
				"megakernel", "buffer",
			};
			const char *word = token_text(lx, lx->prev);
			const char *best = strlen(word) > 2 ? did_you_mean(word, starts, (int)(sizeof starts / sizeof starts[0]))
			                                    : NULL;
			if (best)
				diag_label(d, lx->prev, "did you mean `%s`?", best);
		}
		/* a range where a megakernel's `for` counts: `for l in 0 .. L` */
		if (got == YYSYMBOL_KW_IN)
			for (int i = 0; i < n; i++)
				if (exp[i] == YYTRANSLATE('<')) {
					diag_help(d, "a `for` counts from 0 to N - 1: `for %s < N`", token_text(lx, lx->prev));
					break;
				}
		/* `=` where a comparison goes: `require A = 1` */
		if (got == YYTRANSLATE('='))
			for (int i = 0; i < n; i++)
				if (exp[i] == YYSYMBOL_EQ) {
					diag_help(d, "compare with `==`: `=` only gives a value");
					break;
				}
		/* a size suffix apart from its number, `200 KiB`: found, or the
		 * token before it (a kernel reads `KiB` as the start of an item) */
		Span at = sp;
		const char *num = got == YYSYMBOL_IDENT ? suffix_apart(lx, sp) : NULL;
		if (!num && (num = suffix_apart(lx, lx->prev)))
			at = lx->prev;
		if (num) {
			if (at.off != sp.off)
				diag_label(d, at, "a size suffix apart from its number");
			diag_help(d, "a size is written with its suffix right after the digits: `%s%s`", num,
				token_text(lx, at));
		}
		/* two arguments without a comma between them */
		if (got == YYSYMBOL_IDENT && !num)
			for (int i = 0; i < n; i++)
				if (exp[i] == YYTRANSLATE(',')) {
					diag_help(d, "is a `,` missing before `%s`?", token_text(lx, sp));
					break;
				}
		/* a keyword where a name is expected */
		if (is_keyword(got)) {
			for (int i = 0; i < n; i++)
				if (exp[i] == YYSYMBOL_IDENT) {
					diag_help(d, "`%s` is a keyword and cannot be used as a name",
						yysymbol_name(got));
					break;
				}
		}
		if (got == YYTRANSLATE('}') || got == YYTRANSLATE(')') || got == YYTRANSLATE(']')) {
			int any_open = 0;
			for (int i = 0; i < n; i++)
				if (exp[i] == YYSYMBOL_IDENT || exp[i] == YYSYMBOL_INT)
					any_open = 1;
			if (any_open)
				diag_help(d, "something is missing before this %s", tok_name(lx, got));
		}
		/* the innermost open bracket, when closing it would be valid here */
		/* (the lookahead, when it opens a bracket, is already counted) */
		int top = lx->depth - 1 - (got == YYTRANSLATE('{') || got == YYTRANSLATE('(') || got == YYTRANSLATE('['));
		int closes = got == YYTRANSLATE('{') || got == YYTRANSLATE('}') || got == YYTRANSLATE(')') ||
			got == YYTRANSLATE(']') || got == YYTRANSLATE(';');
		if (top >= 0 && closes) {
			char oc = lx->open_ch[top];
			int cc = oc == '{' ? '}' : oc == '(' ? ')' : ']';
			for (int i = 0; i < n; i++)
				if (exp[i] == YYTRANSLATE(cc) && got != YYTRANSLATE(cc)) {
					diag_label(d, lx->open[top], "unclosed `%c`", oc);
					break;
				}
		}
		if (got == YYTRANSLATE('=') ) {
			for (int i = 0; i < n; i++)
				if (exp[i] == YYSYMBOL_ARROW)
					diag_help(d, "connections are written `a.port -> b.port`");
		}
	}
	diag_end(lx->c, d);
	return 0;
}

Module *parse_source(Ctx *c, int src)
{
	Lexer *lx = calloc(1, sizeof *lx);
	if (!lx)
		return NULL;
	lexer_init(lx, c, src);
	Module *m = arena_alloc(c->arena, sizeof *m);
	m->path = c->srcs[src]->path;
	m->src = src;
	lx->mod = m;

	/* An empty file (only blanks and comments) declares nothing. */
	const char *t = c->srcs[src]->text;
	size_t i = 0, n = c->srcs[src]->len;
	while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	if (i == n) {
		Span sp = { src, 0, 0, 1, 1, 1, 1 };
		Diag *d = diag_new(c, DIAG_ERROR, "E0113", sp, "`%s` is empty", m->path);
		diag_note(d, "a .plk file declares components and kernels");
		diag_help(d, "add a `component` or a `kernel`; see `plkc --explain E0113`");
		diag_end(c, d);
		free(lx);
		return m;
	}
	int before = c->nerrors;
	int rc = yyparse(lx);
	if (rc != 0 && c->nerrors == before)
		error_at(c, "E0101", span_none, "syntax error in `%s`", m->path);
	if (c->nerrors == before && !m->uses.n && !m->comps.n && !m->kernels.n && !m->selects.n) {
		Span sp = { src, 0, 0, 1, 1, 1, 1 };
		Diag *d = diag_new(c, DIAG_ERROR, "E0113", sp, "`%s` declares nothing", m->path);
		diag_note(d, "the file holds only comments and blanks");
		diag_help(d, "add a `component` or a `kernel`; see `plkc --explain E0113`");
		diag_end(c, d);
	}
	free(lx);
	return m;
}
