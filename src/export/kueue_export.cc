#include "export/kueue_export.h"

#include <algorithm>

#include "core/duration.h"
#include "export/capacity_plan.h"
#include "export/k8s_names.h"
#include "export/k8s_object.h"
#include "export/k8s_yaml.h"
#include "export/kueue_topology.h"
#include "export/node_labels.h"
#include "export/priority_classes.h"
#include "export/queue_reach.h"
#include "export/unexpressed.h"

namespace squeeze {
namespace {

constexpr const char* kApiVersion = "kueue.x-k8s.io/v1beta2";
YamlValue Str(const std::string& s) { return YamlValue::String(s); }

YamlDocument Object(const std::string& kind, YamlValue metadata) {
  return K8sObject(kApiVersion, kind, std::move(metadata));
}

void Comment(YamlDocument& doc, const std::string& text) { AddComment(doc, text); }

std::string AmountsText(const Amounts& a, const CapacityPlan& plan) {
  std::string s = std::to_string(a.gpus) + " GPUs";
  if (plan.tracks_cpu) s += ", " + CpuQuantity(a.cpu_milli) + " CPUs";
  if (plan.tracks_memory) s += ", " + MemoryQuantity(a.memory_mib) + " memory";
  return s;
}

std::string LabelsText(const std::map<std::string, std::string>& labels) {
  std::string s;
  for (const auto& [k, v] : labels) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s;
}

YamlDocument FlavorDocument(const Flavor& f, const CapacityPlan& plan,
                            const ClusterSpec& cluster) {
  YamlDocument doc = Object("ResourceFlavor", K8sMetadata(f.name));
  std::string pools;
  for (const auto& p : f.pools) pools += (pools.empty() ? "'" : ", '") + p + "'";
  Comment(doc, "From squeeze: the " + std::string(PoolKindName(f.kind)) + " nodes of GPU model " +
                   f.gpu_model + " in region " + f.region + " (pools " + pools + "): " +
                   AmountsText(f.total, plan) + ".");
  const auto labels = FlavorNodeLabels(f, plan.MultiRegion());
  YamlValue node_labels = YamlValue::Map();
  for (const auto& [k, v] : labels) node_labels.Set(k, Str(v));
  YamlValue spec = YamlValue::Map();
  spec.Set("nodeLabels", std::move(node_labels));
  std::string nodes = "Its nodes carry the labels " + LabelsText(labels);
  if (auto taint = FlavorTaintKey(f.kind)) {
    spec.Set("nodeTaints", YamlValue::List().Add(YamlValue::Map()
                                                     .Set("key", Str(*taint))
                                                     .Set("value", Str("true"))
                                                     .Set("effect", Str("NoSchedule"))));
    nodes += " and the taint " + *taint + "=true:NoSchedule. A job that may run here (" +
             (f.kind == PoolKind::kSpot
                  ? "preemptible, checkpointing within the reclaim warning"
                  : "preemptible and checkpointable, as squeeze's colocate action asks") +
             ") tolerates it: {key: " + *taint +
             ", operator: Equal, value: \"true\", effect: NoSchedule}";
  }
  Comment(doc, nodes + ".");
  if (FlavorInTopology(f, cluster)) {
    spec.Set("topologyName", Str(kKueueTopologyName));
    Comment(doc, "Its nodes are in the topology: Kueue places a job's pods by the Topology " +
                     std::string(kKueueTopologyName) + " (topology-aware scheduling).");
  }
  doc.body.Set("spec", std::move(spec));
  return doc;
}

YamlDocument PriorityDocument(const UrgencyClass& c) {
  YamlDocument doc = Object("WorkloadPriorityClass", K8sMetadata(c.name));
  Comment(doc, "From squeeze: the urgency class '" + std::string(UrgencyName(c.urgency)) +
                   "'. A job names it with the label kueue.x-k8s.io/priority-class: " + c.name +
                   ".");
  doc.body.Set("value", YamlValue::Int(c.value));
  doc.body.Set("description", Str(c.description));
  return doc;
}

std::vector<std::string> CoveredResources(const CapacityPlan& plan) {
  std::vector<std::string> out = {kGpuResource};
  if (plan.tracks_cpu) out.push_back("cpu");
  if (plan.tracks_memory) out.push_back("memory");
  return out;
}

YamlValue Quantity(const std::string& resource, const Amounts& a) {
  if (resource == "cpu") return Str(CpuQuantity(a.cpu_milli));
  if (resource == "memory") return Str(MemoryQuantity(a.memory_mib));
  return YamlValue::Int(a.gpus);
}

// A pool's own flavors lend to its jobs only what its teams leave idle (or, with the borrow
// action, what any pool does): without either its jobs stay within its quota.
bool MayBorrowOwn(const QueueShare& q, const ClusterSpec& cluster, const Policy& policy) {
  if (q.owner == QueueOwner::kTeam || policy.Has("borrow")) return true;
  const PoolSpec& pool = cluster.pools[cluster.PoolIndex(q.source)];
  return std::any_of(pool.team_quota_gpus.begin(), pool.team_quota_gpus.end(),
                     [](const auto& t) { return t.second > 0; });
}

YamlValue ResourceGroup(const CapacityPlan& plan, const QueueShare& q,
                        const std::vector<int>& flavors, bool borrow_own) {
  const auto covered = CoveredResources(plan);
  YamlValue names = YamlValue::List();
  for (const auto& r : covered) names.Add(Str(r));
  YamlValue list = YamlValue::List();
  for (int f : flavors) {
    auto it = q.quota.find(f);
    const Amounts nominal = it == q.quota.end() ? Amounts{} : it->second;
    YamlValue resources = YamlValue::List();
    for (const auto& r : covered) {
      YamlValue entry = YamlValue::Map().Set("name", Str(r)).Set("nominalQuota",
                                                                 Quantity(r, nominal));
      if (it != q.quota.end() && !borrow_own) entry.Set("borrowingLimit", YamlValue::Int(0));
      resources.Add(std::move(entry));
    }
    list.Add(YamlValue::Map()
                 .Set("name", Str(plan.flavors[f].name))
                 .Set("resources", std::move(resources)));
  }
  return YamlValue::Map().Set("coveredResources", std::move(names)).Set("flavors",
                                                                         std::move(list));
}

YamlValue Preemption(const Policy& p) {
  YamlValue m = YamlValue::Map();
  m.Set("withinClusterQueue", Str(p.Has("preempt") ? "LowerPriority" : "Never"));
  m.Set("reclaimWithinCohort", Str(p.Has("reclaim") ? "Any" : "Never"));
  if (p.Has("preempt") && p.Has("reclaim")) {
    m.Set("borrowWithinCohort", YamlValue::Map().Set("policy", Str("LowerPriority")));
  }
  return m;
}

std::string CohortName(const std::string& region) {
  auto label = DnsLabel(region, "region");
  return "squeeze-" + (label.ok() ? *label : std::string("region"));
}

Result<YamlDocument> ClusterQueueDocument(const CapacityPlan& plan, const QueueShare& q,
                                          const ClusterSpec& cluster, const Policy& policy) {
  const std::vector<int> flavors = ReachableFlavors(plan, q, cluster, policy, false);
  if (flavors.size() > 64) {
    return Status::Error("queue '" + q.name + "' would list " + std::to_string(flavors.size()) +
                         " flavors; a Kueue resource group holds at most 64");
  }
  const bool borrow_own = MayBorrowOwn(q, cluster, policy);
  YamlDocument doc = Object("ClusterQueue", K8sMetadata(q.name));
  std::string from = q.owner == QueueOwner::kPool ? "pool '" + q.source + "'"
                                                  : "team '" + q.source + "'";
  for (const auto& line : q.origin) from += (&line == &q.origin[0] ? ": " : "; ") + line;
  Comment(doc, "From squeeze: " + from + ". Cohort of region " + q.region + ".");
  Comment(doc, "Flavors: those it holds quota in, then those its jobs may borrow under policy " +
                   policy.name + " (nominal 0)" +
                   (borrow_own ? "" : "; its own flavors have borrowingLimit 0, as squeeze "
                                      "keeps a pool's jobs in their pool without the borrow "
                                      "action") + ".");
  YamlValue spec = YamlValue::Map();
  spec.Set("cohortName", Str(CohortName(q.region)));
  if (q.owner == QueueOwner::kTeam) {
    spec.Set("namespaceSelector",
             YamlValue::Map().Set("matchLabels", YamlValue::Map().Set("kubernetes.io/metadata.name",
                                                                      Str(q.team_namespace))));
  } else {
    spec.Set("namespaceSelector", YamlValue::Map());
  }
  const bool strict = policy.strict && !policy.Has("backfill");
  spec.Set("queueingStrategy", Str(strict ? "StrictFIFO" : "BestEffortFIFO"));
  spec.Set("resourceGroups", YamlValue::List().Add(ResourceGroup(plan, q, flavors, borrow_own)));
  spec.Set("flavorFungibility", YamlValue::Map()
                                    .Set("whenCanBorrow", Str("TryNextFlavor"))
                                    .Set("whenCanPreempt", Str("TryNextFlavor"))
                                    .Set("preference", Str("BorrowingOverPreemption")));
  spec.Set("preemption", Preemption(policy));
  doc.body.Set("spec", std::move(spec));
  return doc;
}

YamlDocument LocalQueueDocument(const QueueShare& q, const std::string& ns) {
  YamlDocument doc = Object("LocalQueue", K8sMetadata(q.name, ns));
  Comment(doc, "Jobs of " +
                   (q.owner == QueueOwner::kPool ? "pool '" + q.source + "'"
                                                 : "team '" + q.source + "'") +
                   " submit here: namespace " + ns + ", label kueue.x-k8s.io/queue-name: " +
                   q.name + ".");
  doc.body.Set("spec", YamlValue::Map().Set("clusterQueue", Str(q.name)));
  return doc;
}

std::string Count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string PolicyLine(const Policy& p) {
  const bool strict = p.strict && !p.Has("backfill");
  return std::string("Policy ") + p.name + ": queueingStrategy " +
         (strict ? "StrictFIFO (head-of-line, no backfill)" : "BestEffortFIFO") +
         "; preemption withinClusterQueue " + (p.Has("preempt") ? "LowerPriority" : "Never") +
         " (the preempt action), reclaimWithinCohort " + (p.Has("reclaim") ? "Any" : "Never") +
         " (the reclaim action: a queue below its quota takes back what it lent)" +
         (p.Has("preempt") && p.Has("reclaim")
              ? ", borrowWithinCohort LowerPriority (a waiting job may evict lower classes of "
                "other queues while it borrows)"
              : "") +
         "; flavors tried in order, quota before borrowing before preempting.";
}

std::vector<std::string> Header(const ExportOptions& o, const CapacityPlan& plan,
                                const ClusterSpec& cluster,
                                const std::vector<std::string>& unexpressed, size_t queues) {
  std::vector<std::string> h;
  const size_t cohorts = plan.regions.size();
  AddWrapped(h, "Kueue objects (" + std::string(kApiVersion) + ") for the cluster file " +
                    o.cluster_source + ", written by `squeeze export kueue` (docs/kubernetes.md).");
  AddWrapped(h, std::string(cluster.topology.empty() ? "" : "A Topology, ") +
                    Count(plan.flavors.size(), "ResourceFlavor") + ", 4 WorkloadPriorityClasses, " +
                    Count(queues, "ClusterQueue") + " in " + Count(cohorts, "cohort") +
                    (cohorts > 1 ? " (one per region), " : ", ") + Count(queues, "LocalQueue") +
                    "; " + std::to_string(plan.Total().gpus) +
                    " GPUs, each in one queue's nominal quota.");
  if (!o.history_source.empty()) {
    AddWrapped(h, "Teams from the job history " + o.history_source + ": " +
                      std::to_string(o.history_teams.size()) + ".");
  }
  std::vector<std::string> text = {
      "Apply: kubectl apply --server-side --dry-run=server -f FILE, then without --dry-run. "
      "Create the teams' namespaces first; label (and for spot and inference GPUs taint) the "
      "nodes as each ResourceFlavor says.",
      "A job: namespace and label kueue.x-k8s.io/queue-name as its LocalQueue says, label "
      "kueue.x-k8s.io/priority-class: squeeze-<urgency>.",
      PolicyLine(o.policy)};
  if (!plan.tracks_cpu || !plan.tracks_memory) {
    text.push_back("The cluster file does not give cpu and memory for every node, so the "
                   "queues cover " + std::string(plan.tracks_cpu ? "nvidia.com/gpu and cpu" :
                   plan.tracks_memory ? "nvidia.com/gpu and memory" : "nvidia.com/gpu only") +
                   ": list the others in Kueue's Configuration (resources."
                   "excludeResourcePrefixes), or Kueue admits no pod that requests them.");
  }
  if (!cluster.topology.empty()) {
    size_t in = 0;
    for (const Flavor& f : plan.flavors) in += FlavorInTopology(f, cluster);
    for (auto& t : KueueTopologyNotes(cluster.topology, in, plan.flavors.size())) {
      text.push_back(std::move(t));
    }
  }
  for (const auto& t : text) AddWrapped(h, t);
  h.push_back("");
  h.push_back("Not expressed in Kueue (squeeze does it; Kueue cannot be configured to):");
  for (const auto& item : unexpressed) AddWrapped(h, item, true);
  return h;
}

}  // namespace

Result<std::string> ExportKueue(const ClusterSpec& cluster, const ExportOptions& options) {
  auto plan = PlanCapacity(cluster, options.history_teams);
  if (!plan.ok()) return plan.status();
  auto ns = DnsLabel(options.pool_namespace, "namespace");
  if (!ns.ok()) return ns.status();
  if (*ns != options.pool_namespace) {
    return Status::Error("--namespace '" + options.pool_namespace +
                         "' is not a DNS-1123 label (perhaps '" + *ns + "')");
  }
  for (const std::string& region : plan->regions) {
    if (Status st = DnsLabel(region, "region").status(); !st.ok()) return st;
  }
  std::vector<YamlDocument> docs;
  if (!cluster.topology.empty()) {
    auto topology = KueueTopologyDocument(cluster, kApiVersion);
    if (!topology.ok()) return topology.status();
    docs.push_back(std::move(*topology));
  }
  for (const Flavor& f : plan->flavors) docs.push_back(FlavorDocument(f, *plan, cluster));
  for (const UrgencyClass& c : UrgencyClasses()) docs.push_back(PriorityDocument(c));
  std::vector<const QueueShare*> queues;
  for (const QueueShare& q : plan->queues) queues.push_back(&q);
  std::sort(queues.begin(), queues.end(),
            [](const QueueShare* a, const QueueShare* b) { return a->name < b->name; });
  for (const QueueShare* q : queues) {
    auto doc = ClusterQueueDocument(*plan, *q, cluster, options.policy);
    if (!doc.ok()) return doc.status();
    docs.push_back(std::move(*doc));
  }
  std::vector<std::pair<std::string, const QueueShare*>> locals;
  for (const QueueShare* q : queues) {
    locals.emplace_back(q->owner == QueueOwner::kTeam ? q->team_namespace : *ns, q);
  }
  std::sort(locals.begin(), locals.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second->name) < std::tie(b.first, b.second->name);
  });
  for (const auto& [local_ns, q] : locals) docs.push_back(LocalQueueDocument(*q, local_ns));
  const auto unexpressed = Unexpressed(cluster, *plan, options.policy, ExportTarget::kKueue);
  return EmitYaml(Header(options, *plan, cluster, unexpressed, queues.size()), docs);
}

}  // namespace squeeze
