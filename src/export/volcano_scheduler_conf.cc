#include "export/volcano_scheduler_conf.h"

#include <vector>

namespace squeeze {
namespace {

struct Plugin {
  std::string name;
  std::string why;
  std::vector<std::string> options;  // "key: value" lines under the plugin
};

void WritePlugin(const Plugin& p, std::string* out) {
  *out += "  # " + p.why + "\n";
  *out += "  - name: " + p.name + "\n";
  for (const std::string& o : p.options) *out += "    " + o + "\n";
}

std::vector<std::string> Actions(const Policy& p, std::string* why) {
  std::vector<std::string> actions = {"enqueue", "allocate"};
  *why = "# enqueue admits a job when its queue has room; allocate starts jobs in priority "
         "order.\n";
  for (const std::string& a : p.actions) {
    if (a == "reclaim") {
      actions.push_back("reclaim");
      *why += "# reclaim: squeeze's reclaim action; a queue below its deserved GPUs takes back "
              "what it lent.\n";
    } else if (a == "backfill") {
      actions.push_back("backfill");
      *why += "# backfill: squeeze's backfill action; Volcano's places only pods without "
              "resource requests.\n";
    } else if (a == "preempt") {
      actions.push_back("preempt");
      *why += "# preempt: squeeze's preempt action; a waiting job evicts lower-priority jobs of "
              "its queue.\n";
    }
  }
  return actions;
}

}  // namespace

bool IsPackingNodeOrder(const std::string& node_order) {
  for (const char* packing : {"consolidation", "best-fit", "bestfit", "packing", "squeeze", "fgd",
                              "clustering", "dotprod"}) {
    if (node_order == packing) return true;
  }
  return false;
}

std::string GoDuration(Time duration) {
  const int64_t seconds = WholeSeconds(duration);
  if (seconds <= 0) return "0s";
  std::string out;
  if (seconds >= 3600) out += std::to_string(seconds / 3600) + "h";
  if (seconds % 3600 >= 60) out += std::to_string(seconds % 3600 / 60) + "m";
  if (seconds % 60) out += std::to_string(seconds % 60) + "s";
  return out;
}

std::string VolcanoSchedulerConf(const Policy& p, bool network_topology) {
  std::string why;
  const std::vector<std::string> actions = Actions(p, &why);
  std::string out = "# squeeze policy " + p.name + " as Volcano's scheduler configuration.\n";
  out += why;
  std::string list;
  for (const std::string& a : actions) list += (list.empty() ? "" : ", ") + a;
  out += "actions: \"" + list + "\"\n";
  std::vector<Plugin> first;
  if (p.priority) first.push_back({"priority", "squeeze's urgency classes rank first", {}});
  first.push_back({"gang", "a job starts with all its GPUs or not at all, as in squeeze",
                   {"enablePreemptable: false"}});
  first.push_back({"conformance", "never evicts kube-system's critical pods", {}});
  if (p.Has("backfill") && p.reserve_after > 0) {
    first.push_back({"sla",
                     "a job blocked " + GoDuration(p.reserve_after) +
                         " gets resources held for it (squeeze's reserve_after)",
                     {"arguments:", "  sla-waiting-time: " + GoDuration(p.reserve_after)}});
  }
  std::vector<Plugin> second;
  if (p.fair_share) {
    second.push_back({"drf", "fair share: the job with the smaller dominant share first",
                      {"enablePreemptable: false"}});
  }
  second.push_back({"predicates", "fits, node selectors (GPU model), taints (spot)", {}});
  second.push_back({"capacity",
                    "queues get their deserved GPUs (the guarantees), borrow idle ones up to "
                    "their capability",
                    {}});
  const bool packing = IsPackingNodeOrder(p.node_order);
  second.push_back({"nodeorder",
                    packing ? "kube-scheduler's scores, without spreading (binpack packs)"
                            : "kube-scheduler's scores",
                    packing ? std::vector<std::string>{"arguments:", "  leastrequested.weight: 0"}
                            : std::vector<std::string>{}});
  if (packing) {
    second.push_back({"binpack",
                      "squeeze's node order (" + p.node_order +
                          ") packs: the fullest node that fits",
                      {"arguments:", "  binpack.weight: 10", "  binpack.resources: nvidia.com/gpu",
                       "  binpack.resources.nvidia.com/gpu: 10"}});
  }
  if (network_topology) {
    second.push_back({"network-topology-aware",
                      "the topology (HyperNodes): a job's pods in as few, as narrow domains as fit",
                      {}});
  }
  out += "tiers:\n- plugins:\n";
  for (const Plugin& plugin : first) WritePlugin(plugin, &out);
  out += "- plugins:\n";
  for (const Plugin& plugin : second) WritePlugin(plugin, &out);
  return out;
}

}  // namespace squeeze
