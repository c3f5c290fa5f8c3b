/* plkrt.h: load and launch a kernel linked by plkc, with its manifest.
 * CUDA Driver API only (gcc + -lcuda): no plkc, LLVM or recipe needed.
 *
 *   char err[512];
 *   plk_kernel *k = plk_load("gemm.cubin", NULL, err, sizeof err);
 *   plk_bind_tensor(k, "A", a_dev, (int64_t[]){M, K}, 2);   // shape infers M, K
 *   plk_bind_tensor(k, "B", b_dev, NULL, 0);                // pointer only
 *   plk_bind_dim(k, "N", N);
 *   if (plk_launch(k, stream)) fprintf(stderr, "%s\n", plk_error(k));
 *   plk_unload(k);
 *
 * Functions returning int give 0 on success and -1 on failure, with the
 * message (the failing call, its CUDA error name and the parameter
 * involved) in plk_error(k). A handle holds all state; the library has
 * none.
 *
 * Threads: a loaded kernel is read-only, so several threads may launch it
 * at once, each with its own argument set (plk_args: the bindings, the
 * encoded tensor maps and the launch's parameter buffer):
 *
 *   plk_args *a = plk_args_new(k);                 // one per thread
 *   plk_args_tensor(a, "A", a_dev, (int64_t[]){M, K}, 2);
 *   if (plk_args_launch(a, stream)) fprintf(stderr, "%s\n", plk_args_error(a));
 *   plk_args_free(a);
 *
 * The plk_bind_* / plk_launch calls on the kernel use the kernel's own
 * argument set: one thread at a time. */
#ifndef PLKRT_H
#define PLKRT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct plk_kernel plk_kernel;

/* Only this API is exported from libplkrt.so (built -fvisibility=hidden). */
#if defined(__GNUC__)
#define PLK_API __attribute__((visibility("default")))
#else
#define PLK_API
#endif

/* Loads a cubin, fatbin or PTX file and its manifest. manifest NULL: the
 * binary's name with its extension replaced by ".manifest.json". binary
 * NULL: the manifest's "binary", relative to the manifest's directory.
 * Uses the calling thread's current context; with none, retains device
 * 0's primary context (released by plk_unload) and makes it current.
 * NULL on failure, with the reason in err. */
PLK_API plk_kernel *plk_load(const char *binary, const char *manifest, char *err, size_t errlen);
/* The same from memory: a binary image and the manifest's JSON text. */
PLK_API plk_kernel *plk_load_data(const void *image, size_t size, const char *manifest_json, size_t json_len,
                          char *err, size_t errlen);
PLK_API void plk_unload(plk_kernel *k);
PLK_API const char *plk_error(const plk_kernel *k);

/* Arguments, by the manifest's names. Bindings persist across launches
 * until rebound or cleared. shape (outermost first) may be NULL; when
 * given it fills the shape symbols of bare-symbol dims and is checked
 * against the others. */
PLK_API int plk_bind_tensor(plk_kernel *k, const char *tensor, CUdeviceptr ptr, const int64_t *shape, int rank);
PLK_API int plk_bind_dim(plk_kernel *k, const char *symbol, int64_t value);
PLK_API int plk_bind_ptr(plk_kernel *k, const char *param, CUdeviceptr ptr);   /* a ptr param with no tensor */
PLK_API int plk_bind_int(plk_kernel *k, const char *param, int64_t value);     /* i32/i64 param with no dim */
PLK_API int plk_bind_float(plk_kernel *k, const char *param, double value);    /* f32 param */
PLK_API void plk_unbind_all(plk_kernel *k);

/* Resolves the bindings: symbols, tensor maps (re-encoded only when their
 * arguments change), grid. plk_launch calls it when needed. */
PLK_API int plk_prepare(plk_kernel *k);
/* Launches on stream (0: the legacy default stream) with
 * cuLaunchKernelEx, with the cluster shape when it is not 1x1x1. */
PLK_API int plk_launch(plk_kernel *k, CUstream stream);

/* After plk_prepare: the launch shape. Any pointer may be NULL. */
PLK_API int plk_launch_shape(plk_kernel *k, unsigned grid[3], unsigned block[3], unsigned cluster[3],
                     unsigned *dynamic_smem, int64_t *work_items);

/* Argument sets: the same calls on a set of one's own, so that threads
 * share one kernel (see the top of this file). A set is used by one
 * thread at a time; errors are in plk_args_error(a). A set may outlive
 * plk_unload of its kernel (a garbage collector's order): the kernel is
 * then freed with its last set, which is then good for plk_args_free
 * alone; plk_unload and plk_args_free must not run at the same time.
 * plk_args_launch copies the parameters into the launch, so a set may be
 * rebound as soon as it returns (CUDA graph capture included). */
typedef struct plk_args plk_args;
PLK_API plk_args *plk_args_new(const plk_kernel *k);      /* NULL: out of memory */
PLK_API void plk_args_free(plk_args *a);
PLK_API const char *plk_args_error(const plk_args *a);
PLK_API int plk_args_tensor(plk_args *a, const char *tensor, CUdeviceptr ptr, const int64_t *shape, int rank);
PLK_API int plk_args_dim(plk_args *a, const char *symbol, int64_t value);
PLK_API int plk_args_ptr(plk_args *a, const char *param, CUdeviceptr ptr);
PLK_API int plk_args_int(plk_args *a, const char *param, int64_t value);
PLK_API int plk_args_float(plk_args *a, const char *param, double value);
PLK_API void plk_args_clear(plk_args *a);
PLK_API int plk_args_prepare(plk_args *a);
PLK_API int plk_args_launch(plk_args *a, CUstream stream);
PLK_API int plk_args_launch_shape(plk_args *a, unsigned grid[3], unsigned block[3], unsigned cluster[3],
                                  unsigned *dynamic_smem, int64_t *work_items);
PLK_API int plk_args_tensor_dims(plk_args *a, int i, int64_t *dims);
PLK_API int plk_args_symbol_value(plk_args *a, int i, int64_t *value);

/* Variants (a select, docs/runtime.md): a binary of several kernels, one
 * launched per call: the first whose manifest conditions hold for the
 * bound shapes and the device's SM count. plk_force_variant(k, NAME)
 * launches NAME always (NULL: by the rule again); an unknown name, or a
 * kernel without variants, is an error. The environment's PLK_VARIANT
 * forces one at load (a load error when the manifest has variants and
 * none of that name; ignored for a kernel without). Not while other
 * threads launch k. plk_chosen_variant / plk_args_variant: the entry the
 * next launch runs (prepares; NULL on error). */
PLK_API int plk_force_variant(plk_kernel *k, const char *name);
PLK_API int plk_num_variants(const plk_kernel *k);                 /* 0: one kernel */
PLK_API const char *plk_variant_name(const plk_kernel *k, int i);  /* the kernel entry */
PLK_API const char *plk_chosen_variant(plk_kernel *k);
PLK_API const char *plk_args_variant(plk_args *a);
/* A CUresult's name ("CUDA_ERROR_INVALID_VALUE"): the driver's, else
 * cuda.h's list (the toolkit's stub library names nothing); NULL when
 * unknown. */
PLK_API const char *plk_cuda_error_name(int code);

/* Communication engines (docs/comm.md). A kernel whose manifest names
 * "engines" launches only once attached to an initialised engine:
 *
 *   char id[128];                                  // plk_comm_unique_id_size()
 *   if (rank == 0) plk_comm_unique_id(id, sizeof id, err, sizeof err);
 *   ... hand id to every rank (torch.distributed.broadcast, a file) ...
 *   plk_comm *c = plk_comm_init(rank, nranks, id, sizeof id, err, sizeof err);
 *   CUdeviceptr a = plk_comm_alloc(c, bytes);       // symmetric: same on every rank
 *   plk_comm_attach(c, k);                          // the module's engine state
 *   ... plk_launch(k, stream) ...
 *   plk_comm_free(c, a); plk_comm_fini(c);
 *
 * One engine per process (NVSHMEM's own rule); its errors come by name
 * ("NVSHMEMX_ERROR_INTERNAL (7)"). Initialise it with the device's
 * primary context current, the one plk_load uses. Allocation and
 * plk_comm_fini are collective: every rank calls them alike. */
typedef struct plk_comm plk_comm;
PLK_API size_t plk_comm_unique_id_size(void);   /* 0: built without NVSHMEM */
PLK_API int plk_comm_unique_id(void *id, size_t n, char *err, size_t errlen);
PLK_API plk_comm *plk_comm_init(int rank, int nranks, const void *id, size_t n, char *err, size_t errlen);
PLK_API CUdeviceptr plk_comm_alloc(plk_comm *c, size_t bytes);   /* 0: plk_comm_error says why */
PLK_API void plk_comm_free(plk_comm *c, CUdeviceptr p);
PLK_API int plk_comm_barrier(plk_comm *c, CUstream stream);     /* every rank, on the stream */
PLK_API int plk_comm_attach(plk_comm *c, plk_kernel *k);         /* errors in plk_error(k) */
PLK_API void plk_comm_fini(plk_comm *c);
PLK_API int plk_comm_rank(const plk_comm *c);
PLK_API int plk_comm_size(const plk_comm *c);
PLK_API const char *plk_comm_error(const plk_comm *c);

/* Introspection (valid for the handle's life). */
PLK_API const char *plk_kernel_name(const plk_kernel *k);
PLK_API CUcontext plk_context(const plk_kernel *k);
PLK_API int plk_sm_count(const plk_kernel *k);
PLK_API int plk_dram_gbps(const plk_kernel *k);   /* peak DRAM bandwidth, GB/s (DRAM_GBPS in a rule) */
PLK_API int plk_num_tensors(const plk_kernel *k);
PLK_API const char *plk_tensor_name(const plk_kernel *k, int i);
PLK_API const char *plk_tensor_dtype(const plk_kernel *k, int i);
PLK_API int plk_tensor_elem_bytes(const plk_kernel *k, int i);
PLK_API int plk_tensor_rank(const plk_kernel *k, int i);
PLK_API const char *plk_tensor_dim(const plk_kernel *k, int i, int d);   /* symbol or expression */
/* The tensor's dims, outermost first, from the bound symbols and shapes
 * (pointers need not be bound yet). */
PLK_API int plk_tensor_dims(plk_kernel *k, int i, int64_t *dims);
PLK_API int plk_num_symbols(const plk_kernel *k);
PLK_API const char *plk_symbol_name(const plk_kernel *k, int i);
PLK_API int plk_symbol_value(plk_kernel *k, int i, int64_t *value);        /* as plk_tensor_dims */
PLK_API int plk_num_params(const plk_kernel *k);
PLK_API const char *plk_param_name(const plk_kernel *k, int i);
PLK_API const char *plk_param_kind(const plk_kernel *k, int i);  /* "ptr", "tensormap", "i32", "i64", "f32" */
/* 1 when the param is bound by name (plk_bind_ptr/int/float): it has
 * neither a tensor nor a dim. */
PLK_API int plk_param_is_free(const plk_kernel *k, int i);

#ifdef __cplusplus
}
#endif
#endif
