/* Waiting without holding a stream: a futex over any 32-bit word, for
 * ULTs and plain threads alike, and the word lock built on it.
 *
 * A waiter first checks the word omp_g.spin times, yielding its stream
 * to other ULTs between checks (team members multiplexed on one stream
 * must get to run: [LWT-PM] section 4), then parks on a weft condition of
 * a bucket hashed from the word's address. A waker changes the word, then
 * wakes the bucket only if someone parks there. */
#define _GNU_SOURCE
#include <errno.h>
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
 * thread cache is put back when the caller resumes (omp_internal.h).
 *
 * Turn i (from 1; 0 for a single turn) of a waiter's spin. Past the first 1024 turns (~10 us),
 * every 256th also gives the CPU to the OS: streams are not bound by
 * default, and the OS may leave two of them on one CPU (a woken thread
 * goes where its waker runs), where a waiter that only yields to the ULTs
 * of its stream keeps the thread it waits for off the CPU for its whole
 * spin (EPCC's regions at 2 threads then took ~100 us instead of 0.15, in
 * about half of the runs; with bound streams, never). Yielding sooner
 * slows the waits of threads on different CPUs (a sched_yield costs
 * ~1.5 us on a VM; every 64th turn made empty regions 4x slower). Those
 * turns also settle the stream (weft_xstream_settle): when the OS has put
 * two streams on one CPU, the one away from its own CPU goes back, rather
 * than the two passing the CPU by sched_yield for milliseconds (nested
 * regions 17x slower in a quarter of short runs on a 2-CPU VM). */
__attribute__((noinline)) int *omp_errno(void) { return &errno; }

void omp_relax_n(long i)
{
    int err = *omp_errno();
    struct omp_thread *me = omp_self_keep();
    if (weft_yield() != WEFT_OK) {
        sched_yield();
    } else if ((i >= 1024 && (i & 255) == 0) || atomic_load_explicit(&omp_streams_crowded, memory_order_relaxed)) {
        /* The OS may be the one keeping the awaited thread off a CPU: first
         * the stream goes back to its own CPU if it shares one. */
        weft_xstream_settle(NULL);
        sched_yield();
    }
    omp_self_restore(me);
    *omp_errno() = err;
    omp_beat();
}

void omp_relax(void) { omp_relax_n(0); }

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
    int err = *omp_errno();
    struct omp_thread *me = omp_self_keep();
    struct bucket *b = bucket_of(w);
    omp_beat_away();
    weft_mutex_lock(b->m);
    atomic_fetch_add(&b->parked, 1); /* seq_cst: seen by a waker that changed *w before reading parked */
    while (atomic_load(w) == val) weft_cond_wait(b->c, b->m);
    atomic_fetch_sub(&b->parked, 1);
    weft_mutex_unlock(b->m);
    omp_self_restore(me);
    *omp_errno() = err;
    omp_beat();
}

/* The parker increments `parked`, then reads the word; the waker changes
 * the word, then reads `parked`: with every one of the four seq_cst, one
 * of the two sees the other's change (the parker does not sleep, or the
 * waker wakes it). omp_wake_rmw's caller changed the word by a seq_cst
 * read-modify-write; a waker that stored it needs the fence (on x86 a
 * locked instruction of its own: ~20 cycles per wake). */
void omp_wake(_Atomic uint32_t *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    omp_wake_rmw(w);
}

void omp_wake_rmw(_Atomic uint32_t *w)
{
    struct bucket *b = bucket_of(w);
    if (!atomic_load(&b->parked)) return;
    int err = *omp_errno();
    struct omp_thread *me = omp_self_keep();
    weft_mutex_lock(b->m);
    weft_cond_broadcast(b->c);
    weft_mutex_unlock(b->m); /* each may switch to another ULT of the stream */
    omp_self_restore(me);
    *omp_errno() = err;
    omp_beat();
}

/* ---------- the word lock ----------
 *
 * 0: free; held: the holder's stream tag shifted left once, bit 0 set when
 * someone may wait (the unlock then wakes). A waiter whose lock is held on
 * another stream looks at the word now and then, with the CPU's pause in
 * between (LOCK_SPIN_PAUSES below), for a while; one
 * whose lock is held by another ULT of its own stream yields to it at
 * once, since the holder cannot run while it spins. Then both wait as
 * omp_wait does. */

/* This OS thread's tag (omp_word_tag). initial-exec: with the default
 * model every lock called __tls_get_addr. */
__thread uint32_t omp_t_tag OMP_HIDDEN __attribute__((tls_model("initial-exec")));
static _Atomic uint32_t g_plain_tags = 1u << 20;

static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

uint32_t omp_word_tag_slow(void)
{
    weft_xstream xs;
    int rank;
    uint32_t tag;
    if (weft_xstream_self(&xs) == WEFT_OK && weft_xstream_rank(xs, &rank) == WEFT_OK) tag = (uint32_t)rank + 1;
    else tag = (atomic_fetch_add_explicit(&g_plain_tags, 1, memory_order_relaxed) & 0x7fffffffu) | (1u << 20);
    WEFT_TLS(omp_t_tag) = tag << 1;
    return tag << 1;
}

/* A waiter whose lock is held on another stream looks at the word with
 * pauses between its looks, 2, 4, ... up to 64 of them, LOCK_SPIN_PAUSES
 * pauses in all (~50 us), before it waits as omp_wait does. Each look
 * pulls the word's line from the holder, which then pays for it on its
 * unlock and its next lock; looking less often, the waiter leaves a
 * holder that takes the lock again and again (EPCC's critical) to keep
 * it. EPCC, ns per section, before -> after (three runs each, pairwise):
 * critical at 2 threads 41-68 -> 3-8, at 4 15-50 -> 3-6, at 8 42-72 ->
 * 4-10; omp_set_lock 22-31 -> 4-9, 23-28 -> 5-7, 23-38 -> 4-10 (libgomp
 * at 2 threads: 7-22 and 19-39). Unfair, as libgomp's lock is: its
 * waiter spins, then sleeps in the kernel. */
#define LOCK_SPIN_PAUSES 2048

void omp_word_lock_slow(_Atomic uint32_t *w, uint32_t me)
{
    long paused = 0, gap = 2;
    for (;;) {
        uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
        if (v == 0) {
            /* Taken after a wait: keep the mark, others may wait too. */
            if (atomic_compare_exchange_weak_explicit(w, &v, me | 1, memory_order_acquire, memory_order_relaxed))
                return;
            continue;
        }
        if ((v | 1) != (me | 1) && paused < LOCK_SPIN_PAUSES) {
            for (long k = 0; k < gap; k++) cpu_pause();
            paused += gap;
            if (gap < 64) gap *= 2;
            continue;
        }
        if (!(v & 1) &&
            !atomic_compare_exchange_weak_explicit(w, &v, v | 1, memory_order_relaxed, memory_order_relaxed))
            continue;
        omp_wait(w, v | 1);
    }
}
