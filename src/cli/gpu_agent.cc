#include "cli/gpu_agent.h"

namespace squeeze {

nlohmann::json AgentReport(const std::string& node, int gpu_offset,
                           const std::vector<GpuUtilization>& readings, Time at) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuUtilization& r : readings) {
    if (!r.utilization && !r.memory_used_mib) continue;
    nlohmann::json g = {{"node", node}, {"gpu", r.index + gpu_offset}};
    if (r.utilization) g["utilization"] = *r.utilization;
    if (r.memory_used_mib) g["memory_used_mib"] = *r.memory_used_mib;
    gpus.push_back(std::move(g));
  }
  if (gpus.empty()) return nullptr;
  return {{"time", WholeSeconds(at)}, {"gpus", gpus}};  // the API's seconds since the epoch
}

void AgentBacklog::Add(nlohmann::json report) {
  reports_.push_back(std::move(report));
  while (reports_.size() > max_) {
    reports_.pop_front();
    ++dropped_;
  }
}

size_t AgentBacklog::Send(const std::function<Status(const nlohmann::json&)>& send,
                          Status* last_error) {
  size_t sent = 0;
  while (!reports_.empty()) {
    Status s = send(reports_.front());
    if (!s.ok()) {
      if (last_error != nullptr) *last_error = s;
      break;
    }
    reports_.pop_front();
    ++sent;
  }
  return sent;
}

}  // namespace squeeze
