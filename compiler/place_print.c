/* place_print.c: a Placement as text (--emit=placement) and as the JSON
 * object of the manifest's "placement" (docs/manifest.md). */
#include <stdlib.h>
#include "plk.h"

static const char *warp_range(Arena *a, int first, int n)
{
	if (n <= 0)
		return "-";
	return n == 1 ? arena_printf(a, "%d", first) : arena_printf(a, "%d-%d", first, first + n - 1);
}

void placement_print(FILE *out, const Placement *p)
{
	const Graph *g = p->g;
	const ArchInfo *arch = p->arch;
	Arena *a = arena_new();

	fprintf(out, "placement of %s for %s\n", g->k ? g->k->name : "kernel", arch->name);
	fprintf(out, "  block %d threads: %d warps", p->threads, p->nwarps);
	if (p->nwarpgroups)
		fprintf(out, ", %d warpgroups", p->nwarpgroups);
	fprintf(out, "; entry register cap %d\n", p->entry_regs);

	fprintf(out, "\ncomponents\n");
	fprintf(out, "  %-12s %-5s %-7s %s\n", "instance", "role", "warps", "regs");
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		const PRole *pr = in->role >= 0 && in->role < p->roles.n ? p->roles.v[in->role] : NULL;
		if (in->hooks) {   /* no role: its hooks run inside their callers */
			fprintf(out, "  %-12s %-5s %-7s %s\n", in->name, "-", "-", "- (hooks, on their callers' warps)");
			continue;
		}
		fprintf(out, "  %-12s %-5d %-7s %d%s\n", in->name, in->role,
			pr ? warp_range(a, pr->first_warp, pr->nwarps) : "-", pr ? pr->regs : 0,
			!pr ? "" : pr->role->regs ? " (setmaxnreg)" :
			p->nwarpgroups && p->wg_regs[pr->first_warp / 4] ? " (its warpgroup's setmaxnreg)" : " (entry cap)");
		int laned = pr && pr->role->lanes > 1;
		for (int j = 0; laned && j < p->roles.n; j++) {
			const PRole *l = p->roles.v[j];
			if (l->role == pr->role && l->lane)
				fprintf(out, "    lane %d on warps %s\n", l->lane, warp_range(a, l->first_warp, l->nwarps));
		}
		for (int j = 0; j < p->bufs.n; j++) {
			const PBuf *b = p->bufs.v[j];
			if (b->inst == in)
				fprintf(out, "    smem %-10s offset %-7u size %-7u align %-5u live %s\n",
					laned ? arena_printf(a, "%s[%d]", b->buf->name, b->lane) : b->buf->name,
					b->off, b->size, b->align, live_name(b->live));
		}
		for (int j = 0; j < p->bars.n; j++) {
			const PBar *b = p->bars.v[j];
			if (b->inst == in)
				fprintf(out, "    barrier %-7s id %-2d threads %d\n",
					laned ? arena_printf(a, "%s[%d]", b->bar->name, b->lane) : b->bar->name,
					b->id, b->threads);
		}
	}
	if (p->nwarpgroups) {
		fprintf(out, "\nwarpgroups\n");
		for (int j = 0; j < p->nwarpgroups; j++) {
			const char *who = "";
			for (int i = 0; i < p->roles.n; i++) {
				const PRole *pr = p->roles.v[i];
				if (pr->nwarps && pr->first_warp / 4 <= j && (pr->first_warp + pr->nwarps - 1) / 4 >= j)
					who = arena_printf(a, "%s%s%s%s", who, *who ? ", " : "", role_name(a, pr->role),
							   pr->role->lanes > 1 ? arena_printf(a, " (lane %d)", pr->lane) : "");
			}
			fprintf(out, "  %d  warps %-6s regs %-4d %-11s %s\n", j, warp_range(a, j * 4, 4),
				p->wg_regs[j] ? p->wg_regs[j] : p->entry_regs,
				p->wg_regs[j] ? "setmaxnreg" : "entry cap", *who ? who : "(idle)");
		}
	}

	fprintf(out, "\nchannels\n");
	int any = 0, ri = 0;
	for (int i = 0; i < g->edges.n; i++) {
		const GEdge *e = g->edges.v[i];
		any = 1;
		if (e->kind != EDGE_RING || ri >= p->rings.n || ((PRing *)p->rings.v[ri])->edge != e) {
			fprintf(out, "  %s: registers\n", edge_name(a, e));
			continue;
		}
		const PRing *r = p->rings.v[ri++];
		fprintf(out, "  %s: ring, %d stage%s%s\n", edge_name(a, r->edge), r->stages,
			r->stages == 1 ? "" : "s", r->auto_stages ? " (auto)" : "");
		fprintf(out, "    slot %u bytes, stride %u, align %u; slots at %u + s*%u\n",
			r->slot_bytes, r->slot_stride, r->slot_align, r->off, r->slot_stride);
		if (r->nfields > 1) {
			const GPort *pt = r->edge->fp ? r->edge->fp : r->edge->tp;
			fprintf(out, "    fields");
			for (int j = 0; j < r->nfields; j++)
				fprintf(out, " %s@%u", ((GField *)pt->fields.v[j])->name, r->field_off[j]);
			fputc('\n', out);
		}
		fprintf(out, "    mbarriers full %u + s*8 (arrivals %d), empty %u + s*8 (arrivals %d)\n",
			r->full_bar, r->full_count, r->empty_bar, r->empty_count);
		if (r->edge->lanes > 1) {
			const PRole *lr = p->roles.v[r->edge->to->role];
			fprintf(out, "    pingpong: %d lanes of `%s`, each skipping ", r->edge->lanes, r->edge->to->name);
			expr_print(out, r->edge->per);
			fprintf(out, " slots per work item of another lane\n");
			fprintf(out, "    turns: mbarriers %u + l*8 (arrivals %d), passed %s `%s`%s\n", lr->turn_bar,
			        lr->nwarps * 32, edge_handoff(r->edge) ? "by" : "when", r->edge->to->name,
			        edge_handoff(r->edge) ? " (handoff)" : " returns");
		}
	}
	if (!any)
		fprintf(out, "  (none)\n");
	if (g->dynamic)   /* glue.c: the first role's first thread fetches, all read */
		fprintf(out, "  work items (grid dynamic): %d slots at %u + s*8, full %u + s*8 (arrivals 1), "
		        "empty %u + s*8 (arrivals %d)\n", PLK_ITEM_SLOTS, p->items_bar, abi_item_full(p),
		        abi_item_empty(p), abi_item_threads(p));

	fprintf(out, "\nshared memory\n");
	fprintf(out, "  %-8s %-8s %-6s %-9s %s\n", "offset", "size", "align", "live", "region");
	/* in offset order; ties in declaration order */
	int n = p->rings.n + p->bufs.n, *ord = malloc(sizeof *ord * (n + 1));
	for (int i = 0; i < n; i++)
		ord[i] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			int x = ord[j], y = ord[j - 1];
			uint32_t ox = x < p->rings.n ? ((PRing *)p->rings.v[x])->off : ((PBuf *)p->bufs.v[x - p->rings.n])->off;
			uint32_t oy = y < p->rings.n ? ((PRing *)p->rings.v[y])->off : ((PBuf *)p->bufs.v[y - p->rings.n])->off;
			if (ox > oy || (ox == oy && x > y))
				break;
			ord[j] = y, ord[j - 1] = x;
		}
	for (int i = 0; i < n; i++) {
		int x = ord[i];
		if (x < p->rings.n) {
			const PRing *r = p->rings.v[x];
			fprintf(out, "  %-8u %-8llu %-6u %-9s ring %s\n", r->off,
				(unsigned long long)r->slot_stride * r->stages, r->slot_align, "all",
				edge_name(a, r->edge));
		} else {
			const PBuf *b = p->bufs.v[x - p->rings.n];
			fprintf(out, "  %-8u %-8u %-6u %-9s %s.%s%s\n", b->off, b->size, b->align,
				live_name(b->live), b->inst->name, b->buf->name,
				inst_lanes(g, b->inst) > 1 ? arena_printf(a, "[%d]", b->lane) : "");
		}
	}
	free(ord);
	if (p->rings.n)
		fprintf(out, "  %-8u %-8u %-6d %-9s mbarriers\n", p->bar_off, p->smem_bytes - p->bar_off,
			MBAR_BYTES, "all");

	fprintf(out, "\ntotals (%s limits)\n", arch->name);
	fprintf(out, "  shared memory   %u / %u bytes (%u free)\n", p->smem_bytes, p->smem_limit,
		p->smem_limit - p->smem_bytes);
	fprintf(out, "  threads         %d / %d\n", p->threads, arch->max_threads);
	if (p->nwarpgroups) {
		fprintf(out, "  registers       %ld / %ld (%d threads x entry cap %d)\n",
		        placement_regs_total(p), placement_regs_pool(p), p->threads, p->entry_regs);
	} else {
		fprintf(out, "  registers       %ld / %d (entry cap)\n", placement_regs_pool(p),
		        arch->regs_per_sm);
	}
	fprintf(out, "  named barriers  %d / %d\n", p->bars.n,
		arch->named_barriers > 1 ? arch->named_barriers - 1 : 15);
	arena_free(a);
}

/* ------------------------------------------------------------- JSON */

void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* "inst.port" */
static void jport(FILE *out, const char *inst, const char *port)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s.%s", inst, port);
	json_str(out, buf);
}

/* closes an array whose n entries each began on a line of their own */
static void jclose(FILE *out, int n, const char *ind)
{
	if (n)
		fprintf(out, "\n%s  ", ind);
	fputc(']', out);
}

/* `{ "inst": INST, "KEY": NAME` of the i-th entry of a list */
static void jinst_open(FILE *out, const char *ind, int i, const GInst *in, const char *key, const char *name)
{
	fprintf(out, "%s\n%s    { \"inst\": ", i ? "," : "", ind);
	json_str(out, in->name);
	fprintf(out, ", \"%s\": ", key);
	json_str(out, name);
}

/* `, "lane": L }` for an instance of a laned role, else ` }` */
static void jlane_close(FILE *out, const Placement *p, const GInst *in, int lane)
{
	if (inst_lanes(p->g, in) > 1)
		fprintf(out, ", \"lane\": %d", lane);
	fputs(" }", out);
}

/* Key names are those the manifest used first; the rest are additions. */
void placement_write_json(FILE *out, const Placement *p, const char *ind)
{
	fprintf(out, "{\n%s  \"arch\": ", ind);
	json_str(out, p->arch->name);
	fprintf(out, ",\n%s  \"threads\": %d, \"warps\": %d, \"entry_regs\": %d,\n", ind, p->threads,
		p->nwarps, p->entry_regs);
	fprintf(out, "%s  \"smem_bytes\": %u, \"smem_limit\": %u, \"mbarriers_offset\": %u,\n", ind,
		p->smem_bytes, p->smem_limit, p->bar_off);
	fprintf(out, "%s  \"warpgroup_regs\": [", ind);
	for (int j = 0; j < p->nwarpgroups; j++)
		fprintf(out, "%s%d", j ? ", " : "", p->wg_regs[j]);
	fprintf(out, "],\n%s  \"roles\": [", ind);
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		fprintf(out, "%s\n%s    { \"id\": %d, \"first_warp\": %d, \"warps\": %d, \"regs\": %d, "
			"\"setmaxnreg\": %s, ", i ? "," : "", ind, r->role->id, r->first_warp,
			r->nwarps, r->regs, r->role->regs ? "true" : "false");
		if (r->role->lanes > 1)
			fprintf(out, "\"lane\": %d, \"lanes\": %d, \"turn_bar\": %u, ", r->lane, r->role->lanes,
				r->turn_bar);
		fputs("\"insts\": [", out);
		for (int j = 0; j < r->role->insts.n; j++) {
			fputs(j ? ", " : "", out);
			json_str(out, ((GInst *)r->role->insts.v[j])->name);
		}
		fputs("] }", out);
	}
	jclose(out, p->roles.n, ind);
	fprintf(out, ",\n%s  \"buffers\": [", ind);
	for (int i = 0; i < p->bufs.n; i++) {
		const PBuf *b = p->bufs.v[i];
		jinst_open(out, ind, i, b->inst, "buf", b->buf->name);
		fprintf(out, ", \"offset\": %u, \"size\": %u, \"align\": %u, \"live\": \"%s\"", b->off,
			b->size, b->align, live_name(b->live));
		jlane_close(out, p, b->inst, b->lane);
	}
	jclose(out, p->bufs.n, ind);
	fprintf(out, ",\n%s  \"rings\": [", ind);
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *r = p->rings.v[i];
		const GEdge *e = r->edge;
		const GPort *pt = e->fp ? e->fp : e->tp;
		char lanes[32] = "";
		if (e->lanes > 1)
			snprintf(lanes, sizeof lanes, "\"pingpong\": %d, ", e->lanes);
		fprintf(out, "%s\n%s    { \"from\": ", i ? "," : "", ind);
		jport(out, e->from->name, e->fp ? e->fp->name : "");
		fputs(", \"to\": ", out);
		jport(out, e->to->name, e->tp ? e->tp->name : "");
		fprintf(out, ", \"stages\": %d, \"auto\": %s, \"offset\": %u, \"slot_bytes\": %u, "
			"\"slot_stride\": %u, \"slot_align\": %u, \"full_bar\": %u, \"empty_bar\": %u, "
			"\"full_count\": %d, \"empty_count\": %d, %s\"fields\": [",
			r->stages, r->auto_stages ? "true" : "false", r->off, r->slot_bytes, r->slot_stride,
			r->slot_align, r->full_bar, r->empty_bar, r->full_count, r->empty_count, lanes);
		for (int j = 0; j < r->nfields; j++) {
			fprintf(out, "%s{ \"name\": ", j ? ", " : "");
			json_str(out, ((GField *)pt->fields.v[j])->name);
			fprintf(out, ", \"offset\": %u }", r->field_off[j]);
		}
		fputs("] }", out);
	}
	jclose(out, p->rings.n, ind);
	fprintf(out, ",\n%s  \"barriers\": [", ind);
	for (int i = 0; i < p->bars.n; i++) {
		const PBar *b = p->bars.v[i];
		jinst_open(out, ind, i, b->inst, "barrier", b->bar->name);
		fprintf(out, ", \"id\": %d, \"threads\": %d", b->id, b->threads);
		jlane_close(out, p, b->inst, b->lane);
	}
	jclose(out, p->bars.n, ind);
	fprintf(out, "\n%s}", ind);
}
