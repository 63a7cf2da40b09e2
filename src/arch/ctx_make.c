/* Building a fresh context for the assembly switch routines. */
#include "ctx.h"

#include <string.h>

#if !defined(WEFT_CTX_UCONTEXT)

void weft_ctx_trampoline(void) __attribute__((visibility("hidden")));

void weft_ctx_make(weft_ctx *c, void *stack_lo, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)stack_lo + size) & ~(uintptr_t)15;
    memset(c, 0, sizeof *c);
#if defined(__x86_64__)
    /* The switch ends in `ret`: the resume address sits at rsp. After the
     * ret, rsp == top (16-aligned), so the trampoline's call leaves the
     * callee with the alignment the ABI promises at function entry. */
    top -= 8;
    *(uintptr_t *)top = (uintptr_t)weft_ctx_trampoline;
    c->rsp = top;
    c->r12 = (uint64_t)(uintptr_t)entry;
    c->r13 = (uint64_t)(uintptr_t)arg;
    c->mxcsr = 0x1F80; /* the ABI's initial control words */
    c->fpucw = 0x037F;
#elif defined(__aarch64__)
    c->sp = top;
    c->x30 = (uint64_t)(uintptr_t)weft_ctx_trampoline;
    c->x19_x28[0] = (uint64_t)(uintptr_t)entry;
    c->x19_x28[1] = (uint64_t)(uintptr_t)arg;
    c->fpcr = 0;
#endif
}

#endif
