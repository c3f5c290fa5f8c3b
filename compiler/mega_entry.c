/* mega_entry.c: a megakernel's __global__ entry and its manifest
 * (docs/megakernel.md, "Linking").
 *
 * The entry is CUDA compiled by NVRTC (as a kernel's, trampoline.c). Each
 * block runs the ops in schedule order; for an op with a piece on it: one
 * thread waits for the counters of the ops it reads from, the block calls
 * the op kernel's main (the glue, built with its first work item and the
 * grid as its stride), then the block's pieces are counted. Counters only
 * grow: a launch's targets are (generation + 1) x pieces, the generation
 * moved on by the launch's last block, so nothing is zeroed between
 * launches. The count is a release add after the block's barrier, the
 * wait an acquire load before one: with the barriers those order the
 * writers' stores before the readers' loads, and no full fence is needed
 * (docs/megakernel.md, "Linking"). An op whose components declare
 * `early` waits inside its main instead: the entry leaves its waits in
 * shared memory for plk_wait_inputs. Every block must be resident: the
 * runtime launches it cooperatively (the manifest's "cooperative"). */
#include <stdlib.h>
#include <string.h>
#include "plk.h"

/* E0379: op `op`'s kernel does what a megakernel cannot undo yet. */
static void not_linkable(Ctx *c, const MOp *op, const char *what, const char *note, const char *help)
{
	Diag *d = diag_new(c, DIAG_ERROR, "E0379", op->decl->kernel_sp, "op `%s`'s kernel `%s` %s", op->name,
	                   op->k->name, what);
	d->primary.msg = "its kernel";
	diag_note(d, "%s", note);
	diag_help(d, "%s", help);
	diag_end(c, d);
}

int mega_check_linkable(Ctx *c, const MegaPlan *mp)
{
	char what[160];
	for (int i = 0; i < mp->ops.n; i++) {
		const MOp *op = mp->ops.v[i];
		const Graph *g = op->pl->g;
		for (int j = 0; j < g->kparams.n; j++) {
			const GKParam *kp = g->kparams.v[j];
			if (op->args[j])
				continue;
			snprintf(what, sizeof what, "takes %s `%s`, which a megakernel cannot pass yet",
			         kp->kind == KP_TENSORMAP ? "a tensor map" : "a parameter", kp->name);
			not_linkable(c, op, what, "a megakernel's entry passes its ops pointers, sizes and scalars; tensor "
			             "maps would need one per op and slice, made by the runtime",
			             "give the op a kernel whose components take `ptr<T>` params");
			return -1;
		}
		for (int w = 0; w < op->pl->nwarpgroups; w++)
			if (op->pl->wg_regs && op->pl->wg_regs[w]) {
				not_linkable(c, op, "sets its warpgroups' registers, which a megakernel cannot undo yet",
				             "setmaxnreg moves registers between warpgroups for one kernel's roles; the next op "
				             "would find them where this one left them",
				             "give the op a kernel whose components have no `regs` budget");
				return -1;
			}
	}
	return 0;
}

/* One op: its waits, its main, its count. */
static void op_text(FILE *o, const MegaPlan *mp, const MOp *op, const char *main)
{
	const Graph *g = op->pl->g;
	long long b = (long long)mp->blocks;
	fprintf(o, "\t/* op %d: %s = %s, %lld pieces from block %lld */\n", op->id, op->name, op->k->name,
	        (long long)op->pieces, (long long)op->first);
	fprintf(o, "\t{\n\t\tconst int first = (plk_b + %lld - %lld) %% %lld;\n", b, (long long)op->first, b);
	fprintf(o, "\t\tif (first < %lld) {\n", (long long)op->pieces);
	if (mp->timeline)   /* [block][op][wait, start, end, SM] */
		fprintf(o, "\t\t\tlong long *tl = plk_tl + ((long long)plk_b * %d + %d) * 4;\n"
		           "\t\t\tif (threadIdx.x == 0)\n\t\t\t\ttl[0] = plk_mk_clock(), tl[3] = plk_mk_smid();\n",
		        mp->ops.n, op->id);
	/* thread 0 waits on each counter, or (an op that waits inside) leaves
	 * them for its components' plk_wait_inputs; the block meets after */
	if (op->waits || op->early) {
		fputs("\t\t\tif (threadIdx.x == 0) {\n", o);
		for (int d = 0, k = 0; d < op->deps.n; d++) {
			const MDep *dp = op->deps.v[d];
			if (!dp->direct)
				continue;
			if (op->early)
				fprintf(o, "\t\t\t\tplk_mk_wp[%d] = plk_cnt + %d, plk_mk_wt[%d] = (plk_gen + 1u) * %lldu;   /* %s */\n",
				        k, dp->from->id, k, (long long)dp->from->pieces, dp->from->name), k++;
			else
				fprintf(o, "\t\t\t\tplk_mk_wait(plk_cnt + %d, (plk_gen + 1u) * %lldu);   /* %s */\n", dp->from->id,
				        (long long)dp->from->pieces, dp->from->name);
		}
		if (op->early)
			fprintf(o, "\t\t\t\tplk_mk_wn = %d;\n", op->waits);
		fputs("\t\t\t}\n\t\t\t__syncthreads();\n", o);
	}
	if (mp->timeline)
		fprintf(o, "%s\t\t\tif (threadIdx.x == 0)\n\t\t\t\ttl[1] = plk_mk_clock();\n",
		        op->waits || op->early ? "" : "\t\t\t__syncthreads();\n");
	fprintf(o, "\t\t\t%s(", main);
	for (int i = 0; i < g->kparams.n; i++)
		fprintf(o, "%s, ", op->args[i]);
	fprintf(o, "first, %lld);\n\t\t\t__syncthreads();\n\t\t\tif (threadIdx.x == 0) {\n", b);
	/* its mbarriers, invalidated before the next op reuses the memory */
	const Placement *p = op->pl;
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *r = p->rings.v[i];
		fprintf(o, "\t\t\t\tfor (int s = 0; s < %d; s++) {\n"
		           "\t\t\t\t\tplk_mk_inval(%uu + 8u * s);\n\t\t\t\t\tplk_mk_inval(%uu + 8u * s);\n\t\t\t\t}\n",
		        r->stages, r->full_bar, r->empty_bar);
	}
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		if (r->role->lanes > 1)
			fprintf(o, "\t\t\t\tplk_mk_inval(%uu);\n", r->turn_bar + 8 * r->lane);
	}
	if (mp->timeline)
		fputs("\t\t\t\ttl[2] = plk_mk_clock();\n", o);
	fprintf(o, "\t\t\t\tplk_mk_arrive(plk_cnt + %d, (unsigned)((%lld - 1 - first) / %lld + 1));\n"
	           "\t\t\t}\n\t\t}\n\t}\n", op->id, (long long)op->pieces, b);
}

/* The entry after the glue's helpers: its own helpers, the op kernels'
 * mains declared, the __global__ function. own_smem: declare
 * pipelink_smem here (the monolith declares it before its ABI). */
void mega_entry_write(Ctx *c, FILE *o, const MegaPlan *mp, const Placement *const *ps, int n, int own_smem)
{
	int rings = 0;   /* mbarriers to invalidate: rings' and lanes' turns */
	for (int v = 0; v < n; v++) {
		rings |= ps[v]->rings.n > 0;
		for (int i = 0; i < ps[v]->roles.n; i++)
			rings |= ((const PRole *)ps[v]->roles.v[i])->role->lanes > 1;
	}
	fputs("[[maybe_unused]] static __device__ __forceinline__ long long plk_mk_ceil_div(long long a, long long b)\n"
	      "{\n\treturn a / b + ((b > 0 ? a % b : -(a % b)) > 0);   /* toward +inf, any signs (plk.h, Builtin) */\n}\n"
	      "[[maybe_unused]] static __device__ __forceinline__ long long plk_mk_min(long long a, long long b) { return a < b ? a : b; }\n"
	      "[[maybe_unused]] static __device__ __forceinline__ long long plk_mk_max(long long a, long long b) { return a > b ? a : b; }\n"
	      "static __device__ __forceinline__ void plk_mk_wait(const unsigned *c, unsigned target)\n"
	      "{\n\tfor (;;) {\n\t\tunsigned v;\n"
	      "\t\tasm volatile(\"ld.acquire.gpu.global.u32 %0, [%1];\" : \"=r\"(v) : \"l\"(c) : \"memory\");\n"
	      "\t\tif ((int)(v - target) >= 0)\n\t\t\treturn;   /* wraps with the counter */\n"
	      "\t\t__nanosleep(32);\n\t}\n}\n"
	      "static __device__ __forceinline__ void plk_mk_arrive(unsigned *c, unsigned n)\n"
	      "{ asm volatile(\"red.release.gpu.global.add.u32 [%0], %1;\" :: \"l\"(c), \"r\"(n) : \"memory\"); }\n", o);
	/* plk_wait_inputs (stdlib/plk.cuh): the waits of the block's current
	 * op, when its components wait themselves (MOp.early), else none */
	if (mp->early_slots)
		fprintf(o, "static __shared__ unsigned plk_mk_wn;                /* the op's waits */\n"
		           "static __shared__ const unsigned *plk_mk_wp[%d];    /* each on a counter */\n"
		           "static __shared__ unsigned plk_mk_wt[%d];           /* reaching its target */\n"
		           "extern \"C\" __device__ void plk_wait_inputs(int inst)\n"
		           "{\n\t(void)inst;\n\tfor (unsigned i = 0; i < plk_mk_wn; i++)\n\t\tplk_mk_wait(plk_mk_wp[i], plk_mk_wt[i]);\n}\n",
		        mp->early_slots, mp->early_slots);
	else
		fputs("extern \"C\" __device__ void plk_wait_inputs(int inst) { (void)inst; }\n", o);
	if (mp->timeline)
		fputs("static __device__ __forceinline__ long long plk_mk_clock(void)\n"
		      "{ long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
		      "static __device__ __forceinline__ long long plk_mk_smid(void)\n"
		      "{ unsigned s; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(s)); return s; }\n", o);
	if (rings && own_smem)
		fputs("extern \"C\" { extern __shared__ __align__(1024) char pipelink_smem[]; }\n", o);
	if (rings)
		fputs("static __device__ __forceinline__ void plk_mk_inval(unsigned off)\n"
		      "{\n\tunsigned a = (unsigned)__cvta_generic_to_shared(pipelink_smem) + off;\n"
		      "\tasm volatile(\"mbarrier.inval.shared.b64 [%0];\" :: \"r\"(a) : \"memory\");\n}\n", o);
	for (int v = 0; v < n; v++) {
		const Graph *g = ps[v]->g;
		fprintf(o, "extern \"C\" __device__ void %s(", abi_main_name(c, ps, n, v));
		for (int i = 0; i < g->kparams.n; i++)
			fprintf(o, "%s, ", trampoline_param_ctype(((const GKParam *)g->kparams.v[i])->kind));
		fputs("int, int);\n", o);
	}
	fprintf(o, "extern \"C\" __global__ void __launch_bounds__(%d, 1)\n%s(", mp->threads, mp->m->name);
	for (int i = 0; i < mp->tensors.n; i++) {
		const MTensor *t = mp->tensors.v[i];
		if (t->buffer)
			continue;
		fprintf(o, "%s p%d, ", kparam_ctype(t->kind), t->param);
	}
	if (mp->timeline)
		fputs("long long *plk_tl, ", o);
	fprintf(o, "void *plk_ws)\n{\n\tunsigned *plk_cnt = (unsigned *)plk_ws;   /* per op, then arrivals, generation */\n"
	           "\t[[maybe_unused]] char *plk_bufs = (char *)plk_ws + %u;\n\tunsigned plk_gen;\n"
	           "\tasm volatile(\"ld.relaxed.gpu.global.u32 %%0, [%%1];\" : \"=r\"(plk_gen) : \"l\"(plk_cnt + %d) : \"memory\");\n"
	           "\tconst int plk_b = blockIdx.x;\n",
	        mp->zero_bytes, mp->ops.n + 1);
	if (mp->early_slots)   /* no op's waits yet: a stray plk_wait_inputs returns at once */
		fputs("\tif (threadIdx.x == 0)\n\t\tplk_mk_wn = 0;\n\t__syncthreads();\n", o);
	for (int i = 0; i < mp->ops.n; i++) {
		const MOp *op = mp->ops.v[i];
		int v = 0;
		while (v < n && ps[v] != op->pl)
			v++;
		op_text(o, mp, op, abi_main_name(c, ps, n, v));
	}
	fprintf(o, "\t/* the launch's last block moves the generation on */\n\t__syncthreads();\n"
	           "\tif (threadIdx.x == 0) {\n\t\t__threadfence();\n"
	           "\t\tif (atomicAdd(plk_cnt + %d, 1u) == %lldu) {\n\t\t\tplk_cnt[%d] = 0;\n\t\t\t__threadfence();\n"
	           "\t\t\tatomicExch(plk_cnt + %d, plk_gen + 1u);\n\t\t}\n\t}\n}\n",
	        mp->ops.n, (long long)mp->blocks - 1, mp->ops.n, mp->ops.n + 1);
}

const char *mega_entry_source(Ctx *c, const MegaPlan *mp, const Placement *const *ps, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	if (!o)
		return NULL;
	fprintf(o, "// The entry of megakernel `%s`, generated by plkc %s.\n", mp->m->name, PLK_VERSION);
	if (trampoline_helpers(c, o, ps, n)) {
		fclose(o);
		free(buf);
		return NULL;
	}
	mega_entry_write(c, o, mp, ps, n, 1);
	fclose(o);
	const char *s = arena_strdup(c->arena, buf);
	free(buf);
	return s;
}

int mega_entry_ltoir(Ctx *c, const MegaPlan *mp, const Placement *const *ps, int n, void **ir, size_t *len)
{
	*ir = NULL, *len = 0;
	const char *src = mega_entry_source(c, mp, ps, n);
	return src ? trampoline_compile(c, ps[0], src, ir, len) : -1;
}

/* ------------------------------------------------------- the manifest */

/* "key": [v's strings], when there are some */
static void str_list_json(FILE *o, const char *key, const Vec *v)
{
	if (!v->n)
		return;
	fprintf(o, "  \"%s\": [", key);
	for (int i = 0; i < v->n; i++) {
		fputs(i ? ", " : "", o);
		json_str(o, v->v[i]);
	}
	fputs("],\n", o);
}

int manifest_write_mega(Ctx *c, const MegaPlan *mp, const LinkResult *r, const char *binary, FILE *o)
{
	fputs("{\n  \"plk_manifest\": 1,\n  \"kernel\": ", o);
	json_str(o, mp->m->name);
	fputs(",\n  \"entry\": ", o);
	json_str(o, mp->m->name);
	fputs(",\n  \"arch\": [", o);
	json_str(o, mp->arch->name);
	fputs("],\n", o);
	if (binary) {
		fputs("  \"binary\": ", o);
		json_str(o, binary);
		fputs(",\n", o);
	}
	/* what it and its ops compute from its scalars in int, long long (mega.c, add_int) */
	str_list_json(o, "int32", &mp->ints);
	str_list_json(o, "int64", &mp->ints64);
	fprintf(o, "  \"block\": [%d, 1, 1],\n  \"cluster\": [1, 1, 1],\n  \"dynamic_smem\": %u,\n  \"cooperative\": true,\n"
	           "  \"grid\": { \"policy\": \"tiles\", \"tiles\": [[%lld, 1], [1, 1]] },\n  \"tensors\": [",
	        mp->threads, mp->page_bytes, (long long)mp->blocks);
	int nt = 0;
	for (int i = 0; i < mp->tensors.n; i++) {
		const MTensor *t = mp->tensors.v[i];
		if (t->buffer || t->ty->k != TY_TENSOR)
			continue;
		fprintf(o, "%s\n    { \"name\": ", nt++ ? "," : "");
		json_str(o, t->name);
		fputs(", \"dtype\": ", o);
		json_str(o, t->ty->dtype);
		fprintf(o, ", \"elem_bytes\": %d, \"dims\": [", t->elem_bytes);
		for (int d = 0; d < t->rank; d++)
			fprintf(o, "%s%lld", d ? ", " : "", (long long)t->dims[d]);
		fputs("] }", o);
	}
	if (mp->timeline)
		fprintf(o, "%s\n    { \"name\": \"timeline\", \"dtype\": \"i64\", \"elem_bytes\": 8, \"dims\": [%lld, %d, 4] }",
		        nt++ ? "," : "", (long long)mp->blocks, mp->ops.n);
	fputs(nt ? "\n  ],\n  \"params\": [" : "],\n  \"params\": [", o);
	for (int i = 0; i < mp->tensors.n; i++) {
		const MTensor *t = mp->tensors.v[i];
		if (t->buffer)
			continue;
		fputs("\n    { \"name\": ", o);
		json_str(o, t->name);
		if (t->ty->k == TY_SCALAR)
			fprintf(o, ", \"kind\": \"%s\" },", kparam_kind_name(t->kind));
		else {
			fputs(", \"kind\": \"ptr\"", o);
			if (t->ty->k == TY_TENSOR) {
				fputs(", \"tensor\": ", o);
				json_str(o, t->name);
			}
			fputs(", \"dtype\": ", o);
			json_str(o, t->ty->dtype);
			fputs(" },", o);
		}
	}
	if (mp->timeline)
		fputs("\n    { \"name\": \"timeline\", \"kind\": \"ptr\", \"tensor\": \"timeline\", \"dtype\": \"i64\" },", o);
	fprintf(o, "\n    { \"name\": \"plk_workspace\", \"kind\": \"workspace\", \"bytes\": %llu, \"zero\": %llu }\n  ],\n",
	        (unsigned long long)(mp->zero_bytes + mp->buf_bytes), (unsigned long long)(mp->zero_bytes + mp->zeroed_end));
	/* the schedule, and each op's kernel's objects (the link map) */
	fprintf(o, "  \"megakernel\": { \"blocks\": %lld, \"ops\": [", (long long)mp->blocks);
	for (int i = 0; i < mp->ops.n; i++) {
		const MOp *op = mp->ops.v[i];
		fprintf(o, "%s\n    { \"name\": ", i ? "," : "");
		json_str(o, op->name);
		fputs(", \"kernel\": ", o);
		json_str(o, op->k->name);
		fprintf(o, ", \"pieces\": %lld, \"first_block\": %lld, \"waits\": [", (long long)op->pieces, (long long)op->first);
		int nw = 0;
		for (int d = 0; d < op->deps.n; d++) {
			const MDep *dp = op->deps.v[d];
			if (!dp->direct)
				continue;
			fputs(nw++ ? ", " : "", o);
			json_str(o, dp->from->name);
		}
		fputs("] }", o);
	}
	fputs("\n  ] },\n  \"objects\": [", o);
	int total = 0;
	for (int v = 0; v < mp->kernels.n; v++) {
		const Graph *g = ((const Placement *)mp->kernels.v[v])->g;
		for (int i = 0; i < g->insts.n; i++, total++) {
			const GInst *in = g->insts.v[i];
			fprintf(o, "%s\n    { \"kernel\": ", total ? "," : "");
			json_str(o, g->k->name);
			fputs(", \"instance\": ", o);
			json_str(o, in->name);
			fputs(", \"component\": ", o);
			json_str(o, in->comp->name);
			if (r && r->objs && r->objs[total].digest[0]) {
				fputs(", \"object\": ", o);
				json_str(o, r->objs[total].digest);
			}
			fputs(" }", o);
		}
	}
	fputs(total ? "\n  ]\n}\n" : "]\n}\n", o);
	return ferror(o) ? -1 : 0;
}
