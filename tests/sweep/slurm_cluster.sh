#!/usr/bin/env bash
# A private single-node Slurm cluster on localhost, for tests: munged on its own socket and key,
# slurmctld and slurmd on free ports, every file under one folder, no cgroups (proctrack/linuxproc,
# task/none), no accounting database (sacct answers "accounting storage is disabled"; the sweep
# tool then asks scontrol). Works as root and as an ordinary user (the daemons run as the caller).
#
#   slurm_cluster.sh start DIR   starts it; prints the SLURM_CONF to export; exit 77 when Debian's
#                                slurm-wlm and munge are not installed (apt-get install slurm-wlm munge)
#   slurm_cluster.sh stop DIR    stops the daemons started in DIR (by their pid files)
set -u
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
PATH=$PATH:/usr/sbin:/sbin

stop() {
  local d=$1
  if [ -f "$d/slurm.conf" ] && command -v scontrol >/dev/null; then
    SLURM_CONF=$d/slurm.conf timeout 10 scontrol shutdown >/dev/null 2>&1
  fi
  for pidfile in "$d/slurmd.pid" "$d/slurmctld.pid" "$d/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null)
    [ -n "$pid" ] || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null; sleep 0.5; fi
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null; fi
  done
}

if [ "$cmd" = stop ]; then
  stop "$dir"
  exit 0
fi
[ "$cmd" = start ] || { echo "$0: unknown command '$cmd'" >&2; exit 2; }

missing=()
for p in munged munge slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$p" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "SKIP: Slurm or munge is not installed (missing: ${missing[*]}); on Debian: apt-get install slurm-wlm munge" >&2
  exit 77
fi

mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
# Slurm and munge refuse group/world-writable folders on their paths.
chmod 0755 "$dir"
rm -rf "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
mkdir -p "$dir/state" "$dir/spool" "$dir/log"
mkdir -m 0755 "$dir/munge"
user=$(id -un)

# munged on a private socket; as root it needs --force (it prefers a dedicated user).
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 0400 "$dir/munge/munge.key"
force=""
[ "$(id -u)" -eq 0 ] && force="--force"
if ! munged $force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/munge/munged.log" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/munged.seed"; then
  echo "$0: munged did not start:" >&2
  cat "$dir/munge/munged.log" >&2
  exit 1
fi

# Two free TCP ports (slurmctld, slurmd): several test runs may share a host.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
cpus=$(nproc)

cat > "$dir/slurm.conf" <<CONF
# A test cluster of simtvp (tests/sweep/slurm_cluster.sh): one node, localhost, no cgroups.
ClusterName=simtvp$$
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
KillWait=5
Waittime=0
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf

fail() {
  echo "$0: $1; logs:" >&2
  tail -n 20 "$dir"/log/*.log >&2 2>/dev/null
  stop "$dir"
  exit 1
}
slurmctld -i || fail "slurmctld did not start"
slurmd -N localhost || fail "slurmd did not start"
for _ in $(seq 150); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null)
  case "$state" in idle*|mixed*|allocated*) echo "$SLURM_CONF"; exit 0 ;; esac
  sleep 0.2
done
fail "the node did not come up (sinfo: '${state:-nothing}')"
