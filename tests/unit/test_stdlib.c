/* test_stdlib.c: the tables generated from the stdlib .def files. */
#include "unit.h"

int main(void)
{
	const ArchInfo *a80 = arch_lookup("sm_80"), *a90 = arch_lookup("sm_90"),
	               *a90a = arch_lookup("sm_90a"), *a100 = arch_lookup("sm_100"),
	               *a100a = arch_lookup("sm_100a");
	CHECK(a80 && a90 && a90a && a100 && a100a);
	CHECK(!arch_lookup("sm_86") && !arch_lookup(NULL) && !arch_lookup("sm_90a "));
	CHECK_EQ_INT(a90a->sm, 90);
	CHECK_EQ_INT(a90a->arch_specific, 1);
	CHECK_EQ_INT(a90->arch_specific, 0);
	CHECK_EQ_INT(a90a->smem_per_block, 232448);         /* 227 KiB */
	CHECK_EQ_INT(a80->smem_per_block, 166912);          /* 163 KiB */
	CHECK_EQ_INT(a100a->tmem_columns, 512);
	CHECK_EQ_INT(a80->tmem_columns, 0);
	/* the 'a' features */
	CHECK(a90a->features & FEAT_WGMMA);
	CHECK(a90a->features & FEAT_SETMAXNREG);
	CHECK(!(a90->features & FEAT_WGMMA));
	CHECK(!(a90->features & FEAT_SETMAXNREG));
	CHECK(a90->features & FEAT_TMA);
	CHECK(!(a100a->features & FEAT_WGMMA));             /* wgmma is sm_90a only */
	CHECK(a100a->features & FEAT_TCGEN05);
	CHECK(!(a100->features & FEAT_TCGEN05));
	CHECK(!(a80->features & (FEAT_TMA | FEAT_CLUSTERS)));
	int n;
	const ArchInfo *all = arch_all(&n);
	CHECK_EQ_INT(n, 5);
	for (int i = 0; i < n; i++) {
		CHECK_EQ_INT(all[i].named_barriers, 16);
		CHECK_EQ_INT(all[i].max_threads, 1024);
		CHECK_EQ_INT(all[i].regs_per_sm, 65536);
		CHECK(all[i].features & FEAT_MMA_SYNC);
		CHECK(arch_lookup(all[i].name) == &all[i]);
	}

	CHECK_EQ_INT(dtype_lookup("bf16")->bits, 16);
	CHECK_EQ_INT(dtype_lookup("f32")->bits, 32);
	CHECK_EQ_INT(dtype_lookup("e4m3")->bits, 8);
	CHECK_STR(dtype_lookup("bf16")->ctype, "__nv_bfloat16");
	CHECK(!dtype_lookup("bf61"));

	const LayoutInfo *sw = layout_lookup("sw128"), *none = layout_lookup("none");
	CHECK(sw && !sw->frag && sw->align == 1024 && sw->swizzle_bytes == 128);
	CHECK(none && none->align == 128 && none->swizzle_bytes == 0);
	const LayoutInfo *acc = layout_lookup("wgmma_acc");
	CHECK(acc && acc->frag && acc->atom_rows == 64 && acc->atom_cols == 8 && acc->atom_warps == 4);
	const LayoutInfo *ma = layout_lookup("mma_a"), *mb = layout_lookup("mma_b"), *mc = layout_lookup("mma_acc");
	CHECK(ma && ma->atom_rows == 16 && ma->atom_cols == 16 && ma->atom_warps == 1);
	CHECK(mb && mb->atom_rows == 16 && mb->atom_cols == 8);
	CHECK(mc && mc->atom_rows == 16 && mc->atom_cols == 8);
	CHECK(!layout_lookup("sw256"));
	const LayoutInfo *ls = layout_all(&n);
	for (int i = 0; i < n; i++)
		CHECK(ls[i].frag ? ls[i].atom_rows > 0 && ls[i].atom_warps > 0
		                 : ls[i].align >= 128 && !(ls[i].align & (ls[i].align - 1)));

	CHECK_EQ_INT(feature_lookup("wgmma"), FEAT_WGMMA);
	CHECK_EQ_INT(feature_lookup("tma"), FEAT_TMA);
	CHECK_EQ_INT(feature_lookup("nope"), 0);
	CHECK_STR(feature_name(FEAT_TCGEN05), "tcgen05");
	const FeatureInfo *fs = feature_all(&n);
	CHECK_EQ_INT(n, 8);
	unsigned seen = 0;
	for (int i = 0; i < n; i++) {
		CHECK(!(seen & fs[i].bit));          /* one bit each */
		seen |= fs[i].bit;
		CHECK_EQ_INT(feature_lookup(fs[i].name), fs[i].bit);
	}
	UNIT_END();
}
