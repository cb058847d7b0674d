#include "core/policy.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#include "core/actions/action_table.h"
#include "core/duration.h"
#include "core/plugins/node_order.h"

namespace squeeze {
namespace {

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
  p.actions = {"spot",    "colocate", "allocate", "reclaim", "defrag",      "backfill",
               "shrink",  "preempt",  "region",   "grow",    "return_home", "upgrade"};
  p.node_order = "squeeze";
  p.reserve_after = 12 * kHour;
  p.learned_estimates = true;
  p.preempt_by_order = true;
  p.preempt_key_ratio = 8;
  p.min_runtime = 5 * kMinute;
  p.hardware_aware = true;
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

// A model of Kueue as `squeeze export kueue` configures it (docs/kubernetes.md): each pool a
// ClusterQueue with BestEffortFIFO (priority classes, then submission order; a head that does
// not fit lets later workloads pass, with no reservation) and preemption within a
// ClusterQueue by priority (withinClusterQueue: LowerPriority) of the lowest priority, most
// recently admitted workloads; kube-scheduler places the pods with its default scoring (least
// allocated). `kueue+borrow` is the export of a policy with +borrow: the pools of a region one
// cohort that lends unused quota to any workload and reclaims it (reclaimWithinCohort: Any).
Policy Kueue() {
  Policy p;
  p.name = "kueue";
  p.priority = true;
  p.strict = false;
  p.actions = {"allocate", "preempt"};
  p.borrow_any = true;
  p.victim_order = "priority_newest";
  p.node_order = "least-allocated";
  return p;
}

// A model of Volcano as `squeeze export volcano` configures it: the actions enqueue, allocate
// and preempt (enqueue admits what fits a queue's capability, allocate places jobs in priority
// order, skipping those that do not fit, with gang placement), the priority and drf plugins
// (priority classes, then the team with the smaller share first), binpack (the fullest node
// that fits), and victims of the lowest priority, most recent first. `volcano+borrow`: queues
// take idle capacity beyond what they deserve and give it back (the capacity plugin and the
// reclaim action). Its backfill action places only pods without resource requests, so it is
// not modelled.
// Kueue's model but for the drf plugin and binpack's placement.
Policy Volcano() {
  Policy p = Kueue();
  p.name = "volcano";
  p.fair_share = true;
  p.node_order = "best-fit";
  return p;
}

const std::map<std::string, std::function<Policy()>, std::less<>>& Registry() {
  static const auto* registry = new std::map<std::string, std::function<Policy()>, std::less<>>{
      {"fifo", Fifo}, {"sjf", Sjf},         {"srtf", Srtf},
      {"las", Las},   {"backfill", Backfill}, {"squeeze", Squeeze}, {"sliced", Sliced},
      {"kueue", Kueue}, {"volcano", Volcano},
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

void AddAction(Policy& p, const std::string& action) {
  if (action == "reclaim") {
    InsertAfter(p, "reclaim", {"allocate"});
  } else if (action == "borrow") {
    InsertAfter(p, "borrow", {"allocate", "reclaim", "backfill"});
  } else if (action == "defrag") {
    InsertAfter(p, "defrag", {"allocate", "reclaim"});
  } else if (action == "shrink") {
    InsertAfter(p, "shrink", {"allocate", "reclaim", "defrag", "backfill"});
  } else if (action == "grow") {
    InsertAfter(p, "grow", {"allocate", "reclaim", "defrag", "backfill", "borrow", "shrink",
                            "preempt", "region"});
  } else if (action == "region") {
    InsertAfter(p, "region", {"allocate", "reclaim", "defrag", "backfill", "borrow", "preempt"});
  } else if (action == "spot" || action == "colocate") {
    InsertFirst(p, action);
    InsertAfter(p, "return_home",
                {"allocate", "reclaim", "defrag", "backfill", "borrow", "preempt", "region"});
  } else if (!p.Has(action)) {
    p.actions.push_back(action);
  }
}

bool Policy::Has(std::string_view action) const {
  return std::find(actions.begin(), actions.end(), action) != actions.end();
}

Status Policy::Validate() const {
  for (const auto& a : actions) {
    if (ActionNamed(a) == nullptr) {
      std::string known;
      for (const ActionEntry& e : ActionTable()) known += (known.empty() ? "" : ", ") + std::string(e.name);
      return Status::Error("policy '" + name + "': unknown action '" + a + "' (known: " + known + ")");
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
    return Status::Error("policy '" + name + "': slice " + std::to_string(WholeSeconds(slice)) +
                         " must be positive");
  }
  if (min_runtime < 0) {
    return Status::Error("policy '" + name + "': min_runtime " +
                         std::to_string(WholeSeconds(min_runtime)) + " is negative");
  }
  if (elastic_resizes_per_hour < 0) {
    return Status::Error("policy '" + name + "': elastic_resizes_per_hour " +
                         std::to_string(elastic_resizes_per_hour) + " is negative");
  }
  if (defrag_max_moves_per_hour < 0) {
    return Status::Error("policy '" + name + "': defrag_max_moves_per_hour " +
                         std::to_string(defrag_max_moves_per_hour) + " is negative");
  }
  if (victim_order != "least_lost" && victim_order != "priority_newest") {
    return Status::Error("policy '" + name + "': victim_order '" + victim_order +
                         "' is not least_lost or priority_newest");
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
      AddAction(p, "reclaim");
      AddAction(p, "borrow");
    } else if (modifier == "elastic") {
      AddAction(p, "shrink");
      AddAction(p, "grow");
    } else if (modifier == "defrag" || modifier == "region" || modifier == "spot" ||
               modifier == "colocate" || modifier == "shrink" || modifier == "grow") {
      AddAction(p, modifier);
    } else {
      return Status::Error("policy '" + full + "': unknown modifier '" + modifier +
                           "' (known: borrow, defrag, region, spot, colocate, elastic, shrink, "
                           "grow)");
    }
    start = next;
  }
  return p;
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const auto& [name, f] : Registry()) names.push_back(name);
  return names;
}

}  // namespace squeeze
