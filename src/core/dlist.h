/* The one intrusive doubly linked list of the core: an object links
 * through a `next` pointer and a `pprev` pointer to whatever points at it
 * (the head or the previous object's `next`), so it leaves the list
 * without knowing the head. Used by the registries of pools and
 * schedulers (finalize walks them) and by each stream's timers. The
 * caller holds the list's lock; the macros name the two members. */
#ifndef WEFT_CORE_DLIST_H
#define WEFT_CORE_DLIST_H

/* Link `o` in at `*pp` (a head, or an object's next). */
#define DLIST_INSERT(pp, o, next, pprev)                                                                     \
    do {                                                                                                     \
        (o)->next = *(pp);                                                                                   \
        (o)->pprev = (pp);                                                                                   \
        if (*(pp)) (*(pp))->pprev = &(o)->next;                                                              \
        *(pp) = (o);                                                                                         \
    } while (0)

/* Unlink `o`, which is in a list; its pprev becomes NULL, so that
 * `o->pprev != NULL` tells whether it is linked. */
#define DLIST_REMOVE(o, next, pprev)                                                                         \
    do {                                                                                                     \
        *(o)->pprev = (o)->next;                                                                             \
        if ((o)->next) (o)->next->pprev = (o)->pprev;                                                        \
        (o)->pprev = NULL;                                                                                   \
    } while (0)

#endif
