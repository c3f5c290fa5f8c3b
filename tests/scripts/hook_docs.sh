#!/bin/bash
# docs/abi.md's section "Hooks" has exactly the rows of stdlib/hook.def,
# in its order: the table of kinds (name, index space, meaning) and the
# table of their functions (the provider's, the consumer's dispatch and
# the default). A C program that includes hook.def prints them, so they
# are read as plk.cuh, stdlib.c and abi.c read the table.
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "skip: no C compiler"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/rows.c" <<'EOF'
#include <stdio.h>
#include <string.h>
static const char *kind_of[16];
static void kind(int id, const char *name, int shaped, const char *doc)
{
	kind_of[id] = name;
	printf("K| `%s` | %s | %s |\n", name, shaped ? "`<R x C>`" : "none", doc);
}
static void fn(int k, const char *suffix, const char *ret, const char *args, const char *dispatch, const char *dflt)
{
	printf("F| `%s` | `%s <base>%s(int inst, <params>, %s` | ", kind_of[k], ret, suffix, args + 1);
	if (dispatch)
		printf("`%s %s(int inst, int port, const void *ctx, %s` | `%s` |\n", ret, dispatch, args + 1, dflt);
	else
		printf("the tile loop (`grid order`) | none |\n");
}
enum {
#define PLK_HOOK_KIND(id, name, shaped, doc) K_##id,
#include "hook.def"
};
int main(void)
{
#define PLK_HOOK_KIND(id, name, shaped, doc) kind(K_##id, #name, shaped, doc);
#define PLK_HOOK_FN(k, suffix, ret, args, types, dispatch, dflt) fn(K_##k, #suffix, #ret, #args, #dispatch, #dflt);
#define PLK_HOOK_DIRECT(k, suffix, ret, args, types) fn(K_##k, #suffix, #ret, #args, NULL, NULL);
#include "hook.def"
	return 0;
}
EOF
"$CC" -std=c11 -Wall -Werror -Istdlib -o "$tmp/rows" "$tmp/rows.c" || { echo "stdlib/hook.def does not compile as a table"; exit 1; }
"$tmp/rows" >"$tmp/all" || exit 1
sed -n 's/^K//p' "$tmp/all" >"$tmp/want_k"
sed -n 's/^F//p' "$tmp/all" >"$tmp/want_f"
[ -s "$tmp/want_k" ] && [ -s "$tmp/want_f" ] || { echo "stdlib/hook.def has no rows"; exit 1; }
# the two tables of "## Hooks": the rows after each header and |---| line
awk '/^## Hooks/ { sec = 1; next } sec && /^## / { exit }
     sec && /^\|/ { if (++n > 2) print > (t ? F : K); next }
     sec && n { t = 1; n = 0 }' K="$tmp/got_k" F="$tmp/got_f" docs/abi.md
fail=0
for t in k f; do
	if ! diff -u --label "stdlib/hook.def" --label "docs/abi.md" "$tmp/want_$t" "$tmp/got_$t"; then
		echo "docs/abi.md's table of hook $([ $t = k ] && echo kinds || echo functions) differs from stdlib/hook.def (-: what hook.def says)"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "$(wc -l <"$tmp/want_k") kinds, $(wc -l <"$tmp/want_f") functions"
exit $fail
