/* check_graph.c: connections joined into edges, instances put in
 * dataflow order, roles formed.
 *
 * A tile edge is a shared-memory ring, a frag edge a register handoff
 * between instances on the same warps. An instance with warps of its own
 * starts a role; one without joins the role of the frags it consumes. */
#include <string.h>
#include "check.h"

/* ---------------------------------------------------------- connections */

static GPort *resolve_ref(Chk *k, const PortRef *r, GInst **out)
{
	GInst *gi = inst_named(k, r->inst);
	*out = gi;
	if (!gi) {
		int n;
		const char **cands = names_of_vec(k, &k->k->insts, offsetof(Inst, name), &n);
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0303", r->inst_sp, "no instance named `%s`", r->inst);
		d->primary.msg = "unknown instance";
		help_similar(d, r->inst, cands, n, "instances of this kernel");
		diag_end(k->c, d);
		return NULL;
	}
	if (!gi->comp)
		return NULL;     /* unknown component: already reported */
	for (int i = 0; i < gi->comp->ports.n; i++) {
		const Port *p = gi->comp->ports.v[i];
		if (!strcmp(p->name, r->port))
			return i < gi->ports.n ? gi->ports.v[i] : NULL;
	}
	int n;
	const char **cands = names_of_vec(k, &gi->comp->ports, offsetof(Port, name), &n);
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0304", r->port_sp, "`%s` (a `%s`) has no port `%s`",
	                   r->inst, gi->comp->name, r->port);
	d->primary.msg = "unknown port";
	diag_label(d, gi->comp->name_sp, "`%s` declared here", gi->comp->name);
	help_similar(d, r->port, cands, n, "ports of the component");
	diag_end(k->c, d);
	return NULL;
}

/* `pingpong = N` on a ring: N in 2..4 (the rest is check_lanes's, once
 * roles exist). */
static void edge_lanes(Chk *k, GEdge *e, const Arg *a)
{
	int64_t n;
	if (eval_expr(k->c, a->val, &k->kscope, &n))
		return;
	e->lanes_sp = a->sp;
	if (e->kind != EDGE_RING) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", a->sp, "a register edge cannot be split into pingpong lanes");
		d->primary.msg = "`pingpong` given here";
		diag_label(d, e->fp->decl->sp, "`%s.%s` is a frag: it stays on its warps", e->from->name, e->fp->name);
		diag_help(d, "put `pingpong` on the ring that feeds the role (e.g. `load.ab -> mma.ab`)");
		diag_end(k->c, d);
		return;
	}
	if (n < 2 || n > 4) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", a->val->sp, "pingpong over %lld lanes", (long long)n);
		d->primary.msg = "must be in 2..4";
		diag_help(d, "`pingpong = 2`: two copies of the consumer's role take the work items in turn");
		diag_end(k->c, d);
		return;
	}
	e->lanes = (int)n;
}

/* A connection with a hook at either end: both hooks of one kind and one
 * index space, the consumer's connected once (an `out hook` may feed
 * several); a GHook in g->hooks, or reported. */
static void make_hook(Chk *k, const Conn *cn, GInst *fi, GPort *fp, GInst *ti, GPort *tp)
{
	if (fp->k != TY_HOOK || tp->k != TY_HOOK) {
		const GPort *h = fp->k == TY_HOOK ? fp : tp, *o = fp->k == TY_HOOK ? tp : fp;
		const PortRef *hr = h == fp ? &cn->from : &cn->to, *or = h == fp ? &cn->to : &cn->from;
		static const char *const kinds[] = { [TY_TILE] = "a tile", [TY_FRAG] = "a frag", [TY_BUNDLE] = "a bundle" };
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0308", cn->sp, "a hook cannot be connected to %s port",
		                   o->k <= TY_BUNDLE && kinds[o->k] ? kinds[o->k] : "a data");
		d->primary.msg = arena_printf(A(k), "`%s.%s` is a hook, `%s.%s` carries data", hr->inst, hr->port,
		                              or->inst, or->port);
		diag_label(d, h->decl->sp, "`%s.%s` is %s: a function call, not data", hr->inst, hr->port,
		           port_str(k, h));
		diag_label(d, o->decl->sp, "`%s.%s` is %s", or->inst, or->port, port_str(k, o));
		diag_help(d, "connect an `out hook` to an `in hook` of the same kind, and data ports to data ports");
		diag_end(k->c, d);
		((GPort *)o)->id = -1;   /* not again as unconnected */
		return;
	}
	if (tp->hk) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0314", cn->to.sp, "`%s.%s` is connected twice",
		                   cn->to.inst, cn->to.port);
		d->primary.msg = "connected again here";
		diag_label(d, tp->hk->sp, "first connected here");
		diag_help(d, "an `in hook` calls one provider; an `out hook` may feed several `in hook`s");
		diag_end(k->c, d);
		return;
	}
	if (fp->hook != tp->hook) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0354", cn->sp, "hook kind mismatch between `%s.%s` and `%s.%s`",
		                   cn->from.inst, cn->from.port, cn->to.inst, cn->to.port);
		d->primary.msg = arena_printf(A(k), "%s connected to %s", fp->hook->name, tp->hook->name);
		diag_label(d, fp->decl->ty->hook_sp, "`%s.%s` provides %s", cn->from.inst, cn->from.port, fp->hook->name);
		diag_label(d, tp->decl->ty->hook_sp, "`%s.%s` calls %s", cn->to.inst, cn->to.port, tp->hook->name);
		diag_note(d, "`%s`: %s", tp->hook->name, tp->hook->doc);
		diag_help(d, "connect a provider of `%s` to `%s.%s`", tp->hook->name, cn->to.inst, cn->to.port);
		diag_end(k->c, d);
		tp->id = -1;
		return;
	}
	if (fp->hook->shaped && (fp->hshape[0] != tp->hshape[0] || fp->hshape[1] != tp->hshape[1])) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0355", cn->sp, "hook index space mismatch between `%s.%s` and `%s.%s`",
		                   cn->from.inst, cn->from.port, cn->to.inst, cn->to.port);
		d->primary.msg = arena_printf(A(k), "%lld x %lld connected to %lld x %lld", (long long)fp->hshape[0],
		                              (long long)fp->hshape[1], (long long)tp->hshape[0], (long long)tp->hshape[1]);
		diag_label(d, fp->decl->ty->sp, "`%s.%s` is %s", cn->from.inst, cn->from.port, port_str(k, fp));
		diag_label(d, tp->decl->ty->sp, "`%s.%s` is %s", cn->to.inst, cn->to.port, port_str(k, tp));
		diag_note(d, "both ends must index the same space: a `%s` answers for blocks of one shape", fp->hook->name);
		diag_help(d, "give both instances the same constants (kernel `const`s are shared by every instance)");
		diag_end(k->c, d);
		tp->id = -1;
		return;
	}
	GHook *h = arena_alloc(A(k), sizeof *h);
	h->id = k->g->hooks.n;
	h->kind = fp->hook;
	h->from = fi, h->fp = fp;
	h->to = ti, h->tp = tp;
	h->sp = cn->sp;
	tp->hk = h;
	vec_push(A(k), &k->g->hooks, h);
	for (int i = 0; i < cn->attrs.n || cn->stages; i++) {
		Span at = cn->stages ? cn->stages->sp : ((const Arg *)cn->attrs.v[i])->sp;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0305", at, "a hook connection has no attributes");
		d->primary.msg = "given here";
		diag_help(d, "remove `[...]`: a hook is a call, with no ring to size or split");
		diag_end(k->c, d);
		break;
	}
}

/* One edge per connection whose ends resolve, face each other and agree
 * in type; a port of a failed connection gets id -1 (no second error). */
void make_edges(Chk *k)
{
	Graph *g = k->g;
	const Kernel *kn = k->k;
	for (int ci = 0; ci < kn->conns.n; ci++) {
		const Conn *cn = kn->conns.v[ci];
		GInst *fi, *ti;
		GPort *fp = resolve_ref(k, &cn->from, &fi);
		GPort *tp = resolve_ref(k, &cn->to, &ti);
		if (!fp || !tp) {
			/* the side that resolved counts as connected: no second error */
			if (fp) fp->id = -1;
			if (tp) tp->id = -1;
			continue;
		}
		if (fp->dir != PORT_OUT || tp->dir != PORT_IN) {
			const PortRef *r = fp->dir != PORT_OUT ? &cn->from : &cn->to;
			const GPort *p = fp->dir != PORT_OUT ? fp : tp;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0307", r->sp, "`%s.%s` is an `%s` port",
			                   r->inst, r->port, p->dir == PORT_IN ? "in" : "out");
			d->primary.msg = fp->dir != PORT_OUT ? "data cannot flow out of an input"
			                                     : "data cannot flow into an output";
			diag_label(d, p->decl->sp, "declared `%s` here", p->dir == PORT_IN ? "in" : "out");
			if (fp->dir != PORT_OUT && tp->dir != PORT_IN)
				diag_help(d, "swap the sides: `%s.%s -> %s.%s`", cn->to.inst, cn->to.port,
				          cn->from.inst, cn->from.port);
			else
				diag_help(d, "a connection goes from an `out` port to an `in` port");
			diag_end(k->c, d);
			fp->id = tp->id = -1;
			continue;
		}
		if (fp->id < 0 || tp->id < 0) {
			fp->id = tp->id = -1;   /* a port whose type failed: already reported */
			continue;
		}
		if (fp->k == TY_HOOK || tp->k == TY_HOOK) {
			make_hook(k, cn, fi, fp, ti, tp);
			continue;
		}
		for (int side = 0; side < 2; side++) {
			GPort *p = side ? tp : fp;
			if (!p->edge)
				continue;
			const PortRef *r = side ? &cn->to : &cn->from;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0314", r->sp, "`%s.%s` is connected twice",
			                   r->inst, r->port);
			d->primary.msg = "connected again here";
			diag_label(d, p->edge->sp, "first connected here");
			diag_help(d, "a port joins exactly one edge; to feed two consumers, add a component that copies");
			diag_end(k->c, d);
		}
		if (fp->edge || tp->edge) {
			if (!fp->edge) fp->id = -1;   /* reported once, not again as unconnected */
			if (!tp->edge) tp->id = -1;
			continue;
		}
		if (compare_ports(k, cn, fi, fp, ti, tp)) {
			fp->id = tp->id = -1;
			continue;
		}
		GEdge *e = arena_alloc(A(k), sizeof *e);
		e->id = g->edges.n;
		e->kind = fp->k == TY_FRAG ? EDGE_REGS : EDGE_RING;
		e->from = fi;
		e->to = ti;
		e->fp = fp;
		e->tp = tp;
		e->sp = cn->sp;
		e->slot_bytes = fp->bytes;
		e->lanes = 1;
		fp->edge = tp->edge = e;
		vec_push(A(k), &g->edges, e);
		for (int i = 0; i < cn->attrs.n; i++) {
			const Arg *a = cn->attrs.v[i];
			if (!strcmp(a->name, "pingpong")) {
				edge_lanes(k, e, a);
				continue;
			}
			static const char *const known[] = { "stages", "pingpong" };
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0305", a->sp, "connections have no attribute `%s`", a->name);
			d->primary.msg = "unknown attribute";
			help_similar(d, a->name, (const char **)known, 2, "connection attributes");
			diag_end(k->c, d);
		}
		if (cn->stages && e->kind == EDGE_REGS) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0319", cn->stages->sp,
			                   "a register edge has no stages");
			d->primary.msg = "`stages` given here";
			diag_label(d, fp->decl->sp, "`%s.%s` is a frag: it is handed over in registers", fi->name, fp->name);
			diag_help(d, "remove `stages`; only tile edges are shared-memory rings");
			diag_end(k->c, d);
		} else if (cn->stages && cn->stages->k != EX_AUTO) {
			int64_t s;
			if (eval_expr(k->c, cn->stages, &k->kscope, &s) == 0) {
				if (s < 1 || s > 64) {
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0319", cn->stages->sp,
					                   "a ring of %lld stages", (long long)s);
					d->primary.msg = "must be in 1..64";
					diag_help(d, "use `stages = auto` to let the placement choose");
					diag_end(k->c, d);
				} else {
					e->stages = (int)s;
				}
			}
		}
		if (e->kind == EDGE_REGS && fi->nwarps > 0 && ti->nwarps > 0) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0317", cn->sp,
			                   "a frag cannot pass between `%s` and `%s`: both have warps of their own",
			                   fi->name, ti->name);
			d->primary.msg = "register handoff needs the same warps on both sides";
			diag_label(d, fi->comp->warps->sp, "`%s` has its own warps", fi->comp->name);
			diag_label(d, ti->comp->warps->sp, "`%s` has its own warps", ti->comp->name);
			diag_help(d, "drop `warps` from `%s` so that it runs on `%s`'s warps, "
			          "or pass a tile through shared memory", ti->comp->name, fi->name);
			diag_end(k->c, d);
		}
	}
}

/* Every typed port joins an edge. */
void check_unconnected(Chk *k)
{
	for (int i = 0; i < k->g->insts.n; i++) {
		GInst *gi = k->g->insts.v[i];
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *p = gi->ports.v[j];
			if (p->edge || p->id < 0 || p->k == TY_HOOK)   /* hooks are optional */
				continue;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0315", gi->decl->sp,
			                   "%s port `%s.%s` is not connected", p->dir == PORT_IN ? "input" : "output",
			                   gi->name, p->name);
			d->primary.msg = arena_printf(A(k), "`%s` needs a connection for `%s`", gi->name, p->name);
			diag_label(d, p->decl->sp, "declared here");
			if (p->dir == PORT_IN)
				diag_help(d, "connect a producer: `SOME.out -> %s.%s`", gi->name, p->name);
			else
				diag_help(d, "connect a consumer: `%s.%s -> SOME.in`", gi->name, p->name);
			diag_end(k->c, d);
		}
	}
}

/* Kahn's algorithm over the edges; 0 and the order in *topo, or -1 after
 * reporting one cycle. */
static int toposort(Chk *k, GInst **topo)
{
	Graph *g = k->g;
	int n = g->insts.n, m = 0;
	int *indeg = arena_alloc(A(k), (n + 1) * sizeof *indeg);
	for (int i = 0; i < n; i++)
		((GInst *)g->insts.v[i])->id = i;
	for (int i = 0; i < g->edges.n; i++)
		indeg[((GEdge *)g->edges.v[i])->to->id]++;
	int progress = 1;
	char *done = arena_alloc(A(k), n + 1);
	while (progress) {
		progress = 0;
		for (int i = 0; i < n; i++) {      /* lowest declaration first: stable */
			if (done[i] || indeg[i])
				continue;
			done[i] = 1;
			topo[m++] = g->insts.v[i];
			for (int j = 0; j < g->edges.n; j++) {
				GEdge *e = g->edges.v[j];
				if (e->from->id == i)
					indeg[e->to->id]--;
			}
			progress = 1;
			break;
		}
	}
	if (m == n)
		return 0;
	/* walk back along in-edges among the remaining nodes until one repeats */
	int *onpath = arena_alloc(A(k), (n + 1) * sizeof *onpath);
	GEdge **via = arena_alloc(A(k), (n + 1) * sizeof *via);
	int cur = 0;
	while (done[cur])
		cur++;
	int step = 1;
	while (!onpath[cur]) {
		onpath[cur] = step++;
		for (int j = 0; j < g->edges.n; j++) {
			GEdge *e = g->edges.v[j];
			if (e->to->id == cur && !done[e->from->id]) {
				via[cur] = e;
				cur = e->from->id;
				break;
			}
		}
	}
	/* the cycle: from cur along via[] back to cur, edges reversed */
	GEdge *cyc[64];
	int nc = 0, x = cur;
	do {
		cyc[nc++] = via[x];
		x = via[x]->from->id;
	} while (x != cur && nc < 64);
	char *path = arena_printf(A(k), "%s", cyc[nc - 1]->from->name);
	for (int i = nc - 1; i >= 0; i--)
		path = arena_printf(A(k), "%s -> %s", path, cyc[i]->to->name);
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0316", cyc[0]->sp, "the dataflow has a cycle: %s", path);
	d->primary.msg = "this edge closes the cycle";
	for (int i = 1; i < nc && i < 4; i++)
		diag_label(d, cyc[i]->sp, "part of the cycle");
	diag_help(d, "components run in dataflow order; remove one of these edges");
	diag_end(k->c, d);
	return -1;
}

static void form_roles(Chk *k, GInst **topo)
{
	Graph *g = k->g;
	for (int i = 0; i < g->insts.n; i++) {
		GInst *gi = topo[i];
		if (!gi->comp || gi->nwarps < 0 || gi->hooks)   /* a hook provider runs on its callers' warps */
			continue;
		if (gi->nwarps > 0) {
			GRole *r = arena_alloc(A(k), sizeof *r);
			r->id = g->roles.n;
			r->nwarps = gi->nwarps;
			r->lanes = 1;
			gi->role = r->id;
			vec_push(A(k), &r->insts, gi);
			vec_push(A(k), &g->roles, r);
			continue;
		}
		GEdge *src = NULL;
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *p = gi->ports.v[j];
			if (p->dir != PORT_IN || !p->edge || p->edge->kind != EDGE_REGS)
				continue;
			GEdge *e = p->edge;
			if (e->from->role < 0)
				continue;    /* producer failed: already reported */
			if (src && src->from->role != e->from->role) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0348", gi->decl->sp,
				                   "`%s` consumes frags from two different warp roles", gi->name);
				d->primary.msg = "it cannot run on both";
				diag_label(d, src->sp, "`%s` runs on role %d", src->from->name, src->from->role);
				diag_label(d, e->sp, "`%s` runs on role %d", e->from->name, e->from->role);
				diag_help(d, "give `%s` warps of its own and pass tiles, or feed it from one role", gi->comp->name);
				diag_end(k->c, d);
				src = NULL;
				gi->nwarps = -1;
				break;
			}
			src = e;
		}
		if (gi->nwarps < 0)
			continue;
		int any = 0;
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *p = gi->ports.v[j];
			any |= p->dir == PORT_IN && p->k == TY_FRAG;
		}
		if (!src) {
			if (any)
				continue;    /* its frag input is unconnected: reported as E0315 */
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0318", gi->decl->sp,
			                   "`%s` has no warps to run on", gi->name);
			d->primary.msg = arena_printf(A(k), "`%s` declares no warps and consumes no frag", gi->comp->name);
			diag_label(d, gi->comp->name_sp, "`%s` declared here", gi->comp->name);
			diag_help(d, "add `warps N` to `%s`, or give it an `in` frag port fed by the component whose warps it shares",
			          gi->comp->name);
			diag_end(k->c, d);
			continue;
		}
		GRole *r = g->roles.v[src->from->role];
		gi->role = r->id;
		vec_push(A(k), &r->insts, gi);
	}
	for (int i = 0; i < g->roles.n; i++) {
		GRole *r = g->roles.v[i];
		GInst *owner = r->insts.v[0];
		r->regs = owner->regs;
		unsigned need = 0;
		for (int j = 0; j < r->insts.n; j++) {
			GInst *gi = r->insts.v[j];
			need |= gi->features;
			if (gi->regs)
				need |= FEAT_SETMAXNREG;
		}
		/* A `regs` budget alone only asks the placement to pad the role to a
		 * warpgroup; code that issues wgmma or setmaxnreg itself needs them all. */
		r->warpgroup_aligned = (need & (FEAT_WGMMA | FEAT_SETMAXNREG)) != 0;
		unsigned own = 0;
		for (int j = 0; j < r->insts.n; j++)
			own |= ((GInst *)r->insts.v[j])->features;
		if ((own & (FEAT_WGMMA | FEAT_SETMAXNREG)) && r->nwarps % 4) {
			GInst *why = owner;
			for (int j = 0; j < r->insts.n; j++)
				if (((GInst *)r->insts.v[j])->features & (FEAT_WGMMA | FEAT_SETMAXNREG))
					why = r->insts.v[j];
			int wg = why->features & FEAT_WGMMA;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0343", owner->decl->sp,
			                   "`%s` runs on %d warp%s, but %s needs whole warpgroups",
			                   owner->name, r->nwarps, r->nwarps == 1 ? "" : "s",
			                   wg ? "wgmma" : "setmaxnreg");
			d->primary.msg = arena_printf(A(k), "%d is not a multiple of 4", r->nwarps);
			diag_label(d, owner->comp->warps->sp, "warps declared here");
			if (why != owner)
				diag_label(d, why->decl->sp, "`%s` needs %s on these warps", why->name, wg ? "wgmma" : "setmaxnreg");
			diag_help(d, "use %d warps (or `warpgroups %d`)", (r->nwarps + 3) / 4 * 4, (r->nwarps + 3) / 4);
			diag_end(k->c, d);
		}
		/* frags: bytes per thread of the role */
		for (int j = 0; j < r->insts.n; j++) {
			GInst *gi = r->insts.v[j];
			for (int q = 0; q < gi->ports.n; q++) {
				GPort *p = gi->ports.v[q];
				if (p->k != TY_FRAG || p->id < 0)
					continue;
				GField *f = p->fields.v[0];
				const LayoutInfo *l = layout_lookup(f->layout);
				int64_t threads = (int64_t)r->nwarps * 32;
				int64_t atoms = (f->rows / l->atom_rows) * (f->cols / l->atom_cols);
				if (r->nwarps % l->atom_warps || f->bytes % threads ||
				    atoms % (r->nwarps / l->atom_warps ? r->nwarps / l->atom_warps : 1)) {
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0344", p->decl->ty->sp,
					                   "%s does not divide among the %d warps of `%s`'s role",
					                   field_str(k, f, 1), r->nwarps, gi->name);
					d->primary.msg = arena_printf(A(k), "%lld atoms of `%s`, each held by %d warp%s",
					                              (long long)atoms, l->name, l->atom_warps,
					                              l->atom_warps > 1 ? "s" : "");
					diag_label(d, owner->decl->sp, "the role has %d warps", r->nwarps);
					diag_help(d, "make the fragment a multiple of %d x %d per %d warp%s",
					          l->atom_rows, l->atom_cols, l->atom_warps, l->atom_warps > 1 ? "s" : "");
					diag_end(k->c, d);
					p->id = -1;
					continue;
				}
				p->bytes = (uint32_t)(f->bytes / threads);
				if (p->edge)
					p->edge->slot_bytes = p->bytes;
			}
			for (int q = 0; q < gi->bars.n; q++) {
				GBar *b = gi->bars.v[q];
				if (!b->threads)
					b->threads = r->nwarps * 32;
			}
		}
	}
}

/* Roles, and the instances renumbered in dataflow order; neither when
 * the dataflow has a cycle (reported). */
void make_roles(Chk *k)
{
	Ctx *c = k->c;
	Graph *g = k->g;
	GInst **topo = arena_alloc(c->arena, (g->insts.n + 1) * sizeof *topo);
	if (toposort(k, topo) == 0) {
		form_roles(k, topo);
		/* instances in dataflow order from here on */
		Vec v = { 0 };
		for (int i = 0; i < g->insts.n; i++) {
			topo[i]->id = i;
			vec_push(c->arena, &v, topo[i]);
		}
		g->insts = v;
	}
}
