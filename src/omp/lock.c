/* The lock routines (OpenMP 5.1 section 3.9), in the two ABIs libgomp
 * exports:
 *   name@@OMP_3.0 - what programs built since GCC 4.4 call: omp_lock_t is
 *     one 32-bit word (omp_word_lock), omp_nest_lock_t 16 bytes {word,
 *     count, owner} owned by a task (OpenMP 3.0 and later);
 *   name@OMP_1.0 - the OpenMP 2.5 ABI of older binaries: the same simple
 *     lock, but an 8-byte nest lock owned by a thread. Eight bytes hold no
 *     owner pointer besides a lock, so it holds a pointer to a 16-byte
 *     lock allocated at init (freed at destroy).
 * Waiting is omp_word_lock's: a ULT that waits lets its stream run others.
 *
 * The exported names are aliases of the hidden *_impl functions (which
 * fortran.c calls) given their versions with .symver; the version script
 * lists each name in both OMP_1.0 and OMP_3.0. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"

struct nest_lock {
    _Atomic uint32_t word;
    int count;         /* times the owner holds it */
    void *owner;       /* task (3.0) or thread (2.5) holding it, NULL when free */
};

_Static_assert(sizeof(struct nest_lock) == OMP_NEST_LOCK30_SIZE, "omp_nest_lock_t of omp.h is 16 bytes");

/* ---------- simple locks (the same in both ABIs) ---------- */

void omp_lock_init_impl(void *lock) { atomic_store_explicit((_Atomic uint32_t *)lock, 0, memory_order_relaxed); }

void omp_lock_destroy_impl(void *lock) { (void)lock; }

void omp_lock_set_impl(void *lock)
{
    omp_word_lock(lock);
    omp_held_take();
}

void omp_lock_unset_impl(void *lock)
{
    /* unsetting a free lock is undefined; leave it free rather than wake no one */
    if (atomic_load_explicit((_Atomic uint32_t *)lock, memory_order_relaxed)) {
        omp_held_give();
        omp_word_unlock(lock);
    }
}

int omp_lock_test_impl(void *lock)
{
    if (!omp_word_trylock(lock)) return 0;
    omp_held_take();
    return 1;
}

/* ---------- nestable locks ---------- */

static void *owner_of(const struct nest_lock *l) { return __atomic_load_n(&l->owner, __ATOMIC_RELAXED); }

static void nest_init(struct nest_lock *l)
{
    atomic_store_explicit(&l->word, 0, memory_order_relaxed);
    l->count = 0;
    l->owner = NULL;
}

/* Only the owner reads its own token back, so a relaxed owner field is
 * enough: the word lock orders everything else. */
static void nest_set(struct nest_lock *l, void *me)
{
    omp_held_take();
    if (owner_of(l) == me) {
        l->count++;
        return;
    }
    omp_word_lock(&l->word);
    __atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
    l->count = 1;
}

static void nest_unset(struct nest_lock *l, void *me)
{
    if (owner_of(l) != me || l->count <= 0) return; /* not ours: undefined, ignored */
    omp_held_give();
    if (--l->count == 0) {
        __atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
        omp_word_unlock(&l->word);
    }
}

static int nest_test(struct nest_lock *l, void *me)
{
    if (owner_of(l) == me) {
        omp_held_take();
        return ++l->count;
    }
    if (!omp_word_trylock(&l->word)) return 0;
    omp_held_take();
    __atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
    l->count = 1;
    return 1;
}

/* OpenMP 3.0 and later: locks are owned by tasks (5.1 section 3.9). */
static void *task_token(void)
{
    struct omp_thread *thr = omp_self();
    return thr->task ? (void *)thr->task : (void *)thr;
}

void omp_nest_lock_init30(void *lock) { nest_init(lock); }
void omp_nest_lock_destroy30(void *lock) { (void)lock; }
void omp_nest_lock_set30(void *lock) { nest_set(lock, task_token()); }
void omp_nest_lock_unset30(void *lock) { nest_unset(lock, task_token()); }
int omp_nest_lock_test30(void *lock) { return nest_test(lock, task_token()); }

/* OpenMP 2.5: owned by threads. An OpenMP thread is a weft ULT (its
 * struct omp_thread changes from region to region: the primary thread of
 * a team is the encountering one), or a plain thread of the program. */
__thread char omp_plain_thread_token OMP_HIDDEN __attribute__((tls_model("initial-exec")));
WEFT_TLS_ACCESSOR(omp_plain_thread_token);

static void *thread_token(void)
{
    weft_thread self;
    if (weft_self(&self) == WEFT_OK && self) return self;
    return WEFT_TLS_ADDR(omp_plain_thread_token);
}

/* The 8 bytes of a 2.5 nest lock hold a struct nest_lock *. */
static struct nest_lock *nest25(void *lock)
{
    struct nest_lock *l;
    memcpy(&l, lock, sizeof l); /* the old type is only 4-byte aligned */
    return l;
}

void omp_nest_lock_init25(void *lock)
{
    struct nest_lock *l = malloc(sizeof *l);
    if (!l) omp_die("Out of memory allocating %lu bytes", (unsigned long)sizeof *l);
    nest_init(l);
    memcpy(lock, &l, sizeof l);
}

void omp_nest_lock_destroy25(void *lock)
{
    free(nest25(lock));
    memset(lock, 0, sizeof(void *));
}

void omp_nest_lock_set25(void *lock)
{
    struct nest_lock *l = nest25(lock);
    if (l) nest_set(l, thread_token());
}
void omp_nest_lock_unset25(void *lock)
{
    struct nest_lock *l = nest25(lock);
    if (l) nest_unset(l, thread_token());
}
int omp_nest_lock_test25(void *lock)
{
    struct nest_lock *l = nest25(lock);
    return l ? nest_test(l, thread_token()) : 0;
}

/* ---------- the exported names ---------- */

#define ALIAS(impl) __attribute__((alias(#impl), visibility("default")))

/* name@@OMP_3.0 */
void weft_omp_init_lock_30(void *) ALIAS(omp_lock_init_impl);
void weft_omp_destroy_lock_30(void *) ALIAS(omp_lock_destroy_impl);
void weft_omp_set_lock_30(void *) ALIAS(omp_lock_set_impl);
void weft_omp_unset_lock_30(void *) ALIAS(omp_lock_unset_impl);
int weft_omp_test_lock_30(void *) ALIAS(omp_lock_test_impl);
void weft_omp_init_nest_lock_30(void *) ALIAS(omp_nest_lock_init30);
void weft_omp_destroy_nest_lock_30(void *) ALIAS(omp_nest_lock_destroy30);
void weft_omp_set_nest_lock_30(void *) ALIAS(omp_nest_lock_set30);
void weft_omp_unset_nest_lock_30(void *) ALIAS(omp_nest_lock_unset30);
int weft_omp_test_nest_lock_30(void *) ALIAS(omp_nest_lock_test30);
__asm__(".symver weft_omp_init_lock_30, omp_init_lock@@OMP_3.0");
__asm__(".symver weft_omp_destroy_lock_30, omp_destroy_lock@@OMP_3.0");
__asm__(".symver weft_omp_set_lock_30, omp_set_lock@@OMP_3.0");
__asm__(".symver weft_omp_unset_lock_30, omp_unset_lock@@OMP_3.0");
__asm__(".symver weft_omp_test_lock_30, omp_test_lock@@OMP_3.0");
__asm__(".symver weft_omp_init_nest_lock_30, omp_init_nest_lock@@OMP_3.0");
__asm__(".symver weft_omp_destroy_nest_lock_30, omp_destroy_nest_lock@@OMP_3.0");
__asm__(".symver weft_omp_set_nest_lock_30, omp_set_nest_lock@@OMP_3.0");
__asm__(".symver weft_omp_unset_nest_lock_30, omp_unset_nest_lock@@OMP_3.0");
__asm__(".symver weft_omp_test_nest_lock_30, omp_test_nest_lock@@OMP_3.0");

/* name@OMP_1.0 */
void weft_omp_init_lock_25(void *) ALIAS(omp_lock_init_impl);
void weft_omp_destroy_lock_25(void *) ALIAS(omp_lock_destroy_impl);
void weft_omp_set_lock_25(void *) ALIAS(omp_lock_set_impl);
void weft_omp_unset_lock_25(void *) ALIAS(omp_lock_unset_impl);
int weft_omp_test_lock_25(void *) ALIAS(omp_lock_test_impl);
void weft_omp_init_nest_lock_25(void *) ALIAS(omp_nest_lock_init25);
void weft_omp_destroy_nest_lock_25(void *) ALIAS(omp_nest_lock_destroy25);
void weft_omp_set_nest_lock_25(void *) ALIAS(omp_nest_lock_set25);
void weft_omp_unset_nest_lock_25(void *) ALIAS(omp_nest_lock_unset25);
int weft_omp_test_nest_lock_25(void *) ALIAS(omp_nest_lock_test25);
__asm__(".symver weft_omp_init_lock_25, omp_init_lock@OMP_1.0");
__asm__(".symver weft_omp_destroy_lock_25, omp_destroy_lock@OMP_1.0");
__asm__(".symver weft_omp_set_lock_25, omp_set_lock@OMP_1.0");
__asm__(".symver weft_omp_unset_lock_25, omp_unset_lock@OMP_1.0");
__asm__(".symver weft_omp_test_lock_25, omp_test_lock@OMP_1.0");
__asm__(".symver weft_omp_init_nest_lock_25, omp_init_nest_lock@OMP_1.0");
__asm__(".symver weft_omp_destroy_nest_lock_25, omp_destroy_nest_lock@OMP_1.0");
__asm__(".symver weft_omp_set_nest_lock_25, omp_set_nest_lock@OMP_1.0");
__asm__(".symver weft_omp_unset_nest_lock_25, omp_unset_nest_lock@OMP_1.0");
__asm__(".symver weft_omp_test_nest_lock_25, omp_test_nest_lock@OMP_1.0");

/* OpenMP 4.5: hints are advice (5.1 section 3.9.2); none changes how a
 * lock works here. libgomp 12 declares these in omp.h without exporting
 * them, so the version script leaves them local for now. */
OMP_EXPORT void omp_init_lock_with_hint(void *lock, int hint)
{
    (void)hint;
    omp_lock_init_impl(lock);
}

OMP_EXPORT void omp_init_nest_lock_with_hint(void *lock, int hint)
{
    (void)hint;
    omp_nest_lock_init30(lock);
}
