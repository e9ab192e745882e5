#!/bin/sh
# Checks that every relative link in the Markdown files resolves: the
# file or folder exists, and a #fragment names a heading of the target
# (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens,
# "-1", "-2" for repeated headings). Links to http(s) and mailto are not
# followed; links inside fenced code blocks are not links.
#
# usage: check_links.sh ROOT [FILE.md...]
#   Without FILEs: every Markdown file git tracks (or would add) under ROOT,
#   or, where git cannot tell, every *.md under ROOT outside build folders
#   and .git; tests/docs/fixtures, whose links are wrong on purpose, left out.
set -eu

if [ $# -lt 1 ]; then
    sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2
    exit 2
fi
root=$(cd "$1" && pwd)
shift
cd "$root"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_links.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

if [ $# -gt 0 ]; then
    for f in "$@"; do echo "$f"; done >"$tmp/files"
elif command -v git >/dev/null 2>&1 &&
    git -c safe.directory="$root" -c core.quotePath=false -C "$root" ls-files --cached \
        --others --exclude-standard -- '*.md' >"$tmp/all" 2>/dev/null &&
    [ -s "$tmp/all" ]; then
    grep -v '^tests/docs/fixtures/' "$tmp/all" | LC_ALL=C sort -u >"$tmp/files"
else
    find . -type d \( -name .git -o -name 'build*' -o -name .gpucheck -o -name .cache \) -prune -o \
        -name '*.md' -type f -print | sed 's|^\./||' | grep -v '^tests/docs/fixtures/' \
        >"$tmp/files"
fi

# The anchors of a Markdown file's headings, one per line.
anchors() {
    LC_ALL=C awk '
        /^[ \t]*(```|~~~)/ { fence = !fence; next }
        fence || !/^#+[ \t]/ { next }
        {
            h = $0
            sub(/^#+[ \t]+/, "", h)
            sub(/[ \t]+#*[ \t]*$/, "", h)
            h = tolower(h)
            gsub(/[^a-z0-9 _-]/, "", h)
            gsub(/ /, "-", h)
            if (h in seen) { seen[h]++; print h "-" seen[h] } else { seen[h] = 0; print h }
        }' "$1"
}

# Every link target of a Markdown file as "LINE TARGET", code blocks and
# inline code left out.
links() {
    LC_ALL=C awk '
        /^[ \t]*(```|~~~)/ { fence = !fence; next }
        fence { next }
        {
            line = $0
            gsub(/`[^`]*`/, "", line)
            while (match(line, /\]\([^) \t]*[) \t]/)) {
                print NR " " substr(line, RSTART + 2, RLENGTH - 3)
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$1"
}

status=0
checked=0
while read -r file; do
    dir=$(dirname "$file")
    links "$file" >"$tmp/links"
    while read -r line target; do
        case $target in
        http://* | https://* | mailto:*) continue ;;
        esac
        checked=$((checked + 1))
        path=${target%%#*}
        fragment=""
        case $target in *"#"*) fragment=${target#*#} ;; esac
        if [ -z "$path" ]; then
            dest=$file
        else
            dest=$dir/$path
        fi
        if [ ! -e "$dest" ]; then
            echo "FAIL: $file:$line: $target: $dest does not exist"
            status=1
            continue
        fi
        if [ -n "$fragment" ]; then
            case $dest in
            *.md)
                if ! anchors "$dest" | grep -qxF "$fragment"; then
                    echo "FAIL: $file:$line: $target: $dest has no heading with the anchor #$fragment"
                    status=1
                fi
                ;;
            esac
        fi
    done <"$tmp/links"
done <"$tmp/files"
if [ "$status" -eq 0 ]; then
    echo "ok: $checked relative links in $(wc -l <"$tmp/files" | tr -d ' ') Markdown files resolve"
fi
exit "$status"
