/* Schedulers. Two built-in policies (pool_ops.h, sched_pick): basic, pools
 * polled in order; random work stealing, own pool first, then the others
 * from a random one. xstream.c holds the loop.
 * A scheduler serves one stream at a time. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int sched_check(struct weft_sched_s *s)
{
    if (!s || !HANDLE_ALIGNED(s) || atomic_load_explicit(&s->magic, memory_order_relaxed) != MAGIC_SCHED)
        return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

bool sched_has_pool(const struct weft_sched_s *s, const struct weft_pool_s *p)
{
    for (int i = 0; i < s->npools; i++)
        if (s->pools[i] == p) return true;
    return false;
}

/* Bind the scheduler and its pools to `xs`; all or nothing. */
int sched_attach(struct weft_sched_s *s, struct weft_xstream_s *xs)
{
    struct weft_xstream_s *none = NULL;
    if (!atomic_compare_exchange_strong(&s->xs, &none, xs)) return WEFT_ERR_BUSY;
    for (int i = 0; i < s->npools; i++) {
        int rc = pool_attach(s->pools[i], xs);
        if (rc) {
            while (i-- > 0) pool_detach(s->pools[i]);
            atomic_store(&s->xs, NULL);
            return rc;
        }
    }
    return WEFT_OK;
}

void sched_detach(struct weft_sched_s *s)
{
    for (int i = 0; i < s->npools; i++) pool_detach(s->pools[i]);
    atomic_store(&s->xs, NULL);
}

static int sched_new(int npools, struct weft_pool_s *const *pools, struct weft_sched_s **out)
{
    struct weft_sched_s *s = aligned_alloc(CACHE_LINE, sizeof *s);
    if (!s) return WEFT_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->npools = npools;
    for (int i = 0; i < npools; i++) s->pools[i] = pools[i];
    atomic_store(&s->magic, MAGIC_SCHED);
    *out = s;
    return WEFT_OK;
}

void sched_destroy(struct weft_sched_s *s)
{
    atomic_store(&s->magic, MAGIC_DEAD);
    if (s->runtime_owned) {
        for (int i = 0; i < s->npools; i++) {
            struct weft_pool_s *p = s->pools[i];
            if (p->runtime_owned) {
                atomic_store(&p->magic, MAGIC_DEAD);
                free(p);
            }
        }
    }
    free(s);
}

/* A runtime-owned basic scheduler over one new pool of the configured kind. */
int sched_make_default(const weft_config *cfg, struct weft_sched_s **out)
{
    weft_pool p;
    int rc = weft_pool_create(cfg->pool_kind, cfg->pool_access, &p);
    if (rc) return rc;
    p->runtime_owned = 1;
    rc = sched_new(1, &p, out);
    if (rc) {
        free(p);
        return rc;
    }
    (*out)->runtime_owned = 1;
    return WEFT_OK;
}

int weft_sched_create_basic(int npools, const weft_pool *pools, weft_sched *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (npools < 1 || npools > WEFT_MAX_POOLS || !pools) return WEFT_ERR_INVALID;
    for (int i = 0; i < npools; i++) {
        int rc = pool_check(pools[i]);
        if (rc) return rc;
        for (int j = 0; j < i; j++)
            if (pools[j] == pools[i]) return WEFT_ERR_INVALID;
    }
    return sched_new(npools, pools, out);
}

int weft_sched_create_randws(int npools, const weft_pool *pools, weft_sched *out)
{
    int rc = weft_sched_create_basic(npools, pools, out);
    if (rc == WEFT_OK) (*out)->policy = SCHED_RANDWS;
    return rc;
}

int weft_sched_free(weft_sched *sched)
{
    if (!sched) return WEFT_ERR_INVALID;
    int rc = sched_check(*sched);
    if (rc) return rc;
    if ((*sched)->runtime_owned || atomic_load(&(*sched)->xs)) return WEFT_ERR_BUSY;
    sched_destroy(*sched);
    *sched = NULL;
    return WEFT_OK;
}
