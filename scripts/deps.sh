#!/usr/bin/env bash
# Install the Debian packages a target needs, if any are missing.
# Usage: scripts/deps.sh test|bench
set -euo pipefail

common=(cmake ninja-build gcc g++ make pkg-config libhwloc-dev hwloc valgrind)
case "${1:-}" in
  test)  want=("${common[@]}" gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user) ;;
  bench) want=("${common[@]}" libboost-context-dev python3 python3-matplotlib) ;;
  *) echo "usage: $0 test|bench" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "weft: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "weft: run as root, or install them first: apt-get install -y ${missing[*]}" >&2; exit 1
  fi
else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
