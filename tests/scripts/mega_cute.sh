#!/bin/bash
# A foreign op in the decode megakernel (docs/megakernel.md, "A foreign
# op"): the CuTe-written attention (components/decode/attn_decode_cute)
# is built on its own into an object with CUTLASS's headers (the
# nvidia-cutlass wheel), as its owner would ship it; examples/llama_decode
# with its attention instance line changed to it (and its object
# imported) links, and the link map shows every other op's objects
# unchanged and the attention's from the shipped object.
# Exit 0 pass, 1 fail, 77 skip (no CUTLASS headers or no nvcc).
B=${1:-build}
case $B in *san*) echo "the CuTe op's link runs once, with the plain build"; exit 77 ;; esac
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
CUTE=$(python3 -c 'import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), "source", "include"))' 2>/dev/null)
[ -f "$CUTE/cute/tensor.hpp" ] || { echo "skip: no CUTLASS headers: pip install nvidia-cutlass"; exit 77; }
tmp="$PWD/$B/mega-cute"
rm -rf "$tmp" && mkdir -p "$tmp/owner" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
# the owner's build: its own flags, its own object, its contract inside
"$PLKC" -c components/decode/attn_decode_cute.plk -I "$CUTE" -arch sm_90a -o "$tmp/owner/attn_decode_cute.o" \
	>"$tmp/owner.log" 2>&1 || { cat "$tmp/owner.log"; exit 1; }
# the object's contract says it counts in cnt (`zeroed`: the megakernel binds a buffer it zeroes)
"$PLKC" --emit=contract "$tmp/owner/attn_decode_cute.o" | grep -qx '  zeroed cnt' || no "the object's contract has no \`zeroed cnt\`"
# the one line: the attention kernel's instance; and the import of the shipped object
grep -c '^  run = attn_decode(q = Q' examples/llama_decode.plk | grep -qx 1 || no "examples/llama_decode.plk has not one attn_decode instance"
sed -e 's|^  run = attn_decode(q = Q|  run = attn_decode_cute(q = Q|' \
	-e "s|^use \"../components/decode/attn_decode.plk\"|use object \"$tmp/owner/attn_decode_cute.o\"|" \
	examples/llama_decode.plk >examples/.llama_decode_cute.plk
"$PLKC" examples/llama_decode.plk -arch sm_90a -o "$tmp/own.cubin" >"$tmp/own.log" 2>&1 || no "own: $(cat "$tmp/own.log")"
"$PLKC" examples/.llama_decode_cute.plk -arch sm_90a -o "$tmp/cute.cubin" >"$tmp/cute.log" 2>&1 ||
	no "with the CuTe op: $(head -n 20 "$tmp/cute.log")"
rm -f examples/.llama_decode_cute.plk
grep -qa ".text.llama_decode" "$tmp/cute.cubin" || no "the CuTe megakernel's cubin has no entry"
python3 - "$tmp/own.manifest.json" "$tmp/cute.manifest.json" <<'PY' || fail=1
import json, sys
own, cute = (json.load(open(p))["objects"] for p in sys.argv[1:3])
ko = {(o["kernel"], o["instance"]): o for o in own}
kc = {(o["kernel"], o["instance"]): o for o in cute}
bad = []
if ko.keys() != kc.keys():
    bad.append(f"instances differ: {sorted(ko)} vs {sorted(kc)}")
for k in ko:
    a, b = ko[k], kc.get(k, {})
    if k[0] == "attn":
        if b.get("component") != "attn_decode_cute" or a.get("component") != "attn_decode" or a.get("object") == b.get("object"):
            bad.append(f"attn: {a} -> {b}")
    elif a != b:
        bad.append(f"{k}: {a} -> {b}")
if bad:
    print("FAIL: link maps:", *bad, sep="\n  ")
    sys.exit(1)
print(f"mega_cute: {len(ko) - 1} op objects unchanged, the attention from the CuTe object")
PY
exit $fail
