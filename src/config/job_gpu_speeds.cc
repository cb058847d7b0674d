#include "config/job_gpu_speeds.h"

#include <cstdio>

#include "config/text_util.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

constexpr size_t kMaxGpuSpeedModelChars = 128;

Status GpuSpeedsError(const std::string& where, const std::string& source,
                      const std::string& field, const std::string& message) {
  return Status::Error((where.empty() ? source : where) + ": " + field + ": " + message);
}

std::string SpeedBounds() {
  char text[64];
  std::snprintf(text, sizeof text, "a speed from %g to %g", kMinJobGpuSpeed, kMaxJobGpuSpeed);
  return text;
}

// One model's speed, checked against the bounds a user's claim has.
Status CheckGpuSpeed(const std::string& model, double speed, const std::string& shown,
                     const std::string& where, const std::string& source,
                     const std::string& field) {
  const std::string name(Trim(model));
  if (name.empty()) return GpuSpeedsError(where, source, field, "a model name is empty");
  if (name.size() > kMaxGpuSpeedModelChars) {
    return GpuSpeedsError(where, source, field,
                          "model " + QuotedValue(name) + " is longer than 128 characters");
  }
  if (!(speed >= kMinJobGpuSpeed && speed <= kMaxJobGpuSpeed)) {
    return GpuSpeedsError(where, source, field,
                          "value " + QuotedValue(shown) + " is not " + SpeedBounds() +
                              " (relative to the card the estimate is for, 1)");
  }
  return Status::Ok();
}

// One MODEL: SPEED entry, checked and added to `speeds`; `shown` is the speed as written.
Status AddGpuSpeed(const std::string& model, const std::string& shown, const std::string& where,
                   const std::string& source, std::map<std::string, double>& speeds) {
  const std::string field = "gpu_speeds." + model;
  const std::optional<double> speed = ParseDouble(Trim(shown));
  if (Status s = CheckGpuSpeed(model, speed.value_or(-1), shown, where, source, field); !s.ok()) {
    return s;
  }
  if (!speeds.emplace(std::string(Trim(model)), *speed).second) {
    return GpuSpeedsError(where, source, field, "the model is given twice");
  }
  if (speeds.size() > kMaxJobGpuSpeeds) {
    return GpuSpeedsError(where, source, "gpu_speeds",
                          "more than " + std::to_string(kMaxJobGpuSpeeds) + " models");
  }
  return Status::Ok();
}

// The text form: MODEL:SPEED pairs separated by commas (V100:1,K80:0.24).
Result<std::map<std::string, double>> FromText(const JobNode& n, const std::string& source) {
  std::map<std::string, double> speeds;
  std::string_view rest = Trim(n.text);
  if (rest.empty()) {
    return GpuSpeedsError(n.where, source, "gpu_speeds",
                          "no MODEL:SPEED pairs (as V100:1,K80:0.24)");
  }
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const size_t colon = item.rfind(':');
    if (colon == std::string_view::npos) {
      return GpuSpeedsError(n.where, source, "gpu_speeds",
                            QuotedValue(item) + " is not MODEL:SPEED (as V100:1,K80:0.24)");
    }
    if (Status s = AddGpuSpeed(std::string(item.substr(0, colon)),
                               std::string(item.substr(colon + 1)), n.where, source, speeds);
        !s.ok()) {
      return s;
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return speeds;
}

}  // namespace

Result<std::map<std::string, double>> ReadJobGpuSpeeds(const JobNode& n,
                                                       const std::string& source) {
  if (n.kind == JobNode::Kind::kScalar) return FromText(n, source);
  if (n.kind != JobNode::Kind::kMap) {
    return GpuSpeedsError(n.where, source, "gpu_speeds",
                          "expected a map of MODEL: SPEED (or the text V100:1,K80:0.24), got " +
                              std::string(JobNodeKindName(n.kind)));
  }
  if (n.entries.size() > kMaxJobGpuSpeeds) {
    return GpuSpeedsError(n.where, source, "gpu_speeds",
                          std::to_string(n.entries.size()) + " models; the limit is " +
                              std::to_string(kMaxJobGpuSpeeds));
  }
  std::map<std::string, double> speeds;
  for (const JobEntry& e : n.entries) {
    const std::string where = e.value.where.empty() ? e.where : e.value.where;
    if (e.value.kind != JobNode::Kind::kScalar) {
      return GpuSpeedsError(where, source, "gpu_speeds." + e.key,
                            "expected a number, got " + std::string(JobNodeKindName(e.value.kind)));
    }
    if (Status s = AddGpuSpeed(e.key, e.value.text, where, source, speeds); !s.ok()) return s;
  }
  return speeds;
}

}  // namespace squeeze
