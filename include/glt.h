/* GLT, the Generic Lightweight Threads API (version 2.5 names and
 * signatures), over weft. Every function is static inline over weft's
 * native calls: a GLT program pays (close to) nothing for the portability.
 *
 * GLT threads are weft execution streams (GLT_NUM_THREADS of them, default
 * one per core); ULTs and tasklets are weft work units. glt_ult_create and
 * glt_tasklet_create put the unit in the first pool of the calling
 * thread's main scheduler (help-first: the caller goes on); the _to
 * variants in that of thread dest (modulo the count). Each thread has a
 * pool of its own, private to it (weft's fastest kind); GLT_NUM_POOLS=k
 * gives k shared (MPMC) pools instead, thread i using pool i % k, as GLT's
 * Argobots backend does. GLT calls return nothing, so a weft error that
 * GLT cannot express (bad handle, misuse) prints the call and the error and
 * aborts, rather than be ignored. glt_init and glt_finalize nest: only the
 * outermost pair starts and stops weft (libgltpthread's constructor calls
 * glt_init before main). After fork() the child has no runtime (weft.h)
 * and so no GLT threads: it starts as before a first glt_init, whatever
 * the parent's count, and may call glt_init to get threads of its own;
 * the parent's unmatched glt_init calls may be matched by glt_finalize
 * calls that do nothing, and the parent's units are gone (do not join
 * them). Over OS threads (GLT_BACKEND_PTHREADS) the child keeps its count
 * and makes threads as the parent did.
 *
 * Where create and join cost no more than weft's own calls:
 *  - glt_ult_create and glt_tasklet_create are weft_thread_create_here and
 *    weft_tasklet_create_here: the unit goes to the first pool of the
 *    stream the caller runs on at the call (after a migration, the new
 *    one), whatever scheduler that stream runs now. From a plain thread,
 *    to thread 0's first pool.
 *  - glt_ult_join and glt_tasklet_join join the unit and release it in one
 *    pass (weft_thread_free); glt_ult_free and glt_tasklet_free then only
 *    clear the handle (or, for a unit never joined, join and release it).
 *    So between join and free the handle names no unit: read ids before
 *    the join, and do not free a copy of a joined handle. A second join of
 *    the same variable does nothing; any other call given a joined handle
 *    says so and aborts.
 *
 * Malleability: glt_thread_disable_id(id) takes thread `id` (0 ..
 * GLT_NUM_THREADS-1, its number at glt_init) out of the team, and
 * glt_thread_enable_id(id) puts it back; glt_thread_disable() and
 * glt_thread_enable() do so for the highest enabled and the lowest disabled
 * id. Thread 0 (the main ULT's) stays enabled. Thread numbers
 * (glt_get_thread_num, the dest of the _to calls, the ids given to the
 * scheduler calls and to glt_ult_migrate_self_to) count the enabled threads
 * in id order, 0 .. glt_get_num_threads()-1, as thread numbers in an OpenMP
 * team do: they are renumbered when the team changes, so per-thread arrays
 * sized by glt_get_num_threads() stay in range. A disabled thread takes no
 * new units: units queued on it before the call run there first, and every
 * unit that reaches it afterwards (woken from a wait, yielding, created
 * there) is moved to an enabled thread; with nothing to move, its stream
 * sleeps and uses no CPU. A call that races a team change may see the old
 * numbering. Enable and disable serialise with each other; call them from
 * a ULT or the main thread.
 *
 * Events (GLT's stream events, glt_event_add_callbac / _del_callback):
 * callbacks around team changes. GLT_EVENT_STOP_XSTREAM: before a thread
 * is disabled every registered ask callback is called with (its user arg,
 * the GLT_thread); if one answers GLT_FALSE the thread stays (the disable
 * call does nothing; glt_thread_disable() then tries the next lower id);
 * else the thread is disabled and every act callback is called alike.
 * GLT_EVENT_ADD_XSTREAM: when some ask callback is registered, an enable
 * asks them in turn with (user arg, the id as (void *)(intptr_t), -1 for
 * glt_thread_enable()); the first that answers GLT_TRUE has its act
 * callback called alike, and the thread is enabled when that answers
 * GLT_TRUE too; if none does, the enable does nothing. Callbacks run in the
 * caller of the enable or disable, under the team lock: they must not
 * change the team themselves (that aborts). glt_finalize re-enables threads
 * without asking. Up to 64 callbacks per kind.
 *
 * Schedulers (glt_scheduler_*, over weft's user-defined schedulers): a GLT
 * scheduler's pools are the first pools of the listed threads (repeats
 * dropped). Its run function takes units with weft_sched_get_pools,
 * weft_pool_pop and weft_sched_run_unit (GLT_sched is a weft_sched), asks
 * glt_scheduler_has_to_stop now and then (best before every pick: one
 * replaced as a stream's main scheduler goes on running units of its pools
 * until it asks, and GLT creations on that thread go to its old first pool
 * until then), and calls weft_sched_idle or weft_sched_check_events when it
 * found nothing (a stacked one must call weft_sched_check_events: it gives
 * the scheduler below its turn). Install one with
 * weft_xstream_set_main_sched from a ULT on that thread (pools private to
 * other threads cannot be attached: use GLT_NUM_POOLS for a scheduler over
 * several threads) or stack it with weft_pool_add_sched. GLT_SCHED_TYPE_ULT
 * schedulers, stacked, keep running (giving the stream back when idle)
 * until finished or told to exit; GLT_SCHED_TYPE_TASK ones and the
 * predefined ones stop when their pools run dry. finish: it stops once its
 * pools hold no ready or blocked unit (for a stream's main scheduler that
 * happens when the stream stops, at glt_finalize). exit: has_to_stop
 * answers 1 from now on; a stream's main scheduler cannot end before its
 * stream, so exit of one prints and aborts. Finish stacked ULT-type ones
 * before glt_finalize. glt_scheduler_get_total_size counts the blocked
 * units of its pools too (weft_pool_total_size).
 *
 * Compiled with -DGLT_BACKEND_PTHREADS, the same calls run over OS threads
 * instead (glt_backend_pthreads.h; define _GNU_SOURCE before any system
 * header), so one GLT program measures both; there the scheduler calls are
 * absent and glt_can_manage_scheduler answers 0, as in GLT's own pthreads
 * backend. GLT's pthreads API over ULTs (gpthread_*) is glt_pthreads.h
 * with libgltpthread. */
#ifndef WEFT_GLT_H
#define WEFT_GLT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------- what both backends share ---------- */

typedef int GLT_bool;
typedef int GLT_thread_id;

#define GLT_TRUE 1
#define GLT_FALSE 0
#define GLT_SUCCESS 0
#define GLT_NULL NULL

#define GLT_VERSION_STR2_(x) #x
#define GLT_VERSION_STR_(x) GLT_VERSION_STR2_(x)

/* Said where a GLT call exists in the API but not in this library. */
#define GLT_LIB_ERROR printf("glt: this call of the GLT API is not provided by this library\n")

/* Misuse that GLT has no way to report: say what, and stop. */
#define GLT_FAIL_(...)                                                           \
    do {                                                                         \
        fprintf(stderr, "glt: ");                                                \
        fprintf(stderr, __VA_ARGS__);                                            \
        fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                       \
        abort();                                                                 \
    } while (0)

/* A pointer argument the call writes or reads through must not be NULL. */
#define GLT_NONNULL_(p, call)                                       \
    do {                                                            \
        if (!(p)) GLT_FAIL_("%s: a NULL pointer was passed", call); \
    } while (0)

/* GLT has no library to load: nothing to set up or tear down (weft starts
 * in glt_init). */
static inline void glt_start(void) {}
static inline void glt_end(void) {}

/* ---------- the team of enabled threads (both backends) ---------- */

#define GLT_MAX_THREADS_ 4096

/* Shared by every file of the program (weak: one copy at link). Written
 * only under the backend's team lock; read without it (atomic loads), so a
 * reader during a change gets an old or new entry, always a valid id. */
struct glt_team_s_ {
    int total;                        /* threads started by glt_init */
    int n;                            /* enabled ones */
    int id_of[GLT_MAX_THREADS_];      /* thread number -> id */
    int num_of[GLT_MAX_THREADS_];     /* id -> thread number, -1: disabled */
};
__attribute__((weak)) struct glt_team_s_ glt_team_;
/* glt_init calls not yet matched by glt_finalize. */
__attribute__((weak)) int glt_init_depth_;
/* Weft backend: 1 once glt_init has set its pthread_atfork handler; in a
 * child of fork(), the glt_init calls of the parent not yet matched. */
__attribute__((weak)) int glt_atfork_set_;
__attribute__((weak)) int glt_forked_depth_;
static inline void glt_team_init_(int total)
{
    if (total > GLT_MAX_THREADS_) total = GLT_MAX_THREADS_;
    glt_team_.total = total;
    for (int i = 0; i < total; i++) glt_team_.id_of[i] = glt_team_.num_of[i] = i;
    __atomic_store_n(&glt_team_.n, total, __ATOMIC_RELEASE);
}

static inline int glt_team_size_(void)
{
    int n = __atomic_load_n(&glt_team_.n, __ATOMIC_ACQUIRE);
    return n > 0 ? n : 1;
}

/* The id of thread number `num`, taken modulo the enabled count. */
static inline int glt_team_id_(int num)
{
    int n = glt_team_size_();
    return __atomic_load_n(&glt_team_.id_of[((num % n) + n) % n], __ATOMIC_RELAXED);
}

/* The thread number of thread `id`, -1 when it is disabled. */
static inline int glt_team_num_(int id)
{
    if (id < 0 || id >= glt_team_.total) return -1;
    return __atomic_load_n(&glt_team_.num_of[id], __ATOMIC_RELAXED);
}

static inline int glt_team_enabled_(int id) { return glt_team_num_(id) >= 0; }

/* The enabled thread a unit on disabled thread `id` counts as: the nearest
 * enabled id below (thread 0 always is). */
static inline int glt_team_num_near_(int id)
{
    for (int i = id; i > 0; i--)
        if (glt_team_num_(i) >= 0) return glt_team_num_(i);
    return 0;
}

/* Enable or disable `id` and renumber; the caller holds the team lock. */
static inline void glt_team_set_(int id, int on)
{
    __atomic_store_n(&glt_team_.num_of[id], on ? 0 : -1, __ATOMIC_RELAXED);
    int n = 0;
    for (int i = 0; i < glt_team_.total; i++) {
        if (__atomic_load_n(&glt_team_.num_of[i], __ATOMIC_RELAXED) < 0) continue;
        __atomic_store_n(&glt_team_.id_of[n], i, __ATOMIC_RELAXED);
        __atomic_store_n(&glt_team_.num_of[i], n, __ATOMIC_RELAXED);
        n++;
    }
    __atomic_store_n(&glt_team_.n, n, __ATOMIC_RELEASE);
}

/* The lowest disabled id (-1: none is disabled). */
static inline int glt_team_first_disabled_(void)
{
    for (int i = 1; i < glt_team_.total; i++)
        if (!glt_team_enabled_(i)) return i;
    return -1;
}

/* ---------- events: callbacks around team changes (both backends) ---------- */

typedef enum {
    GLT_EVENT_STOP_XSTREAM = 0, /* a thread is to be taken out of the team */
    GLT_EVENT_ADD_XSTREAM = 1,  /* a thread is to be put (back) into it */
} GLT_event_kind;

/* user_arg: as registered; glt_arg: the GLT_thread (stop) or the thread
 * id, -1 for any (add). */
typedef GLT_bool (*GLT_event_cb_fn)(void *user_arg, void *glt_arg);

#define GLT_EVENT_MAX_CB_ 64
struct glt_event_cb_s_ {
    int used;
    GLT_event_cb_fn ask, act;
    void *ask_arg, *act_arg;
};
/* Per kind; changed and read under the backend's team lock. */
__attribute__((weak)) struct glt_event_cb_s_ glt_event_cb_[2][GLT_EVENT_MAX_CB_];

/* May thread `id`, whose GLT_thread is `th`, be disabled? Then the caller
 * disables it and calls glt_event_stop_done_. */
static inline int glt_event_stop_ask_(void *th)
{
    for (int i = 0; i < GLT_EVENT_MAX_CB_; i++) {
        struct glt_event_cb_s_ *c = &glt_event_cb_[GLT_EVENT_STOP_XSTREAM][i];
        if (c->used && c->ask && c->ask(c->ask_arg, th) == GLT_FALSE) return 0;
    }
    return 1;
}

static inline void glt_event_stop_done_(void *th)
{
    for (int i = 0; i < GLT_EVENT_MAX_CB_; i++) {
        struct glt_event_cb_s_ *c = &glt_event_cb_[GLT_EVENT_STOP_XSTREAM][i];
        if (c->used && c->act) c->act(c->act_arg, th);
    }
}

/* May a thread be enabled (target: its id, -1 for any)? With no ask
 * callback registered, yes; else the first ask and act that both agree. */
static inline int glt_event_add_ask_(int target)
{
    int asked = 0;
    void *arg = (void *)(intptr_t)target;
    for (int i = 0; i < GLT_EVENT_MAX_CB_; i++) {
        struct glt_event_cb_s_ *c = &glt_event_cb_[GLT_EVENT_ADD_XSTREAM][i];
        if (!c->used || !c->ask) continue;
        asked = 1;
        if (c->ask(c->ask_arg, arg) == GLT_TRUE && c->act && c->act(c->act_arg, arg) == GLT_TRUE) return 1;
    }
    return !asked;
}

static inline void glt_team_lock_acquire_(void);
static inline void glt_team_lock_release_(void);

static inline void glt_event_add_callbac(GLT_event_kind event, GLT_event_cb_fn ask_cb, void *ask_user_arg,
                                         GLT_event_cb_fn act_cb, void *act_user_arg, int *cb_id)
{
    if ((int)event != GLT_EVENT_STOP_XSTREAM && (int)event != GLT_EVENT_ADD_XSTREAM)
        GLT_FAIL_("glt_event_add_callbac: unknown event kind %d", (int)event);
    if (!cb_id) GLT_FAIL_("glt_event_add_callbac: NULL cb_id");
    glt_team_lock_acquire_();
    int id = -1;
    for (int i = 0; i < GLT_EVENT_MAX_CB_ && id < 0; i++) {
        struct glt_event_cb_s_ *c = &glt_event_cb_[event][i];
        if (c->used) continue;
        c->ask = ask_cb;
        c->ask_arg = ask_user_arg;
        c->act = act_cb;
        c->act_arg = act_user_arg;
        c->used = 1;
        id = i;
    }
    glt_team_lock_release_();
    if (id < 0) GLT_FAIL_("glt_event_add_callbac: more than %d callbacks of one kind", GLT_EVENT_MAX_CB_);
    *cb_id = id;
}

static inline void glt_event_del_callback(GLT_event_kind event, int cb_id)
{
    if ((int)event != GLT_EVENT_STOP_XSTREAM && (int)event != GLT_EVENT_ADD_XSTREAM)
        GLT_FAIL_("glt_event_del_callback: unknown event kind %d", (int)event);
    glt_team_lock_acquire_();
    int ok = cb_id >= 0 && cb_id < GLT_EVENT_MAX_CB_ && glt_event_cb_[event][cb_id].used;
    if (ok) memset(&glt_event_cb_[event][cb_id], 0, sizeof glt_event_cb_[event][cb_id]);
    glt_team_lock_release_();
    if (!ok) GLT_FAIL_("glt_event_del_callback: no callback %d of kind %d", cb_id, (int)event);
}

#ifdef __cplusplus
}
#endif

#ifdef GLT_BACKEND_PTHREADS
#include "glt_backend_pthreads.h"
#else

#include <pthread.h>

#include "weft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef weft_thread GLT_ult;
typedef weft_thread GLT_tasklet;
typedef weft_xstream GLT_thread;
typedef weft_mutex GLT_mutex;
typedef weft_barrier GLT_barrier;
typedef weft_cond GLT_cond;
typedef weft_key GLT_key;
typedef weft_eventual GLT_future;
typedef uint64_t GLT_ult_id;
typedef struct glt_timer {
    uint64_t start, elapsed; /* weft_time_ns() */
} *GLT_timer;

/* What a pool holds when it is empty (weft_pool_pop). */
#define GLT_UNIT_NULL WEFT_THREAD_NULL
#define GLT_VERSION                                                                                 \
    "GLT 2.5 API over weft " GLT_VERSION_STR_(WEFT_VERSION_MAJOR) "." GLT_VERSION_STR_(WEFT_VERSION_MINOR)

/* A weft call GLT has no way to report: say which, and stop. */
/* A weft return code `rc` of the call named `what`, already in hand. */
#define GLT_CHECK_RC_(rc, what)                                                                             \
    do {                                                                                                    \
        if ((rc) != WEFT_OK) {                                                                              \
            fprintf(stderr, "glt: %s failed: %s (%s:%d)\n", what, weft_strerror(rc), __FILE__, __LINE__);   \
            abort();                                                                                        \
        }                                                                                                   \
    } while (0)

#define GLT_CALL(call)                                                                              \
    do {                                                                                            \
        int glt_rc_ = (call);                                                                       \
        if (glt_rc_ != WEFT_OK) {                                                                   \
            fprintf(stderr, "glt: %s failed: %s (%s:%d)\n", #call, weft_strerror(glt_rc_), __FILE__, \
                    __LINE__);                                                                      \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

/* A handle after glt_ult_join / glt_tasklet_join: the unit is released. */
#define GLT_JOINED_ ((weft_thread)(uintptr_t)1)
#define GLT_LIVE_(u, call)                                                                    \
    do {                                                                                      \
        if ((u) == GLT_JOINED_) GLT_FAIL_("%s: the unit was joined (and so released)", call); \
    } while (0)

/* Serialises team changes and event registration (weak: one copy at link). */
__attribute__((weak)) weft_mutex glt_team_lock_;
/* Per thread id: the main scheduler a disabled thread had, to put back. */
__attribute__((weak)) weft_sched glt_saved_sched_[GLT_MAX_THREADS_];

static inline void glt_team_lock_acquire_(void) { GLT_CALL(weft_mutex_lock(glt_team_lock_)); }
static inline void glt_team_lock_release_(void) { GLT_CALL(weft_mutex_unlock(glt_team_lock_)); }

/* GLT's view of the team (glt_get_team), filled by glt_init. */
typedef struct glt_team {
    GLT_thread master;  /* the main ULT's thread (thread 0) */
    GLT_thread *team;   /* thread id -> its stream */
    int num_xstreams;   /* threads started by glt_init */
    int num_pools;      /* GLT_NUM_POOLS, or one per thread */
    weft_pool *pools;   /* pools[0 .. num_pools-1]; thread i starts with pools[i % num_pools] */
    weft_pool *spools;  /* NULL: no second pool set (GLT's OpenMP mode) */
    weft_sched *sched;  /* NULL: threads keep weft's basic schedulers */
    int max_elem;       /* processors online */
    int glto;           /* 0: the GLT layout */
} glt_team_t;
__attribute__((weak)) glt_team_t glt_team_obj_;

static inline glt_team_t *glt_get_team(void) { return glt_init_depth_ > 0 ? &glt_team_obj_ : NULL; }

/* ---------- where units go: each thread's first pool ---------- */

/* The first pool of thread id's main scheduler. Written by glt_init and,
 * on its own stream, by each GLT scheduler when it starts or stops running
 * (a stream's main scheduler is changed on that stream only, so that
 * stream reads it without a race); read by anyone. */
__attribute__((weak)) weft_pool glt_pool_tab_[GLT_MAX_THREADS_];

static inline weft_pool glt_pool_of_xs_(weft_xstream xs)
{
    weft_pool p;
    int n = 0;
    GLT_CALL(weft_xstream_get_pools(xs, 1, &p, &n));
    return p;
}

/* The first pool of thread `id` (its number at glt_init). */
static inline weft_pool glt_pool_of_id_(int id) { return __atomic_load_n(&glt_pool_tab_[id], __ATOMIC_ACQUIRE); }

/* From a unit or scheduler of a stream: record its stream's first pool. */
static inline void glt_pool_tab_update_self_(void)
{
    weft_xstream xs;
    int id = 0;
    GLT_CALL(weft_xstream_self(&xs));
    GLT_CALL(weft_xstream_rank(xs, &id));
    if (id < GLT_MAX_THREADS_) __atomic_store_n(&glt_pool_tab_[id], glt_pool_of_xs_(xs), __ATOMIC_RELEASE);
}

/* ---------- setup ---------- */

/* With GLT_NUM_POOLS, per thread id: a private pool only its stream serves
 * (second pool of its scheduler), for what must run on that stream (the
 * shared first pool would let any stream take it); NULL without. */
__attribute__((weak)) weft_pool glt_direct_pool_[GLT_MAX_THREADS_];
/* With GLT_NUM_POOLS, per thread id: 1 while a GLT scheduler is its main
 * one (it has no direct pool: the thread cannot be enabled or disabled). */
__attribute__((weak)) int glt_own_sched_[GLT_MAX_THREADS_];

/* Runs fn(arg) on stream `id`: directly when the caller runs there, else in
 * a ULT placed there, joined. */
static inline void glt_run_on_(int id, void (*fn)(void *), void *arg)
{
    weft_xstream xs, self;
    GLT_CALL(weft_xstream_get(id, &xs));
    if (weft_xstream_self(&self) == WEFT_OK && self == xs) {
        fn(arg);
        return;
    }
    weft_thread u;
    weft_pool direct = __atomic_load_n(&glt_direct_pool_[id], __ATOMIC_ACQUIRE);
    if (direct) GLT_CALL(weft_thread_create(direct, fn, arg, NULL, &u));
    else GLT_CALL(weft_thread_create_to(xs, fn, arg, NULL, &u));
    GLT_CALL(weft_thread_free(&u));
}

/* Stream (arg) takes pools[id % num_pools] as its first pool, and a direct
 * pool of its own second. (Kept until the process ends: weft_finalize stops
 * the stream, the handles stay.) */
static inline void glt_share_pool_(void *arg)
{
    int id = (int)(intptr_t)arg;
    weft_xstream xs;
    weft_sched s;
    weft_pool p[2] = {glt_team_obj_.pools[id % glt_team_obj_.num_pools], WEFT_POOL_NULL};
    GLT_CALL(weft_xstream_self(&xs));
    GLT_CALL(weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, &p[1]));
    GLT_CALL(weft_sched_create_basic(2, p, &s));
    GLT_CALL(weft_xstream_set_main_sched(xs, s));
    __atomic_store_n(&glt_direct_pool_[id], p[1], __ATOMIC_RELEASE);
}

/* The team of threads forgotten, once weft has stopped (or, in a child of
 * fork(), was never there): no handle of it is left behind. */
static inline void glt_team_clear_(void)
{
    glt_init_depth_ = 0;
    __atomic_store_n(&glt_team_.n, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < glt_team_.total; i++) {
        __atomic_store_n(&glt_pool_tab_[i], WEFT_POOL_NULL, __ATOMIC_RELEASE);
        __atomic_store_n(&glt_direct_pool_[i], WEFT_POOL_NULL, __ATOMIC_RELEASE);
        glt_own_sched_[i] = 0;
        glt_saved_sched_[i] = WEFT_SCHED_NULL;
    }
    glt_team_.total = 0;
    glt_team_lock_ = NULL;
    free(glt_team_obj_.team);
    free(glt_team_obj_.pools);
    memset(&glt_team_obj_, 0, sizeof glt_team_obj_);
}

/* pthread_atfork's child handler (glt_init sets it once per process). The
 * team's lock stays behind: another thread of the parent may have held it
 * at the fork. */
static inline void glt_after_fork_child_(void)
{
    if (glt_init_depth_ <= 0) return;
    glt_forked_depth_ += glt_init_depth_;
    glt_team_clear_();
}

/* Start weft with GLT_NUM_THREADS streams (default: one per core), each
 * with a private pool of its own, or with GLT_NUM_POOLS=k shared ones.
 * Called again before glt_finalize: only counted. */
static inline void glt_init(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    if (glt_init_depth_++ > 0) return;
    if (!__atomic_exchange_n(&glt_atfork_set_, 1, __ATOMIC_ACQ_REL) &&
        pthread_atfork(NULL, NULL, glt_after_fork_child_) != 0)
        GLT_CALL(WEFT_ERR_NOMEM);
    weft_config cfg;
    GLT_CALL(weft_config_init(&cfg));
    const char *n = getenv("GLT_NUM_THREADS");
    if (n && atoi(n) > 0) cfg.num_xstreams = atoi(n) < GLT_MAX_THREADS_ ? atoi(n) : GLT_MAX_THREADS_;
    const char *np = getenv("GLT_NUM_POOLS");
    int npools = np && atoi(np) > 0 ? atoi(np) : 0;
    if (npools) cfg.pool_access = WEFT_POOL_ACCESS_MPMC;
    GLT_CALL(weft_init(&cfg));
    int total = 1;
    GLT_CALL(weft_xstream_count(&total));
    if (total > GLT_MAX_THREADS_) total = GLT_MAX_THREADS_;
    if (!npools || npools > total) npools = total;
    glt_team_t *t = &glt_team_obj_;
    memset(t, 0, sizeof *t);
    t->team = (GLT_thread *)calloc((size_t)total, sizeof *t->team);
    t->pools = (weft_pool *)calloc((size_t)total, sizeof *t->pools);
    if (!t->team || !t->pools) GLT_CALL(WEFT_ERR_NOMEM);
    for (int i = 0; i < total; i++) {
        GLT_CALL(weft_xstream_get(i, &t->team[i]));
        t->pools[i] = glt_pool_of_xs_(t->team[i]);
    }
    t->master = t->team[0];
    t->num_xstreams = total;
    t->num_pools = npools;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    t->max_elem = cpus > 0 ? (int)cpus : 1;
    if (np && atoi(np) > 0)
        for (int i = 0; i < total; i++) glt_run_on_(i, glt_share_pool_, (void *)(intptr_t)i);
    for (int i = 0; i < total; i++) __atomic_store_n(&glt_pool_tab_[i], t->pools[i % npools], __ATOMIC_RELEASE);
    for (int i = npools; i < total; i++) t->pools[i] = WEFT_POOL_NULL;
    glt_team_init_(total);
    GLT_CALL(weft_mutex_create(NULL, &glt_team_lock_));
}

static inline void glt_team_force_enable_(void);

/* Enables every disabled thread (without asking event callbacks), then
 * stops weft. Matches one glt_init; the last one stops weft. In a child
 * of fork() that has not called glt_init, nothing to stop. */
static inline void glt_finalize(void)
{
    if (glt_init_depth_ <= 0 && glt_forked_depth_ > 0) {
        glt_forked_depth_--; /* the parent's: its threads are not here */
        return;
    }
    if (glt_init_depth_ <= 0) GLT_FAIL_("glt_finalize without glt_init");
    if (--glt_init_depth_ > 0) return;
    glt_team_force_enable_();
    GLT_CALL(weft_mutex_free(&glt_team_lock_));
    GLT_CALL(weft_finalize());
    glt_team_clear_();
}


/* ---------- threads (execution streams) ---------- */

/* The number of enabled threads. */
static inline int glt_get_num_threads(void) { return glt_team_size_(); }

/* The stream of thread number `num` (modulo the enabled count). */
static inline weft_xstream glt_thread_of_(int num)
{
    weft_xstream xs;
    GLT_CALL(weft_xstream_get(glt_team_id_(num), &xs));
    return xs;
}

/* The caller's thread (thread 0 for a plain OS thread). */
static inline weft_xstream glt_here_(void)
{
    weft_xstream xs;
    if (weft_xstream_self(&xs) != WEFT_OK) GLT_CALL(weft_xstream_get(0, &xs));
    return xs;
}

/* The calling unit's thread number; 0 outside weft (a plain OS thread). A
 * ULT on a disabled thread first yields until it has been moved off it. */
static inline int glt_get_thread_num(void)
{
    weft_xstream xs;
    int id = 0;
    for (;;) {
        if (weft_xstream_self(&xs) != WEFT_OK) return 0;
        GLT_CALL(weft_xstream_rank(xs, &id));
        int num = glt_team_num_(id);
        if (num >= 0) return num;
        if (weft_yield() != WEFT_OK) return glt_team_num_near_(id); /* a tasklet stays */
    }
}

/* ---------- work units ---------- */

static inline GLT_ult *glt_ult_malloc(int n) { return (GLT_ult *)malloc(sizeof(GLT_ult) * (size_t)n); }
static inline GLT_tasklet *glt_tasklet_malloc(int n)
{
    return (GLT_tasklet *)malloc(sizeof(GLT_tasklet) * (size_t)n);
}

/* Creation on the caller's own thread: weft_*_create_here finds the
 * stream's first pool itself. A plain thread counts as thread 0. */
static __attribute__((noinline, cold, unused)) void glt_create_other_(int rc, int ult, void (*f)(void *), void *arg,
                                                                    weft_thread *u)
{
    if (rc != WEFT_ERR_NOT_WEFT) {
        fprintf(stderr, "glt: glt_%s_create failed: %s\n", ult ? "ult" : "tasklet", weft_strerror(rc));
        abort();
    }
    if (glt_init_depth_ <= 0) GLT_FAIL_("a GLT call before glt_init or after glt_finalize");
    if (ult) GLT_CALL(weft_thread_create(glt_pool_of_id_(0), f, arg, NULL, u));
    else GLT_CALL(weft_tasklet_create(glt_pool_of_id_(0), f, arg, u));
}

static inline void glt_ult_create(void (*f)(void *), void *arg, GLT_ult *u)
{
    int rc = weft_thread_create_here(f, arg, NULL, u);
    if (__builtin_expect(rc != WEFT_OK, 0)) glt_create_other_(rc, 1, f, arg, u);
}

static inline void glt_ult_create_to(void (*f)(void *), void *arg, GLT_ult *u, int dest)
{
    GLT_CALL(weft_thread_create(glt_pool_of_id_(glt_team_id_(dest)), f, arg, NULL, u));
}

static inline void glt_tasklet_create(void (*f)(void *), void *arg, GLT_tasklet *t)
{
    int rc = weft_tasklet_create_here(f, arg, t);
    if (__builtin_expect(rc != WEFT_OK, 0)) glt_create_other_(rc, 0, f, arg, t);
}

static inline void glt_tasklet_create_to(void (*f)(void *), void *arg, GLT_tasklet *t, int dest)
{
    GLT_CALL(weft_tasklet_create(glt_pool_of_id_(glt_team_id_(dest)), f, arg, t));
}

/* The names of GLT before its 2.5 API (programs written for it, e.g. the
 * authors' N-Queens and UTS ports, still use them): the same calls. */
#define glt_ult_creation glt_ult_create
#define glt_ult_creation_to glt_ult_create_to
#define glt_tasklet_creation glt_tasklet_create
#define glt_tasklet_creation_to glt_tasklet_create_to

/* From the main ULT too: queued units of its thread run meanwhile. */
static inline void glt_yield(void)
{
    int rc = weft_yield();
    if (rc != WEFT_ERR_NOT_WEFT) GLT_CHECK_RC_(rc, "glt_yield (weft_yield)");
}

/* To `u` when it waits on the caller's thread; else an ordinary yield. */
static inline void glt_yield_to(GLT_ult u)
{
    GLT_LIVE_(u, "glt_yield_to");
    if (weft_yield_to(u) != WEFT_OK) glt_yield();
}

/* Join and release in one pass; the handle becomes a joined one (see the
 * top of this file). */
static inline void glt_ult_join(GLT_ult *u)
{
    GLT_NONNULL_(u, "glt_ult_join");
    if (*u == GLT_JOINED_) return;
    GLT_CALL(weft_thread_free(u));
    *u = GLT_JOINED_;
}

static inline void glt_tasklet_join(GLT_tasklet *t) { glt_ult_join(t); }

/* A joined handle is cleared; any other is joined and released. */
static inline void glt_ult_free(GLT_ult *u)
{
    GLT_NONNULL_(u, "glt_ult_free");
    if (*u == GLT_JOINED_) {
        *u = NULL;
        return;
    }
    GLT_CALL(weft_thread_free(u));
}

static inline void glt_tasklet_free(GLT_tasklet *t) { glt_ult_free(t); }

static inline void glt_ult_get_id(GLT_ult_id *id, GLT_ult u)
{
    GLT_LIVE_(u, "glt_ult_get_id");
    GLT_CALL(weft_thread_id(u, id));
}

static inline void glt_workunit_get_thread_id(GLT_thread_id *id) { *id = glt_get_thread_num(); }

/* The calling ULT continues on thread `id`. */
static inline void glt_ult_migrate_self_to(GLT_thread_id id)
{
    weft_thread self;
    GLT_CALL(weft_self(&self));
    weft_xstream to = glt_thread_of_(id);
    if (to != glt_here_()) GLT_CALL(weft_thread_migrate_to_xstream(self, to));
}

static inline void glt_ult_self(GLT_ult *u) { GLT_CALL(weft_self(u)); }
static inline void glt_tasklet_self(GLT_tasklet *t) { GLT_CALL(weft_self(t)); }

/* Cancel a unit that has not started and waits where the caller may take it
 * from; a unit that already runs (or ran) is not affected. */
static inline void glt_ult_cancel(GLT_ult u)
{
    GLT_LIVE_(u, "glt_ult_cancel");
    int rc = weft_thread_cancel(u);
    if (rc != WEFT_ERR_STATE && rc != WEFT_ERR_POOL_ACCESS) GLT_CHECK_RC_(rc, "glt_ult_cancel (weft_thread_cancel)");
}

static inline void glt_tasklet_cancel(GLT_tasklet t) { glt_ult_cancel(t); }

static inline void glt_ult_exit(void) { GLT_CALL(weft_thread_exit()); }

/* ---------- mutex, barrier, condition ---------- */

static inline void glt_mutex_create(GLT_mutex *m) { GLT_CALL(weft_mutex_create(NULL, m)); }
static inline void glt_mutex_free(GLT_mutex *m) { GLT_CALL(weft_mutex_free(m)); }
static inline void glt_mutex_lock(GLT_mutex m) { GLT_CALL(weft_mutex_lock(m)); }
static inline void glt_mutex_unlock(GLT_mutex m) { GLT_CALL(weft_mutex_unlock(m)); }

/* 1 if the mutex was taken, else 0. */
static inline int glt_mutex_trylock(GLT_mutex m)
{
    int rc = weft_mutex_trylock(m);
    if (rc == WEFT_ERR_BUSY) return 0;
    GLT_CHECK_RC_(rc, "glt_mutex_trylock (weft_mutex_trylock)");
    return 1;
}

/* Take it by spinning, never parking; yields now and then so that a holder
 * on the same thread can run and let go. */
static inline void glt_mutex_spinlock(GLT_mutex m)
{
    for (unsigned i = 1; !glt_mutex_trylock(m); i++)
        if (i % 64 == 0) glt_yield();
}

static inline void glt_barrier_create(int n, GLT_barrier *b) { GLT_CALL(weft_barrier_create(n, b)); }
static inline void glt_barrier_free(GLT_barrier *b) { GLT_CALL(weft_barrier_free(b)); }
static inline void glt_barrier_wait(GLT_barrier *b)
{
    GLT_NONNULL_(b, "glt_barrier_wait");
    GLT_CALL(weft_barrier_wait(*b));
}

static inline void glt_cond_create(GLT_cond *c) { GLT_CALL(weft_cond_create(c)); }
static inline void glt_cond_free(GLT_cond *c) { GLT_CALL(weft_cond_free(c)); }
static inline void glt_cond_signal(GLT_cond c) { GLT_CALL(weft_cond_signal(c)); }
static inline void glt_cond_broadcast(GLT_cond c) { GLT_CALL(weft_cond_broadcast(c)); }
static inline void glt_cond_wait(GLT_cond c, GLT_mutex m) { GLT_CALL(weft_cond_wait(c, m)); }

/* ---------- time ---------- */

static inline double glt_get_wtime(void) { return (double)weft_time_ns() * 1e-9; }

static inline void glt_timer_create(GLT_timer *t)
{
    GLT_NONNULL_(t, "glt_timer_create");
    *t = (GLT_timer)calloc(1, sizeof **t);
    if (!*t) GLT_CALL(WEFT_ERR_NOMEM);
}

static inline void glt_timer_free(GLT_timer *t)
{
    GLT_NONNULL_(t, "glt_timer_free");
    free(*t);
    *t = NULL;
}

static inline void glt_timer_start(GLT_timer t)
{
    GLT_NONNULL_(t, "glt_timer_start");
    t->start = weft_time_ns();
}

static inline void glt_timer_stop(GLT_timer t)
{
    GLT_NONNULL_(t, "glt_timer_stop");
    t->elapsed = weft_time_ns() - t->start;
}

/* Seconds between the last start and the stop after it. */
static inline void glt_timer_get_secs(GLT_timer t, double *secs)
{
    GLT_NONNULL_(t, "glt_timer_get_secs");
    GLT_NONNULL_(secs, "glt_timer_get_secs");
    *secs = (double)t->elapsed * 1e-9;
}

/* ---------- keys ---------- */

static inline void glt_key_create(void (*destructor)(void *), GLT_key *k) { GLT_CALL(weft_key_create(destructor, k)); }
static inline void glt_key_free(GLT_key *k) { GLT_CALL(weft_key_free(k)); }
static inline void glt_key_set(GLT_key k, void *v) { GLT_CALL(weft_key_set(k, v)); }
static inline void glt_key_get(GLT_key k, void **v) { GLT_CALL(weft_key_get(k, v)); }

/* ---------- malleability ---------- */

/* The address of entry `id` is the argument of the ULT that gives thread
 * id its scheduler back: the forwarder runs that one instead of moving it. */
__attribute__((weak)) char glt_forward_token_[GLT_MAX_THREADS_];

/* Is pool p the first pool of an enabled thread other than `self`? (Then
 * that thread runs its units: a disabled thread leaves them be.) */
static inline int glt_pool_served_(weft_pool p, int self)
{
    for (int k = 0; k < glt_team_size_(); k++) {
        int id = glt_team_id_(k);
        if (id != self && glt_pool_of_id_(id) == p) return 1;
    }
    return 0;
}

/* A disabled thread's scheduler: every unit that reaches its pools goes on
 * to an enabled thread (round robin); with none, the stream idles (sleeps).
 * Pools it shares with an enabled thread are left to that thread. */
static inline void glt_forward_run_(weft_sched s)
{
    weft_pool pools[16];
    int np = 0;
    unsigned next = 0;
    weft_xstream xs;
    int self = 0;
    GLT_CALL(weft_sched_get_pools(s, 16, pools, &np));
    GLT_CALL(weft_xstream_self(&xs));
    GLT_CALL(weft_xstream_rank(xs, &self));
    for (;;) {
        int stop = 0, moved = 0;
        GLT_CALL(weft_sched_has_to_stop(s, &stop));
        if (stop) return;
        for (int i = 0; i < np && i < 16; i++) {
            if (glt_pool_served_(pools[i], self)) continue;
            weft_thread u;
            while (weft_pool_pop(pools[i], &u) == WEFT_OK && u != WEFT_THREAD_NULL) {
                void *arg = NULL;
                GLT_CALL(weft_thread_get_arg(u, &arg));
                if ((char *)arg >= glt_forward_token_ && (char *)arg < glt_forward_token_ + GLT_MAX_THREADS_) {
                    /* It may have replaced this scheduler: look before
                     * taking another unit. */
                    GLT_CALL(weft_sched_run_unit(s, u, pools[i]));
                    goto again;
                }
                GLT_CALL(weft_pool_push(glt_pool_of_id_(glt_team_id_((int)next++)), u));
                moved = 1;
            }
        }
        GLT_CALL(moved ? weft_sched_check_events(s) : weft_sched_idle(s));
    again:;
    }
}

/* Runs on thread id, arg = &glt_forward_token_[id]: its scheduler becomes
 * a forwarder over the same pools. */
static inline void glt_forward_install_(void *arg)
{
    int id = (int)((char *)arg - glt_forward_token_);
    weft_xstream xs;
    weft_sched cur, fwd;
    weft_pool pools[16];
    int np = 0;
    static const weft_sched_ops ops = {NULL, glt_forward_run_, NULL, NULL};
    GLT_CALL(weft_xstream_self(&xs));
    GLT_CALL(weft_xstream_get_main_sched(xs, &cur));
    GLT_CALL(weft_sched_get_pools(cur, 16, pools, &np));
    GLT_CALL(weft_sched_create(&ops, np < 16 ? np : 16, pools, NULL, &fwd));
    glt_saved_sched_[id] = cur;
    GLT_CALL(weft_xstream_set_main_sched(xs, fwd));
}

/* Runs on thread id (the forwarder runs it, see the token): its own
 * scheduler comes back. */
static inline void glt_forward_remove_(void *arg)
{
    int id = (int)((char *)arg - glt_forward_token_);
    weft_xstream xs;
    weft_sched fwd;
    GLT_CALL(weft_xstream_self(&xs));
    GLT_CALL(weft_xstream_get_main_sched(xs, &fwd));
    GLT_CALL(weft_xstream_set_main_sched(xs, glt_saved_sched_[id]));
    glt_saved_sched_[id] = NULL;
    GLT_CALL(weft_sched_free(&fwd));
}

/* Enable or disable thread id, the caller holding the team lock. */
static inline void glt_team_apply_(int id, int on)
{
    if (__atomic_load_n(&glt_own_sched_[id], __ATOMIC_ACQUIRE))
        GLT_FAIL_("thread %d runs a GLT scheduler as its main one: with GLT_NUM_POOLS, put its own back before "
                  "enabling or disabling it",
                  id);
    if (on) {
        glt_run_on_(id, glt_forward_remove_, &glt_forward_token_[id]);
        glt_team_set_(id, 1);
    } else {
        glt_team_set_(id, 0); /* placements avoid it from now on */
        glt_run_on_(id, glt_forward_install_, &glt_forward_token_[id]);
    }
}

static inline void *glt_event_thread_arg_(int id)
{
    weft_xstream xs;
    GLT_CALL(weft_xstream_get(id, &xs));
    return (void *)xs;
}

/* Enable (on) or disable thread id, asking the event callbacks; id -1
 * picks the lowest disabled or the highest enabled one that may go, and
 * does nothing when there is none. */
static inline void glt_team_change_(int id, int on)
{
    if (id != -1 && (id < 0 || id >= glt_team_.total))
        GLT_FAIL_("glt_thread_%s_id: no thread %d (0 .. %d)", on ? "enable" : "disable", id, glt_team_.total - 1);
    if (id == 0 && !on) GLT_FAIL_("glt_thread_disable_id: thread 0 (the main ULT's) stays");
    glt_team_lock_acquire_();
    if (on) {
        int target = id == -1 ? glt_team_first_disabled_() : id;
        if (target > 0 && !glt_team_enabled_(target) && glt_event_add_ask_(id)) glt_team_apply_(target, 1);
    } else if (id == -1) {
        for (int i = glt_team_.total - 1; i > 0; i--)
            if (glt_team_enabled_(i) && glt_event_stop_ask_(glt_event_thread_arg_(i))) {
                glt_team_apply_(i, 0);
                glt_event_stop_done_(glt_event_thread_arg_(i));
                break;
            }
    } else if (glt_team_enabled_(id) && glt_event_stop_ask_(glt_event_thread_arg_(id))) {
        glt_team_apply_(id, 0);
        glt_event_stop_done_(glt_event_thread_arg_(id));
    }
    glt_team_lock_release_();
}

static inline void glt_team_force_enable_(void)
{
    glt_team_lock_acquire_();
    for (int i = 1; i < glt_team_.total; i++)
        if (!glt_team_enabled_(i)) glt_team_apply_(i, 1);
    glt_team_lock_release_();
}

/* Take thread id (its number at glt_init) out of the team; no effect if it
 * is out already or an event callback refuses. Aborts for an id out of
 * range, or 0. */
static inline void glt_thread_disable_id(int id) { glt_team_change_(id, 0); }

/* Put thread id back into the team; no effect if it is in or the event
 * callbacks refuse. Aborts for an id out of range. */
static inline void glt_thread_enable_id(int id) { glt_team_change_(id, 1); }

/* Disable the highest enabled thread (that the callbacks let go); no
 * effect when only thread 0 is left. */
static inline void glt_thread_disable(void) { glt_team_change_(-1, 0); }

/* Enable the lowest disabled thread; no effect when all are enabled. */
static inline void glt_thread_enable(void) { glt_team_change_(-1, 1); }

/* ---------- schedulers ---------- */

typedef weft_sched GLT_sched;

typedef enum {
    GLT_SCHED_CONFIG_INT = 0,    /* an int */
    GLT_SCHED_CONFIG_DOUBLE = 1, /* a double */
    GLT_SCHED_CONFIG_PTR = 2,    /* a void * */
} GLT_sched_config_type;

/* A parameter: idx (0, 1, ...) says which pointer of
 * glt_scheduler_config_read receives its value. */
typedef struct {
    int idx;
    GLT_sched_config_type type;
} GLT_sched_config_var;

/* Ends the (variable, value) list of glt_scheduler_config_create. */
__attribute__((weak)) GLT_sched_config_var GLT_sched_config_var_end = {-1, GLT_SCHED_CONFIG_INT};

struct glt_sched_config_s_ {
    int n;
    struct {
        int idx;
        GLT_sched_config_type type;
        union {
            int i;
            double d;
            void *p;
        } v;
    } var[];
};
typedef struct glt_sched_config_s_ *GLT_sched_config;

typedef enum {
    GLT_SCHED_TYPE_ULT = 0,  /* stacked: yields to the scheduler below when idle, until finished */
    GLT_SCHED_TYPE_TASK = 1, /* stacked: stops when its pools run dry */
} GLT_sched_type;

typedef int (*GLT_sched_init_fn)(GLT_sched sched, GLT_sched_config config);
typedef void (*GLT_sched_run_fn)(GLT_sched sched);
typedef int (*GLT_sched_free_fn)(GLT_sched sched);
typedef weft_pool (*GLT_sched_get_migr_pool_fn)(GLT_sched sched);

typedef struct {
    GLT_sched_type type;
    GLT_sched_init_fn init;                   /* may be NULL; nonzero: creation fails */
    GLT_sched_run_fn run;                     /* required */
    GLT_sched_free_fn free;                   /* may be NULL */
    GLT_sched_get_migr_pool_fn get_migr_pool; /* may be NULL: the first pool */
} GLT_sched_def;

typedef enum {
    GLT_SCHED_DEFAULT = 0, /* = basic */
    GLT_SCHED_BASIC = 1,   /* its pools in turn */
    GLT_SCHED_PRIO = 2,    /* the first non-empty pool in order */
} GLT_sched_predef;

/* glt_scheduler_config_create(&config, var, value, var, value, ...,
 * GLT_sched_config_var_end): value an int, a double or a pointer as var's
 * type says. No variable: config is NULL (reads find nothing). */
static inline void glt_scheduler_config_create(GLT_sched_config *config, ...)
{
    if (!config) GLT_FAIL_("glt_scheduler_config_create: NULL config");
    va_list ap;
    struct glt_sched_config_s_ *c = NULL;
    int cap = 0, n = 0;
    va_start(ap, config);
    for (;;) {
        GLT_sched_config_var var = va_arg(ap, GLT_sched_config_var);
        if (var.idx == GLT_sched_config_var_end.idx) break;
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            struct glt_sched_config_s_ *b =
                (struct glt_sched_config_s_ *)realloc(c, sizeof *c + (size_t)cap * sizeof c->var[0]);
            if (!b) GLT_CALL(WEFT_ERR_NOMEM);
            c = b;
        }
        c->var[n].idx = var.idx;
        c->var[n].type = var.type;
        switch (var.type) {
        case GLT_SCHED_CONFIG_INT: c->var[n].v.i = va_arg(ap, int); break;
        case GLT_SCHED_CONFIG_DOUBLE: c->var[n].v.d = va_arg(ap, double); break;
        case GLT_SCHED_CONFIG_PTR: c->var[n].v.p = va_arg(ap, void *); break;
        default: GLT_FAIL_("glt_scheduler_config_create: variable %d has unknown type %d", var.idx, (int)var.type);
        }
        c->n = ++n;
    }
    va_end(ap);
    *config = c;
}

/* glt_scheduler_config_read(config, num_vars, &v0, &v1, ...): the value of
 * the variable of index i goes to the i-th pointer (an int, a double or a
 * void *); pointers of indexes the config lacks are left alone. A variable
 * of index num_vars or more is an error. */
static inline void glt_scheduler_config_read(GLT_sched_config config, int num_vars, ...)
{
    if (num_vars < 0) GLT_FAIL_("glt_scheduler_config_read: num_vars %d", num_vars);
    void *stackp[16], **to = stackp;
    if (num_vars > 16 && !(to = (void **)malloc(sizeof *to * (size_t)num_vars))) GLT_CALL(WEFT_ERR_NOMEM);
    va_list ap;
    va_start(ap, num_vars);
    for (int i = 0; i < num_vars; i++) to[i] = va_arg(ap, void *);
    va_end(ap);
    for (int k = 0; config && k < config->n; k++) {
        int i = config->var[k].idx;
        if (i < 0) continue;
        if (i >= num_vars) GLT_FAIL_("glt_scheduler_config_read: variable %d, but %d pointers", i, num_vars);
        if (!to[i]) GLT_FAIL_("glt_scheduler_config_read: NULL pointer for variable %d", i);
        switch (config->var[k].type) {
        case GLT_SCHED_CONFIG_INT: memcpy(to[i], &config->var[k].v.i, sizeof(int)); break;
        case GLT_SCHED_CONFIG_DOUBLE: memcpy(to[i], &config->var[k].v.d, sizeof(double)); break;
        default: memcpy(to[i], &config->var[k].v.p, sizeof(void *)); break;
        }
    }
    if (to != stackp) free(to);
}

static inline void glt_scheduler_config_free(GLT_sched_config *config)
{
    free(*config);
    *config = NULL;
}

/* What a GLT scheduler carries: its weft data. */
#define GLT_SCHED_MAGIC_ 0x474c5453u /* "GLTS" */
struct glt_sched_s_ {
    unsigned magic;
    int predef;          /* -1: user-defined (def), else a GLT_sched_predef */
    GLT_sched_def def;
    void *data;          /* glt_scheduler_set_data */
    GLT_sched_config config; /* for def.init, during creation */
    int exit_req;        /* glt_scheduler_exit */
    int is_main;         /* running as a stream's main scheduler */
    unsigned rr;         /* basic: where the next turn starts */
};

static inline struct glt_sched_s_ *glt_sched_of_(GLT_sched s, const char *call)
{
    void *d = NULL;
    int rc = weft_sched_get_data(s, &d);
    if (rc != WEFT_OK) GLT_FAIL_("%s: %s", call, weft_strerror(rc));
    struct glt_sched_s_ *w = (struct glt_sched_s_ *)d;
    if (!w || w->magic != GLT_SCHED_MAGIC_) GLT_FAIL_("%s: not a scheduler made by the GLT calls", call);
    return w;
}

static inline int glt_sched_init_(weft_sched s)
{
    struct glt_sched_s_ *w = glt_sched_of_(s, "scheduler init");
    return w->def.init ? w->def.init(s, w->config) : WEFT_OK;
}

static inline void glt_sched_free_(weft_sched s)
{
    struct glt_sched_s_ *w = glt_sched_of_(s, "glt_scheduler_free");
    if (w->def.free) w->def.free(s);
    w->magic = 0;
    free(w);
}

static inline weft_pool glt_sched_migr_(weft_sched s)
{
    struct glt_sched_s_ *w = glt_sched_of_(s, "scheduler get_migr_pool");
    return w->def.get_migr_pool ? w->def.get_migr_pool(s) : WEFT_POOL_NULL;
}

static inline void glt_scheduler_has_to_stop(GLT_sched sched, GLT_bool *stop);

/* The predefined policies, as run functions. */
static inline void glt_sched_predef_run_(weft_sched s)
{
    struct glt_sched_s_ *w = glt_sched_of_(s, "scheduler run");
    weft_pool pools[16];
    int np = 0;
    unsigned picks = 0;
    GLT_CALL(weft_sched_get_pools(s, 16, pools, &np));
    if (np > 16) np = 16;
    for (;;) {
        /* Asked before every pick: replaced, it runs nothing more. */
        GLT_bool stop = GLT_FALSE;
        glt_scheduler_has_to_stop(s, &stop);
        if (stop) return;
        weft_thread u = WEFT_THREAD_NULL;
        int i = 0;
        for (int k = 0; k < np && u == WEFT_THREAD_NULL; k++) {
            i = w->predef == GLT_SCHED_PRIO ? k : (int)((w->rr + (unsigned)k) % (unsigned)np);
            GLT_CALL(weft_pool_pop(pools[i], &u));
        }
        if (u != WEFT_THREAD_NULL) {
            w->rr = (unsigned)i + 1;
            GLT_CALL(weft_sched_run_unit(s, u, pools[i]));
            if (++picks % 64) continue;
        }
        GLT_CALL(u == WEFT_THREAD_NULL ? weft_sched_idle(s) : weft_sched_check_events(s));
    }
}

/* Is `sched` the main scheduler of the calling stream? */
static inline int glt_sched_is_main_here_(GLT_sched sched)
{
    weft_xstream xs;
    weft_sched m;
    GLT_CALL(weft_xstream_self(&xs));
    GLT_CALL(weft_xstream_get_main_sched(xs, &m));
    return m == sched;
}

/* Every GLT scheduler's run: its stream's first pool may change when it
 * starts or stops (glt_pool_of_id_, for the _to calls). */
static inline void glt_sched_run_(weft_sched s)
{
    struct glt_sched_s_ *w = glt_sched_of_(s, "scheduler run");
    int is_main = glt_sched_is_main_here_(s), id = 0;
    weft_xstream xs;
    GLT_CALL(weft_xstream_self(&xs));
    GLT_CALL(weft_xstream_rank(xs, &id));
    glt_pool_tab_update_self_();
    __atomic_store_n(&w->is_main, is_main, __ATOMIC_RELEASE);
    if (is_main && id < GLT_MAX_THREADS_ && __atomic_load_n(&glt_direct_pool_[id], __ATOMIC_ACQUIRE))
        __atomic_store_n(&glt_own_sched_[id], 1, __ATOMIC_RELEASE);
    if (w->predef >= 0) glt_sched_predef_run_(s);
    else w->def.run(s);
    if (is_main && id < GLT_MAX_THREADS_) __atomic_store_n(&glt_own_sched_[id], 0, __ATOMIC_RELEASE);
    __atomic_store_n(&w->is_main, 0, __ATOMIC_RELEASE);
    glt_pool_tab_update_self_();
}

static inline void glt_sched_make_(struct glt_sched_s_ *w, int num_threads, int *threads_id, int automatic,
                                   GLT_sched *newsched, const char *call)
{
    static const weft_sched_ops ops = {glt_sched_init_, glt_sched_run_, glt_sched_free_, glt_sched_migr_};
    if (!newsched) GLT_FAIL_("%s: NULL newsched", call);
    if (num_threads < 1 || num_threads > 16 || !threads_id)
        GLT_FAIL_("%s: %d threads (1 .. 16, with their ids)", call, num_threads);
    weft_pool pools[16];
    int np = 0;
    for (int i = 0; i < num_threads; i++) {
        weft_pool p = glt_pool_of_id_(glt_team_id_(threads_id[i]));
        int seen = 0;
        for (int k = 0; k < np; k++) seen |= pools[k] == p;
        if (!seen) pools[np++] = p;
    }
    w->magic = GLT_SCHED_MAGIC_;
    int rc = weft_sched_create(&ops, np, pools, w, newsched);
    w->config = NULL;
    if (rc != WEFT_OK) {
        free(w);
        GLT_FAIL_("%s: weft_sched_create failed with %d (%s), or the scheduler's init function returned it", call,
                  rc, weft_strerror(rc));
    }
    GLT_CALL(weft_sched_set_automatic(*newsched, automatic));
}

/* A scheduler run by def over the first pools of threads threads_id[0 ..
 * num_threads-1] (thread numbers, as the _to calls take them); def->init
 * gets config. */
static inline void glt_scheduler_create(GLT_sched_def *def, int num_threads, int *threads_id,
                                        GLT_sched_config config, GLT_sched *newsched)
{
    if (!def || !def->run) GLT_FAIL_("glt_scheduler_create: no run function");
    if (def->type != GLT_SCHED_TYPE_ULT && def->type != GLT_SCHED_TYPE_TASK)
        GLT_FAIL_("glt_scheduler_create: unknown type %d", (int)def->type);
    struct glt_sched_s_ *w = (struct glt_sched_s_ *)calloc(1, sizeof *w);
    if (!w) GLT_CALL(WEFT_ERR_NOMEM);
    w->predef = -1;
    w->def = *def;
    w->config = config;
    glt_sched_make_(w, num_threads, threads_id, def->type == GLT_SCHED_TYPE_TASK, newsched, "glt_scheduler_create");
}

/* A predefined scheduler over the first pools of the threads (config: the
 * predefined ones take no parameter GLT can set). (GLT's spelling.) */
static inline void glt_schededuler_create_basic(GLT_sched_predef predef, int num_threads, int *threads_id,
                                                GLT_sched_config config, GLT_sched *newsched)
{
    (void)config;
    if (predef != GLT_SCHED_DEFAULT && predef != GLT_SCHED_BASIC && predef != GLT_SCHED_PRIO)
        GLT_FAIL_("glt_schededuler_create_basic: unknown predefined scheduler %d", (int)predef);
    struct glt_sched_s_ *w = (struct glt_sched_s_ *)calloc(1, sizeof *w);
    if (!w) GLT_CALL(WEFT_ERR_NOMEM);
    w->predef = predef == GLT_SCHED_PRIO ? GLT_SCHED_PRIO : GLT_SCHED_BASIC;
    glt_sched_make_(w, num_threads, threads_id, 1, newsched, "glt_schededuler_create_basic");
}

/* Free a scheduler no stream uses (def->free runs); aborts if in use. */
static inline void glt_scheduler_free(GLT_sched *sched)
{
    if (!sched) GLT_FAIL_("glt_scheduler_free: NULL");
    glt_sched_of_(*sched, "glt_scheduler_free");
    GLT_CALL(weft_sched_free(sched));
}

/* Stop once its pools hold no ready or blocked unit. */
static inline void glt_scheduler_finish(GLT_sched sched)
{
    glt_sched_of_(sched, "glt_scheduler_finish");
    GLT_CALL(weft_sched_finish(sched));
}

/* Stop now: has_to_stop answers 1 from here on; units stay in its pools. */
static inline void glt_scheduler_exit(GLT_sched sched)
{
    struct glt_sched_s_ *w = glt_sched_of_(sched, "glt_scheduler_exit");
    if (__atomic_load_n(&w->is_main, __ATOMIC_ACQUIRE))
        GLT_FAIL_("glt_scheduler_exit: a stream's main scheduler ends only with its stream (replace it instead)");
    __atomic_store_n(&w->exit_req, 1, __ATOMIC_RELEASE);
}

/* From the scheduler's run function: must it return? */
static inline void glt_scheduler_has_to_stop(GLT_sched sched, GLT_bool *stop)
{
    struct glt_sched_s_ *w = glt_sched_of_(sched, "glt_scheduler_has_to_stop");
    GLT_NONNULL_(stop, "glt_scheduler_has_to_stop");
    int s = 0;
    GLT_CALL(weft_sched_has_to_stop(sched, &s));
    if (!s && __atomic_load_n(&w->exit_req, __ATOMIC_ACQUIRE)) {
        if (glt_sched_is_main_here_(sched))
            GLT_FAIL_("glt_scheduler_exit: a stream's main scheduler ends only with its stream (replace it instead)");
        s = 1;
    }
    *stop = s ? GLT_TRUE : GLT_FALSE;
}

static inline void glt_scheduler_set_data(GLT_sched sched, void *data)
{
    glt_sched_of_(sched, "glt_scheduler_set_data")->data = data;
}

static inline void glt_scheduler_get_data(GLT_sched sched, void **data)
{
    GLT_NONNULL_(data, "glt_scheduler_get_data");
    *data = glt_sched_of_(sched, "glt_scheduler_get_data")->data;
}

/* The units its pools hold, counted by `count` (a private pool only from
 * its own thread). */
static inline size_t glt_sched_count_(GLT_sched sched, const char *call, int (*count)(weft_pool, size_t *))
{
    glt_sched_of_(sched, call);
    weft_pool pools[16];
    int np = 0;
    size_t sum = 0;
    GLT_CALL(weft_sched_get_pools(sched, 16, pools, &np));
    for (int i = 0; i < np && i < 16; i++) {
        size_t n = 0;
        GLT_CALL(count(pools[i], &n));
        sum += n;
    }
    return sum;
}

/* Ready units in its pools. */
static inline void glt_scheduler_get_size(GLT_sched sched, size_t *size)
{
    *size = glt_sched_count_(sched, "glt_scheduler_get_size", weft_pool_size);
}

/* Ready and blocked units in its pools. */
static inline void glt_scheduler_get_total_size(GLT_sched sched, size_t *size)
{
    *size = glt_sched_count_(sched, "glt_scheduler_get_total_size", weft_pool_total_size);
}

/* ---------- extensions ---------- */

static inline int glt_can_event_functions(void) { return GLT_TRUE; }
static inline int glt_can_future_functions(void) { return GLT_TRUE; }
static inline int glt_can_manage_scheduler(void) { return GLT_TRUE; }
static inline int glt_can_malleability(void) { return GLT_TRUE; }

/* A GLT future is a value set once: nbytes of room, copied in by set;
 * wait hands back a pointer to the copy. */
static inline void glt_future_create(int nbytes, GLT_future *f)
{
    GLT_CALL(nbytes < 0 ? WEFT_ERR_INVALID : weft_eventual_create((size_t)nbytes, f));
}

static inline void glt_future_free(GLT_future *f) { GLT_CALL(weft_eventual_free(f)); }
static inline void glt_future_wait(GLT_future f, void **value) { GLT_CALL(weft_eventual_wait(f, value)); }

static inline void glt_future_set(GLT_future f, void *value, int nbytes)
{
    GLT_CALL(nbytes < 0 ? WEFT_ERR_INVALID : weft_eventual_set(f, value, (size_t)nbytes));
}

/* The text of error `err` (a weft code): copied into str when str is not
 * NULL (room for *len + 1 bytes is the caller's to provide: ask with str
 * NULL first); its length in *len. */
static inline void glt_get_error_str(int err, char *str, size_t *len)
{
    const char *msg = weft_strerror(err);
    size_t n = strlen(msg);
    if (str) memcpy(str, msg, n + 1);
    if (len) *len = n;
}

#ifdef __cplusplus
}
#endif

#endif /* GLT_BACKEND_PTHREADS */

#endif
