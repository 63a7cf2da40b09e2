/* Runtime start and end, configuration, error strings. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fiber_hooks.h"
#include "internal.h"
#include "mem_cache.h"

struct weft_global weft_g = {.lock = PTHREAD_MUTEX_INITIALIZER, .ext_next_id = 1 /* 0 is the main ULT */};
struct core_hooks core_hooks; /* internal.h: set by the layers above, at load */
__thread struct weft_xstream_s *weft_tls_xs __attribute__((tls_model("initial-exec")));

static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;

#define DEFAULT_STACK (64u * 1024u)
#define DEFAULT_GUARD (256u * 1024u)
#define DEFAULT_SCHED_STACK (1024u * 1024u)
/* How long finalize waits without any unit ending before it looks for
 * units in pools no scheduler serves. */
#define ORPHAN_WAIT_NS (2 * 1000 * 1000ull)
/* How long units the program took out of pools must stay held, with no
 * other unit left, before finalize runs them. */
#define HELD_WAIT_NS (100 * 1000 * 1000ull)

const char *weft_strerror(int err)
{
    switch (err) {
    case WEFT_OK: return "success";
    case WEFT_ERR_INVALID: return "invalid argument";
    case WEFT_ERR_HANDLE: return "invalid handle (NULL, freed or of the wrong kind)";
    case WEFT_ERR_NOMEM: return "out of memory";
    case WEFT_ERR_UNINIT: return "weft is not initialized";
    case WEFT_ERR_INIT: return "weft is already initialized";
    case WEFT_ERR_NOT_WEFT: return "the caller is not a weft work unit";
    case WEFT_ERR_NOT_ULT: return "only a ULT other than the main ULT may do this";
    case WEFT_ERR_TASKLET_BLOCKS: return "a tasklet may not yield, join or block";
    case WEFT_ERR_JOIN_SELF: return "a work unit cannot join itself";
    case WEFT_ERR_JOINED: return "the work unit was already joined";
    case WEFT_ERR_CROSS_STREAM: return "the target is not on the caller's execution stream";
    case WEFT_ERR_POOL_ACCESS: return "private pool used from a stream that does not own it";
    case WEFT_ERR_BUSY: return "object in use";
    case WEFT_ERR_STATE: return "the work unit is in the wrong state for this operation";
    case WEFT_ERR_PRIMARY: return "not allowed on, or only allowed from, the primary stream";
    case WEFT_ERR_SYS: return "an operating system call failed";
    case WEFT_ERR_UNSUPPORTED: return "not supported by this build or machine";
    case WEFT_ERR_SCHED_BLOCKS: return "a scheduler's own context may not block";
    case WEFT_ERR_NOT_OWNER: return "the caller does not hold this lock";
    case WEFT_ERR_TIMEDOUT: return "the deadline passed before the wait ended";
    default: return "unknown weft error";
    }
}

/* ---------- configuration ---------- */

/* internal.h */
int env_long(const char *name, long lo, long hi, long *out, int allow_suffix)
{
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v) return -1;
    long unit = 1;
    if (allow_suffix && (*end == 'k' || *end == 'K')) { unit = 1024; end++; }
    else if (allow_suffix && (*end == 'm' || *end == 'M')) { unit = 1024 * 1024; end++; }
    if (__builtin_mul_overflow(n, unit, &n)) return -1; /* a wrapped product would pass the range check */
    while (isspace((unsigned char)*end)) end++;
    if (*end || n < lo || n > hi) return -1;
    *out = n;
    return 1;
}

int weft_config_init(weft_config *cfg)
{
    if (!cfg) return WEFT_ERR_INVALID;
    long n;
    int cores = topo_count_cores(); /* cores, not hardware threads */
    if (cores < 1) cores = 1;
    cfg->num_xstreams = cores;
    cfg->stack_size = DEFAULT_STACK;
    cfg->bind = -1; /* unless WEFT_BIND says: decided by weft_init() from the stream count */
    cfg->pool_kind = WEFT_POOL_FIFO;
    cfg->pool_access = WEFT_POOL_ACCESS_PRIVATE;
    cfg->huge_pages = 0;
    cfg->eager_stacks = 0;
    cfg->wait_policy = WEFT_WAIT_HYBRID;
    cfg->spin_us = 200;
    cfg->stack_guard = DEFAULT_GUARD;
    cfg->sched_stack_size = DEFAULT_SCHED_STACK;
    int r;
    if ((r = env_long("WEFT_NUM_XSTREAMS", 1, MAX_XSTREAMS, &n, 0)) < 0) return WEFT_ERR_INVALID;
    if (r) cfg->num_xstreams = (int)n;
    if ((r = env_long("WEFT_STACK_SIZE", WEFT_MIN_STACK, (long)WEFT_MAX_STACK, &n, 1)) < 0)
        return WEFT_ERR_INVALID;
    if (r) cfg->stack_size = (size_t)n;
    if ((r = env_long("WEFT_BIND", 0, 1, &n, 0)) < 0) return WEFT_ERR_INVALID;
    if (r) cfg->bind = (int)n;
    if ((r = env_long("WEFT_HUGE_PAGES", 0, 1, &n, 0)) < 0) return WEFT_ERR_INVALID;
    if (r) cfg->huge_pages = (int)n;
    if ((r = env_long("WEFT_EAGER_STACKS", 0, 1, &n, 0)) < 0) return WEFT_ERR_INVALID;
    if (r) cfg->eager_stacks = (int)n;
    const char *v = getenv("WEFT_WAIT_POLICY");
    if (v && *v) {
        if (!strcmp(v, "hybrid")) cfg->wait_policy = WEFT_WAIT_HYBRID;
        else if (!strcmp(v, "active")) cfg->wait_policy = WEFT_WAIT_ACTIVE;
        else if (!strcmp(v, "passive")) cfg->wait_policy = WEFT_WAIT_PASSIVE;
        else return WEFT_ERR_INVALID;
    }
    if ((r = env_long("WEFT_SPIN_US", 0, WEFT_MAX_SPIN_US, &n, 0)) < 0) return WEFT_ERR_INVALID;
    if (r) cfg->spin_us = n;
    if ((r = env_long("WEFT_STACK_GUARD", 0, (long)WEFT_MAX_STACK, &n, 1)) < 0) return WEFT_ERR_INVALID;
    if (r) cfg->stack_guard = (size_t)n;
    if ((r = env_long("WEFT_SCHED_STACK_SIZE", WEFT_MIN_SCHED_STACK, (long)WEFT_MAX_STACK, &n, 1)) < 0)
        return WEFT_ERR_INVALID;
    if (r) cfg->sched_stack_size = (size_t)n;
    return WEFT_OK;
}

static int config_valid(const weft_config *c)
{
    return c->num_xstreams >= 1 && c->num_xstreams <= MAX_XSTREAMS && c->stack_size >= WEFT_MIN_STACK &&
           c->stack_size <= WEFT_MAX_STACK && c->bind >= -1 && c->bind <= 1 &&
           (c->huge_pages == 0 || c->huge_pages == 1) && (c->eager_stacks == 0 || c->eager_stacks == 1) &&
           pool_kind_valid((int)c->pool_kind, (int)c->pool_access) && c->wait_policy >= WEFT_WAIT_HYBRID &&
           c->wait_policy <= WEFT_WAIT_PASSIVE && c->spin_us >= 0 && c->spin_us <= WEFT_MAX_SPIN_US &&
           c->stack_guard <= WEFT_MAX_STACK && c->sched_stack_size >= WEFT_MIN_SCHED_STACK &&
           c->sched_stack_size <= WEFT_MAX_STACK;
}

/* ---------- init ---------- */

static void primary_sched_entry(void *arg)
{
    struct weft_xstream_s *xs = arg;
    hook_switch_end(xs->sched_unit);
    unit_run_pending(xs);
    sched_main_loop(xs); /* the primary's loop never ends: finalize abandons it */
    abort();
}

static void release_everything(void);

static int init_primary(void)
{
    struct weft_xstream_s *xs = xs_alloc();
    if (!xs) return WEFT_ERR_NOMEM;
    xs->is_primary = 1;
    xs->thread = pthread_self();
    weft_g.primary = xs;
    int rc;
    struct weft_sched_s *s;
    if ((rc = sched_make_owned(&s))) return rc;
    if ((rc = sched_attach(s, xs))) return rc;
    xs->sched = xs->main_sched = s;
    if ((rc = xs_register(xs))) return rc;
    WEFT_TLS(weft_tls_xs) = xs; /* caches below belong to the primary */
    if ((rc = guard_install_thread(xs))) return rc;

    /* The main ULT: this thread's own stack and flow of control. */
    struct weft_unit_s *m = mem_unit_alloc(xs);
    if (!m) return WEFT_ERR_NOMEM;
    m->kind = KIND_MAIN;
    m->id = 0;
    /* As a lock owner it is someone new in each runtime: a lock an earlier
     * runtime's main ULT left held (or the forking parent's) stays held.
     * Drawn downwards from 2^62, far above any unit id (which count up
     * from 1), and never reset: a forked child draws past its parent's. */
    static uint64_t main_owners;
    weft_g.main_owner_id = ((uint64_t)1 << 62) - ++main_owners;
    m->pool = s->pools[0];
    m->home = xs; /* it must end where it began */
    m->bound = 1;
    m->migratable = 0;
    m->started = 1;
    m->xs = xs;
    pthread_attr_t a;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        pthread_attr_getstack(&a, &m->stack_lo, &m->stack_size);
        pthread_attr_destroy(&a);
    }
    void *lo;
    size_t size;
    if (fork_stack(__builtin_frame_address(0), &lo, &size)) {
        m->stack_lo = lo; /* the child of a fork() made by a ULT: it runs on the ULT's stack */
        m->stack_size = size;
    }
    hook_fiber_create(m, true);
    atomic_store(&m->state, WEFT_STATE_RUNNING);
    atomic_store(&m->join_claimed, JOIN_DONE);
    atomic_store(&m->magic, MAGIC_UNIT);
    weft_g.main_unit = m;
    xs->cur = m;

    /* The primary's scheduler needs a stack of its own. */
    struct weft_unit_s *su = mem_unit_alloc(xs);
    if (!su) return WEFT_ERR_NOMEM;
    su->stack_size = weft_g.sched_stack_size;
    if ((rc = mem_stack_get(xs, su))) {
        mem_unit_release(xs, su);
        return rc;
    }
    su->kind = KIND_SCHED;
    su->xs = xs;
#ifdef WEFT_ASAN
    su->asan_fake = NULL;
#endif
    weft_ctx_make(&su->ctx, su->stack_lo, unit_stack_usable(su), primary_sched_entry, xs);
    hook_fiber_create(su, false);
    atomic_store(&su->magic, MAGIC_UNIT);
    xs->sched_unit = su;
    atomic_store(&xs->state, XS_RUNNING);
    if (weft_g.bind_default) {
        xs_bind(xs, topo_core_cpu(0));
    } else if (weft_g.cores > 1) {
        /* Unbound: its home is where it runs now, and the other streams'
         * homes are the cores after this one's (xs_create, weft_xstream_settle). */
        xs->home_cpu = sched_getcpu();
        weft_g.start_core = topo_cpu_core(xs->home_cpu);
    }
    return WEFT_OK;
}

int weft_init(const weft_config *cfg)
{
    fork_register();
    pthread_mutex_lock(&g_init_lock);
    if (atomic_load(&weft_g.initialized)) {
        pthread_mutex_unlock(&g_init_lock);
        return WEFT_ERR_INIT;
    }
    weft_config c;
    int rc = topo_init(); /* first: the defaults count its cores */
    if (rc) {
        pthread_mutex_unlock(&g_init_lock);
        return rc;
    }
    if (cfg) c = *cfg;
    else rc = weft_config_init(&c);
    if (rc || !config_valid(&c)) {
        topo_finalize();
        pthread_mutex_unlock(&g_init_lock);
        return WEFT_ERR_INVALID;
    }
    int cores = topo_count_cores();
    if (c.bind < 0) c.bind = 0; /* unbound unless asked: see weft.h, weft_config.bind */
    weft_g.cores = cores > 0 ? cores : 1;
    weft_g.start_core = -1; /* init_primary() sets it for unbound streams */
    weft_g.cfg = c;
    weft_g.page_size = (size_t)sysconf(_SC_PAGESIZE);
    weft_g.stack_size = (c.stack_size + weft_g.page_size - 1) & ~(weft_g.page_size - 1);
    weft_g.guard_size = (c.stack_guard + weft_g.page_size - 1) & ~(weft_g.page_size - 1);
    weft_g.sched_stack_size = (c.sched_stack_size + weft_g.page_size - 1) & ~(weft_g.page_size - 1);
    weft_g.bind_default = c.bind;
    weft_g.huge_stacks = c.huge_pages;
    weft_g.fast_stack_size = c.huge_pages ? 0 : weft_g.stack_size;
    weft_g.eager_stacks = c.eager_stacks;
    idle_init();
    stacks_init();
    weft_set_wait_policy(c.wait_policy, c.spin_us);
    atomic_store(&weft_g.ext_created, 0);
    atomic_store(&weft_g.ext_finished, 0);
    atomic_store(&weft_g.unguarded_stacks, 0);
    stack_waiters_reset();

    if ((rc = guard_install_handler())) goto fail;
    if ((rc = init_primary())) goto fail;
    atomic_store_explicit(&weft_g.initialized, 1, memory_order_release);
    for (int i = 1; i < c.num_xstreams; i++) {
        weft_xstream x;
        if ((rc = weft_xstream_create(NULL, &x))) {
            pthread_mutex_unlock(&g_init_lock);
            weft_finalize();
            return rc;
        }
    }
    pthread_mutex_unlock(&g_init_lock);
    return WEFT_OK;

fail:
    release_everything();
    pthread_mutex_unlock(&g_init_lock);
    return rc;
}

int ext_enter(void)
{
    /* Sequentially consistent against weft_finalize(): it raises `closing`
     * and then reads `ext_active`; we raise `ext_active` and then read
     * `closing`. One of the two sees the other. */
    atomic_fetch_add(&weft_g.ext_active, 1);
    if (likely(!atomic_load(&weft_g.closing) && atomic_load(&weft_g.initialized))) return WEFT_OK;
    int rc = atomic_load(&weft_g.initialized) ? WEFT_ERR_STATE : WEFT_ERR_UNINIT;
    ext_leave();
    return rc;
}

int weft_initialized(void)
{
    return atomic_load_explicit(&weft_g.initialized, memory_order_acquire);
}

/* fork.c: not held across fork() (a fork during weft_init() or
 * weft_finalize() is undefined), so in the child it may be held by a thread
 * that is gone. The child's only thread makes it new. */
void runtime_fork_child(void)
{
    pthread_mutex_init(&g_init_lock, NULL);
}

/* ---------- debug invariants ---------- */

#ifdef WEFT_ASSERTS
void weft_assert_fail(const char *what, const char *file, int line)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "weft: internal invariant broken at %s:%d: %s\n", file, line, what);
    ssize_t w = write(2, buf, n > 0 && (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    (void)w;
    abort();
}
#endif

/* ---------- finalize ---------- */

/* Run until no unit is left and no plain thread is inside a call that
 * could add one or still reads one. `ext_active` is read first: once it is
 * 0 with `closing` raised, no plain thread adds a unit any more, so a zero
 * count of live units that follows is final. Units that no stream can run
 * are moved to the primary stream when nothing moves: those in a pool no
 * scheduler serves (a freed stream's, a user pool never attached, a pool
 * only schedulers stacked out of reach would serve); then, when no other
 * unit is left, those the program took out of pools and kept for
 * HELD_WAIT_NS. */
static void finalize_run_all(void)
{
    uint64_t last = 0, since = 0, held_at = 0;
    for (;;) {
        if (atomic_load(&weft_g.ext_active) == 0) {
            uint64_t live = units_live();
            if (live == 0) return;
            uint64_t now = clock_ns();
            if (live != last || !since) {
                last = live;
                since = now;
                held_at = 0;
            } else if (now - since > ORPHAN_WAIT_NS) {
                /* Units in pools no scheduler serves; when there are none,
                 * units the program took out of pools and holds, if they
                 * are all that is left and stay held (a push or run that
                 * comes later gets WEFT_ERR_STATE). */
                if (!pools_adopt_orphans(weft_g.primary) && (!held_at || now - held_at >= HELD_WAIT_NS)) {
                    units_adopt_held(weft_g.primary, live, held_at != 0);
                    held_at = now;
                }
                /* ULTs waiting for a stack: one tries again (unit.c). */
                if (atomic_load(&weft_g.stack_waiters)) stack_waiters_wake(weft_g.primary, 1);
                since = now;
            }
        }
        weft_yield();
    }
}

static void release_everything(void)
{
    struct weft_xstream_s *xs = weft_g.primary;
    if (xs) {
        if (xs->main_sched) {
            sched_detach(xs->main_sched);
            atomic_store(&xs->main_sched->in_run, 0); /* its loop is abandoned with its stack */
        }
#ifdef WEFT_TSAN
        if (weft_g.main_unit) weft_g.main_unit->tsan_fiber = NULL; /* the thread's own */
#endif
        guard_remove_thread(xs);
        if (xs->rank >= 0) xs_unregister(xs);
        mem_cache_flush(xs);
        atomic_store(&xs->magic, MAGIC_DEAD);
        xs->dead_next = weft_g.dead_streams;
        weft_g.dead_streams = xs;
    }
    WEFT_TLS(weft_tls_xs) = NULL;
    guard_remove_handler();
    for (int i = 0; i < weft_g.n_owned_scheds; i++) sched_destroy(weft_g.owned_scheds[i]);
    free(weft_g.owned_scheds);
    weft_g.owned_scheds = NULL;
    weft_g.n_owned_scheds = weft_g.owned_scheds_cap = 0;
    mem_finalize(); /* every descriptor and stack, the main ULT's included */
    while (weft_g.dead_streams) {
        struct weft_xstream_s *n = weft_g.dead_streams->dead_next;
        xs_spare(weft_g.dead_streams);
        weft_g.dead_streams = n;
    }
    free(weft_g.streams);
    weft_g.streams = NULL;
    weft_g.streams_cap = weft_g.streams_used = 0;
    atomic_store(&weft_g.n_streams, 0);
    weft_g.primary = NULL;
    weft_g.main_unit = NULL;
    topo_finalize();
}

int weft_finalize(void)
{
    if (!atomic_load_explicit(&weft_g.initialized, memory_order_acquire)) return WEFT_ERR_UNINIT;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs || xs != weft_g.primary || xs->cur != weft_g.main_unit) return WEFT_ERR_PRIMARY;

    /* From now on plain threads add no units or streams (ext_enter); units
     * keep creating as they please. Every unit runs to its end first:
     * nothing is lost at exit. A plain thread already inside a create is
     * waited for before the units are counted, so its unit is counted. */
    atomic_store(&weft_g.closing, 1);
    finalize_run_all();

    /* Stop the other streams, highest rank first. */
    for (;;) {
        struct weft_xstream_s *victim = NULL;
        pthread_mutex_lock(&weft_g.lock);
        for (int i = weft_g.streams_used - 1; i > 0 && !victim; i--) victim = weft_g.streams[i];
        pthread_mutex_unlock(&weft_g.lock);
        if (!victim) break;
        weft_xstream_free(&victim);
    }
    /* A thread calling weft_init() meanwhile waits here, then starts a
     * runtime of its own on clean state. */
    pthread_mutex_lock(&g_init_lock);
    release_everything();
    atomic_store(&weft_g.closing, 0);
    atomic_store_explicit(&weft_g.initialized, 0, memory_order_release);
    pthread_mutex_unlock(&g_init_lock);
    return WEFT_OK;
}
