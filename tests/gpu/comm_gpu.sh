#!/bin/bash
# GPU host: the all-gather GEMM (docs/comm.md) on every GPU of the
# machine, world sizes 1 and then all of them (2, 4 or 8), through
# torchrun: tests/gpu/comm_gpu.py checks it against a single-GPU fp32
# reference on random inputs and times it against NCCL all-gather +
# cuBLAS and torch's fused_all_gather_matmul. NVLink multicast off in
# every process. Needs the runtime built with NVSHMEM's headers.
#   bash tests/gpu/comm_gpu.sh [DIR]       (DIR: comm_prepare.sh's, default .carry/comm)
cd "$(dirname "$0")/../.." || exit 1
DIR=${1:-.carry/comm}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# NVSHMEM_HOME: another NVSHMEM than the wheel python3 finds (the one the
# cubins' device library came from, say)
NV=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])')} || { echo "no NVSHMEM wheel"; exit 1; }
echo "NVSHMEM: $NV, $(grep -h VENDOR_BASE_VERSION_STRING "$NV/include/non_abi/nvshmem_version.h" 2>/dev/null | cut -d'"' -f2)"
make -s -C runtime B="$PWD/build/runtime" NVSHMEM_HOME="$NV" all || exit 1
export PLKRT_LIB="$PWD/build/runtime/libplkrt.so" NVSHMEM_HOME="$NV"
n=$(nvidia-smi -L | wc -l)
fail=0
for w in 1 $([ "$n" -gt 1 ] && echo "$n"); do
	echo "== world size $w"
	timeout 300 torchrun --standalone --nproc_per_node="$w" tests/gpu/comm_gpu.py "$DIR" || fail=1
done
exit $fail
