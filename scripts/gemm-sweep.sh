#!/bin/bash
# Sweeps XGPU_GEMM_PARAMS for f32 GEMM on one device: for each setting, one
# `gpubench -b gemm --dtype f32` run at size N (xgpu's kernel beside the
# vendor BLAS on the same buffers, verified), then a table sorted by rate.
# A setting the device cannot run is listed with its error, not skipped.
# Usage: scripts/gemm-sweep.sh [selector] [N] [setting...]
#   selector  default cuda:0; N default 4096; settings default: the list
#             below (tile_m,tile_n,tile_k,work_m,work_n,vector_width).
# Environment: GEMM_SWEEP_GPUBENCH (the gpubench to run, default
# build-gpu/bin/gpubench), GEMM_SWEEP_CSV (where the rows go, default
# $OUT/gemm-sweep.csv or build-gpu/gemm-sweep.csv).
# Exit status: 0 when the sweep ran (even if some settings failed), 2 when
# gpubench is missing or N is not a whole number.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
sel=${1:-cuda:0}
n=${2:-4096}
shift $(($# < 2 ? $# : 2))
bench=${GEMM_SWEEP_GPUBENCH:-$root/build-gpu/bin/gpubench}
out=${GEMM_SWEEP_CSV:-${OUT:-$root/build-gpu}/gemm-sweep.csv}
if [ ! -x "$bench" ]; then
    echo "gemm-sweep: $bench not found: build first (scripts/gpu-check.sh builds it)" >&2
    exit 2
fi
case $n in
'' | *[!0-9]*)
    echo "gemm-sweep: N '$n' is not a whole number" >&2
    exit 2
    ;;
esac
settings=("$@")
if [ ${#settings[@]} -eq 0 ]; then
    settings=(
        default
        128,128,16,8,8,4 128,128,16,8,8,2 128,128,16,8,8,1
        128,128,32,8,8,4 128,128,8,8,8,4
        128,64,16,8,4,4 64,128,16,4,8,4 64,64,16,4,4,4 64,64,32,4,4,4
        128,128,16,16,8,4 128,128,16,8,16,4 128,128,16,4,8,4
        64,128,32,8,8,4 128,256,16,8,16,4 256,128,16,16,8,4
    )
fi
mkdir -p "$(dirname "$out")"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "setting,xgpu_gflops,vendor,vendor_gflops,ratio,verified,note" >"$out"
for s in "${settings[@]}"; do
    if [ "$s" = default ]; then
        env -u XGPU_GEMM_PARAMS "$bench" -d "$sel" -b gemm --dtype f32 --size "$n" --csv "$tmp" \
            >/dev/null 2>"$tmp.err"
    else
        XGPU_GEMM_PARAMS=$s "$bench" -d "$sel" -b gemm --dtype f32 --size "$n" --csv "$tmp" \
            >/dev/null 2>"$tmp.err"
    fi
    # Rows of this device: xgpu's and the vendor's (not OpenBLAS on the host).
    # Columns of gpubench's CSV: 3 impl, 15 rate, 19 verified, 21- note.
    awk -F, -v s="$s" '
        NR > 1 && $2 == "\"gemm\"" && $3 != "\"openblas\"" {
            impl = $3; gsub(/"/, "", impl)
            note = $21; for (i = 22; i <= NF; i++) note = note ";" $i
            gsub(/"/, "", note)
            if (impl == "xgpu") { x = $15; xok = $19; xnote = note }
            else { v = impl; vr = $15 }
        }
        END {
            if (x == "" && v == "") exit
            ratio = (x > 0 && vr > 0) ? sprintf("%.3f", x / vr) : ""
            printf "\"%s\",%s,%s,%s,%s,%s,\"%s\"\n", s, x, v, vr, ratio, xok, xnote
        }' "$tmp" >>"$out"
    if [ ! -s "$tmp" ]; then
        echo "\"$s\",,,,,false,$(tr '\n,' ' ;' <"$tmp.err" | cut -c1-200)" >>"$out"
    fi
    : >"$tmp"
done
rm -f "$tmp.err"
echo "gemm-sweep: f32 ${n}^3 on $sel, XGPU_GEMM_PARAMS settings by rate (rows in $out)"
printf '%-20s %12s %12s %7s  %s\n' setting "xgpu GF/s" "vendor GF/s" ratio verified
# The setting holds commas: it is everything before the last six fields.
tail -n +2 "$out" | tr -d '"' |
    awk -F, '{
        s = $1; for (i = 2; i <= NF - 6; i++) s = s "," $i
        printf "%s\t%s\t%s\t%s\t%s\t%s\n", s, $(NF-5), $(NF-3), $(NF-2), $(NF-1), $NF }' |
    sort -t"$(printf '\t')" -k2,2 -g -r |
    awk -F'\t' '{ printf "%-20s %12s %12s %7s  %s%s\n", $1, $2, $3, $4, $5, ($5 != "true" ? "  " $6 : "") }'
