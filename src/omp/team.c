/* weft-omp teams: start-up, the state of each OpenMP thread, parallel
 * regions, the team barrier, the nesting queries, host teams.
 *
 * A parallel region of n threads makes a team: the encountering thread
 * becomes its thread 0 and runs the region's function itself; threads 1 to
 * n-1 are new ULTs, on the streams streams.c picks: by default spread over
 * them from the encountering thread's own onwards, so that no region makes
 * an OS thread at any nesting level (a nested team's members are more ULTs
 * on the same streams); for programs with thread-local variables of their
 * own, one stream per OpenMP thread. The region ends
 * when every implicit task has returned and every explicit task of the
 * team is complete (the implicit barrier); thread 0 then joins the ULTs. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"
#include "omp_internal.h"

struct omp_global omp_g;

static weft_key g_key;   /* the calling thread's struct omp_thread */

/* A team's region numbers go up by REGION_STEP; a worker's idle_region
 * is the last one it is done with, and in its low bits, while thread 0 has
 * not set the team up again: IDLE_HELPING, it runs that region's late
 * tasks (wait_next); IDLE_CLOSED, thread 0 took its fields back
 * (wait_idle). */
#define REGION_STEP 4u
#define IDLE_HELPING 1u
#define IDLE_CLOSED 2u

/* ---------- start-up ---------- */

void omp_fatal(const char *what) { omp_die("%s", what); }

static void free_thread(void *p);

/* At load: the environment, then weft with one stream per CPU the process
 * may use; the loading thread (the program's initial thread) is the main
 * ULT of the primary stream. */
static void runtime_config(weft_config *cfg)
{
    if (weft_config_init(cfg) != WEFT_OK) omp_fatal("malformed WEFT_* environment variable");
    /* OpenMP threads run user code that expects a thread's stack:
     * OMP_STACKSIZE, else WEFT_STACK_SIZE, else what pthreads give. */
    if (omp_g.stacksize) cfg->stack_size = omp_g.stacksize;
    else if (!getenv("WEFT_STACK_SIZE")) cfg->stack_size = (size_t)8 << 20;
    if (cfg->stack_size > ((size_t)1 << 30)) cfg->stack_size = (size_t)1 << 30;
    if (omp_g.wait_policy == 1) cfg->wait_policy = WEFT_WAIT_ACTIVE;
    else if (omp_g.wait_policy == 0) cfg->wait_policy = WEFT_WAIT_PASSIVE;
}

void omp_runtime_init(void)
{
    omp_streams_probe();
    omp_env_init();
    weft_config cfg;
    runtime_config(&cfg);
    if (!weft_initialized() && weft_init(&cfg) != WEFT_OK) omp_fatal("could not start the weft runtime");
    if (weft_key_create(free_thread, &g_key) != WEFT_OK) omp_fatal("out of memory");
    omp_streams_init(&cfg);
}

__attribute__((constructor)) static void omp_at_load(void)
{
    omp_runtime_init();
}

/* ---------- thread state ---------- */

static struct omp_team *team_alloc(unsigned n)
{
    size_t size = (sizeof(struct omp_team) + OMP_CACHE_LINE - 1) & ~(size_t)(OMP_CACHE_LINE - 1);
    struct omp_team *t = aligned_alloc(OMP_CACHE_LINE, size);
    struct omp_thread **threads = malloc(n * sizeof *threads);
    if (!t || !threads) omp_fatal("out of memory allocating a team");
    memset(t, 0, sizeof *t);
    t->nthreads = n;
    t->threads = threads;
    omp_ws_team_init(t);
    return t;
}

static struct omp_thread *thread_new(void)
{
    size_t size = (sizeof(struct omp_thread) + OMP_CACHE_LINE - 1) & ~(size_t)(OMP_CACHE_LINE - 1);
    struct omp_thread *thr = aligned_alloc(OMP_CACHE_LINE, size);
    if (!thr) omp_fatal("out of memory allocating a thread");
    memset(thr, 0, sizeof *thr);
    thr->num_teams = 1;
    thr->place = -1;
    thr->stream = -1;
    thr->part_n = omp_g.num_places;
    thr->base = thr;
    return thr;
}

/* An initial thread: the program's own threads, and target regions run on
 * the host. Its team is a team of one at level 0 (where work-sharing
 * constructs outside any parallel region find their state). */
static struct omp_thread *initial_new(unsigned thread_limit)
{
    struct omp_thread *thr = thread_new();
    if (omp_g.num_places > 0) thr->place = 0; /* as libgomp: the first place, all places its partition */
    struct omp_team *t = team_alloc(1);
    t->threads[0] = thr;
    thr->team = t;
    struct omp_task *task = &thr->implicit;
    memset(task, 0, sizeof *task);
    task->icv = omp_g.icv0;
    if (thread_limit) task->icv.thread_limit = thread_limit;
    task->team = t;
    atomic_store_explicit(&task->refs, 1, memory_order_relaxed);
    thr->task = task;
    return thr;
}

static void team_dissolve(struct omp_team *t);

/* Until no omp_fulfill_event is under way on t's tasks: one that
 * completed the last of them may still bump t's event word. */
static void team_quiesce(struct omp_team *t)
{
    for (long i = 1; atomic_load_explicit(&t->fulfilling, memory_order_acquire) > 0; i++) omp_relax_n(i);
}

static void initial_free(struct omp_thread *thr)
{
    if (thr->hot) team_dissolve(thr->hot);
    struct omp_team *t = thr->team;
    /* Its tasks complete first: a detached one made outside any region
     * may still wait for its event (a plain thread that made it and ends
     * waits for it here, as libgomp's maker waits at the task). */
    omp_tasks_flush(thr);
    if (atomic_load_explicit(&t->pending, memory_order_acquire) > 0) {
        struct omp_thread *was = omp_self_keep();
        omp_self_restore(thr);
        omp_team_barrier(thr, false);
        omp_self_restore(was);
        omp_tasks_flush(thr); /* others' records its tasks freed */
    }
    team_quiesce(t);
    omp_task_records_free(thr);
    omp_ws_team_fini(t);
    free(t->threads);
    free(t);
    free(thr);
}

static void free_thread(void *p) { initial_free(p); }

__thread struct omp_thread *omp_tls_self __attribute__((tls_model("initial-exec")));

/* The calling ULT (or OS thread) acts as `thr` from now on: thr's base,
 * which its key holds, points to it. Two stores, where setting the key
 * at each region's start and end cost ~100 instructions. */
static inline void self_act(struct omp_thread *thr)
{
    struct omp_thread *b = thr->base;
    b->acting = thr == b ? NULL : thr;
    omp_self_restore(thr);
}

/* The calling ULT (or OS thread) is `thr` from now on, thr's base its key's value. */
static void self_set(struct omp_thread *thr)
{
    if (weft_key_set(g_key, thr->base) != WEFT_OK) omp_fatal("out of memory");
    self_act(thr);
}

struct omp_thread *omp_self_slow(void)
{
    void *v = NULL;
    weft_key_get(g_key, &v);
    struct omp_thread *thr = v;
    if (!thr) {
        thr = initial_new(0);
        if (weft_key_set(g_key, thr) != WEFT_OK) omp_fatal("out of memory");
    } else if (thr->acting) {
        thr = thr->acting;
    }
    omp_self_restore(thr);
    return thr;
}

/* ---------- events ---------- */

void omp_team_event(struct omp_team *t)
{
    atomic_fetch_add_explicit(&t->event, 1, memory_order_seq_cst);
    omp_wake_rmw(&t->event);
}

/* ---------- parallel regions ---------- */

/* The team size of a region thr encounters. thread-limit-var bounds the
 * threads of the whole contention group, nested teams included: the
 * group's level-0 team counts them (as libgomp does: an outermost region
 * sets the count, a nested one adds its extra threads and takes them back
 * at its end, region_limit_end). */
struct cg_claim {
    struct omp_team *root; /* the group's level-0 team, when a nested team counted itself there */
    unsigned long added;
};

/* The child of a fork() has none of the parent's threads, and weft gave
 * up the parent's runtime there (weft.h). Its first team starts weft again
 * (the caller becomes the main ULT of a new primary stream), as libgomp's
 * child makes new threads at its first team; the caller's teams of the
 * parent are dropped, their threads being gone. */
static __attribute__((noinline, cold)) void after_fork(struct omp_thread *thr)
{
    atomic_store(&omp_forked, false);
    if (!weft_initialized()) {
        weft_config cfg;
        runtime_config(&cfg);
        if (weft_init(&cfg) != WEFT_OK) omp_fatal("could not start the weft runtime");
        omp_streams_restart(&cfg);
    }
    thr->hot = NULL;
}

static unsigned resolve_nthreads(struct omp_thread *thr, unsigned specified, struct cg_claim *claim)
{
    if (omp_unlikely(atomic_load_explicit(&omp_forked, memory_order_relaxed))) after_fork(thr);
    struct omp_icv *icv = &thr->task->icv;
    unsigned active = thr->team ? thr->team->active_level : 0;
    claim->root = NULL;
    claim->added = 0;
    if (specified == 1) return 1;
    if (active >= (unsigned)icv->max_active_levels) return 1;
    unsigned n = specified ? specified : icv->nthreads;
    if (icv->dyn && n > (unsigned)omp_g.num_procs) n = (unsigned)omp_g.num_procs;
    if (n > icv->thread_limit) n = icv->thread_limit;
    if (n <= 1) return 1;
    if (icv->thread_limit == UINT_MAX || !thr->team) return n;
    struct omp_team *cg = thr->team;
    while (cg->level > 0 && cg->parent) cg = cg->parent;
    if (thr->team == cg) { /* outermost: the group is this team */
        atomic_store_explicit(&cg->cg_busy, n, memory_order_relaxed);
        return n;
    }
    unsigned long busy = atomic_load_explicit(&cg->cg_busy, memory_order_relaxed), want;
    do {
        unsigned long left = icv->thread_limit > busy ? icv->thread_limit - busy + 1 : 1;
        want = n < left ? n : left;
    } while (!atomic_compare_exchange_weak_explicit(&cg->cg_busy, &busy, busy + want - 1, memory_order_relaxed,
                                                    memory_order_relaxed));
    claim->root = cg;
    claim->added = want - 1;
    return (unsigned)want;
}

/* The end of a nested region: its extra threads leave the group's count. */
static void region_limit_end(struct omp_team *t)
{
    if (t->cg_root && t->cg_added)
        atomic_fetch_sub_explicit(&t->cg_root->cg_busy, t->cg_added, memory_order_relaxed);
    t->cg_root = NULL;
    t->cg_added = 0;
}

/* Where thread i of a team sits among the places (for the affinity
 * queries; weft's streams do the running). */
static void place_threads(struct omp_team *t, struct omp_thread *enc, int bind)
{
    int np = omp_g.num_places;
    for (unsigned i = 0; i < t->nthreads; i++) {
        struct omp_thread *thr = t->threads[i];
        if (bind == OMP_BIND_FALSE || np <= 0) {
            thr->place = -1;
            thr->part_lo = 0;
            thr->part_n = np;
            continue;
        }
        int lo = enc->part_n > 0 ? enc->part_lo : 0, n = enc->part_n > 0 ? enc->part_n : np;
        int home = enc->place >= 0 ? enc->place : lo;
        if (bind == OMP_BIND_PRIMARY) {
            thr->place = home;
            thr->part_lo = lo;
            thr->part_n = n;
        } else if (bind == OMP_BIND_SPREAD && t->nthreads <= (unsigned)n) {
            int size = n / (int)t->nthreads, extra = n % (int)t->nthreads;
            int first = (int)i * size + ((int)i < extra ? (int)i : extra);
            thr->part_lo = lo + (home - lo + first) % n;
            thr->part_n = size + ((int)i < extra);
            thr->place = thr->part_lo;
        } else { /* close, true, or spread over fewer places than threads */
            /* More threads than places: runs of T/P consecutive threads
             * per place from home on, then the T%P left one per place from
             * home again (libgomp's order). */
            int nt = (int)t->nthreads, k = (int)i;
            if (nt > n) {
                int run = nt / n, rest = nt % n;
                k = k < nt - rest ? k / run : k - (nt - rest);
            }
            thr->place = lo + (home - lo + k) % n;
            if (bind == OMP_BIND_CLOSE || bind == OMP_BIND_TRUE) {
                thr->part_lo = lo;
                thr->part_n = n;
            } else {
                thr->part_lo = thr->place;
                thr->part_n = 1;
            }
        }
    }
}

/* The binding policy of a region: its proc_bind clause (0: none)
 * replaces the encountering task's bind-var unless that is false. */
static inline int region_bind(int bind_var, int bind_clause)
{
    return bind_var != OMP_BIND_FALSE && bind_clause ? bind_clause : bind_var;
}

/* (Re)initialise team `t` for a region that `enc` encounters. Its workers
 * are idle (or not made yet): nothing else touches it. */
static void team_prepare(struct omp_team *t, struct omp_thread *enc, void (*fn)(void *), void *data,
                         int bind_clause, uintptr_t *reductions)
{
    unsigned n = t->nthreads;
    t->parent = enc->team;
    t->parent_num = enc->num;
    t->level = (enc->team ? enc->team->level : 0) + 1;
    t->active_level = (enc->team ? enc->team->active_level : 0) + (n > 1);
    t->fn = fn;
    t->data = data;
    t->task_reductions = reductions;
    atomic_store_explicit(&t->done, 0, memory_order_relaxed);
    atomic_store_explicit(&t->cancelled, 0, memory_order_relaxed);
    atomic_store_explicit(&t->ws_cancelled, 0, memory_order_relaxed);
    atomic_store_explicit(&t->bar_arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&t->single_count, 0, memory_order_relaxed);
    omp_ws_team_reset(t);
    struct omp_icv *picv = &enc->task->icv;
    /* The policy the team is placed by, and its threads' bind-var (the
     * list of OMP_PROC_BIND, where it has an entry for the new level,
     * comes last: libgomp 12's order). */
    int bind = region_bind(picv->bind, bind_clause);
    for (unsigned i = 0; i < n; i++) {
        struct omp_thread *thr = t->threads[i];
        thr->team = t;
        thr->num = i;
        thr->ws_count = 0;
        thr->single_count = 0;
        thr->ws = NULL;
        thr->static_trip = 0;
        thr->chunk_lo = thr->chunk_hi = 0;
        thr->team_num = enc->team_num;
        thr->num_teams = enc->num_teams;
        thr->saved = i ? NULL : enc;
        omp_task_init_implicit(&thr->implicit, enc->task, t);
        struct omp_icv *icv = &thr->implicit.icv;
        if (t->level < (unsigned)omp_g.nthreads_list_len) icv->nthreads = omp_g.nthreads_list[t->level];
        icv->bind = t->level < (unsigned)omp_g.bind_list_len ? omp_g.bind_list[t->level] : bind;
        thr->task = &thr->implicit;
    }
    place_threads(t, enc, bind);
}

/* The end of a thread's implicit task. Thread 0 returns when every
 * implicit task of the team has returned and every explicit task is
 * complete (the region's end); tasks still queued are run meanwhile. A
 * worker only helps with the tasks, and returns (to wait for the next
 * region) as soon as none is pending: waiting for the last thread too
 * would cost thread 0 another round of its stream's ULTs before the next
 * region could start. Tasks made later by the threads still in the region
 * call it back (worker_main): it waits for the next region on the team's
 * event word, which the first task queued bumps. */
static void region_finish_wait(struct omp_thread *thr);

static void region_finish(struct omp_thread *thr)
{
    region_finish_wait(thr);
    omp_depend_table_free(&thr->implicit); /* its children are complete (depend.c) */
}

static void region_finish_wait(struct omp_thread *thr)
{
    struct omp_team *t = thr->team;
    omp_tasks_flush(thr);
    /* A team of one: nobody waits for it, and its tasks were undeferred. */
    if (t->nthreads == 1 && atomic_load_explicit(&t->pending, memory_order_acquire) == 0) return;
    /* Thread 0 waits for the workers (and for the tasks, whose
     * completion bumps the event itself): each worker counts itself in,
     * the last one wakes it. Thread 0 does not count itself: nobody waits
     * for it here (one locked instruction less per region). */
    unsigned workers = t->nthreads - 1, all = 0;
    if (thr->num != 0) {
        unsigned done = atomic_fetch_add_explicit(&t->done, 1, memory_order_acq_rel) + 1;
        OMP_ASSERT(done <= workers); /* each worker finishes a region once */
        if (done == workers) omp_team_event(t);
    } else {
        all = workers;
    }
    for (;;) {
        if (atomic_load_explicit(&t->done, memory_order_acquire) >= all &&
            atomic_load_explicit(&t->pending, memory_order_acquire) == 0)
            break;
        /* No task pending: none queued either (a task counts from before it is queued). */
        bool tasks = atomic_load_explicit(&t->pending, memory_order_acquire) > 0;
        if (tasks && omp_task_run_one(thr, true)) continue;
        if (tasks) omp_task_idle(thr, true); /* (no line written when the team has no task) */
        uint32_t ev = atomic_load_explicit(&t->event, memory_order_acquire);
        if (atomic_load_explicit(&t->done, memory_order_acquire) >= all &&
            atomic_load_explicit(&t->pending, memory_order_acquire) == 0)
            break;
        if (atomic_load_explicit(&t->pending, memory_order_acquire) > 0 && omp_tasks_queued(t)) continue;
        omp_wait(&t->event, ev);
    }
    omp_task_idle(thr, false);
}

static void team_dissolve(struct omp_team *t);

/* A worker done with its team's region (start_gen still `gen`, the
 * region's number `region`) until the next one starts. It left the
 * region's end early, when no task was pending; the threads still in it
 * may make tasks after that (a `single` or `master` producer, the usual
 * pattern), and every thread of the team at the region's end runs them as
 * at a barrier: a task queued bumps the event word this waits on
 * (enqueue), and so does a region's start. It runs them only while its
 * idle_region word says IDLE_HELPING, set from the plain region number,
 * which thread 0 turns into IDLE_CLOSED before it sets the team up again
 * (wait_idle): team_prepare rewrites this thread's fields, which running a
 * task reads. */
static void wait_next(struct omp_thread *thr, struct omp_team *t, uint32_t gen, unsigned region)
{
    for (;;) {
        if (atomic_load_explicit(&t->start_gen, memory_order_acquire) != gen) break;
        bool tasks = atomic_load_explicit(&t->pending, memory_order_acquire) > 0;
        if (tasks) {
            unsigned open = region;
            if (atomic_compare_exchange_strong_explicit(&thr->idle_region, &open, region | IDLE_HELPING,
                                                        memory_order_acquire, memory_order_relaxed)) {
                bool ran = omp_task_run_one(thr, true);
                if (!ran) omp_task_idle(thr, true); /* makers queue tasks for it */
                /* only this thread leaves IDLE_HELPING; thread 0 waits meanwhile */
                OMP_ASSERT(atomic_load_explicit(&thr->idle_region, memory_order_relaxed) == (region | IDLE_HELPING));
                atomic_store_explicit(&thr->idle_region, region, memory_order_release);
                if (ran) continue;
            } else {
                OMP_ASSERT(open == (region | IDLE_CLOSED)); /* thread 0's mark, nothing else */
                tasks = false; /* closed: the next region's start is coming */
            }
        }
        uint32_t ev = atomic_load_explicit(&t->event, memory_order_acquire);
        if (atomic_load_explicit(&t->start_gen, memory_order_acquire) != gen) break;
        if (tasks && omp_tasks_queued(t)) continue;
        omp_wait(&t->event, ev);
    }
    omp_task_idle(thr, false);
}

/* A worker of a team: runs the team's regions one after the other. Between
 * two, it waits (spinning a little, then parked) for the next start; the
 * team is hot: the next region of the same size from the same thread
 * reuses it, and starting bumps two words (start_gen, event) and wakes. */
static void worker_main(void *arg)
{
    struct omp_thread *thr = arg;
    struct omp_team *t = thr->team;
    self_set(thr);
    omp_beat();
    uint32_t gen = atomic_load_explicit(&t->start_gen, memory_order_acquire);
    if (omp_g.display_affinity) omp_affinity_display_thread(); /* a new team: show where it runs */
    for (;;) {
        t->fn(t->data);
        region_finish(thr);
        /* Done with it, waiting for the next: a store to a line of its
         * own, not an add on a shared one (one locked instruction less per
         * thread and region). */
        unsigned region = t->region;
        OMP_ASSERT(region % REGION_STEP == 0);
        OMP_ASSERT((atomic_load_explicit(&thr->idle_region, memory_order_relaxed) & ~(REGION_STEP - 1)) != region);
        atomic_store_explicit(&thr->idle_region, region, memory_order_release);
        wait_next(thr, t, gen, region);
        gen = atomic_load_explicit(&t->start_gen, memory_order_acquire);
        if (t->dissolve) break;
    }
    if (thr->hot) team_dissolve(thr->hot);
    weft_key_set(g_key, NULL); /* the team frees the struct, not the key's destructor */
    omp_self_restore(NULL);
    omp_beat_away();
}

/* Until every worker is done with the team's current region, and no
 * longer runs its late tasks (wait_next): closed, each worker's fields
 * are thread 0's to set up again. */
static void wait_idle(struct omp_team *t)
{
    for (unsigned k = 1; k < t->nthreads; k++) {
        _Atomic unsigned *w = &t->threads[k]->idle_region;
        for (long i = 1;; i++) {
            unsigned open = t->region;
            /* Read first: a failed compare-and-swap would take the line
             * the worker is about to write. */
            if (atomic_load_explicit(w, memory_order_relaxed) == open &&
                atomic_compare_exchange_weak_explicit(w, &open, open | IDLE_CLOSED, memory_order_acq_rel,
                                                      memory_order_relaxed))
                break;
            omp_relax_n(i);
        }
    }
}

/* The workers' next start (or leave): only thread 0 writes start_gen, so
 * a store does, not a locked add. */
static inline void start_next(struct omp_team *t)
{
    atomic_store_explicit(&t->start_gen, atomic_load_explicit(&t->start_gen, memory_order_relaxed) + 1,
                          memory_order_release);
}

/* End the team: its workers leave, and the hot teams below it go too. */
static void team_dissolve(struct omp_team *t)
{
    wait_idle(t);
    t->dissolve = 1;
    start_next(t);
    omp_team_event(t); /* the workers wait on the event word (wait_next) */
    int err = *omp_errno();
    struct omp_thread *me = omp_self_keep();
    omp_beat_away();
    for (unsigned i = 1; i < t->nthreads; i++)
        if (weft_thread_free(&t->units[i - 1]) != WEFT_OK) omp_fatal("could not join a thread of a team");
    omp_self_restore(me);
    *omp_errno() = err;
    omp_beat();
    if (t->threads[0]->hot) team_dissolve(t->threads[0]->hot);
    team_quiesce(t);
    omp_ws_team_fini(t);
    for (unsigned i = 0; i < t->nthreads; i++) {
        if (i && t->threads[i]->holds) omp_stream_release(t->threads[i]->stream);
        omp_task_records_free(t->threads[i]);
        free(t->threads[i]);
    }
    free(t->units);
    free(t->threads);
    free(t);
}

/* Start a region of n threads that `enc` encounters: its hot team if it
 * has one of that size, else a new one (threads 1 to n-1 new ULTs, spread
 * over the streams from enc's own onwards). With `setup`, the team's
 * first work-sharing region is set up and entered by every thread before
 * any runs (combined constructs). The caller continues as thread 0. */
static struct omp_team *region_begin(struct omp_thread *enc, unsigned n, const struct cg_claim *claim,
                                     void (*fn)(void *), void *data, int bind_clause, omp_ws_setup_fn setup, void *arg,
                                     uintptr_t *reductions)
{
    struct omp_team *t = enc->hot;
    /* Bound threads stay on their streams: a team placed otherwise is not reused. */
    int bind = region_bind(enc->task->icv.bind, bind_clause);
    bool reuse = t && t->nthreads == n && (!omp_streams_bound() || t->bind == bind);
    if (reuse) {
        wait_idle(t);
        t->region += REGION_STEP;
    } else {
        if (t) team_dissolve(t);
        t = team_alloc(n);
        for (unsigned i = 0; i < n; i++) t->threads[i] = thread_new();
        if (n > 1 && !(t->units = malloc((n - 1) * sizeof *t->units))) omp_fatal("out of memory starting a team");
        t->region = REGION_STEP; /* its workers' idle_region start at 0: not done with it */
        enc->hot = t;
    }
    t->bind = bind;
    team_prepare(t, enc, fn, data, bind_clause, reductions);
    t->cg_root = claim->root;
    t->cg_added = claim->added;
    if (setup) {
        struct omp_ws *ws = &t->ws[0];
        setup(ws, n, arg);
        atomic_store_explicit(&ws->state, 2, memory_order_relaxed);
        omp_ws_note_setup(t, 0);
        for (unsigned i = 0; i < n; i++) {
            t->threads[i]->ws_count = 1;
            t->threads[i]->ws = ws;
        }
    }
    if (reuse) {
        if (n > 1) { /* a team of one has no worker to start */
            start_next(t);
            omp_team_event(t); /* the workers wait on the event word (wait_next) */
        }
    } else if (n > 1) {
        int err = *omp_errno();
        struct omp_thread *me = omp_self_keep();
        int first = -1; /* a plain thread: on no stream */
        weft_xstream xs;
        if (weft_xstream_self(&xs) == WEFT_OK) weft_xstream_rank(xs, &first);
        unsigned outer = enc->team && enc->team->active_level ? enc->team->nthreads : 0;
        for (unsigned i = 1; i < n; i++) {
            weft_xstream to;
            int s = omp_stream_pick(t->threads[i]->place, i, first, outer, &t->threads[i]->holds);
            t->threads[i]->stream = s;
            int rc = weft_xstream_get(s, &to);
            if (rc == WEFT_OK) rc = weft_thread_create_to(to, worker_main, t->threads[i], NULL, &t->units[i - 1]);
            if (rc != WEFT_OK) omp_fatal("could not start a thread of a team");
        }
        omp_self_restore(me);
        *omp_errno() = err;
    }
    t->threads[0]->base = enc->base; /* the caller's key stays as it is */
    self_act(t->threads[0]);
    if (!reuse && omp_g.display_affinity) omp_affinity_display_thread();
    return t;
}

/* Thread 0 at the end of the region: the implicit barrier, then it is the
 * encountering thread again. The workers stay, idle, for the next region. */
static void region_end(struct omp_thread *thr)
{
    region_finish(thr);
    region_limit_end(thr->team);
    self_act(thr->saved);
}

OMP_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    struct omp_thread *enc = omp_self();
    struct cg_claim claim;
    unsigned n = resolve_nthreads(enc, num_threads, &claim);
    struct omp_team *t = region_begin(enc, n, &claim, fn, data, (int)(flags & 7), NULL, NULL, NULL);
    fn(data);
    region_end(t->threads[0]);
}

/* parallel reduction(task, ...): the first word of `data` is gcc's
 * descriptor of the reductions, whose copies (one per thread) the tasks of
 * the region find through the team (taskred.c). Returns the team's size:
 * the compiled code combines that many copies, then unregisters them. */
OMP_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    struct omp_thread *enc = omp_self();
    struct cg_claim claim;
    unsigned n = resolve_nthreads(enc, num_threads, &claim);
    uintptr_t *red = *(uintptr_t **)data;
    omp_reductions_register(red, NULL, n);
    struct omp_team *t = region_begin(enc, n, &claim, fn, data, (int)(flags & 7), NULL, NULL, red);
    fn(data);
    region_end(t->threads[0]);
    return n;
}

void omp_parallel_ws(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags, omp_ws_setup_fn setup,
                     void *arg, bool start_only)
{
    struct omp_thread *enc = omp_self();
    struct cg_claim claim;
    unsigned n = resolve_nthreads(enc, num_threads, &claim);
    struct omp_team *t = region_begin(enc, n, &claim, fn, data, (int)(flags & 7), setup, arg, NULL);
    if (start_only) return;
    fn(data);
    region_end(t->threads[0]);
}

/* The GOMP_1.0 pair: the caller runs fn(data) itself in between. */
OMP_EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    struct omp_thread *enc = omp_self();
    struct cg_claim claim;
    unsigned n = resolve_nthreads(enc, num_threads, &claim);
    region_begin(enc, n, &claim, fn, data, 0, NULL, NULL, NULL);
}

OMP_EXPORT void GOMP_parallel_end(void)
{
    struct omp_thread *thr = omp_self();
    if (thr->team && thr->team->level > 0 && thr->num == 0 && thr->saved) region_end(thr);
}

/* omp_pause_resource on the host: the calling initial thread's idle
 * teams end (their ULTs and stacks are freed; the next region makes new
 * ones). -1 inside a parallel region, active or not, as libgomp. */
int omp_pause_host(void)
{
    struct omp_thread *thr = omp_self();
    if (thr->team && thr->team->level > 0) return -1;
    if (thr->hot) {
        team_dissolve(thr->hot);
        thr->hot = NULL;
    }
    omp_streams_pause();
    return 0;
}

/* ---------- the team barrier ---------- */

/* Wait for every thread of the team; explicit tasks of the team are run
 * meanwhile and are all complete when it returns. With `cancellable`,
 * returns true (at once) if the region was cancelled. */
bool omp_team_barrier(struct omp_thread *thr, bool cancellable)
{
    struct omp_team *t = thr->team;
    if (!t) return false;
    omp_tasks_flush(thr);
    if (cancellable && atomic_load_explicit(&t->cancelled, memory_order_acquire)) return true;
    if (t->nthreads == 1) {
        while (atomic_load_explicit(&t->pending, memory_order_acquire) > 0) {
            if (omp_task_run_one(thr, true)) continue;
            uint32_t ev = atomic_load_explicit(&t->event, memory_order_acquire);
            if (atomic_load_explicit(&t->pending, memory_order_acquire) == 0) break;
            if (omp_tasks_queued(t)) continue; /* queued after the look above (a plain thread's fulfil) */
            omp_wait(&t->event, ev);
        }
        return cancellable && atomic_load_explicit(&t->cancelled, memory_order_acquire);
    }
    uint32_t gen = atomic_load_explicit(&t->bar_gen, memory_order_acquire);
    unsigned arrived = atomic_fetch_add_explicit(&t->bar_arrived, 1, memory_order_acq_rel) + 1;
    OMP_ASSERT(arrived <= t->nthreads); /* one arrival per thread and barrier */
    if (arrived == t->nthreads) {
        /* The last one in: the team's tasks complete before anyone leaves. */
        while (atomic_load_explicit(&t->pending, memory_order_acquire) > 0) {
            if (omp_task_run_one(thr, true)) continue;
            omp_task_idle(thr, true);
            uint32_t ev = atomic_load_explicit(&t->event, memory_order_acquire);
            if (atomic_load_explicit(&t->pending, memory_order_acquire) == 0) break;
            if (omp_tasks_queued(t)) continue;
            omp_wait(&t->event, ev);
        }
        omp_task_idle(thr, false);
        atomic_store_explicit(&t->bar_arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&t->ws_cancelled, 0, memory_order_relaxed); /* the cancelled construct is over */
        atomic_store_explicit(&t->bar_gen, gen + 1, memory_order_release);
        omp_team_event(t);
    } else {
        for (;;) {
            if (atomic_load_explicit(&t->bar_gen, memory_order_acquire) != gen) break;
            if (omp_task_run_one(thr, true)) continue;
            if (atomic_load_explicit(&t->pending, memory_order_relaxed) > 0) omp_task_idle(thr, true);
            /* Every condition of the wait is read after the event word:
             * a cancel (which bumps it) between a read of `cancelled` and
             * the read of the word would otherwise be slept through. */
            uint32_t ev = atomic_load_explicit(&t->event, memory_order_acquire);
            if (atomic_load_explicit(&t->bar_gen, memory_order_acquire) != gen) break;
            if (cancellable && atomic_load_explicit(&t->cancelled, memory_order_acquire)) {
                omp_task_idle(thr, false);
                return true;
            }
            if (omp_tasks_queued(t)) continue;
            omp_wait(&t->event, ev);
        }
        omp_task_idle(thr, false);
    }
    omp_depend_table_clear(thr->task); /* the team's tasks are all complete (depend.c) */
    return cancellable && atomic_load_explicit(&t->cancelled, memory_order_acquire);
}

OMP_EXPORT void GOMP_barrier(void) { omp_team_barrier(omp_self(), false); }

OMP_EXPORT bool GOMP_barrier_cancel(void) { return omp_team_barrier(omp_self(), true); }

/* ---------- queries (omp.h) ---------- */

OMP_EXPORT int omp_get_thread_num(void)
{
    /* num is 0 while a thread has no team (thread_new clears it, and only
     * team_prepare sets team and num, both together). */
    return (int)omp_self()->num;
}

OMP_EXPORT int omp_get_num_threads(void)
{
    struct omp_thread *thr = omp_self();
    return thr->team ? (int)thr->team->nthreads : 1;
}

OMP_EXPORT int omp_in_parallel(void)
{
    struct omp_thread *thr = omp_self();
    return thr->team && thr->team->active_level > 0;
}

OMP_EXPORT int omp_get_level(void)
{
    struct omp_thread *thr = omp_self();
    return thr->team ? (int)thr->team->level : 0;
}

OMP_EXPORT int omp_get_active_level(void)
{
    struct omp_thread *thr = omp_self();
    return thr->team ? (int)thr->team->active_level : 0;
}

/* The team at nesting level `level` of the calling thread, with the
 * number the thread's ancestor has in it; NULL at level 0. */
static struct omp_team *team_at(struct omp_thread *thr, int level, unsigned *num)
{
    struct omp_team *t = thr->team;
    unsigned n = thr->num;
    while (t && (int)t->level > level) {
        n = t->parent_num;
        t = t->parent;
    }
    *num = n;
    return t;
}

OMP_EXPORT int omp_get_ancestor_thread_num(int level)
{
    struct omp_thread *thr = omp_self();
    int cur = thr->team ? (int)thr->team->level : 0;
    if (level < 0 || level > cur) return -1;
    if (level == 0) return 0;
    unsigned num;
    team_at(thr, level, &num);
    return (int)num;
}

OMP_EXPORT int omp_get_team_size(int level)
{
    struct omp_thread *thr = omp_self();
    int cur = thr->team ? (int)thr->team->level : 0;
    if (level < 0 || level > cur) return -1;
    if (level == 0) return 1;
    unsigned num;
    struct omp_team *t = team_at(thr, level, &num);
    return t ? (int)t->nthreads : 1;
}

OMP_EXPORT int omp_get_team_num(void) { return omp_self()->team_num; }

OMP_EXPORT int omp_get_num_teams(void)
{
    int n = omp_self()->num_teams;
    return n > 0 ? n : 1;
}

/* ---------- teams on the host ---------- */

/* The league runs one team after the other on the encountering thread, as
 * libgomp does on the host: each team's initial thread is that thread with
 * its team number set. */
OMP_EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit,
                               unsigned flags)
{
    (void)flags;
    struct omp_thread *thr = omp_self();
    struct omp_icv saved_icv = thr->task->icv;
    int saved_num = thr->team_num, saved_n = thr->num_teams;
    if (thread_limit) thr->task->icv.thread_limit = thread_limit;
    else if (omp_g.teams_thread_limit) thr->task->icv.thread_limit = (unsigned)omp_g.teams_thread_limit;
    if (num_teams == 0) num_teams = omp_g.nteams > 0 ? (unsigned)omp_g.nteams : 3;
    thr->num_teams = (int)num_teams;
    for (unsigned i = 0; i < num_teams; i++) {
        thr->team_num = (int)i;
        fn(data);
    }
    thr->team_num = saved_num;
    thr->num_teams = saved_n;
    thr->task->icv = saved_icv;
}

/* `teams` nested in a target region run on the host: a loop that calls
 * this once per team (first: the first call). */
OMP_EXPORT bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit, bool first)
{
    struct omp_thread *thr = omp_self();
    if (first) {
        if (thread_limit) thr->task->icv.thread_limit = thread_limit;
        (void)num_teams_high; /* the host makes the fewest the construct allows */
        unsigned n = num_teams_low ? num_teams_low : 1;
        thr->num_teams = (int)n;
        thr->team_num = 0;
        return true;
    }
    if (++thr->team_num >= thr->num_teams) {
        thr->team_num = 0;
        thr->num_teams = 1;
        return false;
    }
    return true;
}

/* ---------- a new initial thread (target regions on the host) ---------- */

void omp_run_initial(void (*fn)(void *), void *data, unsigned thread_limit, int team_num, int num_teams)
{
    struct omp_thread *old = omp_self();
    struct omp_thread *thr = initial_new(thread_limit);
    thr->team_num = team_num;
    thr->num_teams = num_teams;
    thr->place = old->place;
    self_set(thr);
    fn(data);
    self_set(old);
    initial_free(thr); /* after the region's tasks, detached ones included */
}
