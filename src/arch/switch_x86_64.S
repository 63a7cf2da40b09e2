/* x86-64 SysV context switch. The callee-saved registers go onto the
 * running flow's own stack (frame layout in ctx_offsets.h); the context
 * is the stack pointer left after them. */
#include "ctx_offsets.h"

    .text

/* void weft_ctx_switch(weft_ctx *from [rdi], const weft_ctx *to [rsi]) */
    .globl weft_ctx_switch
    .hidden weft_ctx_switch
    .type weft_ctx_switch, @function
    .p2align 4
weft_ctx_switch:
    .cfi_startproc
    pushq %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbp, 0
    pushq %rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbx, 0
    pushq %r12
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r12, 0
    pushq %r13
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r13, 0
    pushq %r14
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r14, 0
    pushq %r15
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset r15, 0
    leaq -8(%rsp), %rsp
    .cfi_adjust_cfa_offset 8
#ifdef WEFT_PRESERVE_FPU
    stmxcsr WEFT_FRAME_FPU(%rsp)
    fnstcw  WEFT_FRAME_FPU+4(%rsp)
#endif
    movq %rsp, (%rdi)
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
    movq (%rdi), %rsp
#ifdef WEFT_PRESERVE_FPU
    ldmxcsr WEFT_FRAME_FPU(%rsp)
    fldcw   WEFT_FRAME_FPU+4(%rsp)
#endif
    movq WEFT_FRAME_R15(%rsp), %r15
    movq WEFT_FRAME_R14(%rsp), %r14
    movq WEFT_FRAME_R13(%rsp), %r13
    movq WEFT_FRAME_R12(%rsp), %r12
    movq WEFT_FRAME_RBX(%rsp), %rbx
    movq WEFT_FRAME_RBP(%rsp), %rbp
    leaq WEFT_FRAME_RET(%rsp), %rsp
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
