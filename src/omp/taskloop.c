/* weft-omp taskloop: GOMP_taskloop and GOMP_taskloop_ull.
 *
 * The loop's n iterations are cut into tasks of consecutive iterations;
 * each task gets its own copy of the arguments, whose first two words are
 * its bounds (start and end of its part, in the loop's type). How many
 * tasks, as libgomp 12 does (a program may count them):
 *   grainsize(g):         max(1, n / g) tasks, the iterations spread
 *                         evenly (so g to 2g - 1 each);
 *   grainsize(strict: g): ceil(n / g) tasks of g, the last one the rest;
 *   num_tasks(k):         min(k, n) tasks, spread evenly (the first n % k
 *                         one more);
 *   neither:              as num_tasks(team size).
 * Spread evenly means the first (n mod tasks) tasks get one iteration more.
 * The tasks are made one by one as GOMP_task makes them (queued, or run
 * at once past the queue's cut-off, with if(0), in a final task or a
 * team of one), inside a taskgroup unless `nogroup`; a reduction clause
 * registers its task reductions in that taskgroup (taskred.c). */
#define _GNU_SOURCE
#include <string.h>

#include "omp_internal.h"

/* GOMP_taskloop's flags (GCC's gomp-constants.h). */
#define TASK_FINAL (1u << 1)
#define TASK_UP (1u << 8)
#define TASK_GRAINSIZE (1u << 9)
#define TASK_IF (1u << 10)
#define TASK_NOGROUP (1u << 11)
#define TASK_REDUCTION (1u << 12)
#define TASK_STRICT (1u << 14)

/* The first words of a taskloop's argument block. */
struct loop_head {
    uint64_t lo, hi;
    uintptr_t *reductions; /* with TASK_REDUCTION: gcc's descriptor */
};

/* Whether no task may start: the region or the taskgroup is cancelled. */
static bool cancelled(struct omp_thread *thr) { return omp_g.cancel && omp_task_discarded(thr); }

/* The loop of n > 0 iterations from `start` by `step` (both as 64-bit
 * words, the type's arithmetic being modular either way). */
static void taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                     unsigned flags, unsigned long num_tasks, int priority, uint64_t start, uint64_t step,
                     uint64_t n)
{
    struct omp_thread *thr = omp_self();
    uint64_t ntasks, base, extra, last;
    if (flags & TASK_GRAINSIZE) {
        uint64_t g = num_tasks ? num_tasks : 1;
        if (flags & TASK_STRICT) { /* g each, the last the rest */
            ntasks = n / g + (n % g != 0);
            base = g;
            extra = 0;
            last = n - (ntasks - 1) * g;
        } else {
            ntasks = n / g ? n / g : 1;
            base = n / ntasks;
            extra = n % ntasks;
            last = base;
        }
    } else {
        ntasks = num_tasks ? num_tasks : (thr->team ? thr->team->nthreads : 1);
        if (ntasks > n) ntasks = n;
        base = n / ntasks;
        extra = n % ntasks;
        last = base;
    }
    bool group = !(flags & TASK_NOGROUP);
    if (group) {
        struct omp_taskgroup *g = omp_taskgroup_begin(thr, false);
        if (flags & TASK_REDUCTION) {
            uintptr_t *red = ((struct loop_head *)data)->reductions;
            omp_reductions_register(red, g->reductions, thr->team ? thr->team->nthreads : 1);
            g->reductions = red;
        }
    }
    if (priority < 0) priority = 0;
    if (priority > omp_g.max_task_priority) priority = omp_g.max_task_priority;
    bool if_clause = flags & TASK_IF, final = flags & TASK_FINAL;
    uint64_t lo = start;
    for (uint64_t i = 0; i < ntasks; i++) {
        if (cancelled(thr)) break;
        uint64_t k = i + 1 == ntasks ? last : base + (i < extra);
        uint64_t bounds[2] = {lo, lo + k * step};
        lo = bounds[1];
        omp_task_loop_one(thr, fn, data, cpyfn, arg_size, arg_align, if_clause, final, priority, bounds,
                          sizeof bounds);
    }
    if (group) omp_taskgroup_finish(thr);
}

/* No task at all: a reduction's combining code (which runs when [2] of
 * its descriptor is not 0) is told nothing was registered. */
static void no_tasks(void *data, unsigned flags)
{
    if ((flags & (TASK_NOGROUP | TASK_REDUCTION)) == TASK_REDUCTION) ((struct loop_head *)data)->reductions[2] = 0;
}

OMP_EXPORT void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                              long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                              long end, long step)
{
    uint64_t span; /* |end - start|, exact in unsigned arithmetic */
    uint64_t ustep = step > 0 ? (uint64_t)step : -(uint64_t)step;
    if (step > 0 ? start < end : start > end)
        span = step > 0 ? (uint64_t)end - (uint64_t)start : (uint64_t)start - (uint64_t)end;
    else
        span = 0;
    if (span == 0 || step == 0 || cancelled(omp_self())) {
        no_tasks(data, flags);
        return;
    }
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, (uint64_t)start, (uint64_t)step,
             (span - 1) / ustep + 1);
}

OMP_EXPORT void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                                  long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                                  unsigned long long start, unsigned long long end, unsigned long long step)
{
    bool up = flags & TASK_UP;
    uint64_t span = up ? (start < end ? end - start : 0) : (start > end ? start - end : 0);
    uint64_t ustep = up ? step : -step; /* a downward loop's step is negative, as a word */
    if (span == 0 || ustep == 0 || cancelled(omp_self())) {
        no_tasks(data, flags);
        return;
    }
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, step,
             (span - 1) / ustep + 1);
}
