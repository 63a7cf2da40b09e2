/* Keys: storage local to a work unit. A ULT's or tasklet's values live in
 * a table hung off its descriptor, so they follow it when it migrates; the
 * main ULT, scheduler contexts and plain threads use a table of their OS
 * thread. Each call finds the table afresh from the running unit: nothing
 * caches a thread-local address across a switch.
 *
 * Key slots are reused after weft_key_free(); a slot remembers the
 * generation of the key that wrote it, so a new key never reads an old
 * key's value.
 *
 * A table stays in place while its destructors run, so they see the other
 * values and a weft_key_set of theirs lands in it (perhaps moving it, to
 * grow it); it is detached only once they are done, then freed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sync_internal.h"
#include "../core/sys.h"

#define MAGIC_KEY 0x574b4559u /* "WKEY" */
#define MAGIC_KEY_DEAD 0x776b6579u
#define MAX_KEYS 4096
#define DTOR_ROUNDS 4 /* PTHREAD_DESTRUCTOR_ITERATIONS, as glibc */

struct weft_key_s {
    _Atomic uint32_t magic;
    uint32_t gen;
    unsigned index;
    void (*dtor)(void *);
} __attribute__((aligned(CACHE_LINE)));

struct key_slot {
    void *value;
    uint32_t gen; /* 0: never written */
};

struct key_table {
    unsigned cap;
    struct key_slot slot[];
};

static pthread_mutex_t keys_lock = PTHREAD_MUTEX_INITIALIZER;
static struct weft_key_s *keys_by_index[MAX_KEYS]; /* live keys, for destructors */
static unsigned keys_used;                          /* indexes handed out so far */
static unsigned free_index[MAX_KEYS], n_free_index;
static uint32_t next_gen = 1;

/* A plain thread's table is released at its exit by the destructor of
 * the pthread key `thread_keys`. The key's value only says that the thread
 * has a table (its address may change as it grows): `key_thread_table` is the
 * one pointer to it. */
static pthread_key_t thread_keys;
static bool thread_keys_ok;
static pthread_once_t thread_keys_once = PTHREAD_ONCE_INIT;
static char thread_has_table;
__thread struct key_table *key_thread_table WEFT_HIDDEN __attribute__((tls_model("initial-exec")));
WEFT_TLS_ACCESSOR(key_thread_table);

static void table_release(struct weft_unit_s *u);
static void thread_table_release(void *unused)
{
    (void)unused;
    table_release(NULL);
}
static void thread_keys_init(void)
{
    thread_keys_ok = pthread_key_create(&thread_keys, thread_table_release) == 0;
}

/* The running ULT or tasklet, or NULL: the values are the OS thread's. */
static struct weft_unit_s *caller_unit(void)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (xs) {
        struct weft_unit_s *u = xs->cur;
        if (u->kind == KIND_ULT || u->kind == KIND_TASKLET) return u;
    }
    return NULL;
}

static struct key_table *table_of(struct weft_unit_s *u)
{
    if (!u) return WEFT_TLS(key_thread_table);
    return u->has_keys ? u->keys : NULL;
}

int weft_key_create(void (*destructor)(void *), weft_key *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    struct weft_key_s *k = obj_alloc(sizeof *k);
    if (!k) return WEFT_ERR_NOMEM;
    pthread_mutex_lock(&keys_lock);
    unsigned index;
    if (n_free_index) index = free_index[--n_free_index];
    else if (keys_used < MAX_KEYS) index = keys_used++;
    else index = MAX_KEYS;
    if (index < MAX_KEYS) {
        k->gen = next_gen++;
        if (!next_gen) next_gen = 1;
        k->index = index;
        k->dtor = destructor;
        keys_by_index[index] = k;
        atomic_store_explicit(&k->magic, MAGIC_KEY, memory_order_release);
    }
    pthread_mutex_unlock(&keys_lock);
    if (index == MAX_KEYS) {
        obj_retire(k, sizeof *k);
        return WEFT_ERR_NOMEM;
    }
    *out = k;
    return WEFT_OK;
}

int weft_key_free(weft_key *kp)
{
    if (!kp) return WEFT_ERR_INVALID;
    struct weft_key_s *k = *kp;
    pthread_mutex_lock(&keys_lock);
    int rc = sync_check(k, MAGIC_KEY);
    if (!rc) {
        atomic_store(&k->magic, MAGIC_KEY_DEAD);
        keys_by_index[k->index] = NULL;
        free_index[n_free_index++] = k->index;
    }
    pthread_mutex_unlock(&keys_lock);
    if (rc) return rc;
    obj_retire(k, sizeof *k);
    *kp = NULL;
    return WEFT_OK;
}

int weft_key_set(weft_key k, void *value)
{
    int rc = sync_check(k, MAGIC_KEY);
    if (rc) return rc;
    struct weft_unit_s *u = caller_unit();
    struct key_table *t = table_of(u);
    if (!t || k->index >= t->cap) {
        if (!value) return WEFT_OK; /* NULL is what an unset slot reads */
        if (!u && !t) {
            /* The thread's first table, or a new one after the release at
             * its exit (a later pthread-key destructor sets a value): the
             * key's destructor releases it, in glibc's next round if one
             * is left, else it leaks as a pthread value set then would. */
            pthread_once(&thread_keys_once, thread_keys_init);
            if (!thread_keys_ok || pthread_setspecific(thread_keys, &thread_has_table))
                return WEFT_ERR_NOMEM; /* nothing would free the table */
        }
        unsigned cap = t ? t->cap : 0, want = cap ? cap : 8;
        while (want <= k->index) want *= 2;
        struct key_table *n = sys_realloc(t, sizeof *n + want * sizeof n->slot[0]);
        if (!n) return WEFT_ERR_NOMEM;
        memset(&n->slot[cap], 0, (want - cap) * sizeof n->slot[0]);
        n->cap = want;
        if (u) {
            u->keys = n;
            u->has_keys = 1;
        } else {
            WEFT_TLS(key_thread_table) = n;
        }
        t = n;
    }
    t->slot[k->index] = (struct key_slot){value, k->gen};
    return WEFT_OK;
}

int weft_key_get(weft_key k, void **value)
{
    int rc = sync_check(k, MAGIC_KEY);
    if (rc) return rc;
    if (!value) return WEFT_ERR_INVALID;
    struct key_table *t = table_of(caller_unit());
    *value = t && k->index < t->cap && t->slot[k->index].gen == k->gen ? t->slot[k->index].value : NULL;
    return WEFT_OK;
}

/* Call the destructors of the values in the table of `u` (NULL: of the
 * OS thread), then free it. A destructor may set values again, in this
 * table: up to DTOR_ROUNDS rounds, as pthreads does, after which the
 * values still set are dropped without their destructor. The table is
 * looked up again after each destructor, which may have moved it; it is
 * detached before it is freed, so nothing sees it freed. */
static void table_release(struct weft_unit_s *u)
{
    struct key_table *t;
    for (int round = 0; round < DTOR_ROUNDS; round++) {
        bool again = false;
        for (unsigned i = 0; (t = table_of(u)) && i < t->cap; i++) {
            struct key_slot s = t->slot[i];
            if (!s.value) continue;
            t->slot[i].value = NULL;
            pthread_mutex_lock(&keys_lock);
            struct weft_key_s *k = keys_by_index[i];
            void (*dtor)(void *) = k && k->gen == s.gen ? k->dtor : NULL;
            pthread_mutex_unlock(&keys_lock);
            if (dtor) {
                dtor(s.value);
                again = true;
            }
        }
        if (!again) break;
    }
    t = table_of(u);
    if (u) {
        u->has_keys = 0;
        u->keys = NULL;
    } else {
        WEFT_TLS(key_thread_table) = NULL;
    }
    free(t);
}

static void keys_unit_end(struct weft_unit_s *u)
{
    /* Destructors run as `u` (its key_set lands in u->keys), except for a
     * cancelled unit's, which run in its reaper. */
    table_release(u);
}

/* fork.c: keys outlive the runtime. The lock is held across fork(), so
 * the child finds the keys whole and every key of the parent still valid. */
static void keys_fork_lock(void)
{
    pthread_mutex_lock(&keys_lock);
}

static void keys_fork_unlock(void)
{
    pthread_mutex_unlock(&keys_lock);
}

/* The core calls up into this file only through its hooks (internal.h),
 * set when the library is loaded, before any key exists. A program linked
 * statically without the key calls leaves this file, and the hooks, out:
 * no unit then has keys. */
__attribute__((constructor)) static void keys_hook_into_core(void)
{
    core_hooks.unit_keys_end = keys_unit_end;
    core_hooks.fork_lock = keys_fork_lock;
    core_hooks.fork_unlock = keys_fork_unlock;
}
