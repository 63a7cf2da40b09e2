/* Schedulers: the built-in policies (basic, priority, random work stealing),
 * user-defined ones through an operations table, and stacking.
 *
 * A stream runs a stack of schedulers: its main scheduler at the bottom
 * (xs_main_sched(xs)), on the stream's own scheduler context, and above it any
 * scheduler that was pushed into a pool as a unit and picked (a stacked
 * scheduler runs on that unit's stack). xs->sched and xs->sched_unit name
 * the top of the stack: the scheduler whose policy ULTs follow when they
 * hand the stream over (sched_pick) and the context they return to when it
 * has nothing for them. */
#include <stdlib.h>
#include <string.h>

#include "dlist.h"
#include "internal.h"
#include "pool_ops.h"
#include "sched_pick.h"

int sched_check(struct weft_sched_s *s)
{
    if (!handle_ok(s) || atomic_load_explicit(&s->magic, memory_order_relaxed) != MAGIC_SCHED)
        return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

bool sched_has_pool(const struct weft_sched_s *s, const struct weft_pool_s *p)
{
    for (int i = 0; i < s->npools; i++)
        if (s->pools[i] == p) return true;
    return false;
}

/* A main scheduler whose policy is a plain in-order poll lets sched_pick
 * do it inline; everything else goes through sched_pick_slow. */
void sched_set_fast(struct weft_sched_s *s)
{
    s->fast = !s->parent && (s->policy == SCHED_PRIO || (s->policy == SCHED_BASIC && s->npools == 1));
}

/* Of the first `n` pools of `s`, those whose owner `xs` became through `s`
 * (s->took) have none any more: a private pool left owned by a stream that
 * no longer schedules it would be touched without a lock by that stream
 * and by the next one to take it. From now on `xs` too uses them under
 * their lock. */
static void sched_disown(struct weft_sched_s *s, int n, struct weft_xstream_s *xs)
{
    for (int i = 0; i < n; i++)
        if (s->took & (1u << i)) pool_disown(s->pools[i], xs);
    s->took = 0;
}

/* The first `n` pools of `s` stop being used by it on `xs`: disowned as
 * above, then let go. */
static void sched_release_pools(struct weft_sched_s *s, int n, struct weft_xstream_s *xs)
{
    sched_disown(s, n, xs);
    for (int i = 0; i < n; i++) pool_detach(s->pools[i]); /* last touch: the pool may be freed now */
}

/* Bind the scheduler and its pools to `xs` as its main scheduler; all or
 * nothing. (A scheduler whose run function is still on a stack, replaced
 * but not yet returned, must not be attached anew: callers check in_run.) */
int sched_attach(struct weft_sched_s *s, struct weft_xstream_s *xs)
{
    struct weft_xstream_s *none = NULL;
    if (!atomic_compare_exchange_strong(&s->xs, &none, xs)) return WEFT_ERR_BUSY;
    s->took = 0;
    for (int i = 0; i < s->npools; i++) {
        bool took = false;
        int rc = pool_attach(s->pools[i], xs, i == 0, &took);
        if (took) s->took |= 1u << i;
        if (rc) {
            sched_release_pools(s, i, xs);
            atomic_store(&s->xs, NULL);
            return rc;
        }
    }
    s->parent = NULL;
    s->since_event = 0;
    sched_set_fast(s);
    return WEFT_OK;
}

/* `s` stops running on its stream (its main scheduler replaced or ended,
 * a stacked one finished, a failed start undone). */
void sched_detach(struct weft_sched_s *s)
{
    sched_release_pools(s, s->npools, atomic_load(&s->xs));
    atomic_store(&s->xs, NULL);
}

/* ---------- the registry of live schedulers ---------- */

static struct weft_sched_s *g_scheds; /* under g_scheds_lock */
static _Atomic uint32_t g_scheds_lock;

static void sched_register(struct weft_sched_s *s)
{
    spin_lock(&g_scheds_lock);
    DLIST_INSERT(&g_scheds, s, reg_next, reg_pprev);
    spin_unlock(&g_scheds_lock);
}

static void sched_unregister(struct weft_sched_s *s)
{
    spin_lock(&g_scheds_lock);
    if (s->reg_pprev) DLIST_REMOVE(s, reg_next, reg_pprev);
    spin_unlock(&g_scheds_lock);
}

/* For weft_finalize (pool.c, under the pools' registry lock, which comes
 * first): while it holds this lock, no stacked scheduler starts
 * (stacked_main). */
void scheds_pending_lock(void)
{
    spin_lock(&g_scheds_lock);
}

void scheds_pending_unlock(void)
{
    spin_unlock(&g_scheds_lock);
}

/* Its pools were counted as used (n_scheds) before `stacked` was set. */
void scheds_each_pending(void (*fn)(struct weft_sched_s *s, struct weft_pool_s *at, void *ctx), void *ctx)
{
    for (struct weft_sched_s *s = g_scheds; s; s = s->reg_next) {
        struct weft_unit_s *u = atomic_load_explicit(&s->stacked, memory_order_acquire);
        if (u && atomic_load(&s->xs) == SCHED_XS_CLAIMED) fn(s, unit_get_pool(u), ctx);
    }
}

/* Held across fork(), after the pools' registry lock (fork.c). */
void scheds_fork_lock(void)
{
    spin_lock(&g_scheds_lock);
}

void scheds_fork_unlock(void)
{
    spin_unlock(&g_scheds_lock);
}

/* The child of a live runtime: the parent's schedulers leave the registry
 * with its pools (pools_fork_abandon); their memory stays. */
void scheds_fork_abandon(void)
{
    for (struct weft_sched_s *s = g_scheds; s; s = s->reg_next) s->reg_pprev = NULL;
    g_scheds = NULL;
}

static int sched_new(int npools, struct weft_pool_s *const *pools, struct weft_sched_s **out)
{
    struct weft_sched_s *s = obj_alloc(sizeof *s);
    if (!s) return WEFT_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->npools = npools;
    s->automatic = 1;
    for (int i = 0; i < npools; i++) {
        s->pools[i] = pools[i];
        atomic_fetch_add(&pools[i]->n_listed, 1);
        /* A weft_pool_free() of it meanwhile either sees it listed (and
         * refuses, then it is live again) or has freed it: then refuse it
         * here. */
        if (!pool_live(pools[i])) {
            for (int k = 0; k <= i; k++) atomic_fetch_sub(&pools[k]->n_listed, 1);
            obj_retire(s, sizeof *s);
            return WEFT_ERR_HANDLE;
        }
    }
    atomic_store(&s->magic, MAGIC_SCHED);
    sched_register(s);
    *out = s;
    return WEFT_OK;
}

void sched_destroy(struct weft_sched_s *s)
{
    atomic_store(&s->magic, MAGIC_DEAD);
    sched_unregister(s);
    for (int i = 0; i < s->npools; i++) atomic_fetch_sub(&s->pools[i]->n_listed, 1);
    if (s->runtime_owned) {
        for (int i = 0; i < s->npools; i++) {
            struct weft_pool_s *p = s->pools[i];
            if (p->runtime_owned) pool_retire(p);
        }
    }
    obj_retire(s, sizeof *s);
}

/* A runtime-owned basic scheduler over one new pool of the configured kind. */
int sched_make_default(const weft_config *cfg, struct weft_sched_s **out)
{
    weft_pool p;
    int rc = weft_pool_create(cfg->pool_kind, cfg->pool_access, &p);
    if (rc) return rc;
    p->runtime_owned = 1;
    rc = sched_new(1, &p, out);
    if (rc) {
        pool_retire(p);
        return rc;
    }
    (*out)->runtime_owned = 1;
    return WEFT_OK;
}

static int sched_pools_valid(int npools, const weft_pool *pools)
{
    if (npools < 1 || npools > WEFT_MAX_POOLS || !pools) return WEFT_ERR_INVALID;
    for (int i = 0; i < npools; i++) {
        int rc = pool_check(pools[i]);
        if (rc) return rc;
        for (int j = 0; j < i; j++)
            if (pools[j] == pools[i]) return WEFT_ERR_INVALID;
    }
    return WEFT_OK;
}

static int sched_create_builtin(enum sched_policy policy, int npools, const weft_pool *pools, weft_sched *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    int rc = sched_pools_valid(npools, pools);
    if (rc == WEFT_OK && (rc = sched_new(npools, pools, out)) == WEFT_OK) (*out)->policy = (uint8_t)policy;
    return rc;
}

int weft_sched_create_basic(int npools, const weft_pool *pools, weft_sched *out)
{
    return sched_create_builtin(SCHED_BASIC, npools, pools, out);
}

int weft_sched_create_prio(int npools, const weft_pool *pools, weft_sched *out)
{
    return sched_create_builtin(SCHED_PRIO, npools, pools, out);
}

int weft_sched_create_randws(int npools, const weft_pool *pools, weft_sched *out)
{
    return sched_create_builtin(SCHED_RANDWS, npools, pools, out);
}

int weft_sched_create(const weft_sched_ops *ops, int npools, const weft_pool *pools, void *data,
                      weft_sched *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (!ops || !ops->run) return WEFT_ERR_INVALID;
    int rc = sched_create_builtin(SCHED_USER, npools, pools, out);
    if (rc) return rc;
    struct weft_sched_s *s = *out;
    s->ops = *ops;
    s->data = data;
    if (ops->init) {
        /* Not handed out yet: while init runs, the scheduler is in use for
         * the calls that would free or start it (they answer BUSY). */
        atomic_store(&s->xs, SCHED_XS_CLAIMED);
        rc = ops->init(s);
        atomic_store(&s->xs, NULL);
        if (rc != WEFT_OK) {
            sched_destroy(s);
            *out = NULL;
        }
    }
    return rc;
}

int weft_sched_get_data(weft_sched s, void **data)
{
    int rc = sched_check(s);
    if (rc) return rc;
    if (!data) return WEFT_ERR_INVALID;
    *data = s->data;
    return WEFT_OK;
}

int weft_sched_get_pools(weft_sched s, int max, weft_pool *pools, int *n)
{
    int rc = sched_check(s);
    if (rc) return rc;
    if (!n || max < 0 || (max > 0 && !pools)) return WEFT_ERR_INVALID;
    for (int i = 0; i < s->npools && i < max; i++) pools[i] = s->pools[i];
    *n = s->npools;
    return WEFT_OK;
}

int weft_sched_set_automatic(weft_sched s, int automatic)
{
    int rc = sched_check(s);
    if (rc) return rc;
    if (automatic != 0 && automatic != 1) return WEFT_ERR_INVALID;
    s->automatic = (uint8_t)automatic;
    return WEFT_OK;
}

int weft_sched_finish(weft_sched s)
{
    int rc = sched_check(s);
    if (rc) return rc;
    atomic_store_explicit(&s->finish_requested, 1, memory_order_release);
    return WEFT_OK;
}

int weft_sched_free(weft_sched *sched)
{
    if (!sched) return WEFT_ERR_INVALID;
    struct weft_sched_s *s = *sched;
    int rc = sched_check(s);
    if (rc) return rc;
    if (s->runtime_owned || atomic_load(&s->xs) || atomic_load(&s->in_run)) return WEFT_ERR_BUSY;
    /* One free wins; its ops.free still sees a live handle. */
    int none = 0;
    if (!atomic_compare_exchange_strong(&s->freeing, &none, 1)) return WEFT_ERR_HANDLE;
    if (s->policy == SCHED_USER && s->ops.free) s->ops.free(s);
    sched_destroy(s);
    *sched = NULL;
    return WEFT_OK;
}

struct weft_pool_s *sched_migration_pool(struct weft_sched_s *s)
{
    if (s->policy == SCHED_USER && s->ops.get_migration_pool) {
        struct weft_pool_s *p = s->ops.get_migration_pool(s);
        if (pool_check(p) == WEFT_OK) return p;
    }
    return s->pools[0];
}

/* ---------- picking ---------- */

/* The running stacked scheduler (xs->sched, on its unit xs->sched_unit)
 * hands the stream to the scheduler below it and goes back to its pool;
 * returns when it is picked again, re-installed on top of the stack. */
void sched_yield_parent(struct weft_xstream_s *xs)
{
    struct weft_unit_s *self = xs->sched_unit;
    struct weft_sched_s *s = xs->sched;
    xs->sched = s->parent;
    xs->sched_unit = s->parent_unit;
    s->since_event = 0;
    unit_leave_ready(xs, self);
    xs = self->xs;
    s->parent = xs->sched;
    s->parent_unit = xs->sched_unit;
    xs->sched = s;
    xs->sched_unit = self;
}

/* The policies sched_pick does not inline. Returns the scheduler's own
 * context (xs->sched_unit) when the scheduler itself must decide: a
 * user-defined one always, a stacked one when its turn is over. */
struct weft_unit_s *sched_pick_slow(struct weft_xstream_s *xs, struct weft_sched_s *s)
{
    if (s->parent && ++s->since_event >= SCHED_EVENT_FREQ) return xs->sched_unit;
    struct weft_unit_s *u;
    int n = s->npools;
    switch (s->policy) {
    case SCHED_USER:
        return xs->sched_unit;
    case SCHED_PRIO:
        for (int i = 0; i < n; i++)
            if ((u = pool_pop_unit(s->pools[i], xs)) != NULL) return u;
        return NULL;
    case SCHED_BASIC:
        for (int k = 0; k < n; k++) {
            unsigned i = (s->rr + (unsigned)k) % (unsigned)n;
            if ((u = pool_pop_unit(s->pools[i], xs)) != NULL) {
                s->rr = (i + 1) % (unsigned)n;
                return u;
            }
        }
        return NULL;
    default: { /* SCHED_RANDWS: our own pool first, then the others, starting
                * at a random one so that thieves spread over their victims. */
        if ((u = pool_pop_unit(s->pools[0], xs)) != NULL || n == 1) return u;
        uint64_t r = xs->rng;
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        xs->rng = r;
        int others = n - 1, start = (int)(r % (uint64_t)others);
        for (int k = 0; k < others; k++)
            if ((u = pool_pop_unit(s->pools[1 + (start + k) % others], xs)) != NULL) return u;
        return NULL;
    }
    }
}

/* ---------- stopping and events ---------- */

/* May `s`, running on `xs`, return from its run function? */
static bool sched_should_stop(struct weft_xstream_s *xs, struct weft_sched_s *s)
{
    if (!s->parent) {
        if (xs_main_sched(xs) != s) return true; /* replaced */
        if (xs->stopping) return true; /* asked again by a run function that went on */
        if (!xs->is_primary && atomic_load_explicit(&xs->stop_requested, memory_order_acquire) &&
            xs_can_stop(xs)) {
            xs->stopping = 1;
            /* The inbox is closed: pushers now use the pools under their
             * lock, so this stream must too, even if a user-defined run
             * function goes on popping before it returns. */
            sched_disown(s, s->npools, xs);
            return true;
        }
        return false;
    }
    if (!s->automatic && !atomic_load_explicit(&s->finish_requested, memory_order_acquire)) return false;
    if (atomic_load_explicit(&xs->inbox, memory_order_relaxed)) inbox_drain(xs);
    /* Units that must run on this stream next may be of our pools (a bound
     * one woken from elsewhere, drained just now): they run first. */
    if (xs->runnext_head || xs->stash) return false;
    for (int i = 0; i < s->npools; i++) {
        struct weft_pool_s *p = s->pools[i];
        if (pool_count(p) > 0 || atomic_load_explicit(&p->n_blocked, memory_order_acquire) > 0) return false;
    }
    return true;
}

/* What the runtime needs from any scheduler now and then: units sent to
 * this stream moved into place, and those that must run here run. */
static void sched_housekeep(struct weft_xstream_s *xs)
{
    xs->housekeep = 0;
    if (atomic_load_explicit(&xs->inbox, memory_order_relaxed)) inbox_drain(xs);
    if (atomic_load_explicit(&xs->n_timers, memory_order_relaxed)) timers_expire(xs);
    while (xs->runnext_head) unit_dispatch(xs, runnext_pop(xs));
}

/* The caller is `s`'s own context on its stream: `s` runs on top of the
 * stream's scheduler stack, or was its main scheduler and has just been
 * replaced (its run function still has to see that and return). */
static int sched_caller(struct weft_sched_s *s, struct weft_xstream_s **xsp)
{
    int rc = sched_check(s);
    if (rc) return rc;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (!xs || xs->cur != xs->sched_unit) return WEFT_ERR_CROSS_STREAM;
    bool replaced = xs->sched == xs_main_sched(xs) && s != xs->sched && !s->parent &&
                    atomic_load(&s->in_run) && !atomic_load(&s->xs);
    if (xs->sched != s && !replaced) return WEFT_ERR_CROSS_STREAM;
    *xsp = xs;
    return WEFT_OK;
}

int weft_sched_has_to_stop(weft_sched s, int *stop)
{
    struct weft_xstream_s *xs;
    int rc = sched_caller(s, &xs);
    if (rc) return rc;
    if (!stop) return WEFT_ERR_INVALID;
    sched_housekeep(xs);
    *stop = sched_should_stop(xs, s);
    return WEFT_OK;
}

int weft_sched_check_events(weft_sched s)
{
    struct weft_xstream_s *xs;
    int rc = sched_caller(s, &xs);
    if (rc) return rc;
    sched_housekeep(xs);
    if (s->parent) sched_yield_parent(xs);
    return WEFT_OK;
}

int weft_sched_idle(weft_sched s)
{
    struct weft_xstream_s *xs;
    int rc = sched_caller(s, &xs);
    if (rc) return rc;
    sched_housekeep(xs);
    xs_idle(xs, s, &s->idle_n, &s->idle_since);
    sched_housekeep(xs); /* what woke it may have come through the inbox */
    return WEFT_OK;
}

int weft_sched_run_unit(weft_sched s, weft_thread u, weft_pool pool)
{
    struct weft_xstream_s *xs;
    int rc = sched_caller(s, &xs);
    if (rc) return rc;
    s->idle_n = 0;
    if ((rc = unit_check(u)) || (rc = pool_check(pool))) return rc;
    if (!unit_claim_held(u, pool)) return WEFT_ERR_STATE; /* not held: in a pool, running, ended */
    unit_dispatch(xs, u);
    sched_housekeep(xs);
    return WEFT_OK;
}

/* ---------- the built-in loop ---------- */

static void sched_builtin_run(struct weft_xstream_s *xs, struct weft_sched_s *s)
{
    unsigned idle = 0, n = 0;
    uint64_t idle_since = 0;
    for (;;) {
        struct weft_unit_s *u = sched_pick(xs);
        if (u == xs->sched_unit) { /* a stacked scheduler's turn is over */
            sched_yield_parent(xs);
            continue;
        }
        if (u) {
            unit_dispatch(xs, u);
            idle = 0;
            if (unlikely(xs->sched != s)) return; /* replaced meanwhile */
            if (likely(++n < SCHED_EVENT_FREQ) && likely(!xs->housekeep)) continue;
            n = 0;
            xs->housekeep = 0;
            if (unlikely(atomic_load_explicit(&xs->n_timers, memory_order_relaxed))) timers_expire(xs);
            if (!s->parent && sched_should_stop(xs, s)) return;
            continue;
        }
        if (sched_should_stop(xs, s)) return;
        /* Nothing to run. Stacked, the scheduler below may have something;
         * back off all the same, or an idle stack would spin. */
        xs_idle(xs, s, &idle, &idle_since);
        if (s->parent) sched_yield_parent(xs);
    }
}

static void sched_run(struct weft_xstream_s *xs, struct weft_sched_s *s)
{
    atomic_store(&s->in_run, 1);
    if (s->policy == SCHED_USER) s->ops.run(s);
    else sched_builtin_run(xs, s);
    atomic_store(&s->in_run, 0);
}

/* The stream's scheduler context: run the main scheduler, then whichever
 * replaced it, until one of them is told to end the stream. */
void sched_main_loop(struct weft_xstream_s *xs)
{
    unsigned idle = 0;
    for (;;) {
        struct weft_sched_s *s = xs_main_sched(xs);
        sched_run(xs, s);
        if (xs->stopping) return;
        /* A run function that returned without being asked: call it again. */
        if (xs_main_sched(xs) == s) idle_backoff(&idle);
        else idle = 0;
    }
}

/* ---------- stacking ---------- */

/* The body of a stacked scheduler's unit. */
static void stacked_main(void *arg)
{
    struct weft_sched_s *s = arg;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs); /* a unit's start: no switch yet */
    struct weft_unit_s *self = xs->cur;
    /* Its private pools belong to the stream it runs on; the unit is not
     * migratable, and the stream does not end before it (n_stacked), so
     * that stays true. */
    spin_lock(&g_scheds_lock); /* not while finalize looks at pending ones and empties their pools */
    s->took = 0;
    for (int i = 0; i < s->npools; i++)
        if (pool_take_owner(s->pools[i], xs, i == 0)) s->took |= 1u << i;
    atomic_store_explicit(&s->stacked, NULL, memory_order_relaxed);
    atomic_store(&s->xs, xs);
    spin_unlock(&g_scheds_lock);
    s->parent = xs->sched;
    s->parent_unit = xs->sched_unit;
    s->since_event = 0;
    sched_set_fast(s);
    xs->sched = s;
    xs->sched_unit = self;
    xs->n_stacked++;

    sched_run(xs, s);

    xs = self->xs;
    WEFT_ASSERT(xs->n_stacked > 0);
    xs->n_stacked--;
    xs->sched = s->parent;
    xs->sched_unit = s->parent_unit;
    s->parent = NULL;
    atomic_store(&s->finish_requested, 0);
    sched_detach(s); /* last touch: it may be freed or stacked again now */
}

int weft_pool_add_sched(weft_pool pool, weft_sched s)
{
    int rc = pool_check(pool);
    if (rc || (rc = sched_check(s))) return rc;
    struct weft_xstream_s *none = NULL;
    if (atomic_load(&s->in_run) || !atomic_compare_exchange_strong(&s->xs, &none, SCHED_XS_CLAIMED))
        return WEFT_ERR_BUSY;
    if (sched_has_pool(s, pool)) {
        atomic_store(&s->xs, NULL);
        return WEFT_ERR_INVALID;
    }
    /* Claim its pools now (a private one serves one scheduler); owners are
     * set when it first runs. */
    int i;
    for (i = 0; i < s->npools; i++) {
        if ((rc = pool_claim(s->pools[i]))) break;
    }
    if (rc == WEFT_OK && (rc = unit_create_stacked(pool, stacked_main, s)) == WEFT_OK) return WEFT_OK;
    while (i-- > 0) pool_detach(s->pools[i]);
    atomic_store(&s->xs, NULL);
    return rc;
}
