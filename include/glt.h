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
 * Compiled with -DGLT_BACKEND_PTHREADS, the same calls run over OS threads
 * instead (glt_pthreads.h; define _GNU_SOURCE before any system header), so
 * one GLT program measures both.
 *
 * Not here yet: the malleability calls (glt_thread_enable/disable) and GLT's
 * scheduler and event calls; glt_can_malleability, glt_can_manage_scheduler
 * and glt_can_event_functions answer 0 accordingly. */
#ifndef WEFT_GLT_H
#define WEFT_GLT_H

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

/* ---------- setup ---------- */

/* Start weft with GLT_NUM_THREADS streams (default: one per core). */
static inline void glt_init(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    weft_config cfg;
    GLT_CALL(weft_config_init(&cfg));
    const char *n = getenv("GLT_NUM_THREADS");
    if (n && atoi(n) > 0) cfg.num_xstreams = atoi(n);
    GLT_CALL(weft_init(&cfg));
}

static inline void glt_finalize(void) { GLT_CALL(weft_finalize()); }

/* ---------- threads (execution streams) ---------- */

static inline int glt_get_num_threads(void)
{
    int n = 1;
    GLT_CALL(weft_xstream_count(&n));
    return n;
}

/* The calling unit's thread; 0 outside weft (a plain OS thread). */
static inline int glt_get_thread_num(void)
{
    weft_xstream xs;
    int rank = 0;
    if (weft_xstream_self(&xs) == WEFT_OK) GLT_CALL(weft_xstream_rank(xs, &rank));
    return rank;
}

/* Thread `dest` modulo the thread count. */
static inline weft_xstream glt_thread_of_(int dest)
{
    int n = glt_get_num_threads();
    weft_xstream xs;
    GLT_CALL(weft_xstream_get(((dest % n) + n) % n, &xs));
    return xs;
}

/* The caller's thread (thread 0 for a plain OS thread). */
static inline weft_xstream glt_here_(void)
{
    weft_xstream xs;
    if (weft_xstream_self(&xs) != WEFT_OK) GLT_CALL(weft_xstream_get(0, &xs));
    return xs;
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

/* ---------- extensions ---------- */

static inline int glt_can_event_functions(void) { return GLT_FALSE; }
static inline int glt_can_future_functions(void) { return GLT_TRUE; }
static inline int glt_can_manage_scheduler(void) { return GLT_FALSE; }
static inline int glt_can_malleability(void) { return GLT_FALSE; }

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
