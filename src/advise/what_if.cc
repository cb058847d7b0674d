#include "advise/what_if.h"

#include <fmt/format.h>

#include "advise/price_sheet.h"
#include "config/text_util.h"

namespace squeeze {
namespace {

constexpr int kMaxGpus = 100000;

Result<WhatIfChange> ParseTerm(const std::string& term, const ClusterSpec& cluster) {
  const std::string where = "--what-if '" + term + "'";
  const size_t plus = term.rfind('+');
  if (plus == std::string::npos || plus == 0) {
    return Status::Error(where + ": expected TARGET+N[@KIND], as in spot+16 or 6214e9+8@reserved");
  }
  std::string target(Trim(term.substr(0, plus)));
  std::string count(term.substr(plus + 1));
  WhatIfChange c;
  const size_t at = count.find('@');
  if (at != std::string::npos) {
    const std::string kind(Trim(count.substr(at + 1)));
    auto k = ParsePoolKind(kind);
    if (!k || *k == PoolKind::kOwned || *k == PoolKind::kColocated) {
      return Status::Error(where + ": price '@" + kind +
                           "' is not reserved, on-demand or spot");
    }
    c.priced_as = *k;
    count = count.substr(0, at);
  }
  auto n = ParseInt64(Trim(count));
  if (!n || *n < 1 || *n > kMaxGpus) {
    return Status::Error(where + ": GPU count '" + count + "' is not an integer from 1 to " +
                         std::to_string(kMaxGpus));
  }
  c.gpus = static_cast<int>(*n);
  if (const int i = cluster.PoolIndex(target); i >= 0) {
    c.pool = target;
    c.kind = cluster.pools[i].kind;
    return c;
  }
  const bool fresh = target.rfind("new-", 0) == 0;
  const std::string kind_name = fresh ? target.substr(4) : target;
  auto kind = ParsePoolKind(kind_name);
  if (!kind) {
    return Status::Error(where + ": '" + target +
                         "' is neither a pool of the cluster nor a kind (owned, reserved, "
                         "on-demand, spot, colocated) nor new-KIND");
  }
  c.kind = *kind;
  if (fresh) {
    c.new_pool = true;
    c.pool = "what-if-" + kind_name;
    return c;
  }
  for (const PoolSpec& p : cluster.pools) {
    if (p.kind == *kind) {
      c.pool = p.name;
      return c;
    }
  }
  return Status::Error(where + ": the cluster has no pool of kind " + kind_name +
                       " (new-" + kind_name + "+N adds one)");
}

void AddNodes(ClusterSpec& c, const std::string& pool, int gpus, const NodeSpec* like) {
  NodeSpec base = like ? *like : NodeSpec{};
  base.pool = pool;
  base.labels.clear();
  const int per_node = std::max(1, like ? like->gpus : 8);
  for (int i = 0, left = gpus; left > 0; ++i) {
    NodeSpec n = base;
    n.name = fmt::format("{}-what-if-{}", pool, i);
    n.gpus = std::min(per_node, left);
    left -= n.gpus;
    c.nodes.push_back(std::move(n));
  }
}

}  // namespace

int WhatIf::Gpus() const {
  int n = 0;
  for (const auto& c : changes) n += c.gpus;
  return n;
}

std::string WhatIf::Describe() const {
  std::string out;
  for (const auto& c : changes) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{} more GPUs in {} {} ({})", c.gpus, c.new_pool ? "a new pool" : "pool",
                       c.pool, PoolKindName(c.kind));
    if (c.priced_as) out += fmt::format(", priced as {}", PoolKindName(*c.priced_as));
  }
  return out;
}

Result<WhatIf> ParseWhatIf(std::string_view text, const ClusterSpec& cluster) {
  WhatIf w;
  w.text = std::string(text);
  for (const std::string& term : SplitList(text, ',')) {
    auto c = ParseTerm(std::string(Trim(term)), cluster);
    if (!c.ok()) return c.status();
    w.changes.push_back(std::move(*c));
  }
  if (w.changes.empty()) return Status::Error("--what-if: empty (expected TARGET+N, as in spot+16)");
  return w;
}

Result<ClusterSpec> ApplyWhatIf(const ClusterSpec& cluster, const WhatIf& what_if) {
  ClusterSpec c = cluster;
  for (const WhatIfChange& change : what_if.changes) {
    int index = c.PoolIndex(change.pool);
    if (change.new_pool) {
      std::string name = change.pool;
      for (int k = 2; c.PoolIndex(name) >= 0; ++k) name = change.pool + "-" + std::to_string(k);
      PoolSpec p;
      for (const PoolSpec& q : c.pools) {
        if (q.kind == change.kind) { p = q; break; }  // prices, region, spot terms as its kind's
      }
      p.name = name;
      p.kind = change.kind;
      p.monthly_cost = 0;
      p.team_quota_gpus.clear();
      c.pools.push_back(p);
      AddNodes(c, name, change.gpus, nullptr);
      continue;
    }
    if (index < 0) return Status::Error("--what-if: no pool '" + change.pool + "'");
    const NodeSpec* like = nullptr;
    for (const NodeSpec& n : c.nodes) {
      if (n.pool == change.pool) { like = &n; break; }
    }
    const int before = PoolGpus(c, change.pool);
    const NodeSpec copy = like ? *like : NodeSpec{};
    AddNodes(c, change.pool, change.gpus, like ? &copy : nullptr);
    PoolSpec& p = c.pools[index];
    if (p.monthly_cost > 0 && before > 0) {
      p.monthly_cost *= static_cast<double>(before + change.gpus) / before;
    }
  }
  if (Status st = c.Validate(); !st.ok()) return st.WithContext("--what-if '" + what_if.text + "'");
  return c;
}

}  // namespace squeeze
