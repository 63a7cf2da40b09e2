/* Work-first creation, revive, join-many. */
#include <string.h>

#include "check.h"

static char g_log[64];
static int g_len;
static void mark(void *arg) { g_log[g_len++] = *(const char *)arg; }

static void parent(void *arg)
{
    (void)arg;
    g_log[g_len++] = 'P';
    weft_thread c;
    CHECK_OK(weft_thread_create_first(mark, "c", NULL, &c)); /* runs before we go on */
    g_log[g_len++] = 'p';
    CHECK_OK(weft_thread_free(&c));
}

static int g_first_rc;
static void tasklet_tries(void *arg)
{
    (void)arg;
    g_first_rc = weft_thread_create_first(mark, "x", NULL, NULL);
}

/* Work-first recursion: fib with the first half run at once. */
struct call { int n; long r; };
static void fib(void *arg)
{
    struct call *c = arg;
    if (c->n < 2) {
        c->r = c->n;
        return;
    }
    struct call a = {c->n - 1, 0}, b = {c->n - 2, 0};
    weft_thread t[2];
    CHECK_OK(weft_thread_create_first(fib, &a, NULL, &t[0]));
    CHECK_OK(weft_thread_create(self_pool(), fib, &b, NULL, &t[1]));
    CHECK_OK(weft_thread_free_many(2, t));
    c->r = a.r + b.r;
}

static void count(void *arg) { __atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED); }

int main(void)
{
    CHECK_OK(weft_init(NULL));
    weft_pool pool = self_pool();

    /* Order: P, then the child at once, then the parent resumes. */
    weft_thread t;
    CHECK_OK(weft_thread_create(pool, parent, NULL, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(g_len == 3 && memcmp(g_log, "Pcp", 3) == 0);
    /* From the main ULT too, and detached. */
    g_len = 0;
    CHECK_OK(weft_thread_create_first(mark, "m", NULL, NULL));
    CHECK(g_len == 1 && g_log[0] == 'm');
    CHECK_OK(weft_tasklet_create(pool, tasklet_tries, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(g_first_rc, WEFT_ERR_TASKLET_BLOCKS);
    CHECK_RC(weft_thread_create_first(NULL, NULL, NULL, &t), WEFT_ERR_INVALID);
    struct call root = {15, 0};
    CHECK_OK(weft_thread_create_first(fib, &root, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK(root.r == 610);

    /* Revive: one descriptor, run three times, ULT and tasklet. */
    int c = 0;
    weft_thread u, k;
    CHECK_OK(weft_thread_create(pool, count, &c, NULL, &u));
    CHECK_OK(weft_tasklet_create(pool, count, &c, &k));
    CHECK_RC(weft_thread_revive(pool, count, &c, u), WEFT_ERR_STATE); /* not ended yet */
    uint64_t id1, id2;
    CHECK_OK(weft_thread_id(u, &id1));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(weft_thread_join(u));
        CHECK_OK(weft_thread_join(k));
        if (i < 2) {
            CHECK_OK(weft_thread_revive(pool, count, &c, u));
            CHECK_OK(weft_thread_revive(pool, count, &c, k));
        }
    }
    CHECK(c == 6);
    CHECK_OK(weft_thread_id(u, &id2));
    CHECK(id1 == id2);
    CHECK_RC(weft_thread_revive(pool, NULL, &c, u), WEFT_ERR_INVALID);
    CHECK_OK(weft_thread_free(&u));
    CHECK_OK(weft_thread_free(&k));
    CHECK_RC(weft_thread_revive(pool, count, &c, u), WEFT_ERR_HANDLE);
    weft_thread me;
    CHECK_OK(weft_self(&me));
    CHECK_RC(weft_thread_revive(pool, count, &c, me), WEFT_ERR_STATE);

    /* Join-many: bad input first, nothing joined; then all of them. */
    weft_thread many[100];
    c = 0;
    for (int i = 0; i < 100; i++) CHECK_OK(weft_thread_create(pool, count, &c, NULL, &many[i]));
    weft_thread saved = many[50];
    many[50] = NULL;
    CHECK_RC(weft_thread_join_many(100, many), WEFT_ERR_HANDLE);
    many[50] = saved;
    CHECK_RC(weft_thread_join_many(-1, many), WEFT_ERR_INVALID);
    CHECK_RC(weft_thread_join_many(1, NULL), WEFT_ERR_INVALID);
    CHECK_OK(weft_thread_join_many(0, NULL));
    CHECK_OK(weft_thread_join_many(100, many));
    CHECK(c == 100);
    CHECK_RC(weft_thread_join_many(100, many), WEFT_ERR_JOINED);
    CHECK_OK(weft_thread_free_many(0, many));
    for (int i = 0; i < 100; i++) CHECK_OK(weft_thread_free(&many[i]));

    CHECK_OK(weft_finalize());
    printf("workfirst: ok\n");
    return 0;
}
