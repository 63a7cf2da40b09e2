"""Build and run weft's benchmark suite and its peers, then write the
machine-readable results and the report.

  make bench        full run: bench/results/latest.json, bench/report/
  make bench-quick  fewer repetitions, same experiments: build/bench-quick/
  bench/run.py --report-only   the report again from the saved numbers

Each benchmark program prints one JSON object per measured point (see
bench/bench_common.h). This script adds the machine description, writes
the JSON file, one PNG plot per experiment and a Markdown report.
"""
import argparse
import os

from . import runner
from .paths import BUILD, ROOT, rel
from .report import write_report


def rewrite_report(quick):
    """The report's text changed, not the measurements: the same numbers
    (and the commit they were measured at) in the new words."""
    write_report(runner.load(quick), quick, saved=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, same experiments")
    ap.add_argument("--streams", type=int, default=2, help="largest stream count (powers of two up to it)")
    ap.add_argument("--report-only", action="store_true",
                    help="measure nothing: write the plots and report again from the saved latest.json")
    ap.add_argument("--build-dir", default=BUILD,
                    help=f"where CMake builds the programs (default {rel(BUILD)}; relative to the source tree)")
    args = ap.parse_args(argv)
    if args.report_only:
        return rewrite_report(args.quick)
    build_dir = os.path.join(ROOT, args.build_dir)
    doc = runner.measure(build_dir, args.quick, args.streams)
    runner.save(doc, args.quick)
    write_report(doc, args.quick)
