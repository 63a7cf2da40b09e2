/* weft_init / weft_finalize, the configuration and its environment. */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

static void nop(void *arg) { (void)arg; }

static void *finalize_from_thread(void *arg)
{
    *(int *)arg = weft_finalize();
    return NULL;
}

static void finalize_from_ult(void *arg)
{
    *(int *)arg = weft_finalize();
}

int main(void)
{
    weft_config cfg;
    weft_thread t;
    int n, rc;

    /* Before init: clear errors, no crash. */
    CHECK_RC(weft_finalize(), WEFT_ERR_UNINIT);
    CHECK_RC(weft_xstream_count(&n), WEFT_ERR_UNINIT);
    CHECK_RC(weft_thread_create_to(NULL, nop, NULL, NULL, &t), WEFT_ERR_UNINIT);
    CHECK(!weft_initialized());
    CHECK_RC(weft_config_init(NULL), WEFT_ERR_INVALID);

    /* The environment shapes the defaults. */
    setenv("WEFT_NUM_XSTREAMS", "3", 1);
    setenv("WEFT_STACK_SIZE", "128K", 1);
    setenv("WEFT_BIND", "0", 1);
    CHECK_OK(weft_config_init(&cfg));
    CHECK(cfg.num_xstreams == 3);
    CHECK(cfg.stack_size == 128 * 1024);
    CHECK(cfg.bind == 0);
    setenv("WEFT_STACK_SIZE", "12", 1); /* below the minimum */
    CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    CHECK_RC(weft_init(NULL), WEFT_ERR_INVALID);
    /* Values whose product with the suffix overflows: refused, not wrapped
     * into range (17592186044417M wraps to 1 MiB in 64 bits). */
    const char *huge[] = {"17592186044417M", "9007199254740993K", "9223372036854775807K", "-9223372036854775807M"};
    for (int i = 0; i < 4; i++) {
        setenv("WEFT_STACK_SIZE", huge[i], 1);
        CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    }
    setenv("WEFT_SPIN_US", "99999999999999999999", 1); /* past long */
    CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    unsetenv("WEFT_SPIN_US");
    setenv("WEFT_STACK_SIZE", "2M", 1);
    setenv("WEFT_NUM_XSTREAMS", "lots", 1);
    CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    setenv("WEFT_NUM_XSTREAMS", "3", 1);
    setenv("WEFT_HUGE_PAGES", "1", 1);
    setenv("WEFT_EAGER_STACKS", "1", 1);
    CHECK_OK(weft_config_init(&cfg));
    CHECK(cfg.huge_pages == 1 && cfg.eager_stacks == 1);
    setenv("WEFT_HUGE_PAGES", "2", 1);
    CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    unsetenv("WEFT_HUGE_PAGES");
    setenv("WEFT_EAGER_STACKS", "yes", 1);
    CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    unsetenv("WEFT_EAGER_STACKS");
    CHECK_OK(weft_config_init(&cfg));
    CHECK(cfg.huge_pages == 0 && cfg.eager_stacks == 0);
    CHECK(cfg.stack_guard == 256 * 1024 && cfg.sched_stack_size == 1024 * 1024);
    setenv("WEFT_STACK_GUARD", "0", 1);
    setenv("WEFT_SCHED_STACK_SIZE", "64K", 1);
    CHECK_OK(weft_config_init(&cfg));
    CHECK(cfg.stack_guard == 0 && cfg.sched_stack_size == 64 * 1024);
    setenv("WEFT_STACK_GUARD", "1M", 1);
    CHECK_OK(weft_config_init(&cfg));
    CHECK(cfg.stack_guard == 1024 * 1024);
    const char *bad_guard[] = {"-1", "4G", "lots", "17592186044417M"};
    for (int i = 0; i < 4; i++) {
        setenv("WEFT_STACK_GUARD", bad_guard[i], 1);
        CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    }
    unsetenv("WEFT_STACK_GUARD");
    const char *bad_sched[] = {"63K", "0", "2G", "big"};
    for (int i = 0; i < 4; i++) {
        setenv("WEFT_SCHED_STACK_SIZE", bad_sched[i], 1);
        CHECK_RC(weft_config_init(&cfg), WEFT_ERR_INVALID);
    }
    unsetenv("WEFT_SCHED_STACK_SIZE");

    /* Bad explicit configurations. */
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 0;
    CHECK_RC(weft_init(&cfg), WEFT_ERR_INVALID);
    CHECK_OK(weft_config_init(&cfg));
    cfg.stack_size = 1;
    CHECK_RC(weft_init(&cfg), WEFT_ERR_INVALID);
    CHECK_OK(weft_config_init(&cfg));
    cfg.huge_pages = -1;
    CHECK_RC(weft_init(&cfg), WEFT_ERR_INVALID);
    CHECK_OK(weft_config_init(&cfg));
    cfg.eager_stacks = 7;
    CHECK_RC(weft_init(&cfg), WEFT_ERR_INVALID);
    CHECK_OK(weft_config_init(&cfg));
    cfg.stack_guard = ((size_t)1 << 30) + 1;
    CHECK_RC(weft_init(&cfg), WEFT_ERR_INVALID);
    CHECK_OK(weft_config_init(&cfg));
    cfg.sched_stack_size = 4096;
    CHECK_RC(weft_init(&cfg), WEFT_ERR_INVALID);
    CHECK(!weft_initialized());

    /* NULL config: environment defaults. */
    CHECK_OK(weft_init(NULL));
    CHECK(weft_initialized());
    CHECK_RC(weft_init(NULL), WEFT_ERR_INIT);
    CHECK_OK(weft_xstream_count(&n));
    CHECK(n == 3);

    /* Finalize belongs to the main ULT. */
    pthread_t th;
    rc = -1;
    pthread_create(&th, NULL, finalize_from_thread, &rc);
    pthread_join(th, NULL);
    CHECK_RC(rc, WEFT_ERR_PRIMARY);
    weft_xstream xs;
    CHECK_OK(weft_xstream_get(1, &xs));
    rc = -1;
    CHECK_OK(weft_thread_create_to(xs, finalize_from_ult, &rc, NULL, &t));
    CHECK_OK(weft_thread_free(&t));
    CHECK_RC(rc, WEFT_ERR_PRIMARY);
    CHECK_OK(weft_finalize());
    CHECK(!weft_initialized());

    /* Run-time layout: start with one stream, and init again after finalize. */
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.pool_access = WEFT_POOL_ACCESS_MPMC;
    cfg.pool_kind = WEFT_POOL_LIFO;
    CHECK_OK(weft_init(&cfg));
    CHECK_OK(weft_xstream_count(&n));
    CHECK(n == 1);
    CHECK_OK(weft_finalize());
    CHECK_RC(weft_finalize(), WEFT_ERR_UNINIT);
    printf("init: ok\n");
    return 0;
}
