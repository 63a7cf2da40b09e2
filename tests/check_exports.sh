#!/bin/sh
# The dynamic symbols libweft.so defines must be exactly the functions
# public headers declare with WEFT_API: no internal leaks out, no public call
# is missing. Usage: check_exports.sh NM LIBWEFT_SO HEADER...
set -eu
nm_tool=$1 lib=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nm_tool" -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^_' | sort -u >"$tmp/exported"
sed -n 's/^WEFT_API .*[ *]\(weft_[a-z0-9_]*\)(.*/\1/p' "$@" | sort -u >"$tmp/declared"
if ! cmp -s "$tmp/exported" "$tmp/declared"; then
    echo "exported but not declared with WEFT_API (<) / declared but not exported (>):"
    diff "$tmp/exported" "$tmp/declared" || true
    exit 1
fi
echo "exports: $(wc -l <"$tmp/exported") symbols, exactly the WEFT_API functions of $*"
