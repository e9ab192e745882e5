#!/bin/sh
# Times gpuinfo --doctor with three made-up Python environments (a venv, a
# conda prefix and a user site) of 200 distributions each (torch, nine of
# NVIDIA's wheels, 190 others), against the same run with no environment:
# the median of RUNS runs of each, in milliseconds, and the frameworks
# section of the first. gpuinfo's target is 0.2 s for the whole doctor.
#
# usage: scripts/doctor-frameworks-time.sh [BUILD_DIR [RUNS]]
#        (default: build 31; the backends are what the machine has)
set -eu

build=${1:-build}
runs=${2:-31}
gpuinfo=$build/bin/gpuinfo
[ -x "$gpuinfo" ] || { echo "$0: no $gpuinfo: build it first" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/doctor-frameworks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

# dist SITE STEM NAME VERSION: a distribution's METADATA.
dist() {
    mkdir -p "$1/$2.dist-info"
    printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n' "$3" "$4" \
        >"$1/$2.dist-info/METADATA"
}

for site in "$tmp/venv/lib/python3.12/site-packages" \
            "$tmp/conda/lib/python3.11/site-packages" \
            "$tmp/home/.local/lib/python3.12/site-packages"; do
    mkdir -p "$site/torch"
    printf "__version__ = '2.8.0+cu128'\ncuda = '12.8'\nhip = None\n" >"$site/torch/version.py"
    dist "$site" torch-2.8.0+cu128 torch 2.8.0+cu128
    for c in cuda_runtime cudnn cublas nccl cuda_nvrtc cufft cusparse curand nvjitlink; do
        dist "$site" "nvidia_${c}_cu12-12.8.1" "nvidia-$(echo "$c" | tr _ -)-cu12" 12.8.1
    done
    i=0
    while [ $i -lt 190 ]; do
        dist "$site" "package$i-1.0" "package$i" 1.0
        mkdir -p "$site/package$i"
        : >"$site/package$i/__init__.py"
        i=$((i + 1))
    done
done
mkdir -p "$tmp/empty"

# median_ms VIRTUAL_ENV CONDA_PREFIX HOME: RUNS runs of the doctor.
median_ms() {
    n=0
    : >"$tmp/times"
    while [ $n -lt "$runs" ]; do
        t0=$(date +%s%N)
        env PATH=/usr/bin:/bin VIRTUAL_ENV="$1" CONDA_PREFIX="$2" HOME="$3" \
            "$gpuinfo" --doctor >"$tmp/out" 2>/dev/null || true
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000)) >>"$tmp/times"
        n=$((n + 1))
    done
    sort -n "$tmp/times" | awk '{ t[NR] = $1 } END { printf "%.1f", t[int((NR + 1) / 2)] / 1000 }'
}

with=$(median_ms "$tmp/venv" "$tmp/conda" "$tmp/home")
sed -n '/^frameworks/,/^kernel cache/p' "$tmp/out" | sed '$d' | head -20
without=$(median_ms "" "" "$tmp/empty")
echo "gpuinfo --doctor, median of $runs: ${with} ms with 3 environments x 200 distributions," \
     "${without} ms without them"
