#!/bin/bash
# usage: tests/slurm/cluster.sh start DIR | stop DIR
# A real single-node Slurm cluster for the tests, from Debian's slurm-wlm and munge: munged,
# slurmctld and slurmd on this host, configured in DIR (SLURM_CONF=DIR/slurm.conf), with four
# pretend GPUs declared through GRES (character devices with /dev/null's numbers, so Slurm sets
# CUDA_VISIBLE_DEVICES) and free ports for the daemons. `stop` ends every daemon `start` began
# (by their pid files) and nothing else. Needs root (the daemons run as root here).
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop DIR}
DIR=${2:?usage: cluster.sh start|stop DIR}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

stop() {
  for f in slurmd slurmctld munged; do
    if [ -f "$DIR/$f.pid" ]; then
      pid=$(cat "$DIR/$f.pid")
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
      rm -f "$DIR/$f.pid"
    fi
  done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "cluster.sh: start or stop, not '$cmd'" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "cluster.sh: the daemons need root" >&2; exit 2; }
for p in munged slurmctld slurmd sbatch; do
  command -v "$p" >/dev/null || { echo "cluster.sh: $p is missing (apt-get install slurm-wlm munge)" >&2; exit 2; }
done
host=$(hostname -s)
mkdir -p "$DIR"/{state,d,log,munge}
chmod 700 "$DIR/munge"

# munge with a key and socket of the test's own, so it never meets a system munged.
[ -f "$DIR/munge/munge.key" ] || dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$DIR/munge/munge.key"
munged --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
  --pid-file="$DIR/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/seed" -f
for i in 0 1 2 3; do [ -e "$DIR/nvidia$i" ] || mknod "$DIR/nvidia$i" c 1 3; done
cat >"$DIR/gres.conf" <<GRES
NodeName=$host Name=gpu File=$DIR/nvidia[0-3]
GRES
cat >"$DIR/slurm.conf" <<CONF
ClusterName=servescope-test
GresTypes=gpu
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/d
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
KillWait=5
MinJobAge=600
SchedulerParameters=sched_interval=1
NodeName=$host CPUs=$(nproc) RealMemory=2000 Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
export SLURM_CONF=$DIR/slurm.conf
slurmctld -f "$DIR/slurm.conf"
slurmd -f "$DIR/slurm.conf"
for _ in $(seq 100); do
  if scontrol ping 2>/dev/null | grep -q UP && sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
    echo "cluster.sh: slurm up on $host (SLURM_CONF=$DIR/slurm.conf)"
    exit 0
  fi
  sleep 0.2
done
echo "cluster.sh: the cluster did not come up; see $DIR/log" >&2
tail -5 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
stop
exit 1
