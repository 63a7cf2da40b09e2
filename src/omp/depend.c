/* weft-omp task dependences: the `depend` clause of tasks and of taskwait
 * (dataflow tasks as OmpSs introduced them [LWT-PM §2.2]).
 *
 * Dependences order sibling tasks: the children of one task. That task
 * keeps a table (struct omp_dep_table, made at its first child with a
 * `depend` clause) from each address its children named to the address's
 * last *group*: one writer (out, inout), or readers (in), or the members of
 * one mutexinoutset set, each group with the group before it. A new task
 *   - of the group's kind, in or mutexinoutset, joins it: it waits for the
 *     group before (which the group's members wait for too);
 *   - else starts a new group, which waits for every member of the last.
 * Members of one mutexinoutset group may run in any order but not at once:
 * they share a mutex (struct omp_depmutex) that a member takes when its
 * predecessors are done and holds until it completes; one that finds a
 * mutex taken waits on that mutex's list, and the holder's completion
 * hands the mutex on.
 *
 * A task with dependences (struct omp_deps) counts its predecessors not
 * yet complete, plus one while it is being made; each predecessor lists
 * it as a successor. A task that completes marks itself done under its
 * lock (no edge is added to it after) and lowers its successors' counts;
 * one that reaches zero is ready, and goes to the queue of the thread
 * that completed its last predecessor (its data was just written there).
 *
 * The table holds a reference on every task it names (the records stay
 * readable while a later sibling may look at them); it is emptied when
 * its owner's children are all complete (taskwait) and freed when its
 * owner's body ends (no more children), so its size follows the addresses
 * in use, not the tasks made. Only the owner's thread touches the table;
 * the tasks' own states take a word lock each: nothing is global. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "omp_internal.h"

/* Kinds as gcc 12 writes them in an omp_depend_t (and uses for depobj). */
enum { DEP_IN = 1, DEP_OUT = 2, DEP_INOUT = 3, DEP_MUTEX = 4 };
/* Kinds of groups: out and inout are the same. */
enum { GROUP_IN, GROUP_OUT, GROUP_MUTEX };

struct omp_depmutex {
    _Atomic uint32_t lock;          /* word lock over the fields below */
    bool held;
    struct omp_task *wait_head;     /* tasks ready but for this mutex, by their deps->wait_next */
    struct omp_task *wait_tail;
    _Atomic long refs;              /* the table's entry and each member task */
};

struct tvec {
    struct omp_task **v;
    int n, cap;
};

struct dep_entry {
    uintptr_t addr;
    bool used;                      /* else a free slot (address 0 is an address like any other) */
    int kind;                       /* GROUP_* of the last group */
    struct tvec cur;                /* the last group's members (a reference on each) */
    struct tvec prev;               /* the group before (a reference on each) */
    struct omp_depmutex *mx;        /* the last group's mutex (GROUP_MUTEX) */
};

struct omp_dep_table {
    size_t cap, n;                  /* slots (a power of two), used slots */
    struct dep_entry *slots;
};

#define SUCC_SMALL 3 /* successors kept in the state itself; more go to the heap */

/* A task's place in the graph: in its own record, after its arguments
 * (task.c allocates omp_deps_size more for a task with dependences). */
struct omp_deps {
    _Atomic uint32_t lock;          /* word lock over succ, and done's change */
    _Atomic bool done;              /* complete: no more successors (read alone by the table's pruning) */
    bool undeferred;                /* its maker runs it: readiness wakes the maker, does not queue it */
    _Atomic long npred;             /* predecessors not complete, + 1 while being made */
    struct tvec succ;               /* tasks that wait for it: succ_small, or a heap array past SUCC_SMALL */
    struct omp_depmutex **mx;       /* mutexes it holds while it runs, by address */
    int nmx;
    struct omp_task *wait_next;     /* link in a mutex's wait list */
    struct omp_task *succ_small[SUCC_SMALL];
};

const size_t omp_deps_size = sizeof(struct omp_deps);

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) omp_fatal("out of memory tracking task dependences");
    return p;
}

static void tvec_push(struct tvec *v, struct omp_task *t)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 4;
        v->v = xrealloc(v->v, (size_t)v->cap * sizeof *v->v);
    }
    v->v[v->n++] = t;
}

static void succ_push(struct omp_deps *d, struct omp_task *t)
{
    struct tvec *v = &d->succ;
    if (v->n == v->cap) {
        int cap = 2 * v->cap;
        struct omp_task **heap;
        if (v->v == d->succ_small) {
            heap = malloc((size_t)cap * sizeof *heap);
            if (!heap) omp_fatal("out of memory tracking task dependences");
            memcpy(heap, d->succ_small, sizeof d->succ_small);
        } else {
            heap = xrealloc(v->v, (size_t)cap * sizeof *heap);
        }
        v->v = heap;
        v->cap = cap;
    }
    v->v[v->n++] = t;
}

/* Drop the table's references on a group's members. */
static void tvec_release(struct tvec *v)
{
    for (int i = 0; i < v->n; i++) omp_task_unref(v->v[i], 1);
    v->n = 0;
}

static void mutex_unref(struct omp_depmutex *m)
{
    if (!m) return;
    long was = atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel);
    OMP_ASSERT(was >= 1);
    if (was == 1) free(m);
}

/* ---------- the table ---------- */

static bool task_done(struct omp_task *t)
{
    return atomic_load_explicit(&t->deps->done, memory_order_acquire);
}

/* Members that completed add no edge: their references go (one pass when
 * the array is full, so a group that only grows stays as large as its
 * live members). */
static void tvec_prune(struct tvec *v)
{
    int k = 0;
    for (int i = 0; i < v->n; i++) {
        if (task_done(v->v[i])) omp_task_unref(v->v[i], 1);
        else v->v[k++] = v->v[i];
    }
    v->n = k;
}

static void group_push(struct tvec *v, struct omp_task *t)
{
    if (v->n == v->cap) tvec_prune(v);
    tvec_push(v, t);
}

static bool entry_live(struct dep_entry *e)
{
    for (int i = 0; i < e->cur.n; i++)
        if (!task_done(e->cur.v[i])) return true;
    for (int i = 0; i < e->prev.n; i++)
        if (!task_done(e->prev.v[i])) return true;
    return false;
}

static void entry_drop(struct dep_entry *e)
{
    tvec_release(&e->cur);
    tvec_release(&e->prev);
    mutex_unref(e->mx);
    free(e->cur.v);
    free(e->prev.v);
    memset(e, 0, sizeof *e);
}

static size_t slot_of(uintptr_t addr, size_t cap)
{
    uint64_t h = (uint64_t)addr * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

/* Half full: entries whose tasks are all complete go (a later task on
 * their address waits for nothing there either), the rest move to a
 * table twice as large if they still fill a quarter of this one. */
static void table_grow(struct omp_dep_table *tab)
{
    size_t live = 0;
    for (size_t i = 0; i < tab->cap; i++) {
        struct dep_entry *e = &tab->slots[i];
        if (!e->used) continue;
        if (entry_live(e)) live++;
        else entry_drop(e);
    }
    size_t cap = !tab->cap ? 16 : 4 * (live + 1) > tab->cap ? 2 * tab->cap : tab->cap;
    struct dep_entry *s = calloc(cap, sizeof *s);
    if (!s) omp_fatal("out of memory tracking task dependences");
    for (size_t i = 0; i < tab->cap; i++) {
        if (!tab->slots[i].used) continue;
        size_t j = slot_of(tab->slots[i].addr, cap);
        while (s[j].used) j = (j + 1) & (cap - 1);
        s[j] = tab->slots[i];
    }
    free(tab->slots);
    tab->slots = s;
    tab->cap = cap;
    tab->n = live;
}

static struct dep_entry *table_find(struct omp_dep_table *tab, uintptr_t addr)
{
    if (2 * (tab->n + 1) > tab->cap) table_grow(tab);
    size_t j = slot_of(addr, tab->cap);
    while (tab->slots[j].used && tab->slots[j].addr != addr) j = (j + 1) & (tab->cap - 1);
    struct dep_entry *e = &tab->slots[j];
    if (!e->used) {
        e->used = true;
        e->addr = addr;
        tab->n++;
    }
    return e;
}

/* Every entry goes; with `all`, the table too. */
static void table_drop(struct omp_dep_table *tab, bool all)
{
    for (size_t i = 0; i < tab->cap; i++)
        if (tab->slots[i].used) entry_drop(&tab->slots[i]);
    tab->n = 0;
    if (all) {
        free(tab->slots);
        free(tab);
    }
}

void omp_depend_table_clear(struct omp_task *owner)
{
    if (owner->dtab) table_drop(owner->dtab, false);
}

void omp_depend_table_free(struct omp_task *owner)
{
    if (!owner->dtab) return;
    table_drop(owner->dtab, true);
    owner->dtab = NULL;
}

/* ---------- edges ---------- */

/* t waits for p, unless p is t itself or already complete. */
static void edge(struct omp_task *p, struct omp_task *t)
{
    if (p == t) return;
    struct omp_deps *pd = p->deps;
    omp_word_lock(&pd->lock);
    if (!atomic_load_explicit(&pd->done, memory_order_relaxed)) {
        succ_push(pd, t);
        atomic_fetch_add_explicit(&t->deps->npred, 1, memory_order_relaxed);
    }
    omp_word_unlock(&pd->lock);
}

static void mutex_note(struct omp_deps *d, struct omp_depmutex *m)
{
    for (int i = 0; i < d->nmx; i++)
        if (d->mx[i] == m) return;
    d->mx = xrealloc(d->mx, (size_t)(d->nmx + 1) * sizeof *d->mx);
    d->mx[d->nmx++] = m;
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
}

/* One dependence of t on addr, of gcc's kind. */
static void depend_one(struct omp_dep_table *tab, struct omp_task *t, uintptr_t addr, int dkind, bool serial)
{
    if (serial && dkind == DEP_MUTEX) dkind = DEP_INOUT;
    int kind = dkind == DEP_IN ? GROUP_IN : dkind == DEP_MUTEX ? GROUP_MUTEX : GROUP_OUT;
    struct dep_entry *e = table_find(tab, addr);
    if (e->cur.n && kind != GROUP_OUT && e->kind == kind) {
        /* Joins the last group: waits for the one before. */
        for (int i = 0; i < e->prev.n; i++) edge(e->prev.v[i], t);
        if (e->cur.v[e->cur.n - 1] != t) {
            group_push(&e->cur, t);
            atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
        }
    } else {
        /* A new group after the last: waits for all of it. */
        for (int i = 0; i < e->cur.n; i++) edge(e->cur.v[i], t);
        tvec_release(&e->prev);
        struct tvec old = e->prev;
        e->prev = e->cur;
        e->cur = old; /* empty, its array reused */
        tvec_push(&e->cur, t);
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
        e->kind = kind;
        mutex_unref(e->mx);
        e->mx = NULL;
        if (kind == GROUP_MUTEX) {
            e->mx = calloc(1, sizeof *e->mx);
            if (!e->mx) omp_fatal("out of memory tracking task dependences");
            atomic_store_explicit(&e->mx->refs, 1, memory_order_relaxed);
        }
    }
    if (kind == GROUP_MUTEX) mutex_note(t->deps, e->mx);
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (struct omp_depmutex *const *)a, y = (uintptr_t) * (struct omp_depmutex *const *)b;
    return x < y ? -1 : x > y;
}

void omp_depend_add(struct omp_task *owner, struct omp_task *t, void **depend, bool undeferred, bool serial)
{
    struct omp_deps *d = t->deps; /* in t's record (task.c) */
    memset(d, 0, sizeof *d);
    d->succ.v = d->succ_small;
    d->succ.cap = SUCC_SMALL;
    d->undeferred = undeferred;
    atomic_store_explicit(&d->npred, 1, memory_order_relaxed); /* while being made */
    if (!owner->dtab) {
        owner->dtab = calloc(1, sizeof *owner->dtab);
        if (!owner->dtab) omp_fatal("out of memory tracking task dependences");
    }
    struct omp_dep_table *tab = owner->dtab;
    uintptr_t *a = (uintptr_t *)depend;
    if (a[0]) {
        /* gcc's first layout: n, then how many are out/inout, then the
         * addresses, those first and the in ones after. */
        size_t n = a[0], nout = a[1];
        for (size_t i = 0; i < n; i++) depend_one(tab, t, a[2 + i], i < nout ? DEP_OUT : DEP_IN, serial);
    } else if (a[1]) {
        /* (An empty list, e.g. an iterator over nothing: 0, 0 and no more.)
         * OpenMP 5.0's: 0, n, then counts of out/inout, mutexinoutset and
         * in, the addresses in that order, and the rest depobj objects
         * (an address and a kind each). */
        size_t n = a[1], nout = a[2], nmx = a[3], nin = a[4];
        const uintptr_t *p = a + 5;
        for (size_t i = 0; i < n; i++) {
            if (i < nout) depend_one(tab, t, p[i], DEP_OUT, serial);
            else if (i < nout + nmx) depend_one(tab, t, p[i], DEP_MUTEX, serial);
            else if (i < nout + nmx + nin) depend_one(tab, t, p[i], DEP_IN, serial);
            else {
                const uintptr_t *obj = (const uintptr_t *)p[i];
                if (obj[1] >= DEP_IN && obj[1] <= DEP_MUTEX) depend_one(tab, t, obj[0], (int)obj[1], serial);
                else if (obj[1] != (uintptr_t)-1) /* -1: destroyed, names nothing */
                    omp_fatal("a depobj of a dependence kind this version of weft-omp does not know");
            }
        }
    }
    if (d->nmx > 1) qsort(d->mx, (size_t)d->nmx, sizeof *d->mx, by_address);
}

bool omp_depend_made(struct omp_task *t)
{
    long was = atomic_fetch_sub_explicit(&t->deps->npred, 1, memory_order_acq_rel);
    OMP_ASSERT(was >= 1); /* the maker's own count, taken at the start */
    return was == 1;
}

_Atomic long *omp_depend_count(struct omp_task *t)
{
    return &t->deps->npred;
}

/* ---------- mutexinoutset ---------- */

/* Every waiter tries again (one alone could fail on another mutex and
 * leave this one free with the rest still waiting). */
static void mutex_release(struct omp_depmutex *m, struct omp_task **woken)
{
    omp_word_lock(&m->lock);
    m->held = false;
    struct omp_task *first = m->wait_head, *last = m->wait_tail;
    m->wait_head = m->wait_tail = NULL;
    omp_word_unlock(&m->lock);
    if (first) {
        last->deps->wait_next = *woken;
        *woken = first;
    }
}

/* Take every mutex of t, in address order, or none. With `park`, a task
 * that finds one taken waits on that mutex's list (checked and queued
 * under its lock, so its release cannot be missed). */
static bool mutexes_take(struct omp_task *t, bool park, struct omp_task **woken)
{
    struct omp_deps *d = t->deps;
    for (int i = 0; i < d->nmx; i++) {
        struct omp_depmutex *m = d->mx[i];
        omp_word_lock(&m->lock);
        if (!m->held) {
            m->held = true;
            omp_word_unlock(&m->lock);
            continue;
        }
        if (park) {
            d->wait_next = NULL;
            if (m->wait_tail) m->wait_tail->deps->wait_next = t;
            else m->wait_head = t;
            m->wait_tail = t;
        }
        omp_word_unlock(&m->lock);
        for (int k = 0; k < i; k++) mutex_release(d->mx[k], woken);
        return false;
    }
    return true;
}

static void ready_all(struct omp_thread *thr, struct omp_task *todo);

bool omp_depend_try_mutexes(struct omp_thread *thr, struct omp_task *t)
{
    struct omp_task *woken = NULL;
    bool ok = mutexes_take(t, false, &woken);
    ready_all(thr, woken);
    return ok;
}

/* ---------- readiness and completion ---------- */

/* Ready tasks are handled from a list, not by recursion: handing a mutex
 * on may ready many tasks, each of which may release others. */
static void ready_all(struct omp_thread *thr, struct omp_task *todo)
{
    while (todo) {
        struct omp_task *t = todo;
        todo = t->deps->wait_next;
        struct omp_task *woken = NULL;
        if (!t->deps->nmx || mutexes_take(t, true, &woken)) omp_task_enqueue(thr, t);
        while (woken) {
            struct omp_task *w = woken;
            woken = w->deps->wait_next;
            w->deps->wait_next = todo;
            todo = w;
        }
    }
}

void omp_depend_ready(struct omp_thread *thr, struct omp_task *t)
{
    t->deps->wait_next = NULL;
    ready_all(thr, t);
}

void omp_depend_complete(struct omp_thread *thr, struct omp_task *t)
{
    struct omp_deps *d = t->deps;
    struct omp_task *woken = NULL;
    for (int i = 0; i < d->nmx; i++) mutex_release(d->mx[i], &woken);
    omp_word_lock(&d->lock);
    atomic_store_explicit(&d->done, true, memory_order_release);
    omp_word_unlock(&d->lock);
    /* No successor is added once done is set: the list is ours. */
    for (int i = 0; i < d->succ.n; i++) {
        struct omp_task *s = d->succ.v[i];
        /* Read first: an undeferred successor's maker may run it, and free
         * it, as soon as the count is 0; the team outlives that wait. */
        struct omp_deps *sd = s->deps;
        bool undeferred = sd->undeferred;
        struct omp_team *team = s->team;
        long was = atomic_fetch_sub_explicit(&sd->npred, 1, memory_order_acq_rel);
        OMP_ASSERT(was >= 1); /* one per predecessor edge, released once */
        if (was == 1) {
            if (undeferred) {
                omp_team_event(team); /* its maker waits for the count (omp_depend_count) */
            } else {
                sd->wait_next = woken;
                woken = s;
            }
        }
    }
    d->succ.n = 0;
    ready_all(thr, woken);
}

void omp_depend_free(struct omp_task *t)
{
    struct omp_deps *d = t->deps;
    t->deps = NULL;
    for (int i = 0; i < d->nmx; i++) mutex_unref(d->mx[i]);
    free(d->mx);
    if (d->succ.v != d->succ_small) free(d->succ.v);
}
