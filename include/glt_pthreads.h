/* GLT's pthreads API over lightweight threads: include this header instead
 * of <pthread.h> and link with -lgltpthread -lweft, and a pthreads program
 * runs its threads as weft ULTs. Each pthread_* call below (and
 * sched_yield) is renamed to GLT's gpthread_* function of the same
 * signature (the GLT 2.5 set, plus pthread_equal, pthread_once and
 * pthread_cond_timedwait); types stay pthread_t, pthread_mutex_t, ... and
 * the static initialisers (PTHREAD_MUTEX_INITIALIZER,
 * PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, PTHREAD_COND_INITIALIZER) work.
 * Everything else of <pthread.h> (attribute objects, spin locks, rwlocks)
 * is the system's own. Define GLT_PTHREADS_NO_RENAME to get the gpthread_*
 * functions without the renaming.
 *
 * The library starts weft before main (glt_init from a constructor:
 * GLT_NUM_THREADS streams, default one per core, sharing GLT_NUM_POOLS=1
 * pool unless the environment says otherwise, as GLT does); the calling
 * thread goes on as the main ULT, and GLT's own calls (glt.h) may be used
 * alongside. At exit it stops weft if no thread made by pthread_create is
 * left; otherwise it leaves them, as exit() ends a process's threads.
 *
 * What the calls do, and where they differ from the system's:
 *  - pthread_create makes a ULT on the caller's GLT thread's pool, running
 *    on any stream that serves it. Attributes: detach state and an
 *    explicitly set stack size are honoured; the rest is ignored. EAGAIN
 *    when no memory is left. pthread_t is a weft-side record, the same
 *    value pthread_self() gives inside the thread. A handle of a thread
 *    that is gone (joined, or detached and ended) gets ESRCH until a new
 *    thread reuses its record; from then on it names the new thread, as a
 *    reused pthread_t of glibc does.
 *  - pthread_join / pthread_detach / pthread_exit: as POSIX; a thread
 *    detached late is joined by a helper ULT. pthread_exit from main
 *    waits for every thread made by pthread_create to end, then exits the
 *    process with status 0. From an OS thread that is not weft's (made by
 *    the system's calls) these and pthread_self fall back to the system's.
 *  - Cancellation is deferred only: pthread_cancel marks the thread; it
 *    ends with PTHREAD_CANCELED at its start or at its next
 *    pthread_testcancel or pthread_join, if cancelability is enabled. No
 *    cleanup handlers run and the stack is not unwound (like weft's
 *    weft_thread_exit). PTHREAD_CANCEL_ASYNCHRONOUS is refused with
 *    ENOTSUP: a ULT cannot be interrupted. Only threads made by
 *    pthread_create can be cancelled (ESRCH otherwise).
 *  - Mutexes (default, error-checking, recursive), condition variables
 *    (pthread_cond_timedwait: the condattr clock, CLOCK_REALTIME by
 *    default), barriers and keys are weft's: waiting parks the ULT, not its
 *    stream. Relocking a non-recursive mutex gives EDEADLK, unlocking one
 *    held by another EPERM. Up to 4096 keys live at once.
 *  - sched_yield and pthread_yield yield the ULT.
 *  - fork(): as with the system's threads, the child has only the thread
 *    that forked; the parent's other threads are gone (join, detach and
 *    cancel of them give ESRCH). The child runs without weft until its
 *    first pthread_create, which starts weft again (that thread goes on
 *    as the main ULT); exit() there stops it as in the parent.
 * A tasklet, a scheduler or a plain OS thread may call the non-blocking
 * ones; blocking ones from a tasklet fail with EDEADLK where they would
 * wait. */
#ifndef WEFT_GLT_PTHREADS_H
#define WEFT_GLT_PTHREADS_H

#ifdef GLT_BACKEND_PTHREADS
#error "glt_pthreads.h runs pthreads programs over weft; GLT_BACKEND_PTHREADS runs GLT over OS threads"
#endif

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "glt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called by the library at load and at exit (constructor, destructor). */
void glt_pthread_start(void);
void glt_pthread_end(void);

int gpthread_create(pthread_t *pth, const pthread_attr_t *attr, void *(*func)(void *), void *args);
int gpthread_join(pthread_t th, void **ret);
int gsched_yield(void);
int gpthread_yield(void);
pthread_t gpthread_self(void);
void gpthread_exit(void *ret) __attribute__((noreturn));
int gpthread_detach(pthread_t th);
int gpthread_setcancelstate(int state, int *oldstate);
int gpthread_setcanceltype(int type, int *oldtype);
int gpthread_cancel(pthread_t th);
void gpthread_testcancel(void);
int gpthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int gpthread_key_delete(pthread_key_t key);
void *gpthread_getspecific(pthread_key_t key);
int gpthread_setspecific(pthread_key_t key, const void *ptr);
int gpthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr, unsigned int count);
int gpthread_barrier_destroy(pthread_barrier_t *barrier);
int gpthread_barrier_wait(pthread_barrier_t *barrier);
int gpthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int gpthread_mutex_destroy(pthread_mutex_t *mutex);
int gpthread_mutex_trylock(pthread_mutex_t *mutex);
int gpthread_mutex_lock(pthread_mutex_t *mutex);
int gpthread_mutex_unlock(pthread_mutex_t *mutex);
int gpthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *cond_attr);
int gpthread_cond_destroy(pthread_cond_t *c);
int gpthread_cond_signal(pthread_cond_t *c);
int gpthread_cond_broadcast(pthread_cond_t *c);
int gpthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *mutex);
/* Beyond GLT's set. */
int gpthread_equal(pthread_t a, pthread_t b);
int gpthread_once(pthread_once_t *once, void (*init)(void));
int gpthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *mutex, const struct timespec *abstime);

#ifdef __cplusplus
}
#endif

#ifndef GLT_PTHREADS_NO_RENAME
#define pthread_create gpthread_create
#define pthread_join gpthread_join
#define sched_yield gsched_yield
#define pthread_yield gpthread_yield
#define pthread_self gpthread_self
#define pthread_exit gpthread_exit
#define pthread_detach gpthread_detach
#define pthread_setcancelstate gpthread_setcancelstate
#define pthread_setcanceltype gpthread_setcanceltype
#define pthread_cancel gpthread_cancel
#define pthread_testcancel gpthread_testcancel
#define pthread_key_create gpthread_key_create
#define pthread_key_delete gpthread_key_delete
#define pthread_getspecific gpthread_getspecific
#define pthread_setspecific gpthread_setspecific
#define pthread_barrier_init gpthread_barrier_init
#define pthread_barrier_destroy gpthread_barrier_destroy
#define pthread_barrier_wait gpthread_barrier_wait
#define pthread_mutex_init gpthread_mutex_init
#define pthread_mutex_destroy gpthread_mutex_destroy
#define pthread_mutex_trylock gpthread_mutex_trylock
#define pthread_mutex_lock gpthread_mutex_lock
#define pthread_mutex_unlock gpthread_mutex_unlock
#define pthread_cond_init gpthread_cond_init
#define pthread_cond_destroy gpthread_cond_destroy
#define pthread_cond_signal gpthread_cond_signal
#define pthread_cond_broadcast gpthread_cond_broadcast
#define pthread_cond_wait gpthread_cond_wait
#define pthread_equal gpthread_equal
#define pthread_once gpthread_once
#define pthread_cond_timedwait gpthread_cond_timedwait
#endif

#endif
