/* GLT over weft (and, built with -DGLT_BACKEND_PTHREADS, over OS threads):
 * every GLT call, with checked results. The patterns of [Threading-HPC] are
 * examples/glt_patterns.c and examples/glt_queens.c, run as tests on both
 * backends. */
#define _GNU_SOURCE /* glt_backend_pthreads.h pins threads: affinity calls */
#include <errno.h>
#include <pthread.h>

#include "glt.h"
#include "check.h"

static int g_nth;

/* Sync, keys, ids, migration. */
static GLT_mutex g_m;
static GLT_cond g_c;
static GLT_barrier g_b;
static GLT_key g_k;
static int g_ready, g_dtor;
static long g_sum;
static void dtor(void *v) { __atomic_add_fetch(&g_dtor, *(int *)v, __ATOMIC_RELAXED); }
static void worker(void *arg)
{
    static int one_value = 1;
    glt_key_set(g_k, &one_value);
    glt_mutex_lock(g_m);
    while (!g_ready) glt_cond_wait(g_c, g_m);
    g_sum += (intptr_t)arg;
    glt_mutex_unlock(g_m);
    glt_barrier_wait(&g_b);
    glt_mutex_spinlock(g_m);
    g_sum += 1000;
    glt_mutex_unlock(g_m);
    void *v;
    glt_key_get(g_k, &v);
    CHECK(v == &one_value);
}

static void mover(void *arg)
{
    (void)arg;
    GLT_ult self;
    glt_ult_self(&self);
    GLT_ult_id id1, id2;
    glt_ult_get_id(&id1, self);
    for (int t = 0; t < g_nth; t++) {
        glt_ult_migrate_self_to(t);
        glt_yield();
        GLT_thread_id where;
        glt_workunit_get_thread_id(&where);
        CHECK(where == t);
        CHECK(glt_get_thread_num() == t);
    }
    glt_ult_get_id(&id2, self);
    CHECK(id1 == id2);
}

static void exiter(void *arg)
{
    *(int *)arg = 1;
    glt_ult_exit();
}

static int g_ran;
static void never(void *arg) { (void)arg; g_ran = 1; }

/* Tasklets placed on each thread: where they ran, who they are. */
static GLT_tasklet g_tk_self[64];
static int g_tk_num[64];
static void tasklet_body(void *arg)
{
    intptr_t i = (intptr_t)arg;
    glt_tasklet_self(&g_tk_self[i]);
    g_tk_num[i] = glt_get_thread_num();
}

static void setter(void *arg)
{
    int v = 42;
    glt_future_set(*(GLT_future *)arg, &v, sizeof v);
}

/* Malleability. */

/* Where the calling unit runs, in ids (the thread numbers of glt_init):
 * over weft the stream's rank; over OS threads the CPU slot it is pinned
 * to, -1 if not pinned to exactly one CPU of slot num's id. */
static int where_id(int num)
{
#ifndef GLT_BACKEND_PTHREADS
    (void)num;
    weft_xstream xs;
    int rank = -1;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_rank(xs, &rank));
    return rank;
#else
    cpu_set_t set;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int id = glt_team_id_(num);
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0);
    return CPU_COUNT(&set) == 1 && CPU_ISSET(id % (int)cpus, &set) ? id : -1;
#endif
}

static int g_num[64], g_id[64];
static void report(void *arg)
{
    intptr_t i = (intptr_t)arg;
    g_num[i] = glt_get_thread_num();
    g_id[i] = where_id(g_num[i]);
}

static GLT_mutex g_mm;
static int g_waiting;
static void blocked_waiter(void *arg)
{
    __atomic_store_n(&g_waiting, 1, __ATOMIC_RELEASE);
    glt_mutex_lock(g_mm); /* the main ULT holds it across the disable */
    report(arg);
    glt_mutex_unlock(g_mm);
}

/* A ULT disables its own thread, is moved off it at its next yield. */
static void self_disabler(void *arg)
{
    int id = (int)(intptr_t)arg;
    glt_thread_disable_id(id);
    glt_yield();
    CHECK(glt_get_thread_num() < glt_get_num_threads());
#ifndef GLT_BACKEND_PTHREADS
    CHECK(where_id(0) != id);
#endif
    glt_thread_enable_id(id);
}

/* Units created on thread numbers 0 .. k-1 run on the enabled threads in
 * id order and say so. */
static void check_placement(int k)
{
    int n = glt_get_num_threads();
    GLT_ult u[64];
    for (int i = 0; i < k; i++) /* GLT's pre-2.5 name for every other one */
        if (i % 2) glt_ult_creation_to(report, (void *)(intptr_t)i, &u[i], i);
        else glt_ult_create_to(report, (void *)(intptr_t)i, &u[i], i);
    for (int i = 0; i < k; i++) glt_ult_free(&u[i]);
    for (int i = 0; i < k; i++) {
        CHECK(g_num[i] == i % n);
        CHECK(g_id[i] == glt_team_id_(i % n));
    }
}

static void test_malleability(void)
{
    CHECK(glt_can_malleability() == GLT_TRUE);
    int n = glt_get_num_threads(), last = n - 1;
    CHECK(n >= 2 && n <= 32);
    check_placement(n);

    /* A ULT blocked on thread `last` wakes after it was disabled: it runs
     * on an enabled thread. */
    glt_mutex_create(&g_mm);
    glt_mutex_lock(g_mm);
    GLT_ult w;
    glt_ult_create_to(blocked_waiter, (void *)(intptr_t)40, &w, last);
    while (!__atomic_load_n(&g_waiting, __ATOMIC_ACQUIRE)) glt_yield();
    glt_thread_disable_id(last);
    CHECK(glt_get_num_threads() == n - 1);
    glt_thread_disable_id(last); /* already out: nothing */
    CHECK(glt_get_num_threads() == n - 1);
    glt_mutex_unlock(g_mm);
    glt_ult_join(&w);
    glt_ult_free(&w);
    CHECK(g_num[40] >= 0 && g_num[40] < n - 1);
    CHECK(g_id[40] >= 0 && g_id[40] != last);

    /* New units: numbers wrap over the n - 1 left. */
    check_placement(n);
#ifndef GLT_BACKEND_PTHREADS
    /* A unit that reaches the disabled stream anyway is moved on. */
    weft_xstream xs_last;
    weft_thread t;
    CHECK_OK(weft_xstream_get(last, &xs_last));
    CHECK_OK(weft_thread_create_to(xs_last, report, (void *)(intptr_t)41, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_id[41] != last && g_num[41] < n - 1);
#endif
    glt_thread_enable_id(last);
    glt_thread_enable_id(last); /* already in: nothing */
    CHECK(glt_get_num_threads() == n);
    check_placement(n);

    /* Without ids: the highest enabled goes, the lowest disabled comes
     * back; thread 0 stays. */
    for (int k = 1; k < n + 2; k++) {
        glt_thread_disable();
        CHECK(glt_get_num_threads() == (n - k > 1 ? n - k : 1));
    }
    check_placement(3);
    glt_thread_enable();
    CHECK(glt_get_num_threads() == 2);
    check_placement(2);
    CHECK(g_id[1] == 1);
    for (int k = 0; k < n; k++) glt_thread_enable();
    CHECK(glt_get_num_threads() == n);

    /* Disabling from inside: a ULT on the thread it takes out. */
    GLT_ult sd;
    glt_ult_create_to(self_disabler, (void *)(intptr_t)last, &sd, last);
    glt_ult_join(&sd);
    glt_ult_free(&sd);
    CHECK(glt_get_num_threads() == n);
    if (n > 2) {
        glt_thread_disable_id(1); /* a middle one: renumbering */
        check_placement(n - 1);
        CHECK(g_id[1] == 2);
        glt_thread_enable_id(1);
    }
    glt_mutex_free(&g_mm);
    glt_thread_disable_id(last); /* glt_finalize puts it back */
}

/* glt_start, glt_end, glt_get_team and the constants. */
static void test_lib(void)
{
    glt_start();
    glt_end();
    CHECK(GLT_NULL == NULL);
    CHECK(strncmp(GLT_VERSION, "GLT 2.5", 7) == 0);
    GLT_ult none = GLT_UNIT_NULL;
    CHECK(none == NULL);
    glt_team_t *t = glt_get_team();
    CHECK(t != NULL);
#ifdef GLT_BACKEND_PTHREADS
    CHECK(t->max_workers == g_nth && t->num_workers == g_nth);
#else
    CHECK(t->num_xstreams == g_nth && t->num_pools == g_nth && t->glto == 0 && t->max_elem >= 1);
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK(t->master == xs && t->team[0] == xs);
    for (int i = 0; i < g_nth; i++) {
        weft_pool p;
        int n;
        CHECK_OK(weft_xstream_get(i, &xs));
        CHECK(t->team[i] == xs);
        CHECK_OK(weft_xstream_get_pools(xs, 1, &p, &n));
        CHECK(t->pools[i] == p);
    }
#endif
    /* Nested: only the outermost pair starts and stops. */
    glt_init(0, NULL);
    CHECK(glt_get_num_threads() == g_nth && glt_get_team() == t);
    glt_finalize();
    CHECK(glt_get_num_threads() == g_nth && glt_get_team() == t);
    int printed = GLT_LIB_ERROR;
    CHECK(printed > 0);
}

int main(int argc, char **argv)
{
    setenv("GLT_NUM_THREADS", "2", 0);
    CHECK(glt_get_team() == NULL);
    glt_init(argc, argv);
    g_nth = glt_get_num_threads();
    test_lib();
    CHECK(g_nth == atoi(getenv("GLT_NUM_THREADS")));
    CHECK(glt_get_thread_num() == 0);

    GLT_ult *u = glt_ult_malloc(g_nth);

    /* Mutex, condition, barrier, spinlock, keys with destructors. */
    glt_mutex_create(&g_m);
    glt_cond_create(&g_c);
    glt_barrier_create(4, &g_b);
    glt_key_create(dtor, &g_k);
    GLT_ult w[4];
    for (int i = 0; i < 4; i++) glt_ult_create_to(worker, (void *)(intptr_t)i, &w[i], i);
    glt_yield();
    glt_mutex_lock(g_m);
    g_ready = 1;
    glt_cond_broadcast(g_c);
    glt_cond_signal(g_c);
    glt_mutex_unlock(g_m);
    for (int i = 0; i < 4; i++) glt_ult_join(&w[i]);
    for (int i = 0; i < 4; i++) glt_ult_free(&w[i]);
    CHECK(g_sum == 0 + 1 + 2 + 3 + 4000);
    CHECK(g_dtor == 4);
    CHECK(glt_mutex_trylock(g_m) == 1);
    CHECK(glt_mutex_trylock(g_m) == 0);
    glt_mutex_unlock(g_m);
    glt_key_free(&g_k);
    glt_barrier_free(&g_b);
    glt_cond_free(&g_c);
    glt_mutex_free(&g_m);

    /* Ids, migration, yield_to, exit, cancel, self. */
    GLT_ult mv;
    glt_ult_create(mover, NULL, &mv);
    glt_ult_join(&mv);
    glt_ult_free(&mv);
    int exited = 0;
    GLT_ult ex;
    glt_ult_create(exiter, &exited, &ex);
    glt_yield_to(ex);
    glt_ult_join(&ex);
    glt_ult_free(&ex);
    CHECK(exited);
    GLT_tasklet never_t;
    glt_tasklet_create(never, NULL, &never_t);
    glt_tasklet_cancel(never_t);
    glt_tasklet_join(&never_t);
    glt_tasklet_free(&never_t);
#ifndef GLT_BACKEND_PTHREADS
    CHECK(!g_ran); /* over OS threads a unit starts at once: nothing to cancel */
#endif
    GLT_ult never_u;
    g_ran = 0;
    glt_ult_create(never, NULL, &never_u);
    glt_ult_cancel(never_u);
    glt_ult_join(&never_u);
    glt_ult_free(&never_u);
#ifndef GLT_BACKEND_PTHREADS
    CHECK(!g_ran);
#endif
    GLT_ult me;
    glt_ult_self(&me);
    CHECK(me != NULL);
    GLT_tasklet *tk = glt_tasklet_malloc(64);
    int ntk = g_nth * 2 < 64 ? g_nth * 2 : 64;
    GLT_tasklet tk_made[64];
    for (int i = 0; i < ntk; i++) glt_tasklet_create_to(tasklet_body, (void *)(intptr_t)i, &tk[i], i);
    memcpy(tk_made, tk, sizeof tk_made[0] * (size_t)ntk); /* a joined handle is released */
    for (int i = 0; i < ntk; i++) glt_tasklet_join(&tk[i]);
    for (int i = 0; i < ntk; i++) glt_tasklet_join(&tk[i]); /* again: nothing */
    for (int i = 0; i < ntk; i++) {
        CHECK(g_tk_self[i] == tk_made[i]);
        CHECK(g_tk_num[i] == i % g_nth);
        glt_tasklet_free(&tk[i]);
        CHECK(tk[i] == NULL);
    }
    free(tk);
    /* Free without a join: joins. */
    GLT_ult fr;
    g_ran = 0;
    glt_ult_create_to(never, NULL, &fr, 1);
    glt_ult_free(&fr);
    CHECK(g_ran == 1 && fr == NULL);

    /* Futures (set once, wait for the value). */
    CHECK(glt_can_future_functions() == GLT_TRUE);
    CHECK(glt_can_event_functions() == GLT_TRUE);
#ifdef GLT_BACKEND_PTHREADS
    CHECK(glt_can_manage_scheduler() == GLT_FALSE); /* as GLT's own pthreads backend */
#else
    CHECK(glt_can_manage_scheduler() == GLT_TRUE);
#endif
    GLT_future f;
    glt_future_create(sizeof(int), &f);
    GLT_ult st;
    glt_ult_create_to(setter, &f, &st, 1);
    void *v;
    glt_future_wait(f, &v);
    CHECK(*(int *)v == 42);
    glt_ult_join(&st);
    glt_ult_free(&st);
    glt_future_free(&f);

    /* Time and errors. */
    GLT_timer tm;
    glt_timer_create(&tm);
    double t0 = glt_get_wtime();
    glt_timer_start(tm);
    glt_yield();
    glt_timer_stop(tm);
    double secs;
    glt_timer_get_secs(tm, &secs);
    CHECK(secs >= 0 && secs < 10 && glt_get_wtime() >= t0);
    glt_timer_free(&tm);
#ifdef GLT_BACKEND_PTHREADS
    int err = EINVAL;
    const char *want = strerror(EINVAL);
#else
    int err = WEFT_ERR_HANDLE;
    const char *want = weft_strerror(WEFT_ERR_HANDLE);
#endif
    size_t len;
    glt_get_error_str(err, NULL, &len);
    char *msg = malloc(len + 1);
    glt_get_error_str(err, msg, &len);
    CHECK(strcmp(msg, want) == 0);
    free(msg);
    free(u);

    test_malleability();
    glt_finalize();
    CHECK(glt_get_team() == NULL);
    printf("glt: ok (%d threads)\n", g_nth);
    return 0;
}
