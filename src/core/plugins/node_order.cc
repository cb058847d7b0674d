#include "core/plugins/node_order.h"

#include <functional>
#include <map>

#include "core/plugins/node_orders.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {
namespace {

using Factory = std::function<std::unique_ptr<NodeOrder>()>;

const std::map<std::string, Factory, std::less<>>& Registry() {
  static const auto* registry = new std::map<std::string, Factory, std::less<>>{
      {"first-fit", [] { return std::make_unique<FirstFitOrder>(); }},
      {"best-fit", [] { return std::make_unique<BestFitOrder>(); }},
      {"consolidation", [] { return std::make_unique<ConsolidationOrder>(); }},
      {"random", [] { return std::make_unique<RandomOrder>(); }},
      {"dotprod", [] { return std::make_unique<DotProdOrder>(); }},
      {"packing", [] { return std::make_unique<PackingOrder>(); }},
      {"clustering", [] { return std::make_unique<ClusteringOrder>(); }},
      {"bestfit", [] { return std::make_unique<BestFitScoreOrder>(); }},
      {"fgd", [] { return std::make_unique<FgdOrder>(); }},
      {"squeeze", [] { return std::make_unique<SqueezePlacementOrder>(); }},
      {"least-allocated", [] { return std::make_unique<LeastAllocatedOrder>(); }},
  };
  return *registry;
}

}  // namespace

Result<std::unique_ptr<NodeOrder>> MakeNodeOrder(std::string_view name) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& n : NodeOrderNames()) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown node order '" + std::string(name) + "' (known: " + known + ")");
  }
  return it->second();
}

std::vector<std::string> NodeOrderNames() {
  std::vector<std::string> names;
  for (const auto& [name, f] : Registry()) names.push_back(name);
  return names;
}

}  // namespace squeeze
