#!/bin/sh
# Builds the reproducers against the worktree's ASan build (build-r).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
b=$root/build-r
for f in "$@"; do
  gcc -std=c11 -g -fsanitize=address,undefined -Wall -Wextra -I"$root/runtime/include" \
    -I"$b/runtime/include" -I"$b/runtime" -o "$here/bin/${f%.c}" "$here/$f" -L"$b/lib" \
    -Wl,-rpath,"$b/lib" -lxgpu
done
