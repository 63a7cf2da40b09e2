// The fine-grained kernels of [Relic §IV], written for this suite from the
// algorithms' public descriptions: six graph kernels on a tiny Kronecker
// graph and the parse of a small JSON document. Each experiment runs two
// independent instances (two copies of the input) per iteration; a runtime
// runs them one after the other (serial) or at the same time (the
// `both` of the runtime under test). Every run adds its result to its
// instance's running sum and count, which the driver checks against a
// reference: a lost, doubled or overlapping task changes them.
#ifndef WEFT_BENCH_PAIR_KERNELS_H
#define WEFT_BENCH_PAIR_KERNELS_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

namespace pk {

constexpr int N = 32;            // vertices: a scale-5 Kronecker graph
constexpr int EDGES = 157;       // distinct undirected edges, as [Relic §IV-A]
constexpr int PR_ITERS = 20;     // PageRank: fixed iterations
constexpr double PR_DAMP = 0.85;

// A graph in CSR form, both directions of every edge, neighbours sorted;
// weights (1..255) for SSSP, the same in both directions.
struct Graph {
    int off[N + 1];
    std::vector<int> adj;
    std::vector<int> w;
    int deg(int v) const { return off[v + 1] - off[v]; }
};

// The Graph500 generator (R-MAT with A=0.57, B=0.19, C=0.19): each edge
// picks one quadrant per bit of the vertex ids. Self-loops and duplicates
// are dropped until EDGES distinct edges exist. Fixed seed.
inline Graph make_graph(uint64_t seed)
{
    uint64_t s = seed;
    auto rnd = [&s]() { // xorshift64*
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        return (s * 2685821657736338717ull) >> 11;
    };
    auto unit = [&]() { return (double)rnd() / (double)(1ull << 53); };
    std::vector<std::pair<int, int>> edges;
    bool have[N][N] = {};
    while ((int)edges.size() < EDGES) {
        int u = 0, v = 0;
        for (int bit = N / 2; bit >= 1; bit /= 2) {
            double r = unit();
            if (r < 0.57) {
            } else if (r < 0.76) v += bit;
            else if (r < 0.95) u += bit;
            else u += bit, v += bit;
        }
        if (u == v || have[u][v]) continue;
        have[u][v] = have[v][u] = true;
        edges.push_back({std::min(u, v), std::max(u, v)});
    }
    int wt[N][N] = {};
    for (auto &e : edges) wt[e.first][e.second] = wt[e.second][e.first] = 1 + (int)(rnd() % 255);
    Graph g;
    g.off[0] = 0;
    for (int u = 0; u < N; u++) {
        for (int v = 0; v < N; v++)
            if (have[u][v]) g.adj.push_back(v), g.w.push_back(wt[u][v]);
        g.off[u + 1] = (int)g.adj.size();
    }
    return g;
}

// A small widget-style document (about 600 bytes), written for this suite.
static const char JSON_DOC[] =
    "{\"widget\": {\n"
    "  \"debug\": \"off\",\n"
    "  \"window\": {\"title\": \"Sample Weft Widget\", \"name\": \"main_window\", \"width\": 640, \"height\": 480},\n"
    "  \"image\": {\"src\": \"Images/Loom.png\", \"name\": \"loom\", \"hOffset\": 250, \"vOffset\": 250,\n"
    "             \"alignment\": \"center\"},\n"
    "  \"text\": {\"data\": \"Click Here\", \"size\": 36, \"style\": \"bold\", \"name\": \"text1\",\n"
    "            \"hOffset\": 250, \"vOffset\": 100, \"alignment\": \"center\",\n"
    "            \"onMouseUp\": \"sun1.opacity = (sun1.opacity / 100) * 90;\"},\n"
    "  \"menu\": [{\"id\": \"open\", \"enabled\": true}, {\"id\": \"save\", \"enabled\": false},\n"
    "           {\"id\": \"close\", \"enabled\": true}, {\"id\": \"about\", \"enabled\": true}],\n"
    "  \"scale\": [1.0, 1.25, 1.5, 2.0], \"theme\": null\n"
    "}}\n";

// One instance: its own copy of the inputs, its scratch, its results, on
// cache lines of its own (two instances run on two CPUs at once).
struct alignas(64) Instance {
    Graph g;
    char json[sizeof JSON_DOC];
    // scratch
    int depth[N], queue[N], parent[N], comp[N];
    double sigma[N], delta[N], score[N], contrib[N];
    long dist[N];
    // result of the last run, and the running checks
    double result;
    double sum;
    long runs;
};

inline double bc(Instance *in)
{
    const Graph &g = in->g;
    const int s = 0;
    for (int v = 0; v < N; v++) in->depth[v] = -1, in->sigma[v] = 0, in->delta[v] = 0, in->score[v] = 0;
    in->depth[s] = 0, in->sigma[s] = 1;
    int head = 0, tail = 0;
    in->queue[tail++] = s;
    while (head < tail) {
        int v = in->queue[head++];
        for (int i = g.off[v]; i < g.off[v + 1]; i++) {
            int w = g.adj[i];
            if (in->depth[w] < 0) in->depth[w] = in->depth[v] + 1, in->queue[tail++] = w;
            if (in->depth[w] == in->depth[v] + 1) in->sigma[w] += in->sigma[v];
        }
    }
    for (int k = tail - 1; k >= 0; k--) { // dependencies, farthest first [Brandes]
        int v = in->queue[k];
        for (int i = g.off[v]; i < g.off[v + 1]; i++) {
            int w = g.adj[i];
            if (in->depth[w] == in->depth[v] + 1) in->delta[v] += in->sigma[v] / in->sigma[w] * (1 + in->delta[w]);
        }
        if (v != s) in->score[v] += in->delta[v];
    }
    double r = 0;
    for (int v = 0; v < N; v++) r += in->score[v] * (v + 1);
    return r;
}

inline double bfs(Instance *in)
{
    const Graph &g = in->g;
    for (int v = 0; v < N; v++) in->parent[v] = -1;
    int head = 0, tail = 0;
    in->parent[0] = 0;
    in->queue[tail++] = 0;
    while (head < tail) {
        int v = in->queue[head++];
        for (int i = g.off[v]; i < g.off[v + 1]; i++) {
            int w = g.adj[i];
            if (in->parent[w] < 0) in->parent[w] = v, in->queue[tail++] = w;
        }
    }
    uint64_t r = 0;
    for (int v = 0; v < N; v++) r = r * 31 + (uint64_t)(in->parent[v] + 1);
    return (double)(r & 0xffffffffffff);
}

// Shiloach-Vishkin: hook roots onto smaller neighbours' labels, then
// shortcut every vertex to its root, until nothing changes.
inline double cc(Instance *in)
{
    const Graph &g = in->g;
    int *c = in->comp;
    for (int v = 0; v < N; v++) c[v] = v;
    for (bool change = true; change;) {
        change = false;
        for (int u = 0; u < N; u++)
            for (int i = g.off[u]; i < g.off[u + 1]; i++) {
                int cu = c[u], cv = c[g.adj[i]];
                if (cu < cv && cv == c[cv]) c[cv] = cu, change = true;
            }
        for (int v = 0; v < N; v++)
            while (c[v] != c[c[v]]) c[v] = c[c[v]];
    }
    uint64_t r = 0;
    for (int v = 0; v < N; v++) r = r * 7 + (uint64_t)c[v];
    return (double)(r & 0xffffffffffff);
}

inline double pr(Instance *in)
{
    const Graph &g = in->g;
    const double base = (1.0 - PR_DAMP) / N;
    for (int v = 0; v < N; v++) in->score[v] = 1.0 / N;
    for (int it = 0; it < PR_ITERS; it++) {
        for (int v = 0; v < N; v++) in->contrib[v] = g.deg(v) ? in->score[v] / g.deg(v) : 0;
        for (int v = 0; v < N; v++) {
            double s = 0;
            for (int i = g.off[v]; i < g.off[v + 1]; i++) s += in->contrib[g.adj[i]];
            in->score[v] = base + PR_DAMP * s;
        }
    }
    double r = 0;
    for (int v = 0; v < N; v++) r += in->score[v] * (v + 1);
    return r;
}

// Dijkstra with a binary heap, from vertex 0.
inline double sssp(Instance *in)
{
    const Graph &g = in->g;
    for (int v = 0; v < N; v++) in->dist[v] = -1;
    std::priority_queue<std::pair<long, int>, std::vector<std::pair<long, int>>, std::greater<std::pair<long, int>>> q;
    in->dist[0] = 0;
    q.push({0, 0});
    while (!q.empty()) {
        auto [d, v] = q.top();
        q.pop();
        if (d > in->dist[v]) continue;
        for (int i = g.off[v]; i < g.off[v + 1]; i++) {
            int w = g.adj[i];
            long nd = d + g.w[i];
            if (in->dist[w] < 0 || nd < in->dist[w]) in->dist[w] = nd, q.push({nd, w});
        }
    }
    uint64_t r = 0;
    for (int v = 0; v < N; v++) r = r * 3 + (uint64_t)in->dist[v];
    return (double)(r & 0xffffffffffff);
}

// Triangles u < v < w, by merging sorted neighbour lists.
inline double tc(Instance *in)
{
    const Graph &g = in->g;
    long n = 0;
    for (int u = 0; u < N; u++)
        for (int i = g.off[u]; i < g.off[u + 1]; i++) {
            int v = g.adj[i];
            if (v <= u) continue;
            int a = g.off[u], b = g.off[v];
            while (a < g.off[u + 1] && b < g.off[v + 1]) {
                int x = g.adj[a], y = g.adj[b];
                if (x < y) a++;
                else if (y < x) b++;
                else {
                    n += x > v;
                    a++, b++;
                }
            }
        }
    return (double)n;
}

inline double json(Instance *in)
{
    rapidjson::Document d;
    d.Parse(in->json);
    if (d.HasParseError() || !d.IsObject()) return -1;
    const rapidjson::Value &w = d["widget"];
    double r = w["window"]["width"].GetInt() + w["window"]["height"].GetInt() + w["text"]["size"].GetInt();
    for (auto &m : w["menu"].GetArray()) r += m["enabled"].GetBool() ? 1 : 0;
    for (auto &x : w["scale"].GetArray()) r += x.GetDouble();
    r += w["image"]["name"].GetStringLength() + (w["theme"].IsNull() ? 1000 : 0);
    return r;
}

struct Kernel {
    const char *name;
    double (*fn)(Instance *);
};

static const Kernel KERNELS[] = {{"bc", bc}, {"bfs", bfs}, {"cc", cc}, {"pr", pr}, {"sssp", sssp}, {"tc", tc},
                                 {"json", json}};
constexpr int NKERNELS = sizeof KERNELS / sizeof *KERNELS;

// What a task runs: one kernel on one instance.
struct alignas(64) Job {
    const Kernel *k;
    Instance *in;
};

inline void run_job(void *arg)
{
    Job *j = (Job *)arg;
    double r = j->k->fn(j->in);
    j->in->result = r;
    j->in->sum += r;
    j->in->runs++;
}

inline void instance_init(Instance *in, const Graph &g)
{
    in->g = g;
    std::memcpy(in->json, JSON_DOC, sizeof JSON_DOC);
    in->sum = 0, in->runs = 0, in->result = 0;
}

// After `iters` runs of kernel k: the right count, and every run's result
// the reference's.
inline bool instance_check(const Instance *in, const Kernel &k, long iters, double ref)
{
    double want = 0;
    for (long i = 0; i < iters; i++) want += ref;
    if (in->runs != iters || in->sum != want || in->result != ref) {
        std::fprintf(stderr, "pair bench: %s: %ld runs (want %ld), sum %.17g (want %.17g)\n", k.name, in->runs, iters,
                     in->sum, want);
        return false;
    }
    return true;
}

} // namespace pk

#endif
