#include "store/request_json.h"

#include <nlohmann/json.hpp>

#include "core/safe_text.h"

namespace squeeze {
namespace {

using nlohmann::json;

// A request's times are kept in seconds (as the API takes them): a whole number where it is
// one, else a fraction (a Time of ticks finer than a second).
json TimeJson(Time t) {
  if (t % kSecond == 0) return WholeSeconds(t);
  return ToSeconds(t);
}

Time TimeFromJson(const json& v) {
  if (v.is_number_integer()) return Seconds(v.get<int64_t>());
  return SecondsToTime(v.get<double>());
}

Time GetTime(const json& j, const char* key, Time fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return TimeFromJson(*it);
}

void PutOptional(json& j, const char* key, const std::optional<Time>& v) {
  if (v) j[key] = TimeJson(*v);
}

std::optional<Time> GetOptional(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return TimeFromJson(*it);
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
            {"checkpoint_interval", TimeJson(s.checkpoint_interval)},
            {"checkpoint_cost", TimeJson(s.checkpoint_cost)},
            {"fault_tolerant", s.fault_tolerant},
            {"regions", s.regions},
            {"data_gb", s.data_gb}};
  if (!s.gpu_speeds.empty()) j["gpu_speeds"] = s.gpu_speeds;  // absent in older rows
  if (!s.topology.IsDefault()) j["topology"] = TopologyRequestText(s.topology);  // likewise
  PutOptional(j, "checkpoint_stall", s.checkpoint_stall);
  PutOptional(j, "restart_overhead", s.restart_overhead);
  PutOptional(j, "estimate", s.estimate);
  PutOptional(j, "time_limit", s.time_limit);
  PutOptional(j, "deadline", s.deadline);
  if (!s.dependencies.empty()) {
    json deps = json::array();
    for (const Dependency& d : s.dependencies) {
      deps.push_back({{"kind", DependencyKindName(d.kind)}, {"jobs", d.jobs}});
    }
    j["dependencies"] = std::move(deps);
    if (s.dependency_any) j["dependency_any"] = true;
  }
  if (s.elastic.enabled()) {  // an elastic job (core/elastic.h); absent in older rows
    j["elastic"] = {{"min", s.elastic.min}, {"max", s.elastic.max}, {"step", s.elastic.step},
                    {"reference", s.elastic.reference},
                    {"scaling", ScalingText(s.elastic.scaling)}};
  }
  if (s.array_id != 0) {
    j["array_id"] = s.array_id;
    j["array_task"] = s.array_task;
    if (s.array_limit > 0) j["array_limit"] = s.array_limit;
  }
  return j;
}

DependencyKind KindFromName(const std::string& name) {
  for (DependencyKind k : {DependencyKind::kAfter, DependencyKind::kAfterAny,
                           DependencyKind::kAfterOk, DependencyKind::kAfterNotOk,
                           DependencyKind::kSingleton}) {
    if (DependencyKindName(k) == name) return k;
  }
  throw std::runtime_error("unknown dependency kind '" + name + "'");
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
  s.gpu_speeds = j.value("gpu_speeds", s.gpu_speeds);
  if (auto t = ParseTopologyRequest(j.value("topology", std::string("preferred"))); t.ok()) {
    s.topology = std::move(*t);
  }
  s.cpu_milli = j.value("cpu_milli", s.cpu_milli);
  s.memory_mib = j.value("memory_mib", s.memory_mib);
  s.preemptible = j.value("preemptible", s.preemptible);
  s.checkpointable = j.value("checkpointable", s.checkpointable);
  s.checkpoint_interval = GetTime(j, "checkpoint_interval", s.checkpoint_interval);
  s.checkpoint_cost = GetTime(j, "checkpoint_cost", s.checkpoint_cost);
  s.fault_tolerant = j.value("fault_tolerant", s.fault_tolerant);  // false in older rows
  s.checkpoint_stall = GetOptional(j, "checkpoint_stall");
  s.restart_overhead = GetOptional(j, "restart_overhead");
  s.estimate = GetOptional(j, "estimate");
  s.time_limit = GetOptional(j, "time_limit");
  s.deadline = GetOptional(j, "deadline");
  s.regions = j.value("regions", s.regions);
  s.data_gb = j.value("data_gb", s.data_gb);  // 0 in rows stored before it existed
  if (auto it = j.find("dependencies"); it != j.end()) {
    for (const json& d : *it) {
      s.dependencies.push_back(
          {KindFromName(d.at("kind").get<std::string>()), d.at("jobs").get<std::vector<JobId>>()});
    }
  }
  s.dependency_any = j.value("dependency_any", false);
  if (auto it = j.find("elastic"); it != j.end()) {
    s.elastic.min = it->at("min").get<int>();
    s.elastic.max = it->at("max").get<int>();
    s.elastic.step = it->value("step", 1);
    s.elastic.reference = it->value("reference", 0);
    auto scaling = ParseScaling(it->value("scaling", std::string("linear")));
    if (!scaling.ok()) throw std::runtime_error(scaling.status().message());
    s.elastic.scaling = *scaling;
  }
  s.array_id = j.value("array_id", JobId{0});
  s.array_task = j.value("array_task", 0);
  s.array_limit = j.value("array_limit", 0);
  return s;
}

}  // namespace

std::string RequestToJson(const JobRequest& request) {
  json j = {{"spec", SpecToJson(request.spec)},
            {"command", request.command},
            {"workdir", request.workdir},
            {"env", request.env},
            {"max_retries", request.max_retries}};
  if (request.tasks > 0) j["tasks"] = request.tasks;
  if (!request.output_path.empty()) j["output_path"] = request.output_path;
  if (!request.error_path.empty()) j["error_path"] = request.error_path;
  if (!request.dependency.empty()) j["dependency"] = request.dependency;
  if (!request.array.empty()) {
    j["array"] = request.array;
    j["array_size"] = request.array_size;
  }
  if (const CheckpointStore& c = request.checkpoint_store; c.named()) {
    j["checkpoint_store"] = {{"url", c.url},           {"endpoint", c.endpoint},
                             {"region", c.region},     {"credentials", c.credentials},
                             {"profile", c.profile},   {"keep", c.keep},
                             {"checkpoint_bytes", c.checkpoint_bytes},
                             {"upload_gbps", c.upload_gbps},
                             {"max_upload_gbps", c.max_upload_gbps}};
  }
  // Bytes that are not UTF-8 become U+FFFD rather than a throw (the reader refuses them, so
  // none should come).
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<JobRequest> RequestFromJson(const std::string& text) {
  try {
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    // A row whose text is not UTF-8 (written by hand, or by an older squeeze): read with
    // U+FFFD in place of the broken bytes, rather than lost.
    if (j.is_discarded()) j = json::parse(ValidUtf8(text));
    JobRequest r;
    if (auto it = j.find("spec"); it != j.end()) r.spec = SpecFromJson(*it);
    r.command = j.value("command", r.command);
    r.workdir = j.value("workdir", r.workdir);
    r.env = j.value("env", r.env);
    r.max_retries = j.value("max_retries", r.max_retries);
    r.tasks = j.value("tasks", r.tasks);
    r.output_path = j.value("output_path", r.output_path);
    r.error_path = j.value("error_path", r.error_path);
    r.dependency = j.value("dependency", r.dependency);
    r.array = j.value("array", r.array);
    r.array_size = j.value("array_size", r.array_size);
    if (auto it = j.find("checkpoint_store"); it != j.end()) {
      CheckpointStore& c = r.checkpoint_store;
      c.url = it->value("url", c.url);
      c.endpoint = it->value("endpoint", c.endpoint);
      c.region = it->value("region", c.region);
      c.credentials = it->value("credentials", c.credentials);
      c.profile = it->value("profile", c.profile);
      c.keep = it->value("keep", c.keep);
      c.checkpoint_bytes = it->value("checkpoint_bytes", c.checkpoint_bytes);
      c.upload_gbps = it->value("upload_gbps", c.upload_gbps);
      c.max_upload_gbps = it->value("max_upload_gbps", c.max_upload_gbps);
    }
    return r;
  } catch (const std::exception& e) {
    return Status::Error(std::string("stored job request is not valid: ") + e.what());
  }
}

std::string GpusToJson(const std::vector<int>& gpus) { return json(gpus).dump(); }  // numbers

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
