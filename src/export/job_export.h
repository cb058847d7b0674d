// `squeeze export kueue|volcano --job FILE ...`: squeeze job files and batch scripts as the
// jobs Kueue (batch/v1 Job, kueue_job.h) or Volcano (batch.volcano.sh Job, volcano_job.h) runs
// on the queues `squeeze export` writes for the same cluster file and policy, each with the
// comments of what it cannot express. docs/kubernetes.md has the mapping. Pure.
#ifndef SQUEEZE_EXPORT_JOB_EXPORT_H_
#define SQUEEZE_EXPORT_JOB_EXPORT_H_

#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "export/export_options.h"
#include "export/job_pods.h"
#include "export/unexpressed.h"

namespace squeeze {

// The objects as one YAML stream, the same text for the same input. `image`: the container
// image every job runs in. Errors name the job and its file (job_pods.h), an image that is no
// image reference, and two jobs of one Kubernetes name in one namespace.
Result<std::string> ExportJobs(const ClusterSpec& cluster, const ExportOptions& options,
                               const std::vector<JobToExport>& jobs, const std::string& image,
                               ExportTarget target);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_JOB_EXPORT_H_
