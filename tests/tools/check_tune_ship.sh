#!/bin/sh
# scripts/tune-ship.py on made-up databases: a complete search's record
# replaces the shipped one of its device, kernel, dtype and class and keeps
# only verified runners-up; an incomplete search and a record without a
# winner are not shipped; shipped records made with another kernel source
# than the new records' are dropped, of any device, while a kernel source
# the new file does not touch keeps its records; a new file that mixes two
# sources of one kernel is refused, and shipped.json is left as it was.
# Usage: check_tune_ship.sh SCRIPTS_DIR. Exit 77 without python3.
set -u
script=$1/tune-ship.py
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/xgpu-tune-ship.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

# rec KERNEL DTYPE CLASS DEVICE SOURCE COMPLETE BEST [STATUS-OF-BEST]
rec() {
    printf '{"kernel": "%s", "dtype": "%s", "class": "%s", "size": 1024, "backend": "opencl",
 "vendor": "V", "type": "cpu", "device": "%s", "arch": "a", "compute_units": 2,
 "driver": "1", "compiler": "C", "source": "%s", "xgpu": "0.6.0", "complete": %s,
 "best": "%s", "rate": 2.0, "unit": "GB/s", "tried": [
  {"params": "%s", "rate": 2.0, "status": "%s"},
  {"params": "slow", "rate": 0, "status": "slower"},
  {"params": "other", "rate": 1.0, "status": "ok"}]}' \
        "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$7" "${8:-ok}"
}
db() { printf '{"schema": "xgpu.tune/1", "records": [%s]}\n' "$1"; }

db "$(rec sum f32 large devA oldsrc true old-best),
$(rec sum f32 small devB oldsrc true b-best),
$(rec stream f32 large devA streamsrc true s-best),
$(rec gemm f32 large devA gemmold true g-best)" >"$dir/shipped.json"
db "$(rec sum f32 large devA newsrc true new-best),
$(rec argmax f64 small devA newsrc false half-done),
$(rec gemm f32 large devA gemmnew true "")" >"$dir/new.json"

out=$(python3 "$script" "$dir/new.json" "$dir/shipped.json" 2>&1) || no "tune-ship failed: $out"
echo "$out"
python3 - "$dir/shipped.json" <<'EOF' || fail=1
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
got = sorted((r["kernel"], r["class"], r["device"], r["best"]) for r in recs)
want = sorted([("sum", "large", "devA", "new-best"), ("stream", "large", "devA", "s-best"),
               ("gemm", "large", "devA", "g-best")])
if got != want:
    sys.exit(f"FAIL: shipped records {got}, expected {want}")
new = next(r for r in recs if r["best"] == "new-best")
statuses = [t["status"] for t in new["tried"]]
if statuses != ["ok", "ok"]:
    sys.exit(f"FAIL: the merged record keeps {statuses}, expected its two verified runs")
EOF
echo "$out" | grep -q "dropped sum f32 small of devB: kernel source oldsrc" ||
    no "the stale record of another device is not reported as dropped"
echo "$out" | grep -q "1 record(s) merged; 3 in" || no "the summary line is wrong"

cp "$dir/shipped.json" "$dir/before.json"
db "$(rec sum f32 large devA src1 true x), $(rec minmax f32 large devA src2 true y)" >"$dir/mixed.json"
if out=$(python3 "$script" "$dir/mixed.json" "$dir/shipped.json" 2>&1); then
    no "a new file with two reduce sources was accepted"
fi
echo "$out" | grep -q "reduce records of two kernel sources (src1 and src2)" ||
    no "the refusal does not name the two sources: $out"
cmp -s "$dir/before.json" "$dir/shipped.json" || no "a refused merge changed shipped.json"

[ "$fail" = 0 ] && echo "tune-ship: all checks passed"
exit "$fail"
