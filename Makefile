# The two entry points (see README.md). Each installs what a fresh Debian 12
# machine lacks, then builds with CMake + Ninja.
# Debian's interpreter: python3-matplotlib is installed for it.
PYTHON ?= /usr/bin/python3

.PHONY: all test bench bench-quick clean

all:
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build build/release

test:
	@scripts/deps.sh test
	@scripts/test-all.sh

bench:
	@scripts/deps.sh bench
	@$(PYTHON) bench/run.py

bench-quick:
	@scripts/deps.sh bench
	@$(PYTHON) bench/run.py --quick

clean:
	rm -rf build
