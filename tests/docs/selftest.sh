#!/bin/sh
# The checkers must fail when they should: each is run here on fixtures
# with known mistakes, and on fixtures without, and its verdict and its
# messages are compared with what it must say.
# usage: selftest.sh TESTS_DOCS_DIR CC INCLUDE_DIR (the folder of xgpu.h)
set -eu
here=$1 cc=$2 include=$3
fx=$here/fixtures
out=$(mktemp "${TMPDIR:-/tmp}/selftest.XXXXXX")
trap 'rm -f "$out"' EXIT HUP INT TERM
status=0

# expect RC PATTERN... -- COMMAND...: COMMAND exits RC and prints every
# PATTERN (a fixed string), one per line.
expect() {
    want=$1
    shift
    patterns=""
    while [ "$1" != "--" ]; do
        patterns="$patterns$1
"
        shift
    done
    shift
    rc=0
    "$@" >"$out" 2>&1 || rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: exit status $rc, not $want: $*"
        sed 's/^/    /' "$out"
        status=1
        return
    fi
    printf '%s' "$patterns" | while IFS= read -r p; do
        if ! grep -qF -- "$p" "$out"; then
            echo "FAIL: '$p' not said by: $*"
            sed 's/^/    /' "$out"
            exit 1
        fi
    done || status=1
}

# The Markdown list misses --beta and adds --delta; the man page agrees
# with the help text; "tool other --gamma" is another command's.
expect 1 "FAIL: tool --help names --beta, which $fx/tool.md does not list" \
    "FAIL: $fx/tool.md lists --delta for tool, which tool --help does not name" \
    "ok: tool: $fx/tool.1 (section OPTIONS) and --help name the same 3 options" -- \
    sh "$here/check_help.sh" --md "$fx/tool.md" --man "$fx/tool.1" OPTIONS \
    --other "tool other" tool -- cat "$fx/help.txt"
if grep -q -e "--gamma" -e "--elsewhere" -e "--epsilon" -e "--not-an-option" "$out"; then
    echo "FAIL: an option outside the lists was counted:"
    sed 's/^/    /' "$out"
    status=1
fi
# A section that does not exist lists nothing: that fails too.
expect 1 "lists no options" -- \
    sh "$here/check_help.sh" --man "$fx/tool.1" "NO SUCH SECTION" tool -- cat "$fx/help.txt"

expect 1 "broken.md:3: no-such-file.md: ./no-such-file.md does not exist" \
    "broken.md:3: tool.md#no-such-heading: ./tool.md has no heading with the anchor #no-such-heading" -- \
    sh "$here/check_links.sh" "$fx" broken.md
expect 0 "ok: 3 relative links in 1 Markdown files resolve" -- \
    sh "$here/check_links.sh" "$fx" tool.md

expect 1 "too few arguments to function" -- \
    sh "$here/check_snippet.sh" "$fx/snippet.md" Wrong "$cc" "$include"

if command -v git >/dev/null 2>&1; then
    repo=$(mktemp -d "${TMPDIR:-/tmp}/selftest-repo.XXXXXX")
    git init -q "$repo"
    mkdir "$repo/docs"
    : >"$repo/README.md"
    : >"$repo/docs/x.md"
    : >"$repo/stray.json"
    git -C "$repo" add README.md docs/x.md stray.json
    expect 1 "FAIL: 'stray.json' is at the top of the repository" -- \
        sh "$here/check_root.sh" "$repo" "$here/root-entries.txt"
    git -C "$repo" rm -q --cached stray.json
    expect 0 "ok: the 2 entries at the top of $repo are on the list" -- \
        sh "$here/check_root.sh" "$repo" "$here/root-entries.txt"
    rm -rf "$repo"
else
    echo "git is not installed: check_root.sh is not tried"
fi
plain=$(mktemp -d "${TMPDIR:-/tmp}/selftest-plain.XXXXXX")
expect 77 "SKIP:" -- sh "$here/check_root.sh" "$plain" "$here/root-entries.txt"
rmdir "$plain"

if [ "$status" -eq 0 ]; then
    echo "ok: the checkers fail on every planted mistake and pass without them"
fi
exit "$status"
