/* GLT's scheduler calls over weft: configurations (int, double, pointer
 * variables), a user-defined GLT scheduler installed as a thread's main
 * scheduler (its counter proves it ran that thread's units), the
 * predefined ones, stacked schedulers that exit, finish or stop by
 * themselves, data, sizes, and misuse (in children, which must abort with
 * a message). With GLT_NUM_POOLS set the threads' pools are shared (MPMC):
 * then a scheduler over several threads' pools is installed too, and the
 * remembered pool of glt_ult_create is seen to follow a new first pool. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "glt.h"
#include "check.h"
#include "glt_expect_abort.h"

static int g_shared; /* GLT_NUM_POOLS set */

static void install(void *arg);

/* ---------- misuse: the child must print "glt: ..." and abort ---------- */


static void misuse_read(void)
{
    GLT_sched_config c;
    GLT_sched_config_var v2 = {2, GLT_SCHED_CONFIG_INT};
    int a = 0, b = 0;
    glt_scheduler_config_create(&c, v2, 5, GLT_sched_config_var_end);
    glt_scheduler_config_read(c, 2, &a, &b); /* variable 2 has no pointer */
}

static void misuse_foreign(void)
{
    weft_xstream xs;
    weft_pool p;
    weft_sched s;
    int n;
    void *d;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_get_pools(xs, 1, &p, &n));
    CHECK_OK(weft_sched_create_basic(1, &p, &s));
    glt_scheduler_get_data(s, &d);
}

static void misuse_exit_main(void)
{
    int zero = 0;
    GLT_sched s;
    weft_xstream xs;
    weft_sched old;
    glt_schededuler_create_basic(GLT_SCHED_BASIC, 1, &zero, NULL, &s);
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_get_main_sched(xs, &old));
    CHECK_OK(weft_xstream_set_main_sched(xs, s));
    glt_scheduler_exit(s);
}

static void misuse_free_used(void)
{
    int zero = 0;
    GLT_sched s;
    weft_xstream xs;
    glt_schededuler_create_basic(GLT_SCHED_DEFAULT, 1, &zero, NULL, &s);
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_set_main_sched(xs, s));
    glt_scheduler_free(&s);
}

/* With shared pools a thread running a GLT scheduler of its own cannot be
 * taken out of the team (nothing would run the change on it). */
static void misuse_disable_own(void)
{
    int one = 1;
    GLT_sched s;
    glt_finalize();
    setenv("GLT_NUM_POOLS", "2", 1);
    glt_init(0, NULL);
    glt_schededuler_create_basic(GLT_SCHED_BASIC, 1, &one, NULL, &s);
    GLT_ult u;
    glt_ult_create_to(install, s, &u, 1);
    glt_ult_join(&u);
    glt_ult_free(&u);
    glt_thread_disable_id(1);
}

static void misuse_no_run(void)
{
    int zero = 0;
    GLT_sched s;
    GLT_sched_def def = {GLT_SCHED_TYPE_ULT, NULL, NULL, NULL, NULL};
    glt_scheduler_create(&def, 1, &zero, NULL, &s);
}

/* NULL where a call reads or writes through a pointer: a message, not a
 * segfault. */
static void misuse_null_join(void) { glt_ult_join(NULL); }
static void misuse_null_barrier(void) { glt_barrier_wait(NULL); }
static void misuse_null_timer(void) { glt_timer_start(NULL); }
static void misuse_null_secs(void)
{
    GLT_timer t;
    glt_timer_create(&t);
    glt_timer_get_secs(t, NULL);
}

/* ---------- configurations ---------- */

static int g_token;

static void test_config(void)
{
    GLT_sched_config_var vi = {0, GLT_SCHED_CONFIG_INT}, vd = {1, GLT_SCHED_CONFIG_DOUBLE},
                         vp = {2, GLT_SCHED_CONFIG_PTR};
    GLT_sched_config c;
    int i = 0;
    double d = 0;
    void *p = NULL;
    glt_scheduler_config_create(&c, vi, 5, GLT_sched_config_var_end);
    glt_scheduler_config_read(c, 3, &i, &d, &p);
    CHECK(i == 5 && d == 0.0 && p == NULL); /* the others are left alone */
    glt_scheduler_config_free(&c);
    CHECK(c == NULL);
    glt_scheduler_config_create(&c, vp, &g_token, vd, 3.25, vi, -7, GLT_sched_config_var_end);
    glt_scheduler_config_read(c, 3, &i, &d, &p);
    CHECK(i == -7 && d == 3.25 && p == &g_token);
    i = 0;
    glt_scheduler_config_read(c, 3, &i, &d, &p); /* read again: the same */
    CHECK(i == -7);
    glt_scheduler_config_free(&c);
    glt_scheduler_config_create(&c, GLT_sched_config_var_end);
    CHECK(c == NULL);
    i = 1;
    glt_scheduler_config_read(c, 1, &i); /* nothing set: nothing read */
    CHECK(i == 1);
    glt_scheduler_config_free(&c);
    /* Many variables (the list grows). */
    GLT_sched_config_var v[6];
    for (int k = 0; k < 6; k++) v[k] = (GLT_sched_config_var){k, GLT_SCHED_CONFIG_INT};
    glt_scheduler_config_create(&c, v[5], 50, v[4], 40, v[3], 30, v[2], 20, v[1], 10, v[0], 0,
                                GLT_sched_config_var_end);
    int r[6] = {-1, -1, -1, -1, -1, -1};
    glt_scheduler_config_read(c, 6, &r[0], &r[1], &r[2], &r[3], &r[4], &r[5]);
    for (int k = 0; k < 6; k++) CHECK(r[k] == 10 * k);
    glt_scheduler_config_free(&c);
}

/* ---------- a user-defined scheduler with a counter ---------- */

struct mysched {
    int event_freq;
    double weight;
    void *token;
    long ran;     /* units this scheduler ran */
    int started;  /* its run function began */
    int returned; /* and returned */
};
static int g_freed;
static long g_freed_ran;

static int my_init(GLT_sched s, GLT_sched_config config)
{
    struct mysched *d = calloc(1, sizeof *d);
    CHECK(d);
    glt_scheduler_config_read(config, 3, &d->event_freq, &d->weight, &d->token);
    if (d->event_freq <= 0) d->event_freq = 8;
    glt_scheduler_set_data(s, d);
    return 0;
}

static void my_run(GLT_sched s)
{
    struct mysched *d;
    weft_pool pools[16];
    int np = 0;
    glt_scheduler_get_data(s, (void **)&d);
    __atomic_store_n(&d->started, 1, __ATOMIC_RELEASE);
    CHECK_OK(weft_sched_get_pools(s, 16, pools, &np));
    for (unsigned work = 0;;) {
        weft_thread u = GLT_UNIT_NULL;
        int i;
        for (i = 0; i < np && u == GLT_UNIT_NULL; i++) CHECK_OK(weft_pool_pop(pools[i], &u));
        if (u != GLT_UNIT_NULL) {
            CHECK_OK(weft_sched_run_unit(s, u, pools[i - 1]));
            __atomic_add_fetch(&d->ran, 1, __ATOMIC_RELAXED);
            if (++work % (unsigned)d->event_freq) continue;
        }
        GLT_bool stop;
        glt_scheduler_has_to_stop(s, &stop);
        if (stop) break;
        CHECK_OK(weft_sched_check_events(s)); /* stacked: the one below gets a turn */
        if (u == GLT_UNIT_NULL) CHECK_OK(weft_sched_idle(s));
    }
    __atomic_store_n(&d->returned, 1, __ATOMIC_RELEASE);
}

static int my_free(GLT_sched s)
{
    struct mysched *d;
    glt_scheduler_get_data(s, (void **)&d);
    g_freed++;
    g_freed_ran = d->ran;
    free(d);
    return 0;
}

static struct mysched *data_of(GLT_sched s)
{
    void *d;
    glt_scheduler_get_data(s, &d);
    return d;
}

/* ---------- installing ---------- */

static weft_sched g_prev; /* the main scheduler put back */

static void install(void *arg)
{
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_get_main_sched(xs, &g_prev));
    CHECK_OK(weft_xstream_set_main_sched(xs, (weft_sched)arg));
}

static void uninstall(void *arg)
{
    (void)arg;
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_set_main_sched(xs, g_prev));
}

/* fn(arg) in a ULT on thread `num`, joined. */
static void on_thread(int num, void (*fn)(void *), void *arg)
{
    GLT_ult u;
    glt_ult_create_to(fn, arg, &u, num);
    glt_ult_join(&u);
    glt_ult_free(&u);
}

static int rank_here(void)
{
    weft_xstream xs;
    int r;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_rank(xs, &r));
    return r;
}

#define M 100
static int g_where[2 * M], g_moved[2 * M];

static void yielder(void *arg)
{
    intptr_t i = (intptr_t)arg;
    g_where[i] = rank_here();
    glt_yield();
    glt_yield();
    g_moved[i] = rank_here() != g_where[i];
}

static void tasklet_at(void *arg) { g_where[(intptr_t)arg] = rank_here(); }

/* M ULTs and M tasklets placed on thread `num`; they must all have run
 * (and, if `stay`, run there only). */
static void run_units(int num, int stay)
{
    GLT_ult u[2 * M];
    for (int i = 0; i < M; i++) glt_ult_create_to(yielder, (void *)(intptr_t)i, &u[i], num);
    for (int i = M; i < 2 * M; i++) glt_tasklet_create_to(tasklet_at, (void *)(intptr_t)i, &u[i], num);
    for (int i = 0; i < 2 * M; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < 2 * M; i++) glt_ult_free(&u[i]);
    for (int i = 0; i < 2 * M && stay; i++) CHECK(g_where[i] == glt_team_id_(num) && !g_moved[i]);
}

static void run_units_on(int num) { run_units(num, 1); }

static GLT_sched g_probe_sched;
static size_t g_probe_size[4];
static int g_waiter_started;

static void nothing(void *arg) { (void)arg; }

static void lock_unlock(void *arg)
{
    GLT_mutex m = arg;
    __atomic_store_n(&g_waiter_started, 1, __ATOMIC_RELEASE);
    glt_mutex_lock(m);
    glt_mutex_unlock(m);
}

/* On the thread: units it creates wait behind it; the scheduler counts
 * them; then none. */
static void size_probe(void *arg)
{
    (void)arg;
    GLT_tasklet t[10];
    for (int i = 0; i < 10; i++) glt_tasklet_create(nothing, NULL, &t[i]);
    glt_scheduler_get_size(g_probe_sched, &g_probe_size[0]);
    for (int i = 0; i < 10; i++) glt_tasklet_join(&t[i]);
    for (int i = 0; i < 10; i++) glt_tasklet_free(&t[i]);
    glt_scheduler_get_size(g_probe_sched, &g_probe_size[1]);
    /* A ULT blocked on a mutex counts in the total size only. */
    GLT_mutex m;
    glt_mutex_create(&m);
    glt_mutex_lock(m);
    GLT_ult w;
    glt_ult_create(lock_unlock, m, &w);
    while (!__atomic_load_n(&g_waiter_started, __ATOMIC_ACQUIRE)) glt_yield();
    glt_yield(); /* it is blocked in the lock by now, or about to be */
    size_t ready, total;
    uint64_t give_up = weft_time_ns() + 20ull * 1000 * 1000 * 1000;
    for (;;) {
        glt_scheduler_get_size(g_probe_sched, &ready);
        glt_scheduler_get_total_size(g_probe_sched, &total);
        if (total == ready + 1 || weft_time_ns() > give_up) break;
        glt_yield();
    }
    g_probe_size[2] = total - ready;
    glt_mutex_unlock(m);
    glt_ult_join(&w);
    glt_ult_free(&w);
    glt_mutex_free(&m);
    glt_scheduler_get_total_size(g_probe_sched, &g_probe_size[3]);
}

static void test_user_main(void)
{
    GLT_sched_config_var vi = {0, GLT_SCHED_CONFIG_INT}, vd = {1, GLT_SCHED_CONFIG_DOUBLE},
                         vp = {2, GLT_SCHED_CONFIG_PTR};
    GLT_sched_config c;
    glt_scheduler_config_create(&c, vi, 4, vd, 2.5, vp, &g_token, GLT_sched_config_var_end);
    GLT_sched_def def = {GLT_SCHED_TYPE_ULT, my_init, my_run, my_free, NULL};
    GLT_sched s;
    int one = 1;
    glt_scheduler_create(&def, 1, &one, c, &s);
    glt_scheduler_config_free(&c);
    struct mysched *d = data_of(s);
    CHECK(d->event_freq == 4 && d->weight == 2.5 && d->token == &g_token); /* init read the config */
    CHECK(!d->started);

    on_thread(1, install, s);
    CHECK(__atomic_load_n(&d->started, __ATOMIC_ACQUIRE) && !__atomic_load_n(&d->returned, __ATOMIC_ACQUIRE));
    run_units_on(1);
    CHECK(__atomic_load_n(&d->ran, __ATOMIC_ACQUIRE) >= 4 * M); /* each ULT ran 3 times, each tasklet once */
    g_probe_sched = s;
    on_thread(1, size_probe, NULL);
    CHECK(g_probe_size[0] >= 10 && g_probe_size[1] == 0);
    CHECK(g_probe_size[2] == 1 && g_probe_size[3] == 0); /* the blocked ULT, then none */
    /* Replaced: has_to_stop says so, the run function returns (at its
     * next check: it may run a few more units first). */
    on_thread(1, uninstall, NULL);
    uint64_t give_up = weft_time_ns() + 20ull * 1000 * 1000 * 1000; /* a hang, not a slow machine */
    while (!__atomic_load_n(&d->returned, __ATOMIC_ACQUIRE)) {
        CHECK(weft_time_ns() < give_up);
        glt_yield();
    }
    long ran = __atomic_load_n(&d->ran, __ATOMIC_ACQUIRE);
    run_units_on(1); /* the thread's own scheduler again */
    CHECK(__atomic_load_n(&d->ran, __ATOMIC_ACQUIRE) == ran);
    glt_scheduler_free(&s);
    CHECK(s == NULL && g_freed == 1 && g_freed_ran == ran);
}

static void test_predef(void)
{
    int one = 1;
    GLT_sched b;
    glt_schededuler_create_basic(GLT_SCHED_BASIC, 1, &one, NULL, &b);
    void *v = (void *)1;
    glt_scheduler_get_data(b, &v);
    CHECK(v == NULL);
    glt_scheduler_set_data(b, &g_token);
    glt_scheduler_get_data(b, &v);
    CHECK(v == &g_token);
    on_thread(1, install, b);
    run_units_on(1);
    on_thread(1, uninstall, NULL);
    glt_scheduler_free(&b);
    CHECK(b == NULL);

    GLT_sched p;
    int ids[2] = {1, 2};
    glt_schededuler_create_basic(GLT_SCHED_PRIO, g_shared ? 2 : 1, ids, NULL, &p);
    on_thread(1, install, p);
    run_units_on(1);
    on_thread(1, uninstall, NULL);
    glt_scheduler_free(&p);
}

/* ---------- over several threads' pools (shared pools) ---------- */

static weft_pool g_pool_of[3];
static size_t g_sz_first, g_sz_own;
static int g_install_rc;

static void create_probe(void *arg)
{
    (void)arg;
    GLT_ult x;
    glt_ult_create(nothing, NULL, &x); /* into the thread's first pool: now pool 2 */
    CHECK_OK(weft_pool_size(g_pool_of[2], &g_sz_first));
    CHECK_OK(weft_pool_size(g_pool_of[1], &g_sz_own));
    glt_ult_join(&x);
    glt_ult_free(&x);
}

static void try_install(void *arg)
{
    weft_xstream xs;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_get_main_sched(xs, &g_prev));
    g_install_rc = weft_xstream_set_main_sched(xs, (weft_sched)arg);
}

static void test_multi(void)
{
    for (int i = 0; i < 3; i++) g_pool_of[i] = glt_get_team()->pools[i];
    GLT_sched_def def = {GLT_SCHED_TYPE_ULT, my_init, my_run, my_free, NULL};
    GLT_sched s;
    int ids[3] = {2, 1, 2}; /* thread 2's pool first; a repeat is dropped */
    glt_scheduler_create(&def, 3, ids, NULL, &s);
    weft_pool pools[4];
    int np = 0;
    CHECK_OK(weft_sched_get_pools(s, 4, pools, &np));
    CHECK(np == 2 && pools[0] == g_pool_of[2] && pools[1] == g_pool_of[1]);
    if (!g_shared) {
        /* Thread 2's private pool cannot be served by thread 1. */
        on_thread(1, try_install, s);
        CHECK(g_install_rc == WEFT_ERR_POOL_ACCESS);
        glt_scheduler_free(&s);
        return;
    }
    glt_thread_disable_id(2); /* its forwarder leaves pool 2 to thread 1 now */
    on_thread(1, install, s);
    on_thread(1, create_probe, NULL);
    CHECK(g_sz_first == 1 && g_sz_own == 0); /* the remembered pool followed */
    on_thread(1, uninstall, NULL);
    glt_thread_enable_id(2);
    glt_scheduler_free(&s);
}

/* ---------- stacked: exit, finish, stopping by itself ---------- */

static void test_stacked(void)
{
    int two = 2;
    weft_pool below = glt_get_team()->pools[0];
    GLT_sched s;
    GLT_sched_def def = {GLT_SCHED_TYPE_ULT, my_init, my_run, my_free, NULL};
    glt_scheduler_create(&def, 1, &two, NULL, &s);
    if (!g_shared) {
        CHECK(weft_pool_add_sched(below, s) == WEFT_ERR_POOL_ACCESS); /* thread 2's pool is its own */
        glt_scheduler_free(&s);
        return;
    }
    /* Exit: it returns at once. */
    int freed = g_freed;
    struct mysched *d = data_of(s);
    CHECK_OK(weft_pool_add_sched(below, s));
    while (!__atomic_load_n(&d->started, __ATOMIC_ACQUIRE)) glt_yield();
    for (int i = 0; i < 100; i++) glt_yield();
    CHECK(!__atomic_load_n(&d->returned, __ATOMIC_ACQUIRE)); /* a ULT-type one stays while idle */
    glt_scheduler_exit(s);
    while (!__atomic_load_n(&d->returned, __ATOMIC_ACQUIRE)) glt_yield();
    glt_scheduler_free(&s);
    CHECK(g_freed == freed + 1);

    /* Finish: it returns once its pools are empty. */
    glt_scheduler_create(&def, 1, &two, NULL, &s);
    d = data_of(s);
    CHECK_OK(weft_pool_add_sched(below, s));
    while (!__atomic_load_n(&d->started, __ATOMIC_ACQUIRE)) glt_yield();
    run_units(2, 0); /* thread 2's scheduler or the stacked one run them */
    for (int i = 0; i < 100; i++) glt_yield();
    CHECK(!__atomic_load_n(&d->returned, __ATOMIC_ACQUIRE));
    glt_scheduler_finish(s);
    while (!__atomic_load_n(&d->returned, __ATOMIC_ACQUIRE)) glt_yield();
    glt_scheduler_free(&s);

    /* Task type: stops by itself when it runs dry. */
    def.type = GLT_SCHED_TYPE_TASK;
    glt_scheduler_create(&def, 1, &two, NULL, &s);
    d = data_of(s);
    CHECK_OK(weft_pool_add_sched(below, s));
    while (!__atomic_load_n(&d->returned, __ATOMIC_ACQUIRE)) glt_yield();
    CHECK(__atomic_load_n(&d->started, __ATOMIC_ACQUIRE));
    glt_scheduler_free(&s);
    CHECK(g_freed == freed + 3);
}

int main(int argc, char **argv)
{
    /* Misuse first, before this process starts threads (forks). */
    glt_expect_abort("config read", misuse_read, "variable 2, but 2 pointers", "2");
    glt_expect_abort("foreign scheduler", misuse_foreign, "not a scheduler made by the GLT calls", "2");
    glt_expect_abort("exit of a main scheduler", misuse_exit_main, "main scheduler ends only with its stream", "2");
    glt_expect_abort("free while in use", misuse_free_used, "weft_sched_free", "2");
    glt_expect_abort("no run function", misuse_no_run, "no run function", "2");
    glt_expect_abort("disable a thread on its own scheduler", misuse_disable_own, "runs a GLT scheduler", "2");
    glt_expect_abort("join through NULL", misuse_null_join, "glt_ult_join: a NULL pointer", "2");
    glt_expect_abort("barrier through NULL", misuse_null_barrier, "glt_barrier_wait: a NULL pointer", "2");
    glt_expect_abort("timer NULL", misuse_null_timer, "glt_timer_start: a NULL pointer", "2");
    glt_expect_abort("seconds into NULL", misuse_null_secs, "glt_timer_get_secs: a NULL pointer", "2");

    const char *np = getenv("GLT_NUM_POOLS");
    g_shared = np && atoi(np) > 0; /* as glt.h reads it */
    if (g_shared && atoi(np) < 3) {
        /* Thread i takes pool i mod GLT_NUM_POOLS: with fewer pools than
         * threads, a ULT sent to thread 1 may run on another thread of its
         * pool, and these tests install schedulers on a given thread. */
        printf("glt sched: skipped: GLT_NUM_POOLS=%s gives fewer pools than its 3 threads\n", np);
        return 77;
    }
    setenv("GLT_NUM_THREADS", "3", 1);
    glt_init(argc, argv);
    CHECK(glt_can_manage_scheduler() == GLT_TRUE);
    CHECK(glt_get_num_threads() == 3);
    test_config();
    test_user_main();
    test_predef();
    test_multi();
    test_stacked();
    glt_finalize();
    printf("glt sched: ok (%s pools)\n", g_shared ? "shared" : "private");
    return 0;
}
