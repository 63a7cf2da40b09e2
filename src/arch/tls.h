/* Thread-local variables seen from a ULT.
 *
 * A ULT that blocks or yields may resume on another OS thread (a shared
 * pool, a steal, a migration, weft-omp's watchdog). The compiler takes the
 * thread pointer for a constant within a function: gcc on aarch64 reads
 * TPIDR_EL0 once and keeps it in a callee-saved register across calls, so
 * a plain access to a __thread variable after a call that switched reaches
 * the copy of the OS thread the ULT left, now another flow's. WEFT_TLS(v)
 * is this OS thread's copy of `v`, an initial-exec __thread variable with
 * external linkage, as of the access; WEFT_TLS_ADDR(v) its address, from
 * the thread pointer read now (never write &WEFT_TLS(v): on x86-64 that is
 * an address the compiler may keep; tests/check_tls.sh looks for it in the
 * sources). Every access to weft's own __thread variables goes through
 * them (check_tls.sh checks the binaries too).
 *
 *  - aarch64: the thread pointer read in one volatile asm, never merged
 *    with another read or moved across a call; then a plain load or store.
 *  - x86-64: WEFT_TLS(v) is the plain access. Each load or store of it is
 *    one instruction relative to %fs (`mov %fs:(off),reg`), so the thread
 *    pointer is the one of that instant whatever the compiler keeps; what
 *    would be stale is the thread pointer itself in a register, and only
 *    WEFT_TLS_ADDR reads it, afresh (`add %fs:0x0,reg`). On x86-64
 *    check_tls.sh refuses any other read of it (gcc's own address of a
 *    thread-local takes the same `add` form, so only the source check
 *    above rules that out); the aarch64 build's run of it is the one that
 *    finds an access made without WEFT_TLS. Under TSan the access goes
 *    through WEFT_TLS_ADDR: TSan's instrumentation passes each access's
 *    address, which gcc computes from a thread pointer it may keep.
 *  - elsewhere, and in libweft's objects of the ucontext build (so that CI
 *    runs this path; weft-omp's own sources keep the x86-64 or aarch64
 *    form there): a call the compiler cannot see through returns the
 *    address afresh. */
#ifndef WEFT_ARCH_TLS_H
#define WEFT_ARCH_TLS_H

#include <stdint.h>

/* After the declaration of each such variable: WEFT_TLS_ACCESSOR(v);
 * nothing but where the asm below is not used. */
#if defined(__aarch64__) && !defined(WEFT_CTX_UCONTEXT)
#define WEFT_TLS_ACCESSOR(v) _Static_assert(1, "")
#define WEFT_TLS(v)                                                                                          \
    (*({                                                                                                     \
        __typeof__(v) *weft_tls_p_;                                                                          \
        uintptr_t weft_tls_o_;                                                                               \
        __asm__ volatile("adrp %1, :gottprel:" #v "\n\tldr %1, [%1, #:gottprel_lo12:" #v                     \
                         "]\n\tmrs %0, tpidr_el0\n\tadd %0, %0, %1"                                          \
                         : "=r"(weft_tls_p_), "=&r"(weft_tls_o_));                                           \
        weft_tls_p_;                                                                                         \
    }))
#elif defined(__x86_64__) && !defined(WEFT_CTX_UCONTEXT)
#define WEFT_TLS_ACCESSOR(v) _Static_assert(1, "")
#define WEFT_TLS_ADDR(v)                                                                                     \
    ({                                                                                                       \
        __typeof__(v) *weft_tls_p_;                                                                          \
        __asm__ volatile("movq " #v "@gottpoff(%%rip), %0\n\taddq %%fs:0, %0" : "=r"(weft_tls_p_));          \
        weft_tls_p_;                                                                                         \
    })
#if defined(__SANITIZE_THREAD__)
#define WEFT_TLS(v) (*WEFT_TLS_ADDR(v))
#else
#define WEFT_TLS(v) (v)
#endif
#else
#define WEFT_TLS_ACCESSOR(v)                                                                                 \
    static __attribute__((noinline, unused)) __typeof__(v) *weft_tls_at_##v(void)                            \
    {                                                                                                        \
        __typeof__(v) *p = &(v);                                                                             \
        __asm__ volatile("" : "+r"(p));                                                                      \
        return p;                                                                                            \
    }                                                                                                        \
    _Static_assert(1, "")
#define WEFT_TLS(v) (*weft_tls_at_##v())
#endif
#ifndef WEFT_TLS_ADDR
#define WEFT_TLS_ADDR(v) (&WEFT_TLS(v))
#endif

#endif
