/* Machine contexts: the one primitive the rest of weft needs from the CPU.
 * A context is the callee-saved state of a suspended flow of control:
 * with the assembly switch, a frame on the flow's own stack and the stack
 * pointer to it.
 * Switching saves the current flow into `from` and resumes `to`; jumping
 * resumes `to` without saving anything (the caller is finished, [Argobots]
 * section 3.4: a terminating ULT's context is never used again). */
#ifndef WEFT_ARCH_CTX_H
#define WEFT_ARCH_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "ctx_offsets.h"

#if defined(WEFT_CTX_UCONTEXT)
#include <ucontext.h>
typedef struct weft_ctx {
    ucontext_t uc;
} weft_ctx;
#elif defined(__x86_64__) || defined(__aarch64__)
/* The stack pointer of a suspended flow; its registers sit in a frame at
 * that address on its own stack (ctx_offsets.h). */
typedef struct weft_ctx {
    uintptr_t sp;
} weft_ctx;
#else
#error "weft: no assembly context switch for this CPU; configure with -DWEFT_CONTEXT=ucontext"
#endif

/* Prepare `c` so that the first switch to it calls entry(arg) on the stack
 * [stack_lo, stack_lo + size). The assembly switch writes the first frame
 * at the top of that stack, so it must be writable now. entry must never
 * return. */
void weft_ctx_make(weft_ctx *c, void *stack_lo, size_t size, void (*entry)(void *), void *arg);

/* Save the running flow into `from`, resume `to`. Returns when something
 * switches back to `from`. */
void weft_ctx_switch(weft_ctx *from, const weft_ctx *to);

/* Resume `to` without saving the running flow. */
__attribute__((noreturn)) void weft_ctx_jump(const weft_ctx *to);

#endif
