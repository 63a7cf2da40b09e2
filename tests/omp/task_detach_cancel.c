/* task_detach_cancel: detached tasks meet cancellation and the end of their
 * team.
 * RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=1
 * RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=2
 * RUN-ENV: OMP_CANCELLATION=true OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=3
 *
 * - A detached task discarded by `cancel taskgroup` before it starts is
 *   complete without its event (as libgomp 12 completes it): its body,
 *   which was to fulfil the event, never runs, and the taskgroup's end
 *   does not wait for ever.
 * - Plain threads fulfil events while the region that made the tasks ends
 *   and the next region, of another size, ends its team: the fulfilment
 *   must not touch the team after it is gone (run under ASan in CI). On
 *   the library under test only (see fulfil_at_region_end).
 * - A detached task made in a target region run on the host is complete
 *   when the region ends, the event fulfilled by a plain thread; one made
 *   outside any region by a plain thread that then ends is fulfilled
 *   after (weft-omp once freed its team while the task waited: ASan).
 * - Beyond libgomp's contract, on the library under test only
 *   (OMP_TEST_LIBDIR set): fulfilling the event of a discarded task, late
 *   or from a plain thread, and the event of a task not even made (its
 *   taskgroup cancelled already), does nothing, also when the maker makes
 *   a new detached task at once (its record is not the discarded one's).
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "omp_check.h"

static void nap(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static int beyond(void)
{
    const char *l = getenv("OMP_TEST_LIBDIR");
    return l && *l;
}

static void *fulfil_thread(void *arg)
{
    omp_fulfill_event((omp_event_handle_t)(uintptr_t)arg);
    return NULL;
}

/* A taskgroup cancelled by a task that a detached task depends on: the
 * detached one is discarded. Returns its event handle. */
static omp_event_handle_t discarded_once(int *ran)
{
    omp_event_handle_t ev = (omp_event_handle_t)0;
    int x = 0;
#pragma omp parallel shared(ev, x)
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task depend(out : x) shared(x)
            {
                x = 1;
#pragma omp cancel taskgroup
            }
#pragma omp task detach(ev) depend(in : x) shared(ran)
            {
                *ran = 1;
                omp_fulfill_event(ev); /* the only fulfilment there would be */
            }
        }
    }
    return ev;
}

static void discarded(void)
{
    for (int rep = 0; rep < 50; rep++) {
        int ran = 0;
        omp_event_handle_t ev = discarded_once(&ran);
        if (omp_get_cancellation()) CHECK_EQ(ran, 0);
        else CHECK_EQ(ran, 1);
        if (omp_get_cancellation() && beyond()) {
            if (rep % 2) {
                omp_fulfill_event(ev);
            } else {
                pthread_t th;
                CHECK(pthread_create(&th, NULL, fulfil_thread, (void *)(uintptr_t)ev) == 0);
                pthread_join(th, NULL);
            }
        }
    }
}

/* Beyond libgomp: a discarded task's late fulfilment does nothing even
 * when its maker makes another detached task at once (whose record must
 * not be the discarded one's: libgomp 12 reuses it, and the late
 * fulfilment completes the new task early). */
static void discard_then_new(void)
{
    if (!omp_get_cancellation() || !beyond()) return;
    static int busy;
    omp_event_handle_t hx = (omp_event_handle_t)0, hy = (omp_event_handle_t)0;
    int y_done = 0, y_fulfilled = 0, seen = -1;
    __atomic_store_n(&busy, 1, __ATOMIC_RELAXED);
#pragma omp parallel num_threads(2) shared(hx, hy, y_done, y_fulfilled, seen)
    {
        if (omp_get_thread_num() == 1) {
            while (__atomic_load_n(&busy, __ATOMIC_ACQUIRE)) nap(100000); /* thread 0 runs the tasks */
        } else {
            omp_event_handle_t e;
#pragma omp taskgroup
            {
#pragma omp task detach(e)
                CHECK(0); /* discarded */
                hx = e;
#pragma omp task
                {
#pragma omp cancel taskgroup
                }
            }
#pragma omp task detach(e) shared(y_done)
            __atomic_store_n(&y_done, 1, __ATOMIC_RELEASE);
            hy = e;
            omp_fulfill_event(hx); /* late: does nothing */
            __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
#pragma omp task shared(y_fulfilled)
            {
                nap(20000000);
                __atomic_store_n(&y_fulfilled, 1, __ATOMIC_RELEASE);
                omp_fulfill_event(hy);
            }
#pragma omp taskwait
            seen = __atomic_load_n(&y_fulfilled, __ATOMIC_ACQUIRE) * 10 + __atomic_load_n(&y_done, __ATOMIC_ACQUIRE);
        }
    }
    CHECK(hx != hy);
    CHECK_EQ(seen, 11);
}

/* The taskgroup is cancelled before the detached task is made: it is not
 * made at all. */
static void not_made(void)
{
    if (!omp_get_cancellation()) return;
    int ran = 0;
    omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp parallel shared(ev, ran)
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task
            {
#pragma omp cancel taskgroup
            }
#pragma omp taskwait
#pragma omp task detach(ev) shared(ran)
            ran = 1;
        }
    }
    CHECK_EQ(ran, 0);
    if (beyond()) omp_fulfill_event(ev);
}

/* Region after region, each of a size other than the last (a new team),
 * with detached tasks fulfilled by plain threads at about the time the
 * region ends. */
static void fulfil_at_region_end(void)
{
    /* Not on libgomp 12: a plain thread that completes a task does not
     * always wake the team waiting for it there (the region then hangs at
     * 2 threads, about one run in two here). */
    if (!beyond()) return;
    enum { REPS = 400, PER = 3 };
    for (int rep = 0; rep < REPS; rep++) {
        pthread_t th[PER];
        int nth = 1 + rep % 3, made = 0;
#pragma omp parallel num_threads(nth) shared(made, th)
#pragma omp single
        for (int k = 0; k < PER; k++) {
            omp_event_handle_t ev;
#pragma omp task detach(ev)
            nap(1000 * k);
            CHECK(pthread_create(&th[k], NULL, fulfil_thread, (void *)(uintptr_t)ev) == 0);
            made++;
        }
        CHECK_EQ(made, PER);
        for (int k = 0; k < PER; k++) pthread_join(th[k], NULL);
    }
}

struct late {
    omp_event_handle_t ev;
    int *flag;
};

static void *fulfil_late(void *arg)
{
    struct late *l = arg;
    nap(2000000);
    __atomic_store_n(l->flag, 1, __ATOMIC_SEQ_CST);
    omp_fulfill_event(l->ev);
    free(l);
    return NULL;
}

/* A detached task in a target region run on the host: the region ends
 * when it is complete. */
static void in_target(void)
{
    int flag = 0, seen = -1;
    pthread_t th;
#pragma omp target map(tofrom : flag, seen, th)
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) shared(flag, th)
        {
            struct late *l = malloc(sizeof *l);
            l->ev = ev;
            l->flag = &flag;
            pthread_create(&th, NULL, fulfil_late, l);
        }
        seen = 0;
    }
    CHECK_EQ(seen, 0);
    CHECK_EQ(__atomic_load_n(&flag, __ATOMIC_SEQ_CST), 1);
    pthread_join(th, NULL);
}

static omp_event_handle_t exit_ev;
static int exit_made;

static void *make_and_exit(void *arg)
{
    (void)arg;
    omp_event_handle_t e;
#pragma omp task detach(e)
    {
        __atomic_store_n(&exit_ev, e, __ATOMIC_RELEASE);
        __atomic_store_n(&exit_made, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* A plain thread makes a detached task outside any parallel region and
 * ends; the event is fulfilled afterwards (libgomp holds the maker at the
 * task until then; weft-omp holds it at its end). */
static void maker_exits(void)
{
    pthread_t th;
    CHECK(pthread_create(&th, NULL, make_and_exit, NULL) == 0);
    while (!__atomic_load_n(&exit_made, __ATOMIC_ACQUIRE)) nap(100000);
    nap(20000000);
    omp_fulfill_event(__atomic_load_n(&exit_ev, __ATOMIC_ACQUIRE));
    pthread_join(th, NULL);
}

int main(void)
{
    discarded();
    not_made();
    discard_then_new();
    fulfil_at_region_end();
    in_target();
    maker_exits();
    printf("task_detach_cancel: ok\n");
    return 0;
}
