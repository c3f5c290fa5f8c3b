/*
 * hw.h: the hardware constants every supported arch shares, read by plkc
 * (compiler/plk.h) and by device code (plk.cuh) alike, so that a limit is
 * written once. Per-arch limits live in arch.def.
 */
#ifndef PLK_HW_H
#define PLK_HW_H

#define PLK_WARP_THREADS 32      /* threads per warp */
#define PLK_WARPGROUP_WARPS 4    /* warps per warpgroup (wgmma, setmaxnreg) */
#define PLK_SETMAXNREG_MIN 24    /* setmaxnreg: a multiple of STEP in [MIN, MAX] */
#define PLK_SETMAXNREG_MAX 256
#define PLK_SETMAXNREG_STEP 8
#define PLK_MBAR_BYTES 8         /* an mbarrier's size and alignment */
#define PLK_TMA_BOX_MAX 256      /* elements per dimension of a TMA box */

#endif /* PLK_HW_H */
