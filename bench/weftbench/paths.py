"""Where the suite reads and writes."""
import os

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
ROOT = os.path.dirname(BENCH)  # the source tree
BUILD = os.path.join(ROOT, "build", "bench")  # the default build directory
NOTES = os.path.join(BENCH, "notes")


def out_dirs(quick):
    """(results directory, report directory)."""
    if quick:
        return os.path.join(ROOT, "build", "bench-quick"), os.path.join(ROOT, "build", "bench-quick")
    return os.path.join(ROOT, "bench", "results"), os.path.join(ROOT, "bench", "report")


def rel(path):
    """`path` as the messages show it: relative to the source tree."""
    return os.path.relpath(path, ROOT)
