// `squeeze export kueue`: a cluster file and a policy as Kueue objects (kueue.x-k8s.io/v1beta2):
// a ResourceFlavor per GPU model, pool kind and region; a WorkloadPriorityClass per urgency
// class; a ClusterQueue per pool (what no team is guaranteed there) and per team and region (its
// guarantees), one cohort per region, preemption as the policy's; a LocalQueue for each; with a
// topology, a Topology the flavors of its nodes name (kueue_topology.h). What Kueue cannot
// express is listed as comments. docs/kubernetes.md has the mapping. Pure.
#ifndef SQUEEZE_EXPORT_KUEUE_EXPORT_H_
#define SQUEEZE_EXPORT_KUEUE_EXPORT_H_

#include <string>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "export/export_options.h"

namespace squeeze {

// The objects as one YAML stream (`---` between documents), the same text for the same input.
Result<std::string> ExportKueue(const ClusterSpec& cluster, const ExportOptions& options);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_KUEUE_EXPORT_H_
