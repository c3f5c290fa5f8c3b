# Sourced first by the scripts of tests/scripts/ (tests/run.sh runs the
# *.sh ones; this is not a test): B, the build folder ($1, default
# build); PLKC, its plkc (or $PLKC), a skip (exit 77) where there is
# none; tmp, a scratch folder removed on exit. need_nvcc: a skip where
# the CUDA toolkit's nvcc is missing.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
[ -x "$PLKC" ] || { echo "no $PLKC"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
need_nvcc() {
	command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || { echo "skip: no nvcc"; exit 77; }
}
