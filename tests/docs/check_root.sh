#!/bin/sh
# Fails on a file or folder at the top of the repository that git tracks
# and the allow-list does not name: report outputs, logs or downloads
# committed by mistake. Untracked files are not looked at (a build folder
# inside the checkout is fine). Skips, saying why (exit status 77), where
# git is missing or ROOT is no git checkout (a release archive).
#
# usage: check_root.sh ROOT ALLOW_LIST
#   ALLOW_LIST  one entry a line; '#' starts a comment
set -eu

if [ $# -ne 2 ]; then
    sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2
    exit 2
fi
root=$1 allow=$2

if ! command -v git >/dev/null 2>&1; then
    echo "SKIP: git is not installed, so the files at the top of $root are not checked"
    exit 77
fi
# safe.directory: a checkout owned by another user (a CI container) is
# still read, not refused as "dubious".
if ! top=$(git -c safe.directory="$root" -c core.quotePath=false -C "$root" ls-files 2>&1); then
    echo "SKIP: $root is not a git checkout, so its top level is not checked ($top)"
    exit 77
fi
if [ -z "$top" ]; then
    echo "SKIP: git tracks no file in $root, so its top level is not checked"
    exit 77
fi

status=0
entries=$(printf '%s\n' "$top" | sed 's|/.*||' | LC_ALL=C sort -u)
allowed=$(sed 's/#.*//; s/[ \t]*$//; /^$/d' "$allow")
if [ -z "$allowed" ]; then
    echo "FAIL: $allow names nothing"
    exit 1
fi
unexpected=$(printf '%s\n' "$entries" | LC_ALL=C grep -vxF -e "$allowed" || true)
if [ -n "$unexpected" ]; then
    printf '%s\n' "$unexpected" | while IFS= read -r entry; do
        echo "FAIL: '$entry' is at the top of the repository and not on $allow:" \
             "git rm it if it was committed by mistake, or add it to the list, saying why"
    done
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "ok: the $(printf '%s\n' "$entries" | wc -l | tr -d ' ') entries at the top of $root are on the list"
fi
exit "$status"
