/*
 * softcap: the score mod of Gemma-2 and Grok: score -> cap * tanh(score /
 * cap), with the hardware's tanh approximation (sm_75+, relative error
 * about 2^-11: below bf16's resolution). Contract: softcap.plk.
 */
#include "plk.cuh"

#ifndef PLK_SOFTCAP_PLK_H
#include <softcap.plk.h>
#endif

PLK_ENTRY float plk_softcap(int inst, float cap, float score, int b, int h, int q, int kv)
{
	float t;
	asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(score * (1.f / cap)));
	return cap * t;
}
