#!/bin/bash
# docs/architecture.md is where a newcomer starts: every source file of
# the compiler and the runtime has a row in its tables (`name.c`), and
# every row names a file that exists. Exit 0 pass, 1 fail.
fail=0
doc=docs/architecture.md
for f in compiler/*.c compiler/*.h runtime/*.c runtime/*.h runtime/*.cc; do
	b=$(basename "$f")
	grep -q "^| \`$b\`\|^| \`[^|]*\`, \`$b\`" "$doc" || { echo "FAIL: $f has no row in $doc"; fail=1; }
done
for b in $(grep -o '^| `[a-z_./-]*\.\(c\|h\|cc\|py\)`' "$doc" | tr -d '|` '); do
	[ -e "compiler/$b" ] || [ -e "runtime/$b" ] || { echo "FAIL: $doc has a row for $b, which is not in compiler/ or runtime/"; fail=1; }
done
exit $fail
