#!/usr/bin/env python3
"""Merges tuning records (a database gpubench tune wrote) into the shipped
entries: records of complete searches with a verified winner replace those
of the same device, kernel, dtype and class; each keeps its five best
runners-up. Shipped records made with another kernel source than the new
records' (any device) are dropped: no lookup can use them. Usage:
    scripts/tune-ship.py NEW.json runtime/tune/shipped.json"""
import json
import sys

SCHEMA = "xgpu.tune/1"
KEY = ("kernel", "dtype", "class", "backend", "device", "arch", "compute_units")


def source_of(kernel):
    """The kernel source a record's hash is of: the reductions share one."""
    return kernel if kernel in ("gemm", "stream") else "reduce"


def load(path):
    with open(path, encoding="utf-8") as f:
        db = json.load(f)
    if db.get("schema") != SCHEMA or not isinstance(db.get("records"), list):
        sys.exit(f"{path}: not a {SCHEMA} database")
    return db


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    new, shipped = load(sys.argv[1]), load(sys.argv[2])
    records = {tuple(r[k] for k in KEY): r for r in shipped["records"]}
    added = 0
    sources = {}
    for r in new["records"]:
        if not r.get("best") or not r.get("complete"):
            continue
        src = source_of(r["kernel"])
        if sources.setdefault(src, r["source"]) != r["source"]:
            sys.exit(f"{sys.argv[1]}: {src} records of two kernel sources ({sources[src]} and "
                     f"{r['source']}): tune into a new file with one build")
        ok = sorted((t for t in r["tried"] if t["status"] == "ok"), key=lambda t: -t["rate"])
        r = dict(r, tried=ok[:6])
        records[tuple(r[k] for k in KEY)] = r
        added += 1
    dropped = [k for k, r in records.items()
               if sources.get(source_of(r["kernel"]), r["source"]) != r["source"]]
    for k in dropped:
        r = records.pop(k)
        print(f"dropped {r['kernel']} {r['dtype']} {r['class']} of {r['device']}: "
              f"kernel source {r['source']}, the new records' is {sources[source_of(r['kernel'])]}")
    out = {"schema": SCHEMA, "records": sorted(records.values(), key=lambda r: [str(r[k]) for k in KEY])}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    load(sys.argv[2])
    print(f"{added} record(s) merged; {len(out['records'])} in {sys.argv[2]}")


if __name__ == "__main__":
    main()
