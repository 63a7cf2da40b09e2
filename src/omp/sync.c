/* weft-omp mutual exclusion: critical (unnamed and named) and the atomic
 * fallback (GOMP_atomic_start/end, for types the CPU cannot update
 * atomically). Each is a word lock (wait.c): a waiter parks its ULT after
 * a short spin, and its stream runs other work meanwhile. */
#include "omp_internal.h"

static _Atomic uint32_t g_critical; /* the unnamed critical section */
static _Atomic uint32_t g_atomic;   /* every atomic fallback */

OMP_EXPORT void GOMP_critical_start(void)
{
    omp_word_lock(&g_critical);
    omp_held_take();
}
OMP_EXPORT void GOMP_critical_end(void)
{
    omp_held_give();
    omp_word_unlock(&g_critical);
}

/* A named critical section: gcc passes the address of a pointer-sized,
 * zero-initialised variable shared by every use of the name; its first
 * four bytes are the lock word. */
_Static_assert(sizeof(void *) >= sizeof(uint32_t) && _Alignof(void *) >= _Alignof(uint32_t),
               "the lock word fits the name's variable");
OMP_EXPORT void GOMP_critical_name_start(void **pptr)
{
    omp_word_lock((_Atomic uint32_t *)pptr);
    omp_held_take();
}
OMP_EXPORT void GOMP_critical_name_end(void **pptr)
{
    omp_held_give();
    omp_word_unlock((_Atomic uint32_t *)pptr);
}

OMP_EXPORT void GOMP_atomic_start(void) { omp_word_lock(&g_atomic); }
OMP_EXPORT void GOMP_atomic_end(void) { omp_word_unlock(&g_atomic); }
