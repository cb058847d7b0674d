#include "serve/queue_service.h"

#include "config/job_feasibility.h"
#include "config/job_file.h"
#include "config/job_values.h"
#include "config/data_path.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "exec/run_files.h"
#include "serve/capacity_requests.h"
#include "serve/job_json.h"
#include "serve/prometheus_text.h"

namespace squeeze {
namespace {

constexpr int kMaxPage = 1000;

// A job's log, command line, workdir, env and checkpoint folder are its owner's and the admins'.
bool MaySee(const Principal& who, const StoredJob& job) {
  return who.admin || who.user == job.owner;
}

}  // namespace

QueueService::QueueService(std::string data_dir, JobStore& store, LiveQueue& queue,
                           std::function<Time()> clock, std::function<void()> wake,
                           GpuSampleStore* samples)
    : data_dir_(std::move(data_dir)),
      store_(store),
      queue_(queue),
      clock_(std::move(clock)),
      wake_(std::move(wake)),
      samples_(samples) {}

ApiResult QueueService::Submit(const Principal& who, const std::string& body) {
  const Time now = clock_();
  auto request = ParseJobJson(body, now);
  if (!request.ok()) return ApiResult::Fail(400, request.status().message());
  JobSpec& spec = request->spec;
  if (spec.team.empty()) spec.team = who.team;
  if (spec.team != who.team && !who.admin) {
    return ApiResult::Fail(403, "team: you are in team '" + who.team + "', not '" + spec.team +
                                    "'; only an admin submits for another team");
  }
  if (Status s = CheckFitsCluster(spec, queue_.cluster().spec); !s.ok()) {
    return ApiResult::Fail(400, s.message());
  }
  if (ApiResult checked = queue_.CheckSubmission(who.user, *request); checked.error) {
    return checked;
  }
  auto id = store_.Submit(*request, who.user, now);
  if (!id.ok()) return ApiResult::Fail(500, "not stored: " + id.status().message());
  StoredJob stored;
  stored.id = *id;
  stored.request = std::move(request).value();
  stored.request.spec.id = *id;
  stored.owner = who.user;
  stored.submitted_at = now;
  stored.held = stored.request.hold;
  stored.not_before = stored.request.begin;
  if (stored.held) stored.reason = "submitted held";
  queue_.Add(stored);
  wake_();
  return ApiResult::Ok({{"id", *id}});
}

ApiResult QueueService::List(const Principal& who,
                             const std::map<std::string, std::string>& query) {
  static const std::vector<std::string_view> kKeys = {"state", "owner", "team", "limit", "after"};
  ListFilter filter;
  for (const auto& [key, value] : query) {
    if (key == "state") {
      for (const std::string& name : SplitList(value, ',')) {
        auto state = ParseJobState(name);
        if (!state) {
          return ApiResult::Fail(400, "state: '" + name + "' is not one of pending, running, "
                                      "checkpointing, done, failed, cancelled");
        }
        filter.states.push_back(*state);
      }
    } else if (key == "owner") {
      filter.owner = value;
    } else if (key == "team") {
      filter.team = value;
    } else if (key == "limit" || key == "after") {
      auto n = ParseInt64(value);
      if (!n || *n < 0 || (key == "limit" && (*n < 1 || *n > kMaxPage))) {
        return ApiResult::Fail(400, key + ": '" + value + "' is not " +
                                        (key == "limit" ? "a number from 1 to 1000" : "a job id"));
      }
      if (key == "limit") filter.limit = static_cast<int>(*n);
      if (key == "after") filter.after_id = *n;
    } else {
      auto near = NearestName(key, kKeys);
      return ApiResult::Fail(400, "unknown query parameter '" + key + "'" +
                                      (near ? " (did you mean '" + *near + "'?)" : ""));
    }
  }
  if (!query.count("limit")) filter.limit = 100;
  // A finished job whose text is kept needs no decoding (ListedJobText).
  filter.wants_request = [&](const StoredJob& row) {
    if (!IsFinished(row.state)) return true;
    std::lock_guard lock(finished_text_mu_);
    return !finished_text_.count(FinishedTextKey(row.id, MaySee(who, row)));
  };
  auto jobs = store_.List(filter);
  if (!jobs.ok()) return ApiResult::Fail(500, jobs.status().message());
  // Written as text, a finished job's from the piece kept since it was first listed (what a
  // finished job shows does not change): a page costs little however often it is asked for.
  const Time now = clock_();
  std::string page = "{\"jobs\":[";
  for (size_t i = 0; i < jobs->size(); ++i) {
    if (i > 0) page += ',';
    page += ListedJobText((*jobs)[i], now, MaySee(who, (*jobs)[i]));
  }
  page += ']';
  if (static_cast<int>(jobs->size()) == filter.limit) {
    page += ",\"next_after\":" + std::to_string(jobs->back().id);
  }
  return ApiResult::OkText(page + "}");
}

void QueueService::AddReasonCode(const StoredJob& job, nlohmann::json& out) const {
  if (job.state != JobState::kPending) return;
  const std::string_view code = queue_.ReasonCode(job.id);
  out["reason_code"] = code.empty() ? nlohmann::json() : nlohmann::json(std::string(code));
}

std::string QueueService::ListedJobText(const StoredJob& job, Time now, bool private_fields) {
  const std::vector<std::string> nodes = queue_.cluster().NodeNamesOf(job.gpus);
  if (!IsFinished(job.state)) {
    nlohmann::json j = StoredJobJson(job, now, private_fields, nodes);
    AddReasonCode(job, j);
    return j.dump();
  }
  const int64_t key = FinishedTextKey(job.id, private_fields);
  {
    std::lock_guard lock(finished_text_mu_);
    if (auto it = finished_text_.find(key); it != finished_text_.end()) return it->second;
  }
  std::string text = StoredJobJson(job, now, private_fields, nodes).dump();
  std::lock_guard lock(finished_text_mu_);
  if (finished_text_.size() >= kFinishedTextKept) finished_text_.clear();
  finished_text_.emplace(key, text);
  return text;
}

ApiResult QueueService::Get(const Principal& who, int64_t id) {
  auto job = store_.Get(id);
  if (!job.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
  const bool own = MaySee(who, *job);
  nlohmann::json out = StoredJobJson(*job, clock_(), own, queue_.cluster().NodeNamesOf(job->gpus));
  AddReasonCode(*job, out);
  out["checkpoint_dir"] =
      own ? nlohmann::json(PathsOf(data_dir_, id, 0).checkpoint_dir) : nlohmann::json();
  // One job is shown with its history: submit, starts, stops and why, moves, checkpoints, ends.
  nlohmann::json history = nlohmann::json::array();
  if (auto events = store_.Events(id); events.ok()) {
    for (const JobEvent& e : *events) {
      history.push_back({{"at", FormatDateTime(e.at)}, {"kind", e.kind}, {"text", e.text}});
    }
  }
  out["history"] = std::move(history);
  return ApiResult::Ok(out);
}

ApiResult QueueService::Control(const Principal& who, int64_t id, const std::string& action,
                                const std::string& body) {
  const Time now = clock_();
  ApiResult r = action == "hold"      ? queue_.Hold(who, id, now)
                : action == "release" ? queue_.Release(who, id, now)
                : action == "requeue" ? queue_.Requeue(who, id, now)
                : action == "update"  ? queue_.Update(who, id, body, now)
                                      : ApiResult::Fail(404, "no such endpoint");
  wake_();
  return r;
}

ApiResult QueueService::Cancel(const Principal& who, int64_t id) {
  ApiResult r = queue_.Cancel(who, id, clock_());
  wake_();
  return r;
}

ApiResult QueueService::Why(const Principal& who, int64_t id) {
  const Time now = clock_();
  if (auto why = queue_.WhyJson(id, now)) return ApiResult::Ok(*why);
  auto job = store_.Get(id);
  if (!job.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
  std::string line = "it has ended: " + std::string(JobStateName(job->state));
  if (!job->reason.empty()) line += " (" + job->reason + ")";
  if (!IsFinished(job->state)) line = "just submitted: the next cycle considers it";
  nlohmann::json out = {{"id", id},
                        {"state", std::string(JobStateName(job->state))},
                        {"explanation", {line}}};
  if (IsFinished(job->state)) out["expected_start_in_s"] = nullptr;
  return ApiResult::Ok(out);
}

ApiResult QueueService::Log(const Principal& who, int64_t id,
                            const std::map<std::string, std::string>& query) {
  constexpr int64_t kMaxTail = 1 << 20;
  auto job = store_.Get(id);
  if (!job.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
  if (!MaySee(who, *job)) {
    return ApiResult::Fail(403, "job " + std::to_string(id) + "'s log is " + job->owner +
                                    "'s: only its owner or an admin may read it");
  }
  int64_t attempt = job->attempts, tail = 64 * 1024;
  std::optional<int64_t> from;  // from_byte: the text from there on (a follower's next read)
  for (const auto& [key, value] : query) {
    auto n = ParseInt64(value);
    if (key == "attempt") {
      if (!n || *n < 1 || *n > job->attempts) {
        return ApiResult::Fail(400, "attempt: '" + value + "' is not one of job " +
                                        std::to_string(id) + "'s runs (1.." +
                                        std::to_string(job->attempts) + ")");
      }
      attempt = *n;
    } else if (key == "tail_bytes") {
      if (!n || *n < 1 || *n > kMaxTail) {
        return ApiResult::Fail(400, "tail_bytes: '" + value + "' is not a number from 1 to " +
                                        std::to_string(kMaxTail));
      }
      tail = *n;
    } else if (key == "from_byte") {
      if (!n || *n < 0) {
        return ApiResult::Fail(400, "from_byte: '" + value + "' is not a number of 0 or more");
      }
      from = *n;
    } else {
      return ApiResult::Fail(400, "unknown query parameter '" + key +
                                      "' (attempt, tail_bytes, from_byte)");
    }
  }
  if (attempt < 1) return ApiResult::Fail(409, "job " + std::to_string(id) + " has not run yet");
  const std::string relative = PathsOf(".", id, static_cast<int>(attempt)).log;
  auto path = ResolveInside(data_dir_, relative);
  if (!path.ok()) return ApiResult::Fail(400, path.status().message());
  std::string text = ReadFileIfPresent(*path).value_or("");
  const int64_t size = static_cast<int64_t>(text.size());
  // From `from` (at most tail_bytes of it, the first ones), else the last tail_bytes.
  bool truncated = false;
  if (from) {
    text = text.substr(static_cast<size_t>(std::min(*from, size)));
    if (static_cast<int64_t>(text.size()) > tail) text.resize(static_cast<size_t>(tail));
  } else if (size > tail) {
    truncated = true;
    text = text.substr(static_cast<size_t>(size - tail));
  }
  return ApiResult::Ok({{"id", id},
                        {"attempt", attempt},
                        {"path", *path},
                        {"truncated", truncated},
                        {"size", size},
                        {"text", text}});
}

ApiResult QueueService::Nodes(const Principal& who) { return ApiResult::Ok(queue_.NodesJson()); }

ApiResult QueueService::Pools(const Principal& who) { return ApiResult::Ok(queue_.PoolsJson()); }

ApiResult QueueService::ReclaimNode(const Principal& who, const std::string& node,
                                     const std::string& body) {
  if (!who.admin) return ApiResult::Fail(403, "only an admin may reclaim a node");
  auto warning = ParseReclaimBody(body);
  if (!warning.ok()) return ApiResult::Fail(400, warning.status().message());
  ApiResult r = queue_.Reclaim(node, *warning, clock_());
  if (!r.error) wake_();  // its jobs are asked to leave by the next step
  return r;
}

ApiResult QueueService::ReturnNode(const Principal& who, const std::string& node) {
  if (!who.admin) return ApiResult::Fail(403, "only an admin may return a node");
  ApiResult r = queue_.Return(node, clock_());
  if (!r.error) wake_();
  return r;
}

ApiResult QueueService::HeldIdle(const Principal& who) {
  return ApiResult::Ok(queue_.HeldIdleJson());
}

// Admins only: a report closes GPUs and evicts the training on them, so whoever sends it
// decides over every team's jobs there (an inference agent holds an admin token). The whole
// report is checked before anything is applied; the readings are stored after.
ApiResult QueueService::Telemetry(const Principal& who, const std::string& body) {
  if (!who.admin) return ApiResult::Fail(403, "only an admin may report telemetry");
  auto report = ParseTelemetryBody(body);
  if (!report.ok()) return ApiResult::Fail(400, report.status().message());
  const Time now = clock_();
  const Time at = report->time.value_or(now);
  if (at > now + kMaxTelemetryFutureSkew) {
    return ApiResult::Fail(400, "time: " + std::to_string(at) + " (" + FormatDateTime(at) +
                                    ") is in the future (now " + FormatDateTime(now) + ")");
  }
  if (at < now - kMaxTelemetryFutureSkew) {
    for (size_t i = 0; i < report->gpus.size(); ++i) {
      if (!report->gpus[i].inference_load) continue;
      return ApiResult::Fail(400, "gpus[" + std::to_string(i) + "].inference_load: a current "
                                  "reading, but the report's time " + FormatDateTime(at) +
                                  " is " + FormatDuration(now - at) + " old; replay old "
                                  "samples without inference_load");
    }
  }
  return ApplyReadings(report->gpus, at, now);
}

ApiResult QueueService::ApplyReadings(const std::vector<GpuTelemetry>& gpus, Time at, Time now) {
  ApiResult r = queue_.ApplyTelemetry(gpus, at, now);
  if (r.error) return r;
  wake_();
  if (samples_ != nullptr) {
    std::vector<GpuReading> readings;
    for (const GpuTelemetry& g : gpus) {
      if (g.utilization || g.memory_used_mib) {
        readings.push_back({at, g.node, g.gpu, g.utilization, g.memory_used_mib});
      }
    }
    if (Status s = samples_->Insert(readings); !s.ok()) {
      return ApiResult::Fail(500, "applied, but the samples were not stored: " + s.message());
    }
    r.value["stored"] = readings.size();
  }
  return r;
}

std::string QueueService::MetricsText() {
  const LiveQueue::Gauges g = queue_.Snapshot();
  const LiveCounters& c = g.counters;
  PrometheusText m;
  m.Gauge("squeeze_up", "1 while the daemon serves", 1);
  for (const auto& [urgency, n] : g.pending_by_urgency) {
    m.Gauge("squeeze_queue_pending_jobs", "Jobs waiting to run, by urgency class", n,
            {{"urgency", urgency}});
  }
  for (const auto& [urgency, n] : g.running_by_urgency) {
    m.Gauge("squeeze_running_jobs", "Jobs running or checkpointing, by urgency class", n,
            {{"urgency", urgency}});
  }
  const MetricLabels kind = {{"virtual", g.virtual_gpus ? "true" : "false"}};
  m.Gauge("squeeze_gpus", "GPUs squeeze schedules", g.gpus_total, kind);
  m.Gauge("squeeze_gpus_allocated", "GPUs given to jobs (fractions of a GPU add up)",
          static_cast<double>(g.gpu_milli_allocated) / 1000.0, kind);
  m.Gauge("squeeze_gpus_idle", "GPUs with no job on them", g.gpus_idle, kind);
  m.Histogram("squeeze_queue_wait_seconds", "Time jobs waited in the queue before each start",
              kWaitBounds, c.wait_counts, c.wait_sum);
  m.Counter("squeeze_job_starts_total", "Runs started", static_cast<double>(c.starts));
  m.Counter("squeeze_preemptions_total", "Running jobs stopped for a more urgent job",
            static_cast<double>(c.preemptions));
  m.Counter("squeeze_slice_ends_total", "Running jobs stopped at the end of their slice",
            static_cast<double>(c.slice_ends));
  m.Counter("squeeze_checkpoints_total", "Complete checkpoints jobs reported",
            static_cast<double>(c.checkpoints));
  m.Counter("squeeze_job_retries_total", "Failed runs retried", static_cast<double>(c.retries));
  m.Counter("squeeze_jobs_finished_total", "Jobs that ended, by final state",
            static_cast<double>(c.finished_done), {{"state", "done"}});
  m.Counter("squeeze_jobs_finished_total", "Jobs that ended, by final state",
            static_cast<double>(c.finished_failed), {{"state", "failed"}});
  m.Counter("squeeze_jobs_finished_total", "Jobs that ended, by final state",
            static_cast<double>(c.cancelled), {{"state", "cancelled"}});
  m.Counter("squeeze_jobs_finished_total", "Jobs that ended, by final state",
            static_cast<double>(c.timed_out), {{"state", "timeout"}});
  m.Counter("squeeze_lost_runs_total",
            "Runs a backend lost (a Slurm node failed, Slurm requeued or forgot the job); "
            "each job was queued again",
            static_cast<double>(c.lost));
  m.Counter("squeeze_spot_reclaims_total",
            "Spot nodes taken back (reclaim notices through the API, Slurm taking a node away)",
            static_cast<double>(g.reclaims));
  m.Gauge("squeeze_held_idle_jobs",
          "Running jobs whose every GPU stayed below the held-idle threshold for the window",
          g.held_idle_jobs);
  m.Counter("squeeze_inference_evictions_total",
            "Runs asked to leave a colocated GPU because its inference load rose",
            static_cast<double>(g.inference_evictions));
  // One family after the other: Prometheus wants a family's samples together.
  for (const LiveQueue::Gauges::Backend& b : g.backends) {
    m.Gauge("squeeze_slurm_controller_up", "1 when the pool's Slurm controller answered the "
            "last look", b.reachable ? 1 : 0, {{"pool", b.pool}});
  }
  for (const LiveQueue::Gauges::Backend& b : g.backends) {
    m.Gauge("squeeze_slurm_unknown_jobs", "Jobs named squeeze-* that Slurm runs and squeeze "
            "does not know (left alone)", b.unknown_jobs, {{"pool", b.pool}});
  }
  for (const LiveQueue::Gauges::Backend& b : g.backends) {
    m.Gauge("squeeze_nodes_unavailable", "Nodes of the pool that take no new jobs (down, "
            "drained, or their controller does not answer)", b.nodes_unavailable,
            {{"pool", b.pool}});
  }
  return m.str();
}

}  // namespace squeeze
