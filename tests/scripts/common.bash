# Sourced first by the scripts of tests/scripts/ (tests/run.sh runs the
# *.sh ones; this is not a test): B, the build folder ($1, default
# build); PLKC, its plkc (or $PLKC), a skip (exit 77) where there is
# none; tmp, a scratch folder removed on exit. need_nvcc: a skip where
# the CUDA toolkit's nvcc is missing, else NVCC, the one found (PATH's
# first, then $CUDA_HOME's).
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
[ -x "$PLKC" ] || { echo "no $PLKC"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
need_nvcc() {
	NVCC=$(command -v nvcc 2>/dev/null) || NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
	[ -x "$NVCC" ] || { echo "skip: no nvcc"; exit 77; }
}
