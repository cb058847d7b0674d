// A squeeze job as Volcano runs it (`squeeze export volcano --job FILE`): a Volcano Job
// (batch.volcano.sh/v1alpha1) with schedulerName volcano, its Queue, its urgency's
// PriorityClass, one task of as many pods as it has nodes (minAvailable the fewest an elastic
// job starts with), the svc and env plugins for a job of several pods, and its
// spec.networkTopology. docs/kubernetes.md has the mapping. Pure.
#ifndef SQUEEZE_EXPORT_VOLCANO_JOB_H_
#define SQUEEZE_EXPORT_VOLCANO_JOB_H_

#include <string>

#include "core/topology_spec.h"
#include "export/capacity_plan.h"
#include "export/job_pods.h"
#include "export/k8s_yaml.h"

namespace squeeze {

inline constexpr const char* kVolcanoJobApi = "batch.volcano.sh/v1alpha1";
// Set by Volcano on a job's pods: the pod's index in its task.
inline constexpr const char* kVolcanoTaskIndex = "volcano.sh/task-index";

// The Volcano Queue a job's QueueShare is: a pool's by name, a team's one for all regions.
std::string VolcanoQueueName(const QueueShare& queue);

YamlDocument VolcanoJobDocument(const JobToExport& job, const JobPods& pods,
                                const QueueShare& queue, const TopologySpec& topology,
                                const std::string& image);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_VOLCANO_JOB_H_
