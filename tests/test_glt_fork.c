/* GLT (weft backend) across fork(): the child has no GLT threads until it
 * calls glt_init, then has threads of its own that run units; the parent's
 * unmatched glt_init calls are matched by glt_finalize calls that do
 * nothing; a grandchild of a child that started again gets the same. The
 * parent goes on unaffected. Forks from the main ULT and from a ULT on
 * another thread, while ULTs of the parent spin on every thread. Under
 * qemu-user, which aborts a child of a multithreaded program that starts a
 * thread, the children's teams have one thread (no stream thread). */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "glt.h"
#include "check.h"

static atomic_int stop, ran;

static void spinner(void *p)
{
    (void)p;
    while (!atomic_load(&stop)) glt_yield();
}

static void hello(void *p)
{
    (void)p;
    atomic_fetch_add(&ran, 1);
}

/* Each thread runs a ULT and a tasklet, joined; true if all ran. */
static int run_everywhere(void)
{
    int n = glt_get_num_threads();
    atomic_store(&ran, 0);
    GLT_ult u[n];
    GLT_tasklet t[n];
    for (int i = 0; i < n; i++) {
        glt_ult_create_to(hello, NULL, &u[i], i);
        glt_tasklet_create_to(hello, NULL, &t[i], i);
    }
    for (int i = 0; i < n; i++) {
        glt_ult_join(&u[i]);
        glt_tasklet_join(&t[i]);
        glt_ult_free(&u[i]);
        glt_tasklet_free(&t[i]);
    }
    return atomic_load(&ran) == 2 * n;
}

/* In the child: no runtime and no team; a team of its own after glt_init
 * (run and stopped twice, nested once); the parent's depth matched by
 * no-op finalizes. Exit status 0 when all held (CHECK aborts otherwise). */
static void child(int parent_depth, int grandchild)
{
#ifdef WEFT_TEST_EMULATED
    setenv("GLT_NUM_THREADS", "1", 1);
#endif
    CHECK(!weft_initialized());
    CHECK(glt_get_team() == NULL);
    CHECK(glt_get_num_threads() == 1);
    for (int round = 0; round < 2; round++) {
        glt_init(0, NULL);
        glt_init(0, NULL);
        CHECK(weft_initialized());
        CHECK(glt_get_team() != NULL);
        CHECK(run_everywhere());
        if (round == 1 && !grandchild) { /* a grandchild: again nothing of ours, again a team of its own */
            pid_t g = fork_child(30);
            if (g == 0) {
                child(2 + parent_depth, 1);
                _exit(0);
            }
            CHECK(child_ok(g, "grandchild"));
            CHECK(run_everywhere());
        }
        glt_finalize();
        glt_finalize();
        CHECK(!weft_initialized());
    }
    for (int i = 0; i < parent_depth; i++) glt_finalize(); /* the parent's: nothing to stop */
    CHECK(!weft_initialized());
}

static int g_depth;

static void fork_and_check(void)
{
    pid_t p = fork_child(60);
    if (p == 0) {
        child(g_depth, 0);
        _exit(0);
    }
    CHECK(child_ok(p, "child"));
}

static void forker(void *p)
{
    (void)p;
    fork_and_check();
}

int main(int argc, char **argv)
{
    glt_init(argc, argv);
    glt_init(argc, argv);
    g_depth = 2;
    int n = glt_get_num_threads();
    GLT_ult s[n];
    for (int i = 0; i < n; i++) glt_ult_create_to(spinner, NULL, &s[i], i);
    fork_and_check(); /* from the main ULT */
    GLT_ult f;
    glt_ult_create_to(forker, NULL, &f, n - 1); /* from a ULT on the last thread */
    glt_ult_join(&f);
    glt_ult_free(&f);
    atomic_store(&stop, 1);
    for (int i = 0; i < n; i++) {
        glt_ult_join(&s[i]);
        glt_ult_free(&s[i]);
    }
    CHECK(run_everywhere()); /* the parent goes on */
    glt_finalize();
    glt_finalize();
    CHECK(!weft_initialized());
    printf("glt_fork: ok (%d threads)\n", n);
    return 0;
}
