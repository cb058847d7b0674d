// `squeeze gpu-agent`'s logic: the telemetry report of one reading of a node's GPUs, and the
// reports kept while the daemon cannot be reached, sent oldest first with their own times once
// it can (POST /v1/telemetry takes readings from the past). Pure; not thread-safe.
#ifndef SQUEEZE_CLI_GPU_AGENT_H_
#define SQUEEZE_CLI_GPU_AGENT_H_

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/types.h"
#include "exec/gpu_utilization.h"

namespace squeeze {

// {"time": at (whole seconds since the epoch), "gpus": [{"node", "gpu": index + gpu_offset,
// "utilization", "memory_used_mib"}]} for the GPUs with a value; null when none has one.
nlohmann::json AgentReport(const std::string& node, int gpu_offset,
                           const std::vector<GpuUtilization>& readings, Time at);

class AgentBacklog {
 public:
  explicit AgentBacklog(size_t max_reports) : max_(max_reports) {}
  // Keeps `report` to send; the oldest is dropped when more than max are kept.
  void Add(nlohmann::json report);
  // Sends the kept reports oldest first; stops at the first that fails and keeps it and the
  // rest. The number sent.
  size_t Send(const std::function<Status(const nlohmann::json&)>& send, Status* last_error);
  size_t size() const { return reports_.size(); }
  size_t dropped() const { return dropped_; }

 private:
  size_t max_;
  std::deque<nlohmann::json> reports_;
  size_t dropped_ = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_CLI_GPU_AGENT_H_
