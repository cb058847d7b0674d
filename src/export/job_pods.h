// A squeeze job as the pods a Kubernetes queue manager runs (`squeeze export kueue|volcano
// --job FILE`): how many pods of how many GPUs, the queue and namespace it goes to, the nodes
// it may use (GPU models, memory, pool, regions, spot and colocated capacity) and what of the
// job neither Kueue nor Volcano can express. Shared by the Kueue (batch/v1 Job, kueue_job.h)
// and Volcano (batch.volcano.sh Job, volcano_job.h) writers. docs/kubernetes.md has the
// mapping. Pure; thread-safe.
#ifndef SQUEEZE_EXPORT_JOB_PODS_H_
#define SQUEEZE_EXPORT_JOB_PODS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/job_request.h"
#include "core/status.h"
#include "export/capacity_plan.h"
#include "export/export_options.h"
#include "export/k8s_yaml.h"

namespace squeeze {

// A job file or batch script read as `squeeze submit` reads it.
struct JobToExport {
  JobRequest request;
  std::string source;          // the file, as the user named it
  bool workdir_given = false;  // the job names its folder: the container's workingDir
};

struct JobPods {
  std::string name;       // the job's name as a DNS-1123 label
  std::string ns;         // the namespace of its queue (a team's, or the pools')
  int queue = -1;         // index in CapacityPlan::queues
  int pods = 1;           // at its full width
  int min_pods = 1;       // an elastic job's fewest (= pods for the others)
  int gpus_per_pod = 0;
  int64_t cpu_milli_per_pod = 0;   // 0: not asked
  int64_t memory_mib_per_pod = 0;  // 0: not asked
  // nvidia.com/gpu.product values of the cards it may use; empty: any (the job names no model
  // or memory, or every card serves it).
  std::vector<std::string> gpu_products;
  int64_t min_gpu_memory_mib = 0;
  std::string pool;                      // squeeze.dev/pool, when the job names its pool
  std::vector<std::string> regions;      // topology.kubernetes.io/region, when it limits them
  std::vector<std::string> tolerations;  // taint keys of the capacity it may take (spot, ...)
  bool spans_nodes = false;              // may run on several nodes
  // A job array: its task indices (each one pod, one completion index of the Job) and the most
  // that run at once (0: no limit).
  std::vector<int> array_tasks;
  int array_limit = 0;
  std::vector<std::string> unexpressed;  // sentences: what the objects leave out, and why
};

// The pods of `job` on `cluster`. Errors name the job and its file: a name that is no
// Kubernetes name, no node it may use, more GPUs than those nodes hold, a job array whose tasks
// need several nodes each, a topology request the cluster cannot take.
Result<JobPods> PlanJobPods(const JobToExport& job, const ClusterSpec& cluster,
                            const CapacityPlan& plan, const ExportOptions& options);

// The pod's container `train`: `image`, the job's command (the container's command, so the
// image's entrypoint is not run; an array task's run by /bin/sh, which sets
// SQUEEZE_ARRAY_TASK_ID from the pod's index first), workingDir when the job names one, its environment plus
// `shape` (the SQUEEZE_* variables of a run's shape), and resources (nvidia.com/gpu, cpu,
// memory) per pod; a checkpointing job gets a preStop hook that asks it to save (SIGUSR1).
YamlValue JobContainer(const JobToExport& job, const JobPods& pods, const std::string& image,
                       YamlValue shape);

// The pod spec around the container: restartPolicy Never, nodeAffinity for the models, memory,
// pool and regions, tolerations, a grace period covering a checkpoint, activeDeadlineSeconds
// from the time limit only when `pod_deadline` (Volcano; Kueue's Job carries its own).
YamlValue JobPodSpec(const JobToExport& job, const JobPods& pods, YamlValue container,
                     bool pod_deadline);

// The shell line an array task's pod runs its command by (/bin/sh -c LINE COMMAND...): it sets
// SQUEEZE_ARRAY_TASK_ID to the task index of the pod's index, SQUEEZE_ARRAY_INDEX (0, 1, ...).
std::string ArrayTaskScript(const std::vector<int>& tasks);

// The shape variables every pod gets (SQUEEZE_NNODES, SQUEEZE_GPUS_PER_NODE, SQUEEZE_JOB_NAME,
// MASTER_PORT) and, for a job of several pods, SQUEEZE_NODE_RANK from `rank_annotation` (the
// pod annotation holding its index) and SQUEEZE_MASTER_ADDR/MASTER_ADDR = `master`; an array
// task's pod, SQUEEZE_ARRAY_INDEX from `rank_annotation`.
YamlValue ShapeEnv(const JobPods& pods, const std::string& rank_annotation,
                   const std::string& master);

// The note on an elastic job: "elastic gpus MIN-MAX" and `fewer` (what the target does with
// its narrowest width) when it starts with fewer pods, else that its one pod asks for the full
// width. Empty for a job that is not elastic.
std::string ElasticNote(const JobSpec& spec, const JobPods& pods, const std::string& fewer);

// The comments above a job's object: where it came from, its pods, the queue, and each
// sentence of what is not expressed (`pods.unexpressed`, then `more`, the target's own).
void AddJobComments(YamlDocument& doc, const JobToExport& job, const JobPods& pods,
                    const std::string& queue, const std::vector<std::string>& more);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_JOB_PODS_H_
