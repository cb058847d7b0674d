// The srun and scontrol a batch script finds first on its PATH on a local pool
// (exec/local_run_env.h): written by the daemon into DATA/bin, the same text every time.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "exec/local_run_env.h"
#include "exec/run_files.h"

namespace squeeze {
namespace {

// srun on a local pool: the job's tasks on this node. -n/--ntasks (else -N x
// --ntasks-per-node, else the job's SLURM_NTASKS) copies of the command, each with its
// SLURM_PROCID, SLURM_LOCALID and SLURM_NODEID; the signals the script gets (a checkpoint
// request, a stop) passed on to every task; the exit status of the first task that failed.
// Every other option is taken and left alone: a local run has one node, and its GPUs and
// CPUs are the job's already.
constexpr const char* kSrun = R"SH(#!/bin/bash
# srun on a squeeze local pool (written by squeeze serve): runs this job's tasks on this node.
ntasks= nodes= per_node=
takes_value() {
  case "$1" in
    --label|--unbuffered|--overlap|--exclusive|--kill-on-bad-exit|--quiet|--verbose|--whole|\
    --overcommit|--pty|--no-kill|--oversubscribe|--exact|--immediate) return 1 ;;
  esac
  return 0
}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --) shift; break ;;
    -n|--ntasks) ntasks=$2; shift 2 ;;
    -n*) ntasks=${1#-n}; shift ;;
    --ntasks=*) ntasks=${1#*=}; shift ;;
    -N|--nodes) nodes=$2; shift 2 ;;
    -N*) nodes=${1#-N}; shift ;;
    --nodes=*) nodes=${1#*=}; shift ;;
    --ntasks-per-node) per_node=$2; shift 2 ;;
    --ntasks-per-node=*) per_node=${1#*=}; shift ;;
    --*=*) shift ;;
    --*) if takes_value "$1"; then shift 2; else shift; fi ;;
    -[cJopteGdmwxCDKlQuvX]) case "$1" in -[lQuvXK]) shift ;; *) shift 2 ;; esac ;;
    -*) shift ;;
    *) break ;;
  esac
done
if [[ $# -eq 0 ]]; then
  echo "srun: no command given (a squeeze local pool runs srun's tasks on this node)" >&2
  exit 1
fi
nodes=${nodes%%-*}
if [[ -z $ntasks ]]; then
  if [[ -n $per_node ]]; then ntasks=$(( ${nodes:-1} * per_node ));
  else ntasks=${SLURM_NTASKS:-1}; fi
fi
if ! [[ $ntasks =~ ^[0-9]+$ ]] || (( ntasks < 1 || ntasks > 1024 )); then
  echo "srun: --ntasks=$ntasks: give a whole number of tasks from 1 to 1024" >&2
  exit 1
fi
pids=()
forward() { for p in "${pids[@]}"; do kill "-$1" "$p" 2>/dev/null; done; }
for sig in TERM INT HUP USR1 USR2 QUIT; do trap "forward $sig" "$sig"; done
for (( i = 0; i < ntasks; i++ )); do
  SLURM_PROCID=$i SLURM_LOCALID=$i SLURM_NODEID=0 SLURM_STEP_NUM_TASKS=$ntasks \
  SLURM_STEP_NUM_NODES=1 SLURM_STEP_ID=0 SLURM_NTASKS=$ntasks SLURM_NPROCS=$ntasks \
  SLURM_STEP_NODELIST=${SLURM_JOB_NODELIST:-$(hostname -s)} "$@" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do
  while :; do
    wait "$p"; rc=$?
    kill -0 "$p" 2>/dev/null || break   # still running: a signal ended the wait
  done
  (( status == 0 && rc != 0 )) && status=$rc
done
exit $status
)SH";

// scontrol on a local pool: `show hostnames [LIST]`, as scripts use it to find rank 0's node.
constexpr const char* kScontrol = R"SH(#!/bin/bash
# scontrol on a squeeze local pool (written by squeeze serve): only `show hostnames`.
if [[ $1 == show && $2 == hostnames ]]; then
  list=${3:-$SLURM_JOB_NODELIST}
  tr ',' '\n' <<<"$list"
  exit 0
fi
echo "scontrol: a squeeze local pool has no Slurm controller; only 'scontrol show hostnames' works here (squeeze show \$SLURM_JOB_ID says the rest)" >&2
exit 1
)SH";

}  // namespace

Result<std::string> InstallLocalSlurmTools(const std::string& data_dir) {
  static std::mutex mu;
  static std::string installed_for;
  std::lock_guard lock(mu);
  const std::string dir = data_dir + "/bin";
  if (installed_for == data_dir) return dir;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::Error("cannot make " + dir + ": " + std::strerror(errno));
  }
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
    return Status::Error(dir + " is not a folder of the daemon's own");
  }
  if (chmod(dir.c_str(), 0755) != 0) {
    return Status::Error("cannot set the mode of " + dir + ": " + std::strerror(errno));
  }
  for (const auto& [name, text] : {std::pair{"srun", kSrun}, std::pair{"scontrol", kScontrol}}) {
    const std::string path = dir + "/" + name;
    if (Status s = WriteFileAtomically(path, text, 0755); !s.ok()) return s;
    if (chmod(path.c_str(), 0755) != 0) {
      return Status::Error("cannot set the mode of " + path + ": " + std::strerror(errno));
    }
  }
  installed_for = data_dir;
  return dir;
}

}  // namespace squeeze
