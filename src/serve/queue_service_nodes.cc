#include "serve/queue_service.h"

#include "config/job_values.h"
#include "core/duration.h"
#include "serve/prometheus_text.h"

namespace squeeze {

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
    return ApiResult::Fail(400, "time: " + std::to_string(WholeSeconds(at)) + " (" + FormatDateTime(at) +
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
      return ApiResult::Fail(s.WithContext("applied, but the samples were not stored"));
    }
    r.value["stored"] = readings.size();
  }
  return r;
}

namespace {

// The counters of runs and jobs since the daemon started, and the events it acted on.
void AddRunCounters(PrometheusText& m, const LiveQueue::Gauges& g) {
  const LiveCounters& c = g.counters;
  m.Counter("squeeze_job_starts_total", "Runs started", static_cast<double>(c.starts));
  m.Counter("squeeze_preemptions_total", "Running jobs stopped for a more urgent job",
            static_cast<double>(c.preemptions));
  m.Counter("squeeze_slice_ends_total", "Running jobs stopped at the end of their slice",
            static_cast<double>(c.slice_ends));
  m.Counter("squeeze_resizes_total", "Elastic jobs stopped at a checkpoint to restart at another width",
            static_cast<double>(c.resizes));
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
}

// Each Slurm pool's controller, unknown jobs and unavailable nodes.
void AddBackendGauges(PrometheusText& m, const std::vector<LiveQueue::Gauges::Backend>& backends) {
  // One family after the other: Prometheus wants a family's samples together.
  for (const LiveQueue::Gauges::Backend& b : backends) {
    m.Gauge("squeeze_slurm_controller_up", "1 when the pool's Slurm controller answered the "
            "last look", b.reachable ? 1 : 0, {{"pool", b.pool}});
  }
  for (const LiveQueue::Gauges::Backend& b : backends) {
    m.Gauge("squeeze_slurm_unknown_jobs", "Jobs named squeeze-* that Slurm runs and squeeze "
            "does not know (left alone)", b.unknown_jobs, {{"pool", b.pool}});
  }
  for (const LiveQueue::Gauges::Backend& b : backends) {
    m.Gauge("squeeze_nodes_unavailable", "Nodes of the pool that take no new jobs (down, "
            "drained, or their controller does not answer)", b.nodes_unavailable,
            {{"pool", b.pool}});
  }
}

}  // namespace

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
  AddRunCounters(m, g);
  AddBackendGauges(m, g.backends);
  return m.str();
}

}  // namespace squeeze
