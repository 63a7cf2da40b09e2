/* The graveyard: pools, schedulers and the sync layer's objects.
 *
 * A freed object keeps its memory (handle memory, handle.c), marked dead,
 * for the life of the process: a stale handle is then refused instead of
 * read after free, whenever it was freed (before weft_init(), which sync
 * objects and pools allow, during the runtime, or after weft_finalize()).
 * New objects of the same size in cache lines reuse it, so the graveyard
 * stays as large as the most objects ever alive at once. The core knows
 * sizes only, not the kinds of the layers above: an object reused as
 * another kind has that kind's magic word, which a stale handle of the old
 * kind does not match. */
#include <pthread.h>

#include "internal.h"

#define RETIRED_CLASSES 64 /* sizes in cache lines: 1 .. 64 */

static void *g_retired[RETIRED_CLASSES];
static pthread_mutex_t g_retired_lock = PTHREAD_MUTEX_INITIALIZER;

/* The link lives after the magic word, which must stay readable. */
static inline void **retired_link(void *obj)
{
    return (void **)((char *)obj + 8);
}

static inline size_t size_class(size_t size)
{
    size_t lines = (size + CACHE_LINE - 1) / CACHE_LINE;
    WEFT_ASSERT(lines >= 1 && lines <= RETIRED_CLASSES);
    return lines - 1;
}

void *obj_alloc(size_t size)
{
    size_t kind = size_class(size);
    void *o = NULL;
    pthread_mutex_lock(&g_retired_lock);
    if ((o = g_retired[kind])) g_retired[kind] = *retired_link(o);
    pthread_mutex_unlock(&g_retired_lock);
    return o ? o : handle_alloc(size, CACHE_LINE);
}

void obj_retire(void *obj, size_t size)
{
    size_t kind = size_class(size);
    pthread_mutex_lock(&g_retired_lock);
    *retired_link(obj) = g_retired[kind];
    g_retired[kind] = obj;
    pthread_mutex_unlock(&g_retired_lock);
}

/* fork.c: the graveyard outlives the runtime; the child keeps it, so its
 * lock is held across fork(). */
void obj_fork_lock(void)
{
    pthread_mutex_lock(&g_retired_lock);
}

void obj_fork_unlock(void)
{
    pthread_mutex_unlock(&g_retired_lock);
}
