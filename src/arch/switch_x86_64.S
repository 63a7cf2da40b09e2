/* x86-64 SysV context switch. Offsets come from ctx_offsets.h. */
#include "ctx_offsets.h"

    .text

/* void weft_ctx_switch(weft_ctx *from [rdi], const weft_ctx *to [rsi]) */
    .globl weft_ctx_switch
    .hidden weft_ctx_switch
    .type weft_ctx_switch, @function
    .p2align 4
weft_ctx_switch:
    .cfi_startproc
    movq %rsp, WEFT_CTX_RSP(%rdi)   /* rsp points at our return address */
    movq %rbx, WEFT_CTX_RBX(%rdi)
    movq %rbp, WEFT_CTX_RBP(%rdi)
    movq %r12, WEFT_CTX_R12(%rdi)
    movq %r13, WEFT_CTX_R13(%rdi)
    movq %r14, WEFT_CTX_R14(%rdi)
    movq %r15, WEFT_CTX_R15(%rdi)
#ifdef WEFT_PRESERVE_FPU
    stmxcsr WEFT_CTX_MXCSR(%rdi)
    fnstcw  WEFT_CTX_FPUCW(%rdi)
#endif
    movq %rsi, %rdi
    jmp weft_ctx_jump_body
    .cfi_endproc
    .size weft_ctx_switch, .-weft_ctx_switch

/* void weft_ctx_jump(const weft_ctx *to [rdi]) */
    .globl weft_ctx_jump
    .hidden weft_ctx_jump
    .type weft_ctx_jump, @function
    .p2align 4
weft_ctx_jump:
    .cfi_startproc
weft_ctx_jump_body:
    movq WEFT_CTX_RBX(%rdi), %rbx
    movq WEFT_CTX_RBP(%rdi), %rbp
    movq WEFT_CTX_R12(%rdi), %r12
    movq WEFT_CTX_R13(%rdi), %r13
    movq WEFT_CTX_R14(%rdi), %r14
    movq WEFT_CTX_R15(%rdi), %r15
#ifdef WEFT_PRESERVE_FPU
    ldmxcsr WEFT_CTX_MXCSR(%rdi)
    fldcw   WEFT_CTX_FPUCW(%rdi)
#endif
    movq WEFT_CTX_RSP(%rdi), %rsp
    ret
    .cfi_endproc
    .size weft_ctx_jump, .-weft_ctx_jump

/* First code a new context runs: r12 = entry, r13 = arg (set by
 * weft_ctx_make). The entry never returns; the undefined return address
 * ends debugger backtraces here. */
    .globl weft_ctx_trampoline
    .hidden weft_ctx_trampoline
    .type weft_ctx_trampoline, @function
    .p2align 4
weft_ctx_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq %r13, %rdi
    callq *%r12
    ud2
    .cfi_endproc
    .size weft_ctx_trampoline, .-weft_ctx_trampoline

    .section .note.GNU-stack,"",@progbits
