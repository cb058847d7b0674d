// `squeeze export volcano`: a cluster file and a policy as Volcano objects: a Queue
// (scheduling.volcano.sh/v1beta1) per pool (what no team is guaranteed there) and per team (its
// guarantees) with weight, deserved, capability and reclaimable; a PriorityClass
// (scheduling.k8s.io/v1) per urgency class; and the scheduler's configuration (the ConfigMap
// volcano-scheduler-configmap) with the actions and plugins of the policy; with a topology, a
// HyperNode per domain (volcano_hypernodes.h). What Volcano cannot express is listed as
// comments. docs/kubernetes.md has the mapping. Pure.
#ifndef SQUEEZE_EXPORT_VOLCANO_EXPORT_H_
#define SQUEEZE_EXPORT_VOLCANO_EXPORT_H_

#include <string>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "export/export_options.h"

namespace squeeze {

inline constexpr const char* kVolcanoNamespace = "volcano-system";
inline constexpr const char* kVolcanoConfigMap = "volcano-scheduler-configmap";

// The objects as one YAML stream (`---` between documents), the same text for the same input.
Result<std::string> ExportVolcano(const ClusterSpec& cluster, const ExportOptions& options);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_VOLCANO_EXPORT_H_
