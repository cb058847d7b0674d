// Comparing the runs squeeze follows on a Slurm cluster with what the cluster says of its
// jobs and nodes (issue 5, reconciliation): which runs Slurm still runs, ended, requeued on its
// own or lost, why (a failed node, in words), and which jobs named squeeze-ID.ATTEMPT run there
// that squeeze does not follow. Pure functions over parsed output; thread-safe.
#ifndef SQUEEZE_SLURM_SLURM_RECONCILE_H_
#define SQUEEZE_SLURM_SLURM_RECONCILE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/types.h"
#include "exec/run_files.h"
#include "slurm/slurm_output.h"

namespace squeeze {

enum class SlurmFate {
  kLive,      // pending (never started by Slurm on its own) or running
  kEnded,     // in a state it does not leave (SlurmStateEnded)
  kRequeued,  // Slurm put it back in its own queue (a node failure, its own preemption)
  kMissing,   // not in the listing at all
};

// What has become of Slurm job `slurm_id` in `jobs` (one squeue listing). squeeze never asks
// Slurm to requeue (it submits a new attempt instead), so a job with restarts, or in one of
// the REQUEUE* states, was requeued by Slurm itself. `*found` is set to its entry, or nullptr.
SlurmFate FateOf(int64_t slurm_id, const std::vector<SlurmJob>& jobs, const SlurmJob** found);

// True for an end that is Slurm's doing, not the job's: NODE_FAIL, BOOT_FAIL, PREEMPTED.
bool SlurmLostIt(const SlurmJob& ended);

// What keeps a node from new work, in words ("down, NOT_RESPONDING: Not responding"), or ""
// when it is usable.
std::string NodeTrouble(const SlurmNode& node);

// Why Slurm lost a run, in words: "node east-n0 failed (down, NOT_RESPONDING: Not
// responding)" when a node it ran on (`ran_on`, Slurm's node list) is in trouble in `nodes`,
// else what Slurm says of the job ("Slurm requeued it (BeginTime)", "NODE_FAIL").
std::string LostReason(const SlurmJob& job, const std::string& ran_on,
                       const std::vector<SlurmNode>& nodes);

// The jobs of `jobs` named squeeze-ID.ATTEMPT, not ended, whose Slurm id is not in `followed`:
// runs squeeze does not know of (submitted behind its back, or a copy of an attempt).
std::vector<SlurmJob> UnknownSqueezeJobs(const std::vector<SlurmJob>& jobs,
                                         const std::set<int64_t>& followed);

// How a run ended, from Slurm's record of it. Only COMPLETED (or FAILED with its non-zero
// code) is the job's own exit; an end that is Slurm's doing (SlurmLostIt) is lost, with
// LostReason's words; anything else Slurm did (a cancel, even of a job that never started, a
// time limit) is a failure that never reads as success.
ExitStatus SlurmExit(const SlurmJob& ended, const std::vector<SlurmNode>& nodes);

// "Slurm lost it: " + `why`, as a lost ExitStatus.
ExitStatus SlurmLost(const std::string& why);

// 2026-11-30T08:52:03Z.
std::string FormatUtc(Time t);

// "Slurm job 12 'squeeze-999999.1' RUNNING on east-n0" for reports and logs.
std::string DescribeSlurmJob(const SlurmJob& job);

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_SLURM_RECONCILE_H_
