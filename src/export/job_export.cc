#include "export/job_export.h"

#include <map>
#include <set>

#include "export/k8s_names.h"
#include "export/k8s_object.h"
#include "export/kueue_job.h"
#include "export/volcano_job.h"

namespace squeeze {
namespace {

Status CheckImage(const std::string& image) {
  if (image.empty()) return Status::Error("--image: give the container image the jobs run in");
  for (unsigned char c : image) {
    if (c <= ' ' || c == 0x7f) {
      return Status::Error("--image '" + image + "': an image reference has no spaces or "
                           "control characters (e.g. ghcr.io/team/train:v3)");
    }
  }
  if (image.size() > 4096) return Status::Error("--image: longer than 4096 characters");
  return Status::Ok();
}

Status CheckNamespace(const std::string& ns) {
  auto label = DnsLabel(ns, "namespace");
  if (!label.ok()) return label.status().WithContext("--namespace");
  if (*label != ns) {
    return Status::Error("--namespace '" + ns + "' is not a DNS-1123 label (perhaps '" + *label +
                         "')");
  }
  return Status::Ok();
}

std::vector<std::string> Header(const ExportOptions& o, size_t jobs, ExportTarget target) {
  const bool kueue = target == ExportTarget::kKueue;
  const std::string command = kueue ? "squeeze export kueue" : "squeeze export volcano";
  std::vector<std::string> h;
  AddWrapped(h, std::to_string(jobs) + (jobs == 1 ? " job" : " jobs") + " as " +
                    (kueue ? "Kueue runs them (batch/v1 Job, created suspended)"
                           : "Volcano runs them (batch.volcano.sh/v1alpha1 Job)") +
                    ", for the cluster file " + o.cluster_source + " and policy " +
                    o.policy.name + ", written by `" + command + " --job` (docs/kubernetes.md).");
  AddWrapped(h, "Apply the cluster's objects first (" + command + " --cluster " +
                    o.cluster_source + "), then: kubectl create -f FILE. A Job runs once: "
                    "delete it to run it again.");
  return h;
}

}  // namespace

Result<std::string> ExportJobs(const ClusterSpec& cluster, const ExportOptions& options,
                               const std::vector<JobToExport>& jobs, const std::string& image,
                               ExportTarget target) {
  if (Status s = CheckImage(image); !s.ok()) return s;
  if (Status s = CheckNamespace(options.pool_namespace); !s.ok()) return s;
  auto plan = PlanCapacity(cluster, options.history_teams);
  if (!plan.ok()) return plan.status();
  std::vector<YamlDocument> docs;
  std::map<std::pair<std::string, std::string>, std::string> names;  // (ns, name) -> source
  for (const JobToExport& job : jobs) {
    auto pods = PlanJobPods(job, cluster, *plan, options);
    if (!pods.ok()) return pods.status();
    auto [it, added] = names.emplace(std::make_pair(pods->ns, pods->name), job.source);
    if (!added) {
      return Status::Error(job.source + ": job '" + job.request.spec.name +
                           "' would be the Job " + pods->ns + "/" + pods->name + ", as " +
                           it->second + "'s is; give it another name");
    }
    const QueueShare& queue = plan->queues[pods->queue];
    if (target == ExportTarget::kKueue) {
      for (auto& d : KueueJobDocuments(job, *pods, queue, cluster.topology, image)) {
        docs.push_back(std::move(d));
      }
    } else {
      docs.push_back(VolcanoJobDocument(job, *pods, queue, cluster.topology, image));
    }
  }
  return EmitYaml(Header(options, jobs.size(), target), docs);
}

}  // namespace squeeze
