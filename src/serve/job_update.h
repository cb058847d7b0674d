// What `squeeze update` (POST /v1/jobs/ID/update) asks to change in a job, as scontrol update
// does: urgency, GPUs and time limit, and while it waits the cards it may use (gpu_models,
// gpu_memory, gpu_speeds) and its topology request. Each value is checked by the job file's
// own reader (config/job_file.h), so an update takes what a submission takes, with the same
// messages; null puts a card or topology field back to its default. Pure; thread-safe.
#ifndef SQUEEZE_SERVE_JOB_UPDATE_H_
#define SQUEEZE_SERVE_JOB_UPDATE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/job_request.h"
#include "core/status.h"
#include "core/topology_spec.h"
#include "core/types.h"

namespace squeeze {

struct JobUpdate {
  std::optional<Urgency> urgency;
  std::optional<int> gpus;
  std::optional<std::optional<Time>> limit;  // set to nullopt: no limit
  std::optional<std::vector<std::string>> gpu_models;  // empty: any model
  std::optional<int64_t> gpu_memory_mib;                // 0: any memory
  std::optional<std::map<std::string, double>> gpu_speeds;
  std::optional<TopologyRequest> topology;

  // Whether it changes what only a waiting job may change (all but the time limit).
  bool ChangesWaitingOnly() const;
  // Applies the change to `request`; its words for the job's history (" urgency high ...").
  std::string ApplyTo(JobRequest& request) const;
};

// The update's JSON body; the error names the field and the value (a field that cannot be
// updated, a value the job file's reader refuses, an empty update).
Result<JobUpdate> ParseJobUpdate(const std::string& body);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_JOB_UPDATE_H_
