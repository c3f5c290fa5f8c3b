#!/bin/bash
# Inputs that cannot hurt, outputs that cannot be half written.
#   - only regular files are read, at most so large (E0217): a FIFO as the
#     recipe, a `use`, a source or an object, /dev/zero as an object
#   - imports nest at most 64 deep (E0218; 2000 used to overflow the stack)
#   - duplicate names are found in linear time (80k declarations took 17 s)
#   - junk costs bounded memory (10 MB of `@` took 4 GB; 50 MB aborted)
#   - -o never names an input (E0606); the cubin and its manifest are
#     written together or not at all, the old ones kept on a failure
#   - a path too long says so (not an old errno); fatbinary's output goes
#     into the diagnostic, not onto plkc's stdout (the binary with -o -)
. "$(dirname "$0")/common.bash"
fail() { echo "inputs: $*"; exit 1; }
expect() {   # CODE WHAT CMD...: exit 1 with error[CODE], within 20 seconds
	local code=$1 what=$2
	shift 2
	out=$(timeout 20 "$@" 2>&1)
	rc=$?
	[ $rc -eq 1 ] && grep -q "error\[$code\]" <<<"$out" || fail "$what: expected error[$code], exit 1; got exit $rc: $(head -c 1500 <<<"$out")"
}

# ---- regular files only
mkfifo "$tmp/fifo.plk" "$tmp/fifo.o" "$tmp/fifo.cu"
expect E0217 "a FIFO as the recipe" "$PLKC" "$tmp/fifo.plk" --check
printf 'use "fifo.plk"\n' >"$tmp/use_fifo.plk"
expect E0217 "a FIFO named by use" "$PLKC" "$tmp/use_fifo.plk" --check
printf 'use object "fifo.o"\n' >"$tmp/obj_fifo.plk"
expect E0217 "a FIFO named by use object" "$PLKC" "$tmp/obj_fifo.plk" --check
printf 'use object "/dev/zero"\n' >"$tmp/obj_zero.plk"
expect E0217 "/dev/zero named by use object" "$PLKC" "$tmp/obj_zero.plk" --check
expect E0217 "/dev/zero as an object" "$PLKC" --emit=contract /dev/zero
printf 'component c {\n  source "fifo.cu"\n  entry plk_c\n  arch >= sm_80\n  warps 1\n}\n' >"$tmp/src_fifo.plk"
expect E0217 "a FIFO as a component's source" "$PLKC" -c "$tmp/src_fifo.plk" -arch sm_80 -o "$tmp/c.o"
grep -q "the source of \`c\` \`.*fifo.cu\` is not a regular file" <<<"$out" || fail "the FIFO source's error: $out"
head -c $((17 << 20)) /dev/zero | tr '\0' ' ' >"$tmp/big.plk"
expect E0217 "a recipe of 17 MiB" "$PLKC" "$tmp/big.plk" --check
grep -q "it is 17825792 bytes; plkc reads at most 16 MiB of it" <<<"$out" || fail "the size note: $out"

# ---- imports nest at most 64 deep, whatever the chain's length
mkdir "$tmp/chain"
for i in $(seq 0 1999); do echo "use \"c$((i + 1)).plk\"" >"$tmp/chain/c$i.plk"; done
echo 'component z { warps 1 }' >"$tmp/chain/c2000.plk"
expect E0218 "a use chain 2000 deep" "$PLKC" "$tmp/chain/c0.plk" --check
grep -q "imports nest more than 64 files deep" <<<"$out" || fail "E0218's message: $out"
for i in $(seq 0 62); do echo "use \"d$((i + 1)).plk\"" >"$tmp/chain/d$i.plk"; done
echo 'component z { warps 1 }' >"$tmp/chain/d63.plk"
"$PLKC" "$tmp/chain/d0.plk" --check || fail "a chain of 64 files is refused"

# ---- duplicate names in linear time: 400k declarations, then one twice
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "component c%d { warps 1 }\n", i }' >"$tmp/many.plk"
t0=$(date +%s)
timeout 120 "$PLKC" "$tmp/many.plk" --check || fail "400k declarations: exit $?"
echo 'component c7 { warps 2 }' >>"$tmp/many.plk"
expect E0203 "a duplicate among 400k declarations" "$PLKC" "$tmp/many.plk" --check
[ $(($(date +%s) - t0)) -lt 60 ] || fail "400k declarations took $(($(date +%s) - t0)) s"

# ---- junk: bounded time and memory, an error and no crash
head -c 1000000 /dev/urandom >"$tmp/junk.plk"
timeout 20 "$PLKC" "$tmp/junk.plk" --check >/dev/null 2>&1
[ $? -eq 1 ] || fail "1 MB of random bytes: exit $?"
head -c 10000000 /dev/zero | tr '\0' '@' >"$tmp/at.plk"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o "$tmp/rss" timeout 20 "$PLKC" "$tmp/at.plk" --check >/dev/null 2>&1
	[ $? -eq 1 ] || fail "10 MB of @: exit $?"
	[ "$(tail -n 1 "$tmp/rss")" -lt 1000000 ] || fail "10 MB of @ took $(tail -n 1 "$tmp/rss") KB"
else
	echo "note: no /usr/bin/time: the memory of 10 MB of @ is not measured"
	timeout 20 "$PLKC" "$tmp/at.plk" --check >/dev/null 2>&1
	[ $? -eq 1 ] || fail "10 MB of @: exit $?"
fi
expect E0106 "10 MB of @" "$PLKC" "$tmp/at.plk" --check
grep -q "too many errors (20); stopping" <<<"$out" || fail "10 MB of @ did not stop at 20 errors"

# ---- -o never names an input
mkdir -p "$tmp/comp"
cp tests/objects/spec.plk tests/objects/spec.cu "$tmp/comp/"
cp "$tmp/comp/spec.cu" "$tmp/spec.cu.orig"
expect E0606 "-c -o naming the source" "$PLKC" -c "$tmp/comp/spec.plk" -arch sm_80 -o "$tmp/comp/spec.cu"
cmp -s "$tmp/comp/spec.cu" "$tmp/spec.cu.orig" || fail "the source was written"
printf 'use "spec.plk"\n\nkernel k() {\n  a = plk_test_spec()\n}\n' >"$tmp/comp/rec.plk"
expect E0606 "-o naming a used declaration" "$PLKC" "$tmp/comp/rec.plk" -o "$tmp/comp/spec.plk"
expect E0606 "-o whose manifest is the recipe" "$PLKC" "$tmp/comp/rec.plk" -o "$tmp/comp/rec.plk"

# ---- a cache path too long: the system's reason, not a leftover errno
long="$tmp/$(head -c 5000 /dev/zero | tr '\0' x)"
out=$(PLKC_CACHE="$long" "$PLKC" "$tmp/comp/rec.plk" --emit=map 2>&1)
grep -q "File name too long" <<<"$out" || fail "a cache path too long: $out"

command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || { echo "skip: no nvcc for the rest"; exit 77; }

# ---- outputs: both or neither, and the old ones kept
cd "$tmp/comp"
"$PLKC" rec.plk -arch sm_90a -o k.cubin || fail "link of rec.plk"
echo old >k.cubin
echo old >k.manifest.json
echo old >"$tmp/old"
(trap '' XFSZ; ulimit -f 2; "$PLKC" rec.plk -arch sm_90a -o k.cubin) >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q 'error\[E0603\]' "$tmp/out" || fail "a write that fails (file size limit): $(cat "$tmp/out")"
[ "$(cat k.cubin)" = old ] && [ "$(cat k.manifest.json)" = old ] || fail "a failed write damaged the old outputs"
rm k.manifest.json
mkdir k.manifest.json
expect E0603 "a directory in the manifest's way" "$PLKC" rec.plk -arch sm_90a -o k.cubin
[ "$(cat k.cubin)" = old ] || fail "the cubin was written though its manifest could not be"
rmdir k.manifest.json
ls -a | grep -q '\.tmp\.' && fail "temporaries left: $(ls -a)"
"$PLKC" rec.plk -arch sm_90a -o k.cubin && ! cmp -s k.cubin "$tmp/old" && grep -q '"binary": "k.cubin"' k.manifest.json ||
	fail "the outputs were not written"
cd - >/dev/null

# ---- fatbinary's output: into the diagnostic, never onto stdout
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$tmp/cuda/bin"
printf '#!/bin/sh\nexec "%s/bin/nvcc" "$@"\n' "$CUDA" >"$tmp/cuda/bin/nvcc"
printf '#!/bin/sh\necho JUNK-ON-STDOUT; echo JUNK-ON-STDERR >&2; exit 3\n' >"$tmp/cuda/bin/fatbinary"
chmod +x "$tmp/cuda/bin/nvcc" "$tmp/cuda/bin/fatbinary"
CUDA_HOME="$tmp/cuda" "$PLKC" "$tmp/comp/rec.plk" -arch sm_80 -arch sm_90a -o - --manifest "$tmp/m.json" >"$tmp/bin" 2>"$tmp/err"
[ $? -eq 1 ] || fail "a failing fatbinary: exit $?"
grep -q JUNK "$tmp/bin" && fail "fatbinary's output landed on plkc's stdout"
grep -q 'error\[E0508\]' "$tmp/err" && grep -q 'JUNK-ON-STDOUT' "$tmp/err" && grep -q 'JUNK-ON-STDERR' "$tmp/err" ||
	fail "fatbinary's output is not in the diagnostic: $(cat "$tmp/err")"
echo ok
