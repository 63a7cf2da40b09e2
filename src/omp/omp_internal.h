/* weft-omp: the OpenMP runtime (libgomp's ABI) over weft. Internal state
 * shared by the files of src/omp; nothing here is exported.
 *
 * The model ([LWT-PM] section 4; docs/design.md "weft-omp"):
 *   - every OpenMP thread of every team, at every nesting level, is a weft
 *     ULT (the primary thread of the outermost team is the program's own
 *     thread, the main ULT of the primary stream);
 *   - an explicit task is a closure queued in its team and run by a thread
 *     of the team on that thread's stack, at a task scheduling point (so a
 *     task sees the number of the thread that runs it, as OpenMP says);
 *   - every wait (barriers, locks, critical, ordered, taskwait) spins a
 *     little, letting other ULTs of the stream run, then parks the ULT on a
 *     weft condition: a stream never spins for a ULT that cannot go on.
 *
 * Layering: src/omp calls weft's public API (include/weft.h) only; from
 * below it takes one macro, WEFT_TLS (arch/tls.h). */
#ifndef WEFT_OMP_INTERNAL_H
#define WEFT_OMP_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../arch/tls.h"
#include "weft.h"

#define OMP_HIDDEN __attribute__((visibility("hidden")))
#define OMP_EXPORT __attribute__((visibility("default")))
#define OMP_CACHE_LINE 64
#define omp_likely(x) __builtin_expect(!!(x), 1)
#define omp_unlikely(x) __builtin_expect(!!(x), 0)

/* Debug invariants of the OpenMP layer's state transitions (counts that
 * never go below zero, the handshakes of a region's end, a lock given back
 * by its holder): built in with -DWEFT_ASSERTS=ON (the ASan and TSan
 * suites), where a broken one aborts with its place (weft's
 * weft_assert_fail, linked into this library); free otherwise. */
#ifdef WEFT_ASSERTS
OMP_HIDDEN __attribute__((noreturn, cold)) void weft_assert_fail(const char *what, const char *file, int line);
#define OMP_ASSERT(c) (__builtin_expect(!!(c), 1) ? (void)0 : weft_assert_fail(#c, __FILE__, __LINE__))
#else
#define OMP_ASSERT(c) ((void)sizeof(c))
#endif

/* ---------- internal control variables ---------- */

/* Schedule kinds, as omp_sched_t (omp.h) and as the `sched` argument of
 * GOMP_loop_start (where 0 means "runtime"). */
enum {
    OMP_SCHED_RUNTIME = 0,
    OMP_SCHED_STATIC = 1,
    OMP_SCHED_DYNAMIC = 2,
    OMP_SCHED_GUIDED = 3,
    OMP_SCHED_AUTO = 4,
};
#define OMP_SCHED_MONOTONIC ((int)0x80000000u) /* omp_sched_monotonic */

/* proc_bind values, as omp_proc_bind_t and GOMP_parallel's flags & 7. */
enum { OMP_BIND_FALSE = 0, OMP_BIND_TRUE = 1, OMP_BIND_PRIMARY = 2, OMP_BIND_CLOSE = 3, OMP_BIND_SPREAD = 4 };

/* The ICVs of a data environment: each task has its own copy, inherited
 * from the task that generated it (OpenMP 5.1 section 2.4). */
struct omp_icv {
    unsigned nthreads;        /* nthreads-var */
    int sched;                /* run-sched-var: OMP_SCHED_* with OMP_SCHED_MONOTONIC */
    int sched_chunk;          /* its chunk size, 0: default */
    int dyn;                  /* dyn-var */
    int bind;                 /* bind-var: OMP_BIND_* for the next parallel region */
    unsigned thread_limit;    /* thread-limit-var */
    int max_active_levels;    /* max-active-levels-var */
    int default_device;       /* default-device-var */
    uintptr_t def_allocator;  /* def-allocator-var (omp_allocator_handle_t) */
};

/* Process-wide settings, read from the environment once (env.c,
 * omp_env_init) before anything else runs; the settable ones change only
 * through their omp_set_* call. */
struct omp_global {
    struct omp_icv icv0;            /* the initial task's ICVs */
    unsigned *nthreads_list;        /* OMP_NUM_THREADS=a,b,c: [0] = a is icv0.nthreads; */
    int nthreads_list_len;          /*   a team at level L gets [L] if L < len */
    int *bind_list;                 /* OMP_PROC_BIND=a,b: likewise for bind-var */
    int bind_list_len;
    int cancel;                     /* cancel-var (OMP_CANCELLATION) */
    int max_task_priority;          /* max-task-priority-var */
    size_t stacksize;               /* stacksize-var: bytes of each OpenMP thread's stack */
    int wait_policy;                /* -1: not set, 0: passive, 1: active */
    long spin;                      /* checks a waiter makes before it parks (from the policy) */
    int display_affinity;           /* display-affinity-var */
    char *affinity_format;          /* affinity-format-var (omp_set_affinity_format) */
    int nteams;                     /* nteams-var (OMP_NUM_TEAMS), 0: not set */
    int teams_thread_limit;         /* teams-thread-limit-var, 0: not set */
    int target_offload;             /* 0 default, 1 mandatory, 2 disabled */
    int share_streams;              /* WEFT_OMP_SHARE_STREAMS: -1 auto, 0 false, 1 true (streams.c) */
    long rescue_ms;                 /* WEFT_OMP_RESCUE_MS: 0 off (rescue.c) */
    int num_procs;                  /* CPUs the process may use */
    int num_places;                 /* place-partition-var of the initial thread */
    int **place_procs;              /* [num_places][place_nprocs[i]]: OS CPU ids */
    int *place_nprocs;
};
extern struct omp_global omp_g OMP_HIDDEN;

/* env.c: fill omp_g from the environment (libgomp's names, values,
 * warnings and defaults). Called once, by omp_runtime_init. */
OMP_HIDDEN void omp_env_init(void);

/* ---------- streams (streams.c) ---------- */

/* First thing at start, before anything loads modules of its own: does
 * the program have thread-local variables (streams.c)? */
OMP_HIDDEN void omp_streams_probe(void);
/* After weft starts: binding to places, and whether OpenMP threads share
 * streams (WEFT_OMP_SHARE_STREAMS). */
OMP_HIDDEN void omp_streams_init(const weft_config *cfg);
/* Set in the child of a fork(), where weft gave up the parent's runtime
 * (weft.h): the child's first team starts weft again (team.c). */
extern _Atomic bool omp_forked OMP_HIDDEN;
/* In such a child, weft started again: the parent's streams forgotten. */
OMP_HIDDEN void omp_streams_restart(const weft_config *cfg);
/* Are the streams bound to the CPUs of the places? */
OMP_HIDDEN bool omp_streams_bound(void);
/* The rank of the stream for thread i of a new team in `place` (-1: none)
 * whose thread 0 runs on stream `first`, nested in an active team of
 * `outer` threads (0: not nested). With own streams the thread holds it
 * (*held) until omp_stream_release. */
OMP_HIDDEN int omp_stream_pick(int place, unsigned i, int first, unsigned outer, bool *held);
OMP_HIDDEN void omp_stream_release(int rank);
/* omp_pause_resource: with own streams, the streams no OpenMP thread holds
 * end (new ones are made as teams need them). */
OMP_HIDDEN void omp_streams_pause(void);
/* A stream no OpenMP thread holds, made beyond the CPUs' (a new one if
 * none is free), other than `avoid`; held as by omp_stream_pick. -1: no
 * memory for another. */
OMP_HIDDEN int omp_stream_take_spare(int avoid);
/* A thread was rescued (rescue.c): with WEFT_OMP_SHARE_STREAMS=auto, the
 * teams made from now on get a stream per thread. */
OMP_HIDDEN void omp_streams_rescued(void);
/* Is the module at `path` one of the C, C++ and Fortran runtimes (or the
 * loader, the vDSO, a sanitizer's runtime): code that is not the program's? */
OMP_HIDDEN bool omp_is_runtime_lib(const char *path);
#define OMP_MAX_STREAMS 1024

/* ---------- rescue (rescue.c) ---------- */

/* With shared streams: a watchdog that moves an OpenMP thread left ready
 * behind one that holds the stream for WEFT_OMP_RESCUE_MS (a spin on a
 * flag, or a call blocked in the kernel) to a stream of its own. Started
 * by the first team that puts two OpenMP threads on one stream. */
OMP_HIDDEN void omp_rescue_init(void);
OMP_HIDDEN void omp_rescue_arm_slow(void);
extern _Atomic bool omp_rescue_armed OMP_HIDDEN;
static inline void omp_rescue_arm(void)
{
    if (!atomic_load_explicit(&omp_rescue_armed, memory_order_relaxed)) omp_rescue_arm_slow();
}
/* The stream of the calling OS thread ran OpenMP code: it is not stuck,
 * and an OpenMP thread runs there (bit 0 of the beat clear). */
extern __thread _Atomic uint32_t *omp_t_beat OMP_HIDDEN __attribute__((tls_model("initial-exec")));
WEFT_TLS_ACCESSOR(omp_t_beat);
OMP_HIDDEN void omp_beat_slow(void);
static inline void omp_beat(void)
{
    _Atomic uint32_t *b = WEFT_TLS(omp_t_beat);
    if (omp_likely(b != NULL))
        atomic_store_explicit(b, (atomic_load_explicit(b, memory_order_relaxed) + 2) & ~1u, memory_order_relaxed);
    else
        omp_beat_slow();
}
/* The calling OpenMP thread is about to give up its stream (to park, or
 * to end): until OpenMP code runs there again (omp_beat), what holds the
 * stream is weft's scheduler, not a thread of the program (bit 0 set). */
static inline void omp_beat_away(void)
{
    _Atomic uint32_t *b = WEFT_TLS(omp_t_beat);
    if (b) atomic_store_explicit(b, atomic_load_explicit(b, memory_order_relaxed) | 1u, memory_order_relaxed);
}

/* Own streams, more of them held than the process has CPUs: the OS
 * multiplexes them, and a waiter that spins keeps a CPU from the thread
 * it waits for (wait.c spins less, as libgomp throttles its spin count). */
extern _Atomic bool omp_streams_crowded OMP_HIDDEN;

/* ---------- waiting ---------- */

/* A futex over any 32-bit word that works for ULTs and plain threads
 * alike (wait.c): omp_wait returns once *w != val (or spuriously: callers
 * re-check); omp_wake wakes every waiter on w after its value changed. */
OMP_HIDDEN void omp_wait(_Atomic uint32_t *w, uint32_t val);
OMP_HIDDEN void omp_wake(_Atomic uint32_t *w);
/* The same, for a word the caller changed by a seq_cst read-modify-write
 * (no fence needed: wait.c). */
OMP_HIDDEN void omp_wake_rmw(_Atomic uint32_t *w);
/* One step of a waiter's spin: lets the other ULTs of this stream run. */
OMP_HIDDEN void omp_relax(void);
/* Step i of a spin (counted any way): as omp_relax, and now and then the
 * OS thread yields its CPU too. */
OMP_HIDDEN void omp_relax_n(long i);

/* A cycle counter, read cheaply and without ordering (task.c times task
 * bodies with it): only differences on one thread mean anything, in units
 * that differ by machine (the TSC; the generic timer, coarser, on
 * aarch64). */
static inline uint64_t omp_cycles(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* A lock in one 32-bit word, for critical, atomic and the omp_lock_t of
 * omp.h (which has 4 bytes): 0 free; held: the holder's tag (wait.c), bit
 * 0 set when someone may wait. The uncontended take and give are inline
 * here (one compare-and-swap, one exchange); waiting and waking are in
 * wait.c. */
extern __thread uint32_t omp_t_tag OMP_HIDDEN __attribute__((tls_model("initial-exec")));
WEFT_TLS_ACCESSOR(omp_t_tag);
OMP_HIDDEN __attribute__((noinline)) uint32_t omp_word_tag_slow(void);
OMP_HIDDEN __attribute__((noinline)) void omp_word_lock_slow(_Atomic uint32_t *w, uint32_t me);
/* The calling OS thread's tag: its stream's rank + 1, or a plain thread's
 * number, shifted left once. */
static inline uint32_t omp_word_tag(void)
{
    uint32_t t = WEFT_TLS(omp_t_tag);
    return omp_likely(t != 0) ? t : omp_word_tag_slow();
}
static inline void omp_word_lock(_Atomic uint32_t *w)
{
    uint32_t me = omp_word_tag(), z = 0;
    if (omp_unlikely(
            !atomic_compare_exchange_strong_explicit(w, &z, me, memory_order_acquire, memory_order_relaxed)))
        omp_word_lock_slow(w, me);
}
static inline bool omp_word_trylock(_Atomic uint32_t *w)
{
    uint32_t z = 0;
    return atomic_compare_exchange_strong_explicit(w, &z, omp_word_tag(), memory_order_acquire,
                                                   memory_order_relaxed);
}
static inline void omp_word_unlock(_Atomic uint32_t *w)
{
    uint32_t was = atomic_exchange_explicit(w, 0, memory_order_seq_cst); /* (omp_wake_rmw) */
    OMP_ASSERT(was != 0); /* given back by its holder (lock.c leaves a free omp_lock_t alone) */
    if (omp_unlikely(was & 1)) omp_wake_rmw(w);
}

/* ---------- threads, tasks, teams ---------- */

struct omp_team;
struct omp_ws;

struct omp_taskgroup {
    struct omp_taskgroup *prev;     /* the enclosing taskgroup of the same task */
    _Atomic long pending;           /* tasks of the group not yet complete */
    _Atomic int cancelled;          /* cancel taskgroup: its tasks not yet started are discarded */
    /* Task reductions visible in it (taskred.c): gcc's descriptor of its
     * own task_reduction clause, or the enclosing one's; NULL if none. */
    uintptr_t *reductions;
    bool workshare;                 /* opened by a worksharing construct with reduction(task, ...) */
};

/* A task region: the implicit task of each thread in a team, or an
 * explicit task (GOMP_task). */
struct omp_task {
    /* Read by the thread that runs it, and by it when it makes children. */
    struct omp_task *parent;        /* the task that generated it (NULL: initial) */
    struct omp_taskgroup *group;    /* innermost taskgroup it belongs to */
    struct omp_taskgroup *taskgroup;/* innermost taskgroup it opened itself */
    struct omp_icv icv;
    uint8_t is_explicit;
    uint8_t final;                  /* a final task: its descendants are included */
    uint8_t undeferred;
    uint8_t pooled;                 /* its record is one of its creator's (task.c) */
    int priority;
    void (*fn)(void *);
    void *data;
    struct omp_task *next, *prev;   /* queue links (toward the tail, toward the head) */
    struct omp_team *team;          /* the team it was generated in (NULL: none) */
    /* Counts added ahead to the two below and not used yet (task.c): only
     * the thread running the task touches them. */
    long child_credit, ref_credit;
    /* Written by the threads that complete its children: a line of their
     * own in a record (64-byte aligned; task.c checks the offset), so that
     * making a child does not fetch it back. Not an aligned member: an
     * undeferred task's struct is on its thread's stack, which would have
     * to be realigned. */
    _Atomic long children;          /* child tasks not yet complete, + credit */
    _Atomic long refs;              /* explicit or undeferred: 1 while it runs + child records, + credit
                                     * (+ the dependence table's, depend.c) */
    struct omp_deps *deps;          /* made with a depend clause: its place in the graph (depend.c) */
    struct omp_dep_table *dtab;     /* its children's dependences (depend.c), NULL until the first */
    /* detach: 2 until both its body has ended and its event is fulfilled
     * (it completes at whichever comes last); 0 for other tasks. */
    _Atomic long detach_parts;
    uint8_t maker_refs;             /* refs set by its maker (task.c), not by the thread that runs it */
    uint8_t copied;                 /* its arguments were copy-constructed (cpyfn): it runs even when
                                     * cancelled, since its body destroys the copies (as libgomp) */
    _Atomic uint8_t event_owed;     /* discarded detached task, event still to come: 1; its record
                                     * kept for the event: 2 (task.c) */
};

/* A thread's queue of deferred tasks (task.c): it pushes and takes at the
 * head (newest first: depth first, the data still in cache), the other
 * threads of its team take at the tail (oldest first). */
struct omp_taskq {
    _Atomic uint32_t lock;
    _Atomic long n;                 /* tasks in it (changed under the lock) */
    struct omp_task *head, *tail;
    /* Nonzero while it holds tasks: what other threads read without the
     * lock. Written (under the lock) only when the queue turns empty or
     * not, so that threads looking for work do not pull the line the
     * owner writes with every push. */
    _Atomic long avail __attribute__((aligned(OMP_CACHE_LINE)));
};

#define OMP_TASK_COSTS 8 /* task functions whose cost a thread keeps (task.c) */

/* One OpenMP thread: a ULT of weft, or a plain OS thread that calls the
 * runtime (the program's own threads). Found through a weft key. */
struct omp_thread {
    struct omp_team *team;          /* innermost team, NULL outside any parallel region */
    unsigned num;                   /* thread number in team */
    struct omp_task *task;          /* the task region it is executing */
    struct omp_task implicit __attribute__((aligned(OMP_CACHE_LINE))); /* its implicit task in team (or its initial task) */
    unsigned long ws_count;         /* work-sharing regions of team it has entered */
    unsigned long single_count;     /* single constructs without copyprivate it has met (work.c) */
    struct omp_ws *ws;              /* the one it is in */
    unsigned long static_trip;      /* static schedule: chunks taken in ws */
    unsigned long chunk_lo, chunk_hi; /* ordered: iterations of its current chunk */
    int team_num, num_teams;        /* teams construct (host): its league, else 0 and 1 */
    int place, part_lo, part_n;     /* place and place partition (affinity.c) */
    struct omp_thread *saved;       /* thread 0 of a team: the encountering thread's state */
    struct omp_thread *base;        /* what the calling ULT's weft key holds: the struct it was
                                     * made with (an initial thread, a worker) */
    struct omp_thread *acting;      /* on a base: the thread it is now (thread 0 of a team; NULL:
                                     * itself), so that regions need not set the key (team.c) */
    struct omp_team *hot;           /* the team of its last parallel region, kept for the next */
    int stream;                     /* a worker: the rank of the stream its ULT runs on */
    bool holds;                     /* it holds that stream (own streams, or rescued) */
    bool idle;                      /* counted in its team's idle threads (task.c) */
    int locks_held;                 /* locks and critical regions it holds: its tasks are queued (task.c) */
    _Atomic unsigned idle_region;   /* a worker: the last region of its team it is done with,
                                     * | IDLE_HELPING or IDLE_CLOSED (team.c) */
    struct omp_taskq tq __attribute__((aligned(OMP_CACHE_LINE))); /* its deferred tasks */
    /* task records of one size (task.c): freed by itself, and by others */
    struct omp_task *rec_free;
    unsigned rec_n;
    long pending_credit;            /* added ahead to team->pending, not used yet (task.c) */
    /* records of another thread it freed, to go back to it in one push */
    struct omp_thread *rfree_owner;
    struct omp_task *rfree_head, *rfree_tail;
    unsigned rfree_n;
    /* what its tasks cost it (task.c, "what a task costs") */
    uint32_t cost_tick;             /* picks the samples and the exploring deferrals */
    struct omp_task_cost {
        void (*fn)(void *);         /* the task function (NULL: free slot) */
        uint32_t body;              /* its body's time, a running mean */
        uint32_t defer;             /* a deferral's cost, a running mean (0: not measured yet) */
        uint32_t samples;           /* of its body */
        bool maker;                 /* a run of fn made a task */
    } task_cost[OMP_TASK_COSTS];
    _Atomic(struct omp_task *) rec_remote __attribute__((aligned(OMP_CACHE_LINE)));
};

OMP_HIDDEN void omp_runtime_init(void);
/* Print "libgomp: <what>" and exit, as libgomp does when it cannot go on. */
OMP_HIDDEN __attribute__((noreturn)) void omp_fatal(const char *what);
/* The calling thread's state; made on first use for a plain thread.
 *
 * The weft key (team.c) is where it lives; omp_tls_self caches it for the
 * OS thread, for the OpenMP thread running there now. That is sound
 * because every call of weft that may switch to another ULT, or move the
 * caller to another stream, is made through wait.c, team.c or rescue.c,
 * which put the cache back when the caller resumes (omp_self_keep /
 * omp_self_restore); an OpenMP thread's ULT moves only there (private
 * pools, the main ULT bound). Read and written through WEFT_TLS, so that
 * the cache put back is the OS thread's the ULT resumed on. */
extern __thread struct omp_thread *omp_tls_self OMP_HIDDEN __attribute__((tls_model("initial-exec")));
WEFT_TLS_ACCESSOR(omp_tls_self);
OMP_HIDDEN __attribute__((noinline, cold)) struct omp_thread *omp_self_slow(void); /* first call on a thread */
static inline struct omp_thread *omp_self(void)
{
    struct omp_thread *t = WEFT_TLS(omp_tls_self);
    return omp_likely(t != NULL) ? t : omp_self_slow();
}
/* errno belongs to the OS thread; each OpenMP thread keeps its own across
 * a call that may switch ULTs (under libgomp each is an OS thread): read
 * before the call, put back after it. Through an out-of-line call (wait.c),
 * since the ULT may resume on another OS thread than the one whose errno
 * the compiler would otherwise reuse. */
OMP_HIDDEN int *omp_errno(void);
/* Around a call that may switch ULTs. */
static inline struct omp_thread *omp_self_keep(void) { return WEFT_TLS(omp_tls_self); }
static inline void omp_self_restore(struct omp_thread *t) { WEFT_TLS(omp_tls_self) = t; }
/* A lock or critical region taken / given back by the calling thread
 * (lock.c, sync.c): while it holds one, the tasks it makes are queued,
 * not run at once, as libgomp below its cut-off (task.c, defer). */
static inline void omp_held_take(void) { omp_self()->locks_held++; }
static inline void omp_held_give(void)
{
    struct omp_thread *t = omp_self();
    if (t->locks_held > 0) t->locks_held--;
}
/* The calling thread's current ICVs (its current task's). */
static inline struct omp_icv *omp_icv(void) { return &omp_self()->task->icv; }

/* Run fn(data) as a new initial thread (target regions on the host, the
 * teams of a league): a fresh contention group whose ICVs start from the
 * initial ones, with thread_limit when nonzero. */
OMP_HIDDEN void omp_run_initial(void (*fn)(void *), void *data, unsigned thread_limit, int team_num,
                                int num_teams);

/* ---------- teams ---------- */

#define OMP_WS_RING 8 /* work-sharing regions in flight per team (nowait lets threads run ahead) */

/* Work-sharing region state (work.c). */
struct omp_ws {
    _Atomic unsigned long seq;      /* number of the region that may use this slot */
    _Atomic uint32_t state;         /* 0 free, 1 being set up, 2 ready */
    _Atomic unsigned left;          /* threads that have left it */
    /* loops, normalised: iteration k is start + k * incr, k < n */
    int kind;                       /* OMP_SCHED_* (never runtime or auto) */
    bool ull;
    bool ordered;                   /* an ordered loop: chunks take turns (ordered_pos) */
    long chunk;
    unsigned long n;
    long start, end, incr;          /* signed loops */
    unsigned long long ustart, uend, uincr; /* unsigned long long loops */
    _Atomic unsigned long next __attribute__((aligned(OMP_CACHE_LINE))); /* dynamic/guided/sections */
    _Atomic unsigned long ordered_pos; /* ordered: the iteration whose chunk has the turn */
    _Atomic uint32_t ordered_event;
    _Atomic uint32_t single;        /* single: claimed */
    void *_Atomic copy;             /* single copyprivate: the data, once published */
    _Atomic uint32_t copy_event;
    void *mem;                      /* GOMP_loop_start's team buffer */
    uintptr_t red_base, red_end;    /* reduction(task, ...): the team's private copies (taskred.c) */
    /* doacross */
    unsigned ncounts;
    long *counts;                   /* trip count per dimension */
    unsigned long long *ucounts;
    _Atomic unsigned long *posted;  /* per outer iteration: inner iterations posted + 1 */
    _Atomic uint32_t doacross_event;
};

struct omp_team {
    unsigned nthreads;
    unsigned level;                 /* nesting level (1: outermost) */
    unsigned active_level;
    struct omp_team *parent;        /* the encountering thread's team */
    unsigned parent_num;            /* its number there */
    struct omp_thread **threads;    /* [nthreads], [0] the primary */
    void (*fn)(void *);
    void *data;
    weft_thread *units;             /* threads 1..n-1 */
    _Atomic uint32_t start_gen;     /* bumped to start the next region on the (hot) workers */
    unsigned region;                /* its regions so far, times REGION_STEP (thread 0's; workers
                                     * read it during one) */
    int dissolve;                   /* with the next start_gen: the workers leave */
    int bind;                       /* the proc_bind policy its threads were placed by */
    uintptr_t *task_reductions;     /* parallel reduction(task, ...): gcc's descriptor (taskred.c) */
    /* thread-limit-var counts the threads of a contention group (team.c):
     * kept in its level-0 team; a nested team notes what it added. */
    _Atomic unsigned long cg_busy;
    struct omp_team *cg_root;       /* the level-0 team it added cg_added to */
    unsigned long cg_added;
    /* omp_fulfill_event calls under way on its tasks (task.c): one from
     * outside the team touches it after the task is complete, so the team
     * is not freed until there are none (team.c, team_quiesce). */
    _Atomic int fulfilling;
    /* team barrier */
    _Atomic unsigned bar_arrived __attribute__((aligned(OMP_CACHE_LINE)));
    _Atomic uint32_t bar_gen;
    /* everything a waiter may wait for bumps this and wakes it */
    _Atomic uint32_t event __attribute__((aligned(OMP_CACHE_LINE)));
    _Atomic unsigned done;          /* threads whose implicit task returned */
    _Atomic int cancelled;          /* cancel parallel */
    _Atomic int ws_cancelled;       /* cancel for / sections: until the construct's barrier */
    /* explicit tasks: those with a priority, highest first (the others
     * are in their creators' queues, struct omp_taskq) */
    _Atomic uint32_t task_lock __attribute__((aligned(OMP_CACHE_LINE)));
    struct omp_task *queue_head, *queue_tail;
    _Atomic int desc_waiters;       /* threads waiting for their task's descendants (task.c) */
    /* Threads looking for any task and finding none (a barrier, the end of
     * the region): while there are some, makers queue their tasks for them
     * rather than run them at once (task.c). Read at every task made,
     * written only when a thread turns idle or busy: a line of its own,
     * with the count of the priority queue, read there too. */
    _Atomic int idle __attribute__((aligned(OMP_CACHE_LINE)));
    _Atomic long prio_queued;       /* tasks in the priority queue (queue_head) */
    /* explicit tasks of the team not yet complete, + the threads' credit:
     * written as tasks complete, away from what a task's maker reads */
    _Atomic long pending __attribute__((aligned(OMP_CACHE_LINE)));
    struct omp_ws ws[OMP_WS_RING];
    _Atomic unsigned long ws_hi;    /* work-sharing regions set up since the slots were reset (work.c) */
    /* single constructs without copyprivate claimed in the region: a line
     * of its own, one compare-and-swap per construct (work.c) */
    _Atomic unsigned long single_count __attribute__((aligned(OMP_CACHE_LINE)));
};

/* team.c */
OMP_HIDDEN void omp_team_event(struct omp_team *t); /* bump team->event and wake its waiters */
OMP_HIDDEN bool omp_team_barrier(struct omp_thread *thr, bool cancellable);
OMP_HIDDEN int omp_pause_host(void); /* omp_pause_resource on the host: 0, or -1 in a parallel region */

/* task.c */
/* Run one queued task of thr's team that thr may run now (any task when
 * `any`, else a descendant of thr's current task); false if none. */
OMP_HIDDEN bool omp_task_run_one(struct omp_thread *thr, bool any);
/* Free the task records thr keeps (its team is over). */
OMP_HIDDEN void omp_task_records_free(struct omp_thread *thr);
/* Before thr waits for its team's tasks (a barrier, the region's end):
 * what it counted ahead goes back, and the records it freed for others. */
OMP_HIDDEN void omp_tasks_flush(struct omp_thread *thr);
/* A task thr would make now is discarded: its region or taskgroup is
 * cancelled (only with OMP_CANCELLATION). */
OMP_HIDDEN bool omp_task_discarded(struct omp_thread *thr);
/* thr, looking for any task to run, found none (true), or stops looking
 * (false): counted in its team's idle threads meanwhile. */
OMP_HIDDEN void omp_task_idle(struct omp_thread *thr, bool idle);
/* Is any task of the team queued (possibly one thr may not run)? */
OMP_HIDDEN bool omp_tasks_queued(struct omp_team *team);
OMP_HIDDEN void omp_task_init_implicit(struct omp_task *t, struct omp_task *parent, struct omp_team *team);
/* The taskgroup a task generated now by `t` belongs to (also the one a
 * `cancel taskgroup` in `t` binds to). */
static inline struct omp_taskgroup *omp_task_group(const struct omp_task *t)
{
    return t->taskgroup ? t->taskgroup : t->group;
}

/* Is taskgroup g cancelled for the tasks in it? A worksharing
 * construct's own taskgroup (task reductions) is when the one around it is. */
static inline bool omp_group_cancelled(const struct omp_taskgroup *g)
{
    return g && (atomic_load_explicit(&g->cancelled, memory_order_acquire) ||
                 (g->workshare && g->prev && atomic_load_explicit(&g->prev->cancelled, memory_order_acquire)));
}
/* The taskgroup a `cancel taskgroup` in task t cancels: the innermost
 * one, passing over a worksharing construct's own. */
static inline struct omp_taskgroup *omp_cancel_group(const struct omp_task *t)
{
    struct omp_taskgroup *g = omp_task_group(t);
    return g && g->workshare && g->prev ? g->prev : g;
}

/* task.c: wait as an empty undeferred task with gcc's dependence array
 * `depend` would (GOMP_taskwait_depend); `serial`: mutexinoutset taken as
 * inout (target.c: the region runs after, outside the set's mutex). */
OMP_HIDDEN void omp_task_wait_depend(void **depend, bool serial);
/* target nowait: a deferred task of fn on a copy of data[0..size), after
 * the predecessors of depend (NULL: none); run here where no task can be
 * deferred (outside a region, in a final task). */
OMP_HIDDEN void omp_task_deferred(void (*fn)(void *), void *data, long size, long align, void **depend);
OMP_HIDDEN void omp_task_nothing(void *arg); /* a body that does nothing */
/* task.c: open a taskgroup in thr's current task (`workshare`: for a
 * worksharing construct's task reductions); wait for its tasks and close it. */
OMP_HIDDEN struct omp_taskgroup *omp_taskgroup_begin(struct omp_thread *thr, bool workshare);
OMP_HIDDEN void omp_taskgroup_finish(struct omp_thread *thr);
/* task.c, for taskloop.c: a task as GOMP_task makes it (if_clause, final
 * and priority as there, priority already clamped) whose copy of the
 * arguments gets `bounds` (bsize bytes) over its first bytes. */
OMP_HIDDEN void omp_task_loop_one(struct omp_thread *thr, void (*fn)(void *), void *data,
                                  void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause,
                                  bool final, int priority, const void *bounds, size_t bsize);

/* taskred.c: task reductions. gcc's descriptor of the reductions visible
 * to task t (in_reduction finds its private copies there), NULL if none. */
OMP_HIDDEN uintptr_t *omp_task_reductions(const struct omp_task *t);
/* Register gcc's descriptor `data` for a team of nthreads, the
 * registration `old` still visible behind it (NULL: none). */
OMP_HIDDEN void omp_reductions_register(uintptr_t *data, uintptr_t *old, unsigned nthreads);
/* A worksharing construct with reduction(task, ...) (`reductions` gcc's
 * descriptor, NULL: none): opens the construct's taskgroup and registers
 * them; the first thread in (`first`, ws not ready yet) makes the team's
 * copies, the others use those. */
OMP_HIDDEN void omp_ws_reductions(struct omp_thread *thr, struct omp_ws *ws, bool first, uintptr_t *reductions);

/* task.c, for depend.c */
OMP_HIDDEN void omp_task_enqueue(struct omp_thread *thr, struct omp_task *t); /* queue a ready task on thr's queue */
OMP_HIDDEN void omp_task_unref(struct omp_task *t, long n);

/* depend.c: dependences among the children of one task */
struct omp_deps;
struct omp_dep_table;
/* Bytes of a task's dependence state, which task.c allocates in the task's
 * record (t->deps points there before omp_depend_add). */
OMP_HIDDEN extern const size_t omp_deps_size;
/* Enter t, a child of `owner` being made, into owner's table with the
 * dependences of gcc's array `depend`; `undeferred`: its maker will run it. */
OMP_HIDDEN void omp_depend_add(struct omp_task *owner, struct omp_task *t, void **depend, bool undeferred,
                               bool serial);
/* t is made: true when no predecessor is left (then: omp_depend_ready, or run it when undeferred). */
OMP_HIDDEN bool omp_depend_made(struct omp_task *t);
OMP_HIDDEN _Atomic long *omp_depend_count(struct omp_task *t); /* its predecessors not complete */
/* A deferred task whose predecessors are complete: queued on thr's queue,
 * or parked until a mutexinoutset mutex it needs is free. */
OMP_HIDDEN void omp_depend_ready(struct omp_thread *thr, struct omp_task *t);
/* An undeferred task's maker takes its mutexes: false if one is taken. */
OMP_HIDDEN bool omp_depend_try_mutexes(struct omp_thread *thr, struct omp_task *t);
/* t completed: its mutexes go, its successors may be ready. */
OMP_HIDDEN void omp_depend_complete(struct omp_thread *thr, struct omp_task *t);
OMP_HIDDEN void omp_depend_free(struct omp_task *t); /* its record goes */
OMP_HIDDEN void omp_depend_table_clear(struct omp_task *owner); /* its children are all complete */
OMP_HIDDEN void omp_depend_table_free(struct omp_task *owner);  /* its body ended */

/* work.c */
OMP_HIDDEN void omp_ws_team_init(struct omp_team *t);
OMP_HIDDEN void omp_ws_team_fini(struct omp_team *t);
OMP_HIDDEN void omp_ws_team_reset(struct omp_team *t);
OMP_HIDDEN void omp_ws_note_setup(struct omp_team *t, unsigned long n); /* the n-th work-sharing region is set up */
/* A combined construct (parallel loop, parallel sections): its
 * work-sharing region is set up before the team starts, as the team's
 * first, and every thread of the team is already in it. */
typedef void (*omp_ws_setup_fn)(struct omp_ws *ws, unsigned nthreads, void *arg);

/* team.c: a parallel region whose first work-sharing region is set up by
 * setup(arg); with start_only, return after the start (GOMP_1.0 *_start:
 * the caller runs fn and calls GOMP_parallel_end). */
OMP_HIDDEN void omp_parallel_ws(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                                omp_ws_setup_fn setup, void *arg, bool start_only);

#endif
