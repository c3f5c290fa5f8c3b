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
