// volcano-scheduler.conf for a squeeze policy: the actions and plugin tiers that do what the
// policy does as far as Volcano can, each with a `#` line saying what it stands for. Pure.
#ifndef SQUEEZE_EXPORT_VOLCANO_SCHEDULER_CONF_H_
#define SQUEEZE_EXPORT_VOLCANO_SCHEDULER_CONF_H_

#include <string>

#include "core/policy.h"
#include "core/types.h"

namespace squeeze {

// Node orders that pack jobs onto the fullest nodes that fit (Volcano's binpack).
bool IsPackingNodeOrder(const std::string& node_order);

// The configuration file's text (YAML, ends in a newline); with `network_topology` (the cluster
// has a topology, exported as HyperNodes) the network-topology-aware plugin too.
std::string VolcanoSchedulerConf(const Policy& policy, bool network_topology = false);

// "12h", "1h30m", "45s": a duration as Go's time.ParseDuration reads it, in whole seconds.
std::string GoDuration(Time duration);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_VOLCANO_SCHEDULER_CONF_H_
