#!/bin/sh
# weft's code reaches its __thread variables only through WEFT_TLS and
# WEFT_TLS_ADDR (src/arch/tls.h): a thread pointer the compiler read itself
# may be kept across a call after which the ULT runs on another OS thread.
# So, in the machine code of each library:
#   x86-64:  %fs is used only as the segment of one load or store
#            (`%fs:(REG)`, `%fs:0x0(REG)`: REG holds the variable's offset,
#            the thread pointer is that of the instant) or in the
#            `add %fs:0x0,REG` of WEFT_TLS_ADDR; it is never read into a
#            register otherwise;
#   aarch64: every read of TPIDR_EL0 is WEFT_TLS's, followed by its add.
# Code built with the portable accessors (libweft's in the ucontext build)
# has neither. And in the sources, no &WEFT_TLS(v) (an address the compiler
# computes, and may keep, on x86-64): WEFT_TLS_ADDR(v) is the address.
# Usage: check_tls.sh OBJDUMP SRCDIR LIB...
set -eu
objdump_tool=$1
src=$2
shift 2
bad=0
if [ ! -d "$src" ]; then
    echo "$src: no such source directory"
    exit 1
fi
if grep -rnE '(^|[^&])&[[:space:]]*\(?[[:space:]]*WEFT_TLS\(' "$src" --include='*.c' --include='*.h' --exclude=tls.h; then
    echo "$src: the address of WEFT_TLS(v) taken above; use WEFT_TLS_ADDR(v)"
    bad=1
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for lib in "$@"; do
    # No disassembly (a missing tool or file) must not pass as a clean one.
    if ! "$objdump_tool" -d --no-show-raw-insn "$lib" >"$tmp" || ! grep -q '^[0-9a-f]* <' "$tmp"; then
        echo "$lib: could not disassemble it with $objdump_tool"
        bad=1
        continue
    fi
    out=$(awk '
        /^[0-9a-f]+ <.*>:$/ { fn = $2; next }
        after_mrs { if ($2 != "add") print fn " " prev; after_mrs = 0 }
        /tpidr_el0/ { after_mrs = 1; prev = $0 }
        /%fs/ && !/add +%fs:0x0,%[a-z0-9]+$/ && !/%fs:(0x[0-9a-f]+)?\(%[a-z0-9]+\)/ { print fn " " $0 }
    ' "$tmp")
    if [ -n "$out" ]; then
        echo "$lib: the thread pointer used outside WEFT_TLS:"
        echo "$out"
        bad=1
    else
        echo "$lib: thread-local variables reached through WEFT_TLS only"
    fi
done
exit $bad
