#include "export/capacity_plan.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "export/k8s_names.h"

namespace squeeze {
namespace {

int KindRank(PoolKind k) {
  switch (k) {
    case PoolKind::kOwned: return 0;
    case PoolKind::kReserved: return 1;
    case PoolKind::kOnDemand: return 2;
    case PoolKind::kColocated: return 3;
    case PoolKind::kSpot: return 4;
  }
  return 5;
}

using FlavorKey = std::tuple<int, std::string, std::string>;  // kind rank, model, region

FlavorKey KeyOf(const PoolSpec& pool, const NodeSpec& node) {
  return {KindRank(pool.kind), node.gpu_model, pool.region};
}

// Each pool's amounts per flavor key, from its nodes; checks the label values nodes will need.
Result<std::map<std::string, std::map<FlavorKey, Amounts>>> PoolAmounts(
    const ClusterSpec& cluster, bool multi_region) {
  std::map<std::string, std::map<FlavorKey, Amounts>> out;
  for (const NodeSpec& node : cluster.nodes) {
    const PoolSpec& pool = cluster.pools[cluster.PoolIndex(node.pool)];
    if (node.gpu_model != kUnnamedGpuModel && !IsLabelValue(GpuProductLabel(node.gpu_model))) {
      return Status::Error("node '" + node.name + "' (pool '" + pool.name + "'): gpu_model '" +
                           node.gpu_model + "' cannot be the value of the node label "
                           "nvidia.com/gpu.product, even with its spaces as '-' (at most 63 "
                           "characters of A-Z a-z 0-9 . _ -, a letter or digit at both ends); "
                           "name the model as that label does, e.g. NVIDIA-A100");
    }
    if (multi_region && !IsLabelValue(pool.region)) {
      return Status::Error("pool '" + pool.name + "': region '" + pool.region +
                           "' cannot be the value of the node label topology.kubernetes.io/"
                           "region (at most 63 characters of A-Z a-z 0-9 . _ -)");
    }
    Amounts& a = out[pool.name][KeyOf(pool, node)];
    a += Amounts{node.gpus, node.cpu_milli, node.memory_mib};
  }
  return out;
}

Result<std::string> PrefixedName(const std::string& prefix, const std::string& label,
                                 const std::string& what, const std::string& name) {
  const std::string out = prefix + label;
  if (out.size() > kMaxLabelLength) {
    return Status::Error(what + " '" + name + "' makes the Kubernetes name '" + out + "' of " +
                         std::to_string(out.size()) + " characters; at most " +
                         std::to_string(kMaxLabelLength) + " are allowed");
  }
  return out;
}

// Flavors from every pool's amounts, in preference order, with unique names.
Result<std::vector<Flavor>> MakeFlavors(
    const ClusterSpec& cluster, const std::map<std::string, std::map<FlavorKey, Amounts>>& by_pool,
    bool multi_region, std::map<FlavorKey, int>* index) {
  std::map<FlavorKey, Flavor> keyed;
  for (const PoolSpec& pool : cluster.pools) {
    auto it = by_pool.find(pool.name);
    if (it == by_pool.end()) continue;
    for (const auto& [key, amounts] : it->second) {
      Flavor& f = keyed[key];
      f.kind = pool.kind;
      f.gpu_model = std::get<1>(key);
      f.region = std::get<2>(key);
      f.total += amounts;
      f.pools.push_back(pool.name);
    }
  }
  std::vector<Flavor> out;
  std::map<std::string, std::string> taken;  // name -> what made it
  for (auto& [key, f] : keyed) {
    std::string raw = std::string(PoolKindName(f.kind)) + "-" + f.gpu_model;
    if (multi_region) raw += "-" + f.region;
    auto name = DnsLabel(raw, "flavor (pool kind, GPU model" +
                                  std::string(multi_region ? ", region)" : ")"));
    if (!name.ok()) return name.status();
    if (auto t = taken.find(*name); t != taken.end()) {
      return Status::Error("GPU models '" + t->second + "' and '" + raw +
                           "' both make the flavor name '" + *name +
                           "'; name the models so that they differ in more than case and "
                           "punctuation");
    }
    taken[*name] = raw;
    f.name = *name;
    (*index)[key] = static_cast<int>(out.size());
    out.push_back(std::move(f));
  }
  return out;
}

using TeamRegion = std::pair<std::string, std::string>;

// Splits a pool's amounts between its teams' guarantees and its own queue: each team, by name,
// takes its GPUs from the pool's flavors in preference order, and CPU and memory in proportion
// to the GPUs it takes of each; the pool's queue keeps the rest.
void SplitPool(const PoolSpec& pool, const std::map<FlavorKey, Amounts>& amounts,
               const std::map<FlavorKey, int>& index, QueueShare* pool_queue,
               std::map<TeamRegion, QueueShare>* teams) {
  int64_t pool_gpus = 0;
  for (const auto& [key, a] : amounts) {
    pool_queue->quota[index.at(key)] = a;
    pool_queue->pool_amounts[index.at(key)] = a;
    pool_gpus += a.gpus;
  }
  int64_t guaranteed = 0;
  for (const auto& [team, q] : pool.team_quota_gpus) {
    int64_t left = q;
    QueueShare& share = (*teams)[{team, pool.region}];
    for (const auto& [key, a] : amounts) {
      Amounts& rest = pool_queue->quota[index.at(key)];
      const int64_t take = std::min(left, rest.gpus);
      if (take <= 0) continue;
      const Amounts part{take, a.gpus ? a.cpu_milli * take / a.gpus : 0,
                         a.gpus ? a.memory_mib * take / a.gpus : 0};
      share.quota[index.at(key)] += part;
      rest.gpus -= part.gpus;
      rest.cpu_milli -= part.cpu_milli;
      rest.memory_mib -= part.memory_mib;
      left -= take;
    }
    if (q > 0) {
      share.origin.push_back(std::to_string(q) + " GPUs of pool '" + pool.name +
                             "' (team_quota_gpus." + team + ")");
    }
    guaranteed += q;
  }
  pool_queue->origin.push_back(std::to_string(pool_gpus - guaranteed) + " of the " +
                               std::to_string(pool_gpus) + " GPUs of pool '" + pool.name + "'" +
                               (guaranteed ? ": what its team_quota_gpus leave" : ""));
}

// Names each team's queues (one per region it has guarantees in; every region for a team with
// none) and checks that no two teams make one namespace.
Status NameTeams(const std::map<std::string, std::set<std::string>>& team_regions,
                 std::map<TeamRegion, QueueShare>& shares, CapacityPlan* plan) {
  std::map<std::string, std::string> namespaces;  // label -> team
  for (const auto& [team, listed] : team_regions) {
    auto ns = DnsLabel(team, "team");
    if (!ns.ok()) return ns.status();
    if (auto t = namespaces.find(*ns); t != namespaces.end()) {
      return Status::Error("teams '" + t->second + "' and '" + team +
                           "' both make the namespace '" + *ns + "'");
    }
    namespaces[*ns] = team;
    const std::set<std::string> regions =
        listed.empty() ? std::set<std::string>(plan->regions.begin(), plan->regions.end())
                       : listed;
    for (const std::string& region : regions) {
      QueueShare& share = shares[{team, region}];
      std::string label = *ns;
      if (plan->MultiRegion()) {
        auto r = DnsLabel(region, "region");
        if (!r.ok()) return r.status();
        label += "-" + *r;
      }
      auto name = PrefixedName("team-", label, "team", team);
      if (!name.ok()) return name.status();
      share.name = *name;
      share.owner = QueueOwner::kTeam;
      share.source = team;
      share.team_namespace = *ns;
      share.region = region;
      if (share.origin.empty()) share.origin.push_back("no guarantee: it borrows what is idle");
      plan->queues.push_back(share);
    }
  }
  return Status::Ok();
}

Status CheckUniqueQueueNames(const CapacityPlan& plan) {
  std::map<std::string, std::string> seen;
  for (const QueueShare& q : plan.queues) {
    const std::string what = (q.owner == QueueOwner::kPool ? "pool '" : "team '") + q.source + "'";
    if (auto it = seen.find(q.name); it != seen.end()) {
      return Status::Error(it->second + " and " + what + " both make the queue name '" + q.name +
                           "'");
    }
    seen[q.name] = what;
  }
  return Status::Ok();
}

}  // namespace

Amounts& Amounts::operator+=(const Amounts& o) {
  gpus += o.gpus;
  cpu_milli += o.cpu_milli;
  memory_mib += o.memory_mib;
  return *this;
}

Amounts CapacityPlan::Total() const {
  Amounts total;
  for (const Flavor& f : flavors) total += f.total;
  return total;
}

std::vector<int> CapacityPlan::FlavorsOfPool(const std::string& pool) const {
  std::vector<int> out;
  for (size_t i = 0; i < flavors.size(); ++i) {
    const auto& pools = flavors[i].pools;
    if (std::find(pools.begin(), pools.end(), pool) != pools.end()) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

Result<CapacityPlan> PlanCapacity(const ClusterSpec& cluster,
                                  const std::vector<std::string>& extra_teams) {
  if (cluster.nodes.empty()) {
    return Status::Error("the cluster lists no nodes (squeeze serve asks a Slurm pool's cluster "
                         "for them; an export needs them listed)");
  }
  CapacityPlan plan;
  std::set<std::string> regions;
  plan.tracks_cpu = plan.tracks_memory = true;
  for (const NodeSpec& node : cluster.nodes) {
    regions.insert(cluster.pools[cluster.PoolIndex(node.pool)].region);
    plan.tracks_cpu = plan.tracks_cpu && node.cpu_milli > 0;
    plan.tracks_memory = plan.tracks_memory && node.memory_mib > 0;
  }
  plan.regions.assign(regions.begin(), regions.end());
  auto by_pool = PoolAmounts(cluster, plan.MultiRegion());
  if (!by_pool.ok()) return by_pool.status();
  std::map<FlavorKey, int> index;
  auto flavors = MakeFlavors(cluster, *by_pool, plan.MultiRegion(), &index);
  if (!flavors.ok()) return flavors.status();
  plan.flavors = std::move(*flavors);

  std::map<std::string, std::set<std::string>> team_regions;
  std::map<TeamRegion, QueueShare> team_shares;
  for (const PoolSpec& pool : cluster.pools) {
    int64_t guaranteed = 0;
    for (const auto& [team, q] : pool.team_quota_gpus) guaranteed += q;
    auto it = by_pool->find(pool.name);
    int64_t gpus = 0;
    if (it != by_pool->end()) {
      for (const auto& [key, a] : it->second) gpus += a.gpus;
    }
    if (guaranteed > gpus) {
      return Status::Error("pool '" + pool.name + "': team_quota_gpus add up to " +
                           std::to_string(guaranteed) + " GPUs, more than the pool's " +
                           std::to_string(gpus) +
                           "; a queue manager's quotas must not promise GPUs that do not exist");
    }
    if (it == by_pool->end()) {
      plan.pools_without_nodes.push_back(pool.name);
      for (const auto& [team, q] : pool.team_quota_gpus) team_regions[team];
      continue;
    }
    auto label = DnsLabel(pool.name, "pool");
    if (!label.ok()) return label.status();
    auto name = PrefixedName("pool-", *label, "pool", pool.name);
    if (!name.ok()) return name.status();
    QueueShare queue;
    queue.name = *name;
    queue.source = pool.name;
    queue.region = pool.region;
    SplitPool(pool, it->second, index, &queue, &team_shares);
    plan.queues.push_back(std::move(queue));
    for (const auto& [team, q] : pool.team_quota_gpus) team_regions[team].insert(pool.region);
  }
  for (const std::string& team : extra_teams) team_regions[team];
  if (Status st = NameTeams(team_regions, team_shares, &plan); !st.ok()) return st;
  if (Status st = CheckUniqueQueueNames(plan); !st.ok()) return st;
  return plan;
}

}  // namespace squeeze
