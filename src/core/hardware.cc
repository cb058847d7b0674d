#include "core/hardware.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

namespace squeeze {
namespace {

std::string Shown(std::string_view text) {
  std::string out = "'";
  for (char ch : text.substr(0, 60)) out += (ch >= 32 && ch < 127) ? ch : '?';
  if (text.size() > 60) out += "...";
  return out + "'";
}

}  // namespace

Result<std::map<std::string, double>> ParseGpuSpeeds(std::string_view text) {
  std::map<std::string, double> out;
  const std::string what = "GPU speeds " + Shown(text) + ": ";
  if (text.empty()) return Status::Error(what + "no MODEL:SPEED pairs");
  std::string_view rest = text;
  while (true) {
    const size_t end = rest.find_first_of(",|");
    const std::string_view item = rest.substr(0, end);
    const size_t colon = item.rfind(':');
    const std::string model(colon == std::string_view::npos ? item : item.substr(0, colon));
    const std::string number(colon == std::string_view::npos ? "" : item.substr(colon + 1));
    char* stop = nullptr;
    const double speed = number.empty() || number.size() > 32 ? NAN : std::strtod(number.c_str(), &stop);
    if (model.empty() || number.empty() || stop != number.c_str() + number.size() ||
        !(speed > 0 && speed <= 1000)) {
      return Status::Error(what + Shown(item) +
                           " is not MODEL:SPEED with a speed in (0, 1000] (as V100:1,K80:0.24)");
    }
    for (char ch : model) {
      if (static_cast<unsigned char>(ch) < 33 || ch == 127) {
        return Status::Error(what + "model " + Shown(model) + " has a space or a control character");
      }
    }
    if (!out.emplace(model, speed).second) {
      return Status::Error(what + "model " + Shown(model) + " is given twice");
    }
    if (out.size() > 64) return Status::Error(what + "more than 64 models");
    if (end == std::string_view::npos) break;
    rest = rest.substr(end + 1);
  }
  return out;
}

std::string GpuSpeedsText(const std::map<std::string, double>& speeds, char separator) {
  std::string out;
  for (const auto& [model, speed] : speeds) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", speed);
    if (!out.empty()) out += separator;
    out += model + ":" + buf;
  }
  return out;
}

double JobSpeedOn(const JobSpec& spec, const NodeGroup& group) {
  if (!spec.gpu_speeds.empty()) {
    const auto it = spec.gpu_speeds.find(group.gpu_model);
    if (it != spec.gpu_speeds.end()) return it->second;
  }
  return group.speed;
}

double JobSpeedOn(const JobSpec& spec, const ClusterState& cluster, const Placement& placement) {
  double speed = 1;
  bool any = false;
  for (const NodeShare& share : placement.shares) {
    const double s = JobSpeedOn(spec, cluster.group(cluster.node(share.node).group));
    speed = any ? std::min(speed, s) : s;
    any = true;
  }
  return speed;
}

double CardSpeedOn(const ClusterState& cluster, const Placement& placement) {
  double speed = 1;
  bool any = false;
  for (const NodeShare& share : placement.shares) {
    const double s = cluster.group(cluster.node(share.node).group).speed;
    speed = any ? std::min(speed, s) : s;
    any = true;
  }
  return speed;
}

bool OneCardKind(const ClusterState& cluster, const JobSpec& spec, const std::vector<int>& groups) {
  for (size_t i = 1; i < groups.size(); ++i) {
    const NodeGroup& a = cluster.group(groups[0]);
    const NodeGroup& b = cluster.group(groups[i]);
    if (a.gpu_memory_mib != b.gpu_memory_mib || JobSpeedOn(spec, a) != JobSpeedOn(spec, b)) {
      return false;
    }
  }
  return true;
}

std::vector<std::vector<int>> HardwareTiers(const ClusterState& cluster, const JobSpec& spec,
                                            const std::vector<int>& groups,
                                            std::optional<Time> remaining,
                                            const HardwareRule& rule) {
  return HardwareTiers(cluster, spec, groups, [&] { return remaining; }, rule);
}

std::vector<std::vector<int>> HardwareTiers(
    const ClusterState& cluster, const JobSpec& spec, const std::vector<int>& groups,
    const std::function<std::optional<Time>()>& remaining_work, const HardwareRule& rule) {
  struct Kind {
    int group;
    int64_t memory;
    double speed;
    bool enough = false;
  };
  std::vector<Kind> kinds;
  double fastest = 0;
  for (int g : groups) {
    const double speed = JobSpeedOn(spec, cluster.group(g));
    kinds.push_back({g, cluster.group(g).gpu_memory_mib, speed});
    fastest = std::max(fastest, speed);
  }
  if (OneCardKind(cluster, spec, groups)) return {groups};
  std::optional<std::optional<Time>> asked;
  for (Kind& k : kinds) {
    k.enough = k.speed * (1 + rule.slack) >= fastest;
    if (!k.enough && !asked) asked = remaining_work();
    const std::optional<Time> remaining = asked ? *asked : std::nullopt;
    if (!k.enough && remaining) {
      const double work = ToSeconds(*remaining);
      k.enough = work / k.speed - work / fastest < ToSeconds(rule.min_saving);
    }
  }
  // Good enough first, the smallest and slowest of them first; then the rest, fastest first.
  std::stable_sort(kinds.begin(), kinds.end(), [](const Kind& a, const Kind& b) {
    if (a.enough != b.enough) return a.enough;
    if (a.enough) return std::tie(a.memory, a.speed) < std::tie(b.memory, b.speed);
    return std::make_tuple(-a.speed, a.memory) < std::make_tuple(-b.speed, b.memory);
  });
  std::vector<std::vector<int>> tiers;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const bool same = i > 0 && kinds[i].memory == kinds[i - 1].memory &&
                      kinds[i].speed == kinds[i - 1].speed &&
                      kinds[i].enough == kinds[i - 1].enough;
    if (!same) tiers.emplace_back();
    tiers.back().push_back(kinds[i].group);
  }
  return tiers;
}

}  // namespace squeeze
