#!/bin/bash
# The reductions with XGPU_REDUCE_PARAMS set to each of PARAMS in turn
# ("builtin": unset), ROUNDS rounds; each line gives every row's GB/s and,
# in brackets, its ratio to the device-to-device copy of the same gpubench
# run (the copy runs in the reductions' rounds). clpeak is kept off PATH
# (it takes 7-20 s a run); pocl still needs the linker there. An empty
# tuning database: the built-in parameters, as a first run sees them.
# Usage: BIN=build/bin run.sh ROUNDS SIZE_MIB DTYPES PARAMS...
# (T: seconds per case, default 0.3; for Intel's runtime, source the
# environment that registers it first.)
set -u
rounds=$1 size=$2 dt=$3
shift 3
bin=$(mktemp -d)
ln -s "$(command -v ld)" "$bin/ld"
export XGPU_TUNE_DB=$bin/empty-tune.json
for r in $(seq "$rounds"); do
    for p in "$@"; do
        if [ "$p" = builtin ]; then unset XGPU_REDUCE_PARAMS; else export XGPU_REDUCE_PARAMS=$p; fi
        PATH=$bin "$BIN/gpubench" -b reduce --dtype "$dt" --size "$size" --time "${T:-0.3}" 2>/dev/null |
            awk -v p="$p" -v r="$r" '$1 == "reduce" && $2 == "xgpu" {
                if ($5 == "d2d") c = $9
                else { k = $4 ($5 ~ /^[0-9]/ ? "-sum" : "-" $5); v[k] = ($5 ~ /^[0-9]/ ? $7 : $8); o[++n] = k } }
                END { printf "r%d %s copy %.1f |", r, p, c
                      for (i = 1; i <= n; i++) printf " %s %.1f (%.2f)", o[i], v[o[i]], c ? v[o[i]] / c : 0
                      printf "\n" }'
    done
done
rm -rf "$bin"
