#!/usr/bin/env python3
"""Build and run weft's benchmark suite and its peers, then write the
machine-readable results and the report (`--help` for the options).

  make bench        full run: bench/results/latest.json, bench/report/
  make bench-quick  fewer repetitions, same experiments: build/bench-quick/
  bench/run.py --report-only   the report again from the saved numbers

The work is done by the package beside this file, bench/weftbench/: what
is measured is its registry.py, measured prose lives in bench/notes/.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from weftbench.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
