/* weft's topology leaves hwloc's I/O plugins unloaded (src/core/topo.c,
 * topo_hwloc_start), without changing the program's environment, unless
 * the user asks for them (WEFT_HWLOC_PLUGINS=1, or HWLOC_PLUGINS_PATH /
 * HWLOC_PLUGINS_BLACKLIST set) or another thread could read the
 * environment at the time.
 *
 * Each case runs in a fresh process (hwloc loads its plugins once per
 * process): this program runs itself again with the case's name. Without
 * plugins installed (libhwloc-plugins) the cases cannot tell loaded from
 * not: it exits 77 (skipped). */
#define _GNU_SOURCE
#include <dirent.h>
#include <link.h>
#include <pthread.h>

#include "check.h"

/* hwloc's plugin directories on Debian and elsewhere. */
static const char *const plugin_dirs[] = {
    "/usr/lib/x86_64-linux-gnu/hwloc", "/usr/lib/aarch64-linux-gnu/hwloc", "/usr/lib64/hwloc", "/usr/lib/hwloc",
    "/usr/local/lib/hwloc",
};

static int plugins_installed(void)
{
    for (size_t i = 0; i < sizeof plugin_dirs / sizeof plugin_dirs[0]; i++) {
        DIR *d = opendir(plugin_dirs[i]);
        if (!d) continue;
        struct dirent *e;
        int n = 0;
        while ((e = readdir(d)))
            if (!strncmp(e->d_name, "hwloc_", 6) && strstr(e->d_name, ".so")) n++;
        closedir(d);
        if (n) return 1;
    }
    return 0;
}

static int count_plugin(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    if (base && !strncmp(base + 1, "hwloc_", 6) && strstr(info->dlpi_name, "/hwloc/")) ++*(int *)arg;
    return 0;
}

static int loaded_plugins(void)
{
    int n = 0;
    dl_iterate_phdr(count_plugin, &n);
    return n;
}

static void *sleeper(void *arg)
{
    (void)arg;
    pause();
    return NULL;
}

/* One case, in this process: weft up and down, then what was loaded. */
static int run_case(const char *name)
{
    if (!strcmp(name, "threaded")) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, sleeper, NULL) == 0);
    }
    CHECK(loaded_plugins() == 0);
    start_weft(2);
    int n = loaded_plugins();
    /* never left in the environment, whatever the case */
    const char *path = getenv("HWLOC_PLUGINS_PATH");
    if (!strcmp(name, "user_path")) CHECK(path && !strcmp(path, "/nonexistent-weft-test"));
    else CHECK(path == NULL);
    CHECK_OK(weft_finalize());
    printf("%s: %d hwloc plugin(s) loaded\n", name, n);
    if (!strcmp(name, "default")) CHECK(n == 0);
    else if (!strcmp(name, "asked") || !strcmp(name, "threaded")) CHECK(n > 0);
    else if (!strcmp(name, "user_path")) CHECK(n == 0); /* the user's (empty) directory */
    return 0;
}

static void run_child(const char *self, const char *name, const char *env)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        unsetenv("HWLOC_PLUGINS_PATH");
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
        unsetenv("WEFT_HWLOC_PLUGINS");
        if (env) putenv((char *)env);
        execl(self, self, name, (char *)NULL);
        _exit(127);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "case %s failed (status %d)\n", name, st);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) return run_case(argv[1]);
    if (!plugins_installed()) {
        printf("no hwloc plugins installed: nothing to tell apart\n");
        return 77;
    }
    run_child("/proc/self/exe", "default", NULL);
    run_child("/proc/self/exe", "asked", "WEFT_HWLOC_PLUGINS=1");
    run_child("/proc/self/exe", "threaded", NULL);
    run_child("/proc/self/exe", "user_path", "HWLOC_PLUGINS_PATH=/nonexistent-weft-test");
    return 0;
}
