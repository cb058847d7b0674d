#!/usr/bin/env bash
# Two real Slurm 22.05 clusters on this machine, for squeeze's Slurm tests (label `slurm`):
# "east" with 4 nodes and "west" with 2, each cluster with its own slurmctld and one slurmd per
# node (`slurmd -N NAME`: own port, spool, pid file and log), nodes named CLUSTER-n0, -n1, ...,
# each with fake GPUs as GRES (File= symlinks to /dev/null, which 22.05 accepts), and two
# partitions (low, high) with preemption by partition priority. One munged serves both.
# Everything lives under $SQUEEZE_SLURM_ROOT (default /tmp/squeeze-slurm); daemons run as root.
#
#   bash scripts/slurm-clusters.sh install      # apt-get install munge slurmctld slurmd slurm-client
#   bash scripts/slurm-clusters.sh start        # configs + daemons; waits until both nodes are idle
#   bash scripts/slurm-clusters.sh start-if-possible   # the same where it can (root, Slurm)
#   bash scripts/slurm-clusters.sh env east     # prints: export SLURM_CONF=.../east/etc/slurm.conf
#   bash scripts/slurm-clusters.sh stop         # cancels every job, stops every daemon
#   bash scripts/slurm-clusters.sh status       # sinfo of each cluster
#   bash scripts/slurm-clusters.sh stop-ctld west / start-ctld west   # a controller outage
#   bash scripts/slurm-clusters.sh stop-node east [east-n2] / start-node east [east-n2]
#       a node dies (default: the cluster's first): its slurmd and every job step on it
#       SIGKILLed (Slurm marks it DOWN after SlurmdTimeout=10 s); start-node brings slurmd
#       back and waits for the node to be idle (ReturnToService=2)
#
# A cluster of 4 nodes or more has a network topology (topology/tree, etc/topology.conf): leaf
# switches CLUSTER-s0 (nodes n0, n1), CLUSTER-s1 (n2, n3), ... under CLUSTER-top.
#
# Tunables: SQUEEZE_SLURM_ROOT, SQUEEZE_SLURM_GPUS (per node, default 4), SQUEEZE_SLURM_CPUS (16,
# declared through config_overrides, so more than the machine has is fine),
# SQUEEZE_SLURM_CLUSTERS (default "east:4 west:2": NAME:NODES, NAME alone = one node) and
# SQUEEZE_SLURM_PRIORITY (basic, or multifactor: priority by age and size, as a site
# configures Slurm: bench/slurm_side_by_side.py), SQUEEZE_SLURM_PORT_BASE (6817): the i-th cluster (from 0) listens on BASE+10i (slurmctld)
# and BASE+10i+1+j (the slurmd of node j; at most 9 nodes). A second set beside the tests'
# needs its own ROOT and BASE (bench/slurm_bench uses /tmp/squeeze-slurm-bench, 6837).
# Based on ../shared/slurm/slurm-ci.sh and its notes (cred_expire=5 so requeued jobs restart in
# seconds; no slurmdbd, so accounting is off and jobcomp/filetxt keeps finished jobs), with
# BatchStartTimeout=120: on a loaded machine slurmd can take tens of seconds to start a batch
# script, and with the default 10 s slurmctld gives the job up and requeues it again and again.
set -euo pipefail

ROOT=${SQUEEZE_SLURM_ROOT:-/tmp/squeeze-slurm}
GPUS=${SQUEEZE_SLURM_GPUS:-4}
CPUS=${SQUEEZE_SLURM_CPUS:-16}
MEM_MB=16000
read -r -a CLUSTER_SPECS <<<"${SQUEEZE_SLURM_CLUSTERS:-east:4 west:2}"
CLUSTERS=()
declare -A NODES_OF=()
for spec in "${CLUSTER_SPECS[@]}"; do
  CLUSTERS+=("${spec%%:*}")
  if [[ $spec == *:* ]]; then NODES_OF[${spec%%:*}]=${spec#*:}; else NODES_OF[$spec]=1; fi
  if ! [[ ${NODES_OF[${spec%%:*}]} =~ ^[1-9]$ ]]; then
    echo "[slurm-clusters] SQUEEZE_SLURM_CLUSTERS: '$spec': the nodes must be 1 to 9" >&2
    exit 2
  fi
done
PORT_BASE=${SQUEEZE_SLURM_PORT_BASE:-6817}
PRIORITY=${SQUEEZE_SLURM_PRIORITY:-basic}
MSOCK=$ROOT/munge/munge.socket.2

log() { echo "[slurm-clusters] $*" >&2; }

# The ports of a cluster: slurmctld, slurmd.
ports() {
  local i
  for i in "${!CLUSTERS[@]}"; do
    if [[ ${CLUSTERS[$i]} == "$1" ]]; then
      echo "$((PORT_BASE + 10 * i)) $((PORT_BASE + 10 * i + 1))"
      return 0
    fi
  done
  log "unknown cluster '$1' (${CLUSTERS[*]})"
  return 1
}

alive() { [[ -e /proc/$1 ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

wait_for() {  # what timeout_s command...
  local what=$1 timeout=$2 i
  shift 2
  for ((i = 0; i < timeout * 10; i++)); do "$@" && return 0; sleep 0.1; done
  log "timeout waiting for $what"
  return 1
}

stop_pidfile() {  # file name
  local f=$1 p i
  [[ -s $f ]] || { rm -f "$f"; return 0; }
  p=$(<"$f")
  if alive "$p"; then
    kill "$p" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do alive "$p" || break; sleep 0.1; done
    if alive "$p"; then log "$2 ($p) did not exit; SIGKILL"; kill -9 "$p" 2>/dev/null || true; fi
  fi
  rm -f "$f"
}

conf() { echo "$ROOT/$1/etc/slurm.conf"; }
nodes() {  # cluster: its node names
  local j
  for ((j = 0; j < NODES_OF[$1]; j++)); do echo "$1-n$j"; done
}
node_list() {  # cluster: Slurm's host list of all its nodes
  if ((NODES_OF[$1] == 1)); then echo "$1-n0"; else echo "$1-n[0-$((NODES_OF[$1] - 1))]"; fi
}
pidfile() { echo "$ROOT/$1/run/slurmd-$2.pid"; }  # cluster node

# The priority plugin: basic (first come, first served) or a site's multifactor by age and job
# size (without slurmdbd: no fair share); with multifactor, backfill plans to the second
# (bf_resolution=1), as fits jobs of seconds to minutes (a time-compressed trace).
priority_lines() {
  case $PRIORITY in
    basic) echo "PriorityType=priority/basic" ;;
    multifactor)
      echo "PriorityType=priority/multifactor"
      echo "PriorityWeightAge=1000"
      echo "PriorityWeightJobSize=1000"
      echo "PriorityMaxAge=1:00:00"
      ;;
    *) log "SQUEEZE_SLURM_PRIORITY: '$PRIORITY' is not basic or multifactor"; return 1 ;;
  esac
}

write_configs() {  # cluster
  local c=$1 dir=$ROOT/$1 ctld_port slurmd_port i
  read -r ctld_port slurmd_port < <(ports "$c")
  local n j
  mkdir -p "$dir"/{etc,state,spool,log,run,fakedev,jobs}
  for n in $(nodes "$c"); do
    mkdir -p "$dir/fakedev/$n" "$dir/spool/$n"
    for ((i = 0; i < GPUS; i++)); do ln -sfn /dev/null "$dir/fakedev/$n/nvidia$i"; done
  done
  cat >"$dir/etc/slurm.conf" <<EOF
# squeeze test cluster '$c' (scripts/slurm-clusters.sh): ${NODES_OF[$c]} node(s), $GPUS fake GPUs
# as GRES on each, one slurmd per node on this machine (slurmd -N NAME).
ClusterName=$c
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$MSOCK,cred_expire=5
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=1$([[ $PRIORITY == multifactor ]] && echo ",bf_resolution=1")
$(priority_lines)
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
JobRequeue=1
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
ReturnToService=2
SlurmdTimeout=10
BatchStartTimeout=120
MinJobAge=600
KillWait=5
InactiveLimit=0
Waittime=0
SlurmdParameters=config_overrides
$( ((${NODES_OF[$c]} >= 4)) && echo "TopologyPlugin=topology/tree" || true)
EOF
  # A cluster of 4 nodes or more: leaf switches of two nodes each under one top switch
  # (topology.conf; `scontrol show topology`), for squeeze's topology-aware placement.
  if ((${NODES_OF[$c]} >= 4)); then
    local leaves=() k
    : >"$dir/etc/topology.conf"
    for ((k = 0; k * 2 < ${NODES_OF[$c]}; k++)); do
      local last=$((k * 2 + 1 < ${NODES_OF[$c]} ? k * 2 + 1 : k * 2))
      echo "SwitchName=$c-s$k Nodes=$c-n[$((k * 2))-$last]" >>"$dir/etc/topology.conf"
      leaves+=("$c-s$k")
    done
    echo "SwitchName=$c-top Switches=$(IFS=,; echo "${leaves[*]}")" >>"$dir/etc/topology.conf"
  fi
  j=0
  for n in $(nodes "$c"); do
    echo "NodeName=$n NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 Port=$((slurmd_port + j))" \
      "CPUs=$CPUS RealMemory=$MEM_MB Gres=gpu:$GPUS State=UNKNOWN" >>"$dir/etc/slurm.conf"
    j=$((j + 1))
  done
  cat >>"$dir/etc/slurm.conf" <<EOF
PartitionName=low  Nodes=$(node_list "$c") Default=YES MaxTime=INFINITE State=UP PriorityTier=1  PreemptMode=REQUEUE
PartitionName=high Nodes=$(node_list "$c") Default=NO  MaxTime=INFINITE State=UP PriorityTier=10 PreemptMode=OFF
EOF
  echo "AutoDetect=off" >"$dir/etc/gres.conf"
  for n in $(nodes "$c"); do
    echo "NodeName=$n Name=gpu File=$dir/fakedev/$n/nvidia[0-$((GPUS - 1))]" >>"$dir/etc/gres.conf"
  done
  : >"$dir/etc/plugstack.conf"
}

start_munge() {
  mkdir -p "$ROOT/munge"
  chmod 0755 "$ROOT/munge"
  if [[ -s $ROOT/munge/munged.pid ]] && alive "$(<"$ROOT/munge/munged.pid")"; then return 0; fi
  [[ -s $ROOT/munge/munge.key ]] || mungekey --create --keyfile="$ROOT/munge/munge.key"
  chmod 0600 "$ROOT/munge/munge.key"
  munged --key-file="$ROOT/munge/munge.key" --socket="$MSOCK" \
    --pid-file="$ROOT/munge/munged.pid" --log-file="$ROOT/munge/munged.log" \
    --seed-file="$ROOT/munge/munged.seed"
  wait_for "munged" 10 test -s "$ROOT/munge/munged.pid"
}

node_state() { SLURM_CONF=$(conf "$1") sinfo -h -n "$2" -o %T 2>/dev/null | head -1; }  # cluster node
node_idle() { [[ $(node_state "$1" "$2") == idle ]]; }
all_idle() {  # cluster
  local n
  for n in $(nodes "$1"); do node_idle "$1" "$n" || return 1; done
}

start_ctld() {  # cluster
  local c=$1
  SLURM_CONF=$(conf "$c") slurmctld
  wait_for "slurmctld of $c" 20 test -s "$ROOT/$c/run/slurmctld.pid"
  wait_for "slurmctld of $c to answer" 20 bash -c "SLURM_CONF=$(conf "$c") sinfo -h >/dev/null 2>&1"
}

start_cluster() {  # cluster: a fresh one (no jobs, state or logs of an earlier start)
  local c=$1
  rm -rf "${ROOT:?}/$c/state" "$ROOT/$c/spool" "$ROOT/$c/log" "$ROOT/$c/jobs"
  write_configs "$c"
  local n
  start_ctld "$c"
  for n in $(nodes "$c"); do
    SLURM_CONF=$(conf "$c") slurmd -N "$n"
    wait_for "slurmd of $n" 20 test -s "$(pidfile "$c" "$n")"
  done
  if ! wait_for "the nodes of $c idle" 30 all_idle "$c"; then
    SLURM_CONF=$(conf "$c") scontrol show nodes >&2 || true
    tail -20 "$ROOT/$c/log/slurmctld.log" >&2
    return 1
  fi
  log "cluster $c up ($(node_list "$c"), $GPUS GPUs each): export SLURM_CONF=$(conf "$c")"
}

stop_cluster() {  # cluster
  local c=$1 dir=$ROOT/$1
  if [[ -s $dir/run/slurmctld.pid ]] && alive "$(<"$dir/run/slurmctld.pid")"; then
    export SLURM_CONF
    SLURM_CONF=$(conf "$c")
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
    wait_for "the jobs of $c to end" 10 bash -c "[[ -z \$(squeue -h -t R,CG,S 2>/dev/null) ]]" || true
  fi
  local f
  for f in "$dir"/run/slurmd*.pid; do [[ -e $f ]] && stop_pidfile "$f" "slurmd ($f)"; done
  stop_pidfile "$dir/run/slurmctld.pid" "slurmctld of $c"
}

# The job steps of one node of a cluster (slurmstepd with this cluster's SLURM_CONF in its
# environment, holding a socket in that node's spool folder; other nodes' and clusters' are left
# alone) and every process below them.
node_procs() {  # cluster node
  local want p kids ino inodes env_lines
  want="SLURM_CONF=$(conf "$1")"
  inodes=$(awk -v d="$ROOT/$1/spool/$2/" 'index($8, d) == 1 { print $7 }' /proc/net/unix)
  local -a todo=()
  for p in $(pgrep slurmstepd); do
    # Read whole, then matched: grep -q leaving early would SIGPIPE tr, and pipefail would
    # call that a miss.
    env_lines=$({ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null) || continue
    grep -qxF "$want" <<<"$env_lines" || continue
    for ino in $(find "/proc/$p/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null | tr -dc '0-9\n'); do
      if grep -qxF "$ino" <<<"$inodes"; then todo+=("$p"); break; fi
    done
  done
  while ((${#todo[@]})); do
    p=${todo[0]}
    todo=("${todo[@]:1}")
    echo "$p"
    kids=$(pgrep -P "$p" || true)
    if [[ -n $kids ]]; then todo+=($kids); fi
  done
  return 0
}

node_named() {  # cluster [node]: the node (default the first), which must be one of the cluster's
  local n=${2:-$1-n0}
  # Not `nodes | grep -q`: grep leaving at the match SIGPIPEs the loop still writing the
  # names after it, and pipefail turns that into "no such node" (a clean-clone CI run did).
  if ! grep -qxF "$n" <<<"$(nodes "$1")"; then log "cluster $1 has no node '$n' ($(node_list "$1"))"; return 1; fi
  echo "$n"
}

stop_node() {  # cluster node: as if the node lost power
  local c=$1 n=$2 f i pids
  f=$(pidfile "$c" "$n")
  if [[ -s $f ]]; then kill -9 "$(<"$f")" 2>/dev/null || true; fi
  rm -f "$f"
  for ((i = 0; i < 5; i++)); do
    pids=$(node_procs "$c" "$n")
    [[ -z $pids ]] && break
    kill -9 $pids 2>/dev/null || true
    sleep 0.2
  done
  log "node $n stopped (slurmd and its job steps killed)"
}

start_node() {  # cluster node
  local c=$1 n=$2
  SLURM_CONF=$(conf "$c") slurmd -N "$n"
  wait_for "slurmd of $n" 20 test -s "$(pidfile "$c" "$n")"
  wait_for "node $n idle" 60 node_idle "$c" "$n"
}

do_install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null &&
     command -v sbatch >/dev/null; then
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends munge slurmctld slurmd slurm-client >/dev/null
}

case "${1:-}" in
  install) do_install ;;
  start-if-possible)  # for the test fixture: where the clusters cannot run, the tests skip
    if [[ $(id -u) != 0 ]] || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
      log "not root, or Slurm is not installed: the slurm tests will skip"
      exit 0
    fi
    exec bash "$0" start
    ;;
  start)
    for c in "${CLUSTERS[@]}"; do stop_cluster "$c"; done  # what an earlier run left
    start_munge
    for c in "${CLUSTERS[@]}"; do start_cluster "$c"; done
    ;;
  stop)
    for c in "${CLUSTERS[@]}"; do stop_cluster "$c"; done
    stop_pidfile "$ROOT/munge/munged.pid" munged
    ;;
  stop-ctld) ports "${2:?cluster}" >/dev/null && stop_pidfile "$ROOT/$2/run/slurmctld.pid" "slurmctld of $2" ;;
  start-ctld) ports "${2:?cluster}" >/dev/null && start_ctld "$2" ;;
  stop-node) ports "${2:?cluster}" >/dev/null && n=$(node_named "$2" "${3:-}") && stop_node "$2" "$n" ;;
  start-node) ports "${2:?cluster}" >/dev/null && n=$(node_named "$2" "${3:-}") && start_node "$2" "$n" ;;
  env) ports "${2:?cluster}" >/dev/null && echo "export SLURM_CONF=$(conf "$2")" ;;
  status)
    for c in "${CLUSTERS[@]}"; do echo "== $c"; SLURM_CONF=$(conf "$c") sinfo || true; done
    ;;
  clean)
    bash "$0" stop
    rm -rf "$ROOT"
    ;;
  *)
    echo "usage: $0 install|start|stop|status|env CLUSTER|stop-ctld CLUSTER|start-ctld CLUSTER|stop-node CLUSTER [NODE]|start-node CLUSTER [NODE]|clean" >&2
    exit 2
    ;;
esac
