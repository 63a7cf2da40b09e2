/* weft-omp explicit tasks: GOMP_task, taskwait, taskgroup, taskyield.
 *
 * A deferred task is a closure (its function and a copy of its arguments)
 * queued in its creator's queue (struct omp_taskq), or, with a priority
 * above 0, in its team's priority queue, highest first; threads of the
 * team run queued tasks at their scheduling points (barriers, the end of
 * the region, taskwait, taskgroup end, taskyield): priority tasks first,
 * then their own newest, then the oldest of another thread's queue. A task is run by the thread
 * that takes it, on that thread's stack, so omp_get_thread_num() inside a
 * task names the thread running it, and per-thread data indexed by it is
 * never shared by two tasks at once.
 *
 * A task is undeferred (run at once by its creator) when its `if` clause
 * is false, when it is final or inside a final task (it is then included
 * too), outside any team, and when its team already has many tasks queued
 * (a cut-off: past that, queueing only costs). A task with a `depend`
 * clause (depend.c) is queued when its predecessors are complete, in a
 * team of one too (a detached sibling may have run and not be complete);
 * its cut-off counts the team's tasks, waiting ones included; outside a
 * team and in a final task every sibling before it is already complete,
 * and its dependences are not looked at. An undeferred one waits for its
 * predecessors, running tasks meanwhile, and then runs. A detached task
 * (`detach`) completes when its body has ended and its event is
 * fulfilled (omp_fulfill_event), whichever is last; its record is never
 * on the stack, and only an `if(0)` or included one holds its maker until
 * then. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <search.h>
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

/* A thread whose own queue holds more than this many tasks per thread of
 * its team runs new ones at once (libgomp's cut-off, counted per queue). */
#define CUTOFF_PER_THREAD 64
/* Below this many in its own queue, a maker always queues a new task;
 * past it, QUEUE_PER_IDLE more per idle thread of its team (see defer). */
#define QUEUE_KEEP 2
#define QUEUE_PER_IDLE 4

/* Field by field: the memset of the three-line struct took 4-7% of the
 * samples of nested_for_100 at 4 threads (perf). The queue link and the
 * closure are never read in an implicit task. */
void omp_task_init_implicit(struct omp_task *t, struct omp_task *parent, struct omp_team *team)
{
    t->parent = parent;
    t->group = NULL;
    t->taskgroup = NULL;
    t->icv = parent->icv;
    t->is_explicit = 0;
    t->final = 0;
    t->undeferred = 0;
    t->pooled = 0;
    t->priority = 0;
    t->team = team;
    t->child_credit = t->ref_credit = 0;
    atomic_store_explicit(&t->children, 0, memory_order_relaxed);
    atomic_store_explicit(&t->refs, 1, memory_order_relaxed);
    t->deps = NULL;
    t->dtab = NULL;
    atomic_store_explicit(&t->detach_parts, 0, memory_order_relaxed);
    atomic_store_explicit(&t->event_owed, 0, memory_order_relaxed);
    t->maker_refs = 0;
    t->copied = 0;
}

/* ---------- task records ----------
 *
 * A record with arguments of up to REC_SIZE bytes in all comes from its
 * creator's cache: the creator takes and gives back without atomics; a
 * thread that frees another's record pushes it on that thread's remote
 * stack, which the owner takes whole when its own list runs out. (One
 * thread often makes the tasks that others run and free: through malloc,
 * the two fight over its arena's lock.) */
#define REC_SIZE 320 /* struct omp_task is three cache lines: 120 bytes of arguments */
_Static_assert(offsetof(struct omp_task, children) == 2 * OMP_CACHE_LINE, "a task's counts start its third line");
#define REC_ALIGN 64
#define REC_KEEP 512 /* records a thread keeps at most */
#define RFREE_BATCH 32 /* another's records freed before they go back to it in one push */
/* Whose cache a pooled record goes back to: in its last word. */
#define REC_OWNER(t) (*(struct omp_thread **)((char *)(t) + REC_SIZE - sizeof(struct omp_thread *)))

/* rec_n counts the records of thr's list and those run_now has borrowed
 * (rec_borrow): with the list empty, only the borrowed ones. */
static struct omp_task *rec_alloc(struct omp_thread *thr)
{
    struct omp_task *t = thr->rec_free;
    if (!t) {
        t = atomic_exchange_explicit(&thr->rec_remote, NULL, memory_order_acquire);
        for (struct omp_task *p = t; p; p = p->next) thr->rec_n++;
    }
    if (t) {
        thr->rec_free = t->next;
        thr->rec_n--;
        return t;
    }
    t = aligned_alloc(REC_ALIGN, REC_SIZE);
    if (!t) omp_fatal("out of memory allocating a task");
    REC_OWNER(t) = thr; /* for good: records go back to their owner's lists only */
    atomic_store_explicit(&t->event_owed, 0, memory_order_relaxed); /* and stays 0 while it is reused */
    return t;
}

/* run_now's record, inline: the head of thr's own list, borrowed (still
 * counted in rec_n, so that giving it back is two stores). It goes back
 * by rec_return, or, when it outlives its body, is counted out
 * (rec_unborrow) and released as any record. */
static inline struct omp_task *rec_borrow(struct omp_thread *thr)
{
    struct omp_task *t = thr->rec_free;
    if (omp_likely(t != NULL)) {
        thr->rec_free = t->next;
        return t;
    }
    t = rec_alloc(thr);
    thr->rec_n++;
    return t;
}

static inline void rec_return(struct omp_thread *thr, struct omp_task *t)
{
    OMP_ASSERT(REC_OWNER(t) == thr && thr->rec_n > 0);
    t->next = thr->rec_free;
    thr->rec_free = t;
}

static inline void rec_unborrow(struct omp_thread *thr, struct omp_task *t)
{
    OMP_ASSERT(REC_OWNER(t) == thr && thr->rec_n > 0);
    thr->rec_n--;
}

/* Push the list first..last on owner's remote stack. */
static void rec_push_remote(struct omp_thread *owner, struct omp_task *first, struct omp_task *last)
{
    struct omp_task *head = atomic_load_explicit(&owner->rec_remote, memory_order_relaxed);
    do last->next = head;
    while (!atomic_compare_exchange_weak_explicit(&owner->rec_remote, &head, first, memory_order_release,
                                                  memory_order_relaxed));
}

static void rfree_flush(struct omp_thread *me)
{
    if (!me->rfree_owner) return;
    rec_push_remote(me->rfree_owner, me->rfree_head, me->rfree_tail);
    me->rfree_owner = NULL;
    me->rfree_head = me->rfree_tail = NULL;
    me->rfree_n = 0;
}

/* Another thread's records are gathered and go back RFREE_BATCH at a time
 * (or when a record of a third thread comes, or at omp_tasks_flush): one
 * push on the owner's line per batch, not per task. */
static void rec_release(struct omp_task *t)
{
    if (!t->pooled) {
        free(t);
        return;
    }
    struct omp_thread *owner = REC_OWNER(t), *me = omp_self_keep();
    if (owner == me) {
        if (owner->rec_n >= REC_KEEP) {
            free(t);
            return;
        }
        t->next = owner->rec_free;
        owner->rec_free = t;
        owner->rec_n++;
        return;
    }
    if (!me) {
        rec_push_remote(owner, t, t);
        return;
    }
    if (me->rfree_owner != owner) {
        rfree_flush(me);
        me->rfree_owner = owner;
        me->rfree_tail = t;
        t->next = NULL;
    } else {
        t->next = me->rfree_head;
    }
    me->rfree_head = t;
    if (++me->rfree_n >= RFREE_BATCH) rfree_flush(me);
}

void omp_task_records_free(struct omp_thread *thr)
{
    struct omp_task *t = thr->rec_free, *r = atomic_exchange(&thr->rec_remote, NULL);
    while (t) {
        struct omp_task *n = t->next;
        free(t);
        t = n;
    }
    while (r) {
        struct omp_task *n = r->next;
        free(r);
        r = n;
    }
    thr->rec_free = NULL;
    thr->rec_n = 0;
    /* Another's records not given back yet (none once its region ended). */
    for (struct omp_task *n; (t = thr->rfree_head); thr->rfree_head = n) {
        n = t->next;
        free(t);
    }
    thr->rfree_owner = NULL;
    thr->rfree_tail = NULL;
    thr->rfree_n = 0;
}

/* ---------- counting ahead ----------
 *
 * A task's children, the references to its record and its team's pending
 * tasks are counts that the task's maker raises and whoever completes the
 * task lowers. Raised one by one, the counter's line would pass between
 * the maker's CPU and the runner's with every task. So the maker adds
 * TASK_CREDIT at a time and notes the unused part (child_credit,
 * ref_credit, thr->pending_credit, touched by it alone), and gives the
 * unused part back before anyone may wait for the count to drop: taskwait
 * (children), the end of the task's body (refs), a barrier or the end of
 * the region (pending), and after each task run within those. Until then
 * the counts stay above what is outstanding, never below. */
#define TASK_CREDIT 64

static inline void credit_take(_Atomic long *count, long *credit)
{
    if (omp_unlikely(*credit == 0)) {
        atomic_fetch_add_explicit(count, TASK_CREDIT, memory_order_relaxed);
        *credit = TASK_CREDIT;
    }
    (*credit)--;
}

/* Give the unused part back; true when that brought the count to 0. */
static inline bool credit_return(_Atomic long *count, long *credit)
{
    long c = *credit;
    if (!c) return false;
    *credit = 0;
    long was = atomic_fetch_sub_explicit(count, c, memory_order_acq_rel);
    OMP_ASSERT(was >= c); /* the credit was part of the count */
    return was == c;
}

/* thr's unused part of its team's pending count goes back (waking the
 * team's waiters when that ends the count). */
static inline void pending_credit_return(struct omp_thread *thr)
{
    if (thr->pending_credit && credit_return(&thr->team->pending, &thr->pending_credit)) omp_team_event(thr->team);
}

void omp_tasks_flush(struct omp_thread *thr)
{
    pending_credit_return(thr);
    rfree_flush(thr);
}

static bool discarded_park(struct omp_task *t);

/* A task's record lives while it runs and while records of its children
 * do, each holding a reference on its parent: a queued task's ancestors
 * are always there to be read (descends_from). Undeferred tasks are not
 * freed here: their owners wait for their references. Implicit tasks are
 * not counted: they outlive every task of their region. Drops n
 * references of t, then one of each ancestor whose record goes. */
static inline void task_unref(struct omp_task *t, long n)
{
    while (t) {
        /* Read before the decrement: an undeferred task's record is on
         * its owner's stack, gone once the owner sees its count drop. */
        bool is_explicit = t->is_explicit, undeferred = t->undeferred;
        if (!is_explicit && !undeferred) return;
        struct omp_team *team = t->team;
        long left = atomic_fetch_sub_explicit(&t->refs, n, memory_order_acq_rel) - n;
        OMP_ASSERT(left >= 0);
        if (!is_explicit) {
            /* An undeferred task waits for its last child record to go
             * (wait_for on refs): wake it. */
            if (left == 1 && team) omp_team_event(team);
            return;
        }
        if (left) return;
        struct omp_task *p = t->parent;
        if (t->deps) omp_depend_free(t);
        if (omp_likely(!atomic_load_explicit(&t->event_owed, memory_order_relaxed)) || !discarded_park(t))
            rec_release(t);
        t = p;
        n = 1;
    }
}

void omp_task_unref(struct omp_task *t, long n) { task_unref(t, n); }

/* ---------- the queues ---------- */

static void enqueue_priority(struct omp_team *team, struct omp_task *t)
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
    atomic_fetch_add_explicit(&team->prio_queued, 1, memory_order_release);
    omp_word_unlock(&team->task_lock);
}

/* Queues t; whether the team's waiters must hear of it (omp_team_event,
 * which enqueue sends). A push wakes them only when it may matter: the
 * queue was empty (a waiter for any task checks every queue after reading
 * the event word and before waiting, so one that saw this queue non-empty
 * did not wait), or a thread waits for descendants of its task (it looks
 * at the queues for eligible tasks only: any push may bring one). A
 * producer that keeps its queue non-empty then bumps no shared line per
 * task. */
static bool enqueue_push(struct omp_thread *thr, struct omp_team *team, struct omp_task *t)
{
    long before = 0;
    if (t->priority > 0) {
        enqueue_priority(team, t);
    } else {
        struct omp_taskq *q = &thr->tq;
        omp_word_lock(&q->lock);
        t->prev = NULL;
        t->next = q->head;
        if (q->head) q->head->prev = t;
        else q->tail = t;
        q->head = t;
        before = atomic_load_explicit(&q->n, memory_order_relaxed);
        atomic_store_explicit(&q->n, before + 1, memory_order_relaxed);
        /* seq_cst, as the look at desc_waiters below and the waiters'
         * announcement and look at q->avail (wait_for, take): either the
         * waiter sees this task or this push sees the waiter. */
        if (before == 0) atomic_store_explicit(&q->avail, 1, memory_order_seq_cst);
        omp_word_unlock(&q->lock);
    }
    return before == 0 || atomic_load_explicit(&team->desc_waiters, memory_order_seq_cst) > 0;
}

static void enqueue(struct omp_thread *thr, struct omp_team *team, struct omp_task *t)
{
    if (enqueue_push(thr, team, t)) omp_team_event(team);
}

static bool descends_from(const struct omp_task *t, const struct omp_task *anc)
{
    for (const struct omp_task *p = t->parent; p; p = p->parent)
        if (p == anc) return true;
    return false;
}

/* Whether `thr` may start task t now: any task, or (a thread waiting for
 * its current task's children) one its current task generated, directly
 * or not (OpenMP's task scheduling constraint for tied tasks). */
static inline bool may_run(const struct omp_task *t, const struct omp_thread *thr, bool any)
{
    return any || t->parent == thr->task || descends_from(t, thr->task);
}

static struct omp_task *take_priority(struct omp_team *team, struct omp_thread *thr, bool any)
{
    omp_word_lock(&team->task_lock);
    struct omp_task *prev = NULL, *t = team->queue_head;
    for (; t && !may_run(t, thr, any); t = t->next) prev = t;
    if (t) {
        if (prev) prev->next = t->next;
        else team->queue_head = t->next;
        if (team->queue_tail == t) team->queue_tail = prev;
        atomic_fetch_sub_explicit(&team->prio_queued, 1, memory_order_relaxed);
    }
    omp_word_unlock(&team->task_lock);
    return t;
}

static inline void unlink_task(struct omp_taskq *q, struct omp_task *t)
{
    if (t->prev) t->prev->next = t->next;
    else q->head = t->next;
    if (t->next) t->next->prev = t->prev;
    else q->tail = t->prev;
}

/* Most tasks a thief moves to its own queue at once, besides the one it
 * runs: half the victim's, so a thread that makes many tasks hands them
 * out a batch at a time, not one lock hand-over each. */
#define STEAL_BATCH 32

/* A task of queue q that thr may run, unlinked: from the head when q is
 * thr's own, else from the tail, and then (any task will do) up to half
 * of q's others too, which go to thr's own queue. */
static struct omp_task *take(struct omp_taskq *q, struct omp_thread *thr, bool any, bool own, bool batch)
{
    if (atomic_load_explicit(&q->avail, memory_order_seq_cst) == 0) return NULL; /* seq_cst: see enqueue */
    omp_word_lock(&q->lock);
    struct omp_task *t = own ? q->head : q->tail;
    while (t && !may_run(t, thr, any)) t = own ? t->next : t->prev;
    struct omp_task *first = NULL, *last = NULL; /* the batch, oldest last */
    long moved = 0;
    if (t) {
        unlink_task(q, t);
        long n = atomic_load_explicit(&q->n, memory_order_relaxed) - 1;
        if (!own && any && batch && n >= 2) {
            moved = n / 2 < STEAL_BATCH ? n / 2 : STEAL_BATCH;
            last = q->tail;
            first = last;
            for (long i = 1; i < moved; i++) first = first->prev;
            q->tail = first->prev;
            if (q->tail) q->tail->next = NULL;
            else q->head = NULL;
            first->prev = NULL;
        }
        atomic_store_explicit(&q->n, n - moved, memory_order_relaxed);
        if (n - moved == 0) atomic_store_explicit(&q->avail, 0, memory_order_relaxed);
    }
    omp_word_unlock(&q->lock);
    if (moved) {
        struct omp_taskq *mine = &thr->tq;
        omp_word_lock(&mine->lock);
        first->prev = mine->tail;
        if (mine->tail) mine->tail->next = first;
        else mine->head = first;
        mine->tail = last;
        if (atomic_fetch_add_explicit(&mine->n, moved, memory_order_relaxed) == 0)
            atomic_store_explicit(&mine->avail, 1, memory_order_seq_cst);
        omp_word_unlock(&mine->lock);
    }
    return t;
}

/* A thread outside t's team (one that fulfils a detached task's event)
 * has no queue there: the team's shared queue takes it. */
void omp_task_enqueue(struct omp_thread *thr, struct omp_task *t)
{
    if (thr && thr->team == t->team) {
        enqueue(thr, t->team, t);
        return;
    }
    enqueue_priority(t->team, t);
    omp_team_event(t->team);
}

bool omp_tasks_queued(struct omp_team *team)
{
    if (atomic_load_explicit(&team->prio_queued, memory_order_acquire) > 0) return true;
    for (unsigned k = 0; k < team->nthreads; k++)
        if (atomic_load_explicit(&team->threads[k]->tq.avail, memory_order_acquire) > 0) return true;
    return false;
}

/* Take a task `thr` may run now (see may_run). */
static struct omp_task *dequeue(struct omp_team *team, struct omp_thread *thr, bool any)
{
    struct omp_task *t = NULL;
    if (atomic_load_explicit(&team->prio_queued, memory_order_acquire) > 0) t = take_priority(team, thr, any);
    if (!t) t = take(&thr->tq, thr, any, true, false);
    for (unsigned k = 1; !t && k < team->nthreads; k++)
        t = take(&team->threads[(thr->num + k) % team->nthreads]->tq, thr, any, false, true);
    return t;
}

/* ---------- events of discarded detached tasks ----------
 *
 * A detached task that cancellation discards completes at once, event or
 * not, as libgomp's does (a body that was to hand its event on never
 * runs). A later omp_fulfill_event on it must then do nothing: its handle
 * is noted here (`event_owed` in the record), and its record, once
 * nothing refers to it, is not freed or reused but kept here ("parked"),
 * so that no other task gets its address, until the event comes and
 * frees it. A discarded task whose event never comes costs its record.
 * A record's event_owed is 0 from its allocation on (rec_alloc,
 * task_make) and whenever it goes back to a list, so reuse sets nothing.
 * Only with OMP_CANCELLATION set does anything come here: the lock also
 * makes a discard and a fulfil of the same task one after the other. */
static _Atomic uint32_t discarded_lock;
static void *discarded_root; /* tsearch tree of handles */
/* The handle of a detached task not even made (its region or taskgroup
 * was cancelled before): fulfilling it does nothing. */
static char discarded_unmade;

static int handle_cmp(const void *a, const void *b) { return (a > b) - (a < b); }

/* The body of detached task t was discarded: its event no longer holds
 * it (noted if it is still to come). */
static void discard_event(struct omp_task *t)
{
    omp_word_lock(&discarded_lock);
    if (atomic_fetch_sub_explicit(&t->detach_parts, 1, memory_order_acq_rel) == 2) {
        if (!tsearch(t, &discarded_root, handle_cmp)) omp_fatal("out of memory noting a discarded task's event");
        atomic_store_explicit(&t->event_owed, 1, memory_order_relaxed);
        atomic_store_explicit(&t->detach_parts, 0, memory_order_relaxed);
    }
    omp_word_unlock(&discarded_lock);
}

/* t's last reference went while it had event_owed: true if it stays here
 * (its event is still to come), false if it is to be freed as usual. */
static bool discarded_park(struct omp_task *t)
{
    omp_word_lock(&discarded_lock);
    bool park = atomic_load_explicit(&t->event_owed, memory_order_relaxed);
    if (park) atomic_store_explicit(&t->event_owed, 2, memory_order_relaxed);
    omp_word_unlock(&discarded_lock);
    return park;
}

/* omp_fulfill_event, under discarded_lock: if t is a discarded task's
 * handle, its note goes (and its record, if parked): true. */
static bool discarded_fulfil(struct omp_task *t)
{
    if (!tdelete(t, &discarded_root, handle_cmp)) return false;
    if (atomic_load_explicit(&t->event_owed, memory_order_relaxed) == 2) free(t); /* parked */
    else atomic_store_explicit(&t->event_owed, 0, memory_order_relaxed); /* freed as usual when unreferenced */
    return true;
}

/* ---------- running and completing ---------- */

/* The team's count goes last: once it is zero the region may end, and
 * nothing of the tasks may be touched after. Its body's reference goes
 * with the references it counted ahead and did not use. */
static void task_complete(struct omp_thread *thr, struct omp_task *t)
{
    if (t->deps) omp_depend_complete(thr, t); /* before its siblings' count: they may be waiting for it */
    struct omp_team *team = t->team;
    struct omp_taskgroup *g = t->group;
    long children = atomic_fetch_sub_explicit(&t->parent->children, 1, memory_order_acq_rel);
    OMP_ASSERT(children >= 1);
    bool wake = children == 1;
    if (g) {
        long in_group = atomic_fetch_sub_explicit(&g->pending, 1, memory_order_acq_rel);
        OMP_ASSERT(in_group >= 1);
        if (in_group == 1) wake = true;
    }
    task_unref(t, 1 + t->ref_credit);
    long pending = atomic_fetch_sub_explicit(&team->pending, 1, memory_order_acq_rel);
    OMP_ASSERT(pending >= 1); /* the region's end waits for it: the team is still there */
    if (pending == 1) wake = true;
    if (wake) omp_team_event(team);
}

/* ---------- what a task costs ----------
 *
 * Deferring a task costs its maker a record and a push; and while the
 * team's other threads take from its queue as fast as it fills, the
 * queue's lock and the records cross CPUs each time: 100-250 ns a task,
 * measured, against 6-10 ns for an empty task run at once. A maker is the
 * critical path of the tasks it makes: a task whose body takes it less
 * than a deferral costs it is better run at once, whoever is idle. So
 * each thread keeps, per task function (a few slots, by address), running
 * means of the time of its body and of its own deferrals of it, and runs
 * the function's tasks at once while the first is below the second.
 *
 * About one task in COST_SAMPLE is timed (reading the counter costs ~10
 * ns in a VM), picked by a hash of a count, so that no stride of the
 * program's tasks escapes the samples. The body's mean rises half way to
 * a longer sample at once and falls by an eighth towards a shorter one: a
 * long body, when it is one of the timed, makes its function deferred
 * again for a while (from cheap, one long sample only just: see
 * cost_body). A deferral's sample counts at most twice the mean
 * (a preemption or a counter read on two CPUs must not make long bodies
 * look cheap) and leaves out the wake-up of sleeping threads (see
 * task_later), and deferrals with a copy constructor are not timed (the
 * copy is in neither mean). A function whose body made a task is a maker,
 * never cheap and never timed: a recursion's leaves are cheap, its roots
 * are not; a maker's slot is taken back only by another maker. About one
 * cheap task in COST_EXPLORE is deferred anyway, so that the deferral's
 * mean stays current. Only teams of two or more look at any of this. */
#define COST_SAMPLE 8
#define COST_EXPLORE 256
#define COST_MIN_SAMPLES 4
#define COST_SCALE 16 /* fixed point: the aarch64 counter is coarse */

static inline struct omp_task_cost *cost_slot(struct omp_thread *thr, void (*fn)(void *))
{
    return &thr->task_cost[((uintptr_t)fn >> 4) % OMP_TASK_COSTS]; /* code is 16-byte aligned at -O2 */
}

static inline uint32_t cost_units(uint64_t cycles)
{
    return cycles >= UINT32_MAX / COST_SCALE ? UINT32_MAX : (uint32_t)cycles * COST_SCALE;
}

/* Whether fn is known to make tasks (c: its slot): its runs are not timed. */
static inline bool cost_is_maker(const struct omp_task_cost *c, void (*fn)(void *))
{
    return c->fn == fn && c->maker;
}

/* (A maker's slot has no deferral mean: never below it.) */
static inline bool cost_cheap(const struct omp_task_cost *c, void (*fn)(void *))
{
    return c->fn == fn && c->samples >= COST_MIN_SAMPLES && c->body < c->defer;
}

/* The running task (explicit, its function fn) makes a task: fn is a
 * maker from now on, marked before its children are placed (a
 * recursion's leaves must not make its inner tasks look cheap while its
 * first body is still running). */
static inline void cost_maker(struct omp_thread *thr, void (*fn)(void *))
{
    struct omp_task_cost *c = cost_slot(thr, fn);
    if (omp_unlikely(!cost_is_maker(c, fn))) *c = (struct omp_task_cost){.fn = fn, .maker = true};
}

/* fn's slot for a sample, NULL if fn is a maker or another maker holds
 * the slot. */
static struct omp_task_cost *cost_sampled(struct omp_thread *thr, void (*fn)(void *))
{
    struct omp_task_cost *c = cost_slot(thr, fn);
    if (c->maker) return NULL;
    if (c->fn != fn) *c = (struct omp_task_cost){.fn = fn};
    return c;
}

/* A timed run of fn's body, `cycles` long. */
static void cost_body(struct omp_thread *thr, void (*fn)(void *), uint64_t cycles)
{
    struct omp_task_cost *c = cost_sampled(thr, fn);
    if (!c) return;
    uint32_t s = cost_units(cycles), m = c->body;
    if (c->samples == 0) {
        m = s;
    } else if (s > m) {
        /* From below the deferral's mean (cheap), one long sample takes
         * the mean just over it, no further: it may be an interrupt or a
         * preemption of this CPU, and the next short sample brings the
         * mean back; a second long one finds it there and goes on. */
        uint64_t up = ((uint64_t)s - m + 1) / 2;
        if (m < c->defer && m + up > c->defer) up = c->defer - m + 1;
        m += (uint32_t)up;
    } else {
        m -= (m - s) / 8;
    }
    c->body = m;
    if (c->samples < UINT32_MAX) c->samples++;
}

/* A timed deferral of a task of fn, `cycles` long. */
static void cost_defer(struct omp_thread *thr, void (*fn)(void *), uint64_t cycles)
{
    struct omp_task_cost *c = cost_sampled(thr, fn);
    if (!c) return;
    uint32_t s = cost_units(cycles), m = c->defer;
    if (s == 0) s = 1; /* 0 is "not measured" */
    if (m == 0) m = s;
    else if (s > m) m += (uint32_t)(((uint64_t)s - m < m ? s - m : m) / 8); /* the sample counts at most 2m */
    else m -= (m - s) / 8;
    c->defer = m;
}

/* Whether to time the body or deferral of the task thr makes or runs now:
 * one count in COST_SAMPLE, scattered (Fibonacci hashing). */
static inline uint32_t cost_hash(const struct omp_thread *thr) { return thr->cost_tick * 2654435769u; }
static inline bool cost_sample(struct omp_thread *thr)
{
    thr->cost_tick++;
    return cost_hash(thr) < UINT32_MAX / COST_SAMPLE;
}

static void task_execute(struct omp_thread *thr, struct omp_task *t)
{
    /* Its counts, set by the thread that runs it (the only one that makes
     * its children): their line need not come from its maker's CPU. */
    atomic_store_explicit(&t->children, 0, memory_order_relaxed);
    if (!t->maker_refs) atomic_store_explicit(&t->refs, 1, memory_order_relaxed); /* else the table or a waiter holds some */
    t->child_credit = t->ref_credit = 0;
    struct omp_task *prev = thr->task;
    thr->task = t;
    /* A cancelled region or taskgroup discards the tasks not yet started,
     * but for those whose arguments were copy-constructed: only the body
     * runs their destructors (it leaves at its first cancellation point). */
    bool run = t->copied ||
               (!atomic_load_explicit(&t->team->cancelled, memory_order_relaxed) && !omp_group_cancelled(t->group));
    if (run) {
        void (*fn)(void *) = t->fn;
        if (!cost_is_maker(cost_slot(thr, fn), fn) && cost_sample(thr)) {
            uint64_t t0 = omp_cycles();
            fn(t->data);
            cost_body(thr, fn, omp_cycles() - t0);
        } else {
            fn(t->data);
        }
    }
    omp_depend_table_free(t); /* no more children of it */
    thr->task = prev;
    /* A detached task whose event is not fulfilled yet completes then,
     * unless it was discarded. */
    if (atomic_load_explicit(&t->detach_parts, memory_order_acquire)) {
        if (!run) discard_event(t);
        else if (atomic_fetch_sub_explicit(&t->detach_parts, 1, memory_order_acq_rel) != 1) return;
    }
    task_complete(thr, t);
}

bool omp_task_run_one(struct omp_thread *thr, bool any)
{
    struct omp_team *team = thr->team;
    if (!team) return false;
    struct omp_task *t = dequeue(team, thr, any);
    if (!t) return false;
    if (thr->idle) omp_task_idle(thr, false); /* busy: makers may run their tasks themselves again */
    task_execute(thr, t);
    /* Its callers wait for the team's count: what the task counted ahead goes back. */
    pending_credit_return(thr);
    return true;
}

/* Wait until *count (a counter of `thr`'s team's tasks) is down to
 * `until`, running tasks `thr` may run meanwhile. */
static void wait_for(struct omp_thread *thr, _Atomic long *count, long until)
{
    struct omp_team *team = thr->team;
    if (atomic_load_explicit(count, memory_order_acquire) <= until) return;
    /* Announced before looking at the queues: every push from now on
     * bumps the event word (enqueue). */
    atomic_fetch_add_explicit(&team->desc_waiters, 1, memory_order_seq_cst);
    while (atomic_load_explicit(count, memory_order_acquire) > until) {
        /* The event word first: a task queued after the look for one
         * below bumps it, so the sleep cannot miss it. */
        uint32_t ev = atomic_load_explicit(&team->event, memory_order_acquire);
        if (omp_task_run_one(thr, false)) continue;
        if (atomic_load_explicit(count, memory_order_acquire) <= until) break;
        omp_wait(&team->event, ev);
    }
    atomic_fetch_sub_explicit(&team->desc_waiters, 1, memory_order_relaxed);
}

/* ---------- running now or later ---------- */

bool omp_task_discarded(struct omp_thread *thr)
{
    return (thr->team && atomic_load_explicit(&thr->team->cancelled, memory_order_acquire)) ||
           omp_group_cancelled(omp_task_group(thr->task));
}

void omp_task_idle(struct omp_thread *thr, bool idle)
{
    if (thr->idle == idle) return;
    thr->idle = idle;
    atomic_fetch_add_explicit(&thr->team->idle, idle ? 1 : -1, memory_order_relaxed);
}

/* Whether a task thr makes now goes to its queue, or runs at once (which
 * OpenMP allows for any task). After the rule for locks and priorities
 * below, a `cheap` one (its function's body shorter than its deferral,
 * "what a task costs") runs at once. A few queued tasks are kept for threads
 * that will look for work; past those, tasks are queued only while a
 * thread of the team is idle, a few per idle thread (one idle on the
 * maker's own stream cannot run before the maker waits: it must not make
 * the maker queue everything), up to the cut-off. So when every thread is
 * busy, a task costs a call, not a record, a queue and a hand-over; the
 * queued ones are the oldest, the largest of recursive work, and go to
 * the threads that steal. */
static inline bool defer(struct omp_thread *thr, struct omp_team *team, int priority, bool cheap)
{
    long queued = atomic_load_explicit(&thr->tq.n, memory_order_relaxed);
    /* A task with a priority waits its turn among the queued ones, and so
     * does any task while tasks with a priority wait; one made while its
     * maker holds a lock or is in a critical region might want it too
     * (libgomp queues such tasks, below its cut-off): these are queued
     * like every task until the cut-off. */
    if (priority > 0 || thr->locks_held > 0 || atomic_load_explicit(&team->prio_queued, memory_order_relaxed) > 0)
        return queued <= (long)team->nthreads * CUTOFF_PER_THREAD;
    if (cheap) return cost_hash(thr) < UINT32_MAX / COST_EXPLORE; /* ticked by the caller: a timed one */
    if (queued < QUEUE_KEEP) return true;
    long idle = atomic_load_explicit(&team->idle, memory_order_relaxed);
    return idle > 0 && queued < QUEUE_KEEP + QUEUE_PER_IDLE * idle &&
           queued <= (long)team->nthreads * CUTOFF_PER_THREAD;
}

/* Whether a task made now by thr runs at once without a look at its cost:
 * a team of one runs its tasks at once, but for what needs the queue
 * there too: while the maker holds a lock, and tasks with a priority (and
 * any task while those wait), which run in priority order at the next
 * scheduling point, as libgomp orders them below its cut-off. Outside any
 * parallel region (the level-0 team of an initial thread) every task runs
 * at once, as libgomp runs tasks without a team: no region's end would
 * ever run a queued one. */
static inline bool now_alone(struct omp_thread *thr, struct omp_team *team, int priority)
{
    return team->nthreads == 1 &&
           (team->level == 0 ||
            (!thr->locks_held && priority == 0 && atomic_load_explicit(&team->prio_queued, memory_order_relaxed) == 0));
}

/* Otherwise: whether it runs at once (PLACE_NOW), and whether its body or
 * its deferral is timed (PLACE_TIMED). */
enum { PLACE_QUEUE = 0, PLACE_NOW = 1, PLACE_TIMED = 2 };
static inline unsigned place(struct omp_thread *thr, struct omp_team *team, int priority, void (*fn)(void *))
{
    struct omp_task *cur = thr->task;
    struct omp_task_cost *c = cost_slot(thr, fn);
    if (cur->is_explicit) {
        if (cur->fn != fn) cost_maker(thr, cur->fn);
        else if (omp_unlikely(!cost_is_maker(c, fn))) *c = (struct omp_task_cost){.fn = fn, .maker = true};
    }
    if (cost_is_maker(c, fn)) return defer(thr, team, priority, false) ? PLACE_QUEUE : PLACE_NOW;
    unsigned timed = cost_sample(thr) ? PLACE_TIMED : 0;
    return (defer(thr, team, priority, cost_cheap(c, fn)) ? PLACE_QUEUE : PLACE_NOW) | timed;
}

/* ---------- entry points ---------- */

/* A deferred task's record, counted as its parent's child, in its
 * taskgroup and in its team's pending tasks; not queued yet. */
static struct omp_task *task_make(struct omp_thread *thr, struct omp_task *parent, void (*fn)(void *), void *data,
                                  void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool final,
                                  int priority, void *detach, bool deps)
{
    struct omp_team *team = thr->team;
    size_t off = (sizeof(struct omp_task) + (size_t)arg_align - 1) & ~((size_t)arg_align - 1);
    size_t align = (size_t)arg_align > _Alignof(struct omp_task) ? (size_t)arg_align : _Alignof(struct omp_task);
    /* The dependence state, if any, after the arguments. */
    size_t doff = (off + (size_t)arg_size + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
    size_t end = deps ? doff + omp_deps_size : off + (size_t)arg_size;
    size_t size = (end + align - 1) & ~(align - 1);
    bool pooled = size <= REC_SIZE - sizeof(struct omp_thread *) && align <= REC_ALIGN;
    struct omp_task *t = pooled ? rec_alloc(thr) : aligned_alloc(align, size);
    if (!t) omp_fatal("out of memory allocating a task");
    if (!pooled) atomic_store_explicit(&t->event_owed, 0, memory_order_relaxed);
    /* Every field set (the queue links by enqueue): no memset, which costs
     * more than the rest of a small task's set-up. */
    t->pooled = pooled;
    atomic_store_explicit(&t->detach_parts, detach ? 2 : 0, memory_order_relaxed);
    /* The event handle is the record. gcc's code reads the task's own copy
     * of it from the first word of the arguments: written there before
     * they are copied (as libgomp 12 does); the maker's variable, which
     * another thread may read and fulfil at once, at the end. */
    if (detach && data) *(uintptr_t *)data = (uintptr_t)t;
    char *args = (char *)t + off;
    if (cpyfn) cpyfn(args, data);
    else if (arg_size) memcpy(args, data, (size_t)arg_size);
    t->copied = cpyfn != NULL;
    t->parent = parent;
    t->group = omp_task_group(parent);
    t->taskgroup = NULL;
    t->icv = parent->icv;
    t->is_explicit = 1;
    t->final = final;
    t->undeferred = 0;
    t->priority = priority;
    t->fn = fn;
    t->data = args;
    t->team = team;
    t->deps = deps ? (struct omp_deps *)((char *)t + doff) : NULL; /* set up by omp_depend_add */
    t->dtab = NULL;
    t->maker_refs = 0;
    credit_take(&parent->children, &parent->child_credit);
    if (parent->is_explicit || parent->undeferred) credit_take(&parent->refs, &parent->ref_credit);
    if (t->group) atomic_fetch_add_explicit(&t->group->pending, 1, memory_order_relaxed);
    credit_take(&team->pending, &thr->pending_credit);
    if (detach) __atomic_store_n((uintptr_t *)detach, (uintptr_t)t, __ATOMIC_RELEASE);
    return t;
}

void omp_task_nothing(void *arg) { (void)arg; }

/* A task with a record of its own although it may run at once: one with
 * dependences in a team of two or more (depend.c), queued once its
 * predecessors are complete, or one with `detach` (its event handle is
 * written to *detach). With `now`, it runs here once its predecessors are
 * done; with `if0` too (an undeferred task), its maker then also waits
 * until it is complete, its event fulfilled. (A detached task merely run
 * at once, outside a team or past the cut-off, does not hold its maker
 * up: a later task of the maker may be the one that fulfils it.) */
static void task_heap(struct omp_thread *thr, struct omp_task *parent, void (*fn)(void *), void *data,
                      void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool now, bool if0, bool final,
                      int priority, void **depend, bool serial, void *detach)
{
    bool undeferred = now;
    bool waits = if0 && detach;
    struct omp_task *t =
        task_make(thr, parent, fn, data, cpyfn, arg_size, arg_align, final, priority, detach, depend != NULL);
    t->maker_refs = 1;
    atomic_store_explicit(&t->refs, 1 + waits, memory_order_relaxed); /* its body's, and its waiter's */
    bool ready = true;
    if (depend) {
        omp_depend_add(parent, t, depend, undeferred, serial);
        ready = omp_depend_made(t);
    }
    if (!undeferred) {
        if (!ready) return;
        if (depend) omp_depend_ready(thr, t);
        else enqueue(thr, thr->team, t);
        return;
    }
    if (!ready) wait_for(thr, omp_depend_count(t), 0);
    while (depend && !omp_depend_try_mutexes(thr, t))
        if (!omp_task_run_one(thr, false)) omp_relax();
    task_execute(thr, t);
    if (waits) {
        /* Undeferred: its maker goes on once it is complete. */
        if (thr->team) wait_for(thr, &t->detach_parts, 0);
        else
            for (long i = 0; atomic_load_explicit(&t->detach_parts, memory_order_acquire) > 0; i++) omp_relax_n(i);
        task_unref(t, 1);
    }
}

/* omp_event_handle_t: an enum of a pointer's size in gcc's omp.h; the
 * handle is the task's record. */
OMP_EXPORT void omp_fulfill_event(uintptr_t event)
{
    struct omp_task *t = (struct omp_task *)(uintptr_t)event;
    if (!t) omp_fatal("omp_fulfill_event: not the event of a detached task");
    if (t == (struct omp_task *)(void *)&discarded_unmade) return;
    /* The team outlives this call (team_quiesce): once the task is
     * complete its region may end, and the event word is bumped after. */
    bool noted = omp_g.cancel;
    if (noted) {
        omp_word_lock(&discarded_lock);
        if (discarded_fulfil(t)) { /* discarded, complete already */
            omp_word_unlock(&discarded_lock);
            return;
        }
    }
    struct omp_team *team = t->team; /* read first: t may be freed once complete */
    atomic_fetch_add_explicit(&team->fulfilling, 1, memory_order_relaxed);
    long left = atomic_fetch_sub_explicit(&t->detach_parts, 1, memory_order_acq_rel);
    if (noted) omp_word_unlock(&discarded_lock);
    if (left <= 0) omp_fatal("omp_fulfill_event: the event was fulfilled already");
    struct omp_thread *me = omp_self_keep();
    if (left == 1) {
        task_complete(me, t); /* its body had ended */
        /* Records of the team freed here go back now, not at a later
         * flush of a thread of another team, when the team may be gone. */
        if (me && me->team != team) rfree_flush(me);
    }
    omp_team_event(team); /* an undeferred task's maker may be waiting for it */
    atomic_fetch_sub_explicit(&team->fulfilling, 1, memory_order_release);
}

OMP_EXPORT void omp_fulfill_event_(intptr_t event) { omp_fulfill_event((uintptr_t)event); } /* Fortran, by value */

/* fn on a copy of the arguments made by cpyfn (copy constructors), on
 * this stack: out of line, so that the common case needs no frame for it. */
static __attribute__((noinline)) void run_copy(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                               long arg_size, long arg_align, const void *bounds, size_t bsize)
{
    char buf[arg_size + arg_align - 1];
    char *args = (char *)(((uintptr_t)buf + (uintptr_t)arg_align - 1) & ~((uintptr_t)arg_align - 1));
    cpyfn(args, data);
    if (bsize) memcpy(args, bounds, bsize);
    fn(args);
}

/* Run a task here and now (undeferred; included, when in a final task),
 * with a record on this stack: never queued, so the queue links and the
 * closure stay unset. With `bounds` (a taskloop's), its arguments get
 * those over their first bsize bytes. */
static inline __attribute__((always_inline)) void
run_included(struct omp_thread *thr, struct omp_task *parent, void (*fn)(void *), void *data,
             void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool final, int priority, const void *bounds,
             size_t bsize)
{
    struct omp_task t;
    t.parent = parent;
    t.group = omp_task_group(parent);
    t.taskgroup = NULL;
    t.icv = parent->icv;
    atomic_store_explicit(&t.children, 0, memory_order_relaxed);
    atomic_store_explicit(&t.refs, 1, memory_order_relaxed);
    t.child_credit = t.ref_credit = 0;
    t.is_explicit = 0;
    t.final = final;
    t.undeferred = 1;
    t.pooled = 0;
    t.priority = priority;
    t.team = thr->team;
    t.deps = NULL;
    t.dtab = NULL;
    thr->task = &t;
    if (omp_unlikely(cpyfn != NULL)) {
        run_copy(fn, data, cpyfn, arg_size, arg_align, bounds, bsize);
    } else {
        if (bsize) memcpy(data, bounds, bsize); /* the caller's block, made for this call (as libgomp) */
        fn(data);
    }
    if (t.dtab) omp_depend_table_free(&t); /* the table's references on its children go first */
    /* Records of its deferred children point at it: they go before it does. */
    if (t.ref_credit) atomic_fetch_sub_explicit(&t.refs, t.ref_credit, memory_order_acq_rel);
    if (t.team && atomic_load_explicit(&t.refs, memory_order_acquire) > 1) wait_for(thr, &t.refs, 1);
    thr->task = parent;
}

/* run_now's task whose children's records outlive it: out of line. */
static __attribute__((noinline)) void run_now_outlived(struct omp_thread *thr, struct omp_task *parent,
                                                       struct omp_task *t)
{
    rec_unborrow(thr, t); /* released as any record from here on */
    if (parent->is_explicit || parent->undeferred) credit_take(&parent->refs, &parent->ref_credit);
    task_unref(t, 1 + t->ref_credit); /* its body's reference, and what it counted ahead */
}

/* Run a task here and now with a record of its own (one of this thread's
 * pooled records; the arguments stay the caller's unless copied): its
 * deferred children may outlive it, holding references on its record,
 * and its maker goes on as soon as its body ends, as OpenMP has it. (A
 * task whose record is on the stack must wait for its children's records
 * to go, and so for a child that waits for something its maker does
 * after: a detached child fulfilled later, a lock the maker takes.) Used
 * for every task run at once except those included in a final task,
 * whose descendants are all included too and leave no record behind. */
static inline __attribute__((always_inline)) void
run_now(struct omp_thread *thr, struct omp_task *parent, void (*fn)(void *), void *data,
        void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool final, int priority, const void *bounds,
        size_t bsize, bool timed)
{
    struct omp_task *t = rec_borrow(thr);
    t->pooled = 1;
    t->parent = parent;
    t->group = omp_task_group(parent);
    t->taskgroup = NULL;
    t->icv = parent->icv;
    atomic_store_explicit(&t->children, 0, memory_order_relaxed);
    atomic_store_explicit(&t->refs, 1, memory_order_relaxed);
    atomic_store_explicit(&t->detach_parts, 0, memory_order_relaxed);
    t->child_credit = t->ref_credit = 0;
    t->is_explicit = 1;
    t->final = final;
    t->undeferred = 0;
    t->priority = priority;
    t->team = thr->team;
    t->deps = NULL;
    t->dtab = NULL;
    t->maker_refs = 0;
    t->fn = fn; /* for cost_maker */
    thr->task = t;
    uint64_t t0 = timed ? omp_cycles() : 0;
    if (omp_unlikely(cpyfn != NULL)) {
        run_copy(fn, data, cpyfn, arg_size, arg_align, bounds, bsize);
    } else {
        if (bsize) memcpy(data, bounds, bsize); /* the caller's block, made for this call (as libgomp) */
        fn(data);
    }
    if (timed) cost_body(thr, fn, omp_cycles() - t0);
    if (t->dtab) omp_depend_table_free(t); /* the table's references on its children go first */
    thr->task = parent;
    /* No child record left (none made, or all gone): nobody else can
     * reach the record. Else it lives on, and holds its parent meanwhile
     * (whose record a queued descendant may walk through). */
    if (omp_likely(t->ref_credit == 0 && atomic_load_explicit(&t->refs, memory_order_acquire) == 1)) {
        rec_return(thr, t); /* borrowed on this thread, which a ULT of weft-omp never leaves here */
        return;
    }
    run_now_outlived(thr, parent, t);
}

/* A task that place() did not run at once untimed: timed (run at once or
 * deferred, see "what a task costs"), or queued. Out of line, so that
 * the path of a task run at once keeps its registers. */
static __attribute__((noinline)) void task_later(struct omp_thread *thr, struct omp_task *parent,
                                                 struct omp_team *team, void (*fn)(void *), void *data,
                                                 void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                                                 bool final, int priority, const void *bounds, size_t bsize,
                                                 unsigned where)
{
    if (where & PLACE_NOW) { /* timed */
        run_now(thr, parent, fn, data, cpyfn, arg_size, arg_align, final, priority, bounds, bsize, true);
        return;
    }
    /* A timed deferral leaves out the wake-up of sleeping threads: paid
     * once when they sleep, which is when a maker that runs its tasks at
     * once and defers one in COST_EXPLORE would always see it. */
    bool timed = where & PLACE_TIMED;
    uint64_t t0 = timed ? omp_cycles() : 0;
    struct omp_task *t = task_make(thr, parent, fn, data, cpyfn, arg_size, arg_align, final, priority, NULL, false);
    if (bsize) memcpy(t->data, bounds, bsize);
    bool wake = enqueue_push(thr, team, t);
    if (timed && !cpyfn) cost_defer(thr, fn, omp_cycles() - t0);
    if (wake) omp_team_event(team);
}

/* A task without depend or detach, not included: run at once, or
 * deferred, as now_alone and place decide. With `bounds` (a taskloop's),
 * its arguments get those over their first bsize bytes. */
static inline __attribute__((always_inline)) void
task_run_or_queue(struct omp_thread *thr, struct omp_task *parent, struct omp_team *team, bool if_clause,
                  void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                  bool final, int priority, const void *bounds, size_t bsize)
{
    unsigned where = !if_clause || !team || now_alone(thr, team, priority) ? PLACE_NOW : place(thr, team, priority, fn);
    if (omp_likely(where == PLACE_NOW)) {
        run_now(thr, parent, fn, data, cpyfn, arg_size, arg_align, final, priority, bounds, bsize, false);
        return;
    }
    task_later(thr, parent, team, fn, data, cpyfn, arg_size, arg_align, final, priority, bounds, bsize, where);
}

/* GOMP_task's rarer cases: cancellation on, depend, detach. */
static __attribute__((noinline)) void task_special(struct omp_thread *thr, void (*fn)(void *), void *data,
                                                   void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                                                   bool if_clause, unsigned flags, void **depend, int priority,
                                                   void *detach)
{
    struct omp_task *parent = thr->task;
    struct omp_team *team = thr->team;
    if (omp_g.cancel && omp_task_discarded(thr)) { /* not even made */
        if ((flags & TASK_DETACH) && detach) *(uintptr_t *)detach = (uintptr_t)(void *)&discarded_unmade;
        return;
    }
    if (parent->is_explicit) cost_maker(thr, parent->fn);
    bool final = (flags & TASK_FINAL) || parent->final;
    /* Outside any parallel region (level 0) a task always runs here: no
     * region's end would run a queued one (now_alone). */
    bool outside = !team || team->level == 0;
    bool alone = parent->final || outside || (team->nthreads == 1 && !thr->locks_held);
    /* Dependences are tracked in a team of one too: a detached sibling
     * may have run and still not be complete. */
    if ((flags & TASK_DEPEND) && depend && !parent->final && team) {
        /* The cut-off counts the team's tasks, waiting ones included (the
         * count is over by what threads added ahead, at most TASK_CREDIT
         * each): past it, the task runs here once its predecessors are
         * done, so a maker that outruns the team holds no more. */
        bool cut = outside || atomic_load_explicit(&team->pending, memory_order_relaxed) >
                              (long)team->nthreads * (CUTOFF_PER_THREAD + TASK_CREDIT);
        task_heap(thr, parent, fn, data, cpyfn, arg_size, arg_align, !if_clause || cut, !if_clause, final, priority,
                  depend, false, (flags & TASK_DETACH) ? detach : NULL);
        return;
    }
    if (flags & TASK_DETACH) { /* its record outlives its body: never on the stack */
        bool cut = alone || atomic_load_explicit(&thr->tq.n, memory_order_relaxed) >
                                (long)team->nthreads * CUTOFF_PER_THREAD;
        /* An included one (in a final task) holds its maker until it is
         * complete, as an if(0) one does: its later siblings ignore
         * dependences, every earlier one being complete. */
        task_heap(thr, parent, fn, data, cpyfn, arg_size, arg_align, !if_clause || cut, !if_clause || parent->final,
                  final, priority, NULL, false, detach);
        return;
    }
    if (parent->final) {
        run_included(thr, parent, fn, data, cpyfn, arg_size, arg_align, final, priority, NULL, 0);
        return;
    }
    task_run_or_queue(thr, parent, team, if_clause, fn, data, cpyfn, arg_size, arg_align, final, priority, NULL, 0);
}

/* GOMP_task but for its commonest case (below). */
static __attribute__((noinline)) void task_general(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                                   long arg_size, long arg_align, bool if_clause, unsigned flags,
                                                   void **depend, int priority, void *detach)
{
    struct omp_thread *thr = omp_self();
    if (arg_align < 1) arg_align = 1;
    if (omp_unlikely(flags & TASK_PRIORITY)) {
        if (priority < 0) priority = 0;
        if (priority > omp_g.max_task_priority) priority = omp_g.max_task_priority;
    } else {
        priority = 0;
    }
    if (omp_unlikely((flags & (TASK_DEPEND | TASK_DETACH)) || omp_g.cancel)) {
        task_special(thr, fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
        return;
    }
    struct omp_task *parent = thr->task;
    struct omp_team *team = thr->team;
    if (omp_unlikely(parent->final)) {
        run_included(thr, parent, fn, data, cpyfn, arg_size, arg_align, true, priority, NULL, 0);
        return;
    }
    task_run_or_queue(thr, parent, team, if_clause, fn, data, cpyfn, arg_size, arg_align, flags & TASK_FINAL,
                      priority, NULL, 0);
}

/* The commonest cases on their own, before the general case: a task with
 * nothing special (no depend, detach, priority, copy constructor,
 * cancellation, final parent), run at once (if(0), a team of one, or one
 * whose body costs less than its deferral) or queued. BOTS fib with an if
 * clause and loops of small tasks make nothing else. */
OMP_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                          void *detach)
{
    struct omp_thread *thr = omp_self();
    struct omp_task *parent = thr->task;
    struct omp_team *team = thr->team;
    if (omp_likely(!(flags & (TASK_DEPEND | TASK_DETACH | TASK_PRIORITY)) && !cpyfn && !omp_g.cancel &&
                   !parent->final)) {
        task_run_or_queue(thr, parent, team, if_clause, fn, data, NULL, arg_size, arg_align < 1 ? 1 : arg_align,
                          flags & TASK_FINAL, 0, NULL, 0);
        return;
    }
    task_general(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

void omp_task_loop_one(struct omp_thread *thr, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, bool if_clause, bool final, int priority, const void *bounds,
                       size_t bsize)
{
    struct omp_task *parent = thr->task;
    struct omp_team *team = thr->team;
    final = final || parent->final;
    if (arg_align < 1) arg_align = 1;
    if (parent->final) {
        run_included(thr, parent, fn, data, cpyfn, arg_size, arg_align, final, priority, bounds, bsize);
        return;
    }
    task_run_or_queue(thr, parent, team, if_clause, fn, data, cpyfn, arg_size, arg_align, final, priority, bounds,
                      bsize);
}

/* taskwait with a depend clause: waits for the sibling tasks an empty
 * undeferred task with those dependences would wait for. */
void omp_task_wait_depend(void **depend, bool serial)
{
    struct omp_thread *thr = omp_self();
    struct omp_task *parent = thr->task;
    struct omp_team *team = thr->team;
    if (!depend || parent->final || !team) return; /* every sibling is complete */
    task_heap(thr, parent, omp_task_nothing, NULL, NULL, 0, 1, true, true, false, 0, depend, serial, NULL);
}

OMP_EXPORT void GOMP_taskwait_depend(void **depend) { omp_task_wait_depend(depend, false); }

/* A `nowait` target construct (task.c's part of target.c's): a deferred
 * task of fn on a copy of data[0..size), after the predecessors of
 * `depend` (if any; a mutexinoutset counts as inout), so its maker goes
 * on at once, as libgomp makes a target task. Outside a parallel region
 * and in a final task it runs here, after those. */
void omp_task_deferred(void (*fn)(void *), void *data, long size, long align, void **depend)
{
    struct omp_thread *thr = omp_self();
    struct omp_task *parent = thr->task;
    struct omp_team *team = thr->team;
    if (parent->is_explicit) cost_maker(thr, parent->fn);
    if (parent->final || !team || team->level == 0) {
        omp_task_wait_depend(depend, true);
        fn(data);
        return;
    }
    if (omp_g.cancel && omp_task_discarded(thr)) return;
    if (depend) task_heap(thr, parent, fn, data, NULL, size, align, false, false, false, 0, depend, true, NULL);
    else enqueue(thr, team, task_make(thr, parent, fn, data, NULL, size, align, false, 0, NULL, false));
}

OMP_EXPORT void GOMP_taskwait(void)
{
    struct omp_thread *thr = omp_self();
    struct omp_task *task = thr->task;
    if (!thr->team) return;
    /* No child deferred, none counted ahead, no dependences: nothing to wait for */
    if (omp_likely(!task->child_credit && !task->dtab && atomic_load_explicit(&task->children, memory_order_acquire) <= 0))
        return;
    credit_return(&task->children, &task->child_credit);
    wait_for(thr, &task->children, 0);
    omp_depend_table_clear(task); /* every child is complete */
}

OMP_EXPORT void GOMP_taskyield(void)
{
    struct omp_thread *thr = omp_self();
    if (!omp_task_run_one(thr, false)) omp_relax();
}

struct omp_taskgroup *omp_taskgroup_begin(struct omp_thread *thr, bool workshare)
{
    struct omp_taskgroup *g = calloc(1, sizeof *g);
    if (!g) omp_fatal("out of memory allocating a taskgroup");
    g->reductions = omp_task_reductions(thr->task); /* the enclosing ones stay visible */
    g->workshare = workshare;
    g->prev = thr->task->taskgroup;
    thr->task->taskgroup = g;
    return g;
}

void omp_taskgroup_finish(struct omp_thread *thr)
{
    struct omp_taskgroup *g = thr->task->taskgroup;
    if (!g) return;
    if (thr->team) wait_for(thr, &g->pending, 0);
    thr->task->taskgroup = g->prev;
    free(g);
}

OMP_EXPORT void GOMP_taskgroup_start(void) { omp_taskgroup_begin(omp_self(), false); }

OMP_EXPORT void GOMP_taskgroup_end(void) { omp_taskgroup_finish(omp_self()); }

OMP_EXPORT int omp_in_final(void) { return omp_self()->task->final; }
