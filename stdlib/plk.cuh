/*
 * plk.cuh: the device side of the PipeLink component ABI (docs/abi.md).
 *
 * A component includes this header and reaches every placed resource
 * through the extern "C" plk_* functions below, which the glue (or the
 * monolithic reference) defines for one composition. Each is a pure
 * function of (inst, id, ...): after LTO or inlining it folds to a
 * constant, so the helpers here cost what hand-placed code costs.
 *
 * Arch coverage: everything but the Hopper section compiles for sm_80 and
 * later; TMA needs sm_90, wgmma and setmaxnreg need sm_90a.
 */
#ifndef PLK_CUH
#define PLK_CUH

#include <stdint.h>
#include "hw.h"

/* Entries are external symbols (the glue calls them across the LTO link)
 * and must inline into the caller so that frag pointers become registers:
 * __forceinline__ makes LTO inline them whatever their size (nvcc ignores
 * always_inline on a function that is not `inline`). An inline function
 * nobody calls in its own unit would be dropped before the link; `used`
 * keeps it, at the price of a dead `.weak .func` copy in the linked PTX. */
#define PLK_ENTRY extern "C" __device__ __forceinline__ __attribute__((used))

/* The tile an entry gets on its calls that are not a work item's: the
 * flush after the last (every entry) and the prologue before the first
 * (an entry whose contract says `prologue`). docs/abi.md, Entry. */
enum { PLK_FLUSH = -1, PLK_PROLOGUE = -2 };

/* ---- Functions the glue defines: stdlib/abi.def (docs/abi.md) ---- */
extern "C" {
#define PLK_ABI(id, name, ret, params, nkeys, kind, meaning) __device__ ret name params;
#include "abi.def"
#undef PLK_ABI
}

/* Returns when the tensors the component reads, other than its `early`
 * params, are written: in a megakernel, when the ops its op waits for
 * have finished (docs/megakernel.md, "Early reads"); in a kernel of its
 * own, at once. A component that declares `early` calls it before its
 * first read of any other param, in every thread that reads one; the
 * loads of its `early` params (weights) issued before it overlap the
 * wait. */
extern "C" __device__ void plk_wait_inputs(int inst);

/* ---- Hook dispatch: stdlib/hook.def (docs/abi.md, "Hooks") ----
 * A component calls the hook on its `in hook` port `port` as
 * plk_<fn>(inst, port, ctx, args...), ctx the port's argument of its
 * entry; the glue defines each to call the provider the recipe connects
 * (the port's default when plk_hook_bound(inst, port) is 0). */
#define PLK_HOOK_UNPAREN_(...) __VA_ARGS__
extern "C" {
#define PLK_HOOK_FN(kind, suffix, ret, args, types, dispatch, dflt) \
	__device__ ret dispatch(int inst, int port, const void *ctx, PLK_HOOK_UNPAREN_ args);
#include "hook.def"
}
#undef PLK_HOOK_UNPAREN_

/* ---- Small helpers ----
 * Names here avoid upper-case identifiers: components' cparams are macros
 * (BM, N, WARPS, ...) that may be defined when this header is included. */
__device__ __forceinline__ uint32_t plk_smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ int plk_lane(void) { return threadIdx.x & 31; }

/* Warp index within the instance's role. The shuffle makes the value
 * provably warp-uniform, which keeps role branches free of divergence. */
__device__ __forceinline__ int plk_warp_rank(int inst)
{
	return __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0) -
	       plk_role_first_warp(inst);
}

/* bar.sync on hardware named barrier `id` (1..15) over `threads` threads
 * (a multiple of 32): for helpers handed the id and count as values. A
 * component names its own barriers through plk_bar_sync. */
__device__ __forceinline__ void plk_named_barrier_sync(int id, int threads)
{
	asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* Waits on the component's barrier `bar` with the threads the placement
 * gave it. */
__device__ __forceinline__ void plk_bar_sync(int inst, int bar)
{
	plk_named_barrier_sync(plk_named_barrier(inst, bar), plk_barrier_threads(inst, bar));
}

/* Where 16-byte chunk `chunk` (0..7) of row `row` lies in a tile of
 * 128-byte rows stored with the 128B swizzle (layout sw128, what TMA
 * writes for a 64-element bf16 box row): chunk c of row r sits at chunk
 * c ^ (r % 8), so the 8 rows of one column of chunks fall in 8 different
 * bank groups. Agreeing with TMA and wgmma takes a 1024-byte aligned tile
 * (they swizzle by address; the pattern repeats every 8 rows).
 *
 * PLK_SW128_CHUNK takes a byte pointer (char *) and gives one. It is a
 * macro (`row` is evaluated twice): written as an inline function, it
 * changed what nvcc made of the staging stores of plk_acc_store_tma_pairs
 * (more PTX instructions). plk_sw128_chunk_u32 is the same on a
 * shared-memory address (plk_smem_u32), the operand of ldmatrix; plain
 * inline, as the lambda it replaced: __forceinline__ changed the sm_100a
 * code of mma_sync_mainloop. */
#define PLK_SW128_CHUNK(tile, row, chunk) ((tile) + (row) * 128 + (((chunk) ^ ((row) & 7)) << 4))
__device__ inline uint32_t plk_sw128_chunk_u32(uint32_t tile, int row, int chunk)
{
	return PLK_SW128_CHUNK(tile, row, chunk);
}

/* 16 bytes from global memory to the shared-memory address dst by
 * cp.async.cg (sm_80 on), or 16 zero bytes where !in: a src-size of 0
 * reads nothing, but src must still be a valid address (pass any byte
 * of the tensor). The copy joins the thread's open cp.async group. */
__device__ __forceinline__ void plk_cp_async16(uint32_t dst, const void *src, bool in)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(in ? 16 : 0)
	             : "memory");
}

/* ---- mbarrier primitives (shared::cta addresses) ---- */
__device__ __forceinline__ void plk_mbar_init(void *bar, unsigned count)
{
	asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(plk_smem_u32(bar)),
	             "r"(count) : "memory");
}

/* Makes barrier initialisation visible to the other threads and to the
 * async proxy (TMA completes transactions on these barriers). */
__device__ __forceinline__ void plk_fence_mbar_init(void)
{
#if __CUDA_ARCH__ >= 900
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

__device__ __forceinline__ void plk_mbar_arrive(void *bar)
{
	asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared.b64 st, [%0];\n}"
	             ::"r"(plk_smem_u32(bar)) : "memory");
}

/* Spins until the phase with the given parity has completed. try_wait
 * (sm_90) suspends in hardware for a while; test_wait (sm_80) polls.
 * a: the barrier's shared-memory address (plk_smem_u32). */
__device__ __forceinline__ void plk_mbar_wait_u32(uint32_t a, unsigned parity)
{
	uint32_t ok;
	do {
#if __CUDA_ARCH__ >= 900
		asm volatile("{\n.reg .pred p;\n"
		             "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
		             "selp.u32 %0, 1, 0, p;\n}"
		             : "=r"(ok) : "r"(a), "r"(parity) : "memory");
#else
		asm volatile("{\n.reg .pred p;\n"
		             "mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
		             "selp.u32 %0, 1, 0, p;\n}"
		             : "=r"(ok) : "r"(a), "r"(parity) : "memory");
#endif
	} while (!ok);
}

__device__ __forceinline__ void plk_mbar_wait(void *bar, unsigned parity)
{
	plk_mbar_wait_u32(plk_smem_u32(bar), parity);
}

/* ---- Ring (channel) helpers: docs/abi.md, "Helpers" ----
 * Stage s of a ring has a full and an empty barrier. Producer and consumer
 * each keep a plk_pipe starting at {0, 0}; the producer waits on empty with
 * the opposite parity, so a fresh ring's empty barriers pass at once.
 * Arrival counts are in threads: the glue initialises full with the
 * producer's threads and empty with the consumer's, and every thread of a
 * role calls these helpers together. Each thread arrives for itself, so
 * its own writes (or reads) of the slot are ordered before the phase
 * flips, by the mbarrier's release/acquire alone. */
struct plk_pipe {
	int stage;
	unsigned phase;
};

__device__ __forceinline__ void plk_pipe_advance(int inst, int port, plk_pipe *p)
{
	if (++p->stage == plk_ring_stages(inst, port)) {
		p->stage = 0;
		p->phase ^= 1u;
	}
}

/* Moves a cursor over n slots that other consumers take: the pingpong
 * lanes of a role (docs/placement.md) share one ring, each skipping the
 * slots of the work items the other lanes take. The glue does the same in
 * its own IR; the monolith calls this. */
__device__ __forceinline__ void plk_pipe_skip(plk_pipe *p, int n, int stages)
{
	const int x = p->stage + n;
	p->phase ^= (unsigned)(x / stages) & 1u;
	p->stage = x % stages;
}

__device__ __forceinline__ int plk_produce_acquire(int inst, int port, plk_pipe *p)
{
	plk_mbar_wait(plk_ring_empty(inst, port, p->stage), p->phase ^ 1u);
	return p->stage;
}

__device__ __forceinline__ void plk_produce_commit(int inst, int port, plk_pipe *p)
{
	plk_mbar_arrive(plk_ring_full(inst, port, p->stage));
	plk_pipe_advance(inst, port, p);
}

/* Lane 0's arrival also announces `bytes` of async-proxy transactions
 * (TMA) still to land in the stage; the phase completes when they have. */
__device__ __forceinline__ void plk_produce_expect_tx(int inst, int port, plk_pipe *p,
                                                      unsigned bytes)
{
#if __CUDA_ARCH__ >= 900
	void *full = plk_ring_full(inst, port, p->stage);
	if (plk_lane() == 0)
		asm volatile("{\n.reg .b64 st;\n"
		             "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}"
		             ::"r"(plk_smem_u32(full)), "r"(bytes) : "memory");
	else
		plk_mbar_arrive(full);
	plk_pipe_advance(inst, port, p);
#else
	(void)bytes;
	plk_produce_commit(inst, port, p);
#endif
}

__device__ __forceinline__ int plk_consume_wait(int inst, int port, plk_pipe *p)
{
	plk_mbar_wait(plk_ring_full(inst, port, p->stage), p->phase);
	return p->stage;
}

/* Releases one given stage without moving the cursor, for consumers whose
 * reads of the slot were made by the async proxy (wgmma) and have
 * completed (wgmma.wait_group): no thread's own access is left to order,
 * so lane 0 arrives for its warp's 32 threads (sm_90: one arrival
 * instruction per warp instead of 32). Consumers that read the slot with
 * ordinary loads use plk_consume_release. */
__device__ __forceinline__ void plk_consume_release_stage(int inst, int port, int stage)
{
	void *empty = plk_ring_empty(inst, port, stage);
#if __CUDA_ARCH__ >= 900
	__syncwarp();
	if (plk_lane() == 0)
		asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0], 32;\n}"
		             ::"r"(plk_smem_u32(empty)) : "memory");
#else
	plk_mbar_arrive(empty);
#endif
}

__device__ __forceinline__ void plk_consume_release(int inst, int port, plk_pipe *p)
{
	plk_mbar_arrive(plk_ring_empty(inst, port, p->stage));
	plk_pipe_advance(inst, port, p);
}

/* Pingpong lanes (docs/placement.md): a consumer port declared `handoff`
 * passes the ring to the next lane itself, as soon as it has issued its
 * last access of the work item, so the next lane's first wgmma queues
 * behind this lane's last ones instead of after they drain. Every thread
 * of the lane calls it once per work item (the turn counts the lane's
 * threads); with no lanes, or without `handoff`, it does nothing. */
__device__ __forceinline__ void plk_ring_handoff(int inst, int port)
{
	if (plk_ring_handoffs(inst, port))
		plk_mbar_arrive(plk_ring_turn(inst, port));
}

/* Generic pointer to field `field` of stage `stage` of a ring's slot. */
__device__ __forceinline__ void *plk_ring_ptr(int inst, int port, int stage, int field)
{
	return (char *)plk_ring_slot(inst, port, stage) + plk_ring_field(inst, port, field);
}

/* ---- Persistent tile loop: grouped raster (shared by every role) ----
 * Work item t (0-based, in launch order) -> tile coordinates. Groups of G
 * tile-rows are walked column by column, so concurrently running blocks
 * share A rows and B columns in L2. Pure: each role computes it alone. */
__device__ __forceinline__ void plk_raster_grouped(int t, int tiles_m, int tiles_n, int g,
                                                   int *tm, int *tn)
{
	int per_group = g * tiles_n;
	int group = t / per_group;
	int first_m = group * g;
	int rows = min(tiles_m - first_m, g);
	int r = t - group * per_group;
	*tm = first_m + r % rows;
	*tn = r / rows;
}

/* ---- Accumulator fragment layout `wgmma_acc` (docs/components.md) ----
 * W consumer warps; warp w owns 16-row blocks w, w+W, w+2W, ... of the
 * BM x BN tile and every column. Element ((mi * (BN/8) + ni) * 4 + j) of a
 * thread is at row (mi*W + w)*16 + lane/4 + 8*(j/2), column
 * ni*8 + 2*(lane%4) + j%2: the register order of wgmma m64nN (mi = the m64
 * block of one warpgroup) and of mma.sync m16n8 tiles alike. */
__device__ __forceinline__ int plk_acc_row(int mi, int j, int w, int nwarps)
{
	return (mi * nwarps + w) * 16 + (plk_lane() >> 2) + 8 * (j >> 1);
}
__device__ __forceinline__ int plk_acc_col(int ni, int j)
{
	return ni * 8 + 2 * (plk_lane() & 3) + (j & 1);
}

/* ---- Hopper: fences, TMA, setmaxnreg (sm_90; wgmma and setmaxnreg: sm_90a) ---- */
/* (Host passes see these declarations too, so kernels that use them parse.) */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

/* Orders this thread's generic-proxy shared-memory writes before later
 * async-proxy reads (TMA store, wgmma) of the same bytes. */
__device__ __forceinline__ void plk_fence_proxy_async(void)
{
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void plk_tma_prefetch_desc(const void *tmap)
{
	asm volatile("prefetch.tensormap [%0];" ::"l"(tmap) : "memory");
}

/* 2D tiled TMA load of the box at (c0 innermost, c1) into dst; completes
 * its bytes on `bar` (which an expect_tx arrival has announced). */
__device__ __forceinline__ void plk_tma_load_2d(void *dst, const void *tmap, void *bar,
                                                int c0, int c1)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3, %4}], [%2];"
	             ::"r"(plk_smem_u32(dst)), "l"(tmap), "r"(plk_smem_u32(bar)),
	               "r"(c0), "r"(c1) : "memory");
}

/* Same, delivered to the same offset in every CTA of `mask` in the cluster,
 * each completing on its own barrier at the same offset. */
__device__ __forceinline__ void plk_tma_load_2d_mcast(void *dst, const void *tmap, void *bar,
                                                      int c0, int c1, uint16_t mask)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
	             ::"r"(plk_smem_u32(dst)), "l"(tmap), "r"(plk_smem_u32(bar)),
	               "r"(c0), "r"(c1), "h"(mask) : "memory");
}

/* An L2 eviction policy for the cache hint of the loads below, by kind:
 * PLK_L2_FIRST for bytes read once (the weights a decode-sized M
 * streams), PLK_L2_LAST for bytes every tile reads again (that M's
 * activations), PLK_L2_NORMAL for neither (no hint at all). */
enum { PLK_L2_NORMAL = 0, PLK_L2_FIRST = 1, PLK_L2_LAST = 2 };

__device__ __forceinline__ uint64_t plk_l2_policy(int kind)
{
	uint64_t p = 0;
	if (kind == PLK_L2_FIRST)
		asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
	else if (kind == PLK_L2_LAST)
		asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
	return p;
}

/* plk_tma_load_2d and plk_tma_load_2d_mcast with the L2 policy of a
 * hint HINT (`policy`: plk_l2_policy(HINT)); for PLK_L2_NORMAL, those
 * calls themselves, no hint. */
template <int HINT>
__device__ __forceinline__ void plk_tma_load_2d_l2(void *dst, const void *tmap, void *bar, int c0, int c1,
                                                   uint64_t policy)
{
	if constexpr (HINT == PLK_L2_NORMAL)
		plk_tma_load_2d(dst, tmap, bar, c0, c1);
	else
		asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
		             ".L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;"
		             ::"r"(plk_smem_u32(dst)), "l"(tmap), "r"(plk_smem_u32(bar)),
		               "r"(c0), "r"(c1), "l"(policy) : "memory");
}

template <int HINT>
__device__ __forceinline__ void plk_tma_load_2d_mcast_l2(void *dst, const void *tmap, void *bar, int c0, int c1,
                                                         uint16_t mask, uint64_t policy)
{
	if constexpr (HINT == PLK_L2_NORMAL)
		plk_tma_load_2d_mcast(dst, tmap, bar, c0, c1, mask);
	else
		asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
		             ".multicast::cluster.L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5, %6;"
		             ::"r"(plk_smem_u32(dst)), "l"(tmap), "r"(plk_smem_u32(bar)),
		               "r"(c0), "r"(c1), "h"(mask), "l"(policy) : "memory");
}

/* ---- Clusters (sm_90): a CTA's rank, remote mbarrier arrivals, the
 * cluster-wide barrier. A 1-D cluster of the grid's x dimension holds
 * blocks [c * X, c * X + X), so rank == blockIdx.x % X. */
__device__ __forceinline__ unsigned plk_cluster_ctarank(void)
{
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
}

/* Arrives `count` times on the mbarrier at the same offset as `bar` in
 * the shared memory of CTA `rank` of the cluster (itself included). For
 * readers through the async proxy whose reads have completed (wgmma after
 * wgmma.wait_group), as plk_consume_release_stage: the default .release
 * at CTA scope; .release.cluster costs a MEMBAR.ALL.GPU per arrival. */
__device__ __forceinline__ void plk_mbar_arrive_cluster(void *bar, unsigned rank, unsigned count)
{
	asm volatile("{\n.reg .b32 ra;\n"
	             "mapa.shared::cluster.u32 ra, %0, %1;\n"
	             "mbarrier.arrive.shared::cluster.b64 _, [ra], %2;\n}"
	             ::"r"(plk_smem_u32(bar)), "r"(rank), "r"(count) : "memory");
}

/* plk_consume_release_stage for a ring whose slots every CTA of an
 * n-CTA cluster fills by multicast: a slot may be overwritten only when
 * the consumers of all n CTAs have released it, so lane 0 arrives for its
 * warp on the stage's empty barrier of every CTA (count 32 each; the
 * glue initialises empty with the consumer's threads times n). */
__device__ __forceinline__ void plk_consume_release_stage_cluster(int inst, int port, int stage,
                                                                  unsigned n)
{
	void *empty = plk_ring_empty(inst, port, stage);
	__syncwarp();
	if (plk_lane() == 0)
		for (unsigned r = 0; r < n; r++)
			plk_mbar_arrive_cluster(empty, r, 32);
}

/* Every thread of the cluster: arrive (release), then wait (acquire):
 * every access before it is seen by the partners after it. */
__device__ __forceinline__ void plk_cluster_sync(void)
{
	asm volatile("barrier.cluster.arrive.release;\n"
	             "barrier.cluster.wait.acquire;" ::: "memory");
}

/* The same at a kernel's start, after plk_fence_mbar_init: that fence has
 * released the mbarriers' initialisation to the cluster, so the arrive is
 * relaxed (no fence of every thread) and the wait still orders every
 * remote arrival and multicast after it. */
__device__ __forceinline__ void plk_cluster_sync_init(void)
{
	asm volatile("barrier.cluster.arrive.relaxed;\n"
	             "barrier.cluster.wait.acquire;" ::: "memory");
}

/* A producer's last act where its ring's slots reach a cluster: wait
 * until every slot is empty again (its next `stages` acquires), so that
 * no partner's consumer still has a release to send to this CTA's
 * barriers when it exits (the glue's exit, compiler/glue.c role_exit;
 * word for word its plk_glue_ring_drain). */
__device__ __forceinline__ void plk_ring_drain(unsigned empty, int stages, int stage, unsigned phase)
{
	for (int i = 0; i < stages; i++) {
		plk_mbar_wait_u32(empty + 8 * stage, phase ^ 1u);
		if (++stage == stages) stage = 0, phase ^= 1u;
	}
}

/* 2D tiled TMA store of src to the box at (c0, c1); out-of-range parts of
 * the box are not written. Issue after plk_fence_proxy_async + a barrier. */
__device__ __forceinline__ void plk_tma_store_2d(const void *tmap, const void *src, int c0, int c1)
{
	asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
	             ::"l"(tmap), "r"(plk_smem_u32(src)), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void plk_tma_store_commit(void)
{
	asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/* Waits until at most N committed store groups still read shared memory. */
template <int pending> __device__ __forceinline__ void plk_tma_store_wait_read(void)
{
	asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(pending) : "memory");
}
template <int pending> __device__ __forceinline__ void plk_tma_store_wait(void)
{
	asm volatile("cp.async.bulk.wait_group %0;" ::"n"(pending) : "memory");
}

#endif /* __CUDA_ARCH__ >= 900 */

#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__)
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PLK_HAS_WGMMA 1
#endif

/* Register budget of the calling warpgroup's warps; every warp of the
 * warpgroup executes the same one (the kernel needs a register cap). */
template <int regs> __device__ __forceinline__ void plk_setmaxnreg_inc(void)
{
	static_assert(regs % PLK_SETMAXNREG_STEP == 0 && regs >= PLK_SETMAXNREG_MIN && regs <= PLK_SETMAXNREG_MAX,
	              "setmaxnreg: multiple of 8 in [24, 256]");
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(regs));
}
template <int regs> __device__ __forceinline__ void plk_setmaxnreg_dec(void)
{
	static_assert(regs % PLK_SETMAXNREG_STEP == 0 && regs >= PLK_SETMAXNREG_MIN && regs <= PLK_SETMAXNREG_MAX,
	              "setmaxnreg: multiple of 8 in [24, 256]");
	asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(regs));
}

/* wgmma shared-memory descriptor of a K-major tile stored with the 128B
 * swizzle (what TMA writes for a 64-element bf16 box row): rows of 128
 * bytes, 8-row core groups 1024 bytes apart (stride byte offset), the
 * leading byte offset unused for this mode. The tile must be 1024-byte
 * aligned so the swizzle phase (base offset field) is 0. Advancing along K
 * by 16 elements adds 32 bytes to the start address.
 *
 * Split in two words: the high one is a constant, and offsets within the
 * tile are added to the low one alone (32-bit adds: a shared-memory
 * address >> 4 stays below bit 14, so no carry reaches the LBO field). */
constexpr uint32_t PLK_SW128_DESC_HI = (1024u >> 4)   /* bits 32-45: SBO >> 4 */
                                       | (1u << 30);  /* bits 62-63: 1 = 128B swizzle */
__device__ __forceinline__ uint32_t plk_wgmma_desc_sw128_lo(const void *p)
{
	return ((plk_smem_u32(p) & 0x3FFFFu) >> 4)   /* bits 0-13: start address >> 4 */
	       | (1u << 16);                         /* bits 16-29: LBO >> 4 (ignored) */
}
__device__ __forceinline__ uint64_t plk_wgmma_desc_sw128_at(uint32_t lo, uint32_t plus16)
{
	return (uint64_t)PLK_SW128_DESC_HI << 32 | (lo + plus16);
}

/* Makes prior register writes of the accumulators visible to wgmma. */
__device__ __forceinline__ void plk_wgmma_fence(void)
{
	asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void plk_wgmma_commit(void)
{
	asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
/* Waits until at most N committed wgmma groups are pending. The register
 * operand list tells the compiler the accumulators change here. */
template <int pending> __device__ __forceinline__ void plk_wgmma_wait(void)
{
	asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(pending) : "memory");
}
/* Keeps the accumulator registers live and ordered around async wgmma. */
template <int count> __device__ __forceinline__ void plk_fence_regs(float *d)
{
#pragma unroll
	for (int i = 0; i < count; i++)
		asm volatile("" : "+f"(d[i])::"memory");
}

/* ---- wgmma m64nNk16 with both operands in shared memory: bf16 x bf16
 * -> f32, A and B K-major through 128B-swizzle descriptors, N / 2 f32 of
 * accumulator per thread. The asm operand lists are built here once: a
 * thread's R accumulators are the asm operands %0 .. %(R - 1)
 * (PLK_REGS<R> in the text, PLK_OUTS<R> the "+f" operands d[0 .. R - 1]),
 * then the two descriptors and the accumulate flag. ---- */
#define PLK_OUT8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                    "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define PLK_REGS8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define PLK_REGS16 PLK_REGS8 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define PLK_REGS24 PLK_REGS16 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define PLK_REGS32 PLK_REGS24 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define PLK_REGS40 PLK_REGS32 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define PLK_REGS48 PLK_REGS40 ", %40, %41, %42, %43, %44, %45, %46, %47"
#define PLK_REGS56 PLK_REGS48 ", %48, %49, %50, %51, %52, %53, %54, %55"
#define PLK_REGS64 PLK_REGS56 ", %56, %57, %58, %59, %60, %61, %62, %63"
#define PLK_REGS72 PLK_REGS64 ", %64, %65, %66, %67, %68, %69, %70, %71"
#define PLK_REGS80 PLK_REGS72 ", %72, %73, %74, %75, %76, %77, %78, %79"
#define PLK_REGS88 PLK_REGS80 ", %80, %81, %82, %83, %84, %85, %86, %87"
#define PLK_REGS96 PLK_REGS88 ", %88, %89, %90, %91, %92, %93, %94, %95"
#define PLK_REGS100 PLK_REGS96 ", %96, %97, %98, %99"
#define PLK_REGS104 PLK_REGS96 ", %96, %97, %98, %99, %100, %101, %102, %103"
#define PLK_REGS112 PLK_REGS104 ", %104, %105, %106, %107, %108, %109, %110, %111"
#define PLK_REGS120 PLK_REGS112 ", %112, %113, %114, %115, %116, %117, %118, %119"
#define PLK_REGS128 PLK_REGS120 ", %120, %121, %122, %123, %124, %125, %126, %127"
#define PLK_OUTS8 PLK_OUT8(0)
#define PLK_OUTS16 PLK_OUTS8, PLK_OUT8(8)
#define PLK_OUTS24 PLK_OUTS16, PLK_OUT8(16)
#define PLK_OUTS32 PLK_OUTS24, PLK_OUT8(24)
#define PLK_OUTS40 PLK_OUTS32, PLK_OUT8(32)
#define PLK_OUTS48 PLK_OUTS40, PLK_OUT8(40)
#define PLK_OUTS56 PLK_OUTS48, PLK_OUT8(48)
#define PLK_OUTS64 PLK_OUTS56, PLK_OUT8(56)
#define PLK_OUTS72 PLK_OUTS64, PLK_OUT8(64)
#define PLK_OUTS80 PLK_OUTS72, PLK_OUT8(72)
#define PLK_OUTS88 PLK_OUTS80, PLK_OUT8(80)
#define PLK_OUTS96 PLK_OUTS88, PLK_OUT8(88)
#define PLK_OUTS100 PLK_OUTS96, "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99])
#define PLK_OUTS104 PLK_OUTS96, PLK_OUT8(96)
#define PLK_OUTS112 PLK_OUTS104, PLK_OUT8(104)
#define PLK_OUTS120 PLK_OUTS112, PLK_OUT8(112)
#define PLK_OUTS128 PLK_OUTS120, PLK_OUT8(120)

/* plk_wgmma_m64n<N>k16(d, da, db, accumulate); R = N / 2 accumulators,
 * R1 = R + 1 and R2 = R + 2 the indices of db and the flag (numbers, as
 * the asm text needs them); scale-d is the flag: 0 overwrites d. */
#define PLK_WGMMA_SS(N, R, R1, R2)                                                                   \
	__device__ __forceinline__ void plk_wgmma_m64n##N##k16(float *d, unsigned long long da,      \
	                                                       unsigned long long db, int accumulate) \
	{                                                                                            \
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #R2 ", 0;\n"                       \
		             "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 "              \
		             "{" PLK_REGS##R "}, %" #R ", %" #R1 ", p, 1, 1, 0, 0;\n}\n"             \
		             : PLK_OUTS##R                                                           \
		             : "l"(da), "l"(db), "r"(accumulate));                                   \
	}

/* 16 to 64: skinny tiles, whose N side is a GEMM's small M (C^T = B A^T) */
PLK_WGMMA_SS(16, 8, 9, 10)
PLK_WGMMA_SS(32, 16, 17, 18)
PLK_WGMMA_SS(64, 32, 33, 34)
/* 96: 128 x 96 tiles, whose count fills a wave where 128 x 128 tiles
 * leave SMs idle (gemm_auto's gemm_n96) */
PLK_WGMMA_SS(96, 48, 49, 50)
PLK_WGMMA_SS(128, 64, 65, 66)
/* 160 and 176: S = Q K^T of the attention core's wider KV blocks
 * (attn_core BN = 160, 176: FA3's 128 x 176 at head dim 128) */
PLK_WGMMA_SS(160, 80, 81, 82)
PLK_WGMMA_SS(176, 88, 89, 90)
/* 192 and 224: 128 x 192 and 128 x 224 tiles, whose count fills one wave
 * where 128 x 256 tiles leave SMs idle (gemm_auto's gemm_n192, gemm_n224) */
PLK_WGMMA_SS(192, 96, 97, 98)
/* 200: 128 x 200 tiles in 4 x 1 clusters, whose 30 fill 1000 x 3000 in
 * one wave (cuBLAS's there; bench/configs.py's set cublas_tiles) */
PLK_WGMMA_SS(200, 100, 101, 102)
PLK_WGMMA_SS(224, 112, 113, 114)
PLK_WGMMA_SS(256, 128, 129, 130)

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

#endif /* PLK_CUH */
