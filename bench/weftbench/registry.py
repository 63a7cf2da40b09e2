"""What the suite measures: the programs and the runtimes they measure, the
experiments, the peers, and the targets the report checks.

Adding a benchmark program is one `Program` entry in PROGRAMS; adding a
runtime to the patterns of [Threading-HPC] is one `PatternRuntime` entry in
PATTERN_RUNTIMES (and a colour in COLORS, or it is drawn black); to the
EPCC-style OpenMP constructs, one in EPCC_RUNTIMES. Numbers here are
requirements (targets) and run parameters, never measurements: measured
prose lives in bench/notes/.
"""
from collections import namedtuple
from dataclasses import dataclass, field

# Why a program may be missing from the build directory, as the report says.
PEER_MISSING = "its peer's packages are missing"


# weft-omp: this project's libgomp.so.1 (src/omp), relative to the build
# directory. A program built by gcc -fopenmp against the system's libgomp
# runs on it when its directory comes first on LD_LIBRARY_PATH: the gomp
# programs measure both runtimes, the same binary in the same run.
WEFT_OMP_LIB = "omp/libgomp.so.1"
WEFT_OMP_MISSING = "weft-omp was not built (WEFT_BUILD_OMP=OFF)"


@dataclass(frozen=True)
class Program:
    """A program of <build>/bench/ that prints its points itself (one JSON
    line each, bench/bench_common.h). It runs once, with --streams=N,
    --quick when quick, then `args`, in the environment plus `env`. When it
    was not built, its `runtimes` are reported absent because `missing`.
    `lib`: a library of the build directory (WEFT_OMP_LIB) whose directory
    goes first on LD_LIBRARY_PATH; the runner checks that every point
    says it ran on it (its "lib" field, bench/bench_omp.h)."""
    name: str
    runtimes: tuple
    args: tuple = ()
    env: dict = field(default_factory=dict)
    missing: str = PEER_MISSING
    lib: str = ""


OMP_BIND = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}

PROGRAMS = [
    Program("bench_weft", ("weft-ult", "weft-tasklet"), ("--threads=8",)),
    # The join-latency breakdown: one program per measurement build of weft.
    Program("bench_join_none", ("weft breakdown step 0",)),
    Program("bench_join_mempool", ("weft breakdown steps 1-2",)),
    Program("bench_join_skip", ("weft breakdown step 3",)),
    Program("bench_join_all", ("weft breakdown steps 4-6",)),
    # What hot-path features cost: the shipped library against measurement
    # builds without one feature, the same points in the same run.
    Program("bench_weft", ("weft feature costs (shipped)",), ("--features",)),
    Program("bench_features_nomigration", ("weft feature costs (no migration)",), ("--features",)),
    Program("bench_tlb", ("weft huge-page stacks",)),
    Program("bench_boost", ("boost-context",)),
    # What the GLT layer adds to native weft calls: both in one process, in
    # alternating pairs (bench_glt_cost.c).
    Program("bench_glt_cost", ("weft-native (glt cost)", "weft-glt (glt cost)"),
            missing="bench/CMakeLists.txt does not build it"),
    # Synchronisation and idle streams, weft and pthreads in one process,
    # then each peer's own primitives (those it has).
    Program("bench_sync", ("weft-ult (sync)", "pthreads (sync)")),
    Program("sync_gomp", ("gomp (sync)",), env=OMP_BIND),
    Program("sync_gomp", ("weft-omp (sync)",), ("--runtime=weft-omp",), env=OMP_BIND, lib=WEFT_OMP_LIB),
    Program("sync_llvm_omp", ("llvm-omp (sync)",), env=OMP_BIND),
    Program("sync_tbb", ("tbb (sync)",)),
    Program("sync_go", ("go (sync)",)),
]

# Pair mode against the peers on [Relic]'s fine-grained kernels, and the
# hand-over latency (bench/pair/): one process per runtime, each measuring
# its own serial baseline in alternation; the full run takes SMT_ROUNDS
# rounds of these processes interleaved across the runtimes (a process's
# two CPUs may be near or far on the host this run), the runs merged.
SMT_PROGRAMS = [
    Program("pair_weft", ("weft-pair (pair kernels)",), ("--runtime=weft-pair",)),
    Program("pair_weft", ("weft-ult (pair kernels)",), ("--runtime=weft-ult",)),
    Program("pair_gomp", ("gomp (pair kernels)",), env=OMP_BIND),
    Program("pair_gomp", ("weft-omp (pair kernels)",), ("--runtime=weft-omp",), env=OMP_BIND, lib=WEFT_OMP_LIB),
    Program("pair_llvm_omp", ("llvm-omp (pair kernels)",), env=OMP_BIND),
    Program("pair_tbb", ("tbb (pair kernels)",)),
]
SMT_ROUNDS = (3, 1)  # full, quick

# The pair-mode experiments (bench/pair/pair_kernels.h): speedup over serial
# per kernel (smt_<kernel>), and the latency of one empty task handed to the
# other thread (smt_start: until it starts; smt_roundtrip: until the owner
# sees it done).
SMT_KERNELS = ["bc", "bfs", "cc", "pr", "sssp", "tc", "json"]
SMT_EXPS = ["smt_" + k for k in SMT_KERNELS]
SMT_LATENCY = ["smt_start", "smt_roundtrip"]
SMT_RUNTIMES = ["weft-pair", "weft-ult", "gomp", "weft-omp", "llvm-omp", "tbb"]

# Experiments whose program prints another name than the report uses.
RENAMED = {"create_join": "create_join_per_stream"}


@dataclass(frozen=True)
class PatternRuntime:
    """A runtime of the patterns (bench/patterns.h): `program` runs one point
    per process, with --exp=, --threads=, --runs= and `args`. `elsewhere`:
    experiments another program measures for this runtime. `lib`: as
    Program.lib."""
    label: str
    program: str
    args: tuple = ()
    elsewhere: frozenset = frozenset()
    lib: str = ""


# The patterns of [Threading-HPC] (bench/patterns.h) and the per-stream
# create/join and yield of [Argobots], for every runtime that expresses them.
WEFT_OWN = frozenset({"create_join_per_stream", "yield"})  # measured by bench_weft
PATTERN_RUNTIMES = [
    PatternRuntime("weft-ult (private)", "patterns_weft", ("--unit=ult", "--pool=private"), WEFT_OWN),
    PatternRuntime("weft-ult (shared)", "patterns_weft", ("--unit=ult", "--pool=shared"), WEFT_OWN),
    PatternRuntime("weft-tasklet (private)", "patterns_weft", ("--unit=tasklet", "--pool=private"), WEFT_OWN),
    PatternRuntime("weft-tasklet (shared)", "patterns_weft", ("--unit=tasklet", "--pool=shared"), WEFT_OWN),
    PatternRuntime("weft-ult (stealing)", "patterns_weft", ("--unit=ult", "--pool=stealing"), WEFT_OWN),
    PatternRuntime("weft-tasklet (stealing)", "patterns_weft", ("--unit=tasklet", "--pool=stealing"), WEFT_OWN),
    PatternRuntime("weft-glt", "bench_glt_weft"),
    PatternRuntime("glt-pthreads", "bench_glt_pthreads"),
    PatternRuntime("pthreads", "patterns_pthreads"),
    PatternRuntime("gomp", "patterns_gomp"),
    PatternRuntime("weft-omp", "patterns_gomp", ("--runtime=weft-omp",), lib=WEFT_OMP_LIB),
    PatternRuntime("llvm-omp", "patterns_llvm_omp"),
    PatternRuntime("tbb", "patterns_tbb"),
    PatternRuntime("go", "patterns_go"),
]
PATTERN_EXPS = ["create", "join", "for_loop", "tasks_single", "tasks_parallel", "nested_for_1000", "nested_for_100",
                "create_join_per_stream", "yield"]
THREADS = [1, 2, 4, 8]
# Runs per pattern point: (rounds, runs per round), full and --quick.
PATTERN_ROUNDS = (3, 5)
PATTERN_ROUNDS_QUICK = (1, 3)
# Seconds one pattern point may take before the suite gives up.
POINT_TIMEOUT_S = 900

# OpenMP set as its users set it for each pattern ([Threading-HPC] did the same),
# the same for every OpenMP runtime.
OMP_RUNTIMES = {"gomp", "llvm-omp", "weft-omp"}
OMP_TASK_EXPS = {"tasks_single", "tasks_parallel", "create_join_per_stream"}

# The EPCC-style overheads of OpenMP's constructs (bench/epcc_omp.c): one
# process per runtime and thread count (OMP_NUM_THREADS), every construct
# in it; OpenMP binding as for the patterns. Runs per point: (rounds
# interleaved across the runtimes, runs per round), full and --quick.
EPCC_CONSTRUCTS = ["parallel", "for", "parallel_for", "barrier", "single", "critical", "lock", "ordered", "atomic",
                   "reduction"]
EPCC_EXPS = ["epcc_" + c for c in EPCC_CONSTRUCTS]
EPCC_RUNTIMES = [
    PatternRuntime("gomp", "epcc_gomp"),
    PatternRuntime("weft-omp", "epcc_gomp", ("--runtime=weft-omp",), lib=WEFT_OMP_LIB),
    PatternRuntime("llvm-omp", "epcc_llvm_omp"),
]
EPCC_ROUNDS = (3, 7)
EPCC_ROUNDS_QUICK = (1, 5)

# The task-parallel applications of [LWT-PM] §6.3 and of dataflow users
# (bench/apps/apps.h), one process per point as the patterns: the OpenMP
# source built by gcc (gomp, and weft-omp with its libgomp.so.1 first) and
# by clang, and the same algorithms with oneTBB.
APP_RUNTIMES = [
    PatternRuntime("gomp", "apps_gomp"),
    PatternRuntime("weft-omp", "apps_gomp", ("--runtime=weft-omp",), lib=WEFT_OMP_LIB),
    PatternRuntime("llvm-omp", "apps_llvm_omp"),
    PatternRuntime("tbb", "apps_tbb"),
]
APP_EXPS = ["fib", "fib_cutoff", "nqueens", "sparselu", "sparselu_large", "cg", "cholesky", "tasks_1k", "tasks_10k",
            "fib_rss"]
APP_ROUNDS = (3, 3)
APP_ROUNDS_QUICK = (1, 3)

# Why a runtime does not express an experiment (its program says "absent").
NOT_EXPRESSED = {
    "gomp": "OpenMP has no yield between tasks: `taskyield` may only run another task on top of the caller, or nothing",
    "llvm-omp": "as gomp",
    "weft-omp": "as gomp (the same program)",
    "tbb": "TBB tasks cannot yield to each other",
}
# Debian packages of each peer: its version in the report, its absence explained.
PEER_PACKAGES = {
    "pthreads": None, "gomp": "libgomp1", "llvm-omp": "libomp-dev", "tbb": "libtbb-dev", "go": "golang-go",
    "boost-context": "libboost-context-dev", "glt-pthreads": None,
}

# Experiments of bench_sync: their own section and one chart, not the
# per-thread-count summary (their peers differ in kind, e.g. pinned or not).
SYNC = ["mutex_uncontended", "mutex_contended", "eventual_pingpong", "barrier", "wake_latency"]

# Experiments shown as tables only (no plot of their own).
TABLE_ONLY = {"fib_rss", "feature_cost", "stack_touch", "second_stream", "yield_to_pair", "create_join_cold",
              "glt_cost_ult", "glt_cost_tasklet"} | set(EPCC_EXPS) | set(SMT_EXPS) | set(SMT_LATENCY)

# Experiments of the summary, in the papers' order.
SUMMARY_EXPS = PATTERN_EXPS + ["yield_to"] + SYNC

# Unit kinds of the create_join_cold and glt_cost tables.
UNIT_KINDS = ("ult", "tasklet")

# ---- targets (requirements, checked in the report) ----

# Targets of the core-runtime issue (ns, 1 stream).
Target = namedtuple("Target", "experiment runtime pool threads ns what")
TARGETS = [
    Target("create_join_per_stream", "weft-ult", "private", 1, 40.0, "ULT create+join per unit"),
    Target("create_join_per_stream", "weft-tasklet", "private", 1, 18.0, "tasklet create+join per unit"),
    Target("yield", "weft-ult", "private", 1, 22.0, "yield"),
]
# weft's yield-to against the Boost.Context switch, ratio of the pairs.
YIELD_TO_BOOST_TARGET = 1.30
# What a second stream may cost each stream, private pools (percent).
SECOND_STREAM_TARGET_PCT = 10
# Wake-up of a sleeping stream: the target of the synchronisation issue.
WAKE_TARGET_NS = 100_000
# Create+join on descriptors never used before, against recycled ones.
COLD_TARGET_RATIO = 1.5
# A call through glt.h against the native weft call.
GLT_COST_TARGET_RATIO = 1.05

# Targets of the weft-omp issue: weft-omp's time against a peer's, as a
# ratio (weft-omp <= ratio x peer), for each experiment and thread count.
# `against`: a runtime's label, or BEST_PEER (the fastest runtime that is
# not weft's, at that experiment and thread count: TBB, Go, pthreads, ...).
BEST_PEER = "best peer"
OmpTarget = namedtuple("OmpTarget", "experiments threads against ratio")
WEFT_OMP_TARGETS = [
    OmpTarget(tuple(EPCC_EXPS), (2,), "gomp", 1.0),
    OmpTarget(tuple(EPCC_EXPS), (4, 8), "gomp", 0.2),
    OmpTarget(tuple(EPCC_EXPS), (4, 8), "llvm-omp", 0.5),
    OmpTarget(("nested_for_1000", "nested_for_100"), tuple(THREADS), BEST_PEER, 0.5),
    OmpTarget(("tasks_single", "tasks_parallel"), (1,), "gomp", 1.0),
    OmpTarget(("tasks_single", "tasks_parallel"), (2,), BEST_PEER, 1.0),
    # the applications (dataflow issue)
    OmpTarget(("fib",), (2,), "gomp", 0.5),
    OmpTarget(("fib",), (2,), "tbb", 1.0),
    OmpTarget(("tasks_1k", "tasks_10k"), tuple(THREADS), BEST_PEER, 1.0),
    OmpTarget(("sparselu", "sparselu_large", "cholesky"), (2,), BEST_PEER, 1.0),
    OmpTarget(("sparselu", "sparselu_large", "cholesky"), (4, 8), "gomp", 0.5),
    OmpTarget(("fib_rss",), (2,), "gomp", 2.0),
]
# And fib with weft-omp faster at 2 threads than at 1 (the report checks it).
FIB_SCALING_THREADS = (1, 2)

# Targets of the pair-mode issue: pair mode slower than serial on no kernel,
# and its geometric-mean speedup (each speedup below 1 counted as 1, the
# serial code kept where parallelising loses, as [Relic §VII] Fig. 4 does)
# at least this many times the best of these peers'.
SMT_NO_SLOWER = 1.0
SMT_PEERS = ("gomp", "llvm-omp", "tbb")
SMT_MARGIN = 1.19

# Measurement builds of the feature-cost table: build name -> (feature, what
# the build leaves out).
FEATURE_BUILDS = {
    "no-migration": ("migration", "the bound-unit check when a unit is picked and the pinning of a "
                     "non-migratable ULT at its first run"),
}

# One colour per runtime, the same in every plot: weft in blues and greens,
# peers in warm colours and greys.
COLORS = {
    "weft-ult (private)": "#08519c", "weft-ult (shared)": "#4292c6", "weft-ult (stealing)": "#9ecae1",
    "weft-tasklet (private)": "#006d2c", "weft-tasklet (shared)": "#41ab5d", "weft-tasklet (stealing)": "#a1d99b",
    "weft-ult": "#08519c", "weft-glt": "#6a51a3", "glt-pthreads": "#bcbddc", "pthreads": "#636363",
    "weft-omp": "#54278f", "weft-pair": "#3182bd",
    "gomp": "#e6550d", "llvm-omp": "#fd8d3c", "tbb": "#d62728", "go": "#17becf", "boost-context": "#8c564b",
}
