/* GLT, the Generic Lightweight Threads API (version 2.5 names and
 * signatures), over weft. Every function is static inline over weft's
 * native calls: a GLT program pays nothing for the portability.
 *
 * GLT threads are weft execution streams (GLT_NUM_THREADS of them, default
 * one per core); ULTs and tasklets are weft work units. glt_ult_create and
 * glt_tasklet_create put the unit on the calling thread's pool (help-first:
 * the caller goes on); the _to variants on thread dest (modulo the count).
 * GLT calls return nothing, so a weft error that GLT cannot express (bad
 * handle, misuse) prints the call and the error and aborts, rather than be
 * ignored.
 *
 * Malleability: glt_thread_disable_id(id) takes thread `id` (0 ..
 * GLT_NUM_THREADS-1, its number at glt_init) out of the team, and
 * glt_thread_enable_id(id) puts it back; glt_thread_disable() and
 * glt_thread_enable() do so for the highest enabled and the lowest disabled
 * id. Thread 0 (the main ULT's) stays enabled. Thread numbers
 * (glt_get_thread_num, the dest of the _to calls and of
 * glt_ult_migrate_self_to) count the enabled threads in id order,
 * 0 .. glt_get_num_threads()-1, as thread numbers in an OpenMP team do:
 * they are renumbered when the team changes, so per-thread arrays sized by
 * glt_get_num_threads() stay in range. A disabled thread takes no new
 * units: units queued on it before the call run there first, and every
 * unit that reaches it afterwards (woken from a wait, yielding, created
 * there) is moved to an enabled thread; with nothing to move, its stream
 * sleeps and uses no CPU. A call that races a team change may see the old
 * numbering. Enable and disable serialise with each other; call them from
 * a ULT or the main thread.
 *
 * Compiled with -DGLT_BACKEND_PTHREADS, the same calls run over OS threads
 * instead (glt_pthreads.h; define _GNU_SOURCE before any system header), so
 * one GLT program measures both.
 *
 * Not here: GLT's scheduler and event calls; glt_can_manage_scheduler and
 * glt_can_event_functions answer 0 accordingly. */
#ifndef WEFT_GLT_H
#define WEFT_GLT_H

#include <stdlib.h>

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

/* The id glt_thread_disable() takes out (-1: only thread 0 is left) and the
 * one glt_thread_enable() puts back (-1: none is disabled). */
static inline int glt_team_last_enabled_(void)
{
    for (int i = glt_team_.total - 1; i > 0; i--)
        if (glt_team_enabled_(i)) return i;
    return -1;
}

static inline int glt_team_first_disabled_(void)
{
    for (int i = 1; i < glt_team_.total; i++)
        if (!glt_team_enabled_(i)) return i;
    return -1;
}

#ifdef GLT_BACKEND_PTHREADS
#include "glt_pthreads.h"
#else

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
typedef int GLT_thread_id;
typedef int GLT_bool;
typedef struct glt_timer {
    uint64_t start, elapsed; /* weft_time_ns() */
} *GLT_timer;

#define GLT_TRUE 1
#define GLT_FALSE 0
#define GLT_SUCCESS 0

/* A weft call GLT has no way to report: say which, and stop. */
#define GLT_CALL(call)                                                                              \
    do {                                                                                            \
        int glt_rc_ = (call);                                                                       \
        if (glt_rc_ != WEFT_OK) {                                                                   \
            fprintf(stderr, "glt: %s failed: %s (%s:%d)\n", #call, weft_strerror(glt_rc_), __FILE__, \
                    __LINE__);                                                                      \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

/* Serialises team changes (weak: one copy at link). */
__attribute__((weak)) weft_mutex glt_team_lock_;
/* Per thread id: the main scheduler a disabled thread had, to put back. */
__attribute__((weak)) weft_sched glt_saved_sched_[GLT_MAX_THREADS_];

/* ---------- setup ---------- */

/* Start weft with GLT_NUM_THREADS streams (default: one per core). */
static inline void glt_init(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    weft_config cfg;
    GLT_CALL(weft_config_init(&cfg));
    const char *n = getenv("GLT_NUM_THREADS");
    if (n && atoi(n) > 0) cfg.num_xstreams = atoi(n) < GLT_MAX_THREADS_ ? atoi(n) : GLT_MAX_THREADS_;
    GLT_CALL(weft_init(&cfg));
    int total = 1;
    GLT_CALL(weft_xstream_count(&total));
    glt_team_init_(total);
    GLT_CALL(weft_mutex_create(NULL, &glt_team_lock_));
}

static inline void glt_thread_enable(void);

/* Enables every disabled thread, then stops weft. */
static inline void glt_finalize(void)
{
    while (glt_team_first_disabled_() > 0) glt_thread_enable();
    GLT_CALL(weft_mutex_free(&glt_team_lock_));
    GLT_CALL(weft_finalize());
    __atomic_store_n(&glt_team_.n, 0, __ATOMIC_RELEASE);
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

static inline void glt_ult_create(void (*f)(void *), void *arg, GLT_ult *u)
{
    GLT_CALL(weft_thread_create_to(glt_here_(), f, arg, NULL, u));
}

static inline void glt_ult_create_to(void (*f)(void *), void *arg, GLT_ult *u, int dest)
{
    GLT_CALL(weft_thread_create_to(glt_thread_of_(dest), f, arg, NULL, u));
}

static inline void glt_tasklet_create(void (*f)(void *), void *arg, GLT_tasklet *t)
{
    GLT_CALL(weft_tasklet_create_to(glt_here_(), f, arg, t));
}

static inline void glt_tasklet_create_to(void (*f)(void *), void *arg, GLT_tasklet *t, int dest)
{
    GLT_CALL(weft_tasklet_create_to(glt_thread_of_(dest), f, arg, t));
}

/* From the main ULT too: queued units of its thread run meanwhile. */
static inline void glt_yield(void)
{
    int rc = weft_yield();
    if (rc != WEFT_OK && rc != WEFT_ERR_NOT_WEFT) GLT_CALL(rc);
}

/* To `u` when it waits on the caller's thread; else an ordinary yield. */
static inline void glt_yield_to(GLT_ult u)
{
    if (weft_yield_to(u) != WEFT_OK) glt_yield();
}

static inline void glt_ult_join(GLT_ult *u) { GLT_CALL(weft_thread_join(*u)); }
static inline void glt_tasklet_join(GLT_tasklet *t) { GLT_CALL(weft_thread_join(*t)); }
static inline void glt_ult_free(GLT_ult *u) { GLT_CALL(weft_thread_free(u)); }
static inline void glt_tasklet_free(GLT_tasklet *t) { GLT_CALL(weft_thread_free(t)); }

static inline void glt_ult_get_id(GLT_ult_id *id, GLT_ult u) { GLT_CALL(weft_thread_id(u, id)); }

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
    int rc = weft_thread_cancel(u);
    if (rc != WEFT_OK && rc != WEFT_ERR_STATE && rc != WEFT_ERR_POOL_ACCESS) GLT_CALL(rc);
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
    GLT_CALL(rc);
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
static inline void glt_barrier_wait(GLT_barrier *b) { GLT_CALL(weft_barrier_wait(*b)); }

static inline void glt_cond_create(GLT_cond *c) { GLT_CALL(weft_cond_create(c)); }
static inline void glt_cond_free(GLT_cond *c) { GLT_CALL(weft_cond_free(c)); }
static inline void glt_cond_signal(GLT_cond c) { GLT_CALL(weft_cond_signal(c)); }
static inline void glt_cond_broadcast(GLT_cond c) { GLT_CALL(weft_cond_broadcast(c)); }
static inline void glt_cond_wait(GLT_cond c, GLT_mutex m) { GLT_CALL(weft_cond_wait(c, m)); }

/* ---------- time ---------- */

static inline double glt_get_wtime(void) { return (double)weft_time_ns() * 1e-9; }

static inline void glt_timer_create(GLT_timer *t)
{
    *t = (GLT_timer)calloc(1, sizeof **t);
    if (!*t) GLT_CALL(WEFT_ERR_NOMEM);
}

static inline void glt_timer_free(GLT_timer *t)
{
    free(*t);
    *t = NULL;
}

static inline void glt_timer_start(GLT_timer t) { t->start = weft_time_ns(); }
static inline void glt_timer_stop(GLT_timer t) { t->elapsed = weft_time_ns() - t->start; }
/* Seconds between the last start and the stop after it. */
static inline void glt_timer_get_secs(GLT_timer t, double *secs) { *secs = (double)t->elapsed * 1e-9; }

/* ---------- keys ---------- */

static inline void glt_key_create(void (*destructor)(void *), GLT_key *k) { GLT_CALL(weft_key_create(destructor, k)); }
static inline void glt_key_free(GLT_key *k) { GLT_CALL(weft_key_free(k)); }
static inline void glt_key_set(GLT_key k, void *v) { GLT_CALL(weft_key_set(k, v)); }
static inline void glt_key_get(GLT_key k, void **v) { GLT_CALL(weft_key_get(k, v)); }

/* ---------- malleability ---------- */

/* The address of entry `id` is the argument of the ULT that gives thread
 * id its scheduler back: the forwarder runs that one instead of moving it. */
__attribute__((weak)) char glt_forward_token_[GLT_MAX_THREADS_];

/* A disabled thread's scheduler: every unit that reaches its pools goes on
 * to an enabled thread (round robin); with none, the stream idles (sleeps). */
static inline void glt_forward_run_(weft_sched s)
{
    weft_pool pools[16];
    int np = 0;
    unsigned next = 0;
    GLT_CALL(weft_sched_get_pools(s, 16, pools, &np));
    for (;;) {
        int stop = 0, moved = 0;
        GLT_CALL(weft_sched_has_to_stop(s, &stop));
        if (stop) return;
        for (int i = 0; i < np; i++) {
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
                weft_pool to;
                int n = 0;
                GLT_CALL(weft_xstream_get_pools(glt_thread_of_((int)next++), 1, &to, &n));
                GLT_CALL(weft_pool_push(to, u));
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
    GLT_CALL(weft_sched_create(&ops, np, pools, NULL, &fwd));
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

/* Run fn on thread id's stream: directly when the caller runs there, else
 * in a ULT placed there, joined. */
static inline void glt_run_on_(int id, void (*fn)(void *))
{
    weft_xstream xs, self;
    void *arg = &glt_forward_token_[id];
    GLT_CALL(weft_xstream_get(id, &xs));
    if (weft_xstream_self(&self) == WEFT_OK && self == xs) {
        fn(arg);
        return;
    }
    weft_thread u;
    GLT_CALL(weft_thread_create_to(xs, fn, arg, NULL, &u));
    GLT_CALL(weft_thread_free(&u));
}

/* Enable (on) or disable thread id; id -1 picks the lowest disabled or the
 * highest enabled one, and does nothing when there is none. */
static inline void glt_team_change_(int id, int on)
{
    if (id != -1 && (id < 0 || id >= glt_team_.total)) GLT_CALL(WEFT_ERR_INVALID);
    if (id == 0 && !on) GLT_CALL(WEFT_ERR_PRIMARY); /* the main ULT's thread stays */
    GLT_CALL(weft_mutex_lock(glt_team_lock_));
    if (id == -1) id = on ? glt_team_first_disabled_() : glt_team_last_enabled_();
    if (id > 0 && glt_team_enabled_(id) != on) {
        if (on) {
            glt_run_on_(id, glt_forward_remove_);
            glt_team_set_(id, 1);
        } else {
            glt_team_set_(id, 0); /* placements avoid it from now on */
            glt_run_on_(id, glt_forward_install_);
        }
    }
    GLT_CALL(weft_mutex_unlock(glt_team_lock_));
}

/* Take thread id (its number at glt_init) out of the team; no effect if it
 * is out already. Aborts for an id out of range, or 0. */
static inline void glt_thread_disable_id(int id) { glt_team_change_(id, 0); }

/* Put thread id back into the team; no effect if it is in. Aborts for an
 * id out of range. */
static inline void glt_thread_enable_id(int id) { glt_team_change_(id, 1); }

/* Disable the highest enabled thread; no effect when only thread 0 is left. */
static inline void glt_thread_disable(void) { glt_team_change_(-1, 0); }

/* Enable the lowest disabled thread; no effect when all are enabled. */
static inline void glt_thread_enable(void) { glt_team_change_(-1, 1); }

/* ---------- extensions ---------- */

static inline int glt_can_event_functions(void) { return GLT_FALSE; }
static inline int glt_can_future_functions(void) { return GLT_TRUE; }
static inline int glt_can_manage_scheduler(void) { return GLT_FALSE; }
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
