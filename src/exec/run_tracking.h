// Finding and ending every process of a run, escapees included (a `setsid` child, a double
// fork, a child that ignores SIGTERM), as Slurm's proctrack does. Two ways, chosen once when
// the daemon starts (PrepareTracking):
//   - cgroup: each run in a cgroup v2 folder of its own, CGROUP_PARENT/ID.ATTEMPT; its
//     processes are that folder's cgroup.procs, ended at once by cgroup.kill, and, where the
//     cpu and memory controllers can be enabled there, limited to the job's `cpus` and `memory`.
//   - subreaper: where the daemon may not use cgroups (not root, no cgroup v2), the supervisor is
//     a child subreaper (PR_SET_CHILD_SUBREAPER): a process that leaves its parent is adopted by
//     it, not by init, so the run's processes are always the supervisor's descendants.
// Plain functions over /proc and /sys/fs/cgroup; thread-safe.
#ifndef SQUEEZE_EXEC_RUN_TRACKING_H_
#define SQUEEZE_EXEC_RUN_TRACKING_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct TrackingSetup {
  // Empty: subreaper; else the cgroup v2 folder under which each run gets a folder of its own.
  std::string cgroup_parent;
  bool limits = false;       // the cpu and memory controllers are enabled in cgroup_parent
  std::string description;   // one line for the daemon's start: what is in force and why
};

// `want`: "auto" (a cgroup where the daemon may make one, else subreaper), "cgroup" (an error
// when it cannot), or "subreaper". A cgroup parent is squeeze-HASH under the daemon's own
// cgroup (HASH of the data directory, so daemons on one machine keep apart). An error names
// the value or says why a cgroup cannot be had.
Result<TrackingSetup> PrepareTracking(const std::string& want, const std::string& data_dir);

// The folder of one run's cgroup under `parent`.
std::string RunCgroupPath(const std::string& parent, JobId id, int attempt);
// Makes the run's cgroup and writes its limits (cpu.max from cpu_milli, memory.max from
// memory_bytes; 0 = none) when `limits`. An error names the file.
Status MakeRunCgroup(const std::string& path, bool limits, int64_t cpu_milli, int64_t memory_bytes);
// Moves the calling process into the cgroup (before it execs the job). Only open, write and
// close: safe in a forked child. -1 with errno on failure.
int JoinCgroup(const std::string& path);
// Removes an empty run cgroup (a no-op when it is gone).
void RemoveRunCgroup(const std::string& path);

// Where a run's processes are: its cgroup, else the descendants of its supervisor.
struct RunProcesses {
  std::string cgroup;       // empty = none
  pid_t supervisor = 0;     // the subreaper whose descendants they are (not itself)
};
// The run's live processes (zombies left out).
std::vector<pid_t> ProcessesOf(const RunProcesses& run);
// Sends `sig` to every process of the run; SIGKILL through cgroup.kill where there is one.
// Returns how many processes there were.
size_t SignalRun(const RunProcesses& run, int sig);
// pid -> parent pid of every process (/proc/PID/stat), for DescendantsOf.
std::vector<std::pair<pid_t, pid_t>> ProcessParents();
// Every descendant of `root` (not `root` itself) in a pid -> parent list.
std::vector<pid_t> DescendantsOf(pid_t root, const std::vector<std::pair<pid_t, pid_t>>& parents);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_RUN_TRACKING_H_
