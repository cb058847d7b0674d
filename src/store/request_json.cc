#include "store/request_json.h"

#include <nlohmann/json.hpp>

namespace squeeze {
namespace {

using nlohmann::json;

void PutOptional(json& j, const char* key, const std::optional<Time>& v) {
  if (v) j[key] = *v;
}

std::optional<Time> GetOptional(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<Time>();
}

json SpecToJson(const JobSpec& s) {
  json j = {{"name", s.name},
            {"team", s.team},
            {"pool", s.pool},
            {"urgency", UrgencyName(s.urgency)},
            {"gpus", s.gpus},
            {"gpu_milli", s.gpu_milli},
            {"gpu_models", s.gpu_models},
            {"min_gpu_memory_mib", s.min_gpu_memory_mib},
            {"cpu_milli", s.cpu_milli},
            {"memory_mib", s.memory_mib},
            {"preemptible", s.preemptible},
            {"checkpointable", s.checkpointable},
            {"checkpoint_interval", s.checkpoint_interval},
            {"checkpoint_cost", s.checkpoint_cost},
            {"fault_tolerant", s.fault_tolerant},
            {"regions", s.regions},
            {"data_gb", s.data_gb}};
  PutOptional(j, "checkpoint_stall", s.checkpoint_stall);
  PutOptional(j, "restart_overhead", s.restart_overhead);
  PutOptional(j, "estimate", s.estimate);
  PutOptional(j, "time_limit", s.time_limit);
  PutOptional(j, "deadline", s.deadline);
  return j;
}

JobSpec SpecFromJson(const json& j) {
  JobSpec s;
  s.name = j.value("name", s.name);
  s.team = j.value("team", s.team);
  s.pool = j.value("pool", s.pool);
  const std::string urgency = j.value("urgency", std::string(UrgencyName(s.urgency)));
  auto parsed = ParseUrgency(urgency);
  if (!parsed) throw std::runtime_error("unknown urgency '" + urgency + "'");
  s.urgency = *parsed;
  s.gpus = j.value("gpus", s.gpus);
  s.gpu_milli = j.value("gpu_milli", s.gpu_milli);
  s.gpu_models = j.value("gpu_models", s.gpu_models);
  s.min_gpu_memory_mib = j.value("min_gpu_memory_mib", s.min_gpu_memory_mib);
  s.cpu_milli = j.value("cpu_milli", s.cpu_milli);
  s.memory_mib = j.value("memory_mib", s.memory_mib);
  s.preemptible = j.value("preemptible", s.preemptible);
  s.checkpointable = j.value("checkpointable", s.checkpointable);
  s.checkpoint_interval = j.value("checkpoint_interval", s.checkpoint_interval);
  s.checkpoint_cost = j.value("checkpoint_cost", s.checkpoint_cost);
  s.fault_tolerant = j.value("fault_tolerant", s.fault_tolerant);  // false in older rows
  s.checkpoint_stall = GetOptional(j, "checkpoint_stall");
  s.restart_overhead = GetOptional(j, "restart_overhead");
  s.estimate = GetOptional(j, "estimate");
  s.time_limit = GetOptional(j, "time_limit");
  s.deadline = GetOptional(j, "deadline");
  s.regions = j.value("regions", s.regions);
  s.data_gb = j.value("data_gb", s.data_gb);  // 0 in rows stored before it existed
  return s;
}

}  // namespace

std::string RequestToJson(const JobRequest& request) {
  json j = {{"spec", SpecToJson(request.spec)},
            {"command", request.command},
            {"workdir", request.workdir},
            {"env", request.env},
            {"max_retries", request.max_retries}};
  return j.dump();
}

Result<JobRequest> RequestFromJson(const std::string& text) {
  try {
    const json j = json::parse(text);
    JobRequest r;
    if (auto it = j.find("spec"); it != j.end()) r.spec = SpecFromJson(*it);
    r.command = j.value("command", r.command);
    r.workdir = j.value("workdir", r.workdir);
    r.env = j.value("env", r.env);
    r.max_retries = j.value("max_retries", r.max_retries);
    return r;
  } catch (const std::exception& e) {
    return Status::Error(std::string("stored job request is not valid: ") + e.what());
  }
}

std::string GpusToJson(const std::vector<int>& gpus) { return json(gpus).dump(); }

Result<std::vector<int>> GpusFromJson(const std::string& text) {
  if (text.empty() || text == "[]") return std::vector<int>{};
  try {
    return json::parse(text).get<std::vector<int>>();
  } catch (const std::exception& e) {
    return Status::Error(std::string("stored GPU list '" + text + "' is not valid: ") +
                         e.what());
  }
}

}  // namespace squeeze
