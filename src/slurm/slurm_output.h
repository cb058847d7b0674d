// What Slurm 22.05 says about a cluster, read from its commands' output: `sinfo --json` and
// `squeue --json` (openapi v0.0.38), `scontrol show job ID` and jobcomp/filetxt lines. Plain
// values and pure functions (thread-safe); errors name the source, the field and the value.
#ifndef SQUEEZE_SLURM_SLURM_OUTPUT_H_
#define SQUEEZE_SLURM_SLURM_OUTPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace squeeze {

// One node of `sinfo --json`.
struct SlurmNode {
  std::string name;
  std::string state;               // lower-case base state: "idle", "mixed", "down", ...
  std::vector<std::string> flags;  // upper-case state flags: "DRAIN", "NOT_RESPONDING", ...
  bool responding = true;          // no NOT_RESPONDING flag
  bool usable = false;  // idle/mixed/allocated and no DRAIN/DOWN/NOT_RESPONDING/FAIL flag
  std::string gpu_model;  // "a100" of "gpu:a100:4"; empty when the GRES names no model
  int gpus = 0;           // from gres
  int gpus_used = 0;      // from gres_used
  int cpus = 0;
  std::vector<std::string> partitions;
  std::string reason;  // why the node is down or drained; empty when none
};

// One job, from squeue's JSON, scontrol's text or a jobcomp line. Times are epoch seconds as
// Slurm gives them (whole seconds, not a Time: Seconds() makes one).
struct SlurmJob {
  int64_t id = 0;
  std::string name;
  std::string state;      // upper-case as Slurm says: "PENDING", "RUNNING", "FAILED", ...
  std::string reason;     // "Resources", "None", ...; empty when the source has none
  std::string partition;
  std::string nodes;      // Slurm's node list ("east-n0", "n[0-3]"); empty when none
  std::vector<int> gpu_indices;  // the GPUs it holds (GRES IDX), node after node
  // squeue: each node it was given (the node list expanded) with its GPU indices there.
  std::vector<std::pair<std::string, std::vector<int>>> node_gpus;
  int restart_count = 0;
  // Only once the job has ended (SlurmStateEnded): 0..255 for an exit, 128+N for signal N.
  std::optional<int> exit_code;
  int64_t submit_time = 0;             // 0 when unknown
  std::optional<int64_t> start_time;   // absent while PENDING (Slurm's is an estimate)
  std::optional<int64_t> end_time;     // only once ended (before, Slurm's is the time limit)
  bool requeue = false;
  std::string comment;
  std::string workdir;
};

// True for the states a job does not leave: COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL,
// PREEMPTED, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY.
bool SlurmStateEnded(std::string_view state);

// Sets node->state, flags, responding and usable from a state as Slurm prints it: "idle",
// "MIXED+DRAIN" (the base state lower-case; each "+FLAG" adds a flag to those already there).
void SetNodeState(const std::string& state, SlurmNode* node);

// `sinfo --json`: its nodes[]. A non-empty errors[] is an error carrying its text.
Result<std::vector<SlurmNode>> ParseSinfoJson(std::string_view text);
// `scontrol show nodes` (multi-line, `-o` one line per node, `-d` with GresUsed): NodeName,
// State, CPUTot, Partitions, Reason, Gres and GresUsed. Errors name the node, the key and value.
Result<std::vector<SlurmNode>> ParseScontrolNodes(std::string_view text);
// `squeue --json`: its jobs[]. exit_code there is a wait status (768 = exit 3, 15 = SIGTERM).
Result<std::vector<SlurmJob>> ParseSqueueJson(std::string_view text);

// One `scontrol show job ID` record (`-d` adds GRES=...(IDX:...) lines, read into gpu_indices).
// Its times ("2026-11-30T09:44:07") are local time, read in this process's time zone (TZ).
Result<SlurmJob> ParseScontrolJob(std::string_view text);
// A jobcomp/filetxt file: one finished job per line; blank lines are skipped. Times as above,
// in the time zone of the slurmctld that wrote the file (run squeeze with the same TZ).
Result<std::vector<SlurmJob>> ParseJobcomp(std::string_view text);

// The GPU indices of a GRES string: "gpu:2(IDX:0-1)" -> {0,1}, "gpu:a100:3(IDX:0,2-3)" ->
// {0,2,3}, "gpu:0" or "gpu:0(IDX:N/A)" -> {}; entries other than gpu are skipped.
Result<std::vector<int>> ParseGresIndices(std::string_view gres);
// The GPU model and count of a GRES string: "gpu:4" -> {"", 4}, "gpu:a100:4(S:0-1)" ->
// {"a100", 4}; no gpu entry ("", "(null)", "mps:100") -> {"", 0}. Two models is an error.
Result<std::pair<std::string, int>> ParseGresCount(std::string_view gres);

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_SLURM_OUTPUT_H_
