/* The runtime's allocations and thread creations, in one place so that a
 * test can make the n-th of them fail (tests/test_faults.c): every call
 * that allocates must then return its documented error, leak nothing and
 * lose no unit it accepted. Costs one relaxed load per allocation, and
 * allocations are off the hot paths (the per-stream caches serve those). */
#ifndef WEFT_CORE_SYS_H
#define WEFT_CORE_SYS_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

/* > 0: the allocation that brings it to 0 fails. Hidden: reachable only by
 * programs linked with the static library (the fault-injection test). */
extern _Atomic long weft_fault_countdown WEFT_HIDDEN;

WEFT_HIDDEN bool fault_hit(void);

static inline bool fault_inject(void)
{
    return __builtin_expect(atomic_load_explicit(&weft_fault_countdown, memory_order_relaxed) > 0, 0) &&
           fault_hit();
}

static inline void *sys_malloc(size_t n)
{
    return fault_inject() ? NULL : malloc(n);
}

static inline void *sys_calloc(size_t n, size_t size)
{
    return fault_inject() ? NULL : calloc(n, size);
}

static inline void *sys_realloc(void *p, size_t n)
{
    return fault_inject() ? NULL : realloc(p, n);
}

static inline void *sys_aligned_alloc(size_t align, size_t n)
{
    return fault_inject() ? NULL : aligned_alloc(align, n);
}

static inline void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (fault_inject()) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return mmap(addr, len, prot, flags, fd, off);
}

static inline int sys_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    return fault_inject() ? EAGAIN : pthread_create(t, a, fn, arg);
}

#endif
