/* What a stream does when it has nothing to run: spin a little, then sleep
 * until work arrives; and the timers that end timed waits.
 *
 * Sleeping. A stream that sleeps is on the global sleepers list, has
 * `sleeping` set and counts itself in `n_sleepers` of each pool of its
 * main scheduler; then it looks at its pools and inbox once more and waits
 * on the futex `wake_seq`. Whoever makes work for it (a push into one of
 * those pools, a push into its inbox, a stop request) stores that work,
 * then reads the counter or the flag, and wakes it only when it is set: no
 * atomic and no system call on the push path while nobody sleeps.
 *
 * That store-then-load against the sleeper's store-then-load needs a full
 * barrier on both sides. The pusher's side is free: the sleeper, which is
 * rare and slow anyway, runs membarrier(), which makes every running thread
 * of the process pass a full barrier. Without membarrier (old kernels,
 * qemu-user), a sleeper waits at most SLEEP_FALLBACK_NS at a time, so a
 * missed wake-up costs latency, never progress.
 *
 * Timers. A ULT in a timed wait arms a timer on its stream; the stream's
 * scheduler fires due timers when idle or between units, and sleeps no
 * longer than the earliest deadline. A timer fires under its stream's
 * timer lock, and timer_disarm() takes that lock: once it returns, no
 * fire is running on the timer, so the timer may live on the waiter's
 * stack. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "futex.h"
#include "dlist.h"
#include "internal.h"
#include "pool_ops.h"
#include "sched_pick.h"

#ifndef MEMBARRIER_CMD_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

#define SLEEP_FALLBACK_NS (1000 * 1000ull)
#define STARVE_RETRY_NS (50 * 1000 * 1000ull) /* a sleeper lets a ULT waiting for a stack retry this often */

static _Atomic uint32_t sleepers_lock;
static struct weft_xstream_s *sleepers; /* linked by sleep_next */
static int have_membarrier;

uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t weft_time_ns(void) { return clock_ns(); }

void idle_init(void)
{
    have_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* ---------- waking ---------- */

void xs_wake(struct weft_xstream_s *xs)
{
    if (atomic_exchange_explicit(&xs->sleeping, 0, memory_order_acq_rel)) {
        atomic_fetch_add_explicit(&xs->wake_seq, 1, memory_order_release);
        futex_wake(&xs->wake_seq, 1);
    }
}

void pool_wake_sleepers(struct weft_pool_s *p)
{
    spin_lock(&sleepers_lock);
    for (struct weft_xstream_s *xs = sleepers; xs; xs = xs->sleep_next)
        if (atomic_load_explicit(&xs->sleeping, memory_order_relaxed) && sched_has_pool(xs_main_sched(xs), p))
            xs_wake(xs);
    spin_unlock(&sleepers_lock);
}

/* Wake every sleeping stream (ULTs wait for stacks that sleepers cache). */
void xs_wake_all(void)
{
    spin_lock(&sleepers_lock);
    for (struct weft_xstream_s *xs = sleepers; xs; xs = xs->sleep_next) xs_wake(xs);
    spin_unlock(&sleepers_lock);
}

/* ---------- timers ---------- */

void timer_arm(struct weft_xstream_s *xs, struct weft_timer *t)
{
    t->xs = xs;
    spin_lock(&xs->timer_lock);
    struct weft_timer **pp = &xs->timers;
    while (*pp && (*pp)->deadline <= t->deadline) pp = &(*pp)->next;
    DLIST_INSERT(pp, t, next, pprev);
    t->armed = 1;
    atomic_fetch_add_explicit(&xs->n_timers, 1, memory_order_relaxed);
    spin_unlock(&xs->timer_lock);
}

void timer_disarm(struct weft_timer *t)
{
    struct weft_xstream_s *xs = t->xs;
    spin_lock(&xs->timer_lock);
    if (t->armed) {
        DLIST_REMOVE(t, next, pprev);
        t->armed = 0;
        atomic_fetch_sub_explicit(&xs->n_timers, 1, memory_order_relaxed);
    }
    spin_unlock(&xs->timer_lock);
}

/* Fire every due timer of `xs`; returns the earliest deadline left, or
 * UINT64_MAX. The stream's scheduler context only. */
uint64_t timers_expire(struct weft_xstream_s *xs)
{
    uint64_t now = clock_ns(), next = UINT64_MAX;
    spin_lock(&xs->timer_lock);
    struct weft_timer *t;
    while ((t = xs->timers) && t->deadline <= now) {
        DLIST_REMOVE(t, next, pprev); /* the head: t->pprev is &xs->timers */
        t->armed = 0;
        atomic_fetch_sub_explicit(&xs->n_timers, 1, memory_order_relaxed);
        t->fire(t); /* under the lock: see above */
    }
    if (t) next = t->deadline;
    spin_unlock(&xs->timer_lock);
    return next;
}

/* ---------- idling ---------- */

/* Anything for the main scheduler of `xs` to look at? */
static bool xs_has_work(struct weft_xstream_s *xs, struct weft_sched_s *s)
{
    if (atomic_load_explicit(&xs->inbox, memory_order_acquire) || xs->runnext_head || xs->stash) return true;
    if (atomic_load_explicit(&xs->stop_requested, memory_order_acquire) || xs_main_sched(xs) != s) return true;
    for (int i = 0; i < s->npools; i++)
        if (pool_count(s->pools[i]) > 0) return true;
    return false;
}

/* Sleep until woken or `deadline` (CLOCK_MONOTONIC ns, UINT64_MAX: none). */
static void xs_sleep(struct weft_xstream_s *xs, struct weft_sched_s *s, uint64_t deadline)
{
    /* ULTs wait for stacks: hand in ours, and wake in time to let one of
     * them try again (stack_starve in unit.c). */
    bool starving = atomic_load_explicit(&weft_g.stack_waiters, memory_order_relaxed) != 0;
    if (unlikely(starving)) {
        stacks_flush_for_waiters(xs);
        uint64_t retry = clock_ns() + STARVE_RETRY_NS;
        if (retry < deadline) deadline = retry;
    }
    uint32_t seq = atomic_load_explicit(&xs->wake_seq, memory_order_acquire);
    spin_lock(&sleepers_lock);
    xs->sleep_next = sleepers;
    sleepers = xs;
    spin_unlock(&sleepers_lock);
    for (int i = 0; i < s->npools; i++) atomic_fetch_add(&s->pools[i]->n_sleepers, 1);
    atomic_exchange(&xs->sleeping, 1); /* a full barrier here, before the look below */
    if (have_membarrier) syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    if (!xs_has_work(xs, s)) {
        uint64_t now = clock_ns();
        if (!have_membarrier && deadline > now && deadline - now > SLEEP_FALLBACK_NS)
            deadline = now + SLEEP_FALLBACK_NS;
        if (deadline > now) {
            struct timespec ts, *tsp = NULL;
            if (deadline != UINT64_MAX) {
                uint64_t d = deadline - now;
                ts.tv_sec = (time_t)(d / 1000000000ull);
                ts.tv_nsec = (long)(d % 1000000000ull);
                tsp = &ts;
            }
            futex_wait(&xs->wake_seq, seq, tsp);
        }
    }
    atomic_store(&xs->sleeping, 0);
    for (int i = 0; i < s->npools; i++) atomic_fetch_sub(&s->pools[i]->n_sleepers, 1);
    spin_lock(&sleepers_lock);
    struct weft_xstream_s **pp = &sleepers;
    while (*pp != xs) pp = &(*pp)->sleep_next;
    *pp = xs->sleep_next;
    spin_unlock(&sleepers_lock);
    if (unlikely(starving) && atomic_load_explicit(&weft_g.stack_waiters, memory_order_relaxed))
        stack_waiters_wake(xs, 1);
}

int weft_set_wait_policy(weft_wait_policy policy, long spin_us)
{
    if (policy < WEFT_WAIT_HYBRID || policy > WEFT_WAIT_PASSIVE || spin_us < 0 || spin_us > WEFT_MAX_SPIN_US)
        return WEFT_ERR_INVALID;
    atomic_store_explicit(&weft_g.wait_policy, (int)policy, memory_order_relaxed);
    atomic_store_explicit(&weft_g.spin_ns, (uint64_t)spin_us * 1000, memory_order_relaxed);
    return WEFT_OK;
}

/* The one back-off of every waiter that does not sleep on a futex: its
 * `n`th turn without work spins (the first 63), then gives the core away
 * (sched_yield), then, from turn 64 + 2048 on and if `nap`, naps 50 us. */
static void backoff_step(unsigned n, bool nap)
{
    if (n < 64) {
        cpu_relax();
    } else if (!nap || n < 64 + 2048) {
        sched_yield();
    } else {
        struct timespec ts = {0, 50 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* A wait outside a scheduler's idle turn (a blocking pool pop from a plain
 * thread, a user scheduler's run function that keeps returning): `idle`
 * counts its turns. */
void idle_backoff(unsigned *idle)
{
    backoff_step(++*idle, true);
}

/* A spinning turn longer than this was not all ours (a turn takes well
 * under a microsecond, a sched_yield() that finds no other thread ~1.5 us
 * on a VM). */
#define PREEMPTED_NS (50 * 1000ull)
#define SHARED_NS (20 * 1000 * 1000ull)

/* One idle turn of the scheduler `s` on `xs`; `idle` counts the turns
 * since it last ran something, `idle_since` holds when that was. Fires due
 * timers; then spins, yields the core, or sleeps, as the policy says. */
void xs_idle(struct weft_xstream_s *xs, struct weft_sched_s *s, unsigned *idle, uint64_t *idle_since)
{
    uint64_t next = UINT64_MAX;
    if (atomic_load_explicit(&xs->n_timers, memory_order_relaxed)) next = timers_expire(xs);
    unsigned n = ++*idle;
    int policy = atomic_load_explicit(&weft_g.wait_policy, memory_order_relaxed);
    /* Only the bottom of the scheduler stack sleeps: a stacked scheduler
     * hands the stream back to its parent, which runs it again. A stream
     * asked to stop that still has blocked units naps instead: its stop
     * request would wake it at once. */
    bool may_sleep = policy != WEFT_WAIT_ACTIVE && !s->parent && xs_main_sched(xs) == s &&
                     !atomic_load_explicit(&xs->stop_requested, memory_order_relaxed);
    if (n == 1) *idle_since = xs->idle_last = 0;
    if (n < 64 || !may_sleep) {
        backoff_step(n, policy != WEFT_WAIT_ACTIVE);
        return;
    }
    if (policy == WEFT_WAIT_HYBRID) {
        uint64_t now = clock_ns();
        if (!*idle_since) *idle_since = now;
        /* A turn that took long means the OS ran another thread on this
         * CPU meanwhile: the CPU is shared (another process, or a stream
         * of ours the OS put beside this one, streams being unbound by
         * default). Spinning then delays whoever would make the work this
         * stream waits for, by up to an OS time slice per wait. So once it
         * has seen that, for SHARED_NS the stream yields the CPU at every
         * turn instead of spinning. (Sleeping instead measured worse on a
         * VM: a CPU left idle takes ~90 us to wake.) */
        if (xs->idle_last && now - xs->idle_last > PREEMPTED_NS) xs->shared_until = now + SHARED_NS;
        xs->idle_last = now;
        if (now - *idle_since < atomic_load_explicit(&weft_g.spin_ns, memory_order_relaxed)) {
            if (now < xs->shared_until) {
                sched_yield();
                return;
            }
            /* Let other threads have the core now and then: rarely when
             * there are no more streams than cores (bound or not: then no
             * stream of ours waits for this core), often when streams
             * share cores. A sched_yield() costs ~1.5 us on a VM: every
             * 16th turn kept a stream in the kernel most of the time it
             * waited, late for the work it waited for. */
            bool alone = atomic_load_explicit(&weft_g.n_streams, memory_order_relaxed) <= weft_g.cores;
            if ((n & (alone ? 1023 : 15)) == 0) sched_yield();
            else cpu_relax();
            return;
        }
    }
    xs_sleep(xs, s, next);
    *idle = 0;
    xs->idle_last = 0;
}

/* fork.c: the child of a live runtime has no streams, asleep or not; the
 * sleepers' lock may have been held by one that is gone. */
void idle_fork_abandon(void)
{
    sleepers = NULL;
    atomic_store_explicit(&sleepers_lock, 0, memory_order_relaxed);
}
