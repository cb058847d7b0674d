#include "serve/job_json.h"

#include <cmath>
#include <map>

#include "config/job_values.h"

namespace squeeze {
namespace {

nlohmann::json TimeOrNull(const std::optional<Time>& t) {
  return t ? nlohmann::json(FormatDateTime(*t)) : nlohmann::json();
}

// Object storage for its checkpoints: where, and how the job reaches it (no secret: the job
// reads its credentials itself, as its owner).
nlohmann::json CheckpointStoreJson(const CheckpointStore& c) {
  const auto or_null = [](const std::string& text) {
    return text.empty() ? nlohmann::json() : nlohmann::json(text);
  };
  return {{"url", c.url},
          {"endpoint", or_null(c.endpoint)},
          {"region", or_null(c.region)},
          {"credentials", or_null(c.credentials)},
          {"keep", c.keep},
          {"max_upload_gbps", c.max_upload_gbps > 0 ? nlohmann::json(c.max_upload_gbps)
                                                    : nlohmann::json()},
          {"upload_s", WholeSeconds(UploadSeconds(c))}};
}

// What the job asks for: resources, urgency, its checkpoints, limits.
void SpecFields(nlohmann::json& j, const JobSpec& spec) {
  const auto positive_or_null = [](Time t) {
    return t > 0 ? nlohmann::json(WholeSeconds(t)) : nlohmann::json();
  };
  const auto seconds_or_null = [](const std::optional<Time>& t) {
    return t ? nlohmann::json(WholeSeconds(*t)) : nlohmann::json();
  };
  j["urgency"] = std::string(UrgencyName(spec.urgency));
  j["gpus"] = spec.gpus;
  // An elastic job (core/elastic.h): its range ("2-8"), step and scaling; gpus is its minimum
  // (the width of a run: run_gpus).
  const ElasticSpec& e = spec.elastic;
  j["gpus_range"] = e.enabled() ? nlohmann::json(std::to_string(e.min) + "-" +
                                                  std::to_string(e.max))
                                : nlohmann::json();
  j["gpus_step"] = e.enabled() ? nlohmann::json(e.step) : nlohmann::json();
  j["scaling"] = e.enabled() ? nlohmann::json(ScalingText(e.scaling)) : nlohmann::json();
  j["gpu_milli"] = spec.gpu_milli;
  j["gpu_models"] = spec.gpu_models;
  // The least memory of each card (null: any), and the job's own speed on each model, which
  // chooses its cards only (null: the cluster's speeds).
  j["gpu_memory_mib"] =
      spec.min_gpu_memory_mib > 0 ? nlohmann::json(spec.min_gpu_memory_mib) : nlohmann::json();
  j["gpu_speeds"] = spec.gpu_speeds.empty() ? nlohmann::json() : nlohmann::json(spec.gpu_speeds);
  j["topology"] = TopologyRequestText(spec.topology);  // preferred, required:rack, ...
  // CPUs and memory for the whole job (0: none asked for; the node's share).
  j["cpus"] = spec.cpu_milli > 0 ? nlohmann::json(spec.cpu_milli / 1000.0) : nlohmann::json();
  j["memory_mib"] = spec.memory_mib > 0 ? nlohmann::json(spec.memory_mib) : nlohmann::json();
  j["pool"] = spec.pool;
  j["regions"] = spec.regions;
  j["data_gb"] = spec.data_gb;
  j["preemptible"] = spec.preemptible;
  j["checkpointable"] = spec.checkpointable;
  j["fault_tolerant"] = spec.fault_tolerant;
  j["checkpoint_interval_s"] = positive_or_null(spec.checkpoint_interval);
  j["checkpoint_cost_s"] = positive_or_null(spec.checkpoint_cost);
  j["checkpoint_stall_s"] = seconds_or_null(spec.checkpoint_stall);
  j["estimate_s"] = seconds_or_null(spec.estimate);
  j["time_limit_s"] = seconds_or_null(spec.time_limit);
  j["deadline"] = TimeOrNull(spec.deadline);
}

// What only its owner and the admins see (null for the others), and how it runs.
void RequestFields(nlohmann::json& j, const StoredJob& job, bool private_fields) {
  const JobRequest& r = job.request;
  j["private"] = !private_fields;
  j["command"] = private_fields ? nlohmann::json(r.command) : nlohmann::json();
  j["workdir"] = private_fields ? nlohmann::json(r.workdir) : nlohmann::json();
  // The environment's values only from GET /v1/jobs/ID/env (JobEnvironmentJson): a job takes
  // the submitter's whole environment (sbatch's --export=ALL), tokens and keys with it, and
  // a listing, a cancel's answer or a `show` need not carry them.
  j["env"] = nullptr;
  j["env_count"] = private_fields ? nlohmann::json(r.env.size()) : nlohmann::json();
  // The files for the run's stdout and stderr as given (sbatch -o/-e); null: the run's log.
  const auto path_or_null = [&](const std::string& path) {
    return private_fields && !path.empty() ? nlohmann::json(path) : nlohmann::json();
  };
  j["checkpoint_store"] = r.checkpoint_store.named() && private_fields
                              ? CheckpointStoreJson(r.checkpoint_store)
                              : nlohmann::json();
  // A batch script's tasks: it runs once and starts them with srun (null: once per node).
  j["tasks"] = r.tasks > 0 ? nlohmann::json(r.tasks) : nlohmann::json();
  j["output"] = path_or_null(r.output_path);
  j["error"] = path_or_null(r.error_path);
  // A task of an array: the array's id, the task's index, the array as asked ("0-99%8").
  const bool task = r.spec.array_id != 0;
  j["array_id"] = task ? nlohmann::json(r.spec.array_id) : nlohmann::json();
  j["array_task"] = task ? nlohmann::json(r.spec.array_task) : nlohmann::json();
  j["array"] = task ? nlohmann::json(r.array) : nlohmann::json();
  j["dependency"] = r.dependency.empty() ? nlohmann::json() : nlohmann::json(r.dependency);
  j["held"] = job.held;
  j["begin"] = TimeOrNull(r.begin);
}

// Its times, waits, runs and their accounting, as of `now`.
void AccountingFields(nlohmann::json& j, const StoredJob& job, Time now) {
  j["submitted_at"] = FormatDateTime(job.submitted_at);
  j["started_at"] = TimeOrNull(job.started_at);
  j["ended_at"] = IsFinished(job.state) ? TimeOrNull(job.ended_at) : nlohmann::json();
  // Every wait of the job summed, as squeue's and sacct's: the waits before its runs, and the
  // current one for a waiting job (since it was submitted, or since its last run ended); a
  // job that ended without a run waited all its life.
  Time wait = job.waited;
  if (job.state == JobState::kPending) {
    wait += std::max<Time>(0, now - (job.attempts > 0 && job.ended_at ? *job.ended_at
                                                                      : job.submitted_at));
  } else if (job.attempts == 0) {
    wait += std::max<Time>(0, job.ended_at.value_or(now) - job.submitted_at);
  }
  j["wait_s"] = WholeSeconds(wait);
  // Every run's time summed, the current one's so far; GPU-hours by the GPUs asked for.
  Time ran = job.ran;
  if ((job.state == JobState::kRunning || job.state == JobState::kCheckpointing) &&
      job.started_at) {
    ran += std::max<Time>(0, now - *job.started_at);
  }
  const JobSpec& spec = job.request.spec;
  j["run_s"] = WholeSeconds(ran);
  // An elastic job's runs have different widths: its GPU time run by run.
  double gpu_s = ToSeconds(ran) * spec.gpus * spec.gpu_milli / 1000.0;
  auto hours = [](double seconds) { return std::round(seconds / 3600.0 * 1000.0) / 1000.0; };
  if (spec.elastic.enabled()) {
    const int width = static_cast<int>(job.gpus.size());
    gpu_s = ToSeconds(job.gpu_ran) + ToSeconds(ran - job.ran) * width;
    // Its GPU-hours at each width it ran at, the current run's so far included.
    std::map<int, Time> by_width = job.ran_by_width;
    if (ran > job.ran && width > 0) by_width[width] += ran - job.ran;
    nlohmann::json split = nlohmann::json::object();
    for (const auto& [w, t] : by_width) split[std::to_string(w)] = hours(ToSeconds(t) * w);
    j["gpu_hours_by_width"] = std::move(split);
  }
  j["gpu_hours"] = hours(gpu_s);
  j["exit_code"] = job.exit_code ? nlohmann::json(*job.exit_code) : nlohmann::json();
  j["attempts"] = job.attempts;
  j["failures"] = job.failures;
  j["retry_at"] = job.state == JobState::kPending ? TimeOrNull(job.not_before) : nlohmann::json();
  j["preemptions"] = job.preemptions;
  j["last_checkpoint"] = TimeOrNull(job.last_checkpoint);
}

}  // namespace

nlohmann::json StoredJobJson(const StoredJob& job, Time now, bool private_fields,
                             const std::vector<std::string>& run_nodes) {
  const JobSpec& spec = job.request.spec;
  nlohmann::json j;
  j["id"] = job.id;
  j["name"] = spec.name;
  j["owner"] = job.owner;
  j["team"] = spec.team;
  j["state"] = std::string(JobStateName(job.state));
  // Its owner and the admins see the reason with what is theirs (a path, the command).
  j["reason"] = private_fields && !job.reason_detail.empty() ? job.reason_detail : job.reason;
  SpecFields(j, spec);
  RequestFields(j, job, private_fields);
  AccountingFields(j, job, now);
  j["run_gpus"] = job.gpus;
  j["run_nodes"] = run_nodes;
  // Its command, environment, paths and all but the accounting events were purged then
  // (the retention of limits:); null while they are kept.
  j["details_purged_at"] = TimeOrNull(job.details_purged_at);
  return j;
}

nlohmann::json JobEnvironmentJson(const StoredJob& job) {
  return {{"id", job.id}, {"env", job.request.env},
          {"details_purged_at", TimeOrNull(job.details_purged_at)}};
}

}  // namespace squeeze
