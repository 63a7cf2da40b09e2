/* Execution streams: OS threads that run a scheduler loop.
 *
 * Each stream has an inbox, a lock-free LIFO that other threads push ready
 * units into when those units belong to one of the stream's private pools
 * (or must run on this stream). The stream moves them into place itself, so
 * its private pools are only ever touched by their owner. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fiber_hooks.h"
#include "internal.h"
#include "sys.h"
#include "mem_cache.h"
#include "pool_ops.h"
#include "sched_pick.h"

/* ---------- the stream's OS thread ---------- */

static int tls_sum(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_TLS) {
            size_t align = ph->p_align ? ph->p_align : 1;
            *(size_t *)arg += (ph->p_memsz + align - 1) / align * align + align;
        }
    }
    return 0;
}

/* glibc carves a thread's static TLS blocks (every module's thread-local
 * variables, a threadprivate array of 1 MiB say) and its thread descriptor
 * out of the stack size it is given: the stream's thread gets the
 * scheduler's stack on top of them, plus room for the descriptor. */
static size_t thread_stack_size(void)
{
    size_t tls = 0;
    dl_iterate_phdr(tls_sum, &tls);
    size_t size = weft_g.sched_stack_size + tls + ((size_t)32 << 10);
    return (size + weft_g.page_size - 1) & ~(weft_g.page_size - 1);
}

/* ---------- stopping and idling (the loops are in sched.c) ---------- */

/* A stream may end once nothing it schedules is ready or blocked. Closing
 * the inbox last makes the decision final: a push that comes later is
 * refused and goes straight into the (now unscheduled) pool. */
bool xs_can_stop(struct weft_xstream_s *xs)
{
    struct weft_sched_s *s = xs_main_sched(xs);
    if (xs->runnext_head || xs->stash) return false;
    /* A stacked scheduler paused here (its unit waiting in some pool) comes
     * back to run here: it is bound, and owns its private pools through us. */
    if (xs->n_stacked) return false;
    if (atomic_load_explicit(&xs->n_timers, memory_order_relaxed)) return false; /* a timed wait is on */
    for (int i = 0; i < s->npools; i++) {
        struct weft_pool_s *p = s->pools[i];
        if (atomic_load_explicit(&p->n_blocked, memory_order_acquire) > 0) return false;
        if (pool_count(p) > 0) return false; /* private pools here are ours */
    }
    struct weft_unit_s *empty = NULL;
    return atomic_compare_exchange_strong(&xs->inbox, &empty, INBOX_CLOSED);
}

/* ---------- stream objects ---------- */

int xs_check(struct weft_xstream_s *xs)
{
    if (!handle_ok(xs) || atomic_load_explicit(&xs->magic, memory_order_relaxed) != MAGIC_XS) return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

/* Streams of runtimes that ended (and failed creations), for reuse: their
 * memory is handle memory (handle.c), never given back. */
static struct weft_xstream_s *g_spare_streams; /* under weft_g.lock, linked by dead_next */

void xs_spare(struct weft_xstream_s *xs)
{
    atomic_store(&xs->magic, MAGIC_DEAD);
    pthread_mutex_lock(&weft_g.lock);
    xs->dead_next = g_spare_streams;
    g_spare_streams = xs;
    pthread_mutex_unlock(&weft_g.lock);
}

struct weft_xstream_s *xs_alloc(void)
{
    pthread_mutex_lock(&weft_g.lock);
    struct weft_xstream_s *xs = g_spare_streams;
    if (xs) g_spare_streams = xs->dead_next;
    pthread_mutex_unlock(&weft_g.lock);
    if (!xs && !(xs = handle_alloc(sizeof *xs, CACHE_LINE))) return NULL;
    memset(xs, 0, sizeof *xs);
    xs->cpu = -1;
    xs->home_cpu = -1;
    xs->rank = -1;
    xs->rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)xs; /* any nonzero seed */
    atomic_store(&xs->magic, MAGIC_XS);
    return xs;
}

/* Keep the memory until finalize so that stale handles read "dead". */
void xs_release(struct weft_xstream_s *xs)
{
    atomic_store(&xs->magic, MAGIC_DEAD);
    pthread_mutex_lock(&weft_g.lock);
    xs->dead_next = weft_g.dead_streams;
    weft_g.dead_streams = xs;
    pthread_mutex_unlock(&weft_g.lock);
}

/* Give the stream the lowest free rank. */
int xs_register(struct weft_xstream_s *xs)
{
    pthread_mutex_lock(&weft_g.lock);
    if (!weft_g.streams) {
        /* Full size at once and never moved: weft_xstream_get reads it
         * without the lock. */
        weft_g.streams = sys_calloc(MAX_XSTREAMS, sizeof *weft_g.streams);
        if (!weft_g.streams) {
            pthread_mutex_unlock(&weft_g.lock);
            return WEFT_ERR_NOMEM;
        }
        weft_g.streams_cap = MAX_XSTREAMS;
    }
    int r = 0;
    while (r < weft_g.streams_cap && weft_g.streams[r]) r++;
    if (r == weft_g.streams_cap) {
        pthread_mutex_unlock(&weft_g.lock);
        return WEFT_ERR_NOMEM; /* MAX_XSTREAMS live streams */
    }
    if (r >= weft_g.streams_used) weft_g.streams_used = r + 1;
    __atomic_store_n(&weft_g.streams[r], xs, __ATOMIC_RELEASE);
    xs->rank = r;
    atomic_fetch_add(&weft_g.n_streams, 1);
    pthread_mutex_unlock(&weft_g.lock);
    return WEFT_OK;
}

/* Fold the stream's unit counts into the global ones and free its rank. */
void xs_unregister(struct weft_xstream_s *xs)
{
    pthread_mutex_lock(&weft_g.lock);
    atomic_fetch_add(&weft_g.ext_finished, atomic_load(&xs->n_finished));
    atomic_fetch_add(&weft_g.ext_created, atomic_load(&xs->n_created));
    if (xs->rank >= 0 && xs->rank < weft_g.streams_cap && weft_g.streams[xs->rank] == xs)
        __atomic_store_n(&weft_g.streams[xs->rank], NULL, __ATOMIC_RELEASE);
    atomic_fetch_sub(&weft_g.n_streams, 1);
    pthread_mutex_unlock(&weft_g.lock);
}

static void native_stack(void **lo, size_t *size)
{
    pthread_attr_t a;
    *lo = NULL;
    *size = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        pthread_attr_getstack(&a, lo, size);
        pthread_attr_destroy(&a);
    }
}

/* The OS thread of a secondary stream. */
static void *xs_thread_main(void *arg)
{
    struct weft_xstream_s *xs = arg;
    WEFT_TLS(weft_tls_xs) = xs;
    if (xs->cpu < 0 && xs->home_cpu >= 0) topo_bind_thread(pthread_self(), -1); /* stays where it started */
    /* The scheduler's descriptor is written on every switch: take it from
     * this stream's own slab, away from other streams' hot lines. */
    struct weft_unit_s *su = mem_unit_alloc(xs);
    if (!su || guard_install_thread(xs) != WEFT_OK) {
        /* No scheduler context, or no signal stack to report an overflow
         * on: the stream fails to start (xs_create reports it). */
        if (su) mem_unit_release(xs, su);
        mem_cache_flush(xs);
        WEFT_TLS(weft_tls_xs) = NULL;
        atomic_store_explicit(&xs->state, XS_FAILED, memory_order_release);
        return NULL;
    }
    su->kind = KIND_SCHED;
    atomic_store(&su->magic, MAGIC_UNIT);
    xs->sched_unit = su;
    native_stack(&su->stack_lo, &su->stack_size);
    hook_fiber_create(su, true);
    su->xs = xs;
    xs->cur = su;
    atomic_store_explicit(&xs->state, XS_RUNNING, memory_order_release);

    sched_main_loop(xs);

    sched_detach(xs_main_sched(xs)); /* its pools have no owner now */
#ifdef WEFT_TSAN
    su->tsan_fiber = NULL; /* the thread's own fiber is not ours to destroy */
#endif
    mem_cache_flush(xs);
    guard_remove_thread(xs);
    WEFT_TLS(weft_tls_xs) = NULL;
    atomic_store_explicit(&xs->state, XS_TERMINATED, memory_order_release);
    return NULL;
}

int xs_bind(struct weft_xstream_s *xs, int cpu)
{
    int rc = topo_bind_thread(xs->thread, cpu);
    if (rc == WEFT_OK) __atomic_store_n(&xs->cpu, cpu, __ATOMIC_RELAXED); /* its idle loop reads it */
    return rc;
}

static int own_sched(struct weft_sched_s *s)
{
    pthread_mutex_lock(&weft_g.lock);
    if (weft_g.n_owned_scheds == weft_g.owned_scheds_cap) {
        int cap = weft_g.owned_scheds_cap ? weft_g.owned_scheds_cap * 2 : 16;
        struct weft_sched_s **t = sys_realloc(weft_g.owned_scheds, (size_t)cap * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&weft_g.lock);
            return WEFT_ERR_NOMEM;
        }
        weft_g.owned_scheds = t;
        weft_g.owned_scheds_cap = cap;
    }
    weft_g.owned_scheds[weft_g.n_owned_scheds++] = s;
    pthread_mutex_unlock(&weft_g.lock);
    return WEFT_OK;
}

/* A runtime-owned default scheduler, freed at finalize. */
int sched_make_owned(struct weft_sched_s **out)
{
    int rc = sched_make_default(&weft_g.cfg, out);
    if (rc) return rc;
    if ((rc = own_sched(*out))) {
        sched_destroy(*out);
        *out = NULL;
    }
    return rc;
}

static int xs_create(weft_sched sched, weft_xstream *out);

int weft_xstream_create(weft_sched sched, weft_xstream *out)
{
    if (!atomic_load_explicit(&weft_g.initialized, memory_order_acquire)) return WEFT_ERR_UNINIT;
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (WEFT_TLS(weft_tls_xs)) return xs_create(sched, out);
    int rc = ext_enter(); /* a plain thread: not while finalize runs */
    if (rc) return rc;
    rc = xs_create(sched, out);
    ext_leave();
    return rc;
}

static int xs_create(weft_sched sched, weft_xstream *out)
{
    int rc;
    if (sched && (rc = sched_check(sched))) return rc;
    if (sched && atomic_load(&sched->in_run)) return WEFT_ERR_BUSY;
    if (!sched && (rc = sched_make_owned(&sched))) return rc;

    struct weft_xstream_s *xs = xs_alloc();
    if (!xs) return WEFT_ERR_NOMEM;
    if ((rc = sched_attach(sched, xs))) goto fail_xs;
    xs->sched = xs->main_sched = sched;
    if ((rc = xs_register(xs))) goto fail_sched;
    int ncores = topo_num_cores();
    if (weft_g.bind_default) xs->cpu = topo_core_cpu(xs->rank % ncores);
    /* Unbound, stream k still starts on the k-th core from the initial
     * thread's, then may go anywhere: left to itself, the OS may start it
     * beside the thread that creates it and keep both streams on one CPU
     * for milliseconds while another idles (seen on a 2-CPU VM in a
     * quarter of short runs: nested regions 17x slower). */
    if (xs->cpu < 0 && ncores > 1 && weft_g.start_core >= 0)
        xs->home_cpu = topo_core_cpu((weft_g.start_core + xs->rank) % ncores);

    pthread_attr_t a;
    pthread_attr_init(&a);
    /* The scheduler, and the tasklets on it, run on the thread's stack:
     * the same size and guard as the primary's scheduler stack. */
    pthread_attr_setstacksize(&a, thread_stack_size());
    pthread_attr_setguardsize(&a, weft_g.guard_size);
    cpu_set_t set;
    int first_cpu = xs->cpu >= 0 ? xs->cpu : xs->home_cpu;
    if (first_cpu >= 0) {
        /* Bind before the thread runs: no early migration to undo (an
         * unbound stream gets its whole mask back as it starts). */
        CPU_ZERO(&set);
        CPU_SET(first_cpu, &set);
        pthread_attr_setaffinity_np(&a, sizeof set, &set);
    }
    int prc = sys_pthread_create(&xs->thread, &a, xs_thread_main, xs);
    pthread_attr_destroy(&a);
    if (prc != 0) {
        rc = prc == EAGAIN ? WEFT_ERR_NOMEM : WEFT_ERR_SYS;
        xs_unregister(xs);
        goto fail_sched;
    }
    /* Wait for the thread to set itself up: its failure is ours to report. */
    int st;
    while ((st = atomic_load_explicit(&xs->state, memory_order_acquire)) == XS_CREATED) sched_yield();
    if (st == XS_FAILED) {
        pthread_join(xs->thread, NULL);
        xs_unregister(xs);
        rc = WEFT_ERR_NOMEM;
        goto fail_sched;
    }
    *out = xs;
    return WEFT_OK;

fail_sched:
    sched_detach(sched);
    inbox_close_unstarted(xs);
fail_xs:
    xs_spare(xs);
    return rc;
}

/* Ask `xs` to stop and wait for it. */
int xs_stop_and_join(struct weft_xstream_s *xs)
{
    int expected = XS_JOIN_NONE;
    if (!atomic_compare_exchange_strong(&xs->join_state, &expected, XS_JOIN_BUSY)) {
        /* Someone else joins it: wait for them. */
        while (atomic_load(&xs->join_state) != XS_JOIN_DONE)
            if (weft_yield() != WEFT_OK) sched_yield();
        return WEFT_OK;
    }
    atomic_store_explicit(&xs->stop_requested, 1, memory_order_release);
    xs_notify(xs);
    if (WEFT_TLS(weft_tls_xs)) {
        /* A ULT waits cooperatively: its own stream keeps working. */
        while (atomic_load_explicit(&xs->state, memory_order_acquire) != XS_TERMINATED) weft_yield();
    }
    pthread_join(xs->thread, NULL);
    WEFT_ASSERT(atomic_load(&xs->state) == XS_TERMINATED && atomic_load(&xs->join_state) == XS_JOIN_BUSY);
    atomic_store(&xs->join_state, XS_JOIN_DONE);
    return WEFT_OK;
}

static int xs_join_check(struct weft_xstream_s *xs)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if (xs->is_primary) return WEFT_ERR_PRIMARY;
    struct weft_xstream_s *self = WEFT_TLS(weft_tls_xs);
    if (self == xs) return WEFT_ERR_CROSS_STREAM;
    if (self && self->cur->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
    if (self && self->cur == self->sched_unit) return WEFT_ERR_SCHED_BLOCKS; /* it would stop its stream */
    return WEFT_OK;
}

int weft_xstream_join(weft_xstream xs)
{
    int rc = xs_join_check(xs);
    return rc ? rc : xs_stop_and_join(xs);
}

int weft_xstream_free(weft_xstream *xsp)
{
    if (!xsp) return WEFT_ERR_INVALID;
    struct weft_xstream_s *xs = *xsp;
    int rc = xs_join_check(xs);
    if (rc) return rc;
    if ((rc = xs_stop_and_join(xs))) return rc;
    uint32_t alive = MAGIC_XS;
    if (!atomic_compare_exchange_strong(&xs->magic, &alive, MAGIC_DEAD)) return WEFT_ERR_HANDLE;
    xs_unregister(xs);
    mem_unit_release(WEFT_TLS(weft_tls_xs), xs->sched_unit);
    xs->sched_unit = NULL;
    xs_release(xs);
    *xsp = NULL;
    return WEFT_OK;
}

int weft_xstream_self(weft_xstream *out)
{
    if (!out) return WEFT_ERR_INVALID;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return WEFT_ERR_NOT_WEFT;
    *out = xs;
    return WEFT_OK;
}

int weft_xstream_rank(weft_xstream xs, int *rank)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if (!rank) return WEFT_ERR_INVALID;
    *rank = xs->rank;
    return WEFT_OK;
}

int weft_xstream_count(int *n)
{
    if (!atomic_load(&weft_g.initialized)) return WEFT_ERR_UNINIT;
    if (!n) return WEFT_ERR_INVALID;
    *n = atomic_load(&weft_g.n_streams);
    return WEFT_OK;
}

int weft_xstream_get(int rank, weft_xstream *out)
{
    if (!atomic_load(&weft_g.initialized)) return WEFT_ERR_UNINIT;
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    /* No lock: the table never moves while the runtime lives. */
    if (rank >= 0 && rank < weft_g.streams_cap) *out = __atomic_load_n(&weft_g.streams[rank], __ATOMIC_ACQUIRE);
    return *out ? WEFT_OK : WEFT_ERR_INVALID;
}

int weft_xstream_set_cpubind(weft_xstream xs, int cpu)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if (cpu < -1 || (cpu >= 0 && !topo_cpu_valid(cpu))) return WEFT_ERR_INVALID;
    if (atomic_load(&xs->state) == XS_TERMINATED) return WEFT_ERR_STATE;
    return xs_bind(xs, cpu);
}

int weft_xstream_get_cpubind(weft_xstream xs, int *cpu)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if (!cpu) return WEFT_ERR_INVALID;
    *cpu = __atomic_load_n(&xs->cpu, __ATOMIC_RELAXED);
    return WEFT_OK;
}

/* ---------- settling: an unbound stream back on its own CPU ---------- */

#define SETTLE_PERIOD_NS (1000 * 1000ull)     /* a stream looks at most this often */
#define SETTLE_FRESH_NS (10 * 1000 * 1000ull) /* another's CPU counts if said this recently */
#define SETTLE_HOP_NS (20 * 1000 * 1000ull)   /* a stream moves at most this often */

int weft_xstream_settle(int *moved)
{
    if (moved) *moved = 0;
    if (!atomic_load_explicit(&weft_g.initialized, memory_order_acquire)) return WEFT_ERR_UNINIT;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs) return WEFT_ERR_NOT_WEFT;
    uint64_t now = clock_ns();
    if (now < xs->settle_next_ns) return WEFT_OK;
    xs->settle_next_ns = now + SETTLE_PERIOD_NS;
    int cpu = sched_getcpu(), home = xs->home_cpu;
    if (cpu < 0) return WEFT_OK;
    atomic_store_explicit(&xs->on_cpu, cpu, memory_order_relaxed);
    atomic_store_explicit(&xs->on_cpu_ns, now, memory_order_relaxed);
    if (__atomic_load_n(&xs->cpu, __ATOMIC_RELAXED) >= 0 || home < 0 || cpu == home || now < xs->hop_next_ns)
        return WEFT_OK;
    /* Another awake stream said lately that it runs on our CPU, and none
     * that it runs on our home. */
    bool crowded = false;
    int live = atomic_load(&weft_g.n_streams);
    for (int r = 0; r < weft_g.streams_cap && live > 0; r++) {
        struct weft_xstream_s *o = __atomic_load_n(&weft_g.streams[r], __ATOMIC_ACQUIRE);
        if (!o) continue;
        live--;
        if (o == xs || atomic_load_explicit(&o->sleeping, memory_order_relaxed)) continue;
        uint64_t said = atomic_load_explicit(&o->on_cpu_ns, memory_order_relaxed);
        if (said == 0 || now - said > SETTLE_FRESH_NS) continue;
        int oc = atomic_load_explicit(&o->on_cpu, memory_order_relaxed);
        if (oc == home) return WEFT_OK;
        crowded |= oc == cpu;
    }
    if (!crowded) return WEFT_OK;
    /* Pinned to home for a moment, then the mask it had: the OS moves a
     * thread at once when its CPU leaves its mask, and leaves it there
     * when the mask widens again. Not when the mask was narrowed to
     * exclude home (the program's choice). */
    cpu_set_t mask, one;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0 || !CPU_ISSET(home, &mask) || CPU_COUNT(&mask) < 2)
        return WEFT_OK;
    xs->hop_next_ns = now + SETTLE_HOP_NS;
    CPU_ZERO(&one);
    CPU_SET(home, &one);
    /* Best effort: where the OS refuses (a seccomp filter, a cgroup that
     * changed), the stream stays where it is. */
    if (sched_setaffinity(0, sizeof one, &one) != 0) return WEFT_OK;
    sched_setaffinity(0, sizeof mask, &mask);
    if (moved) *moved = 1;
    return WEFT_OK;
}

int weft_xstream_get_pools(weft_xstream xs, int max, weft_pool *pools, int *n)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if (!n || max < 0 || (max > 0 && !pools)) return WEFT_ERR_INVALID;
    return weft_sched_get_pools(xs_main_sched(xs), max, pools, n);
}

int weft_xstream_get_main_sched(weft_xstream xs, weft_sched *out)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if (!out) return WEFT_ERR_INVALID;
    *out = xs_main_sched(xs);
    return WEFT_OK;
}

int weft_xstream_set_main_sched(weft_xstream xs, weft_sched sched)
{
    int rc = xs_check(xs);
    if (rc) return rc;
    if ((rc = sched_check(sched))) return rc;
    if (WEFT_TLS(weft_tls_xs) != xs) return WEFT_ERR_CROSS_STREAM;
    struct weft_unit_s *self = xs->cur;
    if (self->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
    if (self == xs->sched_unit) return WEFT_ERR_SCHED_BLOCKS;
    struct weft_sched_s *old = xs_main_sched(xs);
    if (sched == old) return WEFT_OK;
    if (xs->sched != old) return WEFT_ERR_STATE; /* a stacked scheduler runs */
    if (atomic_load(&sched->in_run)) return WEFT_ERR_BUSY;
    /* Units in flight towards our private pools land first. */
    if (atomic_load(&xs->inbox)) inbox_drain(xs);
    for (int i = 0; i < old->npools; i++) {
        struct weft_pool_s *p = old->pools[i];
        if (sched_has_pool(sched, p)) continue;
        /* A pool another stream's scheduler serves too keeps being run. */
        if (atomic_load(&p->n_scheds) > 1) continue;
        if (pool_count(p) > 0) return WEFT_ERR_BUSY;
        /* The caller's own pool counts no blocked unit for it: it runs. */
        if (atomic_load(&p->n_blocked) > 0) return WEFT_ERR_BUSY;
    }
    /* Private pools shared by old and new stay with this stream: detach the
     * old scheduler first so that attaching the new one may claim them. */
    sched_detach(old);
    if ((rc = sched_attach(sched, xs))) {
        sched_attach(old, xs);
        return rc;
    }
    if (self->pool && !sched_has_pool(sched, self->pool)) unit_set_pool(self, sched->pools[0]);
    xs->sched = sched;
    __atomic_store_n(&xs->main_sched, sched, __ATOMIC_RELEASE); /* read by other streams: xs_main_sched */
    /* Let the old scheduler's loop see it was replaced and return before
     * this call does: then the caller may free it at once. */
    unit_yield_to_sched(xs);
    return WEFT_OK;
}
