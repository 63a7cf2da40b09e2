/* Register-save layout of a weft context, shared by the C code and the
 * assembly switch routines. The C struct in ctx.h is checked against these
 * numbers with static_assert, so the two can never drift apart. */
#ifndef WEFT_ARCH_CTX_OFFSETS_H
#define WEFT_ARCH_CTX_OFFSETS_H

#if defined(__x86_64__)
/* SysV callee-saved registers; rsp points at the resume address. */
#define WEFT_CTX_RSP 0
#define WEFT_CTX_RBX 8
#define WEFT_CTX_RBP 16
#define WEFT_CTX_R12 24
#define WEFT_CTX_R13 32
#define WEFT_CTX_R14 40
#define WEFT_CTX_R15 48
#define WEFT_CTX_MXCSR 56 /* 4 bytes, used when WEFT_PRESERVE_FPU */
#define WEFT_CTX_FPUCW 60 /* 2 bytes, used when WEFT_PRESERVE_FPU */
#define WEFT_CTX_SIZE 64
#elif defined(__aarch64__)
/* AAPCS64 callee-saved registers: x19-x28, fp, lr, sp, d8-d15. */
#define WEFT_CTX_X19 0
#define WEFT_CTX_X21 16
#define WEFT_CTX_X23 32
#define WEFT_CTX_X25 48
#define WEFT_CTX_X27 64
#define WEFT_CTX_X29 80 /* x29 (fp) and x30 (lr) as a pair */
#define WEFT_CTX_SP 96
#define WEFT_CTX_D8 104
#define WEFT_CTX_D10 120
#define WEFT_CTX_D12 136
#define WEFT_CTX_D14 152
#define WEFT_CTX_FPCR 168 /* used when WEFT_PRESERVE_FPU */
#define WEFT_CTX_SIZE 176
#endif

#endif
