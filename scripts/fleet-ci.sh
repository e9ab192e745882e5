#!/bin/bash
# gpubench under real launchers on this one machine: a single-node Slurm
# (munged, slurmctld and slurmd started here with a minimal configuration)
# runs `srun -n 2 gpubench`, Open MPI's mpirun runs `mpirun -n 2 gpubench`,
# and each pair of rank files is merged with `gpubench report`.
# Usage: scripts/fleet-ci.sh BUILD_DIR   (BUILD_DIR/bin/gpubench built, with
# an OpenCL device such as pocl's CPU device). Needs root (or sudo) for apt
# and for the daemons. Safe to run again: daemons left by an earlier run are
# stopped, the state folder is made anew, an existing munge key is kept.
# Every wait is bounded; a failure says what failed and shows the daemons'
# logs.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: scripts/fleet-ci.sh BUILD_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
gpubench=$build/bin/gpubench
if [ ! -x "$gpubench" ]; then
    echo "fleet-ci: $gpubench is missing; build the gpubench target first" >&2
    exit 2
fi
# The daemons' state, logs and the runs' working folders. A fixed place, so
# that a second run finds the first one's daemons (their pid files).
state=$build/fleet-ci
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
fi

fail() {
    echo "fleet-ci: FAILED: $*" >&2
    exit 1
}

# ---- packages ---------------------------------------------------------------
# slurm-wlm brings slurmctld and slurmd, slurm-client srun and sinfo. Nothing
# here is optional: without them this step has not run, and it fails.
pkgs="slurm-wlm slurm-client munge openmpi-bin"
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    echo "fleet-ci: installing:$missing"
    # Installing would start the daemons through the init system; a
    # container has none, and this script starts its own.
    policy=/usr/sbin/policy-rc.d
    own_policy=""
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod 755 "$policy"
        own_policy=1
    fi
    # shellcheck disable=SC2086
    if ! { timeout 300 $sudo apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive timeout 900 $sudo apt-get install -y -qq \
            --no-install-recommends $missing; }; then
        [ -z "$own_policy" ] || $sudo rm -f "$policy"
        fail "could not install$missing with apt-get (no network or no such package?);" \
            "the Slurm and MPI step did not run"
    fi
    [ -z "$own_policy" ] || $sudo rm -f "$policy"
fi
export PATH=$PATH:/usr/sbin:/sbin
for c in munged slurmctld slurmd srun sinfo scontrol mpirun; do
    command -v "$c" >/dev/null 2>&1 || fail "$c is not installed although its package is"
done

# ---- earlier run's daemons ----------------------------------------------------
# A daemon's parent is PID 1, which in a container need not reap it soon:
# a zombie counts as stopped.
alive() { # PID (from /proc: a container may have no ps)
    local s
    s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null || true)
    [ -n "$s" ] && [ "${s#Z}" = "$s" ]
}
stop_pidfile() { # PIDFILE NAME: stops that process, waits up to 10 s for it
    local pid
    pid=$(cat "$1" 2>/dev/null || true)
    if [ -n "$pid" ] && alive "$pid" && grep -qa "$2" "/proc/$pid/cmdline" 2>/dev/null; then
        $sudo kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            alive "$pid" || break
            sleep 0.2
        done
        ! alive "$pid" || $sudo kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$1"
}
stop_all() {
    stop_pidfile "$state/slurmd.pid" slurmd
    stop_pidfile "$state/slurmctld.pid" slurmctld
    stop_pidfile "$state/munged.pid" munged
    # munged's own folder, outside $state (see below).
    local mdir
    mdir=$(cat "$state/munge.dir" 2>/dev/null || true)
    case $mdir in
    /tmp/xgpu-fleet-munge.*) $sudo rm -rf "$mdir" ;;
    esac
    rm -f "$state/munge.dir"
}
if [ -d "$state" ]; then
    stop_all
    $sudo rm -rf "$state"
fi
mkdir -p "$state/spool" "$state/ctld" "$state/srun" "$state/mpirun"

show_logs() {
    for l in munged slurmctld slurmd; do
        if $sudo test -s "$state/$l.log"; then
            echo "----- $state/$l.log (last 40 lines)" >&2
            $sudo tail -n 40 "$state/$l.log" >&2
        fi
    done
}
on_exit() {
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "fleet-ci: failed (exit $rc); the daemons' logs:" >&2
        show_logs
    fi
    stop_all
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# ---- munge ------------------------------------------------------------------------
# The key Slurm's daemons and srun share; Debian's package makes one at
# install, a container built without its postinst may not have it.
key=/etc/munge/munge.key
if [ ! -s "$key" ]; then
    echo "fleet-ci: creating $key"
    $sudo mkdir -p /etc/munge
    if command -v mungekey >/dev/null 2>&1; then
        $sudo mungekey --create --keyfile="$key" --force
    else
        $sudo dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
    fi
fi
# munged insists on its key being the munge user's and private.
$sudo chown munge:munge "$key"
$sudo chmod 0400 "$key"
# Our own munged, on its own socket: a munged the system may run already is
# left alone, and there is no init system to start one in a container. It
# runs as the munge user, in a folder of its own under /tmp: the build
# folder may be where that user cannot reach (under /root, say).
mdir=$(mktemp -d /tmp/xgpu-fleet-munge.XXXXXX)
echo "$mdir" >"$state/munge.dir"
sock=$mdir/munge.socket
$sudo chown munge:munge "$mdir"
# munged wants the socket's folder open to all for execute (clients).
$sudo chmod 0755 "$mdir"
$sudo runuser -u munge -- munged --socket="$sock" --key-file="$key" \
    --pid-file="$mdir/munged.pid" --log-file="$mdir/munged.log" \
    --seed-file="$mdir/munged.seed" ||
    fail "munged did not start"
ln -sf "$mdir/munged.log" "$state/munged.log"
for _ in $(seq 50); do
    $sudo test -s "$mdir/munged.pid" && break
    sleep 0.2
done
$sudo cat "$mdir/munged.pid" >"$state/munged.pid" 2>/dev/null || fail "munged wrote no pid file"
timeout 10 munge --socket="$sock" -n </dev/null | timeout 10 unmunge --socket="$sock" >/dev/null ||
    fail "munge round trip through $sock failed"
echo "fleet-ci: munged up ($sock)"

# ---- Slurm ------------------------------------------------------------------------
# One node, this machine, named in the configuration as slurmd is told
# (-N), on 127.0.0.1: a container's host name need not resolve. slurmctld
# runs only where SlurmctldHost is this machine's short host name. Ports off
# Slurm's defaults (6817/6818), clear of a Slurm the machine may run.
# No cgroups: a container rarely lets a daemon create them, so processes
# are tracked through /proc and tasks are not bound.
# CPUs from nproc, memory from /proc/meminfo (free's total; a container
# may have no procps), each no more than slurmd itself finds (slurmd -C): a
# node configured above what slurmd sees is set INVAL.
node=xgpu-ci
cpus=$(nproc)
mem=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
seen=$(timeout 10 slurmd -C 2>/dev/null | head -1 || true)
s_cpus=$(echo "$seen" | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
s_mem=$(echo "$seen" | sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p')
[ -z "$s_cpus" ] || [ "$s_cpus" -ge "$cpus" ] || cpus=$s_cpus
[ -z "$s_mem" ] || [ "$s_mem" -ge "$mem" ] || mem=$s_mem
conf=$state/slurm.conf
cat >"$conf" <<EOF
ClusterName=xgpu-ci
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$(hostname) CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$conf
# -i: a fresh start, no state from an earlier run.
$sudo env SLURM_CONF="$conf" slurmctld -f "$conf" -i || fail "slurmctld did not start"
$sudo env SLURM_CONF="$conf" slurmd -f "$conf" -N "$node" || fail "slurmd did not start"
echo "fleet-ci: waiting for node $node to be idle (at most 60 s)"
st=""
deadline=$((SECONDS + 60))
while [ "$SECONDS" -lt "$deadline" ]; do
    for d in slurmctld slurmd; do
        pid=$(cat "$state/$d.pid" 2>/dev/null || true)
        # (Given 5 s to write its pid file.)
        { [ -n "$pid" ] && alive "$pid"; } || [ "$SECONDS" -lt $((deadline - 55)) ] ||
            fail "$d is not running (pid file $state/$d.pid: '${pid:-none}')"
    done
    st=$(timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [ "$st" = idle ] && break
    sleep 0.5
done
if [ "$st" != idle ]; then
    timeout 5 scontrol show node "$node" >&2 || true
    fail "Slurm node $node is '${st:-not known to sinfo}', not idle, after 60 s"
fi
echo "fleet-ci: Slurm up: $(timeout 5 sinfo -h -o '%P %D %T %c CPUs')"

# ---- the runs ---------------------------------------------------------------------
args=(-b "launch,stream" --time 0.05 --size 1)

# Exactly two result files, one per rank: the rank in the name, as
# gpubench-HOST-RANK.json or gpubench-HOST-rRANK-UUID.json.
check_pair() { # DIR ENGINE
    local dir=$1 engine=$2 files n
    shopt -s nullglob
    files=("$dir"/gpubench-*.json)
    shopt -u nullglob
    n=${#files[@]}
    [ "$n" -eq 2 ] || fail "$engine: $n result files in $dir, not 2: ${files[*]:-none}"
    # The rank in each name: gpubench-HOST-rRANK-UUID.json, or the older
    # gpubench-HOST-RANK.json.
    local names pat
    names=$(printf '%s\n' "${files[@]##*/}")
    for r in 0 1; do
        pat="-$r\.json$"
        if echo "$names" | grep -Eq -- '-r[0-9]+-[A-Za-z0-9._-]+\.json$'; then
            pat="-r$r-[A-Za-z0-9._-]+\.json$"
        fi
        echo "$names" | grep -Eq -- "$pat" ||
            fail "$engine: no result file of rank $r among $(echo "$names" | tr '\n' ' ')"
    done
    # Where the files record the launcher ("rank": {"engine": ..., "rank":
    # N, ...}), it is this launcher, and the ranks are 0 and 1 of 2.
    local f obj got=""
    for f in "${files[@]}"; do
        obj=$(tr -d '\n' <"$f" | grep -Eo '"rank": *\{[^}]*\}' | head -1 || true)
        if [ -n "$obj" ]; then
            echo "$obj" | grep -Eq "\"engine\": *\"$engine\"" ||
                fail "$engine: $f does not name $engine as its launcher: $obj"
            echo "$obj" | grep -Eq '"size": *2([^0-9]|$)' ||
                fail "$engine: $f does not record 2 ranks in all: $obj"
            got="$got $(echo "$obj" | grep -Eo '"rank": *[0-9]+' | grep -Eo '[0-9]+$')"
        fi
    done
    if [ -n "$got" ]; then
        [ "$(echo "$got" | tr ' ' '\n' | sort -n | tr '\n' ' ')" = " 0 1 " ] ||
            fail "$engine: the files record ranks$got, not 0 and 1"
        echo "fleet-ci: $engine: the files record engine $engine, ranks$got of 2"
    fi
    # Merged: the report reads both, every row of each.
    local out rows=0 c
    out=$(cd "$dir" && timeout 60 "$gpubench" report -o "$dir/report" "${files[@]}") ||
        fail "$engine: gpubench report on ${files[*]} failed"
    echo "$out"
    for f in "${files[@]}"; do
        c=$(grep -o '"bench":' "$f" | wc -l)
        [ "$c" -gt 0 ] || fail "$engine: $f has no results"
        rows=$((rows + c))
    done
    echo "$out" | grep -q "($rows results from 2 file(s), 0 skipped" ||
        fail "$engine: the report did not merge the $rows results of both files"
    grep -q "$(hostname | cut -c1-20)" "$dir/report.md" ||
        fail "$engine: the report does not name this host"
    [ -s "$dir/report.html" ] || fail "$engine: no $dir/report.html"
    echo "fleet-ci: $engine: 2 ranks, $rows results merged into $dir/report.md and .html"
}

echo "::: srun -n 2 gpubench"
(
    cd "$state/srun"
    timeout 120 srun -n 2 -t 2 -J gpubench "$gpubench" "${args[@]}" >srun.log 2>&1 ||
        { cat srun.log; fail "srun -n 2 gpubench failed or took over 120 s"; }
    grep -E "SLURM_|results to" srun.log || true
)
check_pair "$state/srun" slurm

echo "::: mpirun -n 2 gpubench"
# As root, Open MPI refuses to start without --allow-run-as-root or the two
# OMPI_ALLOW_RUN_AS_ROOT* variables; both are given. --oversubscribe: the
# machine may have fewer cores (slots) than ranks. plm_rsh_agent=false:
# mpirun looks for ssh or rsh even when every rank is local, and stops
# ("plm_rsh_agent ... could not be found") where a container has neither;
# false is found and never called. gpubench does not link MPI, so no BTL
# (transport) is opened and none needs choosing.
(
    cd "$state/mpirun"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    timeout 120 mpirun -n 2 --allow-run-as-root --oversubscribe --mca plm_rsh_agent false \
        "$gpubench" "${args[@]}" >mpirun.log 2>&1 ||
        { cat mpirun.log; fail "mpirun -n 2 gpubench failed or took over 120 s"; }
    grep -E "OMPI_|results to" mpirun.log || true
)
check_pair "$state/mpirun" openmpi

echo "fleet-ci: Slurm and mpirun runs passed"
