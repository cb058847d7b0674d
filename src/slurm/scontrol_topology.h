// `scontrol show topology` (Slurm's topology/tree plugin, topology.conf): its switches, each
// with its level (0 = a leaf switch) and the nodes under it, or (topology/block, Slurm 23.11
// and later) its blocks; and the cluster-file topology a Slurm pool's nodes get from them
// (levels "switch", "switch2", ... from the leaves up; "block" for blocks). Pure.
#ifndef SQUEEZE_SLURM_SCONTROL_TOPOLOGY_H_
#define SQUEEZE_SLURM_SCONTROL_TOPOLOGY_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"

namespace squeeze {

struct SlurmSwitch {
  std::string name;
  int level = 0;                   // 0: a leaf switch (its nodes are linked to it)
  std::vector<std::string> nodes;  // every node under it, the host list expanded
  bool block = false;              // a block of topology/block (level 0), not a switch
};

// One line per switch: "SwitchName=s0 Level=0 LinkSpeed=1 Nodes=east-n[0-1]" (upper switches
// add Switches=...), or per block: "BlockName=b1 BlockIndex=0 Nodes=n[1-4]" (both in one text
// is an error). No switch ("No topology information available", a cluster without the
// tree plugin) is an empty list. Errors name the line, the key and the value.
Result<std::vector<SlurmSwitch>> ParseScontrolTopology(std::string_view text);

// Gives the nodes of `pool` in `spec` their domains from the switches: a level per switch
// level ("switch" for the leaves, then "switch2", "switch3", ...; "block" for blocks; added to
// spec.topology when missing), each domain named <pool>/<switch>; a node under no switch of a level is in a domain
// of its own there. For the daemon, when the cluster file gives no topology of its own.
void ApplySlurmTopology(const std::vector<SlurmSwitch>& switches, const std::string& pool,
                        ClusterSpec& spec);

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_SCONTROL_TOPOLOGY_H_
