// What squeeze does that Kueue or Volcano cannot be configured to do, for `squeeze export`: one
// sentence per feature that the cluster file or the policy uses, written into the export as
// `#` comments (docs/kubernetes.md explains each). Pure; thread-safe.
#ifndef SQUEEZE_EXPORT_UNEXPRESSED_H_
#define SQUEEZE_EXPORT_UNEXPRESSED_H_

#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/policy.h"
#include "export/capacity_plan.h"

namespace squeeze {

enum class ExportTarget { kKueue, kVolcano };

std::vector<std::string> Unexpressed(const ClusterSpec& cluster, const CapacityPlan& plan,
                                     const Policy& policy, ExportTarget target);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_UNEXPRESSED_H_
