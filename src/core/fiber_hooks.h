/* Telling the sanitizers and valgrind about stack switches. Without this,
 * AddressSanitizer sees a foreign stack pointer and reports false stack
 * overflows, ThreadSanitizer mixes the histories of different ULTs, and
 * valgrind takes a switch for a huge stack allocation. All of it compiles to
 * nothing in a plain build. */
#ifndef WEFT_CORE_FIBER_HOOKS_H
#define WEFT_CORE_FIBER_HOOKS_H

#include "internal.h"

#ifdef WEFT_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef WEFT_TSAN
#include <sanitizer/tsan_interface.h>
#endif
#ifdef WEFT_HAVE_VALGRIND
#include <valgrind/valgrind.h>
#endif

/* Before switching from `from` to `to`. `dying`: from never runs again. */
static inline void hook_switch_begin(struct weft_unit_s *from, struct weft_unit_s *to, bool dying)
{
    (void)from; (void)to; (void)dying;
#ifdef WEFT_ASAN
    __sanitizer_start_switch_fiber(dying ? NULL : &from->asan_fake, to->stack_lo, to->stack_size);
#endif
#ifdef WEFT_TSAN
    __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
}

/* First thing on `self`'s stack after a switch to it. */
static inline void hook_switch_end(struct weft_unit_s *self)
{
    (void)self;
#ifdef WEFT_ASAN
    __sanitizer_finish_switch_fiber(self->asan_fake, NULL, NULL);
#endif
}

/* A ULT gets a fiber; a native stack adopts the thread's own. A fiber stays
 * with its stack through the stack caches (creating one is costly under TSan,
 * TSan caps their number, and reuse follows a real happens-before through the
 * cache); it is destroyed when the stack is unmapped. */
static inline void hook_fiber_create(struct weft_unit_s *u, bool native)
{
    (void)u; (void)native;
#ifdef WEFT_TSAN
    if (native) u->tsan_fiber = __tsan_get_current_fiber();
    else if (!u->tsan_fiber) u->tsan_fiber = __tsan_create_fiber(0);
#endif
}

/* A cached stack handed to a new ULT: the old ULT's frames never returned,
 * so their redzones may still be poisoned. */
static inline void hook_stack_reuse(struct weft_unit_s *u)
{
    (void)u;
#ifdef WEFT_ASAN
    __asan_unpoison_memory_region(u->stack_lo, u->stack_size);
#endif
}

#ifdef WEFT_TSAN
/* The runtime's exit hook, called by instrumented code; a built-in of gcc
 * (with an argument the runtime ignores). */
#ifdef __clang__
void __tsan_func_exit(void);
#define TSAN_FUNC_EXIT() __tsan_func_exit()
#else
#define TSAN_FUNC_EXIT() __tsan_func_exit(NULL)
#endif
/* Instrumented functions on a ULT's path in and out must stay calls of
 * their own under TSan, so that hook_ult_end() knows the frames left. */
#define TSAN_NOINLINE __attribute__((noinline))
#else
#define TSAN_NOINLINE
#endif

/* The running ULT `u` ends, in ult_terminate(), before hook_switch_begin().
 * Its frames never return, but its fiber goes on with its stack to the
 * next ULT: each end would leave frames on the fiber's shadow call stack
 * until TSan aborts at 65,536. `unwound`: only ult_terminate's own frame is
 * left (ult_entry is not instrumented), so pop it; otherwise
 * (weft_thread_exit() from any depth) move to a fresh fiber and drop the
 * old one with all it holds. */
static inline void hook_ult_end(struct weft_unit_s *u, bool unwound)
{
    (void)u; (void)unwound;
#ifdef WEFT_TSAN
    if (unwound) {
        TSAN_FUNC_EXIT();
    } else {
        void *old = u->tsan_fiber;
        u->tsan_fiber = __tsan_create_fiber(0);
        __tsan_switch_to_fiber(u->tsan_fiber, 0);
        __tsan_destroy_fiber(old);
    }
#endif
}

/* A new stack [lo, lo + size): valgrind's id for it, kept in its record. */
static inline unsigned hook_stack_register(void *lo, size_t size)
{
    (void)lo; (void)size;
#ifdef WEFT_HAVE_VALGRIND
    return VALGRIND_STACK_REGISTER(lo, (char *)lo + size);
#else
    return 0;
#endif
}

#endif
