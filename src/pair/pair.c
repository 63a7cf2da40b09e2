/* Pair mode (include/weft_pair.h): an owner and an assistant thread joined
 * by a single-producer single-consumer ring [Relic §VI].
 *
 * The ring. `cap` entries of {fn, arg}, each entry its own signal (as in
 * FastForward's queue): fn 0 is empty, PAIR_TAKEN an entry the owner took
 * back, anything else a task. The owner fills entry `o_tail % cap` and
 * publishes it with one release store of its fn; the assistant polls the fn
 * of entry `head % cap` with one acquire load, so no shared index moves per
 * task and a hand-over moves the entry's line and nothing else. The
 * assistant claims an entry by exchanging its fn with 0, which also empties
 * it; runs it; then publishes `a_done` (tasks it ran) and `head` (entries it
 * passed) with release stores. The owner, waiting, claims queued entries
 * from the top down by a compare-and-swap of fn to PAIR_TAKEN, which the
 * assistant empties when it passes. The owner fills an entry again only once
 * `head` is past it: it reads `head` only when its cached copy says the ring
 * is full.
 *
 * Completion without a shared read-modify-write: every task that entered
 * the ring was either run by the assistant (counted in `a_done`, written only
 * by the assistant) or claimed by the owner's side (`o_finished` once done,
 * `helps` while running). All of them are done when
 *     a_done + o_finished + (tasks running on the waiter's own stack) == o_tail.
 *
 * Lines. The entries; what the owner writes and the assistant reads (the
 * hint, stop); what only the owner's side touches; what the assistant
 * writes (`head`, `a_done`); and the assistant's futex word each have cache
 * lines of their own.
 *
 * Sleeping. The assistant spins while its next entry is empty, for
 * `spin_ns` or until the sleep hint, then sets `sleeping`, and looks at that
 * entry once more before it sleeps on `sleeping`; a submit looks at
 * `sleeping` after its store of the entry. Two stores each followed by a
 * load of the other's word: without a full barrier on both sides each could
 * miss the other (a task left in the ring of a sleeping assistant). The
 * barrier is asymmetric: the side falling asleep, which is rare and not in a
 * hurry, makes every running thread of the process pass a full barrier
 * (membarrier(2), private expedited), so that the submit needs only a
 * compiler barrier. Where the kernel lacks that command, the submit issues a
 * full fence instead. */
#define _GNU_SOURCE
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
#include "../core/sys.h"

#define MAGIC_PAIR 0x57504152u /* "WPAR" */
#define MAGIC_PAIR_DEAD 0x77706172u
#define PAIR_DEFAULT_CAPACITY 128u
#define PAIR_DEFAULT_SPIN_US 200L /* docs/design.md, "Pair mode" */
#define PAIR_CLOCK_EVERY 64       /* idle spins between looks at the clock */
#define PAIR_STALL_NS 5000u       /* wait leaves the last task to a moving assistant this long */

#define PAIR_TAKEN ((uintptr_t)1) /* the owner took the task back */

struct pair_slot {
    _Atomic uintptr_t fn; /* 0: empty; PAIR_TAKEN; else the task */
    void *arg;
};

/* A task the owner's side took from the ring and runs now: linked while it
 * runs, so that a wait inside it knows the tasks on its own stack. */
struct pair_help {
    struct pair_help *prev, *next;
    uintptr_t unit; /* the ULT that runs it (0: a plain thread) */
    bool from_ring; /* taken from the ring (else run by a submit with the ring full) */
    bool keyed;     /* the ULT's value of g_task_key points here */
    struct weft_pair_s *pair;
    struct pair_help *outer; /* the task of this ULT it runs inside, if any */
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
    _Atomic uint32_t hint_sleep __attribute__((aligned(CACHE_LINE)));
    _Atomic uint32_t wake_gen;       /* one more per wake hint: the assistant spins anew */
    _Atomic uint32_t stop;
    _Atomic uint32_t started; /* the assistant runs (create waits for it) */

    /* The owner's side only (any unit of the owning stream, one at a time;
     * `help_lock` guards the list, which a moved ULT may still unlink). */
    uint64_t o_tail __attribute__((aligned(CACHE_LINE))); /* entries filled */
    uint64_t o_head;                 /* the assistant's head as last read */
    uint64_t o_top;                  /* entries from here up are not queued (the help scan's start) */
    _Atomic uint32_t o_yielding;     /* waiters yielding to a ULT inside a task (free waits for them) */
    _Atomic uint64_t o_finished;     /* tasks the owner's side claimed and finished */
    _Atomic uint32_t help_lock;
    _Atomic uint32_t helps;          /* tasks the owner's side took from the ring and runs now */
    struct pair_help *help_list;

    /* Written by the assistant. */
    _Atomic uint64_t head __attribute__((aligned(CACHE_LINE)));
    _Atomic uint64_t a_done;

    /* The assistant's futex word: 1 while it sleeps or is about to. */
    _Atomic uint32_t sleeping __attribute__((aligned(CACHE_LINE)));
} __attribute__((aligned(CACHE_LINE)));

_Static_assert(offsetof(struct weft_pair_s, magic) == 0, "a retired pair keeps its magic word");

/* The calling OS thread, as a number never given to another thread (a
 * new thread may get an ended one's thread-local memory, so no address
 * would do). Through WEFT_TLS: a ULT that ran a task may come back on
 * another thread, and must not reuse a value read before. */
__thread uint64_t pair_t_self WEFT_HIDDEN __attribute__((tls_model("initial-exec")));
WEFT_TLS_ACCESSOR(pair_t_self);
static _Atomic uint64_t g_next_self;

static inline uintptr_t pair_self(void)
{
    uint64_t id = WEFT_TLS(pair_t_self);
    if (unlikely(!id)) WEFT_TLS(pair_t_self) = id = atomic_fetch_add_explicit(&g_next_self, 1, memory_order_relaxed) + 1;
    return (uintptr_t)id;
}

/* The running ULT or tasklet (0 on a plain thread), read at API entry. */
static inline uintptr_t pair_unit(void)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
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
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return WEFT_OK;
    struct weft_unit_s *u = xs->cur;
    if (u->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
    if (u == xs->sched_unit) return WEFT_ERR_SCHED_BLOCKS;
    return WEFT_OK;
}

/* The CPUs the process started with, before any thread bound itself (an
 * owner bound to one CPU still has the others for its assistant). */
static cpu_set_t g_start_cpus;

__attribute__((constructor)) static void pair_start_cpus(void)
{
    if (sched_getaffinity(0, sizeof g_start_cpus, &g_start_cpus) != 0) CPU_ZERO(&g_start_cpus);
}

/* ------------------------------------------------------------------ */
/* The asymmetric barrier (see the top)                                */

static pthread_once_t g_barrier_once = PTHREAD_ONCE_INIT;
/* 1: membarrier is registered and serves the heavy side; 0: both sides
 * fence. Set before the first pair exists; cleared for good if the call
 * ever fails. */
static _Atomic int g_membarrier;

static void barrier_register(void)
{
    atomic_store(&g_membarrier, syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0);
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
    if (likely(atomic_load_explicit(&g_membarrier, memory_order_relaxed))) atomic_signal_fence(memory_order_seq_cst);
    else full_fence();
}

/* The sleeper's side. False if the submit's side may not have seen the
 * barrier: membarrier failed just now, and a submit running meanwhile
 * still trusted it (the sleeper then sleeps a bounded time). */
static bool barrier_heavy(void)
{
    if (!atomic_load_explicit(&g_membarrier, memory_order_relaxed)) {
        full_fence();
        return true;
    }
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return true;
    atomic_store(&g_membarrier, 0);
    full_fence();
    return false;
}

/* ------------------------------------------------------------------ */
/* The assistant                                                       */

static void pair_wake(struct weft_pair_s *p)
{
    if (atomic_exchange_explicit(&p->sleeping, 0, memory_order_acq_rel)) futex_wake(&p->sleeping, 1);
}

/* Sleep until woken, unless work, the stop or a wake hint (generation
 * `gen`; or, when the sleep hint sent it to sleep, that hint's withdrawal)
 * came in while falling asleep. */
static void assistant_sleep(struct weft_pair_s *p, uint64_t h, uint32_t gen, bool by_hint)
{
    atomic_store_explicit(&p->sleeping, 1, memory_order_relaxed);
    bool sure = barrier_heavy();
    if (atomic_load_explicit(&p->ring[h & p->mask].fn, memory_order_relaxed) ||
        atomic_load_explicit(&p->stop, memory_order_relaxed) ||
        atomic_load_explicit(&p->wake_gen, memory_order_relaxed) != gen ||
        (by_hint && !atomic_load_explicit(&p->hint_sleep, memory_order_relaxed))) {
        atomic_store_explicit(&p->sleeping, 0, memory_order_relaxed);
        return;
    }
    struct timespec ms = {0, 1000000};
    while (atomic_load_explicit(&p->sleeping, memory_order_acquire)) {
        futex_wait(&p->sleeping, 1, sure ? NULL : &ms);
        if (!sure) { /* look at the ring ourselves */
            atomic_store_explicit(&p->sleeping, 0, memory_order_relaxed);
            return;
        }
    }
}

static void *assistant_main(void *arg)
{
    struct weft_pair_s *p = arg;
    pthread_setname_np(pthread_self(), "weft-pair");
    atomic_store_explicit(&p->started, 1, memory_order_release);
    const uint32_t mask = p->mask;
    struct pair_slot *ring = p->ring;
    uint64_t h = 0, done = 0, idle_since = 0;
    uint32_t gen = atomic_load_explicit(&p->wake_gen, memory_order_relaxed);
    unsigned idle_spins = 0;
    for (;;) {
        struct pair_slot *s = &ring[h & mask];
        uintptr_t fn = atomic_load_explicit(&s->fn, memory_order_acquire);
        if (fn) {
            if (fn == PAIR_TAKEN) {
                atomic_store_explicit(&s->fn, 0, memory_order_relaxed);
            } else {
                void *a = s->arg; /* before the exchange frees the entry */
                if (atomic_exchange_explicit(&s->fn, 0, memory_order_acq_rel) == fn) {
                    ((void (*)(void *))fn)(a);
                    atomic_store_explicit(&p->a_done, ++done, memory_order_release);
                } /* else the owner took it meanwhile */
            }
            atomic_store_explicit(&p->head, ++h, memory_order_release);
            idle_since = 0;
            continue;
        }
        if (atomic_load_explicit(&p->stop, memory_order_acquire)) break;
        uint32_t g = atomic_load_explicit(&p->wake_gen, memory_order_relaxed);
        if (g != gen) gen = g, idle_since = 0; /* a wake hint: a full budget again */
        bool by_hint = atomic_load_explicit(&p->hint_sleep, memory_order_relaxed), sleep = by_hint;
        if (!sleep && ++idle_spins % PAIR_CLOCK_EVERY == 0) {
            uint64_t now = clock_ns();
            if (!idle_since) idle_since = now;
            else if (now - idle_since >= p->spin_ns) sleep = true;
        }
        if (sleep) {
            assistant_sleep(p, h, gen, by_hint);
            idle_since = 0;
            continue;
        }
        cpu_relax();
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* The owner's side                                                    */

/* The end of a task the owner's side ran: unlinked, counted. Maybe on
 * another thread than it started on (the task moved its ULT): the lock and
 * the release stores publish the task's effects to the waiters. */
static void pair_task_end(struct weft_pair_s *p, struct pair_help *me)
{
    spin_lock(&p->help_lock);
    if (me->prev) me->prev->next = me->next;
    else p->help_list = me->next;
    if (me->next) me->next->prev = me->prev;
    uint32_t n = atomic_load_explicit(&p->helps, memory_order_relaxed);
    WEFT_ASSERT(n >= (uint32_t)me->from_ring);
    if (me->from_ring)
        atomic_store_explicit(&p->o_finished, atomic_load_explicit(&p->o_finished, memory_order_relaxed) + 1,
                              memory_order_release);
    atomic_store_explicit(&p->helps, n - me->from_ring, memory_order_release);
    spin_unlock(&p->help_lock);
}

/* A ULT's value of g_task_key: the innermost task of a pair it runs now.
 * Should the ULT end inside it (weft_thread_exit), the key's destructor,
 * which runs in the ending ULT while its stack still holds the records,
 * ends those tasks as if they had returned. */
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static weft_key g_task_key; /* NULL: could not be made (no such protection) */

static void pair_unit_ended(void *v)
{
    for (struct pair_help *h = v, *outer; h; h = outer) {
        outer = h->outer;
        pair_task_end(h->pair, h);
    }
}

static void key_make(void)
{
    if (weft_key_create(pair_unit_ended, &g_task_key) != WEFT_OK) g_task_key = NULL;
}

/* Run fn(arg) here, as a task of the owner's side: linked while it runs,
 * so that waits know whose stack it is on (a wait inside it leaves it out,
 * other units' waits yield until it ends, free inside it is refused).
 * `from_ring`: it was taken from the ring, and counts as finished after. */
static void pair_run_here(struct weft_pair_s *p, uintptr_t unit, uintptr_t fn, void *arg, bool from_ring)
{
    struct pair_help me = {.prev = NULL, .unit = unit, .from_ring = from_ring, .keyed = false, .pair = p,
                           .outer = NULL};
    spin_lock(&p->help_lock);
    me.next = p->help_list;
    if (me.next) me.next->prev = &me;
    p->help_list = &me;
    atomic_store_explicit(&p->helps, atomic_load_explicit(&p->helps, memory_order_relaxed) + from_ring,
                          memory_order_relaxed);
    spin_unlock(&p->help_lock);
    if (unit && ((struct weft_unit_s *)unit)->kind == KIND_ULT && g_task_key) {
        void *outer;
        if (weft_key_get(g_task_key, &outer) == WEFT_OK && weft_key_set(g_task_key, &me) == WEFT_OK)
            me.outer = outer, me.keyed = true;
    }
    ((void (*)(void *))fn)(arg);
    if (me.keyed) weft_key_set(g_task_key, me.outer);
    pair_task_end(p, &me);
}

enum help { HELP_RAN, HELP_NONE, HELP_LAST };

/* Take the newest queued task and run it here. HELP_NONE if none is
 * queued; HELP_LAST if only one is and `last` is false: the assistant is
 * about to take that one, and the owner taking it instead would only move
 * the task and its data to the other CPU's work (tasks of a few hundred
 * nanoseconds last about as long as the hand-over). The scan starts at
 * `o_top`: above it nothing is queued (what the owner took or saw taken),
 * so a wait over n queued tasks reads each entry about once. */
static enum help pair_help_one(struct weft_pair_s *p, uintptr_t unit, bool last)
{
    uint64_t low = atomic_load_explicit(&p->head, memory_order_acquire), top = 0;
    uint64_t start = p->o_top < p->o_tail ? p->o_top : p->o_tail;
    int queued = 0;
    for (uint64_t i = start; i-- > low && queued < 2;)
        if (atomic_load_explicit(&p->ring[i & p->mask].fn, memory_order_relaxed) > PAIR_TAKEN && !queued++) top = i;
    if (!queued) {
        p->o_top = low;
        return HELP_NONE;
    }
    if (queued == 1 && !last) {
        p->o_top = top + 1;
        return HELP_LAST;
    }
    p->o_top = top; /* before the task runs: a submit inside it raises it again */
    struct pair_slot *s = &p->ring[top & p->mask];
    uintptr_t fn = atomic_load_explicit(&s->fn, memory_order_relaxed);
    if (fn <= PAIR_TAKEN ||
        !atomic_compare_exchange_strong_explicit(&s->fn, &fn, PAIR_TAKEN, memory_order_relaxed, memory_order_relaxed))
        return HELP_RAN; /* the assistant took it: look again */
    pair_run_here(p, unit, fn, s->arg, true);
    return HELP_RAN;
}

/* Tasks taken from the ring that the owner's side runs now: those of
 * `unit` (on the caller's own stack), and all of them in *all. *inside: the
 * caller is inside any task of the pair (also one a full ring made it run). */
static uint32_t pair_helps(struct weft_pair_s *p, uintptr_t unit, uint32_t *all, bool *inside)
{
    uint32_t mine = 0;
    bool in = false;
    spin_lock(&p->help_lock);
    *all = atomic_load_explicit(&p->helps, memory_order_relaxed);
    for (struct pair_help *h = p->help_list; h; h = h->next)
        if (h->unit == unit) mine += h->from_ring, in = true;
    spin_unlock(&p->help_lock);
    if (inside) *inside = in;
    return mine;
}

/* Let another ULT of the stream go on with the task it is inside. */
static void pair_yield(struct weft_pair_s *p)
{
    atomic_fetch_add_explicit(&p->o_yielding, 1, memory_order_relaxed);
    weft_yield();
    atomic_fetch_sub_explicit(&p->o_yielding, 1, memory_order_release);
}

/* Wait until every task is done but those on the caller's own stack.
 * While another ULT of the stream is inside a task of the pair, the caller
 * takes no task and yields to it: tasks the owner's side runs are then
 * nested on one ULT's stack at a time, so nested waits cannot wait for each
 * other. */
static int pair_drain(struct weft_pair_s *p)
{
    if (likely(atomic_load_explicit(&p->helps, memory_order_acquire) == 0 &&
               atomic_load_explicit(&p->a_done, memory_order_acquire) +
                       atomic_load_explicit(&p->o_finished, memory_order_acquire) ==
                   p->o_tail))
        return WEFT_OK;
    uintptr_t unit = pair_unit(), self = pair_self();
    /* The last queued task is left to the assistant until it has not moved
     * on for PAIR_STALL_NS (asleep, descheduled, or in a long task). */
    uint64_t seen_head = UINT64_MAX, since = 0;
    unsigned spins = 0;
    bool last = false;
    for (;;) {
        uint32_t all = atomic_load_explicit(&p->helps, memory_order_acquire), mine = 0;
        if (all) mine = pair_helps(p, unit, &all, NULL);
        if (all > mine) {
            pair_yield(p);
            if (pair_self() != self) return WEFT_ERR_NOT_OWNER;
            continue;
        }
        uint64_t done = atomic_load_explicit(&p->a_done, memory_order_acquire) +
                        atomic_load_explicit(&p->o_finished, memory_order_acquire);
        WEFT_ASSERT(done + mine <= p->o_tail);
        if (done + mine == p->o_tail) return WEFT_OK;
        enum help h = pair_help_one(p, unit, last);
        if (h == HELP_RAN) {
            if (pair_self() != self) return WEFT_ERR_NOT_OWNER; /* the task moved this ULT */
            continue;
        }
        if (++spins % PAIR_CLOCK_EVERY == 0) {
            if (h == HELP_LAST) {
                uint64_t head = atomic_load_explicit(&p->head, memory_order_relaxed), now = clock_ns();
                if (head != seen_head) seen_head = head, since = now;
                else if (now - since >= PAIR_STALL_NS) last = true;
            }
            /* Long waits let the CPU go now and then: the assistant may
             * share it (one CPU, or the OS put both there), or its task may
             * wait for another ULT of this stream. */
            if (spins % (PAIR_CLOCK_EVERY * 256) == 0) {
                if (unit) {
                    pair_yield(p);
                    if (pair_self() != self) return WEFT_ERR_NOT_OWNER;
                } else {
                    sched_yield();
                }
            }
        }
        cpu_relax();
    }
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

int weft_pair_config_init(weft_pair_config *cfg)
{
    if (!cfg) return WEFT_ERR_INVALID;
    cfg->capacity = PAIR_DEFAULT_CAPACITY;
    cfg->assistant_cpu = -1;
    cfg->spin_us = PAIR_DEFAULT_SPIN_US;
    return env_long("WEFT_PAIR_SPIN_US", 0, WEFT_MAX_SPIN_US, &cfg->spin_us, 0) < 0 ? WEFT_ERR_INVALID : WEFT_OK;
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
    if (pthread_attr_setaffinity_np(&attr, sizeof set, &set)) {
        pthread_attr_destroy(&attr);
        return WEFT_ERR_SYS;
    }
    /* Signals go to the program's own threads, not to the assistant. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = sys_pthread_create(&p->thread, &attr, assistant_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc == 0 ? WEFT_OK : WEFT_ERR_SYS;
}

int weft_pair_create(const weft_pair_config *cfg, weft_pair *out)
{
    if (!out) return WEFT_ERR_INVALID;
    weft_pair_config c;
    pthread_once(&g_barrier_once, barrier_register);
    pthread_once(&g_key_once, key_make);
    if (cfg) c = *cfg;
    else {
        int rc = weft_pair_config_init(&c);
        if (rc) return rc;
    }
    if (c.capacity < 2 || c.capacity > WEFT_PAIR_MAX_CAPACITY || (c.capacity & (c.capacity - 1)) ||
        c.spin_us < 0 || c.spin_us > WEFT_MAX_SPIN_US || c.assistant_cpu < -2)
        return WEFT_ERR_INVALID;
    /* The caller's CPUs, and the process's: those it started with, the
     * caller's, and weft's (topo_pair_cpu adds them). */
    cpu_set_t mine, all = g_start_cpus;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) return WEFT_ERR_SYS;
    CPU_OR(&all, &all, &mine);
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
    struct pair_slot *ring = sys_aligned_alloc(CACHE_LINE, (size_t)c.capacity * sizeof *ring > CACHE_LINE
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
    atomic_init(&p->hint_sleep, 0);
    atomic_init(&p->stop, 0);
    atomic_init(&p->started, 0);
    p->o_tail = p->o_head = p->o_top = 0;
    atomic_init(&p->o_yielding, 0);
    atomic_init(&p->wake_gen, 0);
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
            pair_run_here(p, pair_unit(), (uintptr_t)fn, arg, false);
            return WEFT_OK;
        }
    }
    struct pair_slot *s = &p->ring[t & p->mask];
    s->arg = arg;
    p->o_tail = p->o_top = t + 1;
    atomic_store_explicit(&s->fn, (uintptr_t)fn, memory_order_release);
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
    atomic_store_explicit(&p->wake_gen, atomic_load_explicit(&p->wake_gen, memory_order_relaxed) + 1,
                          memory_order_relaxed);
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
    uintptr_t unit = pair_unit();
    for (;;) {
        uint32_t all;
        bool inside;
        pair_helps(p, unit, &all, &inside);
        if (inside) return WEFT_ERR_BUSY; /* inside a task of this pair */
        if ((rc = pair_drain(p))) return rc;
        /* Other units that waited on it (yielding) leave it first. */
        while (atomic_load_explicit(&p->o_yielding, memory_order_acquire)) weft_yield();
        if (pair_check(p)) return WEFT_ERR_HANDLE; /* another unit freed it meanwhile */
        spin_lock(&p->help_lock);
        if (!p->help_list &&
            atomic_load_explicit(&p->a_done, memory_order_acquire) +
                    atomic_load_explicit(&p->o_finished, memory_order_relaxed) ==
                p->o_tail)
            break; /* the lock held: no late unlock of a moved ULT can follow */
        spin_unlock(&p->help_lock); /* another unit is inside a task, or submitted more */
        weft_yield();
    }
    uint32_t live = MAGIC_PAIR;
    bool mine = atomic_compare_exchange_strong(&p->magic, &live, MAGIC_PAIR_DEAD);
    spin_unlock(&p->help_lock);
    if (!mine) return WEFT_ERR_HANDLE;
    atomic_store_explicit(&p->stop, 1, memory_order_seq_cst);
    pair_wake(p);
    pthread_join(p->thread, NULL);
    free(p->ring);
    obj_retire(p, sizeof *p);
    *pp = WEFT_PAIR_NULL;
    return WEFT_OK;
}
