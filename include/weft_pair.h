/* weft pair mode: sub-microsecond tasks on two hardware threads of one core.
 *
 * A pair is an *owner* (an execution stream, or a plain OS thread) and an
 * *assistant* (an OS thread weft starts for the pair, placed on the SMT
 * sibling of the owner's core when there is one) joined by a single-producer
 * single-consumer ring of tasks [Relic §VI]. The owner submits tasks and
 * waits for them; the assistant takes them in order and runs them. Nothing
 * else is shared: no pools, no scheduler, no locks. Coarse work belongs in
 * ULTs and pools; a pair is for splitting a few microseconds of work that
 * one owner is already running.
 *
 *   weft_pair p;
 *   weft_pair_create(NULL, &p);          // from the stream or thread that will own it
 *   weft_pair_wake_hint(p);              // a parallel section is coming
 *   weft_pair_submit(p, half_a, &a);     // the assistant runs half_a ...
 *   half_b(&b);                          // ... while the owner runs half_b
 *   weft_pair_wait(p);                   // both halves done
 *   weft_pair_sleep_hint(p);             // the section is over
 *   weft_pair_free(&p);
 *
 * Costs. A submit writes one ring entry and makes it visible with one
 * release store; the assistant finds work with one acquire load; it claims
 * an entry with one exchange on the entry's own cache line (so that the
 * owner may take entries back while it waits) and reports completion with a
 * release store of a counter only it writes: no read-modify-write on any
 * shared counter. The owner never blocks in submit: with the ring full it
 * runs the task itself.
 *
 * Waiting. The assistant spins (`pause` on x86-64, `yield` on aarch64)
 * while it has nothing to run, for at most the pair's spin budget, then
 * sleeps on a futex: an idle pair costs no CPU time. weft_pair_sleep_hint()
 * sends it to sleep as soon as the ring is empty; weft_pair_wake_hint() and
 * a submit wake it. The owner in weft_pair_wait() runs queued tasks itself
 * (the newest first, while the assistant takes the oldest) instead of only
 * spinning, so a wait ends even if the assistant is asleep or descheduled.
 *
 * Tasks. A task is fn(arg). It runs on the assistant (a plain OS thread:
 * "thread" context for the rest of weft's API) or on the owner (in submit
 * with a full ring, or in wait: the caller's context). A task may submit to
 * or wait on a pair it owns; a task on the assistant is not the owner of the
 * pair that runs it. Tasks of one pair run in any order and possibly at the
 * same time as each other and as the owner's code between submit and wait,
 * or one after the other on one thread: a task must not wait for another
 * task to start or to reach a point (only weft_pair_wait() waits for tasks),
 * and a ULT may yield or block in a task the owner runs. A ULT that ends
 * there (weft_thread_exit) ends that task and those it was nested in: they
 * count as finished.
 *
 * Every call returns WEFT_OK or a WEFT_ERR_* code (weft.h). A pair needs no
 * weft_init(): a plain thread may own one before or without the runtime. */
#ifndef WEFT_PAIR_H
#define WEFT_PAIR_H

#include "weft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_pair_s *weft_pair;
#define WEFT_PAIR_NULL ((weft_pair)0)

/* Where the assistant runs, relative to the owner's CPU at creation. */
typedef enum {
    WEFT_PAIR_SMT_SIBLING = 0,  /* another hardware thread of the owner's core */
    WEFT_PAIR_SHARED_CACHE = 1, /* another core that shares a cache with the owner's */
    WEFT_PAIR_OTHER_CPU = 2,    /* another CPU with no cache in common (or unknown topology) */
    WEFT_PAIR_SAME_CPU = 3,     /* the owner's CPU is the only one the process may use */
    /* Where the OS puts it, among the CPUs the owner may use: asked for
     * (assistant_cpu = -2), or the owner may run on more than one CPU. */
    WEFT_PAIR_UNBOUND = 4,
    WEFT_PAIR_GIVEN_CPU = 5,    /* the CPU named in weft_pair_config.assistant_cpu */
} weft_pair_placement;

#define WEFT_PAIR_MAX_CAPACITY 65536u

typedef struct weft_pair_config {
    /* Ring entries: a power of two from 2 to WEFT_PAIR_MAX_CAPACITY.
     * Default 128 [Relic §VI]. */
    unsigned capacity;
    /* How long the idle assistant spins before it sleeps, in microseconds,
     * 0 .. WEFT_MAX_SPIN_US (0: sleep as soon as the ring is empty).
     * Default: the variable WEFT_PAIR_SPIN_US, else 200 (docs/design.md,
     * "Pair mode", says how it was chosen). */
    long spin_us;
    /* -1 (default): if the owner is bound to one CPU (a stream bound by
     * weft_config.bind, or a thread's affinity), bind the assistant to the
     * nearest other CPU (the order of weft_pair_placement); else let it run
     * where the owner may. -2: the latter always. A CPU number: bind it there.
     * The CPUs it may be given: those the process started with, the
     * caller's, and weft's (weft_init()). */
    int assistant_cpu;
} weft_pair_config;

/* Fill *cfg with the defaults above (reading WEFT_PAIR_SPIN_US).
 * Errors: WEFT_ERR_INVALID (NULL cfg, or WEFT_PAIR_SPIN_US is not a number
 * in 0..WEFT_MAX_SPIN_US). Context: any. */
WEFT_API int weft_pair_config_init(weft_pair_config *cfg);

/* Create a pair owned by the caller: its execution stream when called from
 * a ULT or tasklet (every unit on that stream may then use the pair), else
 * the calling OS thread. Starts the assistant thread, placed as cfg says
 * (NULL cfg: the defaults), and returns once it runs.
 * Errors: WEFT_ERR_INVALID (NULL out; capacity not a power of two in range;
 * spin_us out of range; assistant_cpu not -1, -2 or one of those CPUs),
 * WEFT_ERR_NOMEM (the pair's memory), WEFT_ERR_SYS (the assistant thread
 * could not be started). Context: any. */
WEFT_API int weft_pair_create(const weft_pair_config *cfg, weft_pair *out);

/* Queue fn(arg) for the assistant and return at once; with the ring full,
 * run it on the caller first instead. Wakes a sleeping assistant.
 * Errors: WEFT_ERR_HANDLE (NULL or freed pair), WEFT_ERR_INVALID (NULL fn),
 * WEFT_ERR_NOT_OWNER (the caller is not the pair's owner: another thread or
 * stream, a ULT that moved to another stream, a task on the assistant).
 * Context: the owner (any unit of the owning stream, or the owning thread). */
WEFT_API int weft_pair_submit(weft_pair p, void (*fn)(void *), void *arg);

/* Return once every task submitted to the pair has finished, except those
 * the caller is itself inside (a task that waits on its own pair). While
 * tasks are queued the caller takes the newest and runs them itself (the
 * last one only if the assistant has not moved on for a few microseconds:
 * it is about to take it). It spins otherwise, and every millisecond or so
 * of spinning yields (to the stream's other ULTs, or the OS thread's CPU).
 * While another ULT of the owning stream is inside a task it took from this
 * pair, the caller takes none and yields to the stream's other ULTs until
 * that task ends. A ULT in a pool other streams also take from may resume
 * elsewhere after such a yield: WEFT_ERR_NOT_OWNER, as below.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_NOT_OWNER (as for submit; also when the
 * calling ULT is found on another stream after running a task that moved
 * it: the tasks it had not taken are left queued), WEFT_ERR_TASKLET_BLOCKS
 * (a tasklet), WEFT_ERR_SCHED_BLOCKS (a scheduler's own context).
 * Context: the owner, as a ULT (main included) or the owning thread. */
WEFT_API int weft_pair_wait(weft_pair p);

/* A parallel section starts: wake the assistant if it sleeps (or is falling
 * asleep), and give it its whole spin budget again. Errors: WEFT_ERR_HANDLE, WEFT_ERR_NOT_OWNER.
 * Context: the owner. */
WEFT_API int weft_pair_wake_hint(weft_pair p);

/* The parallel section is over: the assistant sleeps as soon as the ring is
 * empty, until a submit or weft_pair_wake_hint(). Queued tasks still run.
 * Errors: WEFT_ERR_HANDLE, WEFT_ERR_NOT_OWNER. Context: the owner. */
WEFT_API int weft_pair_sleep_hint(weft_pair p);

/* Where the assistant was placed, and the CPUs at creation (-1: unknown or
 * unbound). Any of the out pointers may be NULL.
 * Errors: WEFT_ERR_HANDLE. Context: any. */
WEFT_API int weft_pair_placement_get(weft_pair p, weft_pair_placement *how, int *owner_cpu,
                                     int *assistant_cpu);

/* Wait for every task as weft_pair_wait() does (and for other ULTs of the
 * stream to leave the tasks and waits they are in), end the assistant thread
 * and free the pair; *p becomes WEFT_PAIR_NULL. A freed handle is refused
 * with WEFT_ERR_HANDLE by every call, as long as its memory was not reused
 * by a later pair (handle memory is reused by size, as for weft.h's
 * objects).
 * Errors: WEFT_ERR_INVALID (NULL p), WEFT_ERR_HANDLE, WEFT_ERR_NOT_OWNER,
 * WEFT_ERR_TASKLET_BLOCKS, WEFT_ERR_SCHED_BLOCKS (as for wait),
 * WEFT_ERR_BUSY (the caller is inside a task of this pair).
 * Context: the owner, as a ULT or the owning thread. */
WEFT_API int weft_pair_free(weft_pair *p);

#ifdef __cplusplus
}
#endif

#endif
