#!/usr/bin/env bash
# check_map.sh [MAP] [REFLIB]
#
# Checks that the version script src/omp/libgomp.map describes exactly the
# ABI of a reference libgomp.so.1 (default: the system one): it builds a stub
# shared library that defines every name of the map (the names listed in two
# nodes -- the lock routines -- get a compat and a default version with
# .symver, as the real implementation must), links it with the map, and
# compares
#   - the set of exported FUNC symbols as name@version / name@@version,
#   - the version nodes and their parents (readelf -V),
# with the reference.  Prints PASS or the differences (exit 1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
map=${1:-$here/../../src/omp/libgomp.map}
ref=${2:-/usr/lib/x86_64-linux-gnu/libgomp.so.1}
work=$(mktemp -d "${TMPDIR:-/tmp}/omp-map.XXXXXX")
trap 'rm -rf "$work"' EXIT

# node name pairs from the script (comments removed)
sed 's/#.*//' "$map" | tr -s ' \t\n' ' ' | sed 's/}[^;]*;/}\n/g' |
  sed -n 's/^ *\([A-Za-z0-9_.]*\) *{ *global: *\(.*\)}$/\1 \2/p' |
  while read -r node rest; do
    rest=${rest%%local:*}
    for s in ${rest//;/ }; do echo "$node $s"; done
  done >"$work/pairs"

awk '{n[$2]++; v[$2]=v[$2] " " $1}
     END {
       for (s in n) {
         if (n[s] == 1) { printf "void %s(void) {}\n", s; continue }
         split(v[s], a, " "); k = 0
         for (i in a) {
           k++; fn = s "__v" k
           printf "void %s(void) {}\n", fn
           # the last-listed node (newest) is the default version
           printf "__asm__(\".symver %s, %s%s%s\");\n", fn, s, (a[i] == a[length(a)] ? "@@" : "@"), a[i]
         }
       }
     }' "$work/pairs" >"$work/stub.c"

gcc -shared -fPIC -o "$work/stub.so" "$work/stub.c" -Wl,--version-script="$map" -Wl,-soname,libgomp.so.1

syms() {
  readelf --dyn-syms -W "$1" | awk '$4 == "FUNC" && $7 != "UND" {print $8}' | sort
}
verdefs() {
  readelf -V -W "$1" | sed -n '/Version definition/,/Version needs/p' |
    awk '/Name:/ {if (cur) print cur, par; cur = $NF; par = "-"} /Parent 1:/ {par = $NF} END {if (cur) print cur, par}' |
    grep -v -e '^libgomp.so.1 ' | sort
}
rc=0
if ! diff <(syms "$ref") <(syms "$work/stub.so") >"$work/d1"; then
  echo "FAIL: exported symbols differ (< reference, > map):"; cat "$work/d1"; rc=1
fi
if ! diff <(verdefs "$ref") <(verdefs "$work/stub.so") >"$work/d2"; then
  echo "FAIL: version nodes differ (< reference, > map):"; cat "$work/d2"; rc=1
fi
if [ $rc = 0 ]; then
  echo "PASS map: $(syms "$ref" | wc -l) function symbols in $(verdefs "$ref" | wc -l) version nodes match $ref"
fi
exit $rc
