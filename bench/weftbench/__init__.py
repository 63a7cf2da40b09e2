"""weft's benchmark driver, by concern:

  registry  what is measured: programs, runtimes, experiments, peers, targets
  paths     where things are: the source tree, build and output directories
  points    helpers on measured points (labels, number format, medians)
  machine   the machine, the commit and the peers' package versions
  runner    build, run the programs, merge rounds, write latest.json
  notes     measured prose kept in bench/notes/, with its provenance
  plots     one PNG per experiment (matplotlib)
  report    the Markdown report
  cli       the command line of bench/run.py

Standard library only, plus matplotlib for the plots.
"""
