#include "core/placement_math.h"

#include <algorithm>
#include <map>

namespace squeeze {
namespace {

// A placement's amounts on one node.
struct NodeAmounts {
  std::map<int, int> milli;  // GPU -> milli
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};
using Amounts = std::map<int, NodeAmounts>;  // node -> amounts

Amounts AmountsOf(const Placement& p) {
  Amounts out;
  for (const NodeShare& share : p.shares) {
    NodeAmounts& n = out[share.node];
    for (int g : share.gpus) n.milli[g] += share.milli_per_gpu;
    n.cpu_milli += share.cpu_milli;
    n.memory_mib += share.memory_mib;
  }
  return out;
}

// One share per (node, milli), in node order; CPU and memory go with the node's first share.
Placement PlacementOf(const Amounts& amounts) {
  Placement out;
  for (const auto& [node, n] : amounts) {
    std::map<int, std::vector<int>> by_milli;
    for (const auto& [gpu, milli] : n.milli) {
      if (milli > 0) by_milli[milli].push_back(gpu);
    }
    const size_t first = out.shares.size();
    for (auto it = by_milli.rbegin(); it != by_milli.rend(); ++it) {
      NodeShare share;
      share.node = node;
      share.milli_per_gpu = it->first;
      share.gpus = it->second;
      out.shares.push_back(std::move(share));
    }
    if (n.cpu_milli <= 0 && n.memory_mib <= 0) continue;
    if (out.shares.size() == first) {
      NodeShare share;
      share.node = node;
      out.shares.push_back(std::move(share));
    }
    out.shares[first].cpu_milli = std::max<int64_t>(n.cpu_milli, 0);
    out.shares[first].memory_mib = std::max<int64_t>(n.memory_mib, 0);
  }
  return out;
}

template <typename Combine>
Placement Combined(const Placement& want, const Placement& other, Combine combine) {
  Amounts a = AmountsOf(want);
  const Amounts b = AmountsOf(other);
  static const NodeAmounts kNone;
  for (auto& [node, n] : a) {
    auto it = b.find(node);
    const NodeAmounts& o = it == b.end() ? kNone : it->second;
    for (auto& [gpu, milli] : n.milli) {
      auto g = o.milli.find(gpu);
      milli = combine(milli, g == o.milli.end() ? 0 : g->second);
    }
    n.cpu_milli = combine(n.cpu_milli, o.cpu_milli);
    n.memory_mib = combine(n.memory_mib, o.memory_mib);
  }
  return PlacementOf(a);
}

}  // namespace

Placement Overlap(const Placement& want, const Placement& from) {
  return Combined(want, from, [](auto w, auto f) { return std::min(w, f); });
}

Placement Without(const Placement& want, const Placement& part) {
  return Combined(want, part, [](auto w, auto p) { return std::max<decltype(w)>(w - p, 0); });
}

Placement Joined(Placement a, const Placement& b) {
  a.shares.insert(a.shares.end(), b.shares.begin(), b.shares.end());
  return a;
}

}  // namespace squeeze
