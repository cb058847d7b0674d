#include "export/volcano_job.h"

#include "export/k8s_object.h"
#include "export/priority_classes.h"
#include "export/volcano_hypernodes.h"

namespace squeeze {
namespace {

constexpr const char* kTaskName = "train";

std::vector<std::string> VolcanoOnlyNotes(const JobSpec& spec, const JobPods& pods,
                                          const TopologySpec& topology) {
  std::vector<std::string> out;
  if (!pods.array_tasks.empty()) {
    out.push_back("array: its tasks are the pods of one task of the Job (index "
                  "volcano.sh/task-index), which Volcano starts as room appears (minAvailable "
                  "1)" + std::string(pods.array_limit > 0 ? ", all it can at once: the %" +
                                                                std::to_string(pods.array_limit) +
                                                                " limit is not expressed"
                                                          : "") +
                  "; maxRetry counts the Job's restarts, not each task's; SQUEEZE_ARRAY_JOB_ID "
                  "is not set");
  }
  if (spec.elastic.enabled()) {
    out.push_back(ElasticNote(spec, pods,
                              "Volcano starts it once " + std::to_string(pods.min_pods) +
                                  (pods.min_pods == 1 ? " pod" : " pods") +
                                  " can run (minAvailable) and adds the others as room appears, "
                                  "but does not resize it at its checkpoints"));
  }
  if (!topology.empty() && spec.topology.mode == TopologyMode::kPreferred && pods.spans_nodes) {
    out.push_back("topology preferred" +
                  (spec.topology.level.empty() ? std::string() : ":" + spec.topology.level) +
                  ": Volcano's soft mode keeps the pods in as few, as low HyperNodes as it can, "
                  "naming no level");
  }
  return out;
}

}  // namespace

std::string VolcanoQueueName(const QueueShare& queue) {
  return queue.owner == QueueOwner::kTeam ? "team-" + queue.team_namespace : queue.name;
}

YamlDocument VolcanoJobDocument(const JobToExport& job, const JobPods& pods,
                                const QueueShare& queue, const TopologySpec& topology,
                                const std::string& image) {
  const JobSpec& s = job.request.spec;
  const std::string queue_name = VolcanoQueueName(queue);
  YamlDocument doc = K8sObject(kVolcanoJobApi, "Job", K8sMetadata(pods.name, pods.ns));
  AddJobComments(doc, job, pods, queue_name, VolcanoOnlyNotes(s, pods, topology));
  YamlValue spec = YamlValue::Map();
  spec.Set("schedulerName", YamlValue::String("volcano"));
  spec.Set("queue", YamlValue::String(queue_name));
  for (const UrgencyClass& c : UrgencyClasses()) {
    if (c.urgency == s.urgency) spec.Set("priorityClassName", YamlValue::String(c.name));
  }
  const bool array = !pods.array_tasks.empty();
  const int replicas = array ? static_cast<int>(pods.array_tasks.size()) : pods.pods;
  spec.Set("minAvailable", YamlValue::Int(array ? 1 : pods.min_pods));
  if (job.request.max_retries >= 0) spec.Set("maxRetry", YamlValue::Int(job.request.max_retries));
  if (auto nt = VolcanoNetworkTopology(s.topology, topology, pods.spans_nodes); nt && !array) {
    spec.Set("networkTopology", std::move(*nt));
  }
  if (pods.pods > 1) {
    // svc: a headless Service and the pods' host names <job>-train-<index>.<job>; env: each
    // pod's index.
    spec.Set("plugins", YamlValue::Map()
                            .Set("svc", YamlValue::List())
                            .Set("env", YamlValue::List()));
  }
  const std::string master = pods.name + "-" + kTaskName + "-0." + pods.name;
  YamlValue container =
      JobContainer(job, pods, image, ShapeEnv(pods, kVolcanoTaskIndex, master));
  YamlValue pod = JobPodSpec(job, pods, std::move(container), true);
  YamlValue task = YamlValue::Map();
  task.Set("name", YamlValue::String(kTaskName));
  task.Set("replicas", YamlValue::Int(replicas));
  task.Set("template", YamlValue::Map().Set("spec", std::move(pod)));
  spec.Set("tasks", YamlValue::List().Add(std::move(task)));
  doc.body.Set("spec", std::move(spec));
  return doc;
}

}  // namespace squeeze
