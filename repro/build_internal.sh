#!/bin/sh
# Builds a reproducer that calls xgpu's internal functions, linked with the
# object files of the worktree's ASan build (build-r), as tests/unit does.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
objs=$(find "$root"/build-r/runtime/CMakeFiles/xgpu_objects.dir -name "*.o")
for f in "$@"; do
  gcc -std=c11 -g -fsanitize=address,undefined -Wall -Wextra -I"$root/runtime/src" \
    -I"$root/runtime/include" -I"$root/build-r/runtime/include" -o "$here/bin/${f%.c}" \
    "$here/$f" $objs -ldl -lpthread -lm
done
