#!/usr/bin/env python3
"""TextMate grammar test: editors/vscode/syntaxes/plk.tmLanguage.json run by
babi's TextMate engine (PyPI `babi`, on Oniguruma through onigurumacffi), line
by line as VS Code runs it.

  tm_snap.py PROBES.tsv FILE...

1. Every probe of plkref.py (file, line, col, class) must carry a scope its
   class calls for.
2. Each FILE's scopes must equal its committed snapshot
   tests/editors/<example|sample>_<name>.snap; UPDATE=1 rewrites them (and
   removes snapshots whose file is gone).

Snapshot format: each source line as `>line`, then one `#` line per token
that is not bare whitespace: carets under the token (its surrounding blanks
left out), then its scopes less the root `source.plk`.
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
GRAMMAR = os.path.join(ROOT, "editors", "vscode", "syntaxes", "plk.tmLanguage.json")

# Probe class -> scope prefixes, one of which some scope at the probe must have
# (None: no highlighting scope at all).
SCOPES = {
    "keyword": ("keyword.control.import.plk", "keyword.declaration", "keyword.other.plk"),
    "typekw": ("storage.type.plk",), "shapeop": ("keyword.operator.shape.plk",),
    "auto": ("constant.language.auto.plk",),
    "compname": ("entity.name.type.component.plk",),
    "kernelname": ("entity.name.function.kernel.plk",),
    "dtype": ("support.type.dtype.plk",), "layout": ("support.type.layout.plk",),
    "feature": ("support.constant.feature.plk",), "arch": ("support.constant.arch.plk",),
    "number": ("constant.numeric.integer.",), "unit": ("keyword.other.unit.suffix.plk",),
    "badnumber": ("invalid.illegal.numeric.plk",),
    "string": ("string.quoted.double.plk",), "escape": ("constant.character.escape.plk",),
    "badescape": ("invalid.illegal.unknown-escape.plk",), "comment": ("comment.",),
    "arrow": ("keyword.operator.arrow.plk",), "instance": ("variable.other.object.plk",),
    "port": ("variable.other.property.plk",),
    "instdef": ("variable.other.object.instance.plk",),
    "compref": ("entity.name.type.component.plk",),
    "operator": ("keyword.operator.",), "ident": None,
}
# Scopes that do not count as highlighting an identifier.
PLAIN = ("source.plk", "meta.", "punctuation.")


def load_compiler():
    from babi.highlight import Grammars
    d = tempfile.mkdtemp()
    try:
        # babi names a grammar file after its scope.
        shutil.copy(GRAMMAR, os.path.join(d, "source.plk.json"))
        g = Grammars(d)
        return g.compiler_for_scope("source.plk")
    finally:
        shutil.rmtree(d)


def tokenize(compiler, text):
    """[(line_no, line, [(start, end, scopes)])], lines without their newline."""
    from babi.highlight import highlight_line
    state = compiler.root_state
    out = []
    for i, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")):
        state, regions = highlight_line(compiler, state, line + "\n", i == 0)
        regs = [(r.start, min(r.end, len(line)), r.scope) for r in regions if r.start < len(line)]
        out.append((i + 1, line, regs))
    return out


def snapshot(toks):
    out = []
    for _, line, regs in toks:
        out.append(">" + line)
        for s, e, scope in regs:
            t = line[s:e]
            if not t.strip():
                continue
            s, e = s + len(t) - len(t.lstrip()), e - (len(t) - len(t.rstrip()))
            scopes = [x for x in scope if x != "source.plk"]
            out.append("#" + " " * s + "^" * (e - s) + " " + (" ".join(scopes) or "source.plk"))
    return "\n".join(out) + "\n"


def snap_path(path):
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    stem = os.path.splitext(os.path.basename(rel))[0]
    if rel.startswith("examples" + os.sep):
        stem = "example_" + stem
    elif not stem.startswith("sample_"):
        return None       # probed, not snapshotted
    return os.path.join(HERE, stem + ".snap")


def check_probes(compiler, probes, cache):
    bad, n = [], 0
    for row in open(probes, encoding="utf-8").read().splitlines():
        path, ln, col, cls, text = row.split("\t")
        if path not in cache:
            cache[path] = tokenize(compiler, open(path, encoding="utf-8").read())
        n += 1
        ln, col = int(ln), int(col) - 1
        scopes = ()
        for s, e, sc in cache[path][ln - 1][2]:
            if s <= col < e:
                scopes = sc
        want = SCOPES.get(cls, "unknown")
        if want is None:
            ok = all(x.startswith(PLAIN) for x in scopes)
        elif want == "unknown":
            ok = False
        else:
            ok = any(x.startswith(want) for x in scopes)
        if not ok:
            bad.append("%s:%d:%d: %r is %s: want %s, got %s" % (
                path, ln, col + 1, text, cls, " or ".join(want or ["no scope"]) if want != "unknown"
                else "a known class", " ".join(scopes) or "nothing"))
    return n, bad


def main(argv):
    if len(argv) < 1:
        sys.stderr.write(__doc__)
        return 2
    try:
        compiler = load_compiler()
    except ImportError as e:
        print("skip: no TextMate engine (%s): pip install babi "
              "(scripts/install-editor-deps.sh)" % e)
        return 77
    update = bool(os.environ.get("UPDATE"))
    cache = {}
    n, bad = check_probes(compiler, argv[0], cache)
    if n == 0:
        bad.append("no probes: nothing was checked")
    wanted = set()
    nsnap = 0
    for path in argv[1:]:
        sp = snap_path(path)
        if sp is None:
            continue
        wanted.add(sp)
        if path not in cache:
            cache[path] = tokenize(compiler, open(path, encoding="utf-8").read())
        got = snapshot(cache[path])
        nsnap += 1
        rel = os.path.relpath(sp, ROOT)
        if update:
            if not os.path.exists(sp) or open(sp, encoding="utf-8").read() != got:
                with open(sp, "w", encoding="utf-8") as f:
                    f.write(got)
                print("wrote %s" % rel)
            continue
        if not os.path.exists(sp):
            bad.append("%s: no snapshot for %s (UPDATE=1 %s writes it; read it before "
                       "committing)" % (rel, path, "tests/scripts/editors_textmate.sh"))
            continue
        exp = open(sp, encoding="utf-8").read()
        if exp != got:
            import difflib
            d = list(difflib.unified_diff(exp.splitlines(), got.splitlines(), rel, path, lineterm="", n=1))
            bad.append("%s: scopes differ from the snapshot (UPDATE=1 to accept):\n%s"
                       % (rel, "\n".join(d[:40])))
    for f in sorted(os.listdir(HERE)):
        sp = os.path.join(HERE, f)
        if f.endswith(".snap") and sp not in wanted:
            if update:
                os.remove(sp)
                print("removed %s" % os.path.relpath(sp, ROOT))
            else:
                bad.append("%s: snapshot of no file (UPDATE=1 removes it)" % os.path.relpath(sp, ROOT))
    for b in bad:
        print(b)
    print("textmate: %d probes, %d snapshots, %d wrong" % (n, nsnap, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
