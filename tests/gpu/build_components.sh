#!/bin/sh
# Compile every component on its own as an LTO object for the archs its contract allows.
# Usage: tests/gpu/build_components.sh [outdir]
cd "$(dirname "$0")/../.." || exit 1
O=${1:-build/components}; mkdir -p "$O"
tests/gpu/headers.sh "$O/include" || exit 1	# each source includes its header
for f in components/hopper/*.cu components/common/*.cu components/ampere/*.cu; do
  case $f in *hopper/wgmma*) G="-gencode arch=compute_90a,code=lto_90a";;
    *hopper/tma_load*|*_tma.cu|*_tma_rows.cu) G="-gencode arch=compute_90a,code=lto_90a -gencode arch=compute_100a,code=lto_100a";;
    *) G="-gencode arch=compute_80,code=lto_80 -gencode arch=compute_90a,code=lto_90a -gencode arch=compute_100a,code=lto_100a";; esac
  echo "== $f: $G"; nvcc -rdc=true -c $G -Istdlib -I"$O/include" $f -o "$O/$(basename $f .cu).o" || exit 1
done
echo "components: all built"
