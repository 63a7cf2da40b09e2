/* Building a fresh context for the assembly switch routines. */
#include "ctx.h"

#include <string.h>

#if !defined(WEFT_CTX_UCONTEXT)

void weft_ctx_trampoline(void) __attribute__((visibility("hidden")));

void weft_ctx_make(weft_ctx *c, void *stack_lo, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)stack_lo + size) & ~(uintptr_t)15;
    uint64_t *f = (uint64_t *)(top - WEFT_FRAME_SIZE);
    memset(f, 0, WEFT_FRAME_SIZE);
#if defined(__x86_64__)
    /* The first switch pops the frame and ends in `ret`, which takes the
     * trampoline's address and leaves rsp == top (16-aligned): the
     * trampoline's call then gives the callee the alignment the ABI
     * promises at function entry. */
    f[WEFT_FRAME_RET / 8] = (uint64_t)(uintptr_t)weft_ctx_trampoline;
    f[WEFT_FRAME_R12 / 8] = (uint64_t)(uintptr_t)entry;
    f[WEFT_FRAME_R13 / 8] = (uint64_t)(uintptr_t)arg;
    uint32_t fpu[2] = {0x1F80, 0x037F}; /* the ABI's initial mxcsr and x87 control word */
    memcpy(&f[WEFT_FRAME_FPU / 8], fpu, sizeof fpu);
#elif defined(__aarch64__)
    f[WEFT_FRAME_X19 / 8] = (uint64_t)(uintptr_t)entry;
    f[WEFT_FRAME_X19 / 8 + 1] = (uint64_t)(uintptr_t)arg;
    f[WEFT_FRAME_X29 / 8 + 1] = (uint64_t)(uintptr_t)weft_ctx_trampoline; /* x30 */
#endif
    c->sp = (uintptr_t)f;
}

#endif
