#!/bin/sh
# An entry that checks out (its key, size and checksum are right) but whose
# payload the driver refuses: the build must fall back to compiling, store
# a good entry again, and leak nothing (run against the ASan build).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS=suppressions=$here/../.ci/lsan.supp:print_suppressions=0
d=$(mktemp -d /tmp/xgpu-repro-refused-XXXXXX)
XGPU_CACHE_DIR=$d "$here/bin/swap_victim" 1 >/dev/null
e=$(ls "$d"/*.xkc)
python3 - "$e" <<'PY'
import hashlib, struct, sys
p = sys.argv[1]
key = open(p, "rb").read()[8:40]
payload = b"\x7fELF but not really a program binary" * 10
open(p, "wb").write(b"XGPUKC\x01\n" + key + struct.pack("<Q", len(payload)) +
                    hashlib.sha256(payload).digest() + payload)
PY
XGPU_LOG=debug XGPU_CACHE_DIR=$d "$here/bin/swap_victim" 2 2>&1 | grep -E "refused|stored|wrong|ERROR|leak" | cut -c1-160
rm -rf "$d"
