#!/bin/sh
# Checks that a command's --help and its documentation name the same
# options, both ways: an option --help names that a document does not
# list, and one a document lists that --help does not name, both fail.
#
# usage: check_help.sh [--md FILE] [--man FILE SECTION] [--other NAME]...
#                      NAME -- COMMAND [ARGUMENT...]
#
#   NAME          the command as its documents name it: "gpubench report"
#   --md FILE     a Markdown document; its list is the table that follows
#                 the line "<!-- help-check: NAME ... -->": the options in
#                 each row's first cell
#   --man FILE SECTION
#                 a man page; its list is the tag line after each .TP in
#                 the section ".SH SECTION" (up to the next .SH)
#   --other NAME  another command that --help mentions ("gpubench tune",
#                 "gpuinfo"): its synopsis lines, and options written right
#                 after its name, are not NAME's
#   COMMAND...    prints the help text (its exit status is not checked
#                 here: gpubench --help exits 0, a failing one prints no
#                 options and fails the comparison)
#
# An option is a word -x or --word-word. -h and --help are left out on
# both sides: every command takes them, and not every help text says so.
set -eu

md="" man="" man_section="" others=""
while [ $# -gt 0 ]; do
    case $1 in
    --md) md=$2; shift 2 ;;
    --man) man=$2; man_section=$3; shift 3 ;;
    --other) others="$others|$2"; shift 2 ;;
    --) echo "check_help.sh: NAME missing before --" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 3 ] || [ "$2" != "--" ]; then
    sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2
    exit 2
fi
name=$1
shift 2
if [ -z "$md" ] && [ -z "$man" ]; then
    echo "check_help.sh: $name: neither --md nor --man given: nothing to compare" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_help.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

# The option words of standard input, one per line, sorted, -h and --help
# left out.
options() {
    LC_ALL=C awk '{
        line = " " $0
        while (match(line, /[^A-Za-z0-9_-]--?[A-Za-z][A-Za-z0-9-]*/)) {
            word = substr(line, RSTART + 1, RLENGTH - 1)
            sub(/-+$/, "", word)
            if (word != "-h" && word != "--help") print word
            line = substr(line, RSTART + RLENGTH)
        }
    }' | LC_ALL=C sort -u
}

# --help, without what belongs to the other commands it mentions.
"$@" >"$tmp/help.txt" 2>&1 || true
LC_ALL=C awk -v others="${others#|}" '
    BEGIN { n = split(others, other, "|") }
    {
        t = $0
        sub(/^[ \t]*(usage:[ \t]*)?\(?/, "", t)
        for (i = 1; i <= n; i++) {
            if (index(t, other[i] " ") == 1 || index(t, other[i] ")") == 1 || t == other[i]) next
        }
        for (i = 1; i <= n; i++) {
            gsub(other[i] "( +--?[A-Za-z][A-Za-z0-9-]*)+", "", $0)
        }
        print
    }' "$tmp/help.txt" | options >"$tmp/help"
if [ ! -s "$tmp/help" ]; then
    echo "FAIL: $name: '$*' printed no options:"
    sed 's/^/    /' "$tmp/help.txt"
    exit 1
fi

status=0
# compare LABEL FILE: the option list in FILE against --help's.
compare() {
    if [ ! -s "$2" ]; then
        echo "FAIL: $name: $1 lists no options (see the header of $0 for where they are read)"
        status=1
        return
    fi
    LC_ALL=C comm -23 "$tmp/help" "$2" >"$tmp/missing"
    LC_ALL=C comm -13 "$tmp/help" "$2" >"$tmp/unknown"
    while read -r opt; do
        echo "FAIL: $name --help names $opt, which $1 does not list"
        status=1
    done <"$tmp/missing"
    while read -r opt; do
        echo "FAIL: $1 lists $opt for $name, which $name --help does not name"
        status=1
    done <"$tmp/unknown"
    if [ ! -s "$tmp/missing" ] && [ ! -s "$tmp/unknown" ]; then
        echo "ok: $name: $1 and --help name the same $(wc -l <"$2" | tr -d ' ') options"
    fi
}

if [ -n "$md" ]; then
    LC_ALL=C awk -v name="$name" '
        index($0, "<!-- help-check: " name " ") == 1 || $0 == "<!-- help-check: " name " -->" {
            on = 1; rows = 0; next
        }
        on && /^\|/ {
            rows++
            if (rows == 1 || $0 ~ /^\|[ :|-]*$/) next   # header and separator
            split($0, cell, "|")
            gsub(/`/, " ", cell[2])
            print cell[2]
            next
        }
        on && rows > 0 { exit }
    ' "$md" | options >"$tmp/md"
    compare "$md" "$tmp/md"
fi
if [ -n "$man" ]; then
    LC_ALL=C awk -v section="$man_section" '
        /^\.SH/ {
            title = $0
            sub(/^\.SH[ \t]+/, "", title)
            gsub(/"/, "", title)
            on = (title == section)
            next
        }
        on && /^\.TP/ { tag = 1; next }
        on && tag {
            tag = 0
            line = $0
            sub(/^\.[A-Z]+[ \t]*/, " ", line)   # .B, .BI, .BR
            gsub(/\\-/, "-", line)
            gsub(/\\f[BIRP]/, " ", line)
            gsub(/"/, " ", line)
            print line
        }
    ' "$man" | options >"$tmp/man"
    compare "$man (section $man_section)" "$tmp/man"
fi
exit "$status"
