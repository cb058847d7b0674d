#include "config/job_json_writer.h"

#include <nlohmann/json.hpp>

#include "config/job_values.h"
#include "core/duration.h"

namespace squeeze {
namespace {

// checkpoint_store as a map of what is set (the defaults left out).
nlohmann::ordered_json StoreToJson(const CheckpointStore& c) {
  nlohmann::ordered_json j;
  j["url"] = c.url;
  if (!c.endpoint.empty()) j["endpoint"] = c.endpoint;
  if (!c.region.empty()) j["region"] = c.region;
  if (!c.credentials.empty()) j["credentials"] = c.credentials;
  if (!c.profile.empty()) j["profile"] = c.profile;
  if (c.keep != CheckpointStore{}.keep) j["keep"] = c.keep;
  if (c.checkpoint_bytes > 0) j["checkpoint_size"] = std::to_string(c.checkpoint_bytes >> 20) + "MiB";
  if (c.upload_gbps != CheckpointStore{}.upload_gbps) j["upload_gbps"] = c.upload_gbps;
  if (c.max_upload_gbps > 0) j["max_upload_gbps"] = c.max_upload_gbps;
  return j;
}

}  // namespace

std::string FormatCpuMilli(int64_t milli) {
  std::string text = milli < 0 ? "-" : "";
  const uint64_t m = milli < 0 ? -static_cast<uint64_t>(milli) : static_cast<uint64_t>(milli);
  text += std::to_string(m / 1000);
  if (const uint64_t frac = m % 1000; frac != 0) {
    std::string digits = std::to_string(frac);
    digits.insert(0, 3 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    text += '.';
    text += digits;
  }
  return text;
}

std::string JobRequestToJobJson(const JobRequest& r) {
  const JobSpec& s = r.spec;
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!s.name.empty()) j["name"] = s.name;
  j["command"] = r.command;
  if (!r.workdir.empty()) j["workdir"] = r.workdir;
  if (!r.env.empty()) j["env"] = r.env;
  if (s.elastic.enabled()) {
    j["gpus"] = std::to_string(s.elastic.min) + "-" + std::to_string(s.elastic.max);
    if (s.elastic.step != 1) j["step"] = s.elastic.step;
    if (s.elastic.scaling.kind != Scaling::Kind::kLinear) j["scaling"] = ScalingText(s.elastic.scaling);
  } else {
    j["gpus"] = s.gpus;
  }
  j["gpu_milli"] = s.gpu_milli;
  if (!s.gpu_models.empty()) j["gpu_models"] = s.gpu_models;
  if (s.min_gpu_memory_mib > 0) j["gpu_memory"] = std::to_string(s.min_gpu_memory_mib) + "MiB";
  if (!s.gpu_speeds.empty()) j["gpu_speeds"] = s.gpu_speeds;
  if (!s.topology.IsDefault()) j["topology"] = TopologyRequestText(s.topology);
  if (!s.pool.empty()) j["pool"] = s.pool;
  if (!s.regions.empty()) j["regions"] = s.regions;
  if (s.data_gb != 0) j["data_gb"] = s.data_gb;
  j["urgency"] = std::string(UrgencyName(s.urgency));
  j["preemptible"] = s.preemptible;
  j["checkpointable"] = s.checkpointable;
  if (s.checkpoint_interval > 0) j["checkpoint_interval"] = FormatDuration(s.checkpoint_interval);
  // A stall needs its cost beside it, even a cost of 0s.
  // The file's checkpoint_cost is the save alone: reading it adds the upload again.
  const Time save_cost = s.checkpoint_cost - UploadSeconds(r.checkpoint_store);
  if (save_cost > 0 || s.checkpoint_stall) j["checkpoint_cost"] = FormatDuration(save_cost);
  if (s.checkpoint_stall) j["checkpoint_stall"] = FormatDuration(*s.checkpoint_stall);
  if (s.fault_tolerant) j["fault_tolerant"] = true;
  if (s.estimate) j["estimate"] = FormatDuration(*s.estimate);
  if (s.time_limit) j["time_limit"] = FormatDuration(*s.time_limit);
  if (s.deadline) j["deadline"] = FormatDateTime(*s.deadline);
  if (!s.team.empty()) j["team"] = s.team;
  if (s.cpu_milli > 0) j["cpus"] = FormatCpuMilli(s.cpu_milli);
  if (s.memory_mib > 0) j["memory"] = std::to_string(s.memory_mib) + "MiB";
  if (r.max_retries >= 0) j["max_retries"] = r.max_retries;
  if (r.tasks > 0) j["tasks"] = r.tasks;
  if (r.hold) j["hold"] = true;
  if (r.begin) j["begin"] = FormatDateTime(*r.begin);
  if (!r.output_path.empty()) j["output"] = r.output_path;
  if (!r.error_path.empty()) j["error"] = r.error_path;
  if (!r.array.empty()) j["array"] = r.array;
  if (!r.dependency.empty()) j["dependency"] = r.dependency;
  if (r.checkpoint_store.named()) j["checkpoint_store"] = StoreToJson(r.checkpoint_store);
  // Bytes that are not UTF-8 cannot travel in JSON; they become U+FFFD rather than throw.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace squeeze
