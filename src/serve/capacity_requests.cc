#include "serve/capacity_requests.h"

#include <cmath>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "config/text_util.h"
#include "core/duration.h"

namespace squeeze {
namespace {

using nlohmann::json;

// A value as the caller wrote it, cut short, for error messages.
std::string Shown(const json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

Result<json> ParseObject(std::string_view body, bool empty_ok) {
  if (empty_ok && body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return json::object();
  }
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error("the body is not JSON");
  if (!j.is_object()) return Status::Error("the body must be a JSON object, got " + Shown(j));
  return j;
}

Status UnknownKeys(const json& object, const std::vector<std::string_view>& known,
                   const std::string& where) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    bool ok = false;
    for (std::string_view k : known) ok = ok || key == k;
    if (ok) continue;
    auto near = NearestName(key, known);
    return Status::Error("unknown field '" + where + key + "'" +
                         (near ? " (did you mean '" + where + *near + "'?)" : ""));
  }
  return Status::Ok();
}

// `field` of `object` (its last name after the dot) is missing or not `expected`.
Status Bad(const std::string& field, const json& object, const std::string& expected) {
  const std::string key = field.substr(field.rfind('.') + 1);
  auto it = object.find(key);
  if (it == object.end()) return Status::Error(field + ": missing; expected " + expected);
  return Status::Error(field + ": " + Shown(*it) + " is not " + expected);
}

}  // namespace

Result<std::optional<Time>> ParseReclaimBody(std::string_view body) {
  auto j = ParseObject(body, /*empty_ok=*/true);
  if (!j.ok()) return j.status();
  if (Status s = UnknownKeys(*j, {"warning_s"}, ""); !s.ok()) return s;
  auto it = j->find("warning_s");
  if (it == j->end() || it->is_null()) return std::optional<Time>();
  const std::string range = " is not a number of seconds from 0 to " +
                            std::to_string(WholeSeconds(kMaxReclaimWarning));
  Time warning = -1;
  if (it->is_number()) {
    const double v = it->get<double>();
    if (std::isfinite(v) && v >= 0 && v <= ToSeconds(kMaxReclaimWarning)) {
      warning = Seconds(std::llround(v));
    }
  } else if (it->is_string()) {
    auto d = ParseDuration(it->get<std::string>());
    if (d.ok() && *d >= 0 && *d <= kMaxReclaimWarning) warning = *d;
  }
  if (warning < 0) return Status::Error("warning_s: " + Shown(*it) + range);
  return std::optional<Time>(warning);
}

namespace {

// An optional number field `key` of `e` within [lo, hi]; an error names it as `at` + key.
Status ReadReading(const json& e, const std::string& at, const char* key, double lo,
                   std::optional<double> hi, const std::string& expected,
                   std::optional<double>& out) {
  auto it = e.find(key);
  if (it == e.end() || it->is_null()) return Status::Ok();
  if (!it->is_number() || !(it->get<double>() >= lo) ||
      (hi && !(it->get<double>() <= *hi)) || !std::isfinite(it->get<double>())) {
    return Bad(at + key, e, expected);
  }
  out = it->get<double>();
  return Status::Ok();
}

Result<GpuTelemetry> ReadGpuEntry(const json& e, size_t i) {
  const std::string at = "gpus[" + std::to_string(i) + "].";
  const std::string shape = " is not an object {node, gpu, and one or more of inference_load, "
                            "utilization, memory_used_mib}";
  if (!e.is_object()) return Status::Error("gpus[" + std::to_string(i) + "]: " + Shown(e) + shape);
  if (Status s = UnknownKeys(e, {"node", "gpu", "inference_load", "utilization",
                                 "memory_used_mib"}, at);
      !s.ok()) {
    return s;
  }
  GpuTelemetry r;
  auto node = e.find("node");
  if (node == e.end() || !node->is_string() || node->get<std::string>().empty()) {
    return Bad(at + "node", e, "a node name");
  }
  r.node = node->get<std::string>();
  auto gpu = e.find("gpu");
  if (gpu == e.end() || !gpu->is_number_integer() || gpu->get<int64_t>() < 0 ||
      gpu->get<int64_t>() > 1024) {
    return Bad(at + "gpu", e, "a GPU index (0, 1, ...)");
  }
  r.gpu = static_cast<int>(gpu->get<int64_t>());
  const std::string share = "a number from 0 to 1";
  if (Status s = ReadReading(e, at, "inference_load", 0, 1, share, r.inference_load); !s.ok()) {
    return s;
  }
  if (Status s = ReadReading(e, at, "utilization", 0, 1, share, r.utilization); !s.ok()) return s;
  if (Status s = ReadReading(e, at, "memory_used_mib", 0, std::nullopt,
                             "a number of MiB (0 or more)", r.memory_used_mib);
      !s.ok()) {
    return s;
  }
  if (!r.inference_load && !r.utilization && !r.memory_used_mib) {
    return Status::Error("gpus[" + std::to_string(i) + "]: no reading; give inference_load, "
                         "utilization or memory_used_mib (or several)");
  }
  return r;
}

}  // namespace

Result<TelemetryReport> ParseTelemetryBody(std::string_view body) {
  auto j = ParseObject(body, /*empty_ok=*/false);
  if (!j.ok()) return j.status();
  if (Status s = UnknownKeys(*j, {"gpus", "time"}, ""); !s.ok()) return s;
  TelemetryReport report;
  if (auto t = j->find("time"); t != j->end() && !t->is_null()) {
    if (!t->is_number() || !std::isfinite(t->get<double>()) || t->get<double>() < 0 ||
        t->get<double>() > 1e11) {
      return Status::Error("time: " + Shown(*t) + " is not a time in unix seconds");
    }
    report.time = Seconds(std::llround(t->get<double>()));
  }
  auto gpus = j->find("gpus");
  if (gpus == j->end()) {
    return Status::Error("gpus: missing; give a list of {node, gpu, inference_load, "
                         "utilization, memory_used_mib}");
  }
  if (!gpus->is_array() || gpus->empty()) {
    return Status::Error("gpus: " + Shown(*gpus) + " is not a non-empty list");
  }
  if (gpus->size() > kMaxTelemetryGpus) {
    return Status::Error("gpus: " + std::to_string(gpus->size()) + " entries, at most " +
                         std::to_string(kMaxTelemetryGpus));
  }
  std::set<std::pair<std::string, int>> seen;
  for (size_t i = 0; i < gpus->size(); ++i) {
    auto r = ReadGpuEntry((*gpus)[i], i);
    if (!r.ok()) return r.status();
    if (!seen.insert({r->node, r->gpu}).second) {
      return Status::Error("gpus[" + std::to_string(i) + "].gpu: GPU " + std::to_string(r->gpu) +
                           " of node " + r->node + " is reported twice");
    }
    report.gpus.push_back(std::move(r).value());
  }
  return report;
}

}  // namespace squeeze
