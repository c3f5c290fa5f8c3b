#!/usr/bin/env python3
"""Reference lexer for the editor tests: the one place that knows the names.

Keywords come from grammar/lexer.re (one re2c rule per keyword:
`"component" { return KW_COMPONENT; }`); until that file exists, from the
keyword block of docs/language.md. Dtypes, layouts and features come from the
X-macro files stdlib/*.def (`DTYPE(bf16, ...)`, `LAYOUT(sw128, ...)`,
`FEATURE(tma, ...)`); until they exist, from FALLBACK below. Extracting zero
keywords is an error, so the tests cannot pass vacuously.

The classifier below tokenizes .plk text the way the editor modes should
colour it; each token becomes a probe (file, line, col, class) that the Vim,
Emacs and TextMate tests look up in their editor and map to a group, face or
scope. A synthetic file with every extracted name is probed too, so an editor
that lacks a keyword or type name fails.

  plkref.py names                    list the extracted names
  plkref.py probes OUTDIR FILE...    write OUTDIR/names.plk and OUTDIR/probes.tsv
  plkref.py compare vim GOT.tsv      check Vim's groups at the probes
  plkref.py selftest                 test the extractors and the classifier
  plkref.py sync [--check]           rewrite the name lists in editors/ (--check:
                                     only report the files that are out of date)
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Used only while stdlib/*.def does not exist yet (the names the docs use).
FALLBACK = {
    "dtype": ["bf16", "f16", "f32", "f64", "i8", "u8", "i16", "u16", "i32", "u32",
              "i64", "u64", "e4m3", "e5m2", "tf32"],
    "layout": ["sw32", "sw64", "sw128", "wgmma_acc"],
    "feature": ["cp_async", "mma_sync", "tma", "wgmma", "setmaxnreg", "clusters",
                "tcgen05", "tmem"],
}
MACRO_CLASS = {"DTYPE": "dtype", "LAYOUT": "layout", "FEATURE": "feature"}

# Keywords that are not plain keywords for highlighting purposes.
KEYWORD_CLASS = {"tile": "typekw", "frag": "typekw", "tensor": "typekw",
                 "tensormap": "typekw", "ptr": "typekw", "x": "shapeop", "auto": "auto"}

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
ARCH_RE = re.compile(r"sm_[0-9]+a?\Z")


class Names:
    def __init__(self, root=ROOT):
        self.root = root
        self.keywords, self.keyword_source = self._keywords()
        self.stdlib, self.stdlib_source = self._stdlib()

    def _keywords(self):
        lexer = os.path.join(self.root, "grammar", "lexer.re")
        if os.path.exists(lexer):
            text = open(lexer, encoding="utf-8").read()
            # "word" or 'word' (re2c's case-insensitive string), then an action
            # returning a KW_ token.
            rule = re.compile(r"""(["'])(%s)\1\s*\{[^{}]*?\breturn\s+KW_[A-Z0-9_]+\b""" % IDENT)
            kws = sorted({m.group(2) for m in rule.finditer(text)})
            return kws, "grammar/lexer.re"
        doc = open(os.path.join(self.root, "docs", "language.md"), encoding="utf-8").read()
        m = re.search(r"^Keywords:\s*\n+```[^\n]*\n(.*?)^```", doc, re.M | re.S)
        kws = sorted(set(m.group(1).split())) if m else []
        return kws, "docs/language.md"

    def _stdlib(self):
        """Names of the X-macro entries of stdlib/{dtype,layout,feature,arch}.def.

        An entry is a line `MACRO(args...)`; its name is the first argument,
        quoted or bare (`DTYPE("bf16", ...)`, `LAYOUT(sw128, ...)`), unless
        that is an ALL_CAPS constant: then the first quoted identifier
        (`FEATURE(FEAT_TMA, "tma", ...)`)."""
        d = os.path.join(self.root, "stdlib")
        names = {k: set() for k in FALLBACK}
        names["arch"] = set()
        src = {}
        for k in names:
            path = os.path.join(d, k + ".def")
            if not os.path.exists(path):
                continue
            text = open(path, encoding="utf-8").read()
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            text = re.sub(r"//[^\n]*", "", text)
            for line in text.splitlines():
                m = re.match(r"\s*[A-Z][A-Z0-9_]*\s*\((.*)\)", line)
                if not m:
                    continue
                args = [a.strip() for a in re.findall(r'"(?:\\.|[^"\\])*"|[^,]+', m.group(1))]
                first = args[0] if args else ""
                quoted = [a[1:-1] for a in args if re.match(r'"%s"\Z' % IDENT, a)]
                if re.match(r'"%s"\Z' % IDENT, first):
                    names[k].add(first[1:-1])
                elif re.match(IDENT + r"\Z", first) and not re.match(r"[A-Z][A-Z0-9_]*\Z", first):
                    names[k].add(first)
                elif quoted:           # FEATURE(FEAT_TMA, "tma", ...)
                    names[k].add(quoted[0])
            src[k] = "stdlib/%s.def" % k
        for k in FALLBACK:
            if not names[k]:
                names[k] = set(FALLBACK[k])
                src[k] = "built-in fallback (no stdlib/%s.def entries)" % k
        if not names["arch"]:
            names["arch"] = {"sm_80", "sm_90a", "sm_100a"}
            src["arch"] = "built-in fallback"
        return {k: sorted(v) for k, v in names.items()}, src

    def check(self):
        if not self.keywords:
            sys.exit("plkref: extracted no keywords from %s: has its format changed?"
                     % self.keyword_source)
        for a in self.stdlib["arch"]:
            if not ARCH_RE.match(a):
                sys.exit("plkref: arch %r from %s does not match sm_[0-9]+a?: "
                         "teach the editor modes its form" % (a, self.stdlib_source["arch"]))

    def word_class(self, w):
        if w in self.keywords:
            return KEYWORD_CLASS.get(w, "keyword")
        if ARCH_RE.match(w):
            return "arch"
        for k in ("dtype", "layout", "feature"):
            if w in self.stdlib[k]:
                return k
        return "ident"


TOKEN = re.compile(r"""
    (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?(?:\*/|\Z))
  | (?P<string>"(?:\\.|[^"\\\n])*"?)
  | (?P<number>(?:0[xX][0-9A-Fa-f_]+|0[bB][01_]+|[0-9][0-9_]*(?P<unit>KiB|MiB|K|M)?)(?![A-Za-z0-9_]))
  | (?P<badnumber>[0-9][A-Za-z0-9_]*)
  | (?P<portref>(?P<inst>%(id)s)[ \t]*\.[ \t]*(?P<port>%(id)s))
  | (?P<word>%(id)s)
  | (?P<arrow>->)
  | (?P<other>\S)
""" % {"id": IDENT}, re.S | re.X)
ESCAPE = re.compile(r"\\.")


def classify(text, names):
    """Yield (offset, length, class) for the start of every token worth probing."""
    prev = []          # the last word, for declaration names
    prev_end = 0
    kw = ("keyword", "typekw", "shapeop", "auto")
    for m in TOKEN.finditer(text):
        if m.group("lcomment") is not None or m.group("bcomment") is not None:
            yield m.start(), len(m.group()), "comment"
            continue
        if m.group("string") is not None:
            s = m.group("string")
            yield m.start(), 1, "string"
            for e in ESCAPE.finditer(s):
                yield m.start() + e.start(), 2, "escape" if e.group()[1] in '"\\nt' else "badescape"
            prev = []
            continue
        if m.group("number") is not None:
            yield m.start(), 1, "number"
            if m.group("unit"):
                yield m.start("unit"), len(m.group("unit")), "unit"
            prev = []
            continue
        if m.group("badnumber") is not None:
            yield m.start(), 1, "badnumber"
            prev = []
            continue
        # Any non-keyword names an instance or port, even one spelt like a
        # dtype or an arch: in `a.b` position the editors colour it as such.
        if m.group("portref") is not None and names.word_class(m.group("inst")) not in kw \
                and names.word_class(m.group("port")) not in kw:
            yield m.start("inst"), len(m.group("inst")), "instance"
            yield m.start("port"), len(m.group("port")), "port"
            prev = []
            continue
        if m.group("word") is not None or m.group("portref") is not None:
            w = m.group("word") or m.group("inst")
            start = m.start("word") if m.group("word") else m.start("inst")
            c = names.word_class(w)
            if c == "ident" and prev and prev[-1] in ("component", "kernel", "select") \
                    and "\n" not in text[prev_end:start]:
                c = "compname" if prev[-1] == "component" else "kernelname"
            yield start, len(w), c
            prev = [w]
            prev_end = start + len(w)
            if m.group("portref") is not None:   # a keyword before a dot: rescan the rest
                rest = m.group("port")
                yield m.start("port"), len(rest), names.word_class(rest)
            continue
        if m.group("arrow") is not None:
            yield m.start(), 2, "arrow"
        prev = []


def line_col(text):
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    import bisect

    def lc(off):
        ln = bisect.bisect_right(starts, off) - 1
        # columns are 1-based byte columns (Vim's col()); .plk code is ASCII
        return ln + 1, len(text[starts[ln]:off].encode("utf-8")) + 1
    return lc


def probes_for(path, names):
    text = open(path, encoding="utf-8").read()
    lc = line_col(text)
    for off, n, c in classify(text, names):
        ln, col = lc(off)
        yield ln, col, c, text[off:off + n].split("\n")[0]


def synthetic(names):
    """Every extracted name alone on a line (with its class as a comment)."""
    out = []
    for w in names.keywords:
        out.append(w)
    for k in ("dtype", "layout", "feature"):
        out.extend(names.stdlib[k])
    out.extend(names.stdlib["arch"])
    return "\n".join(out) + "\n"


def read_expect(path):
    """Hand-written expectations: `LINE:COL CLASS [text]` lines, # comments."""
    for raw in open(path, encoding="utf-8"):
        raw = raw.split("#", 1)[0].strip()
        if not raw:
            continue
        pos, cls = raw.split()[:2]
        ln, col = pos.split(":")
        yield int(ln), int(col), cls


# ---------------------------------------------------------------- sync
IMPORT_KW = ("use", "object")
DECL_KW = ("component", "kernel", "select", "const")


def keyword_groups(names):
    """Keywords split the way the editor files colour them."""
    g = {"import": [], "decl": [], "keyword": [], "typekw": [], "shapeop": [], "auto": []}
    for w in names.keywords:
        c = KEYWORD_CLASS.get(w, "keyword")
        if c == "keyword" and w in IMPORT_KW:
            c = "import"
        elif c == "keyword" and w in DECL_KW:
            c = "decl"
        g[c].append(w)
    return g


def gen_vim(names):
    g = keyword_groups(names)
    out = []
    nextgroup = {"component": "plkCompName", "kernel": "plkKernelName", "select": "plkKernelName"}
    for c, group in (("import", "plkInclude"), ("decl", "plkDecl"), ("keyword", "plkKeyword"),
                     ("typekw", "plkTypeKeyword"), ("shapeop", "plkShapeOp"), ("auto", "plkAuto")):
        plain = [w for w in g[c] if w not in nextgroup]
        if plain:
            out.append("syn keyword %s %s" % (group, " ".join(plain)))
        for w in g[c]:
            if w in nextgroup:
                out.append("syn keyword %s %s nextgroup=%s skipwhite" % (group, w, nextgroup[w]))
    for k, group in (("dtype", "plkDtype"), ("layout", "plkLayout"), ("feature", "plkFeature")):
        out.append("syn match %s /\\<\\%%(%s\\)\\>/" % (group, "\\|".join(names.stdlib[k])))
    return "\n".join(out) + "\n"


def gen_emacs(names):
    g = keyword_groups(names)

    def const(sym, words, doc):
        body = " ".join('"%s"' % w for w in words)
        return '(defconst %s\n  \'(%s)\n  "%s")\n' % (sym, body, doc)
    kws = g["import"] + g["decl"] + g["keyword"]
    return "".join([
        const("plk-keywords", sorted(kws), "Keywords of the lexer."),
        const("plk-type-keywords", g["typekw"], "Keywords that build types."),
        const("plk-operator-keywords", g["shapeop"], "Keywords that are operators."),
        const("plk-constant-keywords", g["auto"], "Keywords that are values."),
        const("plk-dtypes", names.stdlib["dtype"], "Element types of stdlib/dtype.def."),
        const("plk-layouts", names.stdlib["layout"], "Swizzles and fragment layouts of stdlib/layout.def."),
        const("plk-features", names.stdlib["feature"], "Arch features of stdlib/feature.def."),
    ])


def gen_textmate(names, grammar):
    g = keyword_groups(names)
    alt = lambda ws: "\\b(?:%s)\\b" % "|".join(ws)
    pats = []
    for c, scope in (("import", "keyword.control.import.plk"), ("decl", "keyword.declaration.plk"),
                     ("keyword", "keyword.other.plk"), ("typekw", "storage.type.plk"),
                     ("shapeop", "keyword.operator.shape.plk"), ("auto", "constant.language.auto.plk")):
        if g[c]:
            pats.append({"name": scope, "match": alt(g[c])})
    r = grammar["repository"]
    r["keywords"] = {"patterns": pats}
    r["dtypes"] = {"name": "support.type.dtype.plk", "match": alt(names.stdlib["dtype"])}
    r["layouts"] = {"name": "support.type.layout.plk", "match": alt(names.stdlib["layout"])}
    r["features"] = {"name": "support.constant.feature.plk", "match": alt(names.stdlib["feature"])}
    return grammar


def replace_block(text, body, lead):
    begin, end = lead + " BEGIN GENERATED\n", lead + " END GENERATED\n"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise SystemExit("plkref: no %r ... %r markers" % (begin.strip(), end.strip()))
    return text[:i + len(begin)] + body + text[j:]


def sync(names, check):
    import json
    stale = []
    files = [("editors/vim/syntax/plk.vim", lambda t: replace_block(t, gen_vim(names), '"')),
             ("editors/emacs/plk-mode.el", lambda t: replace_block(t, gen_emacs(names), ";;")),
             ("editors/vscode/syntaxes/plk.tmLanguage.json",
              lambda t: json.dumps(gen_textmate(names, json.loads(t)), indent=2) + "\n")]
    for rel, fn in files:
        path = os.path.join(names.root, rel)
        old = open(path, encoding="utf-8").read()
        new = fn(old)
        if new != old:
            stale.append(rel)
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    for rel in stale:
        print("%s %s" % ("out of date:" if check else "updated", rel))
    return 1 if check and stale else 0


# ------------------------------------------------------------ selftest
def selftest():
    import tempfile

    def tree(files):
        d = tempfile.mkdtemp()
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)
        return d
    fails = []

    def expect(what, got, want):
        if got != want:
            fails.append("%s: got %r, want %r" % (what, got, want))
    doc = open(os.path.join(ROOT, "docs", "language.md"), encoding="utf-8").read()
    n = Names(tree({"docs/language.md": doc}))
    expect("docs keyword source", n.keyword_source, "docs/language.md")
    for w in ("use", "component", "kernel", "x", "tile", "ptr", "auto"):
        expect("docs keyword %s" % w, w in n.keywords, True)
    expect("docs keywords are identifiers", all(re.match(IDENT + r"\Z", w) for w in n.keywords), True)
    lexer = ('/*!re2c\n\t"use"  { SPAN(); return KW_USE; }\n'
             "\t'kernel' {return KW_KERNEL;}\n"
             '\t"x" {\n\t\tSPAN();\n\t\treturn KW_X;\n\t}\n'
             '\t"->" { SPAN(); return ARROW; }\n\t"sm_" [0-9]+ { return ARCH; }\n'
             '\t"none" { return IDENT; }\n*/\n')
    defs = {"stdlib/dtype.def": '/* DTYPE(name, bits) */\nDTYPE("bf16", 16, "__nv_bfloat16")\n'
                                '#define X(a) a\nDTYPE(f8, 8, "char") // bare name\n',
            "stdlib/feature.def": 'FEATURE(FEAT_TMA, "tma", "bulk copies, with a comma")\n',
            "stdlib/layout.def": 'SWIZZLE("sw128", 1024, 128)\nFRAG("wgmma_acc", 64, 8, 4, "x")\n',
            "stdlib/arch.def": 'ARCH("sm_90a", 90, 1)\n'}
    n = Names(tree(dict({"grammar/lexer.re": lexer, "docs/language.md": doc}, **defs)))
    expect("lexer keywords", n.keywords, ["kernel", "use", "x"])
    expect("dtypes", n.stdlib["dtype"], ["bf16", "f8"])
    expect("features", n.stdlib["feature"], ["tma"])
    expect("layouts", n.stdlib["layout"], ["sw128", "wgmma_acc"])
    expect("archs", n.stdlib["arch"], ["sm_90a"])
    n = Names(tree({"grammar/lexer.re": "/*!re2c ident { return IDENT; } */", "docs/language.md": doc}))
    try:
        n.check()
        fails.append("no keywords extracted, yet check() passed")
    except SystemExit:
        pass
    n = Names()
    got = [(c, "x.plk: a.b -> c . d 0x10 64K 1x \"s\\n\" sm_90a tma // c"[o:o + l])
           for o, l, c in classify("x.plk: a.b -> c . d 0x10 64K 1x \"s\\n\" sm_90a tma // c", n)]
    expect("classify", got, [
        ("shapeop", "x"), ("ident", "plk"), ("instance", "a"), ("port", "b"), ("arrow", "->"),
        ("instance", "c"), ("port", "d"), ("number", "0"), ("number", "6"), ("unit", "K"),
        ("badnumber", "1"), ("string", '"'), ("escape", "\\n"), ("arch", "sm_90a"),
        ("feature", "tma"), ("comment", "// c")])
    for f in fails:
        print("selftest: " + f)
    print("plkref selftest: %d failed" % len(fails))
    return 1 if fails else 0


# ------------------------------------------------------------- compare
# Probe class -> the Vim syntax groups that may stand there.
VIM_GROUPS = {
    "keyword": {"plkInclude", "plkDecl", "plkKeyword"}, "typekw": {"plkTypeKeyword"},
    "shapeop": {"plkShapeOp"}, "auto": {"plkAuto"}, "compname": {"plkCompName"},
    "kernelname": {"plkKernelName"}, "dtype": {"plkDtype"}, "layout": {"plkLayout"},
    "feature": {"plkFeature"}, "arch": {"plkArch"}, "number": {"plkNumber"}, "unit": {"plkUnit"},
    "badnumber": {"plkBadNumber"}, "string": {"plkString"}, "escape": {"plkEscape"},
    "badescape": {"plkBadEscape"}, "comment": {"plkComment"}, "arrow": {"plkArrow"},
    "instance": {"plkInstance"}, "port": {"plkPort"}, "instdef": {"plkInstanceDef"},
    "compref": {"plkCompRef"}, "ident": {""}, "operator": {"plkOperator"},
}
VIM_CHECKS = {
    "filetype": "plk",
    "commentstring": "// %s",
    "reindent": "same",
    "quickfix": "tests/editors/samples/sample_gemm.plk:8:13:e:[E0301]: unknown arch `sm_91`"
                "|sample_lexical.plk:2:1:w:[W0001]: unused component",
}


def compare(editor, got_path):
    if editor != "vim":
        sys.exit("plkref: compare knows only vim")
    bad, n, checks = [], 0, set()
    for row in open(got_path, encoding="utf-8").read().splitlines():
        f = row.split("\t")
        if f[0] == "check" and f[1] == "make":
            # a broken file: every quickfix entry an error with its code
            if not re.match(r"\d+:\d+:e:\[E\d{4}\](\|\d+:\d+:e:\[E\d{4}\])*\Z", f[2]):
                bad.append("plkc --diagnostics-format=short through :make: got %r" % f[2])
            continue
        if f[0] == "check":
            checks.add(f[1])
            if f[2] != VIM_CHECKS.get(f[1]):
                bad.append("%s: got %r, want %r" % (f[1], f[2], VIM_CHECKS.get(f[1])))
            continue
        path, ln, col, cls, text, group = f
        n += 1
        want = VIM_GROUPS.get(cls)
        if want is None:
            bad.append("%s:%s:%s: unknown class %r" % (path, ln, col, cls))
        elif group not in want:
            bad.append("%s:%s:%s: %r is %s: want %s, got %s" % (
                path, ln, col, text, cls, "/".join(sorted(want)) or "none", group or "none"))
    for c in sorted(set(VIM_CHECKS) - checks):
        bad.append("%s: not reported" % c)
    if n == 0:
        bad.append("no probes: nothing was checked")
    for b in bad:
        print(b)
    if bad:
        print("(a lexer keyword or stdlib name missing? `python3 tests/editors/plkref.py sync` "
              "updates the editor files)")
    print("vim: %d probes, %d checks, %d wrong" % (n, len(checks), len(bad)))
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ["selftest"]:
        return selftest()
    names = Names()
    names.check()
    if argv[:1] == ["names"]:
        print("keywords (%s): %s" % (names.keyword_source, " ".join(names.keywords)))
        for k, v in names.stdlib.items():
            print("%s (%s): %s" % (k, names.stdlib_source[k], " ".join(v)))
        return 0
    if argv[:1] == ["probes"] and len(argv) >= 2:
        outdir = argv[1]
        syn = os.path.join(outdir, "names.plk")
        with open(syn, "w", encoding="utf-8") as f:
            f.write(synthetic(names))
        rows = []
        for path in [syn] + argv[2:]:
            for ln, col, c, t in probes_for(path, names):
                if c != "ident":
                    rows.append((path, ln, col, c, t))
            exp = re.sub(r"\.plk$", ".expect", path)
            if os.path.exists(exp):
                lines = open(path, encoding="utf-8").read().split("\n")
                for ln, col, c in read_expect(exp):
                    t = re.match(r"\w+|->|>=|\S|", lines[ln - 1][col - 1:]).group()
                    rows.append((path, ln, col, c, t))
        with open(os.path.join(outdir, "probes.tsv"), "w", encoding="utf-8") as f:
            for r in rows:
                f.write("%s\t%d\t%d\t%s\t%s\n" % r)
        print("plkref: %d probes (keywords from %s)" % (len(rows), names.keyword_source))
        return 0
    if argv[:1] == ["compare"] and len(argv) == 3:
        return compare(argv[1], argv[2])
    if argv[:1] == ["selftest"]:
        return selftest()
    if argv[:1] == ["sync"]:
        return sync(names, argv[1:] == ["--check"])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
