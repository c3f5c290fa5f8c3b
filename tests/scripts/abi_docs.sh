#!/bin/bash
# docs/abi.md's table "Functions the glue defines" has exactly the rows of
# stdlib/abi.def, in its order: each function's signature (return type,
# name, parameters) and its meaning. The rows are printed by a C program
# that includes abi.def, so they read it as plk.cuh and glue.c do.
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "skip: no C compiler"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/rows.c" <<'EOF'
#include <stdio.h>
#include <string.h>
static void row(const char *ret, const char *name, const char *params, const char *meaning)
{
	printf("| `%s%s%s%s` | %s |\n", ret, ret[strlen(ret) - 1] == '*' ? "" : " ", name, params, meaning);
}
int main(void)
{
#define PLK_ABI(id, name, ret, params, nkeys, kind, meaning) row(#ret, #name, #params, meaning);
#include "abi.def"
	return 0;
}
EOF
"$CC" -std=c11 -Wall -Werror -Istdlib -o "$tmp/rows" "$tmp/rows.c" || { echo "stdlib/abi.def does not compile as a table"; exit 1; }
"$tmp/rows" >"$tmp/want" || exit 1
[ -s "$tmp/want" ] || { echo "stdlib/abi.def has no rows"; exit 1; }
# the table's rows: after the heading, its header and its |---| line
awk '/^## Functions the glue defines/ { sec = 1; next }
     sec && /^\|/ { if (++n > 2) print; next }
     sec && n { exit }' docs/abi.md >"$tmp/got"
if ! diff -u --label "stdlib/abi.def" --label "docs/abi.md" "$tmp/want" "$tmp/got"; then
	echo "docs/abi.md's table of the functions the glue defines differs from stdlib/abi.def (-: what abi.def says)"
	exit 1
fi
echo "$(wc -l <"$tmp/want") functions"
