#include "export/volcano_hypernodes.h"

#include <map>
#include <utility>

#include "export/k8s_names.h"
#include "export/k8s_object.h"

namespace squeeze {
namespace {

// A Kubernetes node name: a DNS-1123 subdomain (dot-separated labels, at most 253 characters).
bool IsKubernetesNodeName(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    if (!IsDnsLabel(name.substr(start, dot - start))) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

// One domain: its HyperNode's name and its members (node names, or narrower domains' names),
// in the order the cluster file first names them.
struct HyperNodeDomain {
  std::string name;
  std::vector<std::string> members;
};

void AddMember(HyperNodeDomain& d, const std::string& member) {
  for (const std::string& m : d.members) {
    if (m == member) return;
  }
  d.members.push_back(member);
}

YamlDocument HyperNodeDocument(const HyperNodeDomain& d, const TopologyLevel& level, int tier,
                               const std::string& domain) {
  YamlDocument doc = K8sObject(kHyperNodeApi, "HyperNode", K8sMetadata(d.name));
  AddComment(doc, "From squeeze: " + level.name + " '" + domain + "' (tier " +
                      std::to_string(tier) + "): " + std::to_string(d.members.size()) +
                      (tier == 1 ? " nodes." : " HyperNodes of the level below."));
  YamlValue members = YamlValue::List();
  for (const std::string& m : d.members) {
    members.Add(YamlValue::Map()
                    .Set("type", YamlValue::String(tier == 1 ? "Node" : "HyperNode"))
                    .Set("selector", YamlValue::Map().Set(
                                         "exactMatch",
                                         YamlValue::Map().Set("name", YamlValue::String(m)))));
  }
  doc.body.Set("spec", YamlValue::Map()
                           .Set("tier", YamlValue::Int(tier))
                           .Set("tierName", YamlValue::String(level.name))
                           .Set("members", std::move(members)));
  return doc;
}

}  // namespace

Result<std::string> HyperNodeName(const std::string& level, const std::string& domain) {
  return DnsLabel(level + "-" + domain, "topology domain");
}

Result<std::vector<YamlDocument>> HyperNodeDocuments(const ClusterSpec& cluster) {
  const auto& levels = cluster.topology.levels;
  // [level] domain -> its HyperNode; and the domains in first-named order.
  std::vector<std::map<std::string, HyperNodeDomain>> domains(levels.size());
  std::vector<std::vector<std::string>> order(levels.size());
  std::map<std::string, std::pair<size_t, std::string>> names;  // HyperNode -> level, domain
  for (const NodeSpec& node : cluster.nodes) {
    if (node.domains.size() != levels.size() || levels.empty()) continue;
    if (!IsKubernetesNodeName(node.name)) {
      return Status::Error("node '" + node.name + "' is in the topology, but its name is no "
                           "Kubernetes node name (a DNS-1123 subdomain: a-z 0-9 - .), which a "
                           "HyperNode must name; name the node as Kubernetes does");
    }
    for (size_t l = 0; l < levels.size(); ++l) {
      const std::string& domain = node.domains[l];
      auto [it, added] = domains[l].try_emplace(domain);
      if (added) {
        auto name = HyperNodeName(levels[l].name, domain);
        if (!name.ok()) return name.status();
        auto [seen, fresh] = names.emplace(*name, std::make_pair(l, domain));
        if (!fresh) {
          return Status::Error(levels[l].name + " '" + domain + "' and " +
                               levels[seen->second.first].name + " '" + seen->second.second +
                               "' both make the HyperNode name '" + *name + "'; rename one");
        }
        it->second.name = *name;
        order[l].push_back(domain);
      }
      AddMember(it->second, l == 0 ? node.name : domains[l - 1][node.domains[l - 1]].name);
    }
  }
  std::vector<YamlDocument> out;
  for (size_t l = 0; l < levels.size(); ++l) {
    for (const std::string& domain : order[l]) {
      out.push_back(HyperNodeDocument(domains[l][domain], levels[l], static_cast<int>(l + 1),
                                      domain));
    }
  }
  return out;
}

std::optional<YamlValue> VolcanoNetworkTopology(const TopologyRequest& request,
                                                const TopologySpec& topology, bool spans_nodes) {
  if (topology.empty() || request.mode == TopologyMode::kUnconstrained) return std::nullopt;
  if (request.mode == TopologyMode::kPreferred) {
    if (request.IsDefault() && !spans_nodes) return std::nullopt;
    return YamlValue::Map().Set("mode", YamlValue::String("soft"));
  }
  const int level = request.level.empty() ? 0 : topology.LevelIndex(request.level);
  return YamlValue::Map()
      .Set("mode", YamlValue::String("hard"))
      .Set("highestTierAllowed", YamlValue::Int(level < 0 ? 1 : level + 1));
}

std::vector<std::string> VolcanoTopologyNotes(const TopologySpec& topology, size_t hypernodes) {
  std::string tiers;
  for (size_t l = 0; l < topology.levels.size(); ++l) {
    tiers += (l ? ", " : "") + topology.levels[l].name + " tier " + std::to_string(l + 1);
  }
  const std::string wide = topology.levels.back().name;
  return {
      "Network topology: " + std::to_string(hypernodes) + " HyperNodes, one per domain of the "
      "cluster file's topology (" + tiers + "), and the scheduler's network-topology-aware "
      "plugin.",
      "A Volcano Job that can span several nodes carries spec.networkTopology: {mode: soft} "
      "(squeeze's default: inside one domain when it can); one that must stay inside one " +
          wide + " {mode: hard, highestTierAllowed: " + std::to_string(topology.levels.size()) +
          "}; one that may go anywhere, none."};
}

}  // namespace squeeze
