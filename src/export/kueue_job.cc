#include "export/kueue_job.h"

#include <algorithm>

#include "core/duration.h"
#include "export/k8s_object.h"
#include "export/kueue_topology.h"
#include "export/priority_classes.h"

namespace squeeze {
namespace {

std::string PriorityClassName(Urgency urgency) {
  for (const UrgencyClass& c : UrgencyClasses()) {
    if (c.urgency == urgency) return c.name;
  }
  return "";
}

// The Service that gives an Indexed Job's pods the names <job>-<index>.<job>.
YamlDocument HeadlessService(const JobPods& pods) {
  YamlDocument doc = K8sObject("v1", "Service", K8sMetadata(pods.name, pods.ns));
  AddComment(doc, "From squeeze: the names by which the pods of job " + pods.name +
                      " find each other (" + pods.name + "-0." + pods.name +
                      " is the first, SQUEEZE_MASTER_ADDR).");
  YamlValue spec = YamlValue::Map();
  spec.Set("clusterIP", YamlValue::String("None"));
  spec.Set("selector", YamlValue::Map().Set("batch.kubernetes.io/job-name", YamlValue::String(pods.name)));
  spec.Set("publishNotReadyAddresses", YamlValue::Bool(true));
  doc.body.Set("spec", std::move(spec));
  return doc;
}

std::vector<std::string> KueueOnlyNotes(const JobSpec& spec, const JobPods& pods) {
  std::vector<std::string> out;
  if (!pods.array_tasks.empty()) {
    out.push_back("array: its tasks are the completion indices of one Job, which Kueue admits "
                  "as one workload (partial admission lets it start with fewer pods); "
                  "SQUEEZE_ARRAY_JOB_ID is not set, and a task's topology request is not "
                  "written (each runs on one node)");
  }
  if (spec.elastic.enabled()) {
    out.push_back(ElasticNote(spec, pods,
                              "Kueue admits it with as few as " + std::to_string(pods.min_pods) +
                                  " pods (partial admission) but never widens it while it runs"));
  }
  return out;
}

// The pod template: the topology annotation (not for an array's tasks, each on one node), the
// container, and the subdomain of the headless Service for a job of several pods.
YamlValue PodTemplate(const JobToExport& job, const JobPods& pods, const TopologySpec& topology,
                      const std::string& image) {
  const bool array = !pods.array_tasks.empty();
  YamlValue template_meta = YamlValue::Map();
  if (auto a = KueueTopologyAnnotation(job.request.spec.topology, topology, pods.spans_nodes);
      a && !array) {
    template_meta.Set("annotations", YamlValue::Map().Set(a->key, YamlValue::String(a->value)));
  }
  const std::string master = pods.name + "-0." + pods.name;
  YamlValue container =
      JobContainer(job, pods, image, ShapeEnv(pods, kCompletionIndexAnnotation, master));
  YamlValue pod = JobPodSpec(job, pods, std::move(container), array);
  if (pods.pods > 1) pod.Set("subdomain", YamlValue::String(pods.name));
  YamlValue tmpl = YamlValue::Map();
  if (!template_meta.entries().empty()) tmpl.Set("metadata", std::move(template_meta));
  tmpl.Set("spec", std::move(pod));
  return tmpl;
}

}  // namespace

std::vector<YamlDocument> KueueJobDocuments(const JobToExport& job, const JobPods& pods,
                                            const QueueShare& queue,
                                            const TopologySpec& topology,
                                            const std::string& image) {
  const JobSpec& s = job.request.spec;
  const bool array = !pods.array_tasks.empty();
  // An array's tasks are the Job's completion indices, a pod each; a job of several pods is
  // one completion per pod, all at once.
  const int completions = array ? static_cast<int>(pods.array_tasks.size()) : pods.pods;
  const int parallelism =
      array && pods.array_limit > 0 ? std::min(pods.array_limit, completions) : completions;
  const int fewest = array ? 1 : pods.min_pods;
  std::vector<YamlDocument> out;
  if (pods.pods > 1) out.push_back(HeadlessService(pods));
  YamlValue meta = K8sMetadata(pods.name, pods.ns);
  YamlValue labels = *meta.Find("labels");
  labels.Set(kQueueNameLabel, YamlValue::String(queue.name));
  labels.Set(kPriorityClassLabel, YamlValue::String(PriorityClassName(s.urgency)));
  meta.Set("labels", std::move(labels));
  if (fewest < parallelism) {
    YamlValue notes = YamlValue::Map();
    notes.Set(kJobMinParallelism, YamlValue::String(std::to_string(fewest)));
    if (!array) notes.Set(kCompletionsEqualParallelism, YamlValue::String("true"));
    meta.Set("annotations", std::move(notes));
  }
  YamlDocument doc = K8sObject("batch/v1", "Job", std::move(meta));
  AddJobComments(doc, job, pods, queue.name, KueueOnlyNotes(s, pods));
  YamlValue spec = YamlValue::Map();
  spec.Set("suspend", YamlValue::Bool(true));  // Kueue starts it
  spec.Set("parallelism", YamlValue::Int(parallelism));
  spec.Set("completions", YamlValue::Int(completions));
  if (completions > 1 || array) spec.Set("completionMode", YamlValue::String("Indexed"));
  if (job.request.max_retries >= 0) {  // an array's tasks retry each on its own
    spec.Set(array ? "backoffLimitPerIndex" : "backoffLimit",
             YamlValue::Int(job.request.max_retries));
  }
  if (s.time_limit && !array) {  // an array's is each task's: its pod's
    spec.Set("activeDeadlineSeconds", YamlValue::Int((*s.time_limit + kSecond - 1) / kSecond));
  }
  spec.Set("template", PodTemplate(job, pods, topology, image));
  doc.body.Set("spec", std::move(spec));
  out.push_back(std::move(doc));
  return out;
}

}  // namespace squeeze
