/* Portable fallback over ucontext (selected with -DWEFT_CONTEXT=ucontext).
 * Slower: swapcontext saves the signal mask with a system call. */
#include "ctx.h"

#if defined(WEFT_CTX_UCONTEXT)

#include <stdlib.h>

/* makecontext passes int arguments only: split the pointers. */
static void uc_trampoline(unsigned eh, unsigned el, unsigned ah, unsigned al)
{
    void (*entry)(void *) = (void (*)(void *))(((uintptr_t)eh << 32) | el);
    void *arg = (void *)(((uintptr_t)ah << 32) | al);
    entry(arg);
    abort(); /* entries never return */
}

void weft_ctx_make(weft_ctx *c, void *stack_lo, size_t size, void (*entry)(void *), void *arg)
{
    getcontext(&c->uc);
#if defined(__x86_64__)
    /* getcontext copied the creator's FP control words; a new flow starts
     * with the ABI's defaults, as with the assembly switch. */
    if (c->uc.uc_mcontext.fpregs) {
        c->uc.uc_mcontext.fpregs->cwd = 0x037F;
        c->uc.uc_mcontext.fpregs->mxcsr = 0x1F80;
    }
#endif
    c->uc.uc_stack.ss_sp = stack_lo;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = NULL;
    uintptr_t e = (uintptr_t)entry, a = (uintptr_t)arg;
    makecontext(&c->uc, (void (*)(void))uc_trampoline, 4, (unsigned)(e >> 32), (unsigned)e,
                (unsigned)(a >> 32), (unsigned)a);
}

void weft_ctx_switch(weft_ctx *from, const weft_ctx *to)
{
    swapcontext(&from->uc, &to->uc);
}

void weft_ctx_jump(const weft_ctx *to)
{
    setcontext(&to->uc);
    abort();
}

#endif
