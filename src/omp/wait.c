/* Waiting without holding a stream: a futex over any 32-bit word, for
 * ULTs and plain threads alike, and the word lock built on it.
 *
 * A waiter first checks the word omp_g.spin times, yielding its stream
 * to other ULTs between checks (team members multiplexed on one stream
 * must get to run: [LWT-PM] section 4), then parks on a weft condition of
 * a bucket hashed from the word's address. A waker changes the word, then
 * wakes the bucket only if someone parks there. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "omp_internal.h"

#define BUCKETS 256

struct bucket {
    _Atomic int parked;
    weft_mutex m;
    weft_cond c;
} __attribute__((aligned(OMP_CACHE_LINE)));

static struct bucket g_buckets[BUCKETS];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void buckets_init(void)
{
    for (int i = 0; i < BUCKETS; i++) {
        if (weft_mutex_create(NULL, &g_buckets[i].m) != WEFT_OK || weft_cond_create(&g_buckets[i].c) != WEFT_OK)
            omp_fatal("out of memory at start");
    }
}

static inline struct bucket *bucket_of(const void *w)
{
    uintptr_t a = (uintptr_t)w;
    return &g_buckets[((a >> 2) ^ (a >> 11)) % BUCKETS];
}

/* Each of these may switch to another ULT of the stream: the OpenMP
 * thread cache is put back when the caller resumes (omp_internal.h). */
void omp_relax(void)
{
    struct omp_thread *me = omp_self_keep();
    if (weft_yield() != WEFT_OK || atomic_load_explicit(&omp_streams_crowded, memory_order_relaxed)) sched_yield();
    omp_self_restore(me);
}

/* Turn i (from 1) of a waiter's spin. Past the first 1024 turns (~10 us),
 * every 256th also gives the CPU to the OS: streams are not bound by
 * default, and the OS may leave two of them on one CPU (a woken thread
 * goes where its waker runs), where a waiter that only yields to the ULTs
 * of its stream keeps the thread it waits for off the CPU for its whole
 * spin (EPCC's regions at 2 threads then took ~100 us instead of 0.15, in
 * about half of the runs; with bound streams, never). Yielding sooner
 * slows the waits of threads on different CPUs (a sched_yield costs
 * ~1.5 us on a VM; every 64th turn made empty regions 4x slower). */
void omp_relax_n(long i)
{
    struct omp_thread *me = omp_self_keep();
    if (weft_yield() != WEFT_OK || (i >= 1024 && (i & 255) == 0) ||
        atomic_load_explicit(&omp_streams_crowded, memory_order_relaxed))
        sched_yield();
    omp_self_restore(me);
}

/* Checks before parking when own streams outnumber the CPUs. */
#define SPIN_CROWDED 100L

void omp_wait(_Atomic uint32_t *w, uint32_t val)
{
    long spin = omp_g.spin;
    if (omp_unlikely(atomic_load_explicit(&omp_streams_crowded, memory_order_relaxed)) && spin > SPIN_CROWDED)
        spin = SPIN_CROWDED;
    for (long i = 1; i <= spin; i++) {
        if (atomic_load_explicit(w, memory_order_acquire) != val) return;
        omp_relax_n(i);
    }
    pthread_once(&g_once, buckets_init);
    struct omp_thread *me = omp_self_keep();
    struct bucket *b = bucket_of(w);
    weft_mutex_lock(b->m);
    atomic_fetch_add(&b->parked, 1); /* seq_cst: seen by a waker that changed *w before reading parked */
    while (atomic_load(w) == val) weft_cond_wait(b->c, b->m);
    atomic_fetch_sub(&b->parked, 1);
    weft_mutex_unlock(b->m);
    omp_self_restore(me);
}

void omp_wake(_Atomic uint32_t *w)
{
    struct bucket *b = bucket_of(w);
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load(&b->parked)) return;
    struct omp_thread *me = omp_self_keep();
    weft_mutex_lock(b->m);
    weft_cond_broadcast(b->c);
    weft_mutex_unlock(b->m);
    omp_self_restore(me);
}

/* ---------- the word lock ---------- */

bool omp_word_trylock(_Atomic uint32_t *w)
{
    uint32_t z = 0;
    return atomic_compare_exchange_strong_explicit(w, &z, 1, memory_order_acquire, memory_order_relaxed);
}

void omp_word_lock(_Atomic uint32_t *w)
{
    uint32_t z = 0;
    if (omp_likely(atomic_compare_exchange_strong_explicit(w, &z, 1, memory_order_acquire, memory_order_relaxed)))
        return;
    /* Contended: mark it (2) and wait until it is let go. */
    for (;;) {
        uint32_t v = atomic_exchange_explicit(w, 2, memory_order_acquire);
        if (v == 0) return;
        omp_wait(w, 2);
    }
}

void omp_word_unlock(_Atomic uint32_t *w)
{
    if (atomic_exchange_explicit(w, 0, memory_order_release) == 2) omp_wake(w);
}
