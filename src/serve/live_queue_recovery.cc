// LiveQueue::Recover: what a start of the daemon finds. The store says which jobs are
// unfinished and which attempt each ran last; the executor's run files say which runs exist
// and whether they still run. A run that exists is taken back (or its end recorded), never
// started again; a start the store recorded but whose run never began is queued again.
#include <map>

#include "serve/live_queue.h"
#include "store/request_json.h"

namespace squeeze {

Result<RecoverySummary> LiveQueue::Recover(Time now) {
  std::lock_guard lock(mu_);
  RecoverySummary summary;
  auto unfinished = store_.LoadUnfinished();
  if (!unfinished.ok()) return unfinished.status().WithContext("reading the job store");
  auto runs = executor_.Reattach();
  if (!runs.ok()) return runs.status().WithContext("taking back the running jobs");
  std::map<JobId, RunInfo> run_of;
  for (RunInfo& r : *runs) run_of[r.id] = std::move(r);

  std::vector<JobId> to_queue;
  struct Ended {
    JobId id;
    ExitStatus exit;
  };
  std::vector<Ended> ended;
  // Running jobs first, so that they hold their GPUs before any waiting job is considered.
  for (StoredJob& stored : *unfinished) {
    LiveJob& job = jobs_[stored.id];
    job.request = std::move(stored.request);
    job.owner = stored.owner;
    job.attempts = stored.attempts;
    job.failures = stored.failures;
    job.has_checkpoint = stored.last_checkpoint.has_value();
    job.queued_since = stored.ended_at.value_or(stored.submitted_at);
    job.cuda_gpus = stored.gpus;
    if (stored.state == JobState::kPending) {
      if (stored.not_before && *stored.not_before > now) {
        job.retry_at = stored.not_before;
        retries_.insert({*stored.not_before, stored.id});
      } else {
        to_queue.push_back(stored.id);
      }
      ++summary.pending;
      continue;
    }
    auto run = run_of.find(stored.id);
    const bool was_stopping = stored.state == JobState::kCheckpointing;
    if (run == run_of.end() || run->second.attempt < stored.attempts) {
      // Recorded as started, but the daemon stopped before the run began.
      (void)store_.SetState(stored.id, JobState::kPending,
                            "queued again: the daemon stopped before attempt " +
                                std::to_string(stored.attempts) + " began",
                            now);
      to_queue.push_back(stored.id);
      ++summary.requeued;
      continue;
    }
    JobSpec spec = job.request.spec;
    spec.id = stored.id;
    auto placement = cluster_.PlacementOf(stored.gpus, spec.gpu_milli);
    Status adopted = placement ? scheduler_->Adopt(spec, *placement,
                                                   stored.started_at.value_or(now), now)
                               : Status::Error("its GPUs " + GpusToJson(stored.gpus) +
                                               " are not among this machine's");
    if (!adopted.ok()) {
      Log("job " + std::to_string(stored.id) + " cannot be taken back: " + adopted.message() +
          "; stopping it");
      (void)executor_.Stop(stored.id, now, options_.stop_grace);
      job.stopping = Stopping::kTerminating;
      job.requeue_on_exit = true;
      continue;
    }
    job.requeue_on_exit = was_stopping;
    if (stored.last_checkpoint) (void)scheduler_->Checkpointed(stored.id, *stored.last_checkpoint);
    if (run->second.exit) {
      ended.push_back({stored.id, *run->second.exit});
      ++summary.ended_offline;
    } else {
      ++summary.adopted;
    }
  }
  for (const Ended& e : ended) OnExit(e.id, e.exit, now);
  for (JobId id : to_queue) {
    auto it = jobs_.find(id);
    if (it != jobs_.end()) Queue(id, it->second, now);
  }
  return summary;
}

}  // namespace squeeze
