/* mega_sched.c: a megakernel's schedule as text (--emit=schedule), for
 * people and the golden tests: its tensors, its ops in the order the
 * blocks run them with what each reads, writes and waits for, and what
 * each block holds (docs/megakernel.md, "The schedule"). */
#include <stdio.h>
#include "plk.h"

static void tensor_line(FILE *o, const MTensor *t)
{
	fprintf(o, "  %-12s %-7s ", t->name, t->buffer ? "buffer" : "param");
	if (t->ty->k == TY_SCALAR) {
		fprintf(o, "%s\n", t->ty->dtype);
		return;
	}
	fprintf(o, "%s%s", t->ty->k == TY_PTR ? "ptr " : "", t->ty->dtype);
	for (int i = 0; i < t->rank; i++)
		fprintf(o, "%s%lld", i ? ", " : "[", (long long)t->dims[i]);
	fputs(t->rank ? "]" : "", o);
	fputs(t->zeroed ? ", zeroed (counters: zero when a launch starts)\n" : "\n", o);
}

static void uses(FILE *o, const MOp *op, int acc, const char *what)
{
	int n = 0;
	for (int i = 0; i < op->uses.n; i++) {
		const MUse *u = op->uses.v[i];
		if ((acc == ACC_WRITE) != !!(u->access & ACC_WRITE) || !u->access)
			continue;
		fprintf(o, "%s%s", n++ ? ", " : what, u->t->name);
		if (u->index >= 0)
			fprintf(o, "[%lld]", (long long)u->index);
	}
	if (n)
		fputc('\n', o);
}

void mega_schedule_print(FILE *o, const MegaPlan *mp)
{
	fprintf(o, "megakernel %s for %s: %d op%s on %lld blocks of %d threads\n", mp->m->name, mp->arch->name,
	        mp->ops.n, mp->ops.n == 1 ? "" : "s", (long long)mp->blocks, mp->threads);
	fputs("tensors:\n", o);
	for (int i = 0; i < mp->tensors.n; i++)
		tensor_line(o, mp->tensors.v[i]);
	fputs("ops, in the order every block runs them (counter = index):\n", o);
	for (int i = 0; i < mp->ops.n; i++) {
		const MOp *op = mp->ops.v[i];
		fprintf(o, "  %d %s = %s: %lld piece%s from block %lld, %d threads, %u bytes of shared memory\n", i, op->name,
		        op->k->name, (long long)op->pieces, op->pieces == 1 ? "" : "s", (long long)op->first,
		        op->pl->threads, op->pl->smem_bytes);
		uses(o, op, ACC_READ, "      reads ");
		uses(o, op, ACC_WRITE, "      writes ");
		for (int d = 0, n = 0; d < op->deps.n; d++) {
			const MDep *dp = op->deps.v[d];
			if (dp->direct)
				fprintf(o, "%s%s (counter %d = %lld)", n++ ? ", " : "      waits ", dp->from->name, dp->from->id,
				        (long long)dp->from->pieces);
		}
		if (op->waits || op->early)
			fputs(!op->early ? "\n" : op->waits ? ", inside its main (its components read `early` params first)\n"
			                                     : "      waits for nothing; its components read `early` params first\n", o);
	}
	/* per block: its pieces, and the two ops in a row that hold most shared memory */
	int64_t most = -1, fewest = -1, most_blk = 0, pair = -1, pair_blk = 0;
	for (int64_t b = 0; b < mp->blocks; b++) {
		int64_t n = 0, prev = -1;
		for (int i = 0; i < mp->ops.n; i++) {
			const MOp *op = mp->ops.v[i];
			int64_t off = (b - op->first + mp->blocks) % mp->blocks;
			if (off >= op->pieces)
				continue;
			n += (op->pieces - off + mp->blocks - 1) / mp->blocks;
			if (prev >= 0 && prev + op->pl->smem_bytes > pair)
				pair = prev + op->pl->smem_bytes, pair_blk = b;
			prev = op->pl->smem_bytes;
		}
		if (most < 0 || n > most)
			most = n, most_blk = b;
		if (fewest < 0 || n < fewest)
			fewest = n;
	}
	fprintf(o, "blocks: %lld piece%s at most (block %lld), %lld at fewest\n", (long long)most, most == 1 ? "" : "s",
	        (long long)most_blk, (long long)fewest);
	if (pair >= 0)
		fprintf(o, "shared memory: two ops in a row hold %lld of %u bytes at most (block %lld)\n", (long long)pair,
		        mp->smem_limit, (long long)pair_blk);
	else
		fprintf(o, "shared memory: one op at a time, %u of %u bytes at most\n", mp->page_bytes,
		        mp->smem_limit);
}
