/* Pair mode (include/weft_pair.h): an owner and an assistant thread joined
 * by a single-producer single-consumer ring [Relic §VI].
 *
 * The ring. `cap` entries of {fn, arg}; the owner fills entry `tail % cap`
 * and publishes it with one release store of `tail`; the assistant reads
 * `tail` with one acquire load and walks from `head` up to it, claiming each
 * entry by exchanging its fn with 0, running it, then publishing `a_done`
 * (tasks it ran) and `head` (entries it passed) with release stores. The
 * owner, waiting, claims entries the same way from the top down; an entry
 * whose fn is already 0 was taken by the other side and is passed over. The
 * owner reuses an entry only once `head` is past it, so an entry changes only
 * between the assistant's last look at it and the owner's next submit.
 *
 * Completion without a shared read-modify-write: every task that entered
 * the ring was either run by the assistant (counted in `a_done`, written only
 * by the assistant) or claimed by the owner's side (`o_finished` once done,
 * `helps` while running). All of them are done when
 *     a_done + o_finished + (tasks running on the waiter's own stack) == tail.
 *
 * Lines. What the owner writes and the assistant reads (`tail`, the hint),
 * what the assistant writes (`head`, `a_done`), what only the owner's side
 * touches, and the assistant's futex word each have a cache line of their
 * own, so a submit and a completion each move one line.
 *
 * Sleeping. The assistant spins while the ring is empty, for `spin_ns` or
 * until the sleep hint, then sets `sleeping`, and looks at `tail` once more
 * before it sleeps on `sleeping`; a submit looks at `sleeping` after its
 * store of `tail`. Two stores each followed by a load of the other's word:
 * without a full barrier on both sides each could miss the other (a task
 * left in the ring of a sleeping assistant). The barrier is asymmetric: the
 * side falling asleep, which is rare and not in a hurry, makes every running
 * thread of the process pass a full barrier (membarrier(2), private
 * expedited), so that the submit needs only a compiler barrier. Where the
 * kernel lacks that command, the submit issues a full fence instead. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "weft_pair.h"
#include "../core/internal.h"
#include "../core/futex.h"

#define MAGIC_PAIR 0x57504152u /* "WPAR" */
#define MAGIC_PAIR_DEAD 0x77706172u
#define PAIR_DEFAULT_CAPACITY 128u
#define PAIR_DEFAULT_SPIN_US 200L /* docs/design.md, "Pair mode" */
#define PAIR_CLOCK_EVERY 64       /* idle spins between looks at the clock */

struct pair_slot {
    _Atomic uintptr_t fn; /* 0: empty or claimed */
    void *arg;
};

/* A task the owner's side took from the ring and runs now: linked while it
 * runs, so that a wait inside it knows the tasks on its own stack. */
struct pair_help {
    struct pair_help *prev, *next;
    uintptr_t unit; /* the ULT that runs it (0: a plain thread) */
};

struct weft_pair_s {
    /* Read-mostly. */
    _Atomic uint32_t magic;
    uint32_t mask;             /* capacity - 1 */
    struct pair_slot *ring;
    uintptr_t owner;           /* the owning OS thread (pair_self()) */
    uint64_t spin_ns;
    pthread_t thread;
    int owner_cpu, assistant_cpu;
    weft_pair_placement placement;

    /* Written by the owner, read by the assistant. */
    _Atomic uint64_t tail __attribute__((aligned(CACHE_LINE)));
    _Atomic uint32_t hint_sleep;
    _Atomic uint32_t stop;
    _Atomic uint32_t started; /* the assistant runs (create waits for it) */

    /* The owner's side only (any unit of the owning stream, one at a time;
     * `help_lock` guards the list, which a moved ULT may still unlink). */
    uint64_t o_tail __attribute__((aligned(CACHE_LINE))); /* == tail */
    uint64_t o_head;                 /* the assistant's head as last read */
    _Atomic uint64_t o_finished;     /* tasks the owner's side claimed and finished */
    _Atomic uint32_t help_lock;
    _Atomic uint32_t helps;          /* tasks the owner's side runs now */
    struct pair_help *help_list;

    /* Written by the assistant. */
    _Atomic uint64_t head __attribute__((aligned(CACHE_LINE)));
    _Atomic uint64_t a_done;

    /* The assistant's futex word: 1 while it sleeps or is about to. */
    _Atomic uint32_t sleeping __attribute__((aligned(CACHE_LINE)));
} __attribute__((aligned(CACHE_LINE)));

_Static_assert(offsetof(struct weft_pair_s, magic) == 0, "a retired pair keeps its magic word");

/* The calling OS thread, as an address unique among live threads. Out of
 * line and opaque to the optimiser: a ULT that ran a task may come back on
 * another thread, and must not reuse an address computed before. */
static __thread char t_anchor __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) uintptr_t pair_self(void)
{
    uintptr_t a = (uintptr_t)&t_anchor;
    __asm__ volatile("" : "+r"(a));
    return a;
}

/* The running ULT or tasklet (0 on a plain thread), read at API entry. */
static inline uintptr_t pair_unit(void)
{
    struct weft_xstream_s *xs = weft_tls_xs;
    return xs ? (uintptr_t)xs->cur : 0;
}

static inline int pair_check(struct weft_pair_s *p)
{
    if (unlikely(!handle_ok(p) || atomic_load_explicit(&p->magic, memory_order_relaxed) != MAGIC_PAIR))
        return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

static inline int pair_owner_check(struct weft_pair_s *p)
{
    int rc = pair_check(p);
    if (unlikely(rc)) return rc;
    return likely(p->owner == pair_self()) ? WEFT_OK : WEFT_ERR_NOT_OWNER;
}

/* May the caller wait (spin, run tasks, yield)? */
static int pair_wait_context(void)
{
    struct weft_xstream_s *xs = weft_tls_xs;
    if (!xs) return WEFT_OK;
    struct weft_unit_s *u = xs->cur;
    if (u->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
    if (u == xs->sched_unit) return WEFT_ERR_SCHED_BLOCKS;
    return WEFT_OK;
}

/* ------------------------------------------------------------------ */
/* The asymmetric barrier (see the top)                                */

static pthread_once_t g_barrier_once = PTHREAD_ONCE_INIT;
/* 1: membarrier is registered and serves the heavy side; 0: both sides
 * fence. Set once, before the first pair exists. */
static int g_membarrier;

static void barrier_register(void)
{
    g_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* A full barrier. TSan knows no fences: a sequentially consistent
 * exchange is one on both architectures weft runs on. */
static inline void full_fence(void)
{
#ifdef WEFT_TSAN
    static _Atomic uint32_t dummy;
    atomic_exchange_explicit(&dummy, 0, memory_order_seq_cst);
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* The submit's side. */
static inline void barrier_light(void)
{
    if (likely(g_membarrier)) atomic_signal_fence(memory_order_seq_cst);
    else full_fence();
}

/* The sleeper's side. */
static void barrier_heavy(void)
{
    if (!g_membarrier || syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        full_fence();
}

/* ------------------------------------------------------------------ */
/* The assistant                                                       */

static void pair_wake(struct weft_pair_s *p)
{
    if (atomic_exchange_explicit(&p->sleeping, 0, memory_order_acq_rel)) futex_wake(&p->sleeping, 1);
}

/* Sleep until woken, unless work or the stop came in while falling asleep. */
static void assistant_sleep(struct weft_pair_s *p, uint64_t h)
{
    atomic_store_explicit(&p->sleeping, 1, memory_order_relaxed);
    barrier_heavy();
    if (atomic_load_explicit(&p->tail, memory_order_relaxed) != h ||
        atomic_load_explicit(&p->stop, memory_order_seq_cst)) {
        atomic_store_explicit(&p->sleeping, 0, memory_order_relaxed);
        return;
    }
    while (atomic_load_explicit(&p->sleeping, memory_order_acquire)) futex_wait(&p->sleeping, 1, NULL);
}

static void *assistant_main(void *arg)
{
    struct weft_pair_s *p = arg;
    pthread_setname_np(pthread_self(), "weft-pair");
    atomic_store_explicit(&p->started, 1, memory_order_release);
    const uint32_t mask = p->mask;
    struct pair_slot *ring = p->ring;
    uint64_t h = 0, done = 0, idle_since = 0;
    unsigned idle_spins = 0;
    for (;;) {
        uint64_t t = atomic_load_explicit(&p->tail, memory_order_acquire);
        if (h != t) {
            do {
                struct pair_slot *s = &ring[h & mask];
                uintptr_t fn = atomic_exchange_explicit(&s->fn, 0, memory_order_relaxed);
                if (fn) {
                    ((void (*)(void *))fn)(s->arg);
                    atomic_store_explicit(&p->a_done, ++done, memory_order_release);
                }
                atomic_store_explicit(&p->head, ++h, memory_order_release);
            } while (h != t);
            idle_since = 0;
            continue;
        }
        if (atomic_load_explicit(&p->stop, memory_order_acquire)) break;
        bool sleep = atomic_load_explicit(&p->hint_sleep, memory_order_relaxed);
        if (!sleep && ++idle_spins % PAIR_CLOCK_EVERY == 0) {
            uint64_t now = clock_ns();
            if (!idle_since) idle_since = now;
            else if (now - idle_since >= p->spin_ns) sleep = true;
        }
        if (sleep) {
            assistant_sleep(p, h);
            idle_since = 0;
            continue;
        }
        cpu_relax();
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* The owner's side                                                    */

/* Take the newest queued task and run it here. False if none is queued. */
static bool pair_help_one(struct weft_pair_s *p, uintptr_t unit)
{
    uint64_t low = atomic_load_explicit(&p->head, memory_order_acquire);
    for (uint64_t i = p->o_tail; i-- > low;) {
        struct pair_slot *s = &p->ring[i & p->mask];
        if (!atomic_load_explicit(&s->fn, memory_order_relaxed)) continue;
        uintptr_t fn = atomic_exchange_explicit(&s->fn, 0, memory_order_relaxed);
        if (!fn) continue;
        void *arg = s->arg;
        struct pair_help me = {.prev = NULL, .unit = unit};
        spin_lock(&p->help_lock);
        me.next = p->help_list;
        if (me.next) me.next->prev = &me;
        p->help_list = &me;
        atomic_store_explicit(&p->helps, atomic_load_explicit(&p->helps, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        spin_unlock(&p->help_lock);
        ((void (*)(void *))fn)(arg);
        spin_lock(&p->help_lock);
        if (me.prev) me.prev->next = me.next;
        else p->help_list = me.next;
        if (me.next) me.next->prev = me.prev;
        uint32_t n = atomic_load_explicit(&p->helps, memory_order_relaxed);
        WEFT_ASSERT(n > 0);
        atomic_store_explicit(&p->helps, n - 1, memory_order_relaxed);
        atomic_store_explicit(&p->o_finished, atomic_load_explicit(&p->o_finished, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        spin_unlock(&p->help_lock);
        return true;
    }
    return false;
}

/* Tasks the owner's side runs now: those of `unit` (on the caller's own
 * stack) and all. */
static uint32_t pair_helps(struct weft_pair_s *p, uintptr_t unit, uint32_t *all)
{
    uint32_t mine = 0;
    spin_lock(&p->help_lock);
    *all = atomic_load_explicit(&p->helps, memory_order_relaxed);
    for (struct pair_help *h = p->help_list; h; h = h->next) mine += h->unit == unit;
    spin_unlock(&p->help_lock);
    return mine;
}

static int pair_drain(struct weft_pair_s *p)
{
    uint64_t done = atomic_load_explicit(&p->a_done, memory_order_acquire) +
                    atomic_load_explicit(&p->o_finished, memory_order_relaxed);
    if (likely(done == p->o_tail)) return WEFT_OK;
    uintptr_t unit = pair_unit(), self = pair_self();
    for (;;) {
        done = atomic_load_explicit(&p->a_done, memory_order_acquire) +
               atomic_load_explicit(&p->o_finished, memory_order_relaxed);
        WEFT_ASSERT(done <= p->o_tail);
        if (done == p->o_tail) return WEFT_OK;
        uint32_t all = atomic_load_explicit(&p->helps, memory_order_relaxed), mine = 0;
        if (all) mine = pair_helps(p, unit, &all);
        if (done + all == p->o_tail) {
            if (mine == all) return WEFT_OK;
            /* Only tasks other ULTs of the stream took are left. */
            weft_yield();
            if (pair_self() != self) return WEFT_ERR_NOT_OWNER;
            continue;
        }
        if (pair_help_one(p, unit)) {
            if (pair_self() != self) return WEFT_ERR_NOT_OWNER; /* the task moved this ULT */
            continue;
        }
        cpu_relax();
    }
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

static int spin_from_env(long *us)
{
    const char *e = getenv("WEFT_PAIR_SPIN_US");
    *us = PAIR_DEFAULT_SPIN_US;
    if (!e || !*e) return WEFT_OK;
    char *end;
    errno = 0;
    long v = strtol(e, &end, 10);
    if (errno || *end || end == e || v < 0 || v > WEFT_MAX_SPIN_US) return WEFT_ERR_INVALID;
    *us = v;
    return WEFT_OK;
}

int weft_pair_config_init(weft_pair_config *cfg)
{
    if (!cfg) return WEFT_ERR_INVALID;
    cfg->capacity = PAIR_DEFAULT_CAPACITY;
    cfg->assistant_cpu = -1;
    return spin_from_env(&cfg->spin_us);
}

/* Start the assistant on `cpu`, else with the caller's CPUs `mask`. */
static int pair_start(struct weft_pair_s *p, int cpu, const cpu_set_t *mask)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr)) return WEFT_ERR_SYS;
    pthread_attr_setstacksize(&attr, (size_t)1 << 20);
    cpu_set_t set = *mask;
    if (cpu >= 0) {
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
    }
    {
        if (pthread_attr_setaffinity_np(&attr, sizeof set, &set)) {
            pthread_attr_destroy(&attr);
            return WEFT_ERR_SYS;
        }
    }
    /* Signals go to the program's own threads, not to the assistant. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&p->thread, &attr, assistant_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc == 0 ? WEFT_OK : rc == ENOMEM || rc == EAGAIN ? WEFT_ERR_NOMEM : WEFT_ERR_SYS;
}

int weft_pair_create(const weft_pair_config *cfg, weft_pair *out)
{
    if (!out) return WEFT_ERR_INVALID;
    weft_pair_config c;
    pthread_once(&g_barrier_once, barrier_register);
    if (cfg) c = *cfg;
    else {
        int rc = weft_pair_config_init(&c);
        if (rc) return rc;
    }
    if (c.capacity < 2 || c.capacity > WEFT_PAIR_MAX_CAPACITY || (c.capacity & (c.capacity - 1)) ||
        c.spin_us < 0 || c.spin_us > WEFT_MAX_SPIN_US || c.assistant_cpu < -2)
        return WEFT_ERR_INVALID;
    /* The caller's CPUs, and the process's: the main thread's, the
     * caller's, and weft's (topo_pair_cpu adds them). */
    cpu_set_t mine, all;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) return WEFT_ERR_SYS;
    if (sched_getaffinity(getpid(), sizeof all, &all) != 0) all = mine;
    else CPU_OR(&all, &all, &mine);
    int owner_cpu = sched_getcpu(), level = 3;
    int near = topo_pair_cpu(owner_cpu, &all, &level);
    if (c.assistant_cpu >= 0 && (c.assistant_cpu >= CPU_SETSIZE || !CPU_ISSET(c.assistant_cpu, &all)))
        return WEFT_ERR_INVALID;

    /* Near the owner only if the owner stays put: an owner free to move
     * could land on the assistant's CPU and spin there while the assistant
     * waits for it to go. Else the assistant may go where the owner may. */
    int cpu = c.assistant_cpu;
    weft_pair_placement how = WEFT_PAIR_GIVEN_CPU;
    if (cpu == -2 || (cpu == -1 && CPU_COUNT(&mine) != 1)) how = WEFT_PAIR_UNBOUND, cpu = -1;
    else if (cpu == -1) {
        cpu = near;
        how = level == 0 ? WEFT_PAIR_SMT_SIBLING : level == 1 ? WEFT_PAIR_SHARED_CACHE
            : level == 2 ? WEFT_PAIR_OTHER_CPU : WEFT_PAIR_SAME_CPU;
        if (cpu < 0) cpu = owner_cpu; /* alone on one CPU: share it */
    }

    struct weft_pair_s *p = obj_alloc(sizeof *p);
    if (!p) return WEFT_ERR_NOMEM;
    struct pair_slot *ring = aligned_alloc(CACHE_LINE, (size_t)c.capacity * sizeof *ring > CACHE_LINE
                                                           ? (size_t)c.capacity * sizeof *ring : CACHE_LINE);
    if (!ring) {
        obj_retire(p, sizeof *p);
        return WEFT_ERR_NOMEM;
    }
    for (unsigned i = 0; i < c.capacity; i++) {
        atomic_init(&ring[i].fn, 0);
        ring[i].arg = NULL;
    }
    /* Every field but the magic word: a retired object links its free list
     * through bytes 8..15, and stale handles read the magic meanwhile. */
    p->mask = c.capacity - 1;
    p->ring = ring;
    p->owner = pair_self();
    p->spin_ns = (uint64_t)c.spin_us * 1000u;
    p->owner_cpu = owner_cpu;
    p->assistant_cpu = cpu;
    p->placement = how;
    atomic_init(&p->tail, 0);
    atomic_init(&p->hint_sleep, 0);
    atomic_init(&p->stop, 0);
    atomic_init(&p->started, 0);
    p->o_tail = p->o_head = 0;
    atomic_init(&p->o_finished, 0);
    atomic_init(&p->help_lock, 0);
    atomic_init(&p->helps, 0);
    p->help_list = NULL;
    atomic_init(&p->head, 0);
    atomic_init(&p->a_done, 0);
    atomic_init(&p->sleeping, 0);
    int rc = pair_start(p, p->assistant_cpu, &mine);
    if (rc) {
        free(ring);
        obj_retire(p, sizeof *p);
        return rc;
    }
    /* Ready when create returns: the first tasks do not all fall to the
     * owner while the thread starts. */
    while (!atomic_load_explicit(&p->started, memory_order_acquire)) sched_yield();
    atomic_store_explicit(&p->magic, MAGIC_PAIR, memory_order_release);
    *out = p;
    return WEFT_OK;
}

int weft_pair_submit(weft_pair p, void (*fn)(void *), void *arg)
{
    int rc = pair_owner_check(p);
    if (unlikely(rc)) return rc;
    if (unlikely(!fn)) return WEFT_ERR_INVALID;
    uint64_t t = p->o_tail;
    if (unlikely(t - p->o_head > p->mask)) {
        p->o_head = atomic_load_explicit(&p->head, memory_order_acquire);
        if (t - p->o_head > p->mask) { /* full: the owner runs it */
            fn(arg);
            return WEFT_OK;
        }
    }
    struct pair_slot *s = &p->ring[t & p->mask];
    s->arg = arg;
    atomic_store_explicit(&s->fn, (uintptr_t)fn, memory_order_relaxed);
    p->o_tail = t + 1;
    atomic_store_explicit(&p->tail, t + 1, memory_order_release);
    barrier_light();
    if (unlikely(atomic_load_explicit(&p->sleeping, memory_order_relaxed))) pair_wake(p);
    return WEFT_OK;
}

int weft_pair_wait(weft_pair p)
{
    int rc = pair_owner_check(p);
    if (unlikely(rc)) return rc;
    if (unlikely(rc = pair_wait_context())) return rc;
    return pair_drain(p);
}

int weft_pair_wake_hint(weft_pair p)
{
    int rc = pair_owner_check(p);
    if (rc) return rc;
    atomic_store_explicit(&p->hint_sleep, 0, memory_order_relaxed);
    full_fence();
    if (atomic_load_explicit(&p->sleeping, memory_order_relaxed)) pair_wake(p);
    return WEFT_OK;
}

int weft_pair_sleep_hint(weft_pair p)
{
    int rc = pair_owner_check(p);
    if (rc) return rc;
    atomic_store_explicit(&p->hint_sleep, 1, memory_order_relaxed);
    return WEFT_OK;
}

int weft_pair_placement_get(weft_pair p, weft_pair_placement *how, int *owner_cpu, int *assistant_cpu)
{
    int rc = pair_check(p);
    if (rc) return rc;
    if (how) *how = p->placement;
    if (owner_cpu) *owner_cpu = p->owner_cpu;
    if (assistant_cpu) *assistant_cpu = p->assistant_cpu;
    return WEFT_OK;
}

int weft_pair_free(weft_pair *pp)
{
    if (!pp) return WEFT_ERR_INVALID;
    struct weft_pair_s *p = *pp;
    int rc = pair_owner_check(p);
    if (rc) return rc;
    if ((rc = pair_wait_context())) return rc;
    if (atomic_load_explicit(&p->helps, memory_order_relaxed)) return WEFT_ERR_BUSY;
    if ((rc = pair_drain(p))) return rc;
    /* Of two units of the owning stream freeing it, one switched away in a
     * task the drain ran: the second finds the magic gone. */
    uint32_t live = MAGIC_PAIR;
    if (!atomic_compare_exchange_strong(&p->magic, &live, MAGIC_PAIR_DEAD)) return WEFT_ERR_HANDLE;
    atomic_store_explicit(&p->stop, 1, memory_order_seq_cst);
    pair_wake(p);
    pthread_join(p->thread, NULL);
    free(p->ring);
    obj_retire(p, sizeof *p);
    *pp = WEFT_PAIR_NULL;
    return WEFT_OK;
}
