#include "export/kueue_job.h"

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
  if (spec.elastic.enabled()) {
    out.push_back("elastic gpus " + std::to_string(spec.elastic.min) + "-" +
                  std::to_string(spec.elastic.max) +
                  (pods.min_pods < pods.pods
                       ? ": Kueue admits it with as few as " + std::to_string(pods.min_pods) +
                             " pods (partial admission) but never widens it while it runs"
                       : ": its pod asks for the full width (a pod's GPUs cannot change)"));
  }
  return out;
}

}  // namespace

std::vector<YamlDocument> KueueJobDocuments(const JobToExport& job, const JobPods& pods,
                                            const QueueShare& queue,
                                            const TopologySpec& topology,
                                            const std::string& image) {
  const JobSpec& s = job.request.spec;
  std::vector<YamlDocument> out;
  if (pods.pods > 1) out.push_back(HeadlessService(pods));
  YamlValue meta = K8sMetadata(pods.name, pods.ns);
  YamlValue labels = *meta.Find("labels");
  labels.Set(kQueueNameLabel, YamlValue::String(queue.name));
  labels.Set(kPriorityClassLabel, YamlValue::String(PriorityClassName(s.urgency)));
  meta.Set("labels", std::move(labels));
  if (pods.min_pods < pods.pods) {
    meta.Set("annotations", YamlValue::Map()
                                .Set(kJobMinParallelism, YamlValue::String(std::to_string(pods.min_pods)))
                                .Set(kCompletionsEqualParallelism, YamlValue::String("true")));
  }
  YamlDocument doc = K8sObject("batch/v1", "Job", std::move(meta));
  AddJobComments(doc, job, pods, queue.name, KueueOnlyNotes(s, pods));
  YamlValue spec = YamlValue::Map();
  spec.Set("suspend", YamlValue::Bool(true));  // Kueue starts it
  spec.Set("parallelism", YamlValue::Int(pods.pods));
  spec.Set("completions", YamlValue::Int(pods.pods));
  if (pods.pods > 1) spec.Set("completionMode", YamlValue::String("Indexed"));
  if (job.request.max_retries >= 0) {
    spec.Set("backoffLimit", YamlValue::Int(job.request.max_retries));
  }
  if (s.time_limit) {
    spec.Set("activeDeadlineSeconds", YamlValue::Int((*s.time_limit + kSecond - 1) / kSecond));
  }
  YamlValue template_meta = YamlValue::Map();
  if (auto a = KueueTopologyAnnotation(s.topology, topology, pods.spans_nodes)) {
    template_meta.Set("annotations", YamlValue::Map().Set(a->key, YamlValue::String(a->value)));
  }
  const std::string master = pods.name + "-0." + pods.name;
  YamlValue container =
      JobContainer(job, pods, image, ShapeEnv(pods, kCompletionIndexAnnotation, master));
  YamlValue pod = JobPodSpec(job, pods, std::move(container), false);
  if (pods.pods > 1) pod.Set("subdomain", YamlValue::String(pods.name));
  YamlValue tmpl = YamlValue::Map();
  if (!template_meta.entries().empty()) tmpl.Set("metadata", std::move(template_meta));
  tmpl.Set("spec", std::move(pod));
  spec.Set("template", std::move(tmpl));
  doc.body.Set("spec", std::move(spec));
  out.push_back(std::move(doc));
  return out;
}

}  // namespace squeeze
