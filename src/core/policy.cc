#include "core/policy.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#include "core/duration.h"
#include "core/plugins/node_order.h"

namespace squeeze {
namespace {

const std::vector<std::string> kActions = {"reclaim", "allocate", "defrag", "backfill",
                                           "borrow",  "preempt",  "slice",  "region",
                                           "spot",    "colocate", "return_home"};

Policy Fifo() {
  Policy p;
  p.name = "fifo";
  return p;
}

Policy Sjf() {
  Policy p;
  p.name = "sjf";
  p.job_order = "sjf";
  p.oracle_estimates = true;
  return p;
}

Policy Srtf() {
  Policy p;
  p.name = "srtf";
  p.job_order = "srtf";
  p.actions = {"allocate", "preempt"};
  p.strict = false;
  p.preempt_by_order = true;
  p.oracle_estimates = true;
  return p;
}

Policy Las() {
  Policy p;
  p.name = "las";
  p.job_order = "las";
  p.actions = {"allocate", "backfill", "preempt"};
  p.preempt_by_order = true;
  return p;
}

Policy Backfill() {
  Policy p;
  p.name = "backfill";
  p.actions = {"allocate", "backfill"};
  return p;
}

Policy Squeeze() {
  Policy p;
  p.name = "squeeze";
  p.job_order = "gittins";
  p.order_options.gittins_gpu_weighted = true;
  p.priority = true;
  p.deadline = true;
  p.fair_share = true;
  p.actions = {"spot",     "colocate", "allocate", "reclaim",    "defrag",
               "backfill", "preempt",  "region",   "return_home"};
  p.node_order = "squeeze";
  p.reserve_after = 12 * 3600;
  p.learned_estimates = true;
  p.preempt_by_order = true;
  p.preempt_key_ratio = 8;
  p.min_runtime = 300;
  return p;
}

// squeeze with checkpointed slices: long jobs yield at each slice end to waiting work that
// ranks ahead of them.
Policy Sliced() {
  Policy p = Squeeze();
  p.name = "sliced";
  p.actions.push_back("slice");
  return p;
}

const std::map<std::string, std::function<Policy()>, std::less<>>& Registry() {
  static const auto* registry = new std::map<std::string, std::function<Policy()>, std::less<>>{
      {"fifo", Fifo}, {"sjf", Sjf},         {"srtf", Srtf},
      {"las", Las},   {"backfill", Backfill}, {"squeeze", Squeeze}, {"sliced", Sliced},
  };
  return *registry;
}

// Adds `action` after the last of `after` present (or at the end).
void InsertAfter(Policy& p, const std::string& action, const std::vector<std::string>& after) {
  if (p.Has(action)) return;
  auto pos = p.actions.begin();
  for (auto it = p.actions.begin(); it != p.actions.end(); ++it) {
    if (std::find(after.begin(), after.end(), *it) != after.end()) pos = it + 1;
  }
  p.actions.insert(pos, action);
}

// Adds `action` before every other (the spot and colocate actions place a job before allocate
// would start it at home).
void InsertFirst(Policy& p, const std::string& action) {
  if (!p.Has(action)) p.actions.insert(p.actions.begin(), action);
}

}  // namespace

bool Policy::Has(std::string_view action) const {
  return std::find(actions.begin(), actions.end(), action) != actions.end();
}

Status Policy::Validate() const {
  for (const auto& a : actions) {
    if (std::find(kActions.begin(), kActions.end(), a) == kActions.end()) {
      return Status::Error("policy '" + name + "': unknown action '" + a +
                           "' (known: reclaim, allocate, defrag, backfill, borrow, preempt, "
                           "slice, region, spot, colocate, return_home)");
    }
  }
  if (!Has("allocate")) return Status::Error("policy '" + name + "': needs the allocate action");
  if (auto o = MakeJobOrder(job_order, order_options); !o.ok()) {
    return o.status().WithContext("policy '" + name + "'");
  }
  if (auto o = MakeNodeOrder(node_order); !o.ok()) {
    return o.status().WithContext("policy '" + name + "'");
  }
  if (slice <= 0) {
    return Status::Error("policy '" + name + "': slice " + std::to_string(slice) +
                         " must be positive");
  }
  if (min_runtime < 0) {
    return Status::Error("policy '" + name + "': min_runtime " + std::to_string(min_runtime) +
                         " is negative");
  }
  if (defrag_max_moves_per_hour < 0) {
    return Status::Error("policy '" + name + "': defrag_max_moves_per_hour " +
                         std::to_string(defrag_max_moves_per_hour) + " is negative");
  }
  if (!std::is_sorted(order_options.las_thresholds.begin(), order_options.las_thresholds.end())) {
    return Status::Error("policy '" + name + "': las thresholds must be ascending");
  }
  return Status::Ok();
}

Result<Policy> NamedPolicy(std::string_view name) {
  const std::string full(name);
  const size_t plus = full.find('+');
  const std::string base = full.substr(0, plus);
  auto it = Registry().find(base);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& n : PolicyNames()) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown policy '" + base + "' (known: " + known + ")");
  }
  Policy p = it->second();
  p.name = full;
  size_t start = plus;
  while (start != std::string::npos) {
    const size_t next = full.find('+', start + 1);
    const std::string modifier = full.substr(start + 1, next == std::string::npos ? std::string::npos : next - start - 1);
    if (modifier == "borrow") {
      InsertAfter(p, "reclaim", {"allocate"});
      InsertAfter(p, "borrow", {"allocate", "reclaim", "backfill"});
    } else if (modifier == "defrag") {
      InsertAfter(p, "defrag", {"allocate", "reclaim"});
    } else if (modifier == "region") {
      InsertAfter(p, "region", {"allocate", "reclaim", "defrag", "backfill", "borrow", "preempt"});
    } else if (modifier == "spot" || modifier == "colocate") {
      InsertFirst(p, modifier);
      InsertAfter(p, "return_home", {"allocate", "reclaim", "defrag", "backfill", "borrow", "preempt", "region"});
    } else {
      return Status::Error("policy '" + full + "': unknown modifier '" + modifier +
                           "' (known: borrow, defrag, region, spot, colocate)");
    }
    start = next;
  }
  return p;
}

namespace {

std::vector<std::string> SplitBar(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t bar = value.find('|', start);
    const size_t end = bar == std::string_view::npos ? value.size() : bar;
    if (end > start) out.emplace_back(value.substr(start, end - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

}  // namespace

Status SetPolicyOption(Policy& p, std::string_view key, std::string_view value) {
  const std::string k(key), v(value);
  auto bad = [&](const std::string& why) {
    return Status::Error("policy option " + k + ": value '" + v + "' " + why);
  };
  auto as_bool = [&](bool* out) -> Status {
    if (v == "true" || v == "yes" || v == "1") *out = true;
    else if (v == "false" || v == "no" || v == "0") *out = false;
    else return bad("is not true or false");
    return Status::Ok();
  };
  auto as_duration = [&](Time* out) -> Status {
    auto d = ParseDuration(v);
    if (!d.ok()) return bad("is not a duration");
    *out = *d;
    return Status::Ok();
  };
  Status st;
  if (k == "slice") st = as_duration(&p.slice);
  else if (k == "min_runtime") st = as_duration(&p.min_runtime);
  else if (k == "deadline_margin") st = as_duration(&p.deadline_margin);
  else if (k == "reserve_after") st = as_duration(&p.reserve_after);
  else if (k == "starve_after") st = as_duration(&p.starve_after);
  else if (k == "job_order") p.job_order = v;
  else if (k == "node_order") p.node_order = v;
  else if (k == "priority") st = as_bool(&p.priority);
  else if (k == "held_idle_yields") st = as_bool(&p.held_idle_yields);
  else if (k == "fair_share") st = as_bool(&p.fair_share);
  else if (k == "deadline") st = as_bool(&p.deadline);
  else if (k == "strict") st = as_bool(&p.strict);
  else if (k == "learned_estimates") st = as_bool(&p.learned_estimates);
  else if (k == "preempt_by_order") st = as_bool(&p.preempt_by_order);
  else if (k == "actions") p.actions = SplitBar(v);
  else if (k == "defrag") {
    bool on = false;
    if (Status b = as_bool(&on); !b.ok()) return b;
    if (on) InsertAfter(p, "defrag", {"allocate", "reclaim"});
    else p.actions.erase(std::remove(p.actions.begin(), p.actions.end(), "defrag"), p.actions.end());
  }
  else if (k == "region") {
    bool on = false;
    if (Status b = as_bool(&on); !b.ok()) return b;
    if (on) InsertAfter(p, "region", {"allocate", "reclaim", "defrag", "backfill", "borrow", "preempt"});
    else p.actions.erase(std::remove(p.actions.begin(), p.actions.end(), "region"), p.actions.end());
  }
  else if (k == "region_min_gain") st = as_duration(&p.region_min_gain);
  else if (k == "spot" || k == "colocate") {
    bool on = false;
    if (Status b = as_bool(&on); !b.ok()) return b;
    if (on) {
      InsertFirst(p, k);
      InsertAfter(p, "return_home", {"allocate", "reclaim", "defrag", "backfill", "borrow", "preempt", "region"});
    } else {
      p.actions.erase(std::remove(p.actions.begin(), p.actions.end(), k), p.actions.end());
    }
  }
  else if (k == "spot_aware") st = as_bool(&p.spot_aware);
  else if (k == "spot_long_job_bridge") st = as_bool(&p.spot_long_job_bridge);
  else if (k == "spot_naive_interval") st = as_duration(&p.spot_naive_interval);
  else if (k == "spot_long_job") st = as_duration(&p.spot_long_job);
  else if (k == "spot_long_job_checkpoint") st = as_duration(&p.spot_long_job_checkpoint);
  else if (k == "spot_flaky_window") st = as_duration(&p.spot_flaky_window);
  else if (k == "spot_flaky_cooldown") st = as_duration(&p.spot_flaky_cooldown);
  else if (k == "spot_flaky_reclaims") {
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 0 || n > 1000000) return bad("is not a count >= 0");
    p.spot_flaky_reclaims = static_cast<int>(n);
  }
  else if (k == "defrag_max_moves_per_hour") {
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 0 || n > 1000000) return bad("is not a count >= 0");
    p.defrag_max_moves_per_hour = static_cast<int>(n);
  }
  else if (k == "spot_long_job_comply") {
    char* end = nullptr;
    const double share = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(share >= 0 && share <= 1)) {
      return bad("is not a share from 0 to 1");
    }
    p.spot_long_job_comply = share;
  }
  else if (k == "preempt_key_ratio") {
    char* end = nullptr;
    const double ratio = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(ratio >= 1)) return bad("is not a number >= 1");
    p.preempt_key_ratio = ratio;
  }
  else if (k == "las_gpu_weighted") st = as_bool(&p.order_options.las_gpu_weighted);
  else if (k == "gittins_gpu_weighted") st = as_bool(&p.order_options.gittins_gpu_weighted);
  else if (k == "las_thresholds") {
    p.order_options.las_thresholds.clear();
    for (const auto& t : SplitBar(v)) {
      auto d = ParseDuration(t);
      if (!d.ok()) return bad("has '" + t + "', not a number of GPU-seconds");
      p.order_options.las_thresholds.push_back(static_cast<double>(*d));
    }
  } else {
    return Status::Error("unknown policy option '" + k +
                         "' (known: slice, min_runtime, deadline_margin, reserve_after, starve_after, job_order, node_order, "
                         "priority, fair_share, deadline, strict, learned_estimates, preempt_by_order, preempt_key_ratio, "
                         "actions, defrag, defrag_max_moves_per_hour, region, region_min_gain, spot, colocate, spot_aware, "
                         "spot_naive_interval, spot_long_job, spot_long_job_checkpoint, spot_long_job_bridge, spot_long_job_comply, held_idle_yields, spot_flaky_reclaims, "
                         "spot_flaky_window, spot_flaky_cooldown, las_thresholds, las_gpu_weighted, "
                         "gittins_gpu_weighted)");
  }
  if (!st.ok()) return st;
  return p.Validate();
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const auto& [name, f] : Registry()) names.push_back(name);
  return names;
}

}  // namespace squeeze
