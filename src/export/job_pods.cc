#include "export/job_pods.h"

#include <algorithm>
#include <set>

#include "core/duration.h"
#include "core/job_array.h"
#include "core/topology_spec.h"
#include "export/k8s_names.h"
#include "export/k8s_object.h"
#include "export/node_labels.h"
#include "export/queue_reach.h"

namespace squeeze {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// An array of unevenly spaced indices is listed in its pods' shell line: this many at most.
constexpr size_t kMaxListedArrayTasks = 10000;

// Spot and colocated capacity takes a job that asks for the pool, or one that tolerates having
// it taken back (spot: preemptible; colocated: preemptible and checkpointable, as squeeze's
// colocate action asks) when the policy has the action that uses it.
bool MayTake(const PoolSpec& pool, const JobSpec& spec, const Policy& policy) {
  if (!IsReclaimableKind(pool.kind) || spec.pool == pool.name) return true;
  if (pool.kind == PoolKind::kSpot) return spec.preemptible && policy.Has("spot");
  return spec.preemptible && spec.checkpointable && policy.Has("colocate");
}

bool Listed(const std::vector<std::string>& list, const std::string& s) {
  return list.empty() || std::find(list.begin(), list.end(), s) != list.end();
}

std::vector<const NodeSpec*> UsableNodes(const JobSpec& spec, const ClusterSpec& cluster,
                                         const Policy& policy) {
  bool any_firm = false;
  for (const PoolSpec& p : cluster.pools) any_firm = any_firm || !IsReclaimableKind(p.kind);
  std::vector<const NodeSpec*> out;
  for (const NodeSpec& node : cluster.nodes) {
    const PoolSpec& pool = cluster.pools[cluster.PoolIndex(node.pool)];
    if (!spec.pool.empty() && pool.name != spec.pool) continue;
    if (!Listed(spec.regions, pool.region) || !Listed(spec.gpu_models, node.gpu_model)) continue;
    // A node's card memory, its gpu_models entry's when it gives none (cluster_yaml_models.cc).
    if (spec.min_gpu_memory_mib > node.gpu_memory_mib) continue;
    if (any_firm && !MayTake(pool, spec, policy)) continue;
    out.push_back(&node);
  }
  return out;
}

std::string Constraints(const JobSpec& spec) {
  std::vector<std::string> parts;
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!spec.pool.empty()) parts.push_back("pool " + spec.pool);
  if (!spec.regions.empty()) parts.push_back("regions " + join(spec.regions));
  if (!spec.gpu_models.empty()) parts.push_back("GPU models " + join(spec.gpu_models));
  if (spec.min_gpu_memory_mib > 0) {
    parts.push_back("at least " + std::to_string(spec.min_gpu_memory_mib) + " MiB per GPU");
  }
  if (parts.empty()) return "spot and colocated capacity are for preemptible jobs";
  return join(parts);
}

// Pods of equal GPUs (a Job's pods are alike): one when a node holds the width, else the fewest
// that divide it and fit the largest node.
void SplitIntoPods(int width, int largest, JobPods& out) {
  if (width <= largest || largest <= 0) {
    out.pods = 1;
    out.gpus_per_pod = width;
    return;
  }
  int pods = static_cast<int>(CeilDiv(width, largest));
  while (width % pods != 0) ++pods;
  out.pods = pods;
  out.gpus_per_pod = width / pods;
}

Status CheckRoom(const std::vector<const NodeSpec*>& nodes, const JobPods& p, int width) {
  if (p.gpus_per_pod == 0) return Status::Ok();
  int64_t room = 0;
  for (const NodeSpec* n : nodes) room += n->gpus / p.gpus_per_pod;
  if (room >= p.pods) return Status::Ok();
  return Status::Error("asks for " + std::to_string(width) + " GPUs, " + std::to_string(p.pods) +
                       " pods of " + std::to_string(p.gpus_per_pod) +
                       "; the nodes it may use hold " + std::to_string(room) + " such pods");
}

// The queue it is submitted to: its team's (in a region it may use), else its pool's, else the
// first pool's that holds a node it may use.
int ChooseQueue(const JobSpec& spec, const CapacityPlan& plan,
                const std::set<std::string>& pools, const std::set<std::string>& regions) {
  for (size_t i = 0; i < plan.queues.size(); ++i) {
    const QueueShare& q = plan.queues[i];
    if (q.owner == QueueOwner::kTeam && q.source == spec.team && regions.count(q.region)) {
      return static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < plan.queues.size(); ++i) {
    const QueueShare& q = plan.queues[i];
    if (q.owner == QueueOwner::kPool && pools.count(q.source) &&
        (spec.pool.empty() || q.source == spec.pool)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void AddFieldNotes(const JobToExport& job, JobPods& p) {
  const JobSpec& s = job.request.spec;
  const JobRequest& r = job.request;
  auto note = [&p](std::string text) { p.unexpressed.push_back(std::move(text)); };
  if (!s.WholeGpus()) {
    note("gpu_milli " + std::to_string(s.gpu_milli) + ": a pod asks for whole cards "
         "(nvidia.com/gpu); a share of one needs MIG or time-slicing set up on the nodes");
  }
  if (!s.gpu_speeds.empty()) {
    note("gpu_speeds: the queue tries its flavors in one order for every job; the card that "
         "finishes this job soonest is not sought");
  }
  if (s.estimate) note("estimate " + FormatDuration(*s.estimate) + ": no backfill uses it");
  if (s.deadline) note("deadline: nothing orders jobs by deadline");
  if (r.hold || r.begin) note("hold/begin: apply the file when the job may start");
  if (!r.dependency.empty()) {
    note("dependency " + r.dependency + ": it names squeeze job ids; apply the file when "
         "those jobs have ended");
  }
  if (!r.output_path.empty() || !r.error_path.empty()) {
    note("output/error files: the pod's output is its log (kubectl logs)");
  }
  if (r.tasks > 0 && p.pods > 1) {
    note("a batch script's tasks (" + std::to_string(r.tasks) + "): the script runs in every "
         "pod, which has no srun; SQUEEZE_NODE_RANK tells the pods apart");
  }
  if (s.data_gb > 0) note("data_gb: no data is copied between regions");
  if (s.fault_tolerant) note("fault_tolerant: spot capacity is allowed, not preferred");
  if (s.checkpointable) {
    note("checkpointable: a preStop hook sends SIGUSR1 to the job (the container's process 1) "
         "and waits for the checkpoint's cost before SIGTERM; SQUEEZE_CHECKPOINT_DIR must name "
         "a volume its runs share, which the pod does not mount");
  }
}

void AddPlacement(const JobSpec& spec, const std::vector<const NodeSpec*>& nodes,
                  const ClusterSpec& cluster, const CapacityPlan& plan, JobPods& p) {
  std::set<std::string> models, kinds_taken;
  for (const NodeSpec* n : nodes) {
    models.insert(n->gpu_model);
    const PoolSpec& pool = cluster.pools[cluster.PoolIndex(n->pool)];
    if (auto taint = FlavorTaintKey(pool.kind)) kinds_taken.insert(*taint);
  }
  if ((!spec.gpu_models.empty() || spec.min_gpu_memory_mib > 0) &&
      !models.count(kUnnamedGpuModel)) {
    for (const auto& m : models) p.gpu_products.push_back(GpuProductLabel(m));
  }
  p.min_gpu_memory_mib = spec.min_gpu_memory_mib;
  p.pool = spec.pool;
  if (plan.MultiRegion()) p.regions = spec.regions;
  p.tolerations.assign(kinds_taken.begin(), kinds_taken.end());
}

// An array's tasks, each one pod of the Job: refused when a task needs several, or when
// unevenly spaced indices are too many to list in the pods' shell line.
Status TakeArray(ArraySpec array, JobPods& p) {
  if (array.tasks.empty()) return Status::Ok();
  if (p.pods > 1) {
    return Status::Error("a job array of tasks of several nodes each (" + std::to_string(p.pods) +
                         " pods) is not exported: one Job's indices are one pod each");
  }
  const std::vector<int>& t = array.tasks;
  bool even = true;
  for (size_t i = 2; i < t.size(); ++i) even = even && t[i] - t[i - 1] == t[1] - t[0];
  if (!even && t.size() > kMaxListedArrayTasks) {
    return Status::Error("an array of " + std::to_string(t.size()) + " unevenly spaced tasks is "
                         "not exported (at most " + std::to_string(kMaxListedArrayTasks) +
                         "; evenly spaced ones, such as 0-99999, have no limit)");
  }
  p.array_tasks = std::move(array.tasks);
  p.array_limit = array.limit;
  return Status::Ok();
}

}  // namespace

Result<JobPods> PlanJobPods(const JobToExport& job, const ClusterSpec& cluster,
                            const CapacityPlan& plan, const ExportOptions& options) {
  const JobSpec& spec = job.request.spec;
  const std::string where = job.source + ": job '" + spec.name + "'";
  auto fail = [&where](const std::string& message) {
    return Status::Error(where + ": " + message);
  };
  ArraySpec array;
  if (job.request.array_size > 0) {
    auto parsed = ParseArraySpec(job.request.array);
    if (!parsed.ok()) return fail(parsed.status().message());
    array = std::move(*parsed);
  }
  if (Status s = CheckTopologyRequest(spec.topology, cluster.topology); !s.ok()) {
    return fail(s.message());
  }
  JobPods p;
  auto name = DnsLabel(spec.name, "job name");
  if (!name.ok()) return fail(name.status().message());
  p.name = *name;
  const auto nodes = UsableNodes(spec, cluster, options.policy);
  if (nodes.empty()) return fail("no node of the cluster may run it (" + Constraints(spec) + ")");
  int largest = 0;
  std::set<std::string> pools, regions;
  for (const NodeSpec* n : nodes) {
    largest = std::max(largest, n->gpus);
    pools.insert(n->pool);
    regions.insert(cluster.pools[cluster.PoolIndex(n->pool)].region);
  }
  const int width = spec.elastic.enabled() ? spec.elastic.max : spec.gpus;
  SplitIntoPods(width, largest, p);
  if (Status s = CheckRoom(nodes, p, width); !s.ok()) return fail(s.message());
  if (Status st = TakeArray(std::move(array), p); !st.ok()) return fail(st.message());
  p.min_pods = spec.elastic.enabled() && p.gpus_per_pod > 0
                   ? static_cast<int>(CeilDiv(spec.elastic.min, p.gpus_per_pod))
                   : p.pods;
  p.spans_nodes = p.pods > 1;
  p.cpu_milli_per_pod = CeilDiv(spec.cpu_milli, p.pods);
  p.memory_mib_per_pod = CeilDiv(spec.memory_mib, p.pods);
  const size_t indices = p.array_tasks.empty() ? p.pods : p.array_tasks.size();
  if (indices > 1 && p.name.size() + 1 + std::to_string(indices - 1).size() > kMaxLabelLength) {
    return fail("the name '" + p.name + "' leaves no room for the pods' index in a 63-character "
                "host name; shorten it");
  }
  p.queue = ChooseQueue(spec, plan, pools, regions);
  if (p.queue < 0) return fail("no queue holds the nodes it may use");
  const QueueShare& q = plan.queues[p.queue];
  p.ns = q.owner == QueueOwner::kTeam ? q.team_namespace : options.pool_namespace;
  AddPlacement(spec, nodes, cluster, plan, p);
  AddFieldNotes(job, p);
  return p;
}

// The shell line that sets an array task's SQUEEZE_ARRAY_TASK_ID from its pod's index
// (SQUEEZE_ARRAY_INDEX) and runs the job's command ("$0" "$@"): arithmetic for evenly spaced
// indices ("0-99", "1-10:3"), else a walk of the list.
std::string ArrayTaskScript(const std::vector<int>& tasks) {
  const std::string run = "; export SQUEEZE_ARRAY_TASK_ID; exec \"$0\" \"$@\"";
  const int step = tasks.size() > 1 ? tasks[1] - tasks[0] : 1;
  bool even = true;
  for (size_t i = 1; i < tasks.size(); ++i) even = even && tasks[i] - tasks[i - 1] == step;
  if (even) {
    return "SQUEEZE_ARRAY_TASK_ID=$((" + std::to_string(tasks.front()) +
           " + SQUEEZE_ARRAY_INDEX * " + std::to_string(step) + "))" + run;
  }
  std::string list;
  for (int t : tasks) list += (list.empty() ? "" : " ") + std::to_string(t);
  return "i=$SQUEEZE_ARRAY_INDEX; for t in " + list +
         "; do if [ \"$i\" -eq 0 ]; then SQUEEZE_ARRAY_TASK_ID=$t; break; fi; i=$((i - 1)); "
         "done" + run;
}

YamlValue ShapeEnv(const JobPods& pods, const std::string& rank_annotation,
                   const std::string& master) {
  auto var = [](const std::string& name, const std::string& value) {
    return YamlValue::Map().Set("name", YamlValue::String(name)).Set("value", YamlValue::String(value));
  };
  YamlValue env = YamlValue::List();
  env.Add(var("SQUEEZE_JOB_NAME", pods.name));
  env.Add(var("SQUEEZE_NNODES", std::to_string(pods.pods)));
  env.Add(var("SQUEEZE_GPUS_PER_NODE", std::to_string(pods.gpus_per_pod)));
  if (pods.pods > 1) {
    const std::string path = "metadata.annotations['" + rank_annotation + "']";
    env.Add(YamlValue::Map()
                .Set("name", YamlValue::String("SQUEEZE_NODE_RANK"))
                .Set("valueFrom", YamlValue::Map().Set(
                                      "fieldRef", YamlValue::Map().Set("fieldPath", YamlValue::String(path)))));
    env.Add(var("SQUEEZE_MASTER_ADDR", master));
    env.Add(var("MASTER_ADDR", master));
  } else {
    env.Add(var("SQUEEZE_NODE_RANK", "0"));
    env.Add(var("SQUEEZE_MASTER_ADDR", "127.0.0.1"));
    env.Add(var("MASTER_ADDR", "127.0.0.1"));
  }
  env.Add(var("SQUEEZE_MASTER_PORT", "29500"));
  env.Add(var("MASTER_PORT", "29500"));
  if (!pods.array_tasks.empty()) {
    const std::string path = "metadata.annotations['" + rank_annotation + "']";
    env.Add(YamlValue::Map()
                .Set("name", YamlValue::String("SQUEEZE_ARRAY_INDEX"))
                .Set("valueFrom", YamlValue::Map().Set(
                                      "fieldRef", YamlValue::Map().Set(
                                                      "fieldPath", YamlValue::String(path)))));
  }
  return env;
}

YamlValue JobContainer(const JobToExport& job, const JobPods& pods, const std::string& image,
                       YamlValue shape) {
  const JobRequest& r = job.request;
  YamlValue command = YamlValue::List();
  if (!pods.array_tasks.empty()) {
    command.Add(YamlValue::String("/bin/sh")).Add(YamlValue::String("-c"));
    command.Add(YamlValue::String(ArrayTaskScript(pods.array_tasks)));
  }
  for (const auto& word : r.command) command.Add(YamlValue::String(word));
  YamlValue c = YamlValue::Map().Set("name", YamlValue::String("train")).Set("image", YamlValue::String(image));
  c.Set("command", std::move(command));
  if (job.workdir_given && !r.workdir.empty()) c.Set("workingDir", YamlValue::String(r.workdir));
  YamlValue env = YamlValue::List();  // the job's own variables win over the shape's
  for (const YamlValue& var : shape.items()) {
    if (!r.env.count(var.Find("name")->scalar())) env.Add(var);
  }
  for (const auto& [k, v] : r.env) {
    env.Add(YamlValue::Map().Set("name", YamlValue::String(k)).Set("value", YamlValue::String(v)));
  }
  c.Set("env", std::move(env));
  YamlValue requests = YamlValue::Map(), limits = YamlValue::Map();
  if (pods.cpu_milli_per_pod > 0) requests.Set("cpu", YamlValue::String(CpuQuantity(pods.cpu_milli_per_pod)));
  if (pods.memory_mib_per_pod > 0) {
    const std::string mem = MemoryQuantity(pods.memory_mib_per_pod);
    requests.Set("memory", YamlValue::String(mem));
    limits.Set("memory", YamlValue::String(mem));
  }
  if (pods.gpus_per_pod > 0) limits.Set(kGpuResource, YamlValue::Int(pods.gpus_per_pod));
  YamlValue resources = YamlValue::Map();
  if (!requests.entries().empty()) resources.Set("requests", std::move(requests));
  if (!limits.entries().empty()) resources.Set("limits", std::move(limits));
  c.Set("resources", std::move(resources));
  if (r.spec.checkpointable) {
    const int64_t wait = std::max<int64_t>(1, CeilDiv(r.spec.checkpoint_cost, kSecond));
    YamlValue hook = YamlValue::List().Add(YamlValue::String("/bin/sh")).Add(YamlValue::String("-c")).Add(
        YamlValue::String("kill -USR1 1; sleep " + std::to_string(wait)));
    c.Set("lifecycle", YamlValue::Map().Set(
                           "preStop", YamlValue::Map().Set(
                                          "exec", YamlValue::Map().Set("command", hook))));
  }
  return c;
}

namespace {

YamlValue Expression(const std::string& key, const std::vector<std::string>& values) {
  YamlValue list = YamlValue::List();
  for (const auto& v : values) list.Add(YamlValue::String(v));
  return YamlValue::Map().Set("key", YamlValue::String(key)).Set("operator", YamlValue::String("In")).Set("values", list);
}

std::optional<YamlValue> NodeAffinity(const JobPods& p) {
  YamlValue terms = YamlValue::List();
  if (!p.gpu_products.empty()) terms.Add(Expression(kGpuModelLabel, p.gpu_products));
  if (!p.pool.empty()) terms.Add(Expression(kPoolLabel, {p.pool}));
  if (!p.regions.empty()) terms.Add(Expression(kRegionLabel, p.regions));
  if (terms.items().empty()) return std::nullopt;
  YamlValue term = YamlValue::Map().Set("matchExpressions", std::move(terms));
  YamlValue required =
      YamlValue::Map().Set("nodeSelectorTerms", YamlValue::List().Add(std::move(term)));
  return YamlValue::Map().Set(
      "nodeAffinity",
      YamlValue::Map().Set("requiredDuringSchedulingIgnoredDuringExecution", required));
}

}  // namespace

std::string ElasticNote(const JobSpec& spec, const JobPods& pods, const std::string& fewer) {
  if (!spec.elastic.enabled()) return "";
  return "elastic gpus " + std::to_string(spec.elastic.min) + "-" +
         std::to_string(spec.elastic.max) + ": " +
         (pods.min_pods < pods.pods ? fewer
                                    : "its pod asks for the full width (a pod's GPUs cannot "
                                      "change)");
}

void AddJobComments(YamlDocument& doc, const JobToExport& job, const JobPods& pods,
                    const std::string& queue, const std::vector<std::string>& more) {
  const JobSpec& s = job.request.spec;
  const std::string gpus = std::to_string(pods.gpus_per_pod) +
                          (pods.gpus_per_pod == 1 ? " GPU" : " GPUs");
  std::string shape = pods.gpus_per_pod == 0 ? "no GPU"
                      : pods.pods == 1 ? gpus + " in one pod"
                                       : std::to_string(pods.pods) + " pods of " + gpus;
  if (pods.min_pods < pods.pods) {
    shape += ", starting with " + std::to_string(pods.min_pods) + " or more";
  }
  if (!pods.array_tasks.empty()) {
    shape = "an array of " + std::to_string(pods.array_tasks.size()) + " tasks (" +
            FormatTaskRanges(pods.array_tasks) + "), each " + shape +
            (pods.array_limit > 0 ? ", " + std::to_string(pods.array_limit) + " at once" : "");
  }
  AddComment(doc, "From squeeze: job '" + s.name + "' of " + job.source + ": " + shape +
                      "; queue " + queue + ", urgency " + std::string(UrgencyName(s.urgency)) +
                      ".");
  std::vector<std::string> all = pods.unexpressed;
  all.insert(all.end(), more.begin(), more.end());
  if (all.empty()) return;
  AddComment(doc, "Not expressed:");
  for (const auto& text : all) {
    for (auto& line : WrapComment(text, kCommentWidth, "- ", "  ")) {
      doc.comments.push_back(std::move(line));
    }
  }
}

YamlValue JobPodSpec(const JobToExport& job, const JobPods& pods, YamlValue container,
                     bool pod_deadline) {
  const JobSpec& s = job.request.spec;
  YamlValue spec = YamlValue::Map().Set("restartPolicy", YamlValue::String("Never"));
  if (auto affinity = NodeAffinity(pods)) spec.Set("affinity", std::move(*affinity));
  if (!pods.tolerations.empty()) {
    YamlValue list = YamlValue::List();
    for (const auto& key : pods.tolerations) {
      list.Add(YamlValue::Map()
                   .Set("key", YamlValue::String(key))
                   .Set("operator", YamlValue::String("Equal"))
                   .Set("value", YamlValue::String("true"))
                   .Set("effect", YamlValue::String("NoSchedule")));
    }
    spec.Set("tolerations", std::move(list));
  }
  if (s.checkpointable) {
    const int64_t grace = std::max<int64_t>(1, CeilDiv(s.checkpoint_cost, kSecond)) + 30;
    spec.Set("terminationGracePeriodSeconds", YamlValue::Int(grace));
  }
  if (pod_deadline && s.time_limit) {
    spec.Set("activeDeadlineSeconds", YamlValue::Int(CeilDiv(*s.time_limit, kSecond)));
  }
  spec.Set("containers", YamlValue::List().Add(std::move(container)));
  return spec;
}

}  // namespace squeeze
