/* The GLT API over OS threads, for comparison with weft: include glt.h
 * with -DGLT_BACKEND_PTHREADS (link with -pthread; weft is not needed).
 * (Not GLT's pthreads API over ULTs: that is glt_pthreads.h.)
 * Every ULT and tasklet is a pthread (256 KiB stack) that starts at once;
 * a GLT "thread" is a CPU: the _to variants and glt_ult_migrate_self_to pin
 * the unit to CPU dest modulo the count, and glt_get_thread_num gives the
 * GLT thread a unit was placed on (that of its creator when not placed).
 * Disabling a thread re-pins the live units placed on it to an enabled
 * thread's CPU (numbering as in glt.h). Yields are sched_yield. A unit cannot be cancelled once created (it has
 * started): glt_ult_cancel has no effect. Errors print and abort, as over
 * weft. Define _GNU_SOURCE before the first system header (affinity calls). */
#ifndef WEFT_GLT_BACKEND_PTHREADS_H
#define WEFT_GLT_BACKEND_PTHREADS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

struct glt_pth_unit {
    pthread_t th;
    void (*f)(void *);
    void *arg;
    uint64_t id;
    int thread_id; /* the GLT thread (CPU slot, its id) it is placed on */
    int joined;
    struct glt_pth_unit *prev, *next; /* live units, for re-pinning */
};

typedef struct glt_pth_unit *GLT_ult;
typedef struct glt_pth_unit *GLT_tasklet;
typedef int GLT_thread;
typedef pthread_mutex_t *GLT_mutex;
typedef pthread_barrier_t *GLT_barrier;
typedef pthread_cond_t *GLT_cond;
typedef pthread_key_t GLT_key;
typedef uint64_t GLT_ult_id;
typedef struct glt_timer {
    uint64_t start, elapsed;
} *GLT_timer;
typedef struct glt_pth_future {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ready;
    int nbytes;
    char value[];
} *GLT_future;

#define GLT_UNIT_NULL NULL
#define GLT_VERSION "GLT 2.5 API over OS threads (weft's comparison backend)"

#define GLT_PCALL(call)                                                                              \
    do {                                                                                             \
        int glt_rc_ = (call);                                                                        \
        if (glt_rc_ != 0) {                                                                          \
            fprintf(stderr, "glt: %s failed: %s (%s:%d)\n", #call, strerror(glt_rc_), __FILE__, __LINE__); \
            abort();                                                                                 \
        }                                                                                            \
    } while (0)

/* State shared by every file of the program (weak: one copy at link). */
__attribute__((weak)) uint64_t glt_pth_next_id = 1;
__attribute__((weak)) __thread struct glt_pth_unit *glt_pth_self_;
__attribute__((weak)) struct glt_pth_unit glt_pth_main_unit;
/* Guards the team, event callbacks and the list of live units (error
 * checking: an event callback that changes the team aborts). */
__attribute__((weak)) pthread_mutex_t glt_pth_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
__attribute__((weak)) struct glt_pth_unit *glt_pth_live;

static inline void glt_team_lock_acquire_(void) { GLT_PCALL(pthread_mutex_lock(&glt_pth_lock)); }
static inline void glt_team_lock_release_(void) { GLT_PCALL(pthread_mutex_unlock(&glt_pth_lock)); }

/* GLT's view of the team (glt_get_team): here threads are CPU slots. */
typedef struct glt_team {
    int num_workers; /* threads enabled now */
    int max_workers; /* threads started by glt_init */
} glt_team_t;
__attribute__((weak)) glt_team_t glt_team_obj_;

static inline glt_team_t *glt_get_team(void)
{
    if (glt_init_depth_ <= 0) return NULL;
    glt_team_obj_.num_workers = glt_team_size_();
    glt_team_obj_.max_workers = glt_team_.total;
    return &glt_team_obj_;
}

/* Nested calls are counted, as over weft. */
static inline void glt_init(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    if (glt_init_depth_++ > 0) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *n = getenv("GLT_NUM_THREADS");
    glt_team_init_(n && atoi(n) > 0 ? atoi(n) : (cores > 0 ? (int)cores : 1)); /* capped there */
    glt_pth_main_unit.th = pthread_self();
    glt_pth_main_unit.id = __atomic_fetch_add(&glt_pth_next_id, 1, __ATOMIC_RELAXED);
    glt_pth_self_ = &glt_pth_main_unit;
}

static inline void glt_finalize(void)
{
    if (glt_init_depth_ <= 0) GLT_FAIL_("glt_finalize without glt_init");
    if (--glt_init_depth_ > 0) return;
    __atomic_store_n(&glt_team_.n, 0, __ATOMIC_RELEASE);
}

/* The number of enabled threads. */
static inline int glt_get_num_threads(void) { return glt_team_size_(); }

static inline int glt_get_thread_num(void)
{
    int id = glt_pth_self_ ? __atomic_load_n(&glt_pth_self_->thread_id, __ATOMIC_RELAXED) : 0;
    int num = glt_team_num_(id);
    return num >= 0 ? num : glt_team_num_near_(id);
}

static inline void glt_pth_unlink_(void *p)
{
    struct glt_pth_unit *u = (struct glt_pth_unit *)p;
    pthread_mutex_lock(&glt_pth_lock);
    if (u->prev) u->prev->next = u->next;
    else glt_pth_live = u->next;
    if (u->next) u->next->prev = u->prev;
    pthread_mutex_unlock(&glt_pth_lock);
}

static inline void *glt_pth_start_(void *p)
{
    struct glt_pth_unit *u = (struct glt_pth_unit *)p;
    glt_pth_self_ = u;
    pthread_cleanup_push(glt_pth_unlink_, u); /* also on glt_ult_exit */
    u->f(u->arg);
    pthread_cleanup_pop(1);
    return NULL;
}

static inline void glt_pth_cpu_set_(cpu_set_t *set, int slot)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(set);
    CPU_SET(cpus > 0 ? slot % (int)cpus : 0, set);
}

static inline void glt_pth_pin_(pthread_attr_t *a, int slot)
{
    cpu_set_t set;
    glt_pth_cpu_set_(&set, slot);
    pthread_attr_setaffinity_np(a, sizeof set, &set);
}

static inline void glt_pth_create_(void (*f)(void *), void *arg, struct glt_pth_unit **out, int dest)
{
    struct glt_pth_unit *u = (struct glt_pth_unit *)calloc(1, sizeof *u);
    if (!u) GLT_PCALL(ENOMEM);
    u->f = f;
    u->arg = arg;
    u->id = __atomic_fetch_add(&glt_pth_next_id, 1, __ATOMIC_RELAXED);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 256 * 1024);
    pthread_mutex_lock(&glt_pth_lock);
    if (dest >= 0) {
        u->thread_id = dest;
        glt_pth_pin_(&a, dest);
    } else {
        u->thread_id = glt_pth_self_ ? glt_pth_self_->thread_id : 0;
    }
    u->next = glt_pth_live;
    if (u->next) u->next->prev = u;
    glt_pth_live = u;
    *out = u;
    int rc = pthread_create(&u->th, &a, glt_pth_start_, u);
    pthread_mutex_unlock(&glt_pth_lock);
    if (rc) glt_pth_unlink_(u);
    GLT_PCALL(rc);
    pthread_attr_destroy(&a);
}

static inline GLT_ult *glt_ult_malloc(int n) { return (GLT_ult *)malloc(sizeof(GLT_ult) * (size_t)n); }
static inline GLT_tasklet *glt_tasklet_malloc(int n)
{
    return (GLT_tasklet *)malloc(sizeof(GLT_tasklet) * (size_t)n);
}

/* The id (CPU slot) of thread number dest, modulo the enabled count. */
static inline int glt_pth_slot_(int dest) { return glt_team_id_(dest); }

static inline void glt_ult_create(void (*f)(void *), void *arg, GLT_ult *u) { glt_pth_create_(f, arg, u, -1); }
static inline void glt_ult_create_to(void (*f)(void *), void *arg, GLT_ult *u, int dest)
{
    glt_pth_create_(f, arg, u, glt_pth_slot_(dest));
}
static inline void glt_tasklet_create(void (*f)(void *), void *arg, GLT_tasklet *t) { glt_pth_create_(f, arg, t, -1); }
static inline void glt_tasklet_create_to(void (*f)(void *), void *arg, GLT_tasklet *t, int dest)
{
    glt_pth_create_(f, arg, t, glt_pth_slot_(dest));
}

/* GLT's names before its 2.5 API: the same calls (as in glt.h). */
#define glt_ult_creation glt_ult_create
#define glt_ult_creation_to glt_ult_create_to
#define glt_tasklet_creation glt_tasklet_create
#define glt_tasklet_creation_to glt_tasklet_create_to

static inline void glt_yield(void) { sched_yield(); }
static inline void glt_yield_to(GLT_ult u)
{
    (void)u;
    sched_yield();
}

static inline void glt_ult_join(GLT_ult *u)
{
    if (!(*u)->joined) GLT_PCALL(pthread_join((*u)->th, NULL));
    (*u)->joined = 1;
}
static inline void glt_tasklet_join(GLT_tasklet *t) { glt_ult_join(t); }
static inline void glt_ult_free(GLT_ult *u)
{
    glt_ult_join(u);
    free(*u);
    *u = NULL;
}
static inline void glt_tasklet_free(GLT_tasklet *t) { glt_ult_free(t); }

static inline void glt_ult_get_id(GLT_ult_id *id, GLT_ult u) { *id = u->id; }
static inline void glt_workunit_get_thread_id(GLT_thread_id *id) { *id = glt_get_thread_num(); }

static inline void glt_ult_migrate_self_to(GLT_thread_id id)
{
    int slot = glt_pth_slot_(id);
    cpu_set_t set;
    glt_pth_cpu_set_(&set, slot);
    pthread_mutex_lock(&glt_pth_lock); /* against a re-pin by a disable */
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (glt_pth_self_) __atomic_store_n(&glt_pth_self_->thread_id, slot, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&glt_pth_lock);
    GLT_PCALL(rc);
}

static inline void glt_ult_self(GLT_ult *u) { *u = glt_pth_self_; }
static inline void glt_tasklet_self(GLT_tasklet *t) { *t = glt_pth_self_; }
static inline void glt_ult_cancel(GLT_ult u) { (void)u; }
static inline void glt_tasklet_cancel(GLT_tasklet t) { (void)t; }
static inline void glt_ult_exit(void) { pthread_exit(NULL); }

static inline void glt_mutex_create(GLT_mutex *m)
{
    *m = (GLT_mutex)malloc(sizeof **m);
    if (!*m) GLT_PCALL(ENOMEM);
    GLT_PCALL(pthread_mutex_init(*m, NULL));
}
static inline void glt_mutex_free(GLT_mutex *m)
{
    GLT_PCALL(pthread_mutex_destroy(*m));
    free(*m);
    *m = NULL;
}
static inline void glt_mutex_lock(GLT_mutex m) { GLT_PCALL(pthread_mutex_lock(m)); }
static inline void glt_mutex_unlock(GLT_mutex m) { GLT_PCALL(pthread_mutex_unlock(m)); }
static inline int glt_mutex_trylock(GLT_mutex m)
{
    int rc = pthread_mutex_trylock(m);
    if (rc == EBUSY) return 0;
    GLT_PCALL(rc);
    return 1;
}
static inline void glt_mutex_spinlock(GLT_mutex m)
{
    while (!glt_mutex_trylock(m)) sched_yield();
}

static inline void glt_barrier_create(int n, GLT_barrier *b)
{
    *b = (GLT_barrier)malloc(sizeof **b);
    if (!*b) GLT_PCALL(ENOMEM);
    GLT_PCALL(pthread_barrier_init(*b, NULL, (unsigned)n));
}
static inline void glt_barrier_free(GLT_barrier *b)
{
    GLT_PCALL(pthread_barrier_destroy(*b));
    free(*b);
    *b = NULL;
}
static inline void glt_barrier_wait(GLT_barrier *b)
{
    int rc = pthread_barrier_wait(*b);
    if (rc != PTHREAD_BARRIER_SERIAL_THREAD) GLT_PCALL(rc);
}

static inline void glt_cond_create(GLT_cond *c)
{
    *c = (GLT_cond)malloc(sizeof **c);
    if (!*c) GLT_PCALL(ENOMEM);
    GLT_PCALL(pthread_cond_init(*c, NULL));
}
static inline void glt_cond_free(GLT_cond *c)
{
    GLT_PCALL(pthread_cond_destroy(*c));
    free(*c);
    *c = NULL;
}
static inline void glt_cond_signal(GLT_cond c) { GLT_PCALL(pthread_cond_signal(c)); }
static inline void glt_cond_broadcast(GLT_cond c) { GLT_PCALL(pthread_cond_broadcast(c)); }
static inline void glt_cond_wait(GLT_cond c, GLT_mutex m) { GLT_PCALL(pthread_cond_wait(c, m)); }

static inline uint64_t glt_pth_now_(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static inline double glt_get_wtime(void) { return (double)glt_pth_now_() * 1e-9; }
static inline void glt_timer_create(GLT_timer *t)
{
    *t = (GLT_timer)calloc(1, sizeof **t);
    if (!*t) GLT_PCALL(ENOMEM);
}
static inline void glt_timer_free(GLT_timer *t)
{
    free(*t);
    *t = NULL;
}
static inline void glt_timer_start(GLT_timer t) { t->start = glt_pth_now_(); }
static inline void glt_timer_stop(GLT_timer t) { t->elapsed = glt_pth_now_() - t->start; }
static inline void glt_timer_get_secs(GLT_timer t, double *secs) { *secs = (double)t->elapsed * 1e-9; }

static inline void glt_key_create(void (*destructor)(void *), GLT_key *k) { GLT_PCALL(pthread_key_create(k, destructor)); }
static inline void glt_key_free(GLT_key *k) { GLT_PCALL(pthread_key_delete(*k)); }
static inline void glt_key_set(GLT_key k, void *v) { GLT_PCALL(pthread_setspecific(k, v)); }
static inline void glt_key_get(GLT_key k, void **v) { *v = pthread_getspecific(k); }

static inline int glt_can_event_functions(void) { return GLT_TRUE; }
static inline int glt_can_future_functions(void) { return GLT_TRUE; }
static inline int glt_can_manage_scheduler(void) { return GLT_FALSE; }
static inline int glt_can_malleability(void) { return GLT_TRUE; }

/* Enable or disable `id`, the caller holding glt_pth_lock: the live units
 * placed on a disabled thread move to the enabled ones, round robin, by
 * re-pinning. */
static inline void glt_pth_team_apply_(int id, int on)
{
    glt_team_set_(id, on);
    int next = 0;
    for (struct glt_pth_unit *u = glt_pth_live; !on && u; u = u->next) {
        if (u->thread_id != id) continue;
        int to = glt_team_id_(next++);
        cpu_set_t set;
        glt_pth_cpu_set_(&set, to);
        pthread_setaffinity_np(u->th, sizeof set, &set); /* fails only if it is ending */
        __atomic_store_n(&u->thread_id, to, __ATOMIC_RELAXED);
    }
}

/* As over weft (glt.h), event callbacks included. */
static inline void glt_pth_team_change_(int id, int on)
{
    if (id != -1 && (id < 0 || id >= glt_team_.total))
        GLT_FAIL_("glt_thread_%s_id: no thread %d (0 .. %d)", on ? "enable" : "disable", id, glt_team_.total - 1);
    if (id == 0 && !on) GLT_FAIL_("glt_thread_disable_id: thread 0 (the main thread's) stays");
    glt_team_lock_acquire_();
    if (on) {
        int target = id == -1 ? glt_team_first_disabled_() : id;
        if (target > 0 && !glt_team_enabled_(target) && glt_event_add_ask_(id)) glt_pth_team_apply_(target, 1);
    } else {
        for (int i = id == -1 ? glt_team_.total - 1 : id; i > 0; i = id == -1 ? i - 1 : 0)
            if (glt_team_enabled_(i) && glt_event_stop_ask_((void *)(intptr_t)i)) {
                glt_pth_team_apply_(i, 0);
                glt_event_stop_done_((void *)(intptr_t)i);
                break;
            }
    }
    glt_team_lock_release_();
}

static inline void glt_thread_disable_id(int id) { glt_pth_team_change_(id, 0); }
static inline void glt_thread_enable_id(int id) { glt_pth_team_change_(id, 1); }
static inline void glt_thread_disable(void) { glt_pth_team_change_(-1, 0); }
static inline void glt_thread_enable(void) { glt_pth_team_change_(-1, 1); }

static inline void glt_future_create(int nbytes, GLT_future *f)
{
    if (nbytes < 0) GLT_PCALL(EINVAL);
    *f = (GLT_future)calloc(1, sizeof **f + (size_t)nbytes);
    if (!*f) GLT_PCALL(ENOMEM);
    (*f)->nbytes = nbytes;
    GLT_PCALL(pthread_mutex_init(&(*f)->lock, NULL));
    GLT_PCALL(pthread_cond_init(&(*f)->cond, NULL));
}
static inline void glt_future_free(GLT_future *f)
{
    pthread_mutex_destroy(&(*f)->lock);
    pthread_cond_destroy(&(*f)->cond);
    free(*f);
    *f = NULL;
}
static inline void glt_future_wait(GLT_future f, void **value)
{
    pthread_mutex_lock(&f->lock);
    while (!f->ready) pthread_cond_wait(&f->cond, &f->lock);
    pthread_mutex_unlock(&f->lock);
    if (value) *value = f->value;
}
static inline void glt_future_set(GLT_future f, void *value, int nbytes)
{
    if (nbytes < 0 || nbytes > f->nbytes || (nbytes && !value)) GLT_PCALL(EINVAL);
    pthread_mutex_lock(&f->lock);
    if (nbytes) memcpy(f->value, value, (size_t)nbytes);
    f->ready = 1;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

/* err is an errno value over this backend. */
static inline void glt_get_error_str(int err, char *str, size_t *len)
{
    const char *msg = strerror(err);
    size_t n = strlen(msg);
    if (str) memcpy(str, msg, n + 1);
    if (len) *len = n;
}

#ifdef __cplusplus
}
#endif

#endif
