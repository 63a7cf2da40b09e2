/* weft: a lightweight threading and tasking runtime.
 *
 * Execution model (after the Argobots model):
 *  - An execution stream (weft_xstream) is an OS thread that runs a
 *    scheduler. The thread that calls weft_init() becomes the primary
 *    stream and its code continues as the *main ULT*.
 *  - A work unit (weft_thread) is either a ULT (user-level thread, own
 *    stack, may yield and block) or a tasklet (no stack; runs to completion
 *    on its scheduler's stack and may not block).
 *  - Ready units wait in pools (weft_pool). A scheduler (weft_sched) takes
 *    units from its pools and runs them on its stream.
 *
 * Every fallible call returns WEFT_OK or a WEFT_ERR_* code; weft_strerror()
 * names it. Calling contexts are noted per function:
 *   ULT      a ULT, including the main ULT
 *   tasklet  a running tasklet
 *   thread   a plain OS thread that is not a weft stream
 * "any" means all three.
 */
#ifndef WEFT_H
#define WEFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions of the public API: the only symbols libweft.so
 * exports (everything else is built hidden). */
#ifndef WEFT_API
#define WEFT_API __attribute__((visibility("default")))
#endif

#define WEFT_VERSION_MAJOR 0
#define WEFT_VERSION_MINOR 1

/* ------------------------------------------------------------------ */
/* Errors                                                              */

enum {
    WEFT_OK = 0,
    WEFT_ERR_INVALID = 1,         /* an argument is out of range or NULL */
    /* NULL, freed, of another kind, or any pointer weft never handed out:
     * every handle points into one region weft reserves, checked by range
     * before anything is read through the pointer. */
    WEFT_ERR_HANDLE = 2,
    WEFT_ERR_NOMEM = 3,           /* out of memory (heap, mmap or descriptors) */
    WEFT_ERR_UNINIT = 4,          /* weft_init() has not been called */
    WEFT_ERR_INIT = 5,            /* weft_init() was already called */
    WEFT_ERR_NOT_WEFT = 6,        /* the caller is not a weft work unit */
    WEFT_ERR_NOT_ULT = 7,         /* only a ULT (not main, not a tasklet) may do this */
    WEFT_ERR_TASKLET_BLOCKS = 8,  /* a tasklet tried to yield, join or block */
    WEFT_ERR_JOIN_SELF = 9,       /* a unit tried to join itself */
    WEFT_ERR_JOINED = 10,         /* the unit was already joined */
    WEFT_ERR_CROSS_STREAM = 11,   /* target is not on the caller's stream */
    WEFT_ERR_POOL_ACCESS = 12,    /* private pool used from a stream that does not own it */
    WEFT_ERR_BUSY = 13,           /* object in use (attached, non-empty, running) */
    WEFT_ERR_STATE = 14,          /* the unit is in the wrong state for this call */
    WEFT_ERR_PRIMARY = 15,        /* not allowed on (or only allowed on) the primary stream */
    WEFT_ERR_SYS = 16,            /* an OS call failed (thread creation, binding) */
    WEFT_ERR_UNSUPPORTED = 17,    /* not available in this build or on this machine */
    WEFT_ERR_SCHED_BLOCKS = 18,   /* a scheduler's own context tried to block */
    WEFT_ERR_NOT_OWNER = 19,      /* the caller does not hold the lock it releases, or own the pair it uses */
    WEFT_ERR_TIMEDOUT = 20,       /* a timed wait reached its deadline */
};

/* A static string naming the error `err`. Never NULL. Any context. */
WEFT_API const char *weft_strerror(int err);

/* ------------------------------------------------------------------ */
/* Handles (opaque)                                                    */

typedef struct weft_xstream_s *weft_xstream;
typedef struct weft_unit_s *weft_thread;
typedef struct weft_pool_s *weft_pool;
typedef struct weft_sched_s *weft_sched;

#define WEFT_XSTREAM_NULL ((weft_xstream)0)
#define WEFT_THREAD_NULL ((weft_thread)0)
#define WEFT_POOL_NULL ((weft_pool)0)
#define WEFT_SCHED_NULL ((weft_sched)0)

/* ------------------------------------------------------------------ */
/* Runtime                                                             */

typedef enum {
    WEFT_POOL_FIFO = 0,
    WEFT_POOL_LIFO = 1,
    /* Work-stealing deque: its owner stream pushes and takes the newest
     * unit (LIFO), other streams steal the oldest (FIFO). Access SPMC or
     * MPMC only. A unit waiting in a deque cannot be cancelled, yielded to
     * or moved (WEFT_ERR_STATE): it runs where it is taken. */
    WEFT_POOL_DEQUE = 2,
} weft_pool_kind;

/* Who may take units out of a pool, and how it is built. Any thread may put
 * units into any pool; where a kind has a single producer, units from other
 * streams travel through the producer's inbox. The owner of a pool is the
 * stream whose scheduler takes it (for SPMC pools: takes it as its first
 * pool). */
typedef enum {
    /* Only the owning stream pops; no atomics, no locks. */
    WEFT_POOL_ACCESS_PRIVATE = 0,
    /* Any stream pops: one lock. */
    WEFT_POOL_ACCESS_MPMC = 1,
    /* Only the owner pops; others push without a lock (an atomic stack the
     * owner empties in one exchange). SPSC is the same structure. */
    WEFT_POOL_ACCESS_SPSC = 2,
    WEFT_POOL_ACCESS_MPSC = 3,
    /* The owner pushes, any stream pops: a lock-free array deque (FIFO: all
     * pop the oldest; LIFO and DEQUE: the owner pops the newest). */
    WEFT_POOL_ACCESS_SPMC = 4,
} weft_pool_access;

/* What a stream does when its scheduler finds nothing to run. */
typedef enum {
    /* Spin for a short budget (weft_config.spin_us), then sleep until a
     * unit is pushed to one of its pools or a timed wait expires. */
    WEFT_WAIT_HYBRID = 0,
    /* Never sleep: spin and yield the core to other threads. Lowest
     * wake-up latency; an idle stream holds its core. */
    WEFT_WAIT_ACTIVE = 1,
    /* Sleep almost at once. */
    WEFT_WAIT_PASSIVE = 2,
} weft_wait_policy;

#define WEFT_MAX_SPIN_US 10000000L

typedef struct weft_config {
    int num_xstreams;            /* streams at start, including the primary (>= 1) */
    size_t stack_size;           /* default ULT stack size in bytes */
    /* 1: bind stream i to core i (hwloc); 0 or -1 (the default, unless
     * WEFT_BIND says otherwise): leave the streams to the OS, which moves
     * them off a core another process keeps busy (README: "Binding").
     * Cores are those the thread calling weft_init() may run on (taskset,
     * cgroups, an MPI launcher's binding); weft_finalize() gives that
     * thread its mask back. */
    int bind;
    weft_pool_kind pool_kind;    /* kind of each stream's default pool */
    weft_pool_access pool_access;/* access of each stream's default pool */
    /* 1: default-size stacks are carved from 2 MiB chunks backed by huge
     * pages (hugetlbfs pages when the system has reserved some, else
     * transparent huge pages). Fewer TLB misses when many ULTs are live;
     * such stacks have no guard page (a guard would split the huge page):
     * an overflow is caught, best effort, by a canary checked when the ULT
     * ends. Chunks go back to the OS at weft_finalize(). */
    int huge_pages;
    /* 0 (default): a ULT gets its stack when it first runs (lazy), so
     * created but not yet started ULTs cost a descriptor only. A ULT that
     * can get no stack then (memory, address space or the kernel's map
     * count spent) sleeps, counted as blocked, until a stack is given
     * back; if none can ever come (no ULT holds a stack, no other unit is
     * live, the main ULT is blocked or in weft_finalize) for a second, the
     * process aborts with a message naming the ULT, the size and the
     * cause. 1: at creation, so creation reports WEFT_ERR_NOMEM instead. */
    int eager_stacks;
    weft_wait_policy wait_policy; /* idle streams (default hybrid) */
    long spin_us;                 /* hybrid: spin this long before sleeping (default 200) */
    /* Bytes of inaccessible address space below each ULT stack (rounded up
     * to whole pages; default 256 KiB, 0 for none). A ULT that runs into
     * it is reported by id and the process ends. Address space only, no
     * memory. A single frame larger than the guard can jump over it into
     * whatever lies below, unless the code was built with
     * -fstack-clash-protection (which probes every page of a large frame,
     * so any guard catches it). Stacks carved from shared chunks (huge
     * pages, or when the kernel's map count runs low) have a canary
     * instead, checked when the ULT ends. */
    size_t stack_guard;
    /* Stack of each stream's scheduler context, on which its tasklets run
     * (default 1 MiB, at least 64 KiB): the same on every stream, with a
     * guard below it like a ULT's. */
    size_t sched_stack_size;
} weft_config;

/* Fill `cfg` with the defaults, then apply the environment:
 *   WEFT_NUM_XSTREAMS  streams at start (default: one per core the caller may use)
 *   WEFT_STACK_SIZE    ULT stack size, bytes, K or M suffix (default 64K)
 *   WEFT_BIND          1 or 0 (default 0: streams unbound)
 *   WEFT_HUGE_PAGES    1 or 0 (default 0)
 *   WEFT_EAGER_STACKS  1 or 0 (default 0)
 *   WEFT_WAIT_POLICY   hybrid, active or passive (default hybrid)
 *   WEFT_SPIN_US       hybrid spin budget in microseconds (default 200)
 *   WEFT_STACK_GUARD   guard below each ULT stack, bytes, K or M suffix (default 256K, 0: none)
 *   WEFT_SCHED_STACK_SIZE  scheduler (and tasklet) stack of each stream, bytes, K or M (default 1M)
 * Errors: WEFT_ERR_INVALID (NULL cfg or a malformed variable). Any context. */
WEFT_API int weft_config_init(weft_config *cfg);

/* Start the runtime. The calling OS thread becomes the primary stream and
 * continues as the main ULT. cfg NULL means weft_config_init() defaults.
 * Default layout: cfg->num_xstreams streams, each with a basic scheduler
 * over one pool of its own.
 * Errors: WEFT_ERR_INIT, WEFT_ERR_INVALID, WEFT_ERR_NOMEM, WEFT_ERR_SYS.
 * Context: thread. */
WEFT_API int weft_init(const weft_config *cfg);

/* Run every remaining work unit, stop and join all other streams, release
 * the runtime's stacks. Handles become invalid (a stale one is refused
 * with WEFT_ERR_HANDLE as long as its memory was not reused by a later
 * object of its kind; handle memory is kept for the next weft_init()). Units
 * no stream would run are run on the primary stream instead of being lost,
 * once no unit has ended for 2 ms: first those in pools that no scheduler
 * serves (the pool of a freed stream, a pool never attached, pools served
 * only by stacked schedulers that no running scheduler can reach, such as
 * two stacked on each other's pools, or one whose unit the program took
 * out of a pool and holds); then, once every unit left is one
 * taken out of a pool with weft_pool_pop() or its kin and not given back,
 * and they stay so for 100 ms, those units (a weft_pool_push() or
 * weft_sched_run_unit() of one after that returns WEFT_ERR_STATE). A unit
 * held while other units live is left to the program. Once it has
 * begun, plain threads may add no units or streams: their create,
 * revive and weft_xstream_create calls return WEFT_ERR_STATE (and
 * WEFT_ERR_UNINIT after it returns); units may create as they please until
 * the last one ends. A weft_init() on another thread waits until this
 * returns, then starts a runtime of its own.
 * Errors: WEFT_ERR_UNINIT; WEFT_ERR_PRIMARY unless called from the main ULT.
 * Context: the main ULT. */
WEFT_API int weft_finalize(void);

/* 1 between weft_init() and weft_finalize(), else 0. Any context. */
WEFT_API int weft_initialized(void);

/* fork(). Only the thread that calls fork() runs in the child, so weft
 * gives up the parent's runtime there and the child starts uninitialised:
 *  - weft_init() starts a runtime of the child's own. Until then
 *    weft_initialized() is 0, weft_finalize() and every other call that
 *    needs a runtime return WEFT_ERR_UNINIT, and what needs none works as
 *    before a first weft_init().
 *  - If a runtime ran at the fork, its streams, units, pools and
 *    schedulers (those the program made included) are undefined in the
 *    child: pass their handles to no call, not even a free. None of its
 *    units runs there; their memory stays allocated and is never released.
 *  - Mutexes, condition variables, read-write locks, barriers, eventuals,
 *    futures and keys made in the parent (before weft_init() or while it
 *    ran) keep working if nobody was using them at the moment of the fork;
 *    one that was held, waited on or being changed then is undefined. A
 *    lock a unit held, the forking one included, stays held for ever; a
 *    plain thread that forks keeps the locks it holds.
 *  - Keys stay valid. The child sees the values of the forking OS thread:
 *    the caller's own after a fork from the main ULT or a plain thread,
 *    not those of a ULT or tasklet that forked.
 *  - Forked from the main ULT, the child goes on as a plain thread on its
 *    own stack. Forked from another ULT or a tasklet, it goes on as a plain
 *    thread on that unit's stack (a tasklet's: its scheduler's). It may do
 *    all a thread may, weft_init() included, but must never return from the
 *    unit's function: the child ends with exit(), _exit() or an exec.
 *  - As weft_finalize() would, weft gives back the SIGSEGV and SIGBUS
 *    actions and the forking thread's signal stack it had replaced (those
 *    the program set since stay); a stream's thread also gets back the CPU
 *    mask weft_init() was called with.
 * A fork() while weft_init() or weft_finalize() runs is undefined. Weft
 * installs pthread_atfork() handlers for this when the library is loaded:
 * around every fork() they take its process-wide locks, which other
 * threads hold only for short moments. The parent goes on unaffected. */

/* Change the idle policy of every stream from now on; spin_us as in
 * weft_config. A stream asleep when the policy becomes active wakes at the
 * next push.
 * Errors: WEFT_ERR_INVALID (unknown policy, spin_us out of 0..WEFT_MAX_SPIN_US).
 * Context: any. */
WEFT_API int weft_set_wait_policy(weft_wait_policy policy, long spin_us);

/* Nanoseconds on the monotonic clock: the clock of timed waits' deadlines.
 * Never fails. Context: any. */
WEFT_API uint64_t weft_time_ns(void);

/* ------------------------------------------------------------------ */
/* Execution streams                                                   */

/* Create a stream (an OS thread) running `sched`. sched NULL gives a basic
 * scheduler over a new pool of the default kind and access, owned and freed
 * by the stream. A scheduler serves one stream at a time.
 * Errors: WEFT_ERR_UNINIT, WEFT_ERR_INVALID (NULL out), WEFT_ERR_HANDLE,
 * WEFT_ERR_BUSY (sched already in use), WEFT_ERR_POOL_ACCESS (a private pool
 * of sched belongs to another stream), WEFT_ERR_NOMEM, WEFT_ERR_SYS,
 * WEFT_ERR_STATE (a plain thread, while weft_finalize() runs).
 * Context: any. */
WEFT_API int weft_xstream_create(weft_sched sched, weft_xstream *out);

/* Ask the stream to stop once its pools are empty and no unit of its pools is
 * blocked, and wait until it has. A ULT caller yields while it waits (its own
 * stream keeps running); a plain thread blocks.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_PRIMARY (the primary stream),
 * WEFT_ERR_CROSS_STREAM (the caller runs on that stream),
 * WEFT_ERR_TASKLET_BLOCKS, WEFT_ERR_SCHED_BLOCKS (the caller is a
 * scheduler's context: it would stop its own stream while it waits).
 * Context: ULT, thread. */
WEFT_API int weft_xstream_join(weft_xstream xs);

/* Join (if not yet joined) and free the stream; *xs becomes NULL.
 * Errors: as weft_xstream_join(), WEFT_ERR_INVALID (NULL pointer).
 * Context: ULT, thread. */
WEFT_API int weft_xstream_free(weft_xstream *xs);

/* The stream the caller runs on. Errors: WEFT_ERR_NOT_WEFT, WEFT_ERR_INVALID.
 * Context: ULT, tasklet. */
WEFT_API int weft_xstream_self(weft_xstream *out);

/* The rank of a stream (the primary is 0; ranks are reused after free).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_xstream_rank(weft_xstream xs, int *rank);

/* The number of live streams, including the primary.
 * Errors: WEFT_ERR_UNINIT, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_xstream_count(int *n);

/* The live stream of rank `rank`.
 * Errors: WEFT_ERR_UNINIT, WEFT_ERR_INVALID (no such rank). Context: any. */
WEFT_API int weft_xstream_get(int rank, weft_xstream *out);

/* Bind the stream's OS thread to logical CPU `cpu` (the OS numbering), or
 * unbind it with cpu = -1 (any CPU weft was given).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID (no such CPU, or one outside
 * the mask weft_init() was called with), WEFT_ERR_SYS.
 * Context: any. */
WEFT_API int weft_xstream_set_cpubind(weft_xstream xs, int cpu);

/* The CPU the stream is bound to, or -1 when unbound.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_xstream_get_cpubind(weft_xstream xs, int *cpu);

/* Put the calling stream back on its own CPU if the OS has doubled it up.
 * Each unbound stream starts on a CPU of its own (stream k on the k-th
 * core counted from the one weft_init() ran on), but the OS may later put
 * two streams on one CPU and leave another CPU idle for milliseconds (a
 * thread it wakes tends to go where its waker runs). A stream that spins
 * waiting for another then mostly waits for the OS to switch between them.
 * This call notes which CPU the caller's stream is on; if another awake
 * stream said lately (within 10 ms) that it is on the same CPU, and none
 * that it is on the caller's own, the stream moves back to its own (its
 * affinity mask narrowed to that CPU for a moment, then restored). It
 * looks at most once per millisecond and moves at most once per 20 ms,
 * and never moves a bound stream or one whose mask excludes its CPU. Meant
 * for code that waits by spinning: call it now and then while waiting.
 * *moved (may be NULL) is set to 1 when the stream moved, else 0 (also
 * when the OS refused the move: settling is best effort).
 * Errors: WEFT_ERR_UNINIT, WEFT_ERR_NOT_WEFT (not on a stream).
 * Context: ULT, tasklet, scheduler. */
WEFT_API int weft_xstream_settle(int *moved);

/* Replace the main scheduler of `xs`. The old scheduler's pools that the new
 * one lacks must be empty with no blocked units. If the caller's pool is not
 * among the new scheduler's pools, it moves to the new first pool. The
 * caller goes through the scheduler once: when this returns, the new
 * scheduler runs and the old one's run function has returned (a
 * user-defined one must return once weft_sched_has_to_stop says so), so the
 * old one may be freed or used elsewhere.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_BUSY (sched in use, or pools that only
 * the old scheduler serves still hold ready or blocked units; a pool
 * another stream's scheduler also serves may be left), WEFT_ERR_POOL_ACCESS, WEFT_ERR_CROSS_STREAM (xs is another
 * running stream: replace a stream's scheduler from that stream),
 * WEFT_ERR_STATE (a stacked scheduler runs on xs now),
 * WEFT_ERR_SCHED_BLOCKS (called by a scheduler). Context: ULT on xs. */
WEFT_API int weft_xstream_set_main_sched(weft_xstream xs, weft_sched sched);

/* The stream's main scheduler (the one weft_init or weft_xstream_create
 * gave it, or the last weft_xstream_set_main_sched). Keep it to put it back
 * later: a runtime-made scheduler lives until weft_finalize().
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID (NULL out). Context: any (during
 * a replacement, the old or the new one). */
WEFT_API int weft_xstream_get_main_sched(weft_xstream xs, weft_sched *out);

/* Up to `max` pools of the stream's main scheduler, in order; *n gets the
 * total. Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_xstream_get_pools(weft_xstream xs, int max, weft_pool *pools, int *n);

/* ------------------------------------------------------------------ */
/* Pools                                                               */

/* Create an empty pool (see weft_pool_kind and weft_pool_access). A
 * private, SPSC or MPSC pool belongs to the stream whose scheduler takes it
 * (one scheduler only), until that scheduler stops running there (the
 * stream ends, its main scheduler is replaced, a stacked one finishes);
 * while it belongs to none, any threads may push into it and pop from it
 * at the same time (weft takes a lock then; a user pool's pop_wait is the
 * exception, see weft_pool_ops). An SPMC pool or deque
 * belongs to the stream whose scheduler lists it first.
 * Errors: WEFT_ERR_INVALID (unknown kind or access, a deque that is not SPMC
 * or MPMC), WEFT_ERR_NOMEM. Context: any. */
WEFT_API int weft_pool_create(weft_pool_kind kind, weft_pool_access access, weft_pool *out);

/* A user-defined pool: weft calls these to hold ready units. For an MPMC
 * pool weft calls them under the pool's lock; a private pool's run on its
 * owning stream only, or under the pool's lock while no stream owns it
 * (pop_wait excepted, below), so the operations need no synchronisation of
 * their own. weft keeps the size and each unit's in-pool state. Since they
 * may run under a lock of weft's, push, pop, remove, pop_many, is_empty and
 * size may call weft_thread_pool_data(), weft_thread_get_arg() and
 * weft_time_ns() but no other weft function (creating or freeing units,
 * pools or schedulers from them may deadlock). */
typedef struct weft_pool_ops {
    /* Hold `unit`. Must not fail: keep per-unit data in
     * weft_thread_pool_data(unit) instead of allocating. */
    void (*push)(void *state, weft_thread unit);
    /* Give back the unit to run next; only called when the pool holds one. */
    weft_thread (*pop)(void *state);
    /* Take out `unit`, which the pool holds (for cancel and yield-to).
     * NULL: such requests fail with WEFT_ERR_STATE. */
    void (*remove)(void *state, weft_thread unit);
    /* Called by weft_pool_free(); may be NULL. */
    void (*free)(void *state);
    /* Optional: called once by weft_pool_create_user() with the new pool,
     * before any other op. A return other than WEFT_OK fails the creation
     * with that code (free is then not called). */
    int (*init)(void *state, weft_pool pool);
    /* Optional: give back between 1 and `max` units in units[] and return
     * how many; only called when the pool holds at least `max`. Without
     * it, weft_pool_pop_many() calls pop repeatedly. */
    int (*pop_many)(void *state, weft_thread *units, int max);
    /* The next three are optional and belong together: a pool that holds
     * units back (until a release time, an outside event) answers with them
     * which units are ready. Without them weft counts what it pushed and
     * popped, and every held unit is ready.
     * is_empty: nonzero when no held unit may run now; pop (and pop_many)
     * are then not called, and with is_empty they may also return NULL (0).
     * size: how many held units may run now (weft_pool_size()). */
    int (*is_empty)(void *state);
    size_t (*size)(void *state);
    /* pop_wait: wait up to timeout_ns (UINT64_MAX: no limit) for a unit to
     * become ready and return it, or NULL. weft_pool_pop_wait() calls it
     * for a private pool from a scheduler or a plain thread (so it may block
     * the stream: there is nothing else it could run); nothing else touches
     * the pool meanwhile, so it must release units by itself. A ULT, or a
     * shared pool, waits by weft's own polling instead. */
    weft_thread (*pop_wait)(void *state, uint64_t timeout_ns);
} weft_pool_ops;

/* Create a pool run by `ops` over `state` (both kept by reference).
 * Errors: WEFT_ERR_INVALID (NULL ops, push or pop; bad access), WEFT_ERR_NOMEM,
 * or what ops->init returned. Context: any. */
WEFT_API int weft_pool_create_user(const weft_pool_ops *ops, void *state, weft_pool_access access, weft_pool *out);

/* Two words of storage in each unit for the pool that holds it (a user
 * pool links units through them). Valid while the unit is in the pool.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_thread_pool_data(weft_thread unit, void ***data);

/* The argument the unit was created with.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_thread_get_arg(weft_thread unit, void **arg);

/* Free an empty pool that no scheduler lists; *pool becomes NULL.
 * Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE (also: freed meanwhile by
 * another thread), WEFT_ERR_BUSY (created by the runtime, listed by a
 * scheduler, used or not, holding ready or blocked units, or the pool of a
 * unit that has not ended: one running, say, that would go back into it
 * when it yields). Context: any. */
WEFT_API int weft_pool_free(weft_pool *pool);

/* Number of ready units in the pool (blocked ones are not counted; a user
 * pool with a size op answers for itself).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID, WEFT_ERR_POOL_ACCESS. Context: any. */
WEFT_API int weft_pool_size(weft_pool pool, size_t *n);

/* Number of units of the pool, ready or blocked (suspended in a join or a
 * wait, and parked waiting for a stack): weft_pool_size() plus those. A
 * snapshot when other streams use the pool.
 * Errors: as weft_pool_size(). Context: any. */
WEFT_API int weft_pool_total_size(weft_pool pool, size_t *n);

/* *empty = 1 when the pool holds no ready unit.
 * Errors: as weft_pool_size(). Context: any. */
WEFT_API int weft_pool_is_empty(weft_pool pool, int *empty);

/* Put a unit the caller holds (one obtained from weft_pool_pop and its kin)
 * into `pool`; the unit's home pool becomes `pool`. Any pool, from anywhere.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_STATE (the unit is not held: it is in a
 * pool, running, blocked or finished, was pushed or run already, or
 * weft_finalize() took it to run it). Context: any. */
WEFT_API int weft_pool_push(weft_pool pool, weft_thread unit);

/* Take the next ready unit out of the pool; *unit is WEFT_THREAD_NULL when
 * the pool is empty. The caller now holds the unit and must push it to a
 * pool (or run it, from a scheduler) for it to run; units still held when
 * they are all weft_finalize() has left are run by it (see there).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID, WEFT_ERR_POOL_ACCESS.
 * Context: any. */
WEFT_API int weft_pool_pop(weft_pool pool, weft_thread *unit);

/* Take up to `max` ready units out of the pool into units[]; *n says how
 * many (0 when it is empty). One lock round for a locked pool, one
 * pop_many call for a user pool that has it. The caller holds them, as
 * after weft_pool_pop().
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID (max < 0, NULL array or n),
 * WEFT_ERR_POOL_ACCESS. Context: any. */
WEFT_API int weft_pool_pop_many(weft_pool pool, int max, weft_thread *units, int *n);

/* weft_pool_pop(), waiting up to `timeout_ns` nanoseconds for a unit to be
 * pushed (0: do not wait; UINT64_MAX: no limit). *unit is WEFT_THREAD_NULL
 * when the time ran out. A waiting ULT yields to the other work of its
 * stream; a waiting scheduler or plain thread backs off from spinning to
 * short sleeps (so a unit pushed after a long wait is seen within about
 * 50 microseconds). A private user pool with a pop_wait op that holds units
 * back is left to wait its own way when the caller is not a ULT.
 * Errors: as weft_pool_pop(); WEFT_ERR_TASKLET_BLOCKS from a tasklet with a
 * timeout other than 0. Context: ULT, scheduler, thread; tasklet with 0. */
WEFT_API int weft_pool_pop_wait(weft_pool pool, uint64_t timeout_ns, weft_thread *unit);

/* ------------------------------------------------------------------ */
/* Schedulers                                                          */

/* Built-in schedulers. Each copies the pools array (1 <= npools <= 16; no
 * pool twice) and serves one stream at a time, as a stream's main scheduler
 * or stacked (weft_pool_add_sched). Each checks its events every 64 picks:
 * stop and finish requests, its replacement, and, when stacked, a turn for
 * the scheduler below it.
 * Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE, WEFT_ERR_NOMEM. Context: any. */

/* Basic: takes from its pools in turn, starting after the pool that gave the
 * last unit, so that no pool starves. */
WEFT_API int weft_sched_create_basic(int npools, const weft_pool *pools, weft_sched *out);

/* Priority: pools[0] first, pools[1] only when pools[0] is empty, and so on. */
WEFT_API int weft_sched_create_prio(int npools, const weft_pool *pools, weft_sched *out);

/* Random work stealing: it runs units of pools[0] (the stream's own) first;
 * when that is empty it takes from the other pools, starting at a random one.
 * Pools other streams steal from must be shared (a private pool serves one
 * scheduler only). Stolen units keep their home pool: a yield sends them
 * back there. */
WEFT_API int weft_sched_create_randws(int npools, const weft_pool *pools, weft_sched *out);

/* A user-defined scheduler. `run` is its loop: it takes units from its pools
 * (weft_pool_pop), runs each with weft_sched_run_unit(), calls
 * weft_sched_check_events() now and then and weft_sched_idle() when it
 * found nothing (or its stream never sleeps), and returns once
 * weft_sched_has_to_stop() says so. While it runs, ULTs that yield, block or
 * end hand the stream back to it; it must not block itself (joins and waits
 * fail with WEFT_ERR_SCHED_BLOCKS) but may weft_yield() to the scheduler
 * below it when stacked. */
typedef struct weft_sched_ops {
    /* Called by weft_sched_create(); nonzero fails the creation with that
     * code. May be NULL. Meanwhile the scheduler may not be freed, started
     * or stacked (WEFT_ERR_BUSY). */
    int (*init)(weft_sched sched);
    /* Required. Runs on the scheduler's context of the stream it serves. */
    void (*run)(weft_sched sched);
    /* Called by weft_sched_free(); may be NULL. */
    void (*free)(weft_sched sched);
    /* The pool where units migrating to its stream go
     * (weft_thread_migrate_to_xstream, weft_*_create_to). NULL: pools[0]. */
    weft_pool (*get_migration_pool)(weft_sched sched);
} weft_sched_ops;

/* Create a user-defined scheduler over `pools` with `ops` (copied) and
 * `data` (kept by reference, see weft_sched_get_data).
 * Errors: WEFT_ERR_INVALID (NULL ops or run, bad pools), WEFT_ERR_HANDLE,
 * WEFT_ERR_NOMEM, or the code init returned. Context: any. */
WEFT_API int weft_sched_create(const weft_sched_ops *ops, int npools, const weft_pool *pools, void *data,
                      weft_sched *out);

/* The data given to weft_sched_create() (NULL for a built-in scheduler).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_sched_get_data(weft_sched sched, void **data);

/* Up to `max` of the scheduler's pools, in order; *n gets their number.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_sched_get_pools(weft_sched sched, int max, weft_pool *pools, int *n);

/* Run `unit`, taken by the scheduler from `pool` with weft_pool_pop(), on
 * the scheduler's stream; returns when the unit yields, blocks or ends.
 * `pool` becomes the unit's home pool (where a yield puts it back). Then
 * runs units that must run on this stream and arrived meanwhile.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_STATE (the unit is not held, as for
 * weft_pool_push), WEFT_ERR_CROSS_STREAM (the caller is not this
 * scheduler's context).
 * Context: the scheduler's run function. */
WEFT_API int weft_sched_run_unit(weft_sched sched, weft_thread unit, weft_pool pool);

/* *stop = 1 when the run function must return: the stream is stopping and
 * nothing is left, the scheduler was replaced as the main scheduler, or,
 * stacked, it is automatic or finishing and its pools are empty with no
 * blocked unit. Once a stream's main scheduler got 1 it keeps getting 1.
 * A run function should return then; one that goes on may still use the
 * scheduler calls and pop and run units, but what other threads put into
 * its pools from then on waits there (unless it pops it) for the next
 * scheduler that serves them.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID,
 * WEFT_ERR_CROSS_STREAM (not called from the scheduler's context).
 * Context: the scheduler's run function. */
WEFT_API int weft_sched_has_to_stop(weft_sched sched, int *stop);

/* Housekeeping a scheduler owes the runtime every few units: move units that
 * other streams sent to this stream into place, run units that must run
 * here, and, when stacked, give the scheduler below a turn (this returns when
 * this scheduler runs again). Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_CROSS_STREAM. Context: the scheduler's run function. */
WEFT_API int weft_sched_check_events(weft_sched sched);

/* For a user-defined scheduler that found nothing to run: one idle turn as
 * the built-in ones take it, per the wait policy: spin, yield the core, or
 * (the stream's main scheduler, after its spin budget) sleep until a unit
 * is pushed to one of its pools or a timed wait on its stream expires.
 * Also does weft_sched_check_events' housekeeping, without the turn of the
 * scheduler below. Call it in a loop with weft_sched_has_to_stop.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_CROSS_STREAM.
 * Context: the scheduler's run function. */
WEFT_API int weft_sched_idle(weft_sched sched);

/* Stack `sched` on `pool`: it becomes a unit of the pool and, when the
 * scheduler serving the pool picks it, runs on that stream (and stays
 * there) scheduling its own pools until it stops; then its pools are free
 * again and it may be stacked again or freed. It gives the stream back to
 * the scheduler below when it has nothing to run, every 64 picks, and when
 * its context calls weft_yield(). A stacked scheduler is automatic by
 * default: it stops once its pools are empty and none of its units is
 * blocked. Errors: WEFT_ERR_UNINIT, WEFT_ERR_HANDLE, WEFT_ERR_INVALID (pool
 * is one of its own), WEFT_ERR_BUSY (sched in use or stacked already), WEFT_ERR_POOL_ACCESS
 * (one of its private pools is used by another scheduler), WEFT_ERR_NOMEM.
 * Context: any. */
WEFT_API int weft_pool_add_sched(weft_pool pool, weft_sched sched);

/* automatic = 0: a stacked scheduler keeps running (and yielding to the one
 * below when idle) until weft_sched_finish(); 1 (default): it stops when it
 * runs out of work. Must be finished before weft_finalize().
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_sched_set_automatic(weft_sched sched, int automatic);

/* Ask a stacked scheduler to stop once its pools are empty and none of its
 * units is blocked. Errors: WEFT_ERR_HANDLE. Context: any. */
WEFT_API int weft_sched_finish(weft_sched sched);

/* Free a scheduler that no stream uses; *sched becomes NULL. Its pools are
 * not freed. Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE, WEFT_ERR_BUSY.
 * Context: any. */
WEFT_API int weft_sched_free(weft_sched *sched);

/* ------------------------------------------------------------------ */
/* Work units: ULTs and tasklets                                       */

typedef struct weft_thread_attr {
    size_t stack_size; /* 0: the runtime default; else >= 16 KiB and <= 1 GiB; rounded
                        * up to whole pages, of which the top 64 bytes keep weft's
                        * record of the stack */
    int migratable;    /* 1 (default): may move between streams via shared pools;
                        * 0: stays on the stream where it first runs (which, from
                        * a shared or stolen-from pool, may be any that serves it) */
} weft_thread_attr;

/* Set `attr` to the defaults. Errors: WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_thread_attr_init(weft_thread_attr *attr);

/* Create a ULT running fn(arg) and push it into `pool` (help-first: the
 * caller continues). attr NULL means defaults. out NULL creates a detached
 * ULT: nobody joins it, its memory is reclaimed when it ends.
 * Errors: WEFT_ERR_UNINIT, WEFT_ERR_INVALID (NULL fn, bad stack size),
 * WEFT_ERR_HANDLE (pool), WEFT_ERR_NOMEM, WEFT_ERR_STATE (a plain thread,
 * while weft_finalize() runs: see there). Context: any. */
WEFT_API int weft_thread_create(weft_pool pool, void (*fn)(void *), void *arg,
                       const weft_thread_attr *attr, weft_thread *out);

/* As weft_thread_create(), into the first pool of stream xs's scheduler.
 * Errors: as weft_thread_create(), WEFT_ERR_HANDLE (xs), WEFT_ERR_STATE
 * (xs was joined: nothing would run the unit). */
WEFT_API int weft_thread_create_to(weft_xstream xs, void (*fn)(void *), void *arg,
                          const weft_thread_attr *attr, weft_thread *out);

/* Create a tasklet running fn(arg) and push it into `pool`. out NULL:
 * detached. Errors: as weft_thread_create(). Context: any. */
WEFT_API int weft_tasklet_create(weft_pool pool, void (*fn)(void *), void *arg, weft_thread *out);

/* As weft_tasklet_create(), into the first pool of stream xs's scheduler.
 * Errors: as weft_thread_create_to(). */
WEFT_API int weft_tasklet_create_to(weft_xstream xs, void (*fn)(void *), void *arg, weft_thread *out);

/* As weft_thread_create_to() / weft_tasklet_create_to() for the calling
 * stream, without naming it: into the first pool of the caller's stream's
 * main scheduler, looked up at the call (so after a migration, the stream
 * the caller runs on now). The cheapest creation for code that does not
 * keep a pool handle at hand (GLT's glt_ult_create is this call).
 * Errors: WEFT_ERR_NOT_WEFT (a plain thread: no stream of its own, or no
 * runtime), WEFT_ERR_INVALID (NULL fn, bad stack size), WEFT_ERR_NOMEM.
 * Context: ULT, tasklet. */
WEFT_API int weft_thread_create_here(void (*fn)(void *), void *arg, const weft_thread_attr *attr,
                                     weft_thread *out);
WEFT_API int weft_tasklet_create_here(void (*fn)(void *), void *arg, weft_thread *out);

/* Work-first creation: create a ULT and run it at once on the caller's
 * stream; the caller goes back to its pool and continues when its scheduler
 * picks it (for recursive, divide-and-conquer code). The new ULT's home pool
 * is the caller's. out NULL: detached.
 * Errors: WEFT_ERR_NOT_WEFT, WEFT_ERR_TASKLET_BLOCKS, WEFT_ERR_SCHED_BLOCKS,
 * WEFT_ERR_INVALID (NULL fn, bad stack size), WEFT_ERR_NOMEM. Context: ULT. */
WEFT_API int weft_thread_create_first(void (*fn)(void *), void *arg, const weft_thread_attr *attr, weft_thread *out);

/* Reuse the descriptor of an ended unit (joined or not, not freed): it
 * becomes a ready unit of the same kind running fn(arg) in `pool`, with the
 * same handle and id, to be joined again.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID (NULL fn), WEFT_ERR_STATE (not
 * ended, detached, or the main ULT; from a plain thread, while
 * weft_finalize() runs). Context: any. */
WEFT_API int weft_thread_revive(weft_pool pool, void (*fn)(void *), void *arg, weft_thread unit);

/* Move `unit` to `pool`: the caller itself (it continues on a stream that
 * serves `pool`), or a unit waiting in a pool the caller may take from. Safe
 * against concurrent joins.
 * Errors: WEFT_ERR_HANDLE; WEFT_ERR_STATE (running elsewhere, blocked, ended,
 * or not migratable: created with migratable = 0 and already run, or the main
 * ULT); WEFT_ERR_POOL_ACCESS (waiting in another stream's private pool);
 * WEFT_ERR_TASKLET_BLOCKS (a tasklet moving itself).
 * Context: ULT for itself; any for a waiting unit. */
WEFT_API int weft_thread_migrate(weft_thread unit, weft_pool pool);

/* As weft_thread_migrate(), to the first pool of stream xs's scheduler. */
WEFT_API int weft_thread_migrate_to_xstream(weft_thread unit, weft_xstream xs);

/* Join `n` units. With the basic scheduler, joining units that wait on the
 * caller's stream costs about n+1 context switches: each ending unit passes
 * the stream straight to the next one. All handles, and every error a
 * unit's state gives at the call (the caller itself, the main ULT, a unit
 * joined already, a caller that may not wait for an unfinished unit), are
 * checked before any is joined: then nothing was joined. Only a join or
 * free of one of the units by another thread meanwhile, or a unit named
 * twice, fails the call after the units before it in the array were joined.
 * Errors: WEFT_ERR_INVALID (n < 0, NULL array), as weft_thread_join()
 * for each unit. Context: as weft_thread_join(). */
WEFT_API int weft_thread_join_many(int n, const weft_thread *units);

/* Join and release `n` units; each units[i] becomes NULL.
 * Errors: as weft_thread_join_many(). Context: as weft_thread_join(). */
WEFT_API int weft_thread_free_many(int n, weft_thread *units);

/* Wait until `unit` has finished. A ULT caller is suspended and its stream
 * runs other work; a plain thread blocks on a futex. A unit is joined once.
 * A ULT's join runs the joinee next when it waits on the caller's stream: at
 * the head of its pool through the scheduler's order; a ULT not yet started
 * a few places further back (not in a user pool or deque) at once, and its
 * end then switches straight back to the caller.
 * Exactly one of several concurrent joins of a unit waits; the others get
 * WEFT_ERR_JOINED. The main ULT cannot be joined (nor freed): from itself
 * WEFT_ERR_JOIN_SELF, from any other caller WEFT_ERR_STATE.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_JOIN_SELF, WEFT_ERR_JOINED,
 * WEFT_ERR_STATE (the main ULT, a detached unit),
 * WEFT_ERR_TASKLET_BLOCKS (caller is a tasklet and the unit has not ended),
 * WEFT_ERR_SCHED_BLOCKS (caller is a scheduler and the unit has not ended).
 * Context: ULT, thread; tasklet only for a unit that has already ended. */
WEFT_API int weft_thread_join(weft_thread unit);

/* Join `*unit` if not yet joined, release it; *unit becomes NULL. Of
 * several threads freeing (or joining) the same unit at once exactly one
 * succeeds; the others get WEFT_ERR_JOINED (it was being joined) or
 * WEFT_ERR_HANDLE (it was released). The main ULT is never freed: see
 * weft_thread_join() for its errors.
 * Errors: WEFT_ERR_INVALID (NULL pointer), as weft_thread_join().
 * Context: as weft_thread_join(). */
WEFT_API int weft_thread_free(weft_thread *unit);

/* Give the stream to its scheduler; the caller goes back to its pool and
 * runs again when the scheduler picks it. From a plain thread: sched_yield().
 * From a stacked scheduler's context: the scheduler below gets a turn; from
 * a main scheduler's context: nothing.
 * Errors: WEFT_ERR_TASKLET_BLOCKS. Context: ULT, thread. */
WEFT_API int weft_yield(void);

/* Switch straight to `target`, a ready unit waiting in a pool of the
 * caller's stream, without going through the scheduler; the caller goes
 * back to its pool.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_NOT_WEFT, WEFT_ERR_TASKLET_BLOCKS,
 * WEFT_ERR_SCHED_BLOCKS (caller is a scheduler), WEFT_ERR_INVALID (target
 * is the caller), WEFT_ERR_STATE (target not waiting in a pool, a tasklet or
 * a scheduler), WEFT_ERR_CROSS_STREAM (target's pool is not one of this
 * stream's scheduler), WEFT_ERR_NOMEM (the target is a ULT that can get no
 * stack now: it waits for one, as if picked, and the caller goes on).
 * Context: ULT. */
WEFT_API int weft_yield_to(weft_thread target);

/* The running unit. Errors: WEFT_ERR_NOT_WEFT, WEFT_ERR_INVALID.
 * Context: ULT, tasklet. */
WEFT_API int weft_self(weft_thread *out);

/* A unique, never reused id of the unit (the main ULT is 0).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_thread_id(weft_thread unit, uint64_t *id);

/* *is_tasklet = 1 for a tasklet, 0 for a ULT.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_thread_is_tasklet(weft_thread unit, int *is_tasklet);

typedef enum {
    WEFT_STATE_READY = 0,      /* waiting to run */
    WEFT_STATE_RUNNING = 1,
    WEFT_STATE_BLOCKED = 2,    /* suspended in a join */
    WEFT_STATE_TERMINATED = 3, /* finished or cancelled */
} weft_thread_state;

/* The unit's state (a snapshot). Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID.
 * Context: any. */
WEFT_API int weft_thread_get_state(weft_thread unit, weft_thread_state *state);

/* 1 when the unit was cancelled before it ran.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_thread_was_cancelled(weft_thread unit, int *cancelled);

/* End the calling ULT now, as if its function had returned. Does not
 * return on success.
 * Errors: WEFT_ERR_NOT_WEFT, WEFT_ERR_NOT_ULT (main ULT or tasklet).
 * Context: ULT other than main. */
WEFT_API int weft_thread_exit(void);

/* Cancel a unit that has not started: it is taken out of its pool and ends
 * without running; joiners return normally.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_STATE (already started, running,
 * blocked, ended, or not waiting in a pool: whichever stream owns its
 * pool), WEFT_ERR_POOL_ACCESS (waiting, not started, in another stream's
 * private pool).
 * Context: any. */
WEFT_API int weft_thread_cancel(weft_thread unit);

/* ------------------------------------------------------------------ */
/* Mutexes                                                             */
/*
 * A contended lock spins briefly, then blocks only the calling ULT: it
 * waits in the mutex's queue while its stream runs other units. When the
 * first waiter is a ULT that may run on the unlocker's stream, the unlock
 * hands it the mutex and switches to it at once (the unlocker goes back to
 * its pool, ready). A waiter elsewhere is woken to take the mutex if it is
 * still free (handing it to a unit that must first be scheduled on another
 * stream would leave it idle meanwhile); one that loses keeps its place at
 * the front, and once a waiter has waited over a millisecond every unlock
 * hands over in queue order until the queue drains: no waiter starves.
 * From a plain OS thread a lock blocks that thread on a futex instead; a
 * scheduler's own context may not wait. A tasklet may take a free mutex
 * and unlock it; if it would have to wait, it gets WEFT_ERR_TASKLET_BLOCKS.
 *
 * The owner is the calling ULT or tasklet (a migrating ULT keeps its
 * mutexes), or the calling OS thread outside weft, recorded by an identity
 * never given to another: a mutex left locked by a unit that ended (or a
 * thread that exited) stays locked, and the unit that reuses that unit's
 * descriptor gets WEFT_ERR_NOT_OWNER from an unlock. Freed mutexes are
 * kept, dead, for reuse by new mutexes, never given back: a stale handle
 * gets WEFT_ERR_HANDLE unless a new mutex already reuses its memory (also
 * for mutexes freed before weft_init() or after weft_finalize()). Mutexes
 * may be created before weft_init(). */

typedef struct weft_mutex_s *weft_mutex;

typedef struct {
    int recursive; /* 1: the owner may lock again; as many unlocks free it */
    /* 1: every unlock hands the mutex to the first waiter, on any stream
     * (strict queue order). Fairer, and much slower under contention across
     * streams: the mutex stays held by a waiter until its stream runs it
     * (bench: mutex_contended). 0 (default): as described above. */
    int fair;
} weft_mutex_attr;

/* Make a mutex; attr NULL means not recursive.
 * Errors: WEFT_ERR_INVALID (NULL out), WEFT_ERR_NOMEM. Context: any. */
WEFT_API int weft_mutex_create(const weft_mutex_attr *attr, weft_mutex *out);

/* Free an unlocked mutex nobody waits on; *m becomes NULL.
 * Errors: WEFT_ERR_INVALID (NULL m), WEFT_ERR_HANDLE, WEFT_ERR_BUSY (locked or
 * waited on). Context: any. */
WEFT_API int weft_mutex_free(weft_mutex *m);

/* Lock, waiting as long as it takes (at the back of the queue).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_BUSY (a non-recursive mutex the caller
 * already holds: it would wait for itself), WEFT_ERR_TASKLET_BLOCKS,
 * WEFT_ERR_SCHED_BLOCKS (a scheduler's own context).
 * Context: ULT, plain thread; tasklet only when the mutex is free. */
WEFT_API int weft_mutex_lock(weft_mutex m);

/* weft_mutex_lock; the "low priority" lock of the Argobots API. */
WEFT_API int weft_mutex_lock_low(weft_mutex m);

/* Lock, waiting at the front of the queue: the next unlock hands it to
 * this caller before earlier waiters. Errors and contexts as weft_mutex_lock. */
WEFT_API int weft_mutex_lock_high(weft_mutex m);

/* Lock if that needs no wait.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_BUSY (held, by another or, for a
 * non-recursive mutex, by the caller). Context: any. */
WEFT_API int weft_mutex_trylock(weft_mutex m);

/* Unlock (once, for a recursive mutex locked several times).
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_NOT_OWNER (the caller does not hold it).
 * Context: the holder: ULT, tasklet or plain thread. */
WEFT_API int weft_mutex_unlock(weft_mutex m);

/* ------------------------------------------------------------------ */
/* Condition variables                                                 */
/*
 * Used with a weft_mutex, as with pthreads. A wait parks the calling ULT
 * (or blocks a plain thread on a futex) and lets the mutex go in one step:
 * a signal sent by whoever takes the mutex next is not lost. Wake-ups come
 * in queue order; as with any condition variable, re-check the predicate
 * in a loop. A recursive mutex is released and retaken at its full depth.
 * Deadlines are absolute, in weft_time_ns() nanoseconds. */

typedef struct weft_cond_s *weft_cond;

/* Make a condition variable. Errors: WEFT_ERR_INVALID, WEFT_ERR_NOMEM.
 * Context: any. */
WEFT_API int weft_cond_create(weft_cond *out);

/* Free one nobody waits on; *c becomes NULL. Errors: WEFT_ERR_INVALID,
 * WEFT_ERR_HANDLE, WEFT_ERR_BUSY (waited on). Context: any. */
WEFT_API int weft_cond_free(weft_cond *c);

/* Release m, wait for a signal, take m again. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_NOT_OWNER (m not held by the caller), WEFT_ERR_TASKLET_BLOCKS,
 * WEFT_ERR_SCHED_BLOCKS. Context: ULT, plain thread. */
WEFT_API int weft_cond_wait(weft_cond c, weft_mutex m);

/* weft_cond_wait, giving up at deadline_ns: then WEFT_ERR_TIMEDOUT, with m
 * held again (a deadline already past returns at once, m never released).
 * The deadline of a ULT is kept by its stream's scheduler: it ends the wait
 * when the stream is idle or between two units. Errors and contexts as
 * weft_cond_wait, and WEFT_ERR_TIMEDOUT. */
WEFT_API int weft_cond_timedwait(weft_cond c, weft_mutex m, uint64_t deadline_ns);

/* Wake the longest waiter, if any. Errors: WEFT_ERR_HANDLE. Context: any. */
WEFT_API int weft_cond_signal(weft_cond c);

/* Wake every waiter. Errors: WEFT_ERR_HANDLE. Context: any. */
WEFT_API int weft_cond_broadcast(weft_cond c);

/* ------------------------------------------------------------------ */
/* Read-write locks                                                    */
/*
 * Phase-fair: a reader that finds a writer holding or waiting queues
 * behind it; a writer's unlock admits every reader queued by then; the
 * last reader out hands the lock to the next writer. Neither side starves.
 * Waiting parks a ULT or blocks a plain thread; a tasklet may take a lock
 * that is free, and gets WEFT_ERR_TASKLET_BLOCKS where it would wait.
 * Readers are counted, not recorded: any unlock while readers hold the
 * lock releases one read hold. For the same reason a read lock is not
 * recursive: a caller that holds it to read and asks again while a writer
 * waits queues behind that writer, which waits for the caller: a deadlock,
 * as with POSIX writer-preferring locks. Take it once per unit (a
 * tryrdlock in that situation returns WEFT_ERR_BUSY). */

typedef struct weft_rwlock_s *weft_rwlock;

/* Errors: WEFT_ERR_INVALID, WEFT_ERR_NOMEM. Context: any. */
WEFT_API int weft_rwlock_create(weft_rwlock *out);

/* Free an unheld lock nobody waits on; *l becomes NULL. Errors:
 * WEFT_ERR_INVALID, WEFT_ERR_HANDLE, WEFT_ERR_BUSY. Context: any. */
WEFT_API int weft_rwlock_free(weft_rwlock *l);

/* Take it to read / to write, waiting as needed. Read holds are counted,
 * not recorded: a caller that holds it to read and asks to write waits for
 * its own hold, for ever (there is no upgrade; as POSIX allows, this is a
 * deadlock, not an error). Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_BUSY (the caller holds it to write: it would wait for itself),
 * WEFT_ERR_TASKLET_BLOCKS, WEFT_ERR_SCHED_BLOCKS.
 * Context: ULT, plain thread; tasklet when no wait is needed. */
WEFT_API int weft_rwlock_rdlock(weft_rwlock l);
WEFT_API int weft_rwlock_wrlock(weft_rwlock l);

/* Take it only if that needs no wait. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_BUSY. Context: any. */
WEFT_API int weft_rwlock_tryrdlock(weft_rwlock l);
WEFT_API int weft_rwlock_trywrlock(weft_rwlock l);

/* Release a write hold (the caller's) or one read hold. Errors:
 * WEFT_ERR_HANDLE, WEFT_ERR_NOT_OWNER (nobody holds it, or another unit
 * holds it to write). Context: any. */
WEFT_API int weft_rwlock_unlock(weft_rwlock l);

/* ------------------------------------------------------------------ */
/* Barriers                                                            */
/*
 * weft_barrier: n ULTs (or plain threads) meet; the first n-1 park, the
 * n-th releases them and the barrier is ready for the next round at once.
 * A tasklet may only arrive last (it cannot wait).
 * weft_xstream_barrier: n execution streams meet; the caller's whole OS
 * thread waits (spinning briefly, then on a futex), not just its ULT:
 * for code that runs one ULT per stream, e.g. around binding or timing. */

typedef struct weft_barrier_s *weft_barrier;
typedef struct weft_xstream_barrier_s *weft_xstream_barrier;

/* Errors: WEFT_ERR_INVALID (n < 1, NULL out), WEFT_ERR_NOMEM. Context: any. */
WEFT_API int weft_barrier_create(int n, weft_barrier *out);

/* Change the count; only between rounds. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_INVALID (n < 1), WEFT_ERR_BUSY (someone is waiting). Context: any. */
WEFT_API int weft_barrier_reinit(weft_barrier b, int n);

/* Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE, WEFT_ERR_BUSY (waited on).
 * Context: any. */
WEFT_API int weft_barrier_free(weft_barrier *b);

/* Wait until n callers have arrived. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_TASKLET_BLOCKS (a tasklet that is not the last; it is not
 * counted), WEFT_ERR_SCHED_BLOCKS. Context: ULT, plain thread; tasklet as
 * the last arrival. */
WEFT_API int weft_barrier_wait(weft_barrier b);

/* Errors: WEFT_ERR_INVALID (n < 1, NULL out), WEFT_ERR_NOMEM. Context: any. */
WEFT_API int weft_xstream_barrier_create(int n, weft_xstream_barrier *out);

/* Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE, WEFT_ERR_BUSY. Context: any. */
WEFT_API int weft_xstream_barrier_free(weft_xstream_barrier *b);

/* Block the calling OS thread until n have arrived. Errors:
 * WEFT_ERR_HANDLE. Context: any (from a unit, its whole stream waits). */
WEFT_API int weft_xstream_barrier_wait(weft_xstream_barrier b);

/* ------------------------------------------------------------------ */
/* Eventuals and futures                                               */
/*
 * An eventual becomes ready once, when set, optionally with a value of up
 * to the size it was created with (copied in; waiters get a pointer to the
 * copy). A future has n compartments; it becomes ready when all n are set,
 * after its callback (if any) has seen every value. Waiting on one that is
 * not ready parks a ULT or blocks a plain thread; every waiter is woken
 * when it becomes ready. Waiting on a ready one never blocks (a tasklet
 * may do it). */

typedef struct weft_eventual_s *weft_eventual;
typedef struct weft_future_s *weft_future;

/* nbytes: room for the value (0: none). Errors: WEFT_ERR_INVALID,
 * WEFT_ERR_NOMEM. Context: any. */
WEFT_API int weft_eventual_create(size_t nbytes, weft_eventual *out);

/* A wait gives a pointer into the eventual: free it once every waiter has
 * returned from its wait and is done with the value.
 * Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE, WEFT_ERR_BUSY (waited on).
 * Context: any. */
WEFT_API int weft_eventual_free(weft_eventual *e);

/* Wait until it is set; *value (if value is not NULL) points at the copy
 * of what was set. Errors: WEFT_ERR_HANDLE, WEFT_ERR_TASKLET_BLOCKS,
 * WEFT_ERR_SCHED_BLOCKS. Context: ULT, plain thread; tasklet when ready. */
WEFT_API int weft_eventual_wait(weft_eventual e, void **value);

/* weft_eventual_wait with a deadline (weft_time_ns clock); errors as it
 * and WEFT_ERR_TIMEDOUT. */
WEFT_API int weft_eventual_timedwait(weft_eventual e, void **value, uint64_t deadline_ns);

/* *ready = 1 and *value set if it is ready, else *ready = 0. Never waits.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID (NULL ready). Context: any. */
WEFT_API int weft_eventual_test(weft_eventual e, void **value, int *ready);

/* Make it ready, copying nbytes of value, and wake every waiter. Errors:
 * WEFT_ERR_HANDLE, WEFT_ERR_INVALID (nbytes over the size it was created
 * with, or NULL value with nbytes > 0), WEFT_ERR_STATE (already set).
 * Context: any. */
WEFT_API int weft_eventual_set(weft_eventual e, const void *value, size_t nbytes);

/* Make it not ready again, for reuse. Call it when no set or wait is in
 * progress. Errors: WEFT_ERR_HANDLE. Context: any. */
WEFT_API int weft_eventual_reset(weft_eventual e);

/* compartments >= 1; ready_cb (may be NULL) is called by the last setter
 * with the array of values, before any waiter is woken. Errors:
 * WEFT_ERR_INVALID, WEFT_ERR_NOMEM. Context: any. */
WEFT_API int weft_future_create(int compartments, void (*ready_cb)(void **values), weft_future *out);

/* Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE, WEFT_ERR_BUSY (waited on, or
 * the last weft_future_set() is still running ready_cb).
 * Context: any. */
WEFT_API int weft_future_free(weft_future *f);

/* Fill the next compartment. Errors: WEFT_ERR_HANDLE, WEFT_ERR_STATE (all
 * are set). Context: any (the last setter runs the callback). */
WEFT_API int weft_future_set(weft_future f, void *value);

/* Wait until every compartment is set. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_TASKLET_BLOCKS, WEFT_ERR_SCHED_BLOCKS. Context: ULT, plain
 * thread; tasklet when ready. */
WEFT_API int weft_future_wait(weft_future f);

/* weft_future_wait with a deadline; errors as it and WEFT_ERR_TIMEDOUT. */
WEFT_API int weft_future_timedwait(weft_future f, uint64_t deadline_ns);

/* *ready = 1 if every compartment is set. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_future_test(weft_future f, int *ready);

/* The value set in compartment `index` (in the order they were set), once
 * ready. Errors: WEFT_ERR_HANDLE, WEFT_ERR_INVALID (index out of range,
 * NULL value), WEFT_ERR_STATE (not ready). Context: any. */
WEFT_API int weft_future_get(weft_future f, int index, void **value);

/* Empty every compartment for reuse. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_BUSY (set in part: setters are at work). Context: any. */
WEFT_API int weft_future_reset(weft_future f);

/* ------------------------------------------------------------------ */
/* Keys: work-unit-local storage                                       */
/*
 * A value per key and per ULT or tasklet; it travels with the unit when it
 * migrates. The main ULT, scheduler contexts and plain threads have one
 * set of values per OS thread. A unit's destructors run, in that unit, when
 * it ends (returns, weft_thread_exit); a cancelled unit's run where it is
 * reaped. A plain thread's run at its exit, from a pthread key destructor:
 * a value set later by another pthread key's destructor starts a new set,
 * destroyed in glibc's next round if one is left, else leaked. Up to 4096
 * keys live at once.
 *
 * Why not __thread? A ULT may resume on another OS thread after any yield,
 * join, lock or migration, and the compiler may keep the address of a
 * thread-local variable in a register across such a call: the ULT then
 * reads the old thread's variable. weft_key_get looks the value up from
 * the running unit on every call, so it is right after any switch. */

typedef struct weft_key_s *weft_key;

/* destructor (may be NULL) is called with each non-NULL value at the end
 * of its unit. A destructor may set values again: at most 4 rounds run
 * (PTHREAD_DESTRUCTOR_ITERATIONS, as glibc), then the values still set are
 * dropped without their destructor. Errors: WEFT_ERR_INVALID,
 * WEFT_ERR_NOMEM (also: 4096 keys live). Context: any; weft_init is not
 * needed. */
WEFT_API int weft_key_create(void (*destructor)(void *), weft_key *out);

/* Free a key; values still set are dropped without their destructor.
 * Errors: WEFT_ERR_INVALID, WEFT_ERR_HANDLE. Context: any. */
WEFT_API int weft_key_free(weft_key *k);

/* Set the caller's value. Errors: WEFT_ERR_HANDLE, WEFT_ERR_NOMEM.
 * Context: any. */
WEFT_API int weft_key_set(weft_key k, void *value);

/* The caller's value, NULL if never set. Errors: WEFT_ERR_HANDLE,
 * WEFT_ERR_INVALID. Context: any. */
WEFT_API int weft_key_get(weft_key k, void **value);

#ifdef __cplusplus
}
#endif

#endif
