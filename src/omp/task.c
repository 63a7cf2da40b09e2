/* weft-omp explicit tasks: GOMP_task, taskwait, taskgroup, taskyield.
 *
 * A deferred task is a closure (its function and a copy of its arguments)
 * queued in its team, highest priority first; threads of the team run
 * queued tasks at their scheduling points (barriers, the end of the
 * region, taskwait, taskgroup end, taskyield). A task is run by the thread
 * that takes it, on that thread's stack, so omp_get_thread_num() inside a
 * task names the thread running it, and per-thread data indexed by it is
 * never shared by two tasks at once.
 *
 * A task is undeferred (run at once by its creator) when its `if` clause
 * is false, when it is final or inside a final task (it is then included
 * too), outside any team, and when its team already has many tasks queued
 * (a cut-off: past that, queueing only costs). Until dependences are
 * tracked (the next layer), a task with a `depend` clause is undeferred
 * too: its creator runs its depending siblings one after the other, in
 * program order, which honours every dependence among them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_internal.h"

/* GOMP_task's flags (GCC's gomp-constants.h). */
#define TASK_UNTIED (1u << 0)
#define TASK_FINAL (1u << 1)
#define TASK_MERGEABLE (1u << 2)
#define TASK_DEPEND (1u << 3)
#define TASK_PRIORITY (1u << 4)
#define TASK_DETACH (1u << 13)

/* Queued tasks per thread of the team beyond which new ones run at once. */
#define CUTOFF_PER_THREAD 64

void omp_task_init_implicit(struct omp_task *t, struct omp_task *parent, struct omp_team *team)
{
    memset(t, 0, sizeof *t);
    t->parent = parent;
    t->icv = parent->icv;
    t->team = team;
    atomic_store_explicit(&t->refs, 1, memory_order_relaxed);
}

/* A task's record lives while it runs and while records of its children
 * do, each holding a reference on its parent: a queued task's ancestors
 * are always there to be read (descends_from). Implicit and undeferred
 * tasks are not freed here: their owners wait for their references. */
static inline void task_unref(struct omp_task *t)
{
    while (t) {
        /* Read before the decrement: an undeferred task's record is on
         * its owner's stack, gone once the owner sees its count drop. */
        bool is_explicit = t->is_explicit, undeferred = t->undeferred;
        struct omp_team *team = t->team;
        long left = atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) - 1;
        if (!is_explicit) {
            /* An undeferred task waits for its last child record to go
             * (wait_for on refs): wake it. */
            if (left == 1 && undeferred && team) omp_team_event(team);
            return;
        }
        if (left) return;
        struct omp_task *p = t->parent;
        free(t);
        t = p;
    }
}

/* ---------- the team's queue ---------- */

static void enqueue(struct omp_team *team, struct omp_task *t)
{
    omp_word_lock(&team->task_lock);
    t->next = NULL;
    if (!team->queue_tail) {
        team->queue_head = team->queue_tail = t;
    } else if (team->queue_tail->priority >= t->priority) {
        team->queue_tail->next = t;
        team->queue_tail = t;
    } else if (team->queue_head->priority < t->priority) {
        t->next = team->queue_head;
        team->queue_head = t;
    } else { /* after the last one of at least its priority */
        struct omp_task *p = team->queue_head;
        while (p->next && p->next->priority >= t->priority) p = p->next;
        t->next = p->next;
        p->next = t;
    }
    atomic_fetch_add_explicit(&team->queued, 1, memory_order_release);
    omp_word_unlock(&team->task_lock);
    omp_team_event(team);
}

static bool descends_from(const struct omp_task *t, const struct omp_task *anc)
{
    for (const struct omp_task *p = t->parent; p; p = p->parent)
        if (p == anc) return true;
    return false;
}

/* Take a task `thr` may run now: any, or one its current task generated
 * (directly or not), which is all a task waiting for its children may
 * start (OpenMP's task scheduling constraint for tied tasks). */
static struct omp_task *dequeue(struct omp_team *team, struct omp_thread *thr, bool any)
{
    if (atomic_load_explicit(&team->queued, memory_order_acquire) == 0) return NULL;
    omp_word_lock(&team->task_lock);
    struct omp_task *prev = NULL, *t = team->queue_head;
    if (!any)
        for (; t && !descends_from(t, thr->task); t = t->next) prev = t;
    if (t) {
        if (prev) prev->next = t->next;
        else team->queue_head = t->next;
        if (team->queue_tail == t) team->queue_tail = prev;
        atomic_fetch_sub_explicit(&team->queued, 1, memory_order_relaxed);
    }
    omp_word_unlock(&team->task_lock);
    return t;
}

/* ---------- running and completing ---------- */

/* The team's count goes last: once it is zero the region may end, and
 * nothing of the tasks may be touched after. */
static void task_complete(struct omp_task *t)
{
    struct omp_team *team = t->team;
    struct omp_taskgroup *g = t->group;
    bool wake = atomic_fetch_sub_explicit(&t->parent->children, 1, memory_order_acq_rel) == 1;
    if (g && atomic_fetch_sub_explicit(&g->pending, 1, memory_order_acq_rel) == 1) wake = true;
    task_unref(t);
    if (atomic_fetch_sub_explicit(&team->pending, 1, memory_order_acq_rel) == 1) wake = true;
    if (wake) omp_team_event(team);
}

static void task_execute(struct omp_thread *thr, struct omp_task *t)
{
    struct omp_task *prev = thr->task;
    thr->task = t;
    /* A cancelled region or taskgroup discards the tasks not yet started. */
    if (!atomic_load_explicit(&t->team->cancelled, memory_order_relaxed) &&
        !(t->group && atomic_load_explicit(&t->group->cancelled, memory_order_relaxed)))
        t->fn(t->data);
    thr->task = prev;
    task_complete(t);
}

bool omp_task_run_one(struct omp_thread *thr, bool any)
{
    struct omp_team *team = thr->team;
    if (!team) return false;
    struct omp_task *t = dequeue(team, thr, any);
    if (!t) return false;
    task_execute(thr, t);
    return true;
}

/* Wait until *count (a counter of `thr`'s team's tasks) is down to
 * `until`, running tasks `thr` may run meanwhile. */
static void wait_for(struct omp_thread *thr, _Atomic long *count, long until)
{
    struct omp_team *team = thr->team;
    while (atomic_load_explicit(count, memory_order_acquire) > until) {
        if (omp_task_run_one(thr, false)) continue;
        uint32_t ev = atomic_load_explicit(&team->event, memory_order_acquire);
        if (atomic_load_explicit(count, memory_order_acquire) <= until) break;
        omp_wait(&team->event, ev);
    }
}

/* ---------- entry points ---------- */

OMP_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                          void *detach)
{
    (void)depend;
    (void)detach;
    if (flags & TASK_DETACH) omp_fatal("detached tasks are not supported by this version of weft-omp");
    struct omp_thread *thr = omp_self();
    struct omp_task *parent = thr->task;
    struct omp_team *team = thr->team;
    bool final = (flags & TASK_FINAL) || parent->final;
    if (!(flags & TASK_PRIORITY) || priority < 0) priority = 0;
    if (priority > omp_g.max_task_priority) priority = omp_g.max_task_priority;
    if (arg_align < 1) arg_align = 1;

    if (!if_clause || parent->final || !team || team->nthreads == 1 || (flags & TASK_DEPEND) ||
        atomic_load_explicit(&team->queued, memory_order_relaxed) > (long)team->nthreads * CUTOFF_PER_THREAD) {
        /* Undeferred (included, when in a final task). */
        struct omp_task t;
        memset(&t, 0, sizeof t);
        t.parent = parent;
        t.group = omp_task_group(parent);
        t.icv = parent->icv;
        t.final = final;
        t.undeferred = 1;
        t.priority = priority;
        t.team = team;
        atomic_store_explicit(&t.refs, 1, memory_order_relaxed);
        thr->task = &t;
        if (cpyfn) {
            char buf[arg_size + arg_align - 1];
            char *args = (char *)(((uintptr_t)buf + (uintptr_t)arg_align - 1) & ~((uintptr_t)arg_align - 1));
            cpyfn(args, data);
            fn(args);
        } else {
            fn(data);
        }
        /* Records of its deferred children point at it: they go before it does. */
        if (team) wait_for(thr, &t.refs, 1);
        thr->task = parent;
        return;
    }

    size_t off = (sizeof(struct omp_task) + (size_t)arg_align - 1) & ~((size_t)arg_align - 1);
    size_t align = (size_t)arg_align > _Alignof(struct omp_task) ? (size_t)arg_align : _Alignof(struct omp_task);
    struct omp_task *t = aligned_alloc(align, (off + (size_t)arg_size + align - 1) & ~(align - 1));
    if (!t) omp_fatal("out of memory allocating a task");
    memset(t, 0, sizeof *t);
    char *args = (char *)t + off;
    if (cpyfn) cpyfn(args, data);
    else if (arg_size) memcpy(args, data, (size_t)arg_size);
    t->parent = parent;
    t->group = omp_task_group(parent);
    t->icv = parent->icv;
    t->is_explicit = 1;
    t->final = final;
    t->priority = priority;
    t->fn = fn;
    t->data = args;
    t->team = team;
    atomic_store_explicit(&t->refs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&parent->children, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    if (t->group) atomic_fetch_add_explicit(&t->group->pending, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&team->pending, 1, memory_order_relaxed);
    enqueue(team, t);
}

OMP_EXPORT void GOMP_taskwait(void)
{
    struct omp_thread *thr = omp_self();
    if (thr->team) wait_for(thr, &thr->task->children, 0);
}

OMP_EXPORT void GOMP_taskyield(void)
{
    struct omp_thread *thr = omp_self();
    if (!omp_task_run_one(thr, false)) omp_relax();
}

OMP_EXPORT void GOMP_taskgroup_start(void)
{
    struct omp_thread *thr = omp_self();
    struct omp_taskgroup *g = calloc(1, sizeof *g);
    if (!g) omp_fatal("out of memory allocating a taskgroup");
    g->prev = thr->task->taskgroup;
    thr->task->taskgroup = g;
}

OMP_EXPORT void GOMP_taskgroup_end(void)
{
    struct omp_thread *thr = omp_self();
    struct omp_taskgroup *g = thr->task->taskgroup;
    if (!g) return;
    if (thr->team) wait_for(thr, &g->pending, 0);
    thr->task->taskgroup = g->prev;
    free(g);
}

OMP_EXPORT int omp_in_final(void) { return omp_self()->task->final; }
