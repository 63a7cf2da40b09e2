/* AArch64 AAPCS64 context switch. The callee-saved registers go onto the
 * running flow's own stack (frame layout in ctx_offsets.h); the context
 * is the stack pointer left after them. */
#include "ctx_offsets.h"

    .text

/* void weft_ctx_switch(weft_ctx *from [x0], const weft_ctx *to [x1]) */
    .globl weft_ctx_switch
    .hidden weft_ctx_switch
    .type weft_ctx_switch, %function
    .p2align 4
weft_ctx_switch:
    .cfi_startproc
    sub sp, sp, #WEFT_FRAME_SIZE
    .cfi_adjust_cfa_offset WEFT_FRAME_SIZE
    stp x19, x20, [sp, #WEFT_FRAME_X19]
    stp x21, x22, [sp, #WEFT_FRAME_X21]
    stp x23, x24, [sp, #WEFT_FRAME_X23]
    stp x25, x26, [sp, #WEFT_FRAME_X25]
    stp x27, x28, [sp, #WEFT_FRAME_X27]
    stp x29, x30, [sp, #WEFT_FRAME_X29]   /* x30 is our resume address */
    stp d8, d9, [sp, #WEFT_FRAME_D8]
    stp d10, d11, [sp, #WEFT_FRAME_D10]
    stp d12, d13, [sp, #WEFT_FRAME_D12]
    stp d14, d15, [sp, #WEFT_FRAME_D14]
#ifdef WEFT_PRESERVE_FPU
    mrs x9, fpcr
    str x9, [sp, #WEFT_FRAME_FPCR]
#endif
    mov x9, sp
    str x9, [x0]
    mov x0, x1
    b weft_ctx_jump_body
    .cfi_endproc
    .size weft_ctx_switch, .-weft_ctx_switch

/* void weft_ctx_jump(const weft_ctx *to [x0]) */
    .globl weft_ctx_jump
    .hidden weft_ctx_jump
    .type weft_ctx_jump, %function
    .p2align 4
weft_ctx_jump:
    .cfi_startproc
weft_ctx_jump_body:
    ldr x9, [x0]
    mov sp, x9
    ldp x19, x20, [sp, #WEFT_FRAME_X19]
    ldp x21, x22, [sp, #WEFT_FRAME_X21]
    ldp x23, x24, [sp, #WEFT_FRAME_X23]
    ldp x25, x26, [sp, #WEFT_FRAME_X25]
    ldp x27, x28, [sp, #WEFT_FRAME_X27]
    ldp x29, x30, [sp, #WEFT_FRAME_X29]
    ldp d8, d9, [sp, #WEFT_FRAME_D8]
    ldp d10, d11, [sp, #WEFT_FRAME_D10]
    ldp d12, d13, [sp, #WEFT_FRAME_D12]
    ldp d14, d15, [sp, #WEFT_FRAME_D14]
#ifdef WEFT_PRESERVE_FPU
    ldr x9, [sp, #WEFT_FRAME_FPCR]
    msr fpcr, x9
#endif
    add sp, sp, #WEFT_FRAME_SIZE
    ret
    .cfi_endproc
    .size weft_ctx_jump, .-weft_ctx_jump

/* First code a new context runs: x19 = entry, x20 = arg. */
    .globl weft_ctx_trampoline
    .hidden weft_ctx_trampoline
    .type weft_ctx_trampoline, %function
    .p2align 4
weft_ctx_trampoline:
    .cfi_startproc
    .cfi_undefined x30
    mov x0, x20
    blr x19
    brk #0
    .cfi_endproc
    .size weft_ctx_trampoline, .-weft_ctx_trampoline

    .section .note.GNU-stack,"",%progbits
