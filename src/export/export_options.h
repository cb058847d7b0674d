// What `squeeze export kueue|volcano` is given besides the cluster: the policy whose settings the
// objects reflect, where the cluster came from (for the comments), and the teams a job history
// names. Plain data.
#ifndef SQUEEZE_EXPORT_EXPORT_OPTIONS_H_
#define SQUEEZE_EXPORT_EXPORT_OPTIONS_H_

#include <string>
#include <vector>

#include "core/policy.h"

namespace squeeze {

struct ExportOptions {
  std::string cluster_source;  // the cluster file as the user named it
  Policy policy;               // named policy with its --set settings applied
  std::vector<std::string> history_teams;  // teams a job history names; queues even unguaranteed
  std::string history_source;              // where they came from; empty = none given
  // Kueue: the namespace of the pools' LocalQueues (a team's go into the team's namespace).
  std::string pool_namespace = "default";
};

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_EXPORT_OPTIONS_H_
