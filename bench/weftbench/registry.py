"""What the suite measures: the programs and the runtimes they measure, the
experiments, the peers, and the targets the report checks.

Adding a benchmark program is one `Program` entry in PROGRAMS; adding a
runtime to the patterns of [Threading-HPC] is one `PatternRuntime` entry in
PATTERN_RUNTIMES (and a colour in COLORS, or it is drawn black). Numbers
here are requirements (targets) and run parameters, never measurements:
measured prose lives in bench/notes/.
"""
from collections import namedtuple
from dataclasses import dataclass, field

# Why a program may be missing from the build directory, as the report says.
PEER_MISSING = "its peer's packages are missing"


@dataclass(frozen=True)
class Program:
    """A program of <build>/bench/ that prints its points itself (one JSON
    line each, bench/bench_common.h). It runs once, with --streams=N,
    --quick when quick, then `args`, in the environment plus `env`. When it
    was not built, its `runtimes` are reported absent because `missing`."""
    name: str
    runtimes: tuple
    args: tuple = ()
    env: dict = field(default_factory=dict)
    missing: str = PEER_MISSING


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
    Program("sync_llvm_omp", ("llvm-omp (sync)",), env=OMP_BIND),
    Program("sync_tbb", ("tbb (sync)",)),
    Program("sync_go", ("go (sync)",)),
]

# Experiments whose program prints another name than the report uses.
RENAMED = {"create_join": "create_join_per_stream"}


@dataclass(frozen=True)
class PatternRuntime:
    """A runtime of the patterns (bench/patterns.h): `program` runs one point
    per process, with --exp=, --threads=, --runs= and `args`. `elsewhere`:
    experiments another program measures for this runtime."""
    label: str
    program: str
    args: tuple = ()
    elsewhere: frozenset = frozenset()


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

# OpenMP set as its users set it for each pattern ([Threading-HPC] did the same).
OMP_TASK_EXPS = {"tasks_single", "tasks_parallel", "create_join_per_stream"}

# Why a runtime does not express an experiment (its program says "absent").
NOT_EXPRESSED = {
    "gomp": "OpenMP has no yield between tasks: `taskyield` may only run another task on top of the caller, or nothing",
    "llvm-omp": "as gomp",
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
TABLE_ONLY = {"feature_cost", "stack_touch", "second_stream", "yield_to_pair", "create_join_cold",
              "glt_cost_ult", "glt_cost_tasklet"}

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
    "gomp": "#e6550d", "llvm-omp": "#fd8d3c", "tbb": "#d62728", "go": "#17becf", "boost-context": "#8c564b",
}
