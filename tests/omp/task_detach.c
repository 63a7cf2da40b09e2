/* task_detach: the detach clause and omp_fulfill_event.
 * A detached task completes when its body has ended and its event is
 * fulfilled, whichever comes last: its dependants, taskwait and a
 * taskgroup wait for both. Events are fulfilled by a plain
 * thread (pthread) and by the task's own body, and inside the task the
 * handle has the value its maker got; an undeferred (if(0)) detached task
 * keeps its maker waiting until a plain thread fulfils its event. (Not
 * by a later task of the same maker: with one thread, libgomp 12 runs
 * detached tasks undeferred, and the maker would wait for ever.)
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "omp_check.h"

static void nap(void)
{
    struct timespec ts = {0, 500000};
    nanosleep(&ts, NULL);
}

struct late {
    omp_event_handle_t *ev;
    int *flag;
};

/* A plain thread: waits for the handle to be written, then fulfils it late. */
static void *fulfil_later(void *arg)
{
    struct late *l = arg;
    while (__atomic_load_n((uintptr_t *)l->ev, __ATOMIC_ACQUIRE) == 0) nap();
    nap();
    nap();
    __atomic_store_n(l->flag, 1, __ATOMIC_SEQ_CST);
    omp_fulfill_event(*l->ev);
    return NULL;
}

/* A task detached with depend(out: x), fulfilled late by a plain thread,
 * then a task with depend(in: x) that notes (fulfilled * 10 + x) in *seen:
 * 11 when the dependant waited for the fulfilment. */
static void detached_then_dependant(int *x, int *fulfilled, int *seen)
{
    omp_event_handle_t ev = (omp_event_handle_t)0;
    struct late l = {&ev, fulfilled};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fulfil_later, &l) == 0);
#pragma omp task detach(ev) depend(out : x[0])
    *x = 1;
#pragma omp task depend(in : x[0])
    *seen = __atomic_load_n(fulfilled, __ATOMIC_SEQ_CST) * 10 + *x;
#pragma omp taskwait
    pthread_join(th, NULL);
}

static void by_plain_thread(int deferred)
{
    int flag = 0;
    pthread_t th;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev = (omp_event_handle_t)0;
        struct late l = {&ev, &flag};
        CHECK(pthread_create(&th, NULL, fulfil_later, &l) == 0);
#pragma omp task detach(ev) if (deferred)
        nap();
        if (deferred) {
#pragma omp taskwait
        }
        CHECK_EQ(__atomic_load_n(&flag, __ATOMIC_SEQ_CST), 1);
        pthread_join(th, NULL);
    }
}

enum { MANY = 200 };
static int fulfilled_many[MANY];

/* Fulfils each handle as it appears, in whatever order the tasks run. */
static void *fulfil_all(void *arg)
{
    uintptr_t *h = arg;
    for (int left = MANY; left > 0;) {
        for (int i = 0; i < MANY; i++)
            if (!fulfilled_many[i] && __atomic_load_n(&h[i], __ATOMIC_ACQUIRE)) {
                omp_fulfill_event((omp_event_handle_t)h[i]);
                __atomic_store_n(&fulfilled_many[i], 1, __ATOMIC_RELEASE);
                left--;
            }
        nap();
    }
    return NULL;
}

int main(void)
{
    /* Fulfilled by a plain thread; a dependant waits for it. */
    int x = 0, fulfilled = 0, seen = -1;
    pthread_t th;
#pragma omp parallel
#pragma omp single
    {
        detached_then_dependant(&x, &fulfilled, &seen);
#pragma omp taskwait
    }
    CHECK_EQ(seen, 11);

    /* In a final task (its children included): a detached child holds its
     * maker until a plain thread fulfils it, so a later sibling reading
     * what it wrote, with a dependence on it, sees it fulfilled. */
    fulfilled = 0;
    seen = -1;
    x = 0;
#pragma omp parallel
#pragma omp single
#pragma omp task final(1) shared(x, fulfilled, seen)
    detached_then_dependant(&x, &fulfilled, &seen);
    CHECK_EQ(seen, 11);

    /* A task made after 8 queued siblings (it may run at once on its
     * maker's stack) makes a detached child that its maker fulfils after a
     * taskwait: the task completes when its body ends, without waiting
     * for that child. */
    for (int rep = 0; rep < 20; rep++) {
        int child_ran = 0, sib = 0;
#pragma omp parallel shared(child_ran, sib)
#pragma omp single
        {
            omp_event_handle_t ev = (omp_event_handle_t)0;
            for (int k = 0; k < 8; k++) {
#pragma omp task shared(sib)
                {
#pragma omp atomic
                    sib++;
                }
            }
#pragma omp task shared(ev, child_ran)
            {
#pragma omp task detach(ev) shared(child_ran)
                {
#pragma omp atomic
                    child_ran++;
                }
            }
#pragma omp taskwait
            omp_fulfill_event(ev);
        }
        CHECK_EQ(child_ran, 1);
        CHECK_EQ(sib, 8);
    }

    /* Fulfilled by a plain thread: taskwait waits for it, and an
     * undeferred (if(0)) one holds its maker until then. */
    by_plain_thread(1);
    by_plain_thread(0);

    /* Fulfilled inside its own body: complete when the body ends. The
     * task's copy of the handle is the one its maker got. */
    int own = 0;
    uintptr_t inside = 1;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp taskgroup
        {
#pragma omp task detach(ev) shared(own, inside)
            {
                inside = (uintptr_t)ev;
                omp_fulfill_event(ev);
                nap();
                own = 1;
            }
        }
        CHECK_EQ(own, 1);
        CHECK(inside == (uintptr_t)ev);
    }

    /* Many detached tasks, fulfilled by a plain thread as their handles
     * appear (before their bodies end); taskwait waits for all. */
    enum { N = MANY };
    static uintptr_t handles[N];
    static int done[N];
    CHECK(pthread_create(&th, NULL, fulfil_all, handles) == 0);
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < N; i++) {
            omp_event_handle_t e;
#pragma omp task detach(e) firstprivate(i)
            {
                /* From the body: a maker that runs it undeferred waits for the event. */
                __atomic_store_n(&handles[i], (uintptr_t)e, __ATOMIC_RELEASE);
                /* Ends after the fulfilment: libgomp 12 does not always wake
                 * a waiting team when a plain thread completes a task. */
                while (!__atomic_load_n(&fulfilled_many[i], __ATOMIC_ACQUIRE)) nap();
                done[i] = 1;
            }
        }
#pragma omp taskwait
    }
    for (int i = 0; i < N; i++) CHECK_EQ(done[i], 1);
    pthread_join(th, NULL);
    printf("task_detach: ok\n");
    return 0;
}
