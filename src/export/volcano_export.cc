#include "export/volcano_export.h"

#include <algorithm>
#include <map>
#include <set>

#include "export/capacity_plan.h"
#include "export/k8s_names.h"
#include "export/k8s_object.h"
#include "export/node_labels.h"
#include "export/priority_classes.h"
#include "export/queue_reach.h"
#include "export/unexpressed.h"
#include "export/volcano_hypernodes.h"
#include "export/volcano_scheduler_conf.h"

namespace squeeze {
namespace {

constexpr const char* kQueueApi = "scheduling.volcano.sh/v1beta1";
constexpr int kMaxWeight = 65535;

YamlValue Str(const std::string& s) { return YamlValue::String(s); }

// A pool's or a team's queue; a team's guarantees in every region make one queue.
struct VolcanoQueue {
  std::string name;
  QueueOwner owner = QueueOwner::kPool;
  std::string source;
  Amounts deserved;
  Amounts capability;
  std::vector<std::string> origin;
};

Amounts Sum(const std::map<int, Amounts>& by_flavor) {
  Amounts a;
  for (const auto& [f, amounts] : by_flavor) a += amounts;
  return a;
}

// A pool's jobs may use its own nodes, the flavors the policy lets them reach, and with the
// borrow action the rest of its own flavors.
Amounts PoolCapability(const CapacityPlan& plan, const QueueShare& q, const ClusterSpec& cluster,
                       const Policy& policy) {
  Amounts cap = Sum(q.pool_amounts);
  for (int f : ReachableFlavors(plan, q, cluster, policy, true)) {
    auto own = q.pool_amounts.find(f);
    if (own == q.pool_amounts.end()) {
      cap += plan.flavors[f].total;
    } else if (policy.Has("borrow")) {
      const Amounts& t = plan.flavors[f].total;
      cap += Amounts{t.gpus - own->second.gpus, t.cpu_milli - own->second.cpu_milli,
                     t.memory_mib - own->second.memory_mib};
    }
  }
  return cap;
}

std::vector<VolcanoQueue> Queues(const CapacityPlan& plan, const ClusterSpec& cluster,
                                 const Policy& policy) {
  std::vector<VolcanoQueue> out;
  std::map<std::string, std::set<int>> team_reach;  // queue name -> flavors
  std::map<std::string, VolcanoQueue> teams;
  for (const QueueShare& q : plan.queues) {
    if (q.owner == QueueOwner::kPool) {
      out.push_back({q.name, q.owner, q.source, Sum(q.quota),
                     PoolCapability(plan, q, cluster, policy), q.origin});
      continue;
    }
    VolcanoQueue& t = teams["team-" + q.team_namespace];
    t.name = "team-" + q.team_namespace;
    t.owner = QueueOwner::kTeam;
    t.source = q.source;
    t.deserved += Sum(q.quota);
    for (const auto& line : q.origin) {
      if (std::find(t.origin.begin(), t.origin.end(), line) == t.origin.end()) {
        t.origin.push_back(line);
      }
    }
    for (int f : ReachableFlavors(plan, q, cluster, policy, true)) team_reach[t.name].insert(f);
  }
  for (auto& [name, t] : teams) {
    for (int f : team_reach[name]) t.capability += plan.flavors[f].total;
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const VolcanoQueue& a, const VolcanoQueue& b) { return a.name < b.name; });
  return out;
}

YamlValue Resources(const Amounts& a, const CapacityPlan& plan) {
  YamlValue m = YamlValue::Map();
  m.Set(kGpuResource, YamlValue::Int(a.gpus));
  if (plan.tracks_cpu) m.Set("cpu", Str(CpuQuantity(a.cpu_milli)));
  if (plan.tracks_memory) m.Set("memory", Str(MemoryQuantity(a.memory_mib)));
  return m;
}

YamlDocument QueueDocument(const VolcanoQueue& q, const CapacityPlan& plan,
                           const Policy& policy) {
  YamlDocument doc = K8sObject(kQueueApi, "Queue", K8sMetadata(q.name));
  std::string from = q.owner == QueueOwner::kPool ? "pool '" + q.source + "'"
                                                  : "team '" + q.source + "'";
  for (size_t i = 0; i < q.origin.size(); ++i) from += (i ? "; " : ": ") + q.origin[i];
  AddComment(doc, "From squeeze: " + from + ". Deserved: its quota; capability: the " +
                      std::to_string(q.capability.gpus) + " GPUs its jobs may use under policy " +
                      policy.name + ".");
  YamlValue spec = YamlValue::Map();
  spec.Set("weight", YamlValue::Int(std::clamp<int64_t>(q.deserved.gpus, 1, kMaxWeight)));
  spec.Set("reclaimable", YamlValue::Bool(policy.Has("reclaim")));
  spec.Set("deserved", Resources(q.deserved, plan));
  spec.Set("capability", Resources(q.capability, plan));
  doc.body.Set("spec", std::move(spec));
  return doc;
}

YamlDocument PriorityDocument(const UrgencyClass& c, const Policy& policy) {
  YamlDocument doc = K8sObject("scheduling.k8s.io/v1", "PriorityClass", K8sMetadata(c.name));
  const bool preempts = policy.Has("preempt") && c.urgency != Urgency::kLow;
  AddComment(doc, "From squeeze: the urgency class '" + std::string(UrgencyName(c.urgency)) +
                      "'. A job's pods name it: priorityClassName: " + c.name + "." +
                      (preempts ? "" : " Preempts nothing: " +
                                           std::string(policy.Has("preempt")
                                                           ? "no squeeze class is lower"
                                                           : "the policy has no preempt action") +
                                           "."));
  doc.body.Set("value", YamlValue::Int(c.value));
  doc.body.Set("globalDefault", YamlValue::Bool(false));
  doc.body.Set("preemptionPolicy", Str(preempts ? "PreemptLowerPriority" : "Never"));
  doc.body.Set("description", Str(c.description));
  return doc;
}

YamlDocument SchedulerConfigDocument(const Policy& policy, bool network_topology) {
  YamlDocument doc =
      K8sObject("v1", "ConfigMap", K8sMetadata(kVolcanoConfigMap, kVolcanoNamespace));
  AddComment(doc, "From squeeze: policy " + policy.name +
                      ". Replaces the scheduler configuration Volcano's Helm chart installs; "
                      "keep yours first: kubectl get configmap -n " +
                      std::string(kVolcanoNamespace) + " " + kVolcanoConfigMap + " -o yaml.");
  doc.body.Set("data", YamlValue::Map().Set("volcano-scheduler.conf",
                                            YamlValue::Block(VolcanoSchedulerConf(policy, network_topology))));
  return doc;
}

std::vector<std::string> Header(const ExportOptions& o, const CapacityPlan& plan,
                                const TopologySpec& topology, size_t hypernodes,
                                const std::vector<std::string>& unexpressed, size_t queues) {
  std::vector<std::string> h;
  AddWrapped(h, "Volcano objects for the cluster file " + o.cluster_source +
                    ", written by `squeeze export volcano` (docs/kubernetes.md).");
  AddWrapped(h, "4 PriorityClasses, " + std::to_string(queues) +
                    (queues == 1 ? " Queue" : " Queues") +
                    (topology.empty() ? "" : ", " + std::to_string(hypernodes) + " HyperNodes") +
                    ", the scheduler's ConfigMap; " +
                    std::to_string(plan.Total().gpus) +
                    " GPUs, each in one queue's deserved share.");
  if (!o.history_source.empty()) {
    AddWrapped(h, "Teams from the job history " + o.history_source + ": " +
                      std::to_string(o.history_teams.size()) + ".");
  }
  AddWrapped(h, "Apply: kubectl apply --server-side --dry-run=server -f FILE, then without "
                "--dry-run. Label the nodes with nvidia.com/gpu.product (and taint spot and "
                "inference nodes squeeze.dev/spot=true:NoSchedule, squeeze.dev/colocated=true:"
                "NoSchedule) so that jobs can choose them.");
  AddWrapped(h, "A job: schedulerName: volcano, its queue (a Volcano Job's spec.queue, or the "
                "PodGroup's), priorityClassName: squeeze-<urgency>; a job squeeze must never "
                "evict carries the annotation volcano.sh/preemptable: \"false\".");
  AddWrapped(h, "A queue's guarantee is left unset: Volcano keeps a guarantee idle for its "
                "queue, while squeeze lends a team's unused guarantee to others and takes it back "
                "(deserved, with reclaimable" + std::string(o.policy.Has("reclaim") ? "" : " false,"
                " as the policy has no reclaim action") + "). Weight = deserved GPUs (read by "
                "the proportion plugin, should you use it instead of capacity).");
  if (!topology.empty()) {
    for (const auto& t : VolcanoTopologyNotes(topology, hypernodes)) AddWrapped(h, t);
  }
  h.push_back("");
  h.push_back("Not expressed in Volcano (squeeze does it; Volcano cannot be configured to):");
  for (const auto& item : unexpressed) AddWrapped(h, item, true);
  return h;
}

}  // namespace

Result<std::string> ExportVolcano(const ClusterSpec& cluster, const ExportOptions& options) {
  auto plan = PlanCapacity(cluster, options.history_teams);
  if (!plan.ok()) return plan.status();
  std::vector<YamlDocument> docs;
  for (const UrgencyClass& c : UrgencyClasses()) {
    docs.push_back(PriorityDocument(c, options.policy));
  }
  const std::vector<VolcanoQueue> queues = Queues(*plan, cluster, options.policy);
  for (const VolcanoQueue& q : queues) docs.push_back(QueueDocument(q, *plan, options.policy));
  auto hypernodes = HyperNodeDocuments(cluster);
  if (!hypernodes.ok()) return hypernodes.status();
  for (YamlDocument& d : *hypernodes) docs.push_back(std::move(d));
  docs.push_back(SchedulerConfigDocument(options.policy, !cluster.topology.empty()));
  const auto unexpressed = Unexpressed(cluster, *plan, options.policy, ExportTarget::kVolcano);
  return EmitYaml(Header(options, *plan, cluster.topology, hypernodes->size(), unexpressed,
                         queues.size()),
                  docs);
}

}  // namespace squeeze
