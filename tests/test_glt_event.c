/* GLT's event calls around team changes (glt_event_add_callbac,
 * glt_event_del_callback), over weft and, built with
 * -DGLT_BACKEND_PTHREADS, over OS threads: stop callbacks can keep a
 * thread in the team and hear of the ones that go; add callbacks decide
 * whether a thread comes back; misuse aborts with a message (in children).
 * Needs 4 threads (GLT_NUM_THREADS=4). */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "glt.h"
#include "check.h"
#include "glt_expect_abort.h"

/* What a stop callback is given for thread id. */
static void *thread_arg(int id)
{
#ifdef GLT_BACKEND_PTHREADS
    return (void *)(intptr_t)id;
#else
    weft_xstream xs;
    if (id < 0) return NULL;
    CHECK_OK(weft_xstream_get(id, &xs));
    return xs;
#endif
}

static int g_veto = -1;                 /* stop ask refuses this id */
static int g_asked_stop, g_acted_stop;
static void *g_stop_args[16];           /* asked, in order */
static void *g_acted_arg;

static GLT_bool ask_stop(void *user, void *arg)
{
    CHECK(user == &g_asked_stop);
    g_stop_args[g_asked_stop++ % 16] = arg;
    return arg == thread_arg(g_veto) ? GLT_FALSE : GLT_TRUE;
}

static GLT_bool act_stop(void *user, void *arg)
{
    CHECK(user == &g_acted_stop);
    g_acted_stop++;
    g_acted_arg = arg;
    return GLT_TRUE;
}

static int g_allow_add, g_act_add_ok, g_asked_add, g_acted_add, g_asked_add2;
static intptr_t g_add_arg;

static GLT_bool ask_add(void *user, void *arg)
{
    CHECK(user == &g_asked_add);
    g_asked_add++;
    g_add_arg = (intptr_t)arg;
    return g_allow_add ? GLT_TRUE : GLT_FALSE;
}

static GLT_bool act_add(void *user, void *arg)
{
    CHECK(user == &g_acted_add);
    CHECK((intptr_t)arg == g_add_arg);
    g_acted_add++;
    return g_act_add_ok ? GLT_TRUE : GLT_FALSE;
}

static GLT_bool ask_add_yes(void *user, void *arg)
{
    (void)user;
    (void)arg;
    g_asked_add2++;
    return GLT_TRUE;
}

static int enabled(int id) { return glt_team_num_(id) >= 0; }

/* ---------- misuse ---------- */


static void misuse_del(void)
{
    int id;
    glt_event_add_callbac(GLT_EVENT_STOP_XSTREAM, ask_stop, &g_asked_stop, NULL, NULL, &id);
    glt_event_del_callback(GLT_EVENT_STOP_XSTREAM, id);
    glt_event_del_callback(GLT_EVENT_STOP_XSTREAM, id); /* twice */
}

static void misuse_kind(void)
{
    int id;
    glt_event_add_callbac((GLT_event_kind)7, ask_stop, NULL, NULL, NULL, &id);
}

static GLT_bool changes_team(void *user, void *arg)
{
    (void)user;
    (void)arg;
    glt_thread_enable();
    return GLT_TRUE;
}

static void misuse_reenter(void)
{
    int id;
    glt_event_add_callbac(GLT_EVENT_STOP_XSTREAM, changes_team, NULL, NULL, NULL, &id);
    glt_thread_disable_id(1);
}

int main(int argc, char **argv)
{
    setenv("GLT_NUM_THREADS", "4", 0);
    glt_expect_abort("del twice", misuse_del, "no callback", NULL);
    glt_expect_abort("unknown kind", misuse_kind, "unknown event kind", NULL);
    glt_expect_abort("callback changes the team", misuse_reenter, "glt", NULL);

    glt_init(argc, argv);
    CHECK(glt_can_event_functions() == GLT_TRUE);
    CHECK(glt_get_num_threads() == 4);

    /* No callbacks: changes as before. */
    glt_thread_disable_id(3);
    CHECK(glt_get_num_threads() == 3);
    glt_thread_enable_id(3);
    CHECK(glt_get_num_threads() == 4);

    /* Stop callbacks: thread 3 is kept, thread 2 goes. */
    int sid, sid2;
    glt_event_add_callbac(GLT_EVENT_STOP_XSTREAM, ask_stop, &g_asked_stop, act_stop, &g_acted_stop, &sid);
    g_veto = 3;
    glt_thread_disable_id(3);
    CHECK(glt_get_num_threads() == 4 && enabled(3));
    CHECK(g_asked_stop == 1 && g_stop_args[0] == thread_arg(3) && g_acted_stop == 0);
    glt_thread_disable_id(2);
    CHECK(glt_get_num_threads() == 3 && !enabled(2));
    CHECK(g_asked_stop == 2 && g_acted_stop == 1 && g_acted_arg == thread_arg(2));
    /* Without an id: 3 is asked first and refuses, 2 is out, 1 goes. */
    glt_thread_disable();
    CHECK(glt_get_num_threads() == 2 && !enabled(1) && enabled(3));
    CHECK(g_asked_stop == 4 && g_stop_args[2] == thread_arg(3) && g_stop_args[3] == thread_arg(1));
    CHECK(g_acted_stop == 2 && g_acted_arg == thread_arg(1));
    glt_thread_disable_id(1); /* out already: nobody asked */
    CHECK(g_asked_stop == 4);
    /* A second stop callback: both must agree; no act for it (NULL). */
    glt_event_add_callbac(GLT_EVENT_STOP_XSTREAM, ask_stop, &g_asked_stop, NULL, NULL, &sid2);
    CHECK(sid2 != sid);
    g_veto = -1;
    glt_thread_disable_id(3);
    CHECK(!enabled(3) && g_asked_stop == 6 && g_acted_stop == 3);
    glt_event_del_callback(GLT_EVENT_STOP_XSTREAM, sid2);

    /* No add callback: enabling goes ahead. */
    glt_thread_enable_id(3);
    CHECK(enabled(3) && glt_get_num_threads() == 2);

    /* Add callbacks decide. */
    int aid, aid2;
    glt_event_add_callbac(GLT_EVENT_ADD_XSTREAM, ask_add, &g_asked_add, act_add, &g_acted_add, &aid);
    g_allow_add = 0;
    glt_thread_enable_id(2);
    CHECK(!enabled(2) && g_asked_add == 1 && g_add_arg == 2 && g_acted_add == 0);
    g_allow_add = 1;
    g_act_add_ok = 0;
    glt_thread_enable_id(2);
    CHECK(!enabled(2) && g_asked_add == 2 && g_acted_add == 1);
    g_act_add_ok = 1;
    glt_thread_enable_id(2);
    CHECK(enabled(2) && g_asked_add == 3 && g_acted_add == 2);
    glt_thread_enable(); /* any: thread 1, asked with -1 */
    CHECK(enabled(1) && g_add_arg == -1 && g_acted_add == 3);
    glt_thread_enable(); /* none is out: nobody asked */
    CHECK(g_asked_add == 4);
    /* In turn: this one refuses; the next one's ask agrees, but without an
     * act callback it cannot carry the change: the thread stays out. */
    g_allow_add = 0;
    glt_event_add_callbac(GLT_EVENT_ADD_XSTREAM, ask_add_yes, NULL, NULL, NULL, &aid2);
    glt_thread_disable_id(3); /* the stop callback (veto -1) lets it go */
    glt_thread_enable_id(3);
    CHECK(!enabled(3) && g_asked_add2 == 1);
    glt_event_del_callback(GLT_EVENT_ADD_XSTREAM, aid2);
    glt_event_del_callback(GLT_EVENT_ADD_XSTREAM, aid);
    glt_thread_enable_id(3); /* none left: goes ahead */
    CHECK(enabled(3) && glt_get_num_threads() == 4);

    /* Deleted stop callback: no more vetoes. */
    g_veto = 3;
    glt_event_del_callback(GLT_EVENT_STOP_XSTREAM, sid);
    int asked = g_asked_stop;
    glt_thread_disable_id(3);
    CHECK(!enabled(3) && g_asked_stop == asked);
    /* glt_finalize brings it back without asking. */
    glt_event_add_callbac(GLT_EVENT_ADD_XSTREAM, ask_add, &g_asked_add, act_add, &g_acted_add, &aid);
    asked = g_asked_add;
    glt_finalize();
    CHECK(g_asked_add == asked);
    printf("glt events: ok\n");
    return 0;
}
