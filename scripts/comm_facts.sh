#!/bin/bash
# The communication engines' device libraries against this toolkit's
# nvJitLink and libNVVM (issue 19: which engine a comm stage links with).
# Downloads the nvidia-nvshmem-cu13 and nvidia-nccl-cu13 wheels into DIR
# (default build/comm), compiles a small NVSHMEM kernel to LTO-IR with
# nvcc -dlto and links it for sm_90a, then offers each engine's device
# library to nvJitLink (and its bitcode to libNVVM). No GPU needed.
#
#   bash scripts/comm_facts.sh [DIR]
set -u
cd "$(dirname "$0")/.." || exit 1
D=${1:-build/comm}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$D" && D=$(cd "$D" && pwd) || exit 1
cd "$D" || exit 1
for w in nvidia-nvshmem-cu13 nvidia-nccl-cu13; do
	ls "${w//-/_}"-*.whl >/dev/null 2>&1 || python3 -m pip download -q --no-deps "$w" -d . || exit 1
done
python3 -m zipfile -e nvidia_nvshmem_cu13-*.whl nvshmem >/dev/null || exit 1
python3 -m zipfile -e nvidia_nccl_cu13-*.whl nccl >/dev/null || exit 1
echo "wheels: $(ls *.whl | tr '\n' ' ')"
cat >k.cu <<'CU'
#include <nvshmem.h>
#include <nvshmemx.h>
extern "C" __global__ void k(float *p, int pe)
{
	float *q = (float *)nvshmem_ptr(p, pe);
	if (q)
		q[threadIdx.x] = 1.f;
	nvshmem_float_p(p + threadIdx.x, 2.f, pe);
	nvshmem_quiet();
}
CU
cat >link.c <<'C'
/* link [ltoir|object|library FILE]...: nvJitLink -arch=sm_90a -lto; prints the result */
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	nvJitLinkHandle h = 0;
	const char *opts[] = { "-arch=sm_90a", "-lto" };
	nvJitLinkResult r = nvJitLinkCreate(&h, 2, opts);
	for (int i = 1; i + 1 < argc && r == NVJITLINK_SUCCESS; i += 2)
		r = nvJitLinkAddFile(h, !strcmp(argv[i], "ltoir") ? NVJITLINK_INPUT_LTOIR :
		                        !strcmp(argv[i], "object") ? NVJITLINK_INPUT_OBJECT : NVJITLINK_INPUT_LIBRARY, argv[i + 1]);
	if (r == NVJITLINK_SUCCESS)
		r = nvJitLinkComplete(h);
	size_t n = 0, ln = 0;
	if (r == NVJITLINK_SUCCESS)
		nvJitLinkGetLinkedCubinSize(h, &n);
	printf("nvJitLink result %d, cubin %zu bytes", (int)r, n);
	if (h && nvJitLinkGetErrorLogSize(h, &ln) == NVJITLINK_SUCCESS && ln > 1) {
		char *b = malloc(ln);
		nvJitLinkGetErrorLog(h, b);
		b[strcspn(b, "\n")] = 0;
		printf(": %s", b);
	}
	putchar('\n');
	return r != NVJITLINK_SUCCESS;
}
C
cat >nvvm.c <<'C'
/* nvvm FILE.bc: does libNVVM read it? */
#include <nvvm.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc(n);
	if (fread(b, 1, n, f) != (size_t)n)
		return 2;
	nvvmProgram p;
	nvvmCreateProgram(&p);
	nvvmResult r = nvvmAddModuleToProgram(p, b, n, argv[1]);
	const char *o[] = { "-arch=compute_90a" };
	if (r == NVVM_SUCCESS)
		r = nvvmVerifyProgram(p, 1, o);
	size_t ln = 0;
	nvvmGetProgramLogSize(p, &ln);
	char *l = calloc(1, ln + 1);
	nvvmGetProgramLog(p, l);
	for (char *q = l; *q; q++)
		if (*q == '\n')
			*q = ' ';
	printf("libNVVM %s %s\n", nvvmGetErrorString(r), l);
	return r != NVVM_SUCCESS;
}
C
cc -I"$CUDA_HOME/include" link.c -o link -L"$CUDA_HOME/lib64" -lnvJitLink -Wl,-rpath,"$CUDA_HOME/lib64" || exit 1
cc -I"$CUDA_HOME/nvvm/include" nvvm.c -o nvvm -L"$CUDA_HOME/nvvm/lib64" -lnvvm -Wl,-rpath,"$CUDA_HOME/nvvm/lib64" || exit 1
I=nvshmem/nvidia/nvshmem/include L=nvshmem/nvidia/nvshmem/lib
"$CUDA_HOME/bin/nvcc" -arch=sm_90a -dlto -rdc=true -c -I$I k.cu -o k.o || exit 1
"$CUDA_HOME/bin/nvcc" -arch=sm_90a -dlto -rdc=true -c -I$I -DNVSHMEM_ENABLE_ALL_DEVICE_INLINING k.cu -o ki.o || exit 1
echo "nvJitLink $("$CUDA_HOME/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') (the toolkit's)"
printf '%s: ' "NVSHMEM kernel (LTO-IR) + libnvshmem_device.a"; ./link object k.o library $L/libnvshmem_device.a
printf '%s: ' "NVSHMEM kernel (LTO-IR), all device calls inlined, no library"; ./link object ki.o
printf '%s: ' "NVSHMEM kernel (LTO-IR), no library"; ./link object k.o
printf '%s: ' "NVSHMEM libnvshmem_device_sm_90.bc"; ./nvvm $L/libnvshmem_device_sm_90.bc
printf '%s: ' "NCCL libnccl_device.ltoir"; ./link ltoir nccl/nvidia/nccl/lib/libnccl_device.ltoir
printf '%s: ' "NCCL libnccl_device.bc"; ./nvvm nccl/nvidia/nccl/lib/libnccl_device.bc
exit 0
