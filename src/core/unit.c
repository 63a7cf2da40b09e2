/* Work units: creation, switching, yield, join, exit, cancel.
 *
 * The one rule behind every switch: a unit that gives up its stream never
 * makes itself visible to others (in a pool, as a joiner) before its
 * registers are saved. It leaves a *pending* action in its stream, and the
 * code that runs next on that stream (the scheduler, or the unit switched to
 * directly) performs it right after the switch: requeue a yielder, register
 * a joiner, publish a termination. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fiber_hooks.h"
#include "futex.h"
#include "internal.h"
#include "mem_cache.h"
#include "pool_ops.h"
#include "sched_pick.h"

/* Scheduler bypass ([Argobots §3.3]): a leaving ULT switches straight
 * to the next unit, a joiner straight to its joinee and the joinee back.
 * Off only in a measurement build (docs/design.md). */
#ifdef WEFT_MEASURE_NO_BYPASS
#define BYPASS 0
#else
#define BYPASS 1
#endif

/* Migration's cost on the hot path: a unit picked on a stream it is bound
 * away from goes home; a non-migratable ULT is bound at its first run. Left
 * out only in a measurement build (one stream, nothing bound elsewhere). */
#ifdef WEFT_MEASURE_NO_MIGRATION
#define MIGRATION 0
#else
#define MIGRATION 1
#endif

/* How far into its pool a join looks for its joinee (join_take): pools
 * are singly linked, and a longer scan would make joins in an order the
 * pool does not follow quadratic. */
#define JOIN_TAKE_REACH 8

static inline void counter_bump(_Atomic uint64_t *c)
{
    /* Single writer (the owning stream): a plain load and store, published
     * with release so readers that see the count also see the unit. */
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_release);
}

/* The low half of the join word, where plain threads wait. */
static inline uint32_t *jw_futex(struct weft_unit_s *u)
{
    return (uint32_t *)(void *)&u->jw;
}

static inline bool unit_done(struct weft_unit_s *u)
{
    return atomic_load_explicit(&u->jw, memory_order_acquire) == JW_DONE;
}

/* May the blocked joiner `j` run on `xs` now? */
static inline bool joiner_runs_here(struct weft_xstream_s *xs, struct weft_unit_s *j)
{
    return !(j->bound && j->home != xs) && pool_runs_here(xs, j->pool);
}

/* The joiner `j` of a unit that just ended may go on: back into its pool,
 * unless ult_terminate already switched straight to it. */
static void joiner_resume(struct weft_xstream_s *xs, struct weft_unit_s *j)
{
    if (xs && j == xs->cur) {
        atomic_store_explicit(&j->state, WEFT_STATE_RUNNING, memory_order_relaxed);
        atomic_fetch_sub_explicit(&j->pool->n_blocked, 1, memory_order_release);
        return;
    }
    unit_wake(xs, j);
}

/* ---------- termination ---------- */

/* `u` has ended (or was cancelled) and no longer runs on any stack. */
static void unit_finish(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    if (xs) counter_bump(&xs->n_finished);
    else atomic_fetch_add(&weft_g.ext_finished, 1);
    if (unlikely(u->has_keys)) unit_keys_end(u); /* cancelled: ended outside its function */
    if (u->kind != KIND_TASKLET) {
        /* Nothing runs on the stack any more: recycle it now, not at free.
         * Off the fast path, a ULT may be waiting for it. */
        if (unlikely(mem_stack_put(xs, u)) && atomic_load_explicit(&weft_g.stack_waiters, memory_order_relaxed))
            stack_waiters_wake(xs, 1);
    }
    if (u->detached) {
        mem_unit_release(xs, u);
        return;
    }
    /* One exchange publishes the end and collects the joiner. A joiner may
     * free the unit as soon as it sees JW_DONE, so this is our last write to
     * it (futex_wake only needs the address; descriptor memory outlives
     * every handle). */
    uintptr_t j = atomic_exchange_explicit(&u->jw, JW_DONE, memory_order_acq_rel);
    WEFT_ASSERT(j != JW_DONE); /* a unit ends once */
    if (j == JW_EXTERNAL) futex_wake(jw_futex(u), INT_MAX);
    else if (j) joiner_resume(xs, (struct weft_unit_s *)j);
}

/* ---------- pending actions ---------- */

static void unit_block_join(struct weft_xstream_s *xs, struct weft_unit_s *u, struct weft_unit_s *target)
{
    atomic_store_explicit(&u->state, WEFT_STATE_BLOCKED, memory_order_relaxed);
    atomic_fetch_add_explicit(&u->pool->n_blocked, 1, memory_order_relaxed);
    uintptr_t none = 0;
    if (!atomic_compare_exchange_strong_explicit(&target->jw, &none, (uintptr_t)u, memory_order_acq_rel,
                                                 memory_order_acquire))
        unit_wake(xs, u); /* the target ended meanwhile, or another thread waits on it */
}

void unit_run_pending(struct weft_xstream_s *xs)
{
    int p = xs->pend;
    if (likely(p == PEND_NONE)) return;
    struct weft_unit_s *u = xs->pend_unit;
    xs->pend = PEND_NONE;
    /* The unit that left was running; a parked one counted itself blocked. */
    WEFT_ASSERT(atomic_load_explicit(&u->state, memory_order_relaxed) ==
                (p == PEND_UNLOCK ? WEFT_STATE_BLOCKED : WEFT_STATE_RUNNING));
    switch (p) {
    case PEND_READY: unit_make_ready(xs, u); break;
    case PEND_JOIN: unit_block_join(xs, u, xs->pend_target); break;
    case PEND_TERMINATE: unit_finish(xs, u); break;
    case PEND_UNLOCK: atomic_store_explicit(xs->pend_lock, 0, memory_order_release); break;
    default: WEFT_ASSERT(!"a known pending action");
    }
}

/* The pending action after a switch: none, in the common case (see
 * unit_switch_ready). */
static inline void run_pending_fast(struct weft_xstream_s *xs)
{
    if (unlikely(xs->pend != PEND_NONE)) unit_run_pending(xs);
}

/* ---------- switching ---------- */

/* Switch from `from` (running on xs) to `to`, leaving `pend` for the next
 * runner; with `requeue`, `from` goes into that list first (see
 * unit_switch_ready). Returns when `from` runs again, possibly on another
 * stream; the caller must take its stream from from->xs afterwards, never
 * from a value read before the switch. */
static inline void unit_switch_in(struct weft_xstream_s *xs, struct weft_unit_s *from, struct weft_unit_s *to,
                                  int pend, struct weft_unit_s *target, struct weft_pool_s *requeue)
{
    WEFT_ASSERT(xs->pend == PEND_NONE); /* the last one was done: none is lost */
    if (pend != PEND_NONE) {
        xs->pend = (uint8_t)pend;
        xs->pend_unit = from;
        if (pend == PEND_JOIN) xs->pend_target = target; /* the only action that reads it */
    }
    to->xs = xs;
    xs->cur = to;
    hook_switch_begin(from, to, false);
    if (requeue) {
        /* After the hook (a sanitizer's call, outside this library): from
         * here to the save nothing but this library's code runs, which
         * weft-omp's rescue handler leaves alone (src/omp/rescue.c). */
        WEFT_ASSERT(atomic_load_explicit(&from->state, memory_order_relaxed) == WEFT_STATE_RUNNING);
        atomic_store_explicit(&from->state, WEFT_STATE_READY, memory_order_relaxed);
        list_push_builtin(requeue, from);
    }
    weft_ctx_switch(&from->ctx, &to->ctx);
    hook_switch_end(from);
    run_pending_fast(from->xs);
}

/* `from` gives the stream to `to`, the head of `p`, a private list of
 * this stream that is from's own pool too: to leaves it and from goes in,
 * in one pass (list_swap_head_builtin), as unit_switch_in with requeue. */
static inline void unit_switch_swap(struct weft_xstream_s *xs, struct weft_unit_s *from, struct weft_unit_s *to,
                                    struct weft_pool_s *p)
{
    WEFT_ASSERT(xs->pend == PEND_NONE);
    WEFT_ASSERT(atomic_load_explicit(&to->state, memory_order_relaxed) == WEFT_STATE_READY);
    atomic_store_explicit(&to->state, WEFT_STATE_RUNNING, memory_order_relaxed);
    to->xs = xs;
    xs->cur = to;
    hook_switch_begin(from, to, false);
    WEFT_ASSERT(atomic_load_explicit(&from->state, memory_order_relaxed) == WEFT_STATE_RUNNING);
    atomic_store_explicit(&from->state, WEFT_STATE_READY, memory_order_relaxed);
    list_swap_head_builtin(p, to, from);
    weft_ctx_switch(&from->ctx, &to->ctx);
    hook_switch_end(from);
    run_pending_fast(from->xs);
}

static inline void unit_switch(struct weft_xstream_s *xs, struct weft_unit_s *from, struct weft_unit_s *to,
                               int pend, struct weft_unit_s *target)
{
    unit_switch_in(xs, from, to, pend, target, NULL);
}

/* The running unit `self` gives the stream to `to` and goes back to its
 * pool, ready. Into its own stream's private list it goes just before the
 * switch: only this stream touches that list, and the stream runs nothing
 * else until the switch is done. Any other pool takes it after the
 * switch (PEND_READY), once its context is saved, since another stream
 * may pop it at once. */
static inline void unit_switch_ready(struct weft_xstream_s *xs, struct weft_unit_s *self, struct weft_unit_s *to)
{
    struct weft_pool_s *p = self->pool;
    if (likely(pool_list_mine(p, xs))) unit_switch_in(xs, self, to, PEND_NONE, NULL, p);
    else unit_switch_in(xs, self, to, PEND_READY, NULL, NULL);
}

static void ult_entry(void *arg);

/* A ULT about to run for the first time gets its stack and context. */
static inline __attribute__((always_inline)) bool ult_prepare(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    if (mem_stack_get(xs, u) != WEFT_OK) return false;
#ifdef WEFT_ASAN
    u->asan_fake = NULL;
#endif
    weft_ctx_make(&u->ctx, u->stack_lo, unit_stack_usable(u), ult_entry, u);
    hook_fiber_create(u, false);
    return true;
}

/* ult_prepare() off the hot path of creation (eager stacks, revive). */
static __attribute__((noinline, cold)) bool ult_prepare_cold(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    return ult_prepare(xs, u);
}

/* `u` was just picked on `xs`. Returns it ready to be switched to from any
 * context of the stream, or NULL after handing it elsewhere: to its home
 * stream, back to its pool (no stack to be had now), or, for a tasklet, to
 * the scheduler (tasklets run on the scheduler's stack). */
/* `u`, picked on `xs`, is bound to another stream: send it there. False
 * when that stream has ended (its inbox is closed): then nothing holds the
 * unit there any more, it is unbound and runs where it was picked. */
static __attribute__((noinline)) bool unit_send_home(struct weft_unit_s *u)
{
    if (inbox_push(u->home, u)) return true;
    u->home = NULL;
    u->bound = 0;
    return false;
}

/* ---------- ULTs waiting for a stack ---------- */

/* A ULT that can get no stack when it is picked (memory, address space or
 * map entries spent) waits here, counted as blocked in its pool, instead
 * of going back to its pool to be retried at full speed. While any ULT
 * waits, stacks that come back go to the global list (mem_stack_put) and
 * each wakes one waiter; a stream about to sleep hands in its cached
 * stacks (stacks_flush_for_waiters), sleeps at most STARVE_RETRY_NS and,
 * woken, lets one waiter try again (memory may have been freed by other
 * means). A wake that finds nobody parked yet is kept as a credit for the
 * ULT about to park.
 *
 * Nothing in the runtime can give a stack back once no unit is live but
 * the waiters (so no ULT holds a stack and no stream runs anything) and
 * the main ULT is blocked (or in weft_finalize). If tries keep failing so
 * for STARVE_QUIET_NS, after the global list has gone back to the OS, the
 * process ends with a message naming the ULT, the size and the cause,
 * instead of waiting for ever. */
#define STARVE_QUIET_NS (1000 * 1000 * 1000ull)

static _Atomic uint32_t g_starved_lock;
static struct weft_unit_s *g_starved_head, *g_starved_tail; /* linked by next, FIFO */
static size_t g_starved_credit;         /* wakes that found nobody parked */
static size_t g_starved_n;              /* parked */
static uint64_t g_starved_quiet_since;  /* when tries began to fail with nothing in flight; under the lock */

/* At weft_init(): nobody waits (the child of a fork may inherit a list of
 * the parent's units, and a lock another stream held). */
void stack_waiters_reset(void)
{
    atomic_store(&g_starved_lock, 0);
    g_starved_head = g_starved_tail = NULL;
    g_starved_credit = g_starved_n = 0;
    g_starved_quiet_since = 0;
    atomic_store(&weft_g.stack_waiters, 0);
}

static __attribute__((noreturn)) void stack_never(struct weft_unit_s *u)
{
    char buf[480];
    int err = mem_stack_errno();
    int n = snprintf(buf, sizeof buf,
                     "weft: ULT %llu needs a stack of %zu bytes and none can be had (%s), while no other ULT "
                     "holds a stack that could come back: it can never run. Give it a smaller stack, raise the "
                     "limit (RLIMIT_AS, memory, vm.max_map_count), or set WEFT_EAGER_STACKS=1 so that "
                     "weft_thread_create returns WEFT_ERR_NOMEM instead\n",
                     (unsigned long long)u->id, u->stack_size, err ? strerror(err) : "out of memory");
    ssize_t w = write(2, buf, n > 0 && (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    (void)w;
    abort();
}

void stack_waiters_wake(struct weft_xstream_s *xs, size_t n)
{
    struct weft_unit_s *list = NULL, **tail = &list;
    spin_lock(&g_starved_lock);
    while (n && g_starved_head) {
        struct weft_unit_s *u = g_starved_head;
        g_starved_head = u->next;
        if (!g_starved_head) g_starved_tail = NULL;
        *tail = u;
        tail = &u->next;
        n--;
        g_starved_n--;
    }
    /* ULTs between a failed attempt and parking: keep the wake for them. */
    size_t starving = (size_t)atomic_load(&weft_g.stack_waiters);
    if (n) g_starved_credit = g_starved_credit + n < starving ? g_starved_credit + n : starving;
    spin_unlock(&g_starved_lock);
    *tail = NULL;
    while (list) {
        struct weft_unit_s *u = list;
        list = u->next;
        unit_wake(xs, u);
    }
}

void stacks_flush_for_waiters(struct weft_xstream_s *xs)
{
    size_t n = mem_stack_cache_drain(xs);
    if (n) stack_waiters_wake(xs, n);
}

/* Could anything in the runtime still give a stack back? (See above.) */
static bool starve_quiet(struct weft_xstream_s *xs)
{
    (void)xs;
    struct weft_unit_s *m = weft_g.main_unit;
    if (m && atomic_load(&m->state) != WEFT_STATE_BLOCKED && !atomic_load(&weft_g.closing)) return false;
    spin_lock(&g_starved_lock);
    size_t parked = g_starved_n;
    spin_unlock(&g_starved_lock);
    return units_live() <= parked + 1;
}

/* `u`, picked on `xs`, got no stack. True once it has one after all; else
 * it is parked (see above). */
static __attribute__((noinline, cold)) bool stack_starve(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    WEFT_ASSERT(u->kind != KIND_TASKLET && !u->started && !(u->stack_flags & STK_OWN));
    /* A ULT woken to try again is still counted. */
    if (!(u->stack_flags & STK_WAITS)) {
        u->stack_flags |= STK_WAITS;
        if (atomic_fetch_add(&weft_g.stack_waiters, 1) == 0) xs_wake_all(); /* sleepers hand in their caches */
    }
    for (;;) {
        /* From here on returned stacks go to the global list: try again. */
        if (ult_prepare_cold(xs, u)) {
            u->stack_flags &= (uint8_t)~STK_WAITS;
            atomic_fetch_sub(&weft_g.stack_waiters, 1);
            spin_lock(&g_starved_lock);
            g_starved_quiet_since = 0;
            spin_unlock(&g_starved_lock);
            return true;
        }
        stacks_flush_for_waiters(xs);
        bool quiet = starve_quiet(xs);
        if (quiet && mem_stacks_trim()) continue; /* cached stacks went back to the OS: room now? */
        uint64_t now = quiet ? clock_ns() : 0;
        spin_lock(&g_starved_lock);
        if (g_starved_credit) { /* a stack came back meanwhile */
            g_starved_credit--;
            spin_unlock(&g_starved_lock);
            continue;
        }
        if (!quiet) {
            g_starved_quiet_since = 0;
        } else if (!g_starved_quiet_since) {
            g_starved_quiet_since = now;
        } else if (now - g_starved_quiet_since > STARVE_QUIET_NS) {
            spin_unlock(&g_starved_lock);
            stack_never(u);
        }
        atomic_store_explicit(&u->state, WEFT_STATE_BLOCKED, memory_order_relaxed);
        atomic_fetch_add_explicit(&u->pool->n_blocked, 1, memory_order_relaxed);
        u->next = NULL;
        if (g_starved_tail) g_starved_tail->next = u;
        else g_starved_head = u;
        g_starved_tail = u;
        g_starved_n++;
        spin_unlock(&g_starved_lock);
        return false;
    }
}

static inline struct weft_unit_s *unit_claim(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    if (MIGRATION && unlikely(u->bound) && u->home != xs && unit_send_home(u)) return NULL;
    if (u->kind == KIND_TASKLET) {
        xs->stash = u;
        return NULL;
    }
    if (!u->started) {
        if (likely(!(u->stack_flags & STK_OWN)) && unlikely(!ult_prepare(xs, u)) && !stack_starve(xs, u))
            return NULL; /* eager stacks have one already */
        if (MIGRATION && unlikely(!u->migratable)) {
            u->home = xs;
            u->bound = 1;
        }
        u->started = 1;
    }
    WEFT_ASSERT(atomic_load_explicit(&u->state, memory_order_relaxed) == WEFT_STATE_READY);
    atomic_store_explicit(&u->state, WEFT_STATE_RUNNING, memory_order_relaxed);
    return u;
}

/* The unit a ULT leaving the stream switches to: the next unit of the
 * policy when it is a ULT (scheduler bypass), else the scheduler's context;
 * NULL when nothing at all is ready. While timers are armed here, one
 * switch in 256 (xs->bypass_ticks wraps) goes to the scheduler's context
 * all the same, told to look at them (xs->housekeep): the leaving ULT may hold a
 * lock that a timer's expiry takes, so the scheduler does it, not this
 * caller. */
static inline struct weft_unit_s *unit_pick_next(struct weft_xstream_s *xs)
{
    if (!BYPASS) return xs->sched_unit; /* measurement build: every switch goes through the scheduler */
    if (unlikely(--xs->bypass_ticks == 0) && atomic_load_explicit(&xs->n_timers, memory_order_relaxed)) {
        xs->housekeep = 1;
        return xs->sched_unit;
    }
    struct weft_unit_s *next = sched_pick(xs);
    if (!next || next == xs->sched_unit) return next;
    next = unit_claim(xs, next);
    return next ? next : xs->sched_unit;
}

static inline struct weft_unit_s *unit_next_to_run(struct weft_xstream_s *xs)
{
    struct weft_unit_s *next = unit_pick_next(xs);
    return next ? next : xs->sched_unit;
}

/* End the running ULT `u`: its context is never saved ([Argobots] section
 * 3.4); whoever runs next publishes the end once off u's stack. A unit its
 * joiner ran out of turn (join_take) switches straight back to the joiner
 * when it may run here: the joiner is blocked until this very end, so the
 * word read now is still the one unit_finish will collect. */
static TSAN_NOINLINE __attribute__((noreturn)) void ult_terminate(struct weft_unit_s *u, bool unwound)
{
    struct weft_xstream_s *xs = u->xs;
    struct weft_unit_s *to = NULL;
    if (unlikely(u->join_back)) {
        uintptr_t j = atomic_load_explicit(&u->jw, memory_order_acquire);
        if (j > JW_EXTERNAL && joiner_runs_here(xs, (struct weft_unit_s *)j)) to = (struct weft_unit_s *)j;
    }
    if (!to) to = unit_next_to_run(xs);
    WEFT_ASSERT(xs->pend == PEND_NONE);
    xs->pend = PEND_TERMINATE;
    xs->pend_unit = u;
    to->xs = xs;
    xs->cur = to;
    hook_ult_end(u, unwound);
    hook_switch_begin(u, to, true);
#ifdef WEFT_MEASURE_NO_SKIP
    weft_ctx_switch(&u->ctx, &to->ctx); /* measurement build: save a context nobody resumes */
    abort();
#else
    weft_ctx_jump(&to->ctx);
#endif
}

static TSAN_NOINLINE void ult_run(struct weft_unit_s *u)
{
    hook_switch_end(u);
    unit_run_pending(u->xs);
    u->fn(u->arg);
    if (unlikely(u->has_keys)) unit_keys_end(u);
}

/* A ULT's first frame. Not instrumented: under TSan it would be a frame
 * that never returns (see hook_ult_end). */
static __attribute__((no_sanitize_thread)) void ult_entry(void *arg)
{
    ult_run(arg);
    ult_terminate(arg, true);
}

/* Run `u`, just picked by the scheduler loop of `xs`. */
void unit_dispatch(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    if (u->kind == KIND_TASKLET) {
        if (MIGRATION && unlikely(u->bound) && u->home != xs && unit_send_home(u)) return;
        u->started = 1;
        atomic_store_explicit(&u->state, WEFT_STATE_RUNNING, memory_order_relaxed);
        xs->cur = u;
        u->fn(u->arg);
        if (unlikely(u->has_keys)) unit_keys_end(u);
        xs->cur = xs->sched_unit;
        unit_finish(xs, u);
    } else if ((u = unit_claim(xs, u)) != NULL) {
        unit_switch(xs, xs->sched_unit, u, PEND_NONE, NULL);
    }
}

/* ---------- creation ---------- */

static inline uint64_t unit_next_id(struct weft_xstream_s *xs)
{
    if (!xs) return atomic_fetch_add(&weft_g.ext_next_id, 1);
    if (unlikely(xs->next_id == xs->id_end)) {
        /* Blocks of ids keep the shared counter off the hot path. */
        xs->next_id = atomic_fetch_add(&weft_g.ext_next_id, 1024);
        xs->id_end = xs->next_id + 1024;
    }
    return xs->next_id++;
}

/* A descriptor for a unit of `p`, a pool that is not this stream's
 * private one: local if this stream runs `p` too, else exported (slab.c:
 * a unit that runs elsewhere stays off this stream's hot pages). */
static __attribute__((noinline)) struct weft_unit_s *unit_alloc_for(struct weft_xstream_s *xs, struct weft_pool_s *p)
{
    return xs && pool_runs_here(xs, p) ? mem_unit_alloc(xs) : mem_unit_alloc_export(xs);
}

static int unit_create_in(struct weft_xstream_s *xs, struct weft_pool_s *p, bool pool_known, void (*fn)(void *),
                          void *arg, const weft_thread_attr *attr, bool ult, weft_thread *out,
                          struct weft_unit_s **held);

/* A plain thread's create: admitted only while the runtime runs and is not
 * being finalized (runtime.c, ext_enter). */
static __attribute__((noinline)) int unit_create_ext(struct weft_pool_s *p, void (*fn)(void *), void *arg,
                                                     const weft_thread_attr *attr, bool ult, weft_thread *out,
                                                     struct weft_unit_s **held)
{
    if (out) *out = NULL;
    int rc = ext_enter();
    if (rc) return rc;
    rc = unit_create_in(NULL, p, false, fn, arg, attr, ult, out, held);
    ext_leave();
    return rc;
}

/* Make a unit of `p`. With `held`, the caller gets it instead of the pool.
 * Inlined: each entry point keeps its constant arguments folded. */
static inline int unit_create(struct weft_pool_s *p, void (*fn)(void *), void *arg,
                              const weft_thread_attr *attr, bool ult, weft_thread *out, struct weft_unit_s **held)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs); /* a stream implies a live runtime */
    if (unlikely(!xs)) return unit_create_ext(p, fn, arg, attr, ult, out, held);
    return unit_create_in(xs, p, false, fn, arg, attr, ult, out, held);
}

/* pool_known: `p` is a built-in scheduler's pool of a live stream (the
 * _here calls), which needs no check. */
static inline __attribute__((always_inline)) int unit_create_in(struct weft_xstream_s *xs, struct weft_pool_s *p,
                                                                bool pool_known, void (*fn)(void *), void *arg,
                                                                const weft_thread_attr *attr, bool ult,
                                                                weft_thread *out, struct weft_unit_s **held)
{
    if (out) *out = NULL;
    if (!fn) return WEFT_ERR_INVALID;
    int rc;
    if (!pool_known && (rc = pool_check(p))) return rc;
    size_t stack_size = weft_g.stack_size;
    uint8_t migratable = 1;
    if (attr) {
        if (attr->stack_size) {
            if (attr->stack_size < WEFT_MIN_STACK || attr->stack_size > WEFT_MAX_STACK)
                return WEFT_ERR_INVALID;
            stack_size = (attr->stack_size + weft_g.page_size - 1) & ~(weft_g.page_size - 1);
        }
        migratable = attr->migratable != 0;
    }

    struct weft_unit_s *u;
    bool mine = xs && pool_list_mine(p, xs); /* read once: the stores to u below may alias p */
    if (likely(mine) || held) u = mem_unit_alloc(xs);
    else u = unit_alloc_for(xs, p);
    if (!u) return WEFT_ERR_NOMEM;
    u->fn = fn;
    u->arg = arg;
    if (ult) {
        u->stack_size = stack_size; /* the stack comes at first run, unless eager */
        if (unlikely(weft_g.eager_stacks) && !ult_prepare_cold(xs, u)) {
            mem_unit_release(xs, u);
            return WEFT_ERR_NOMEM;
        }
    }
    u->xs = NULL;
    __atomic_store_n(&u->pool, p, __ATOMIC_RELAXED); /* finalize may be reading it (slab.c) */
    u->next = NULL;
    u->kind = ult ? KIND_ULT : KIND_TASKLET;
    u->in_pool = 0;
    u->started = 0;
    u->detached = out == NULL;
    u->cancelled = 0;
    u->migratable = migratable;
    u->bound = 0;
    u->join_back = 0;
    u->has_keys = 0;
    atomic_store_explicit(&u->state, WEFT_STATE_READY, memory_order_relaxed);
    atomic_store_explicit(&u->jw, 0, memory_order_relaxed);
    atomic_store_explicit(&u->join_claimed, JOIN_NONE, memory_order_relaxed);
    u->id = unit_next_id(xs);
    atomic_store_explicit(&u->magic, MAGIC_UNIT, memory_order_relaxed);
    if (xs) counter_bump(&xs->n_created);
    else atomic_fetch_add(&weft_g.ext_created, 1);
    if (out) *out = u;
    if (held) *held = u;
    else if (likely(mine)) list_push_builtin(p, u);
    else unit_deliver(xs, u);
    return WEFT_OK;
}

int weft_thread_attr_init(weft_thread_attr *attr)
{
    if (!attr) return WEFT_ERR_INVALID;
    attr->stack_size = 0;
    attr->migratable = 1;
    return WEFT_OK;
}

int weft_thread_create(weft_pool pool, void (*fn)(void *), void *arg, const weft_thread_attr *attr,
                       weft_thread *out)
{
    return unit_create(pool, fn, arg, attr, true, out, NULL);
}

int weft_tasklet_create(weft_pool pool, void (*fn)(void *), void *arg, weft_thread *out)
{
    return unit_create(pool, fn, arg, NULL, false, out, NULL);
}

/* A stack for a stacked scheduler: tasklets run on it. */
int unit_create_stacked(struct weft_pool_s *p, void (*fn)(void *), struct weft_sched_s *s)
{
    weft_thread_attr a = {.stack_size = weft_g.sched_stack_size,
                          .migratable = 0};
    struct weft_unit_s *u;
    int rc = unit_create(p, fn, s, &a, true, NULL, &u);
    if (rc) return rc;
    u->kind = KIND_STACKED;
    atomic_store_explicit(&s->stacked, u, memory_order_release); /* for finalize, after n_scheds: sched.c */
    unit_deliver(WEFT_TLS(weft_tls_xs), u);
    return WEFT_OK;
}

/* Where units sent to stream xs go: its main scheduler's migration pool. */
static int xs_first_pool(struct weft_xstream_s *xs, struct weft_pool_s **p)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if (atomic_load(&xs->state) == XS_TERMINATED) return WEFT_ERR_STATE;
    *p = sched_migration_pool(xs_main_sched(xs));
    return WEFT_OK;
}

int weft_thread_create_to(weft_xstream xs, void (*fn)(void *), void *arg, const weft_thread_attr *attr,
                          weft_thread *out)
{
    struct weft_pool_s *p;
    if (out) *out = NULL;
    if (!atomic_load(&weft_g.initialized)) return WEFT_ERR_UNINIT;
    int rc = xs_first_pool(xs, &p);
    return rc ? rc : unit_create(p, fn, arg, attr, true, out, NULL);
}

int weft_tasklet_create_to(weft_xstream xs, void (*fn)(void *), void *arg, weft_thread *out)
{
    struct weft_pool_s *p;
    if (out) *out = NULL;
    if (!atomic_load(&weft_g.initialized)) return WEFT_ERR_UNINIT;
    int rc = xs_first_pool(xs, &p);
    return rc ? rc : unit_create(p, fn, arg, NULL, false, out, NULL);
}

/* Where the _here calls put a unit: the first pool of the stream's main
 * scheduler; a user-defined one's migration pool, which its callback
 * chooses (*known = false: checked as any pool given). A built-in
 * scheduler has at least one pool, which cannot be freed while used. */
static inline struct weft_pool_s *xs_here_pool(struct weft_xstream_s *xs, bool *known)
{
    struct weft_sched_s *s = xs_main_sched(xs);
    *known = likely(s->policy != SCHED_USER);
    return *known ? s->pools[0] : sched_migration_pool(s);
}

int weft_thread_create_here(void (*fn)(void *), void *arg, const weft_thread_attr *attr, weft_thread *out)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (unlikely(!xs)) {
        if (out) *out = NULL;
        return WEFT_ERR_NOT_WEFT;
    }
    bool known;
    struct weft_pool_s *p = xs_here_pool(xs, &known);
    return unit_create_in(xs, p, known, fn, arg, attr, true, out, NULL);
}

int weft_tasklet_create_here(void (*fn)(void *), void *arg, weft_thread *out)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (unlikely(!xs)) {
        if (out) *out = NULL;
        return WEFT_ERR_NOT_WEFT;
    }
    bool known;
    struct weft_pool_s *p = xs_here_pool(xs, &known);
    return unit_create_in(xs, p, known, fn, arg, NULL, false, out, NULL);
}

/* ---------- yield ---------- */

int weft_yield(void)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) {
        sched_yield();
        return WEFT_OK;
    }
    struct weft_unit_s *self = xs->cur;
    if (unlikely(self->kind == KIND_TASKLET)) return WEFT_ERR_TASKLET_BLOCKS;
    if (unlikely(self == xs->sched_unit)) {
        /* A scheduler yields to the one below it, if any. */
        if (xs->sched->parent) sched_yield_parent(xs);
        return WEFT_OK;
    }
    struct weft_unit_s *next = unit_pick_next(xs);
    if (!next) {
        /* Nothing else is ready: keep running. A stream whose unit yields
         * in a loop never goes idle, so the timed waits it keeps (a ULT's
         * deadline: idle.c) are looked at here. */
        if (!atomic_load_explicit(&xs->n_timers, memory_order_relaxed)) return WEFT_OK;
        timers_expire(xs);
        if (!(next = unit_pick_next(xs))) return WEFT_OK;
    }
    unit_switch_ready(xs, self, next);
    return WEFT_OK;
}

/* The running unit `self` (a ULT, or a stacked scheduler's context)
 * gives up the stream to the next unit and goes back to its pool, ready;
 * returns when it runs again, possibly on another stream. */
void unit_leave_ready(struct weft_xstream_s *xs, struct weft_unit_s *self)
{
    unit_switch_ready(xs, self, unit_next_to_run(xs));
}

/* The running ULT gives the stream to its scheduler's context (which then
 * sees, e.g., that it was replaced) and goes back to its pool. */
void unit_yield_to_sched(struct weft_xstream_s *xs)
{
    unit_switch_ready(xs, xs->cur, xs->sched_unit);
}

static __attribute__((noinline)) int yield_to_slow(struct weft_unit_s *target)
{
    int rc = unit_check(target);
    if (rc) return rc;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return WEFT_ERR_NOT_WEFT;
    struct weft_unit_s *self = xs->cur;
    if (self->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
    if (self == xs->sched_unit) return WEFT_ERR_SCHED_BLOCKS;
    if (target == self) return WEFT_ERR_INVALID;
    if (target->kind == KIND_TASKLET || target->kind >= KIND_SCHED) return WEFT_ERR_STATE;
    struct weft_pool_s *p = unit_get_pool(target);
    if (!p) return WEFT_ERR_STATE;
    /* Same stream: a private pool this stream owns, or a pool its scheduler
     * lists. */
    if (!pool_runs_here(xs, p)) return WEFT_ERR_CROSS_STREAM;
    if (target->bound && target->home != xs) return WEFT_ERR_CROSS_STREAM;
    if (!pool_take(p, target, false, xs)) return WEFT_ERR_STATE;
    if (!unit_claim(xs, target)) return WEFT_ERR_NOMEM; /* no stack now: it waits for one (stack_starve) */
    unit_switch_ready(xs, self, target);
    return WEFT_OK;
}

/* The common case inline: a started ULT at the head of a private pool of
 * this stream, yielded to by a ULT. Everything else, errors included, goes
 * through yield_to_slow(). */
int weft_yield_to(weft_thread target)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (likely(xs && handle_ok(target) &&
               atomic_load_explicit(&target->magic, memory_order_relaxed) == MAGIC_UNIT)) {
        struct weft_unit_s *self = xs->cur;
        /* Tested in this order: another stream's unit or pool is only read
         * through fields it publishes atomically, until target is seen at
         * the head of a private pool of ours. */
        struct weft_pool_s *p = unit_get_pool(target);
        if (likely(p && pool_list_mine(p, xs) && p->head == target && target->started &&
                   target->kind == KIND_ULT && !target->bound && self->kind != KIND_TASKLET &&
                   self != xs->sched_unit)) {
            if (likely(self->pool == p)) { /* the common case: both of one pool */
                unit_switch_swap(xs, self, target, p);
                return WEFT_OK;
            }
            list_pop_builtin(p);
            atomic_store_explicit(&target->state, WEFT_STATE_RUNNING, memory_order_relaxed);
            unit_switch_ready(xs, self, target);
            return WEFT_OK;
        }
    }
    return yield_to_slow(target);
}

int weft_thread_create_first(void (*fn)(void *), void *arg, const weft_thread_attr *attr, weft_thread *out)
{
    if (out) *out = NULL;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return WEFT_ERR_NOT_WEFT;
    struct weft_unit_s *self = xs->cur, *u;
    if (self->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
    if (self == xs->sched_unit) return WEFT_ERR_SCHED_BLOCKS;
    int rc = unit_create(self->pool, fn, arg, attr, true, out, &u);
    if (rc) return rc;
    /* Without a stack for it now, it simply waits in the pool (help-first). */
    if ((u = unit_claim(xs, u)) != NULL) unit_switch_ready(xs, self, u);
    return WEFT_OK;
}

/* ---------- join and free ---------- */

static void join_from_thread_wait(struct weft_unit_s *t)
{
    uintptr_t cur = 0;
    if (atomic_compare_exchange_strong(&t->jw, &cur, JW_EXTERNAL) || cur == JW_EXTERNAL) {
        /* The futex word reads JW_EXTERNAL until the end turns it JW_DONE. */
        while (!unit_done(t)) futex_wait(jw_futex(t), (uint32_t)JW_EXTERNAL, NULL);
    } else {
        while (!unit_done(t)) sched_yield(); /* a ULT waits on it too (a racing second join) */
    }
}

static void join_from_thread(struct weft_unit_s *t)
{
    ext_track(); /* finalize must not release t while we still read it */
    join_from_thread_wait(t);
    ext_leave();
}

/* A join runs its joinee next. At the head of its pool, the policy does
 * that by itself (the bypass switches to it), and units that end one after
 * the other keep running through the pool: joins in pool order cost n+1
 * switches for n units. A ULT not yet started further back, within
 * JOIN_TAKE_REACH of a pool this stream serves, leaves its pool to run
 * now and switches straight back to its joiner at its end ([Argobots]
 * section 3.3). A user pool keeps its own order; a deque cannot give up a
 * unit; a tasklet runs on the scheduler's stack, so only the policy's
 * order applies to it. */
static inline bool join_take(struct weft_xstream_s *xs, struct weft_unit_s *t)
{
    struct weft_pool_s *p = unit_get_pool(t);
    if (!BYPASS || t->kind != KIND_ULT || !p || p->kind == POOL_KIND_USER || !pool_runs_here(xs, p) ||
        !pool_take_within(p, t, true, JOIN_TAKE_REACH, false, xs))
        return false;
    t->join_back = 1;
    return true;
}

/* Suspend the running ULT `self` until `t` has ended. */
static void ult_wait_for(struct weft_xstream_s *xs, struct weft_unit_s *self, struct weft_unit_s *t)
{
    if (join_take(xs, t)) runnext_push_front(xs, t);
    unit_switch(xs, self, unit_next_to_run(xs), PEND_JOIN, t); /* woken once t ended */
    /* Woken early only when another thread already waited on t: poll. */
    while (unlikely(!unit_done(t))) weft_yield();
}

/* Join a valid unit. join_claimed (JOIN_NONE, JOIN_BUSY while a join
 * waits, JOIN_DONE) is claimed by one compare-and-swap: of two threads
 * joining or freeing the same handle at once, exactly one joins; the other
 * gets WEFT_ERR_JOINED. The main ULT and scheduler contexts are never
 * joined: the main ULT gets WEFT_ERR_JOIN_SELF for itself, others
 * WEFT_ERR_STATE. */
/* What the caller (self, on stream xs or none) may not join in t's state
 * now, claims aside: unit_join's refusals, and join_many's and free_many's
 * checks of every unit before they join any (unit_join_precheck). */
static inline int join_refusal(struct weft_unit_s *t, struct weft_xstream_s *xs, struct weft_unit_s *self)
{
    if (unlikely(t == self)) return WEFT_ERR_JOIN_SELF;
    if (unlikely(t->kind >= KIND_MAIN || t->detached)) return WEFT_ERR_STATE;
    if (!unit_done(t)) {
        if (unlikely(self && self->kind == KIND_TASKLET)) return WEFT_ERR_TASKLET_BLOCKS;
        if (unlikely(self && self == xs->sched_unit)) return WEFT_ERR_SCHED_BLOCKS;
    }
    return WEFT_OK;
}

static int unit_join(struct weft_unit_s *t)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    struct weft_unit_s *self = xs ? xs->cur : NULL;
    int rc = join_refusal(t, xs, self);
    if (unlikely(rc)) return rc;
    uint8_t none = JOIN_NONE;
    if (unit_done(t)) {
        if (!atomic_compare_exchange_strong_explicit(&t->join_claimed, &none, JOIN_DONE, memory_order_acq_rel,
                                                     memory_order_acquire))
            return WEFT_ERR_JOINED;
        return WEFT_OK;
    }
    if (!atomic_compare_exchange_strong_explicit(&t->join_claimed, &none, JOIN_BUSY, memory_order_acq_rel,
                                                 memory_order_acquire))
        return WEFT_ERR_JOINED;
    if (self) ult_wait_for(xs, self, t);
    else join_from_thread(t);
    WEFT_ASSERT(atomic_load_explicit(&t->join_claimed, memory_order_relaxed) == JOIN_BUSY);
    atomic_store_explicit(&t->join_claimed, JOIN_DONE, memory_order_release);
    return WEFT_OK;
}

/* What unit_join() would refuse in t's state now, without claiming it:
 * join_many and free_many check every unit so before they join any.
 * joined_ok: a unit joined already is fine (free_many). */
static int unit_join_precheck(struct weft_unit_s *t, bool joined_ok)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    int rc = join_refusal(t, xs, xs ? xs->cur : NULL);
    if (rc) return rc;
    uint8_t claimed = atomic_load_explicit(&t->join_claimed, memory_order_acquire);
    return claimed == JOIN_NONE || (claimed == JOIN_DONE && joined_ok) ? WEFT_OK : WEFT_ERR_JOINED;
}

int weft_thread_join(weft_thread t)
{
    int rc = unit_check(t);
    return rc ? rc : unit_join(t);
}

/* The one decision of a free: the magic word goes from live to dead once.
 * Of two threads freeing the same handle, the loser sees it dead. */
static inline bool unit_kill(struct weft_unit_s *t)
{
    uint32_t live = MAGIC_UNIT;
    return atomic_compare_exchange_strong_explicit(&t->magic, &live, MAGIC_DEAD, memory_order_acq_rel,
                                                   memory_order_relaxed);
}

int weft_thread_free(weft_thread *tp)
{
    if (!tp) return WEFT_ERR_INVALID;
    struct weft_unit_s *t = *tp;
    int rc = unit_check(t);
    if (rc) return rc;
    /* The common case: an ended, unjoined unit of ours. */
    if (likely(t->kind < KIND_MAIN && !t->detached && unit_done(t) &&
               atomic_load_explicit(&t->join_claimed, memory_order_relaxed) == JOIN_NONE)) {
        if (!unit_kill(t)) return WEFT_ERR_HANDLE;
        mem_unit_release(WEFT_TLS(weft_tls_xs), t);
        *tp = NULL;
        return WEFT_OK;
    }
    uint8_t claimed = atomic_load_explicit(&t->join_claimed, memory_order_acquire);
    if (t->kind >= KIND_MAIN || t->detached || claimed == JOIN_NONE) {
        if ((rc = unit_join(t)) != WEFT_OK) return rc;
    } else if (claimed == JOIN_BUSY) {
        return WEFT_ERR_JOINED; /* another thread is joining it: that one wins */
    }
    if (!unit_kill(t)) return WEFT_ERR_HANDLE;
    mem_unit_release(WEFT_TLS(weft_tls_xs), t);
    *tp = NULL;
    return WEFT_OK;
}

int weft_thread_join_many(int n, const weft_thread *units)
{
    if (n < 0 || (n > 0 && !units)) return WEFT_ERR_INVALID;
    for (int i = 0; i < n; i++) {
        int rc = unit_check(units[i]);
        if (rc) return rc;
    }
    for (int i = 0; i < n; i++) {
        int rc = unit_join_precheck(units[i], false);
        if (rc) return rc;
    }
    /* In order: joins in pool order chain through the pool (join_take). */
    for (int i = 0; i < n; i++) {
        int rc = unit_join(units[i]);
        if (rc) return rc;
    }
    return WEFT_OK;
}

int weft_thread_free_many(int n, weft_thread *units)
{
    if (n < 0 || (n > 0 && !units)) return WEFT_ERR_INVALID;
    int rc;
    for (int i = 0; i < n; i++)
        if ((rc = unit_check(units[i]))) return rc;
    for (int i = 0; i < n; i++)
        if ((rc = unit_join_precheck(units[i], true))) return rc;
    /* Join first, in order, skipping units already joined:
     * weft_thread_free() accepts those too. */
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    struct weft_unit_s *self = xs ? xs->cur : NULL;
    for (int i = 0; i < n; i++)
        if ((units[i]->kind >= KIND_MAIN ||
             atomic_load_explicit(&units[i]->join_claimed, memory_order_acquire) != JOIN_DONE) &&
            (rc = unit_join(units[i])) != WEFT_OK)
            return rc;
    /* All joined: release them straight. The joins may have moved a ULT
     * caller to another stream; other callers never switched. */
    if (self && (self->kind == KIND_ULT || self->kind == KIND_MAIN)) xs = self->xs;
    for (int i = 0; i < n; i++) {
        if (!unit_kill(units[i])) return WEFT_ERR_HANDLE; /* the same unit twice, or freed meanwhile */
        mem_unit_release(xs, units[i]);
        units[i] = NULL;
    }
    return WEFT_OK;
}

static int unit_revive(struct weft_xstream_s *xs, struct weft_pool_s *pool, void (*fn)(void *), void *arg,
                       struct weft_unit_s *t);

int weft_thread_revive(weft_pool pool, void (*fn)(void *), void *arg, weft_thread t)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if ((rc = pool_check(pool))) return rc;
    if (!fn) return WEFT_ERR_INVALID;
    if (t->kind >= KIND_MAIN || t->detached || !unit_done(t) ||
        atomic_load_explicit(&t->join_claimed, memory_order_acquire) == JOIN_BUSY)
        return WEFT_ERR_STATE;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs && (rc = ext_enter())) return rc;
    rc = unit_revive(xs, pool, fn, arg, t);
    if (!xs) ext_leave();
    return rc;
}

static int unit_revive(struct weft_xstream_s *xs, struct weft_pool_s *pool, void (*fn)(void *), void *arg,
                       struct weft_unit_s *t)
{
    /* Its stack went back at its end; a ULT gets one again at first run,
     * or now when stacks are eager. */
    t->fn = fn;
    t->arg = arg;
    if (t->kind == KIND_ULT && weft_g.eager_stacks && !ult_prepare_cold(xs, t)) return WEFT_ERR_NOMEM;
    unit_set_pool(t, pool);
    t->xs = NULL;
    t->next = NULL;
    t->started = 0;
    t->cancelled = 0;
    t->bound = 0;
    t->join_back = 0;
    atomic_store_explicit(&t->state, WEFT_STATE_READY, memory_order_relaxed);
    atomic_store_explicit(&t->join_claimed, JOIN_NONE, memory_order_relaxed);
    atomic_store_explicit(&t->jw, 0, memory_order_release);
    if (xs) counter_bump(&xs->n_created);
    else atomic_fetch_add(&weft_g.ext_created, 1);
    unit_deliver(xs, t);
    return WEFT_OK;
}

int weft_thread_migrate(weft_thread t, weft_pool pool)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if ((rc = pool_check(pool))) return rc;
    if (t->kind >= KIND_MAIN || (t->started && !t->migratable) || unit_done(t)) return WEFT_ERR_STATE;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    struct weft_unit_s *self = xs ? xs->cur : NULL;
    if (t == self) {
        if (t->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
        /* Leave with a new home pool: the requeue puts it there (before
         * the switch when it is a private list of this stream, else after
         * it, through the owner's inbox if another stream owns it). */
        unit_set_pool(t, pool);
        unit_switch_ready(xs, self, unit_next_to_run(xs));
        return WEFT_OK;
    }
    struct weft_pool_s *p = unit_get_pool(t);
    if (!p) return WEFT_ERR_STATE;
    if (pool_single_consumer(p) && pool_owner(p) && pool_owner(p) != xs) return WEFT_ERR_POOL_ACCESS;
    if (!pool_take(p, t, false, xs)) return WEFT_ERR_STATE; /* running, blocked or in transit */
    unit_set_pool(t, pool);
    unit_deliver(xs, t);
    return WEFT_OK;
}

int weft_thread_migrate_to_xstream(weft_thread t, weft_xstream target)
{
    struct weft_pool_s *p;
    int rc = xs_first_pool(target, &p);
    return rc ? rc : weft_thread_migrate(t, p);
}

/* ---------- blocking on a primitive (src/sync) ---------- */

/* The running ULT `self`, already on a wait queue guarded by the spin lock
 * `lock` (held), gives up its stream until unit_unpark() or unit_handoff().
 * It counts as blocked before anyone can see it; the lock is released by
 * the next context on the stream, once its registers are saved. */
void unit_park(struct weft_unit_s *self, _Atomic uint32_t *lock)
{
    struct weft_xstream_s *xs = self->xs;
    WEFT_ASSERT(atomic_load_explicit(&self->state, memory_order_relaxed) == WEFT_STATE_RUNNING);
    atomic_store_explicit(&self->state, WEFT_STATE_BLOCKED, memory_order_relaxed);
    atomic_fetch_add_explicit(&self->pool->n_blocked, 1, memory_order_relaxed);
    xs->pend_lock = lock;
    unit_switch(xs, self, unit_next_to_run(xs), PEND_UNLOCK, NULL);
}

/* A parked ULT may go on: back into its pool. Any context. */
void unit_unpark(struct weft_unit_s *u)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (likely(xs != NULL)) {
        unit_wake(xs, u);
        return;
    }
    ext_track(); /* a plain thread: finalize must not release the pool under us */
    unit_wake(NULL, u);
    ext_leave();
}

/* Could unit_handoff(u) switch to the parked ULT u now? */
bool unit_can_handoff(struct weft_unit_s *u)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return false;
    struct weft_unit_s *self = xs->cur;
    return self->kind != KIND_TASKLET && self != xs->sched_unit && joiner_runs_here(xs, u);
}

/* A parked ULT was just handed what it waited for by the running unit:
 * when both are ULTs that may run on this stream, switch to it now (the
 * caller goes back to its pool, ready) and return true once the caller
 * runs again; else return false and let the caller unpark it. */
bool unit_handoff(struct weft_unit_s *u)
{
    if (!unit_can_handoff(u)) return false;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    struct weft_unit_s *self = xs->cur;
    atomic_store_explicit(&u->state, WEFT_STATE_RUNNING, memory_order_relaxed);
    atomic_fetch_sub_explicit(&u->pool->n_blocked, 1, memory_order_release);
    unit_switch_ready(xs, self, u);
    return true;
}

/* ---------- exit, cancel, queries ---------- */

int weft_thread_exit(void)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return WEFT_ERR_NOT_WEFT;
    struct weft_unit_s *self = xs->cur;
    if (self->kind != KIND_ULT) return WEFT_ERR_NOT_ULT;
    if (self->has_keys) unit_keys_end(self);
    ult_terminate(self, false);
}

int weft_thread_cancel(weft_thread t)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if (t->kind != KIND_ULT && t->kind != KIND_TASKLET) return WEFT_ERR_STATE;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    struct weft_pool_s *p = unit_get_pool(t);
    /* Running, blocked or ended: no pool holds it, whoever owns its pool. */
    if (!p || unit_done(t) || atomic_load_explicit(&t->state, memory_order_acquire) != WEFT_STATE_READY)
        return WEFT_ERR_STATE;
    if (pool_single_consumer(p) && pool_owner(p) && pool_owner(p) != xs)
        return WEFT_ERR_POOL_ACCESS;
    if (!pool_take(p, t, true, xs)) return WEFT_ERR_STATE;
    t->cancelled = 1;
    unit_finish(xs, t);
    return WEFT_OK;
}

int weft_self(weft_thread *out)
{
    if (!out) return WEFT_ERR_INVALID;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return WEFT_ERR_NOT_WEFT;
    *out = xs->cur;
    return WEFT_OK;
}

int weft_thread_id(weft_thread t, uint64_t *id)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if (!id) return WEFT_ERR_INVALID;
    *id = t->id;
    return WEFT_OK;
}

int weft_thread_pool_data(weft_thread t, void ***data)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if (!data) return WEFT_ERR_INVALID;
    *data = t->pool_data;
    return WEFT_OK;
}

int weft_thread_get_arg(weft_thread t, void **arg)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if (!arg) return WEFT_ERR_INVALID;
    *arg = t->arg;
    return WEFT_OK;
}

int weft_thread_is_tasklet(weft_thread t, int *is_tasklet)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if (!is_tasklet) return WEFT_ERR_INVALID;
    *is_tasklet = t->kind == KIND_TASKLET;
    return WEFT_OK;
}

int weft_thread_get_state(weft_thread t, weft_thread_state *state)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if (!state) return WEFT_ERR_INVALID;
    *state = unit_done(t) ? WEFT_STATE_TERMINATED
                          : (weft_thread_state)atomic_load_explicit(&t->state, memory_order_relaxed);
    return WEFT_OK;
}

int weft_thread_was_cancelled(weft_thread t, int *cancelled)
{
    int rc = unit_check(t);
    if (rc) return rc;
    if (!cancelled) return WEFT_ERR_INVALID;
    *cancelled = unit_done(t) && t->cancelled;
    return WEFT_OK;
}

/* Units created and not yet ended. Read every "finished" count before any
 * "created" count: a unit seen finished is then also seen created, so the
 * result never undercounts. */
uint64_t units_live(void)
{
    uint64_t fin = 0, cre = 0;
    pthread_mutex_lock(&weft_g.lock);
    fin += atomic_load_explicit(&weft_g.ext_finished, memory_order_acquire);
    for (int i = 0; i < weft_g.streams_used; i++)
        if (weft_g.streams[i]) fin += atomic_load_explicit(&weft_g.streams[i]->n_finished, memory_order_acquire);
    cre += atomic_load_explicit(&weft_g.ext_created, memory_order_acquire);
    for (int i = 0; i < weft_g.streams_used; i++)
        if (weft_g.streams[i]) cre += atomic_load_explicit(&weft_g.streams[i]->n_created, memory_order_acquire);
    pthread_mutex_unlock(&weft_g.lock);
    return cre > fin ? cre - fin : 0;
}
