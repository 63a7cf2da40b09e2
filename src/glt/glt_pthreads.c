/* libgltpthread: GLT's pthreads API (include/glt_pthreads.h) over weft.
 *
 * A thread made by gpthread_create is a weft ULT running start() with a
 * record (struct gpth) as its argument; pthread_t is the record's address.
 * Every unit finds its own record through a weft key (self_key), set at the
 * ULT's start, or made on first need for the main ULT and for units made
 * by other means ("foreign": identity and cancel state only). The end of a
 * thread (return or gpthread_exit) is seen by self_key's destructor, which
 * weft runs in the ending unit either way.
 *
 * The pthreads objects keep a weft handle in their first bytes: an object
 * statically initialised to zeros gets its weft object at first use (one of
 * racing first users wins; the others free theirs). */
#define _GNU_SOURCE
#define GLT_PTHREADS_NO_RENAME
#include "glt_pthreads.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GPTH_MAGIC 0x6770746872656164ull /* "gpthread" */
#define GPTH_DEAD 0x6470746872656164ull  /* a record whose thread is gone */

enum gpth_kind { GPTH_CREATED, GPTH_MAIN, GPTH_FOREIGN };
enum gpth_state { GPTH_JOINABLE, GPTH_DETACHED, GPTH_JOINING };

struct gpth {
    uint64_t magic;
    enum gpth_kind kind;
    int detached_at_create; /* freed by its own end */
    int state;              /* enum gpth_state, atomic */
    int cancel_pending;     /* atomic */
    int cancel_state, cancel_type;
    unsigned gen;           /* the process's fork generation at its making */
    weft_thread unit;       /* to join (joinable threads) */
    void *(*fn)(void *);
    void *arg;
    void *ret;
    struct gpth *dead_next; /* in dead_recs */
};

static weft_key self_key;
static struct gpth main_rec;
/* Threads made by gpthread_create and not yet ended; a pthread_exit from
 * main waits on live_c until it is 0. */
static long live;
static weft_mutex live_m;
static weft_cond live_c;
static int started; /* the constructor ran glt_init */
/* fork(): the child has no runtime and none of the parent's threads.
 * Records made before the last fork (gen older than fork_gen) name threads
 * of an ancestor: ESRCH. The child starts weft again at its first
 * pthread_create (restart). */
static unsigned fork_gen;
static int restart;

/* ---------- records ---------- */

/* Records of threads that are gone are kept, marked GPTH_DEAD, and reused
 * for new ones, never given back: a stale pthread_t (joined twice,
 * detached and ended) is then still known as ours, and refused with ESRCH
 * rather than passed to the system's pthreads. */
static struct gpth *dead_recs;
static pthread_mutex_t dead_m = PTHREAD_MUTEX_INITIALIZER;

static struct gpth *rec_new(void)
{
    pthread_mutex_lock(&dead_m);
    struct gpth *r = dead_recs;
    if (r) dead_recs = r->dead_next;
    pthread_mutex_unlock(&dead_m);
    if (!r) return (struct gpth *)calloc(1, sizeof *r);
    memset((char *)r + sizeof r->magic, 0, sizeof *r - sizeof r->magic); /* magic stays dead until set */
    return r;
}

static void rec_free(struct gpth *r)
{
    __atomic_store_n(&r->magic, GPTH_DEAD, __ATOMIC_RELEASE);
    pthread_mutex_lock(&dead_m);
    r->dead_next = dead_recs;
    dead_recs = r;
    pthread_mutex_unlock(&dead_m);
}

/* Ours and live: its record; ours and gone: NULL with *gone set; a
 * thread of the system's: NULL. */
static struct gpth *rec_lookup(pthread_t th, int *gone)
{
    struct gpth *r = (struct gpth *)(uintptr_t)th;
    uint64_t magic = r ? __atomic_load_n(&r->magic, __ATOMIC_ACQUIRE) : 0;
    *gone = magic == GPTH_DEAD || (magic == GPTH_MAGIC && r->gen != fork_gen);
    return magic == GPTH_MAGIC && !*gone ? r : NULL;
}


/* Is the caller a weft unit (a ULT, tasklet or scheduler of a stream)? */
static int in_weft(void)
{
    weft_thread self;
    return weft_self(&self) == WEFT_OK;
}

/* The caller's record: NULL outside weft; made if missing and `make`. */
static struct gpth *self_rec(int make)
{
    weft_thread self;
    void *v = NULL;
    if (weft_self(&self) != WEFT_OK) return NULL;
    if (weft_key_get(self_key, &v) != WEFT_OK) return NULL;
    if (v || !make) return (struct gpth *)v;
    struct gpth *r = rec_new();
    if (!r) return NULL;
    r->gen = fork_gen;
    __atomic_store_n(&r->magic, GPTH_MAGIC, __ATOMIC_RELEASE);
    r->kind = GPTH_FOREIGN;
    r->cancel_state = PTHREAD_CANCEL_ENABLE;
    r->cancel_type = PTHREAD_CANCEL_DEFERRED;
    r->unit = self;
    if (weft_key_set(self_key, r) != WEFT_OK) {
        rec_free(r);
        return NULL;
    }
    return r;
}

static void live_dec(void)
{
    if (__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL) != 0) return;
    GLT_CALL(weft_mutex_lock(live_m));
    GLT_CALL(weft_cond_broadcast(live_c));
    GLT_CALL(weft_mutex_unlock(live_m));
}

/* self_key's destructor: the end of the unit whose record it is. */
static void rec_end(void *v)
{
    struct gpth *r = (struct gpth *)v;
    if (r->kind == GPTH_FOREIGN) {
        rec_free(r);
        return;
    }
    if (r->kind != GPTH_CREATED) return;
    if (r->detached_at_create) {
        rec_free(r);
    }
    live_dec();
}

static int cancel_now(struct gpth *r)
{
    return r && r->kind == GPTH_CREATED && r->cancel_state == PTHREAD_CANCEL_ENABLE &&
           __atomic_load_n(&r->cancel_pending, __ATOMIC_ACQUIRE);
}

static void start(void *p)
{
    struct gpth *r = (struct gpth *)p;
    GLT_CALL(weft_key_set(self_key, r));
    r->ret = cancel_now(r) ? PTHREAD_CANCELED : r->fn(r->arg);
}

/* A thread detached while running: joined (and so released) here. */
static void reap(void *p)
{
    struct gpth *r = (struct gpth *)p;
    GLT_CALL(weft_thread_free(&r->unit));
    rec_free(r);
}

/* ---------- library start and end ---------- */

/* In the child of a fork(): nothing of the parent's runtime is left (its
 * objects may have been in use by other threads at the fork: left behind,
 * never freed). The child starts weft at its first pthread_create. */
static void after_fork_child(void)
{
    pthread_mutex_init(&dead_m, NULL);
    fork_gen++;
    if (!started) return;
    started = 0;
    restart = 1;
    live = 0;
    main_rec.magic = GPTH_DEAD;
}

__attribute__((constructor)) void glt_pthread_start(void)
{
    static int atfork_set;
    if (started) return;
    if (!atfork_set && pthread_atfork(NULL, NULL, after_fork_child) != 0) GLT_CALL(WEFT_ERR_NOMEM);
    atfork_set = 1;
    restart = 0;
    setenv("GLT_NUM_POOLS", "1", 0); /* one pool shared by all streams, as GLT does */
    glt_init(0, NULL);
    started = 1;
    GLT_CALL(weft_key_create(rec_end, &self_key));
    GLT_CALL(weft_mutex_create(NULL, &live_m));
    GLT_CALL(weft_cond_create(&live_c));
    main_rec.gen = fork_gen;
    main_rec.magic = GPTH_MAGIC;
    main_rec.kind = GPTH_MAIN;
    main_rec.cancel_state = PTHREAD_CANCEL_ENABLE;
    main_rec.cancel_type = PTHREAD_CANCEL_DEFERRED;
    GLT_CALL(weft_self(&main_rec.unit));
    GLT_CALL(weft_key_set(self_key, &main_rec));
}

/* Stops weft from the main ULT once no created thread is left; otherwise
 * (threads still running, or exit called elsewhere) the process ends them. */
__attribute__((destructor)) void glt_pthread_end(void)
{
    weft_thread self;
    uint64_t id = 1;
    if (!started || weft_self(&self) != WEFT_OK || weft_thread_id(self, &id) != WEFT_OK || id != 0) return;
    if (__atomic_load_n(&live, __ATOMIC_ACQUIRE) != 0) return;
    started = 0;
    GLT_CALL(weft_key_set(self_key, NULL));
    GLT_CALL(weft_cond_free(&live_c));
    GLT_CALL(weft_mutex_free(&live_m));
    glt_finalize();
    GLT_CALL(weft_key_free(&self_key));
}

/* ---------- threads ---------- */

static int errno_of(int rc)
{
    switch (rc) {
    case WEFT_OK: return 0;
    case WEFT_ERR_NOMEM: return EAGAIN;
    case WEFT_ERR_BUSY: return EBUSY;
    case WEFT_ERR_NOT_OWNER: return EPERM;
    case WEFT_ERR_TIMEDOUT: return ETIMEDOUT;
    case WEFT_ERR_TASKLET_BLOCKS:
    case WEFT_ERR_SCHED_BLOCKS:
    case WEFT_ERR_JOIN_SELF: return EDEADLK;
    default: return EINVAL;
    }
}

/* A ULT on the caller's thread; a plain OS thread counts as thread 0. */
static int create_here(void (*fn)(void *), void *arg, const weft_thread_attr *a, weft_thread *out)
{
    int rc = weft_thread_create_here(fn, arg, a, out);
    return rc == WEFT_ERR_NOT_WEFT ? weft_thread_create(glt_pool_of_id_(0), fn, arg, a, out) : rc;
}

int gpthread_create(pthread_t *pth, const pthread_attr_t *attr, void *(*func)(void *), void *args)
{
    if (!pth || !func) return EINVAL;
    if (restart && !started) glt_pthread_start(); /* the first thread of a forked child */
    int detached = 0;
    weft_thread_attr wa;
    weft_thread_attr_init(&wa);
    if (attr) {
        size_t size = 0, dflt = 0;
        pthread_attr_t d;
        if (pthread_attr_getdetachstate(attr, &detached) != 0) return EINVAL;
        detached = detached == PTHREAD_CREATE_DETACHED;
        /* A stack size set explicitly (the default one means weft's). */
        if (pthread_attr_getstacksize(attr, &size) == 0 && pthread_getattr_default_np(&d) == 0) {
            if (pthread_attr_getstacksize(&d, &dflt) == 0 && size != dflt) wa.stack_size = size;
            pthread_attr_destroy(&d);
        }
    }
    struct gpth *r = rec_new();
    if (!r) return EAGAIN;
    r->gen = fork_gen;
    __atomic_store_n(&r->magic, GPTH_MAGIC, __ATOMIC_RELEASE);
    r->kind = GPTH_CREATED;
    r->detached_at_create = detached;
    r->state = detached ? GPTH_DETACHED : GPTH_JOINABLE;
    r->cancel_state = PTHREAD_CANCEL_ENABLE;
    r->cancel_type = PTHREAD_CANCEL_DEFERRED;
    r->fn = func;
    r->arg = args;
    *pth = (pthread_t)(uintptr_t)r; /* before it may run (and, detached, end) */
    __atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
    int rc = create_here(start, r, &wa, detached ? NULL : &r->unit);
    if (rc != WEFT_OK) {
        __atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL);
        rec_free(r);
        return errno_of(rc);
    }
    return 0;
}

int gpthread_join(pthread_t th, void **ret)
{
    int gone;
    struct gpth *r = rec_lookup(th, &gone);
    if (gone) return ESRCH; /* joined already, or detached and ended */
    if (!r) return pthread_join(th, ret); /* a thread of the system's */
    struct gpth *me = self_rec(0);
    if (r == me) return EDEADLK;
    if (r->kind != GPTH_CREATED) return EINVAL;
    gpthread_testcancel();
    int joinable = GPTH_JOINABLE;
    if (!__atomic_compare_exchange_n(&r->state, &joinable, GPTH_JOINING, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return EINVAL; /* detached, or joined by another */
    int rc = weft_thread_free(&r->unit);
    if (rc != WEFT_OK) {
        __atomic_store_n(&r->state, GPTH_JOINABLE, __ATOMIC_RELEASE);
        return errno_of(rc);
    }
    if (ret) *ret = r->ret;
    rec_free(r);
    return 0;
}

int gpthread_detach(pthread_t th)
{
    int gone;
    struct gpth *r = rec_lookup(th, &gone);
    if (gone) return ESRCH;
    if (!r) return pthread_detach(th);
    if (r->kind != GPTH_CREATED) return 0; /* nothing of ours to release */
    int joinable = GPTH_JOINABLE;
    if (!__atomic_compare_exchange_n(&r->state, &joinable, GPTH_DETACHED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return EINVAL;
    int rc = create_here(reap, r, NULL, NULL);
    if (rc != WEFT_OK) {
        __atomic_store_n(&r->state, GPTH_JOINABLE, __ATOMIC_RELEASE);
        return errno_of(rc);
    }
    return 0;
}

pthread_t gpthread_self(void)
{
    struct gpth *r = self_rec(1);
    return r ? (pthread_t)(uintptr_t)r : pthread_self();
}

int gpthread_equal(pthread_t a, pthread_t b) { return a == b; }

void gpthread_exit(void *ret)
{
    if (!in_weft()) pthread_exit(ret);
    struct gpth *r = self_rec(0);
    if (r && r->kind == GPTH_MAIN) {
        /* The process lives on until its last thread ends. */
        GLT_CALL(weft_mutex_lock(live_m));
        while (__atomic_load_n(&live, __ATOMIC_ACQUIRE) > 0) GLT_CALL(weft_cond_wait(live_c, live_m));
        GLT_CALL(weft_mutex_unlock(live_m));
        exit(0);
    }
    if (r && r->kind == GPTH_CREATED) r->ret = ret;
    GLT_CALL(weft_thread_exit());
    abort(); /* not reached */
}

int gsched_yield(void)
{
    int rc = weft_yield();
    return rc == WEFT_OK || rc == WEFT_ERR_NOT_WEFT ? 0 : errno_of(rc);
}

int gpthread_yield(void) { return gsched_yield(); }

/* ---------- cancellation (deferred) ---------- */

int gpthread_setcancelstate(int state, int *oldstate)
{
    if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE) return EINVAL;
    if (!in_weft()) return pthread_setcancelstate(state, oldstate);
    struct gpth *r = self_rec(1);
    if (!r) return EAGAIN;
    if (oldstate) *oldstate = r->cancel_state;
    r->cancel_state = state;
    return 0;
}

int gpthread_setcanceltype(int type, int *oldtype)
{
    if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS) return EINVAL;
    if (!in_weft()) return pthread_setcanceltype(type, oldtype);
    if (type == PTHREAD_CANCEL_ASYNCHRONOUS) return ENOTSUP; /* a ULT cannot be interrupted */
    struct gpth *r = self_rec(1);
    if (!r) return EAGAIN;
    if (oldtype) *oldtype = r->cancel_type;
    r->cancel_type = type;
    return 0;
}

int gpthread_cancel(pthread_t th)
{
    int gone;
    struct gpth *r = rec_lookup(th, &gone);
    if (gone) return ESRCH;
    if (!r) return pthread_cancel(th);
    if (r->kind != GPTH_CREATED) return ESRCH;
    __atomic_store_n(&r->cancel_pending, 1, __ATOMIC_RELEASE);
    return 0;
}

void gpthread_testcancel(void)
{
    if (!in_weft()) {
        pthread_testcancel();
        return;
    }
    if (cancel_now(self_rec(0))) gpthread_exit(PTHREAD_CANCELED);
}

/* ---------- keys ---------- */

#define GPTH_KEYS 4096
static weft_key keys[GPTH_KEYS];

int gpthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    if (!key) return EINVAL;
    weft_key k;
    int rc = weft_key_create(destructor, &k);
    if (rc != WEFT_OK) return rc == WEFT_ERR_NOMEM ? EAGAIN : errno_of(rc);
    for (unsigned i = 0; i < GPTH_KEYS; i++) {
        weft_key none = NULL;
        if (__atomic_compare_exchange_n(&keys[i], &none, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            *key = i;
            return 0;
        }
    }
    weft_key_free(&k);
    return EAGAIN;
}

static weft_key key_of(pthread_key_t key)
{
    return key < GPTH_KEYS ? __atomic_load_n(&keys[key], __ATOMIC_ACQUIRE) : NULL;
}

int gpthread_key_delete(pthread_key_t key)
{
    weft_key k = key_of(key);
    if (!k || !__atomic_compare_exchange_n(&keys[key], &k, NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return EINVAL;
    return errno_of(weft_key_free(&k));
}

void *gpthread_getspecific(pthread_key_t key)
{
    void *v = NULL;
    weft_key k = key_of(key);
    if (!k || weft_key_get(k, &v) != WEFT_OK) return NULL;
    return v;
}

int gpthread_setspecific(pthread_key_t key, const void *ptr)
{
    weft_key k = key_of(key);
    if (!k) return EINVAL;
    int rc = weft_key_set(k, (void *)(uintptr_t)ptr);
    return rc == WEFT_ERR_NOMEM ? ENOMEM : errno_of(rc);
}

/* ---------- barriers ---------- */

struct gpth_barrier {
    weft_barrier b;
    unsigned count, arrived;
};
_Static_assert(sizeof(struct gpth_barrier) <= sizeof(pthread_barrier_t), "pthread_barrier_t too small");

int gpthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr, unsigned int count)
{
    (void)attr;
    struct gpth_barrier *g = (struct gpth_barrier *)(void *)barrier;
    if (!barrier || count == 0 || count > (unsigned)INT32_MAX) return EINVAL;
    int rc = weft_barrier_create((int)count, &g->b);
    if (rc != WEFT_OK) return rc == WEFT_ERR_NOMEM ? ENOMEM : errno_of(rc);
    g->count = count;
    g->arrived = 0;
    return 0;
}

int gpthread_barrier_destroy(pthread_barrier_t *barrier)
{
    struct gpth_barrier *g = (struct gpth_barrier *)(void *)barrier;
    if (!barrier) return EINVAL;
    return errno_of(weft_barrier_free(&g->b));
}

/* The last of each round to arrive is the serial thread: arrivals of the
 * next round can only come after it has released this one. */
int gpthread_barrier_wait(pthread_barrier_t *barrier)
{
    struct gpth_barrier *g = (struct gpth_barrier *)(void *)barrier;
    if (!barrier) return EINVAL;
    int serial = __atomic_add_fetch(&g->arrived, 1, __ATOMIC_ACQ_REL) == g->count;
    if (serial) __atomic_sub_fetch(&g->arrived, g->count, __ATOMIC_ACQ_REL);
    int rc = weft_barrier_wait(g->b);
    if (rc != WEFT_OK) return errno_of(rc);
    return serial ? PTHREAD_BARRIER_SERIAL_THREAD : 0;
}

/* ---------- mutexes ---------- */

_Static_assert(sizeof(weft_mutex) <= offsetof(pthread_mutex_t, __data.__kind), "pthread_mutex_t layout");

static int mutex_make(int recursive, weft_mutex *out)
{
    weft_mutex_attr a = {recursive, 0};
    int rc = weft_mutex_create(&a, out);
    return rc == WEFT_ERR_NOMEM ? ENOMEM : errno_of(rc);
}

/* The weft mutex in *m, made at first use for a statically initialised
 * one (PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP says recursive in __kind). */
static int mutex_get(pthread_mutex_t *m, weft_mutex *out)
{
    weft_mutex *slot = (weft_mutex *)(void *)m;
    if (!m) return EINVAL;
    weft_mutex w = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (__builtin_expect(w != NULL, 1)) {
        *out = w;
        return 0;
    }
    int rc = mutex_make((m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE, &w);
    if (rc) return rc;
    weft_mutex none = NULL;
    if (!__atomic_compare_exchange_n(slot, &none, w, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        weft_mutex_free(&w);
        w = none;
    }
    *out = w;
    return 0;
}

int gpthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    int type = PTHREAD_MUTEX_DEFAULT;
    if (!mutex || (attr && pthread_mutexattr_gettype(attr, &type) != 0)) return EINVAL;
    weft_mutex w = NULL;
    int rc = mutex_make(type == PTHREAD_MUTEX_RECURSIVE, &w);
    if (rc) return rc;
    memset(mutex, 0, sizeof *mutex);
    *(weft_mutex *)(void *)mutex = w;
    return 0;
}

int gpthread_mutex_destroy(pthread_mutex_t *mutex)
{
    if (!mutex) return EINVAL;
    weft_mutex *slot = (weft_mutex *)(void *)mutex;
    if (!*slot) return 0; /* never used */
    int rc = weft_mutex_free(slot);
    return rc == WEFT_OK ? 0 : errno_of(rc);
}

int gpthread_mutex_lock(pthread_mutex_t *mutex)
{
    weft_mutex w = NULL;
    int rc = mutex_get(mutex, &w);
    if (rc) return rc;
    rc = weft_mutex_lock(w);
    return rc == WEFT_ERR_BUSY ? EDEADLK : errno_of(rc);
}

int gpthread_mutex_trylock(pthread_mutex_t *mutex)
{
    weft_mutex w = NULL;
    int rc = mutex_get(mutex, &w);
    return rc ? rc : errno_of(weft_mutex_trylock(w));
}

int gpthread_mutex_unlock(pthread_mutex_t *mutex)
{
    weft_mutex w = NULL;
    int rc = mutex_get(mutex, &w);
    return rc ? rc : errno_of(weft_mutex_unlock(w));
}

/* ---------- condition variables ---------- */

struct gpth_cond {
    weft_cond c;
    int clock; /* of pthread_cond_timedwait's deadline; 0 = CLOCK_REALTIME */
};
_Static_assert(sizeof(struct gpth_cond) <= sizeof(pthread_cond_t), "pthread_cond_t too small");
_Static_assert(CLOCK_REALTIME == 0, "a zeroed condition variable uses CLOCK_REALTIME");

static int cond_get(pthread_cond_t *c, weft_cond *out)
{
    struct gpth_cond *g = (struct gpth_cond *)(void *)c;
    if (!c) return EINVAL;
    weft_cond w = __atomic_load_n(&g->c, __ATOMIC_ACQUIRE);
    if (__builtin_expect(w != NULL, 1)) {
        *out = w;
        return 0;
    }
    int rc = weft_cond_create(&w);
    if (rc) return rc == WEFT_ERR_NOMEM ? ENOMEM : errno_of(rc);
    weft_cond none = NULL;
    if (!__atomic_compare_exchange_n(&g->c, &none, w, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        weft_cond_free(&w);
        w = none;
    }
    *out = w;
    return 0;
}

int gpthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *cond_attr)
{
    struct gpth_cond *g = (struct gpth_cond *)(void *)c;
    clockid_t clock = CLOCK_REALTIME;
    if (!c || (cond_attr && pthread_condattr_getclock(cond_attr, &clock) != 0)) return EINVAL;
    weft_cond w = NULL;
    int rc = weft_cond_create(&w);
    if (rc) return rc == WEFT_ERR_NOMEM ? ENOMEM : errno_of(rc);
    memset(c, 0, sizeof *c);
    g->c = w;
    g->clock = (int)clock;
    return 0;
}

int gpthread_cond_destroy(pthread_cond_t *c)
{
    struct gpth_cond *g = (struct gpth_cond *)(void *)c;
    if (!c) return EINVAL;
    if (!g->c) return 0;
    return errno_of(weft_cond_free(&g->c));
}

int gpthread_cond_signal(pthread_cond_t *c)
{
    weft_cond w = NULL;
    int rc = cond_get(c, &w);
    return rc ? rc : errno_of(weft_cond_signal(w));
}

int gpthread_cond_broadcast(pthread_cond_t *c)
{
    weft_cond w = NULL;
    int rc = cond_get(c, &w);
    return rc ? rc : errno_of(weft_cond_broadcast(w));
}

int gpthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *mutex)
{
    weft_cond w = NULL;
    weft_mutex m = NULL;
    int rc = cond_get(c, &w);
    if (rc || (rc = mutex_get(mutex, &m))) return rc;
    return errno_of(weft_cond_wait(w, m));
}

int gpthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *mutex, const struct timespec *abstime)
{
    weft_cond w = NULL;
    weft_mutex m = NULL;
    struct timespec now;
    int rc = cond_get(c, &w);
    if (rc || (rc = mutex_get(mutex, &m))) return rc;
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L) return EINVAL;
    if (clock_gettime((clockid_t)((struct gpth_cond *)(void *)c)->clock, &now) != 0) return EINVAL;
    /* The deadline on weft's (monotonic) clock. One too far to count in
     * nanoseconds (tv_sec the largest time_t: the usual "for ever") is
     * none; one long past is now. */
    int64_t dsec, left = 0;
    uint64_t deadline = UINT64_MAX;
    if (__builtin_sub_overflow((int64_t)abstime->tv_sec, (int64_t)now.tv_sec, &dsec)) {
        if (abstime->tv_sec < 0) deadline = weft_time_ns();
    } else if (dsec < INT64_MAX / 1000000000LL - 1) {
        if (dsec > -2) left = dsec * 1000000000LL + (abstime->tv_nsec - now.tv_nsec);
        deadline = weft_time_ns() + (uint64_t)(left > 0 ? left : 0);
    }
    return errno_of(weft_cond_timedwait(w, m, deadline));
}

/* ---------- once ---------- */

int gpthread_once(pthread_once_t *once, void (*init)(void))
{
    if (!once || !init) return EINVAL;
    int st = __atomic_load_n(once, __ATOMIC_ACQUIRE);
    if (st == 2) return 0;
    int fresh = 0;
    if (__atomic_compare_exchange_n(once, &fresh, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        init();
        __atomic_store_n(once, 2, __ATOMIC_RELEASE);
        return 0;
    }
    while (__atomic_load_n(once, __ATOMIC_ACQUIRE) != 2) gsched_yield(); /* the first caller runs init */
    return 0;
}
