/* Internal structures of the core runtime. Not installed. */
#ifndef WEFT_CORE_INTERNAL_H
#define WEFT_CORE_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../arch/ctx.h"
#include "../arch/tls.h"
#include "weft.h"

/* Sanitizer builds: the fiber hooks (fiber_hooks.h) and the descriptor
 * fields they need. */
#if defined(__SANITIZE_ADDRESS__)
#define WEFT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define WEFT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WEFT_TSAN 1
#endif
#endif

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define WEFT_HIDDEN __attribute__((visibility("hidden")))
#define CACHE_LINE 64

/* Debug invariants: state transitions check where they come from, so a
 * broken one fails at its cause, not as a hang elsewhere. Built in with
 * -DWEFT_ASSERTS=ON (the ASan and TSan suites); free otherwise. */
#ifdef WEFT_ASSERTS
WEFT_HIDDEN __attribute__((noreturn, cold)) void weft_assert_fail(const char *what, const char *file, int line);
#define WEFT_ASSERT(c) (__builtin_expect(!!(c), 1) ? (void)0 : weft_assert_fail(#c, __FILE__, __LINE__))
#else
#define WEFT_ASSERT(c) ((void)sizeof(c))
#endif

#if defined(__x86_64__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ volatile("yield" ::: "memory")
#else
#define cpu_relax() ((void)0)
#endif

/* The runtime's one spin lock (pools, timers, sleepers, sync objects): for
 * short critical sections; a waiter that spins long gives its core away. */
static inline void spin_lock(_Atomic uint32_t *l)
{
    unsigned spins = 0;
    for (;;) {
        if (!atomic_exchange_explicit(l, 1, memory_order_acquire)) return;
        while (atomic_load_explicit(l, memory_order_relaxed)) {
            if (++spins < 1024) cpu_relax();
            else { spins = 0; sched_yield(); }
        }
    }
}

static inline void spin_unlock(_Atomic uint32_t *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

/* Magic words: a handle whose word does not match is refused. Handle
 * memory (handle.c) is never returned to the OS, so reading the word of a
 * freed handle is always safe. */
#define MAGIC_UNIT 0x57554e54u /* "WUNT" */
#define MAGIC_POOL 0x57504f4cu
#define MAGIC_SCHED 0x57534348u
#define MAGIC_XS 0x57585354u
#define MAGIC_DEAD 0xdeadbeefu

/* Every handle points at cache-line aligned memory: a pointer that is not
 * aligned is refused before anything is read through it. Every kind of
 * handle object starts with its magic word (asserted beside each struct)
 * and is at least a cache line long: a handle of the wrong kind passed in
 * is refused by reading those four bytes, never past its object. */
#define MAX_XSTREAMS 4096 /* live streams at most */

/* handle.c: every handle object is carved from one reserved region; a
 * pointer outside its readable part (NULL, wild, non-canonical, another
 * allocator's) is refused before anything is read through it. */
extern _Atomic uintptr_t handle_base WEFT_HIDDEN;
extern _Atomic size_t handle_lines WEFT_HIDDEN; /* usable bytes of the region / CACHE_LINE */
WEFT_HIDDEN void *handle_alloc(size_t size, size_t align);
WEFT_HIDDEN void handle_ahead_stop(void); /* weft_finalize(): the populating thread ends */
WEFT_HIDDEN void handles_fork_lock(void);
WEFT_HIDDEN void handles_fork_unlock(void);
WEFT_HIDDEN void handles_fork_child(void);
static inline bool handle_ok(const void *p)
{
    /* One comparison for both: rotating the offset by the line size moves
     * any misalignment into the top bits, past every valid line index. */
    uintptr_t off = (uintptr_t)p - atomic_load_explicit(&handle_base, memory_order_relaxed);
    uintptr_t line = off >> 6 | off << (64 - 6);
    _Static_assert(CACHE_LINE == 64 && sizeof(uintptr_t) == 8, "the rotation assumes 64-byte lines, 64-bit pointers");
    return line < atomic_load_explicit(&handle_lines, memory_order_acquire);
}

#define WEFT_MAX_POOLS 16
#define WEFT_MIN_STACK (16u * 1024u)
#define WEFT_MAX_STACK ((size_t)1 << 30)
#define WEFT_MIN_SCHED_STACK (64u * 1024u) /* a scheduler context: tasklets run on it */

/* KIND_SCHED is a stream's own scheduler context; KIND_STACKED a scheduler
 * that was pushed into a pool and runs as a unit with a stack of its own.
 * Kinds from KIND_MAIN on cannot be joined, freed, migrated or cancelled. */
enum unit_kind { KIND_ULT = 0, KIND_TASKLET = 1, KIND_MAIN = 2, KIND_SCHED = 3, KIND_STACKED = 4 };

/* What the code that gains control after a switch must finish for the unit
 * that gave it up. Doing it there, not before the switch, means the unit is
 * never visible to another stream while its registers are still being
 * saved. */
/* unit->join_claimed: who joins it, decided by one compare-and-swap. */
enum join_claim { JOIN_NONE = 0, JOIN_BUSY = 1, JOIN_DONE = 2 };

enum pending { PEND_NONE = 0, PEND_READY, PEND_JOIN, PEND_TERMINATE, PEND_UNLOCK };

/* unit->jw, the join word: 0 while nobody waits, the joining ULT's address
 * (descriptors are 64-byte aligned, so its low bits are free), JW_EXTERNAL
 * while a plain thread waits on a futex over the word's low half, and
 * JW_DONE once the unit has ended. Ending is one exchange to JW_DONE: it
 * publishes the end and collects the joiner in a single atomic step. */
#define JW_DONE ((uintptr_t)1)
#define JW_EXTERNAL ((uintptr_t)2)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the futex sits on the join word's low half");

struct weft_pool_s;
struct weft_xstream_s;

struct weft_unit_s {
    /* --- cache line 0: all that create, dispatch, run, join and free touch --- */
    _Atomic uint32_t magic;            /* first, in every kind of handle: see handle_ok */
    _Atomic uint8_t state;             /* READY/RUNNING/BLOCKED; TERMINATED is jw == JW_DONE */
    _Atomic uint8_t join_claimed;      /* enum join_claim */
    uint8_t kind;
    uint8_t in_pool;                   /* guarded by the pool's owner or lock */
    struct weft_unit_s *next;          /* pool, inbox, bound list and cache link */
    struct weft_pool_s *pool;          /* home pool: where it goes when ready */
    struct weft_xstream_s *xs;         /* stream a ULT runs on / last ran on */
    void (*fn)(void *);
    void *arg;
    _Atomic uintptr_t jw;              /* join word, see JW_* */
    uint8_t started;
    uint8_t detached;
    uint8_t migratable;
    uint8_t bound;                     /* home != NULL */
    uint8_t cancelled;
    uint8_t join_back;                 /* its joiner ran it out of turn: switch back at the end */
    uint8_t has_keys;                  /* `keys` is set: checked here, on the hot line, at every end */
    uint8_t stack_flags;               /* STK_*: what its stack is; written by whoever holds the unit */
    /* --- cache line 1: the rest --- */
    weft_ctx ctx __attribute__((aligned(CACHE_LINE))); /* a ULT's saved stack pointer */
    void *stack_lo;                    /* lowest stack byte, or NULL */
    size_t stack_size;                 /* its bytes (wanted, for a ULT not yet run); an own stack's record is at the top */
    uint64_t id;
    void *keys;                        /* its key values (src/sync/key.c) when has_keys */
    struct weft_xstream_s *home;       /* may only run on this stream */
    void *pool_data[2];                /* for a user-defined pool */
#if defined(WEFT_ASAN) || defined(WEFT_TSAN)
    /* --- sanitizer builds only --- */
    void *asan_fake;                   /* AddressSanitizer fake-stack handle */
    void *tsan_fiber;                  /* ThreadSanitizer fiber */
#endif
} __attribute__((aligned(CACHE_LINE)));
_Static_assert(offsetof(struct weft_unit_s, stack_flags) < CACHE_LINE, "hot fields fit one cache line");
#if !defined(WEFT_ASAN) && !defined(WEFT_TSAN) && !defined(WEFT_CTX_UCONTEXT)
/* Two lines: a program that keeps millions of ended units (joined, never
 * freed) needs this much fresh memory for each (the create_join_cold rows
 * of bench_weft); stack facts live in the stack's record (mem_cache.h). */
_Static_assert(sizeof(struct weft_unit_s) == 2 * CACHE_LINE, "a descriptor is two cache lines");
#endif

/* unit->stack_flags. */
#define STK_OWN 1    /* a stack weft mapped or carved (stack.c), with its record at the top */
#define STK_CARVED 2 /* a slot of a shared chunk: canary, no guard */
#define STK_WAITS 4  /* counted in weft_g.stack_waiters (unit.c, stack_starve) */

#define POOL_KIND_USER 7 /* beside the weft_pool_kind values */

/* How a pool is built, from its kind and access (pool.c, pool_create). */
enum pool_impl {
    IMPL_LIST = 0, /* private: a plain list, owner only */
    IMPL_LOCKED,   /* MPMC, and every shared user pool: the list under a lock */
    IMPL_INCOMING, /* SPSC/MPSC: the owner's list plus a lock-free stack others push to */
    IMPL_DEQUE,    /* SPMC and DEQUE: a Chase-Lev array deque */
};

/* A deque's ring. Grown by its producer; old rings stay until the pool is
 * freed, since a thief may still be reading one. */
struct deque_ring {
    int64_t cap; /* a power of two */
    struct deque_ring *older;
    _Atomic(struct weft_unit_s *) slot[];
};

struct weft_pool_s {
    _Atomic uint32_t magic;
    uint8_t kind;      /* weft_pool_kind or POOL_KIND_USER */
    uint8_t access;    /* weft_pool_access */
    uint8_t impl;      /* enum pool_impl */
    uint8_t lifo;      /* the consumer takes the newest unit */
    uint8_t runtime_owned; /* created by the runtime for a default layout */
    /* The stream that pops (private, SPSC, MPSC) or pushes (SPMC, DEQUE).
     * Set by pool_own(), under `lock`. */
    struct weft_xstream_s *owner;
    /* `owner` when the pool is a built-in private list (IMPL_LIST, not a
     * user pool) and has one, else POOL_NOT_MINE, which no caller's stream
     * (nor NULL, a plain thread's) equals: the one test of the owner-only
     * fast paths (create, push, pop, requeue, yield-to). Set with owner. */
    struct weft_xstream_s *list_owner;
    _Atomic int n_scheds;         /* schedulers that use this pool now (attached or stacked) */
    _Atomic int n_listed;         /* schedulers that list it, used or not: it may not be freed */
    _Atomic uint32_t n_sleepers;  /* sleeping streams whose scheduler lists it (idle.c) */
    /* Units of this pool suspended (a join, a parked wait). Its own line:
     * the fields above are read by every stream that pushes or wakes a
     * unit of this pool, and stay shared in their caches only if nothing
     * beside them is written at each park and wake. */
    _Atomic long n_blocked __attribute__((aligned(CACHE_LINE)));
    /* The list: its owner only (LIST, INCOMING), or under `lock` (LOCKED,
     * and LIST and INCOMING while they have no owner). A deque without an
     * owner takes `lock` to push. */
    _Atomic uint32_t lock __attribute__((aligned(CACHE_LINE)));
    struct weft_unit_s *head, *tail;
    size_t size;
    _Atomic size_t size_snapshot; /* LOCKED: size readable without the lock */
    weft_pool_ops ops;            /* POOL_KIND_USER */
    void *ops_state;
    struct weft_pool_s *reg_next, **reg_pprev; /* every live pool (pool.c: finalize adopts orphans) */
    int adopt_mark;                            /* finalize's, under the registry's lock (pool.c) */
    struct weft_pool_s *adopt_next;            /* finalize's: the pools it empties (pool.c) */
    /* INCOMING: what other streams pushed, newest first. */
    _Atomic(struct weft_unit_s *) incoming __attribute__((aligned(CACHE_LINE)));
    _Atomic size_t incoming_n;
    /* DEQUE: thieves take at top, the producer works at bottom. */
    _Atomic int64_t top __attribute__((aligned(CACHE_LINE)));
    _Atomic int64_t bottom __attribute__((aligned(CACHE_LINE)));
    _Atomic(struct deque_ring *) ring;
} __attribute__((aligned(CACHE_LINE)));

enum sched_policy { SCHED_BASIC = 0, SCHED_PRIO, SCHED_RANDWS, SCHED_USER };

/* A built-in scheduler checks its events (stop and finish requests, a
 * replacement, its parent's turn when stacked) every this many picks. */
#define SCHED_EVENT_FREQ 64

/* s->xs while a stacked scheduler waits in a pool to run for the first time:
 * its pools are claimed, their owner is not yet known. */
#define SCHED_XS_CLAIMED ((struct weft_xstream_s *)(uintptr_t)1)

struct weft_sched_s {
    _Atomic uint32_t magic;
    uint8_t runtime_owned;
    uint8_t policy;                    /* enum sched_policy */
    uint8_t fast;                      /* sched_pick may poll the pools in order inline */
    uint8_t automatic;                 /* stacked: ends once its pools are empty */
    struct weft_xstream_s *_Atomic xs; /* the stream running it, SCHED_XS_CLAIMED, or NULL */
    int npools;
    uint32_t took;                     /* bit i: pools[i]'s owner is its stream because of it */
    unsigned rr;                       /* basic policy: the pool to try first */
    unsigned since_event;              /* picks since the last event check */
    unsigned idle_n;                   /* user scheduler: weft_sched_idle turns since it ran a unit */
    uint64_t idle_since;
    /* Stacked and running: the scheduler and context below it. */
    struct weft_sched_s *parent;
    struct weft_unit_s *parent_unit;
    _Atomic int finish_requested;
    _Atomic int in_run;                /* its run function is on some stack */
    _Atomic int freeing;               /* weft_sched_free() claimed it */
    weft_sched_ops ops;                /* SCHED_USER */
    void *data;
    /* Stacked and not started: its unit (weft_pool_add_sched), else NULL. */
    struct weft_unit_s *_Atomic stacked;
    struct weft_sched_s *reg_next, **reg_pprev; /* every live scheduler (sched.c) */
    uint8_t reached;                            /* finalize's, under the pools' registry lock (pool.c) */
    struct weft_pool_s *pools[WEFT_MAX_POOLS];
} __attribute__((aligned(CACHE_LINE)));
/* obj_retire() links retired pools and schedulers through bytes 8..15. */
_Static_assert(offsetof(struct weft_sched_s, magic) == 0 && offsetof(struct weft_pool_s, magic) == 0,
               "a retired object keeps its magic word, the first word of every handle");

/* A per-stream cache of free descriptors (link: unit->next). */
struct unit_cache {
    struct weft_unit_s *head;
    size_t n;
};

/* A per-stream cache of free default-size stacks (their lowest usable
 * bytes, where a struct stack_hdr sits while cached). */
struct stack_cache {
    void *head;
    size_t n;
};

enum xs_state { XS_CREATED = 0, XS_RUNNING, XS_TERMINATED, XS_FAILED };

/* xs->join_state: the one caller that joins a stream's OS thread is chosen
 * by a compare-and-swap; the others wait for XS_JOIN_DONE. */
enum xs_join { XS_JOIN_NONE = 0, XS_JOIN_BUSY, XS_JOIN_DONE };

struct weft_xstream_s {
    _Atomic uint32_t magic;         /* first, in every kind of handle: see handle_ok */
    /* --- hot, owner-only --- */
    struct weft_unit_s *cur;        /* the unit running now */
    struct weft_unit_s *sched_unit; /* the running scheduler's context */
    struct weft_sched_s *sched;     /* the running scheduler (the innermost when stacked) */
    uint8_t pend;
    /* Switches that skipped the scheduler (unit_pick_next): while timers
     * are armed, every 256th goes through it instead, with
     * `housekeep` set, so that ULTs handing the stream to each other for
     * ever do not keep the timed waits beside them waiting. */
    uint8_t bypass_ticks;
    uint8_t housekeep;
    struct weft_unit_s *pend_unit;
    struct weft_unit_s *pend_target;
    _Atomic uint32_t *pend_lock;    /* PEND_UNLOCK: the spin lock a parked unit held */
    struct weft_unit_s *runnext_head, *runnext_tail; /* run before the policy's pick (pool_ops.h) */
    struct weft_unit_s *stash;      /* picked by a ULT, to be run by the scheduler next */
    int n_stacked;                  /* stacked schedulers started here and not ended: it may not stop */
    struct unit_cache unit_cache;   /* free descriptors, for units that run here */
    /* Free descriptors for units sent to run elsewhere. They come from
     * slabs of their own: a unit that runs on another stream must not
     * share pages with the descriptors this stream writes all the time, or
     * that stream pays a miss whenever the unit switches (see slab.c). */
    struct unit_cache export_cache;
    /* Descriptors of another stream's slabs freed here, on their way back
     * to that stream in one batch (see slab.c). */
    struct unit_cache remote_batch;
    struct weft_xstream_s *remote_owner;
    struct stack_cache stack_cache; /* free default-size stacks */
    uint64_t next_id, id_end;       /* a block of unit ids reserved by this stream */
    uint64_t rng;                   /* xorshift state: work-stealing victims */
    uint64_t idle_last;             /* xs_idle: the clock at its last spinning turn, 0 after a sleep */
    uint64_t shared_until;          /* xs_idle: its CPU was found shared; no spinning until then */
    _Atomic uint64_t n_created;     /* written by this stream only */
    _Atomic uint64_t n_finished;    /* written by this stream only */
    /* --- shared --- */
    _Atomic(struct weft_unit_s *) inbox __attribute__((aligned(CACHE_LINE)));
    _Atomic int stop_requested;
    _Atomic int state;              /* enum xs_state */
    _Atomic int join_state;         /* enum xs_join */
    _Atomic(struct weft_unit_s *) returned; /* our descriptors, freed by other streams */
    _Atomic uint32_t sleeping;      /* asleep in xs_idle, or about to be: wake it (idle.c) */
    _Atomic uint32_t wake_seq;      /* the futex it sleeps on */
    /* --- cold --- */
    int rank __attribute__((aligned(CACHE_LINE)));
    int is_primary;
    int cpu;                        /* bound CPU or -1 */
    int home_cpu;                   /* unbound: the CPU it started on and settles back to, or -1 */
    _Atomic int on_cpu;             /* the CPU it last saw itself on (weft_xstream_settle) */
    _Atomic uint64_t on_cpu_ns;     /* and when */
    uint64_t settle_next_ns;        /* owner: no look before this */
    uint64_t hop_next_ns;           /* owner: no move before this */
    struct weft_sched_s *main_sched; /* the bottom of the scheduler stack */
    int stopping;                   /* the main scheduler was told to end the stream */
    struct weft_xstream_s *dead_next; /* freed streams, released at finalize */
    pthread_t thread;
    void *altstack;                 /* signal stack of this OS thread */
    struct weft_xstream_s *sleep_next; /* the sleepers list (idle.c) */
    _Atomic uint32_t timer_lock;    /* guards `timers` */
    _Atomic uint32_t n_timers;      /* armed timers: readable without the lock */
    struct weft_timer *timers;      /* armed here, earliest deadline first */
} __attribute__((aligned(CACHE_LINE)));

_Static_assert(offsetof(struct weft_xstream_s, magic) == 0 && offsetof(struct weft_unit_s, magic) == 0,
               "the magic word is the first word of every handle");

/* A timer that ends a timed wait (idle.c). Armed on the stream of the
 * waiting ULT, fired by that stream's scheduler under its timer lock. */
struct weft_timer {
    uint64_t deadline;                 /* clock_ns() */
    void (*fire)(struct weft_timer *); /* no sleeping, no switching */
    struct weft_xstream_s *xs;         /* armed on */
    struct weft_timer *next, **pprev;
    int armed;
};

/* A unit's home pool as seen from another thread (a join, a migration);
 * the unit's creator and its runner use the field directly. */
/* Release/acquire: who sees a unit's new pool also sees what the stream
 * that moved it wrote before (its in_pool, popped from the old pool). */
/* unit->pool of a ready unit that the program took out of its pool
 * (weft_pool_pop and its kin) and holds; UNIT_HELD_SEEN once weft_finalize
 * has seen it held (it takes a unit only if it stays so). Only those calls
 * and finalize write them, and a held unit cannot end, so a descriptor
 * whose pool reads one of them is held now, whatever life of it an
 * observer saw before: whoever changes it by compare-and-swap
 * (unit_claim_held) owns the unit. */
#define UNIT_HELD ((struct weft_pool_s *)(uintptr_t)1)
#define UNIT_HELD_SEEN ((struct weft_pool_s *)(uintptr_t)2)

/* NULL for a held unit: no pool holds it. */
static inline struct weft_pool_s *unit_get_pool(struct weft_unit_s *u)
{
    struct weft_pool_s *p = __atomic_load_n(&u->pool, __ATOMIC_ACQUIRE);
    return (uintptr_t)p <= (uintptr_t)UNIT_HELD_SEEN ? NULL : p;
}

static inline void unit_set_pool(struct weft_unit_s *u, struct weft_pool_s *p)
{
    __atomic_store_n(&u->pool, p, __ATOMIC_RELEASE);
}

/* Take a held unit for pool `p`: true for the one caller that does (the
 * program pushing or running it back, or weft_finalize adopting it). */
static inline bool unit_claim_held(struct weft_unit_s *u, struct weft_pool_s *p)
{
    struct weft_pool_s *v = __atomic_load_n(&u->pool, __ATOMIC_RELAXED);
    while (v == UNIT_HELD || v == UNIT_HELD_SEEN)
        if (__atomic_compare_exchange_n(&u->pool, &v, p, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return true;
    return false;
}

static inline int unit_check(struct weft_unit_s *u)
{
    if (unlikely(!handle_ok(u) ||
                 atomic_load_explicit(&u->magic, memory_order_relaxed) != MAGIC_UNIT))
        return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

static inline int pool_check(struct weft_pool_s *p)
{
    if (unlikely(!handle_ok(p) ||
                 atomic_load_explicit(&p->magic, memory_order_relaxed) != MAGIC_POOL))
        return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

/* A stream's main scheduler, read from any thread: weft_xstream_set_main_sched
 * may replace it from another stream (a release store), and whoever reads
 * the new one also sees it attached. */
static inline struct weft_sched_s *xs_main_sched(const struct weft_xstream_s *xs)
{
    return __atomic_load_n(&xs->main_sched, __ATOMIC_ACQUIRE);
}

/* Sentinel that closes an inbox when its stream ends. */
#define INBOX_CLOSED ((struct weft_unit_s *)(uintptr_t)1)
#define POOL_NOT_MINE ((struct weft_xstream_s *)(uintptr_t)1) /* weft_pool_s.list_owner */

/* ------------------------------------------------------------------ */
/* Global state (runtime.c)                                            */

struct weft_global {
    _Atomic int initialized;
    /* weft_finalize() has begun: plain threads may add no more units or
     * streams (ext_enter). ext_active counts plain threads inside a call
     * that adds work or touches units finalize would release. */
    _Atomic int closing;
    _Atomic int ext_active;
    pthread_mutex_t lock;               /* streams table, global caches */
    size_t stack_size;                  /* default ULT stack size */
    size_t fast_stack_size;             /* stacks of this size take the inline cache paths: the
                                         * default, or 0 with huge pages (their ends are checked) */
    size_t page_size;
    int bind_default;
    int cores;                          /* cores weft was given, at weft_init() */
    int start_core;                     /* unbound: the primary's home core (its home_cpu's), else -1 */
    int huge_stacks;                    /* default-size stacks come from huge-page chunks (stack.c) */
    int eager_stacks;                   /* a ULT gets its stack at creation, not at first run */
    struct weft_xstream_s **streams;    /* by rank; NULL slots are free */
    int streams_cap;                    /* MAX_XSTREAMS once allocated */
    int streams_used;                   /* ranks below this may be taken */
    _Atomic int n_streams;
    struct weft_xstream_s *primary;
    struct weft_xstream_s *dead_streams;    /* kept until finalize: stale handles stay readable */
    struct weft_sched_s **owned_scheds;     /* runtime-made schedulers, freed at finalize */
    int n_owned_scheds, owned_scheds_cap;
    weft_config cfg;
    struct weft_unit_s *main_unit;
    /* counts of units created and ended by streams that are gone, or by
     * plain threads; live units = these + the live streams' counters */
    _Atomic uint64_t ext_created, ext_finished;
    _Atomic uint64_t ext_next_id;        /* never reset: ids stay unique for the process's life */
    uint64_t main_owner_id;              /* the main ULT's id as a lock owner (its id is 0 in every runtime) */
    _Atomic uint64_t unguarded_stacks;  /* stacks handed out without a guard page */
    size_t guard_size;                  /* PROT_NONE bytes below each mapped ULT stack */
    size_t sched_stack_size;            /* every stream's scheduler context (and tasklets) */
    /* ULTs waiting for a stack, parked or woken to try again (unit.c,
     * stack_starve): while nonzero, returned stacks go to the global list
     * and wake them. */
    _Atomic int stack_waiters;
    _Atomic int wait_policy;            /* weft_wait_policy */
    _Atomic uint64_t spin_ns;           /* hybrid: spin this long before sleeping */
};

extern struct weft_global weft_g WEFT_HIDDEN;
/* The stream this OS thread runs, NULL for a plain thread. Initial-exec TLS,
 * always reached as WEFT_TLS(weft_tls_xs) (arch/tls.h). Read it only at API
 * entry: code that runs after a context switch may be on another OS thread,
 * and takes its stream from the unit (unit->xs) instead. */
extern __thread struct weft_xstream_s *weft_tls_xs
    __attribute__((tls_model("initial-exec"))) WEFT_HIDDEN;
WEFT_TLS_ACCESSOR(weft_tls_xs);

/* ------------------------------------------------------------------ */
/* Internal functions                                                  */

/* runtime.c: a plain thread (not a stream) enters a call that adds units
 * or streams: refused with WEFT_ERR_UNINIT before weft_init() and after
 * weft_finalize(), WEFT_ERR_STATE while finalize runs; else counted until
 * ext_leave(), and finalize waits for it. ext_track() counts a call that
 * must finish before finalize releases memory but may not be refused (a
 * wake, the end of a join). */
WEFT_HIDDEN int ext_enter(void);
/* runtime.c: the variable `name` as a number in lo..hi (K/M suffixes if
 * allow_suffix): 1 and *out set, 0 if unset or empty, -1 if malformed. */
WEFT_HIDDEN int env_long(const char *name, long lo, long hi, long *out, int allow_suffix);
static inline void ext_track(void) { atomic_fetch_add(&weft_g.ext_active, 1); }
static inline void ext_leave(void) { atomic_fetch_sub(&weft_g.ext_active, 1); }

/* pool.c */
WEFT_HIDDEN bool pool_live(struct weft_pool_s *p);
WEFT_HIDDEN int pool_claim(struct weft_pool_s *p);
WEFT_HIDDEN int pool_attach(struct weft_pool_s *p, struct weft_xstream_s *xs, bool first, bool *took);
WEFT_HIDDEN void pool_detach(struct weft_pool_s *p);
WEFT_HIDDEN bool pool_kind_valid(int kind, int access);
WEFT_HIDDEN bool pool_take_owner(struct weft_pool_s *p, struct weft_xstream_s *xs, bool first);
WEFT_HIDDEN void pool_own(struct weft_pool_s *p, struct weft_xstream_s *xs);
WEFT_HIDDEN void pool_disown(struct weft_pool_s *p, struct weft_xstream_s *xs);
WEFT_HIDDEN void pool_retire(struct weft_pool_s *p);
WEFT_HIDDEN size_t pools_adopt_orphans(struct weft_xstream_s *xs);
WEFT_HIDDEN size_t units_adopt_held(struct weft_xstream_s *xs, uint64_t live, bool take);

/* sched.c */
WEFT_HIDDEN int sched_check(struct weft_sched_s *s);
WEFT_HIDDEN int sched_attach(struct weft_sched_s *s, struct weft_xstream_s *xs);
WEFT_HIDDEN void sched_detach(struct weft_sched_s *s);
WEFT_HIDDEN void sched_destroy(struct weft_sched_s *s);
WEFT_HIDDEN bool sched_has_pool(const struct weft_sched_s *s, const struct weft_pool_s *p);
WEFT_HIDDEN int sched_make_default(const weft_config *cfg, struct weft_sched_s **out);
WEFT_HIDDEN int sched_make_owned(struct weft_sched_s **out);
WEFT_HIDDEN struct weft_unit_s *sched_pick_slow(struct weft_xstream_s *xs, struct weft_sched_s *s);
WEFT_HIDDEN void sched_set_fast(struct weft_sched_s *s);
WEFT_HIDDEN void sched_main_loop(struct weft_xstream_s *xs);
WEFT_HIDDEN struct weft_pool_s *sched_migration_pool(struct weft_sched_s *s);
WEFT_HIDDEN void sched_yield_parent(struct weft_xstream_s *xs);
/* Each scheduler stacked by weft_pool_add_sched that has not started, with
 * the pool its unit waits in (NULL when the program holds the unit); under
 * scheds_pending_lock(), which keeps them from starting. */
WEFT_HIDDEN void scheds_pending_lock(void);
WEFT_HIDDEN void scheds_pending_unlock(void);
WEFT_HIDDEN void scheds_each_pending(void (*fn)(struct weft_sched_s *s, struct weft_pool_s *at, void *ctx), void *ctx);

/* unit.c: blocking for the sync layer (src/sync/waitq.h) */
WEFT_HIDDEN void unit_park(struct weft_unit_s *self, _Atomic uint32_t *lock);
WEFT_HIDDEN void unit_unpark(struct weft_unit_s *u);
WEFT_HIDDEN bool unit_can_handoff(struct weft_unit_s *u);
WEFT_HIDDEN bool unit_handoff(struct weft_unit_s *u);

/* What a layer above the core hooks into it: the core calls up only
 * through these, never by name. Set once, before any unit can use them (a
 * constructor of the layer that needs them); NULL when that layer is not
 * linked in. */
struct core_hooks {
    /* A unit with has_keys set ends (or is cancelled): run the destructors
     * of its unit-local values and drop them (src/sync/key.c). */
    void (*unit_keys_end)(struct weft_unit_s *u);
    /* Around fork(), in the lock order of fork.c: a lock of the layer that
     * outlives the runtime. */
    void (*fork_lock)(void);
    void (*fork_unlock)(void);
};
extern struct core_hooks core_hooks WEFT_HIDDEN;
static inline void unit_keys_end(struct weft_unit_s *u) { core_hooks.unit_keys_end(u); }

/* idle.c */
WEFT_HIDDEN uint64_t clock_ns(void); /* CLOCK_MONOTONIC */
WEFT_HIDDEN void idle_init(void);
WEFT_HIDDEN void xs_wake(struct weft_xstream_s *xs);
WEFT_HIDDEN void xs_wake_all(void);
WEFT_HIDDEN void pool_wake_sleepers(struct weft_pool_s *p);
WEFT_HIDDEN void timer_arm(struct weft_xstream_s *xs, struct weft_timer *t);
WEFT_HIDDEN void timer_disarm(struct weft_timer *t);
WEFT_HIDDEN uint64_t timers_expire(struct weft_xstream_s *xs);
WEFT_HIDDEN void xs_idle(struct weft_xstream_s *xs, struct weft_sched_s *s, unsigned *idle, uint64_t *idle_since);
WEFT_HIDDEN void idle_backoff(unsigned *idle);

/* After making work for `xs` or for pool `p` visible: wake a sleeper that
 * may have missed it. A plain load unless someone sleeps (see idle.c for
 * why no fence is needed here). */
static inline void xs_notify(struct weft_xstream_s *xs)
{
    atomic_signal_fence(memory_order_seq_cst);
    if (unlikely(atomic_load_explicit(&xs->sleeping, memory_order_relaxed))) xs_wake(xs);
}

static inline void pool_notify(struct weft_pool_s *p)
{
    atomic_signal_fence(memory_order_seq_cst);
    if (unlikely(atomic_load_explicit(&p->n_sleepers, memory_order_relaxed))) pool_wake_sleepers(p);
}

/* xstream.c */
WEFT_HIDDEN bool xs_can_stop(struct weft_xstream_s *xs);
WEFT_HIDDEN int xs_register(struct weft_xstream_s *xs);
WEFT_HIDDEN void xs_unregister(struct weft_xstream_s *xs);
WEFT_HIDDEN int xs_check(struct weft_xstream_s *xs);
WEFT_HIDDEN int xs_stop_and_join(struct weft_xstream_s *xs);
WEFT_HIDDEN struct weft_xstream_s *xs_alloc(void);
WEFT_HIDDEN void xs_release(struct weft_xstream_s *xs);
WEFT_HIDDEN void xs_spare(struct weft_xstream_s *xs);
WEFT_HIDDEN int xs_bind(struct weft_xstream_s *xs, int cpu);

/* deliver.c: a ready unit goes where it can run */
WEFT_HIDDEN bool inbox_push(struct weft_xstream_s *xs, struct weft_unit_s *u);
WEFT_HIDDEN void inbox_drain(struct weft_xstream_s *xs);
WEFT_HIDDEN void inbox_close_unstarted(struct weft_xstream_s *dead);
WEFT_HIDDEN void unit_deliver(struct weft_xstream_s *xs, struct weft_unit_s *u);
WEFT_HIDDEN void unit_make_ready(struct weft_xstream_s *xs, struct weft_unit_s *u);
WEFT_HIDDEN void unit_wake(struct weft_xstream_s *xs, struct weft_unit_s *u);

/* unit.c */
WEFT_HIDDEN void unit_dispatch(struct weft_xstream_s *xs, struct weft_unit_s *u);
WEFT_HIDDEN void unit_run_pending(struct weft_xstream_s *xs);
WEFT_HIDDEN void unit_leave_ready(struct weft_xstream_s *xs, struct weft_unit_s *self);
WEFT_HIDDEN void unit_yield_to_sched(struct weft_xstream_s *xs);
WEFT_HIDDEN int unit_create_stacked(struct weft_pool_s *p, void (*fn)(void *), struct weft_sched_s *s);
WEFT_HIDDEN uint64_t units_live(void);
WEFT_HIDDEN void stack_waiters_wake(struct weft_xstream_s *xs, size_t n);
WEFT_HIDDEN void stack_waiters_reset(void);
WEFT_HIDDEN void stacks_flush_for_waiters(struct weft_xstream_s *xs);

/* Memory of units (the per-stream cache fast paths are in mem_cache.h).
 * mem.c: the whole of it at a stream's end, at finalize, after fork. */
WEFT_HIDDEN void mem_cache_flush(struct weft_xstream_s *xs);
WEFT_HIDDEN void mem_finalize(void);
/* stack.c */
WEFT_HIDDEN void stacks_init(void);
WEFT_HIDDEN size_t mem_stack_cache_drain(struct weft_xstream_s *xs);
WEFT_HIDDEN bool mem_stacks_trim(void);
WEFT_HIDDEN int mem_stack_errno(void);
WEFT_HIDDEN void stack_cache_flush(struct weft_xstream_s *xs);
WEFT_HIDDEN void stack_release_unit(struct weft_unit_s *u);
WEFT_HIDDEN void stacks_finalize(void);
WEFT_HIDDEN void stacks_fork_abandon(void);
/* slab.c */
WEFT_HIDDEN void slab_cache_flush(struct weft_xstream_s *xs);
enum held_scan { HELD_COUNT, HELD_MARK, HELD_TAKE };
WEFT_HIDDEN bool slabs_pool_in_use(const struct weft_pool_s *p);
WEFT_HIDDEN struct weft_unit_s *slabs_scan_held(enum held_scan mode, struct weft_pool_s *dest, size_t *held);
WEFT_HIDDEN void slabs_finalize(void);
WEFT_HIDDEN void slabs_fork_abandon(void);
/* obj.c: handle objects other than units and streams (pools, schedulers,
 * the sync layer's objects): handle memory, reused by size once retired. */
WEFT_HIDDEN void *obj_alloc(size_t size);
WEFT_HIDDEN void obj_retire(void *obj, size_t size);
WEFT_HIDDEN int guard_install_thread(struct weft_xstream_s *xs);
WEFT_HIDDEN void guard_remove_thread(struct weft_xstream_s *xs);
WEFT_HIDDEN int guard_install_handler(void);
WEFT_HIDDEN void guard_remove_handler(void);

/* fork.c: the pthread_atfork handlers, registered once by fork_register()
 * (at load and from weft_init). fork_stack() gives the bounds of the ULT
 * stack a child forked from a unit continues on, if `addr` lies in it. */
WEFT_HIDDEN void fork_register(void);
WEFT_HIDDEN bool fork_stack(const void *addr, void **lo, size_t *size);
/* In the child of a live runtime: keep `p`, memory of the parent's runtime
 * that the child gives up, reachable for leak checkers (never read, never
 * freed), over any number of generations of forks. */
WEFT_HIDDEN void fork_keep(void *p);
/* Their parts that need a file's own statics. *_fork_lock() takes a
 * process-wide lock before fork(), *_fork_unlock() lets it go after it (in
 * parent and child). *_fork_abandon() runs in the child of a live runtime,
 * its file's lock still held: it forgets the parent's runtime state without
 * freeing it, and reads no more of it than that lock guards (other threads
 * may have left the rest half-changed). */
WEFT_HIDDEN void obj_fork_lock(void);
WEFT_HIDDEN void obj_fork_unlock(void);
WEFT_HIDDEN void mem_fork_abandon(void);
WEFT_HIDDEN void pools_fork_lock(void);
WEFT_HIDDEN void pools_fork_unlock(void);
WEFT_HIDDEN void pools_fork_abandon(void);
WEFT_HIDDEN void scheds_fork_lock(void);
WEFT_HIDDEN void scheds_fork_unlock(void);
WEFT_HIDDEN void scheds_fork_abandon(void);
WEFT_HIDDEN void idle_fork_abandon(void);
WEFT_HIDDEN void runtime_fork_child(void);

/* topo.c */
WEFT_HIDDEN int topo_init(void);
WEFT_HIDDEN void topo_finalize(void);
WEFT_HIDDEN int topo_num_cores(void);
WEFT_HIDDEN int topo_count_cores(void);    /* also before topo_init() */
WEFT_HIDDEN int topo_core_cpu(int core);   /* first logical CPU of a core */
WEFT_HIDDEN int topo_cpu_core(int cpu);    /* the core of a logical CPU, or -1 */
WEFT_HIDDEN int topo_bind_thread(pthread_t t, int cpu); /* cpu -1: unbind */
WEFT_HIDDEN void topo_unbind_self(void);                /* the calling thread: every CPU weft was given */
WEFT_HIDDEN int topo_cpu_valid(int cpu);
WEFT_HIDDEN int topo_pair_cpu(int cpu, cpu_set_t *allowed, int *level); /* a pair's assistant */
WEFT_HIDDEN void topo_fork_lock(void);
WEFT_HIDDEN void topo_fork_unlock(void);

#endif
