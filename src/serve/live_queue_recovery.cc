// LiveQueue::Recover: what a start of the daemon finds. The store says which jobs are
// unfinished and which attempt each ran last; the executor's run files say which runs exist
// and whether they still run. A run that exists is taken back (or its end recorded), never
// started again; a start the store recorded but whose run never began is queued again.
// The store's rows are read and decoded on a second thread while this one queues them: with
// 100,000 waiting jobs the two halves take about as long as each other.
#include <condition_variable>
#include <deque>
#include <map>
#include <thread>

#include "serve/live_queue.h"
#include "store/request_json.h"

namespace squeeze {
namespace {

// Batches of rows from the reading thread to the queueing one; at most a few in flight.
class RowChannel {
 public:
  void Put(std::vector<StoredJob>&& batch) {
    std::unique_lock l(mu_);
    room_.wait(l, [&] { return batches_.size() < kMaxBatches; });
    batches_.push_back(std::move(batch));
    ready_.notify_one();
  }
  void Close(Status status) {
    std::lock_guard l(mu_);
    closed_ = true;
    status_ = std::move(status);
    ready_.notify_one();
  }
  // The next batch; nullopt once the reader is done (then status() says how it ended).
  std::optional<std::vector<StoredJob>> Take() {
    std::unique_lock l(mu_);
    ready_.wait(l, [&] { return !batches_.empty() || closed_; });
    if (batches_.empty()) return std::nullopt;
    std::vector<StoredJob> batch = std::move(batches_.front());
    batches_.pop_front();
    room_.notify_one();
    return batch;
  }
  Status status() {
    std::lock_guard l(mu_);
    return status_;
  }

 private:
  static constexpr size_t kMaxBatches = 8;
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<std::vector<StoredJob>> batches_;
  bool closed_ = false;
  Status status_;
};

constexpr size_t kBatchRows = 1024;
// The latest jobs that ended done whose run times a restart learns again: more than the
// learned order keeps of any class of jobs (1,000 each), bounded so that a store of millions
// of ended jobs does not slow the start.
constexpr int kEndedToLearn = 10000;

}  // namespace

Result<RecoverySummary> LiveQueue::Recover(Time now) {
  // What the learned order knew before the restart: the run times of the jobs that ended,
  // read before the lock is taken (no store read under it).
  bool learns = false;
  {
    MutexLock lock(mu_);
    learns = scheduler_->policy().job_order == "gittins";
  }
  std::vector<StoredJob> done;
  if (learns) {
    ListFilter latest_done;
    latest_done.states = {JobState::kDone};
    latest_done.latest_end_first = true;
    latest_done.limit = kEndedToLearn;
    auto read = store_.List(latest_done);
    if (!read.ok()) {
      MutexLock lock(mu_);
      recovering_ = false;  // the daemon stops; the calls held end with it
      recovered_cv_.notify_all();
      return read.status().WithContext("reading the jobs that ended");
    }
    done = std::move(*read);
  }
  Result<RecoverySummary> summary = RecoverySummary();
  uint64_t ticket = 0;
  {
    MutexLock lock(mu_);
    waiting_from_store_ = false;  // its publication at the end counts the queue's own jobs
    PublishAtExit publish{*this};
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      JobSpec spec = it->request.spec;
      spec.id = it->id;
      scheduler_->LearnEnded(spec, it->ran, it->ended_at.value_or(now));
    }
    const size_t learned = done.size();
    summary = TakeBackAll(now);
    if (summary.ok()) summary->learned = static_cast<int>(learned);
    ticket = AppendEffects();
    // The calls held until now go on once the lock is let go, after the publication.
    recovering_ = false;
    recovered_cv_.notify_all();
  }
  // What the recovery decided (runs ended while the daemon was down, starts that never
  // began queued again) is stored in one commit.
  if (Status s = journal_->CarryOut(ticket); !s.ok() && summary.ok()) {
    return s.WithContext("storing what the restart found");
  }
  return summary;
}

void LiveQueue::HoldCallsUntilRecovered() {
  MutexLock lock(mu_);
  recovering_ = true;
}

void LiveQueue::AwaitRecovery(MutexLock& lock) const {
  // Recover clears the flag under the lock before it notifies: it is seen here or wakes the wait.
  while (recovering_.load()) recovered_cv_.wait(lock);
}

Result<RecoverySummary> LiveQueue::TakeBackAll(Time now) {
  RecoverySummary summary;
  std::map<JobId, std::pair<RunInfo, Executor*>> run_of;
  for (Executor* executor : AllExecutors()) {
    auto runs = executor->Reattach();
    if (!runs.ok()) return runs.status().WithContext("taking back the running jobs");
    for (RunInfo& r : *runs) {
      auto& slot = run_of[r.id];
      if (slot.second == nullptr || r.attempt > slot.first.attempt) slot = {std::move(r), executor};
    }
  }

  RowChannel rows;
  std::thread reader([this, &rows] {
    std::vector<StoredJob> batch;
    Status s = store_.ForEachUnfinished([&](StoredJob&& job) {
      batch.push_back(std::move(job));
      if (batch.size() == kBatchRows) rows.Put(std::exchange(batch, {}));
      return Status::Ok();
    });
    if (!batch.empty()) rows.Put(std::move(batch));
    rows.Close(s);
  });
  std::vector<std::pair<JobId, ExitStatus>> ended;
  // Nothing is placed before the first cycle, so waiting jobs are queued as they come and the
  // running ones adopted into capacity that no queued job holds yet.
  while (auto batch = rows.Take()) {
    for (StoredJob& stored : *batch) TakeBack(stored, run_of, now, summary, ended);
  }
  reader.join();
  if (Status s = rows.status(); !s.ok()) return s.WithContext("reading the job store");
  // A run the store does not hold as this job's current attempt (a job submitted to Slurm
  // behind squeeze's back, an older attempt's copy) is not followed; the backend reports it.
  for (const auto& [id, entry] : run_of) {
    auto it = jobs_.find(id);
    const bool taken = it != jobs_.end() && it->second.exec == entry.second &&
                       it->second.attempts == entry.first.attempt;
    if (taken || entry.first.exit) continue;
    entry.second->Release(id);
    Log("a run of job " + std::to_string(id) + " attempt " + std::to_string(entry.first.attempt) +
        " that the store does not hold as running is left alone" +
        (entry.first.backend_id.empty() ? "" : " (Slurm job " + entry.first.backend_id + ")"));
  }
  for (const auto& [id, exit] : ended) OnExit(id, exit, now);
  RestoreReclaims(now);
  return summary;
}

void LiveQueue::TakeBack(StoredJob& stored,
                         const std::map<JobId, std::pair<RunInfo, Executor*>>& run_of, Time now,
                         RecoverySummary& summary,
                         std::vector<std::pair<JobId, ExitStatus>>& ended) {
  LiveJob& job = jobs_[stored.id];
  job.request = std::move(stored.request);
  job.owner = stored.owner;
  job.attempts = stored.attempts;
  job.failures = stored.failures;
  job.has_checkpoint = stored.last_checkpoint.has_value();
  job.queued_since = stored.ended_at.value_or(stored.submitted_at);
  job.cuda_gpus = stored.gpus;
  if (stored.state == JobState::kPending) {
    ++summary.pending;
    job.held = stored.held;  // waits for its release
    Arrive(stored.id, job, stored.not_before, stored.started_at.has_value(), now);
    return;
  }
  TrackStarted(stored.id, job);
  auto found = run_of.find(stored.id);
  // Only the run of the attempt the store recorded: a later one cannot be this store's.
  if (found == run_of.end() || found->second.first.attempt != stored.attempts) {
    // Recorded as started, but the daemon stopped before the run began.
    Record([id = stored.id, now,
            why = "queued again: the daemon stopped before attempt " +
                  std::to_string(stored.attempts) + " began"](JobStore& s) {
      return s.SetState(id, JobState::kPending, why, now);
    });
    ++summary.requeued;
    Queue(stored.id, job, now);
    return;
  }
  const RunInfo& run = found->second.first;
  job.exec = found->second.second;
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
    (void)job.exec->Stop(stored.id, now, options_.stop_grace);
    job.stopping = Stopping::kTerminating;
    job.requeue_on_exit = true;
    return;
  }
  job.requeue_on_exit = stored.state == JobState::kCheckpointing;
  if (stored.last_checkpoint) (void)scheduler_->Checkpointed(stored.id, *stored.last_checkpoint);
  if (run.exit) {
    ended.emplace_back(stored.id, *run.exit);
    ++summary.ended_offline;
  } else {
    ++summary.adopted;
  }
}

}  // namespace squeeze
