// The network topology a cluster file (or a Slurm pool's topology.conf) gives: levels of
// domains, narrowest first (an NVLink domain or a leaf switch's block, then a rack, then a
// spine), each node in one domain of each level; and what a job asks of it (Kueue's TAS
// annotations: required, preferred, unconstrained). Plain data; core/topology.h places by it.
#ifndef SQUEEZE_CORE_TOPOLOGY_SPEC_H_
#define SQUEEZE_CORE_TOPOLOGY_SPEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct TopologyLevel {
  std::string name;  // "block", "rack", ...
  // How fast a job trains when its nodes are in more than one domain of this level, relative
  // to inside one (0 < x <= 1): the simulator's charge for the slower links between domains,
  // and what the live queue expects. A job spread at several levels goes at the slowest.
  double spread_speed = 1;
};

struct TopologySpec {
  std::vector<TopologyLevel> levels;  // narrowest first; empty = no topology
  bool empty() const { return levels.empty(); }
  int LevelIndex(const std::string& name) const;  // -1 if absent
};

// What a job asks of the topology (Kueue's kueue.x-k8s.io/podset-*-topology annotations):
// kPreferred (the default): inside one domain of `level` when it can (an empty level: the
// narrowest that holds it), else spread; kRequired: inside one domain of `level` or not at all
// (it waits); kUnconstrained: anywhere.
enum class TopologyMode { kPreferred, kRequired, kUnconstrained };

struct TopologyRequest {
  TopologyMode mode = TopologyMode::kPreferred;
  std::string level;  // a level's name; empty = the narrowest (kPreferred only)
  bool IsDefault() const { return mode == TopologyMode::kPreferred && level.empty(); }
};

// "preferred", "required", "unconstrained".
const char* TopologyModeName(TopologyMode mode);

// A job's request as users write it (job files' `topology`, --topology): MODE or MODE:LEVEL,
// MODE one of preferred, required (which needs a level), unconstrained (which takes none);
// LEVEL a plain name of at most 64 characters. The error names the text and what is wrong.
Result<TopologyRequest> ParseTopologyRequest(std::string_view text);
// The same request as text ("preferred" for the default).
std::string TopologyRequestText(const TopologyRequest& request);

struct ClusterSpec;
// Level names unique and not empty, spread speeds in (0, 1], each node either in no domain or
// in one of each level, and a domain of a wider level holding whole domains of the narrower
// ones (a tree: a block in one rack).
Status ValidateTopology(const ClusterSpec& cluster);
// A job's request names a level of the cluster's topology (a cluster without one takes a
// preference, which it has nothing to honour, and refuses a requirement).
Status CheckTopologyRequest(const TopologyRequest& request, const TopologySpec& topology);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_TOPOLOGY_SPEC_H_
