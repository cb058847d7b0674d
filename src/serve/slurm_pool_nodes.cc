#include "serve/slurm_pool_nodes.h"

#include "exec/command_runner.h"
#include "slurm/scontrol_topology.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

// A Slurm pool's nodes get their switches from `scontrol show topology` (topology/tree) when the
// cluster file gives no topology of its own; a cluster without the plugin has none.
void AddSlurmTopology(const PoolSpec& pool, ClusterSpec& spec, const SayFn& say) {
  auto out = RunCommand({"scontrol", "show", "topology"}, {{"SLURM_CONF", pool.slurm.conf}}, 30000);
  if (!out.ok() || out->exit_code != 0) {
    say("pool " + pool.name + ": no topology (scontrol show topology: " +
        (out.ok() ? out->err.substr(0, 200) : out.status().message()) + ")");
    return;
  }
  auto switches = ParseScontrolTopology(out->out);
  if (!switches.ok()) {
    say("pool " + pool.name + ": no topology: " + switches.status().message());
    return;
  }
  if (switches->empty()) return;
  ApplySlurmTopology(*switches, pool.name, spec);
  say("pool " + pool.name + ": " + std::to_string(switches->size()) +
      " switches from scontrol show topology; a job of several nodes goes under one when it can");
}

}  // namespace

// A Slurm pool listed without nodes gets the usable nodes `sinfo --json` reports.
Status AddSlurmInventory(ClusterSpec& spec, const SayFn& say) {
  const bool file_topology = !spec.topology.empty();
  for (const PoolSpec& pool : spec.pools) {
    if (pool.backend != "slurm") continue;
    bool listed = false;
    for (const NodeSpec& n : spec.nodes) listed |= n.pool == pool.name;
    if (listed) continue;
    auto out = RunCommand({"sinfo", "--json"}, {{"SLURM_CONF", pool.slurm.conf}}, 30000);
    if (!out.ok() || out->exit_code != 0) {
      return Status::Error("pool '" + pool.name + "': sinfo --json failed: " +
                           (out.ok() ? out->err.substr(0, 300) : out.status().message()));
    }
    auto nodes = ParseSinfoJson(out->out);
    if (!nodes.ok()) return nodes.status().WithContext("pool '" + pool.name + "'");
    for (const SlurmNode& n : *nodes) {
      if (!n.usable || n.gpus <= 0) {
        say("pool " + pool.name + ": node " + n.name + " left out (" + n.state +
            (n.gpus <= 0 ? ", no GPU" : "") + ")");
        continue;
      }
      NodeSpec node;
      node.name = n.name;
      node.pool = pool.name;
      node.gpus = n.gpus;
      node.gpu_model = n.gpu_model.empty() ? "gpu" : n.gpu_model;
      spec.nodes.push_back(node);
    }
  }
  for (const PoolSpec& pool : spec.pools) {
    if (pool.backend == "slurm" && !file_topology) AddSlurmTopology(pool, spec, say);
  }
  return spec.Validate();
}

}  // namespace squeeze
