/* Layout of the frame a suspended context leaves on its own stack, shared
 * by the C code that builds a first frame (ctx_make.c) and the assembly
 * switch routines. A context itself is one word: the stack pointer at that
 * frame. Keeping the registers on the stack rather than in the descriptor
 * keeps a ULT's descriptor at two cache lines (internal.h). */
#ifndef WEFT_ARCH_CTX_OFFSETS_H
#define WEFT_ARCH_CTX_OFFSETS_H

#if defined(__x86_64__)
/* SysV callee-saved registers, lowest address first; the resume address
 * (pushed by the call to weft_ctx_switch) sits above them. */
#define WEFT_FRAME_FPU 0   /* mxcsr (4 bytes) and the x87 control word (2), when WEFT_PRESERVE_FPU */
#define WEFT_FRAME_R15 8
#define WEFT_FRAME_R14 16
#define WEFT_FRAME_R13 24
#define WEFT_FRAME_R12 32
#define WEFT_FRAME_RBX 40
#define WEFT_FRAME_RBP 48
#define WEFT_FRAME_RET 56
#define WEFT_FRAME_SIZE 64 /* including the resume address */
#elif defined(__aarch64__)
/* AAPCS64 callee-saved registers: x19-x28, fp, lr (the resume address),
 * d8-d15, and fpcr; 16-byte aligned as sp must be. */
#define WEFT_FRAME_X19 0
#define WEFT_FRAME_X21 16
#define WEFT_FRAME_X23 32
#define WEFT_FRAME_X25 48
#define WEFT_FRAME_X27 64
#define WEFT_FRAME_X29 80 /* x29 (fp) and x30 (lr) as a pair */
#define WEFT_FRAME_D8 96
#define WEFT_FRAME_D10 112
#define WEFT_FRAME_D12 128
#define WEFT_FRAME_D14 144
#define WEFT_FRAME_FPCR 160 /* used when WEFT_PRESERVE_FPU */
#define WEFT_FRAME_SIZE 176
#endif

#endif
