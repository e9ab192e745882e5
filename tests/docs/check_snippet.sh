#!/bin/sh
# Compiles the first C code block under a heading of a Markdown file
# against xgpu.h, as C11 with the project's warnings as errors, so that
# the code a reader copies stays correct as the API changes. Syntax and
# types only: nothing is linked or run (the block need not have main).
#
# usage: check_snippet.sh FILE.md HEADING CC INCLUDE_DIR
#   HEADING  the heading's text, without the #s: "A first program"
set -eu

if [ $# -ne 4 ]; then
    sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2
    exit 2
fi
md=$1 heading=$2 cc=$3 include=$4

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_snippet.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

LC_ALL=C awk -v heading="$heading" '
    /^#+[ \t]/ { t = $0; sub(/^#+[ \t]+/, "", t); under = (t == heading); next }
    under && !code && /^```c[ \t]*$/ { code = 1; next }
    code && /^```/ { exit }
    code { print }
' "$md" >"$tmp/snippet.c"
if [ ! -s "$tmp/snippet.c" ]; then
    echo "FAIL: $md has no \`\`\`c block under the heading \"$heading\""
    exit 1
fi
if ! "$cc" -std=c11 -fsyntax-only -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
    -Werror -Wno-unused-function -I"$include" "$tmp/snippet.c" >"$tmp/log" 2>&1; then
    echo "FAIL: the C code under \"$heading\" in $md does not compile against $include/xgpu.h:"
    sed "s|$tmp/snippet.c|$md (the block under \"$heading\")|" "$tmp/log"
    exit 1
fi
echo "ok: the C code under \"$heading\" in $md ($(wc -l <"$tmp/snippet.c" | tr -d ' ') lines) compiles against $include/xgpu.h"
