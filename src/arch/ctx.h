/* Machine contexts: the one primitive the rest of weft needs from the CPU.
 * A context is the callee-saved state of a suspended flow of control.
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
#elif defined(__x86_64__)
typedef struct weft_ctx {
    uint64_t rsp, rbx, rbp, r12, r13, r14, r15;
    uint32_t mxcsr;
    uint16_t fpucw;
    uint16_t pad;
} weft_ctx;
_Static_assert(offsetof(weft_ctx, rsp) == WEFT_CTX_RSP, "ctx layout");
_Static_assert(offsetof(weft_ctx, rbx) == WEFT_CTX_RBX, "ctx layout");
_Static_assert(offsetof(weft_ctx, rbp) == WEFT_CTX_RBP, "ctx layout");
_Static_assert(offsetof(weft_ctx, r12) == WEFT_CTX_R12, "ctx layout");
_Static_assert(offsetof(weft_ctx, r13) == WEFT_CTX_R13, "ctx layout");
_Static_assert(offsetof(weft_ctx, r14) == WEFT_CTX_R14, "ctx layout");
_Static_assert(offsetof(weft_ctx, r15) == WEFT_CTX_R15, "ctx layout");
_Static_assert(offsetof(weft_ctx, mxcsr) == WEFT_CTX_MXCSR, "ctx layout");
_Static_assert(offsetof(weft_ctx, fpucw) == WEFT_CTX_FPUCW, "ctx layout");
_Static_assert(sizeof(weft_ctx) == WEFT_CTX_SIZE, "ctx layout");
#elif defined(__aarch64__)
typedef struct weft_ctx {
    uint64_t x19_x28[10];
    uint64_t x29, x30;
    uint64_t sp;
    uint64_t d8_d15[8];
    uint64_t fpcr;
} weft_ctx;
_Static_assert(offsetof(weft_ctx, x19_x28) == WEFT_CTX_X19, "ctx layout");
_Static_assert(offsetof(weft_ctx, x19_x28[2]) == WEFT_CTX_X21, "ctx layout");
_Static_assert(offsetof(weft_ctx, x19_x28[4]) == WEFT_CTX_X23, "ctx layout");
_Static_assert(offsetof(weft_ctx, x19_x28[6]) == WEFT_CTX_X25, "ctx layout");
_Static_assert(offsetof(weft_ctx, x19_x28[8]) == WEFT_CTX_X27, "ctx layout");
_Static_assert(offsetof(weft_ctx, x29) == WEFT_CTX_X29, "ctx layout");
_Static_assert(offsetof(weft_ctx, sp) == WEFT_CTX_SP, "ctx layout");
_Static_assert(offsetof(weft_ctx, d8_d15) == WEFT_CTX_D8, "ctx layout");
_Static_assert(offsetof(weft_ctx, d8_d15[2]) == WEFT_CTX_D10, "ctx layout");
_Static_assert(offsetof(weft_ctx, d8_d15[4]) == WEFT_CTX_D12, "ctx layout");
_Static_assert(offsetof(weft_ctx, d8_d15[6]) == WEFT_CTX_D14, "ctx layout");
_Static_assert(offsetof(weft_ctx, fpcr) == WEFT_CTX_FPCR, "ctx layout");
_Static_assert(sizeof(weft_ctx) == WEFT_CTX_SIZE, "ctx layout");
#else
#error "weft: no assembly context switch for this CPU; configure with -DWEFT_CONTEXT=ucontext"
#endif

/* Prepare `c` so that the first switch to it calls entry(arg) on the stack
 * [stack_lo, stack_lo + size). entry must never return. */
void weft_ctx_make(weft_ctx *c, void *stack_lo, size_t size, void (*entry)(void *), void *arg);

/* Save the running flow into `from`, resume `to`. Returns when something
 * switches back to `from`. */
void weft_ctx_switch(weft_ctx *from, const weft_ctx *to);

/* Resume `to` without saving the running flow. */
__attribute__((noreturn)) void weft_ctx_jump(const weft_ctx *to);

#endif
