// A squeeze job as Kueue runs it (`squeeze export kueue --job FILE`): a batch/v1 Job, created
// suspended, that names its LocalQueue (kueue.x-k8s.io/queue-name) and urgency
// (kueue.x-k8s.io/priority-class), with Indexed pods for a job of several nodes, partial
// admission for an elastic one, the topology annotation on its pod template, and a headless
// Service through which its pods find the first. docs/kubernetes.md has the mapping. Pure.
#ifndef SQUEEZE_EXPORT_KUEUE_JOB_H_
#define SQUEEZE_EXPORT_KUEUE_JOB_H_

#include <string>
#include <vector>

#include "core/topology_spec.h"
#include "export/capacity_plan.h"
#include "export/job_pods.h"
#include "export/k8s_yaml.h"

namespace squeeze {

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kJobMinParallelism = "kueue.x-k8s.io/job-min-parallelism";
inline constexpr const char* kCompletionsEqualParallelism =
    "kueue.x-k8s.io/job-completions-equal-parallelism";
// Set by the Job controller on an Indexed Job's pods: the pod's index.
inline constexpr const char* kCompletionIndexAnnotation =
    "batch.kubernetes.io/job-completion-index";

// The Job, preceded by its headless Service when it has several pods.
std::vector<YamlDocument> KueueJobDocuments(const JobToExport& job, const JobPods& pods,
                                            const QueueShare& queue,
                                            const TopologySpec& topology,
                                            const std::string& image);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_KUEUE_JOB_H_
