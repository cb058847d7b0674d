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
                            std::to_string(kMaxReclaimWarning);
  Time warning = -1;
  if (it->is_number()) {
    const double v = it->get<double>();
    if (std::isfinite(v) && v >= 0 && v <= static_cast<double>(kMaxReclaimWarning)) {
      warning = static_cast<Time>(std::llround(v));
    }
  } else if (it->is_string()) {
    auto d = ParseDuration(it->get<std::string>());
    if (d.ok() && *d >= 0 && *d <= kMaxReclaimWarning) warning = *d;
  }
  if (warning < 0) return Status::Error("warning_s: " + Shown(*it) + range);
  return std::optional<Time>(warning);
}

Result<std::vector<GpuLoadReport>> ParseTelemetryBody(std::string_view body) {
  auto j = ParseObject(body, /*empty_ok=*/false);
  if (!j.ok()) return j.status();
  if (Status s = UnknownKeys(*j, {"gpus"}, ""); !s.ok()) return s;
  auto gpus = j->find("gpus");
  if (gpus == j->end()) {
    return Status::Error("gpus: missing; give a list of {node, gpu, inference_load}");
  }
  if (!gpus->is_array() || gpus->empty()) {
    return Status::Error("gpus: " + Shown(*gpus) + " is not a non-empty list");
  }
  if (gpus->size() > kMaxTelemetryGpus) {
    return Status::Error("gpus: " + std::to_string(gpus->size()) + " entries, at most " +
                         std::to_string(kMaxTelemetryGpus));
  }
  std::vector<GpuLoadReport> out;
  std::set<std::pair<std::string, int>> seen;
  for (size_t i = 0; i < gpus->size(); ++i) {
    const json& e = (*gpus)[i];
    const std::string at = "gpus[" + std::to_string(i) + "].";
    if (!e.is_object()) return Status::Error("gpus[" + std::to_string(i) + "]: " + Shown(e) +
                                             " is not an object {node, gpu, inference_load}");
    if (Status s = UnknownKeys(e, {"node", "gpu", "inference_load"}, at); !s.ok()) return s;
    GpuLoadReport r;
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
    auto load = e.find("inference_load");
    if (load == e.end() || !load->is_number() || !(load->get<double>() >= 0) ||
        !(load->get<double>() <= 1)) {
      return Bad(at + "inference_load", e, "a number from 0 to 1");
    }
    r.load = load->get<double>();
    if (!seen.insert({r.node, r.gpu}).second) {
      return Status::Error(at + "gpu: GPU " + std::to_string(r.gpu) + " of node " + r.node +
                           " is reported twice");
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace squeeze
