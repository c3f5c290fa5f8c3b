/* stdlib.c: the dtype, layout, feature and arch tables, generated from
 * the .def files in stdlib/, so that the checker and the placement share one source. */
#include <string.h>
#include "plk.h"

static const ArchInfo arches[] = {
#define ARCH(n, sm, a, f, smem, res, rsm, rthr, thr, nbar, tmem) \
	{ n, sm, a, f, smem, res, rsm, rthr, thr, nbar, tmem },
#include "../stdlib/arch.def"
#undef ARCH
};

static const DtypeInfo dtypes[] = {
#define DTYPE(n, bits, ct) { n, bits, ct },
#include "../stdlib/dtype.def"
#undef DTYPE
};

static const LayoutInfo layouts[] = {
#define SWIZZLE(n, align, sw) { n, 0, align, sw, 0, 0, 0, "shared-memory swizzle" },
#define FRAG(n, r, c, w, doc) { n, 1, 0, 0, r, c, w, doc },
#include "../stdlib/layout.def"
#undef SWIZZLE
#undef FRAG
};

static const FeatureInfo features[] = {
#define FEATURE(bit, n, doc) { bit, n, doc },
#include "../stdlib/feature.def"
#undef FEATURE
};

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

const ArchInfo *arch_all(int *n) { *n = COUNT(arches); return arches; }
const DtypeInfo *dtype_all(int *n) { *n = COUNT(dtypes); return dtypes; }
const LayoutInfo *layout_all(int *n) { *n = COUNT(layouts); return layouts; }
const FeatureInfo *feature_all(int *n) { *n = COUNT(features); return features; }

const ArchInfo *arch_lookup(const char *name)
{
	for (int i = 0; name && i < COUNT(arches); i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

const DtypeInfo *dtype_lookup(const char *name)
{
	for (int i = 0; name && i < COUNT(dtypes); i++)
		if (!strcmp(dtypes[i].name, name))
			return &dtypes[i];
	return NULL;
}

const LayoutInfo *layout_lookup(const char *name)
{
	for (int i = 0; name && i < COUNT(layouts); i++)
		if (!strcmp(layouts[i].name, name))
			return &layouts[i];
	return NULL;
}

unsigned feature_lookup(const char *name)
{
	for (int i = 0; name && i < COUNT(features); i++)
		if (!strcmp(features[i].name, name))
			return features[i].bit;
	return 0;
}

const char *feature_name(unsigned bit)
{
	for (int i = 0; i < COUNT(features); i++)
		if (features[i].bit == bit)
			return features[i].name;
	return NULL;
}

static const HookKind hook_kinds[] = {
#define PLK_HOOK_KIND(id, name, shaped, doc) { HK_##id, #name, shaped, doc },
#include "../stdlib/hook.def"
};

/* Every kind's functions, one flat table: a kind's rows follow each other. */
static const HookFnInfo hook_fn_rows[] = {
#define PLK_HOOK_FN(kind, suffix, ret, args, types, dispatch, dflt) \
	{ HK_##kind, #suffix, #ret, #args, types, #dispatch, #dflt },
#define PLK_HOOK_DIRECT(kind, suffix, ret, args, types) { HK_##kind, #suffix, #ret, #args, types, NULL, NULL },
#include "../stdlib/hook.def"
};

const HookKind *hook_kind_all(int *n) { *n = COUNT(hook_kinds); return hook_kinds; }

const HookKind *hook_kind_lookup(const char *name)
{
	for (int i = 0; name && i < COUNT(hook_kinds); i++)
		if (!strcmp(hook_kinds[i].name, name))
			return &hook_kinds[i];
	return NULL;
}

const HookFnInfo *hook_fns(int kind, int *n)
{
	int first = -1;
	*n = 0;
	for (int i = 0; i < COUNT(hook_fn_rows); i++)
		if (hook_fn_rows[i].kind == kind) {
			if (first < 0)
				first = i;
			++*n;
		}
	return first < 0 ? NULL : &hook_fn_rows[first];
}

const char *hook_fn_name(Ctx *c, const char *base, const HookFnInfo *f)
{
	return arena_printf(c->arena, "%s%s", base, f->suffix);
}

const char *hook_arg_name(const HookFnInfo *f, int i, char *buf, size_t n)
{
	/* "(float score, int b)": the last word of the i-th comma-separated part */
	const char *s = f->cargs + 1;
	for (int k = 0; k < i && s; k++)
		if ((s = strchr(s, ',')))
			s++;
	const char *e = s ? s + strcspn(s, ",)") : NULL;
	const char *w = e;
	while (w && w > s && (w[-1] == '_' || (w[-1] >= 'a' && w[-1] <= 'z') || (w[-1] >= 'A' && w[-1] <= 'Z') ||
	                      (w[-1] >= '0' && w[-1] <= '9')))
		w--;
	snprintf(buf, n, "%.*s", w ? (int)(e - w) : 0, w ? w : "");
	return buf;
}
