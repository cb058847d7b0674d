#include "serve/job_update.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "config/job_file.h"
#include "config/job_values.h"
#include "core/duration.h"

namespace squeeze {
namespace {

constexpr const char* kFields =
    "urgency, gpus, time_limit, gpu_models, gpu_memory, gpu_speeds, topology";

std::string Shown(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// A card or topology field, read by the job file's reader from a job that has only it.
Status ReadHardwareField(const std::string& key, const nlohmann::json& value, JobUpdate& out) {
  if (value.is_null()) {
    if (key == "gpu_models") out.gpu_models.emplace();
    if (key == "gpu_memory") out.gpu_memory_mib = 0;
    if (key == "gpu_speeds") out.gpu_speeds.emplace();
    if (key == "topology") out.topology = TopologyRequest{};
    return Status::Ok();
  }
  nlohmann::json probe = {{"command", {"true"}}, {key, value}};
  Result<JobRequest> read = ParseJobJson(probe.dump(), 0);
  if (!read.ok()) return read.status();
  const JobSpec& s = read->spec;
  if (key == "gpu_models") out.gpu_models = s.gpu_models;
  if (key == "gpu_memory") out.gpu_memory_mib = s.min_gpu_memory_mib;
  if (key == "gpu_speeds") out.gpu_speeds = s.gpu_speeds;
  if (key == "topology") out.topology = s.topology;
  return Status::Ok();
}

Status ReadField(const std::string& key, const nlohmann::json& value, JobUpdate& out) {
  if (key == "urgency") {
    out.urgency = value.is_string() ? ParseUrgency(value.get<std::string>()) : std::nullopt;
    if (!out.urgency) {
      return Status::Error("urgency: '" + Shown(value) + "' is not critical, high, normal or low");
    }
  } else if (key == "gpus") {
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > 1024) {
      return Status::Error("gpus: '" + value.dump() + "' is not a number from 0 to 1024");
    }
    out.gpus = value.get<int>();
  } else if (key == "time_limit") {
    Result<Time> parsed = value.is_string() ? ParseSlurmTime(value.get<std::string>())
                                            : Result<Time>(Status::Error("not a string"));
    if (!parsed.ok()) {
      return Status::Error("time_limit: '" + Shown(value) +
                           "' is not a time limit (1:00:00, 90, 2h, UNLIMITED)");
    }
    out.limit = *parsed > 0 ? std::optional<Time>(*parsed) : std::nullopt;
  } else if (key == "gpu_models" || key == "gpu_memory" || key == "gpu_speeds" ||
             key == "topology") {
    return ReadHardwareField(key, value, out);
  } else {
    return Status::Error("'" + key + "' cannot be updated (" + kFields + ")");
  }
  return Status::Ok();
}

std::string Joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s.empty() ? "any" : s;
}

}  // namespace

bool JobUpdate::ChangesWaitingOnly() const {
  return urgency || gpus || gpu_models || gpu_memory_mib || gpu_speeds || topology;
}

std::string JobUpdate::ApplyTo(JobRequest& request) const {
  JobSpec& s = request.spec;
  std::string what;
  if (urgency) {
    s.urgency = *urgency;
    what += " urgency " + std::string(UrgencyName(*urgency));
  }
  if (gpus) {
    s.gpus = *gpus;
    what += " gpus " + std::to_string(*gpus);
  }
  if (limit) {
    s.time_limit = *limit;
    what += " time_limit " + (*limit ? FormatDuration(**limit) : std::string("none"));
  }
  if (gpu_models) {
    s.gpu_models = *gpu_models;
    what += " gpu_models " + Joined(*gpu_models);
  }
  if (gpu_memory_mib) {
    s.min_gpu_memory_mib = *gpu_memory_mib;
    what += " gpu_memory " +
            (*gpu_memory_mib > 0 ? std::to_string(*gpu_memory_mib) + "MiB" : std::string("any"));
  }
  if (gpu_speeds) {
    s.gpu_speeds = *gpu_speeds;
    std::string text;
    for (const auto& [model, speed] : *gpu_speeds) {
      char number[32];
      std::snprintf(number, sizeof number, "%g", speed);
      text += (text.empty() ? "" : ",") + model + ":" + number;
    }
    what += " gpu_speeds " + (text.empty() ? std::string("none") : text);
  }
  if (topology) {
    s.topology = *topology;
    what += " topology " + TopologyRequestText(*topology);
  }
  return what;
}

Result<JobUpdate> ParseJobUpdate(const std::string& body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Error("the body is not a JSON object");
  JobUpdate out;
  for (const auto& [key, value] : j.items()) {
    if (Status s = ReadField(key, value, out); !s.ok()) return s;
  }
  if (!out.ChangesWaitingOnly() && !out.limit) {
    return Status::Error(std::string("nothing to update: give one of ") + kFields);
  }
  return out;
}

}  // namespace squeeze
