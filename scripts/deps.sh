#!/usr/bin/env bash
# Install the Debian packages a target needs, if any are missing.
# Usage: scripts/deps.sh test|bench
set -euo pipefail

common=(cmake ninja-build gcc g++ gfortran make pkg-config libhwloc-dev hwloc valgrind)
# The benchmark peers: each installed on its own, so that one that cannot be
# had leaves the others (bench/run.py reports it absent).
peers=(libboost-context-dev libomp-dev clang libtbb-dev golang-go liblapacke-dev libblas-dev rapidjson-dev)
case "${1:-}" in
  # libhwloc-plugins: most machines have it (libhwloc recommends it);
  # test_hwloc_plugins checks that weft keeps it out of its programs.
  test)  want=("${common[@]}" libhwloc-plugins gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user); peers=() ;;
  bench) want=("${common[@]}" python3 python3-matplotlib) ;;
  *) echo "usage: $0 test|bench" >&2; exit 2 ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep "install ok installed" >/dev/null; }
missing=() missing_peers=()
for p in "${want[@]}"; do installed "$p" || missing+=("$p"); done
for p in "${peers[@]}"; do installed "$p" || missing_peers+=("$p"); done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_peers[@]} -eq 0 ] && exit 0

echo "weft: installing missing Debian packages: ${missing[*]} ${missing_peers[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "weft: run as root, or install them first: apt-get install -y ${missing[*]} ${missing_peers[*]}" >&2
    [ ${#missing[@]} -eq 0 ] && exit 0 || exit 1
  fi
else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
[ ${#missing[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for p in "${missing_peers[@]}"; do
  $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null ||
    echo "weft: peer package $p could not be installed; its runtime is reported absent" >&2
done
