#include "store/job_store.h"

#include <filesystem>

#include "store/job_store_schema.h"
#include "store/store_time.h"
#include "store/request_json.h"

namespace squeeze {
namespace {

constexpr size_t kMaxBatch = 1024;

// The GPUs of the open run (run_gpus, a JSON array squeeze wrote; 0 for anything else).
#define SQUEEZE_RUN_WIDTH "CASE WHEN json_valid(run_gpus) THEN json_array_length(run_gpus) ELSE 0 END"
// A run that ends at END adds its time to `ran_by_width` under its width ({"8": ms, "4": ms}:
// what an elastic job ran at each width; nothing when no run is open or it had no GPUs).
#define SQUEEZE_RAN_SO_FAR "CASE WHEN json_valid(ran_by_width) THEN ran_by_width ELSE '{}' END"
#define SQUEEZE_WIDTH_KEY "'$.\"' || (" SQUEEZE_RUN_WIDTH ") || '\"'"
#define SQUEEZE_RAN_BY_WIDTH(END)                                                              \
  "ran_by_width=CASE WHEN " END " IS NOT NULL AND started_at IS NOT NULL AND ended_at IS NULL " \
  "AND (" SQUEEZE_RUN_WIDTH ") > 0 THEN json_set(" SQUEEZE_RAN_SO_FAR ", " SQUEEZE_WIDTH_KEY    \
  ", COALESCE(json_extract(" SQUEEZE_RAN_SO_FAR ", " SQUEEZE_WIDTH_KEY "), 0) + MAX(0, " END   \
  "-started_at)) ELSE ran_by_width END"
// What a run that ends at ?3 adds to `ran`, and times its GPUs to `gpu_ran` (nothing when no
// run is open).
constexpr const char* kRunTime =
    "ran=ran+CASE WHEN started_at IS NOT NULL AND ended_at IS NULL THEN MAX(0, ?3-started_at) "
    "ELSE 0 END, gpu_ran=gpu_ran+CASE WHEN started_at IS NOT NULL AND ended_at IS NULL "
    "THEN MAX(0, ?3-started_at)*" SQUEEZE_RUN_WIDTH " ELSE 0 END, " SQUEEZE_RAN_BY_WIDTH("?3");

// An event's detail for a change whose reason has one: "NAME: DETAIL"; empty without.
std::string DetailText(const std::string& prefix, const std::string& detail) {
  return detail.empty() ? std::string() : prefix + detail;
}

std::string ExitText(int exit_code) {
  if (exit_code > 128) return "killed by signal " + std::to_string(exit_code - 128);
  return "exit code " + std::to_string(exit_code);
}

}  // namespace

struct JobStore::PendingSubmit {
  const JobRequest* request = nullptr;
  const std::string* owner = nullptr;
  Time now = 0;
  JobId id = 0;  // set by the insert; given beforehand for an array's tasks
  std::string request_json;  // RequestToJson(*request), made by the submitter before the commit
  Status status;
  bool done = false;
};

Result<std::unique_ptr<JobStore>> JobStore::Open(const std::string& data_dir) {
  return Open(data_dir, Options());
}

Result<std::unique_ptr<JobStore>> JobStore::Open(const std::string& data_dir,
                                                 const Options& options) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) return Status::Io("cannot create data directory " + data_dir + ": " + ec.message());
  const std::string path = (std::filesystem::path(data_dir) / "squeeze.db").string();
  auto writer = SqliteDb::Open(path);
  if (!writer.ok()) return writer.status();
  // A new store gives the pages purged jobs free back to the file system (ReclaimFreePages);
  // on an existing one this changes nothing until a VACUUM (ConvertToIncrementalVacuum).
  if (Status s = (*writer)->Exec("PRAGMA auto_vacuum=INCREMENTAL"); !s.ok()) return s;
  if (Status s = SetJobStorePragmas(**writer, options.fsync_each_commit); !s.ok()) {
    return s.WithContext("opening job store");
  }
  // The WAL file is cut back to 64 MiB after a checkpoint that emptied it (a purge's or a
  // conversion's rewrite can make it large once).
  if (Status s = (*writer)->Exec("PRAGMA journal_size_limit=67108864"); !s.ok()) return s;
  // A purge's batch goes through a temporary table: in memory, not a file.
  if (Status s = (*writer)->Exec("PRAGMA temp_store=MEMORY"); !s.ok()) return s;
  if (Status s = EnsureJobStoreSchema(**writer); !s.ok()) return s.WithContext("opening job store");
  std::string note;
  if (options.reclaim_space) note = ConvertToIncrementalVacuum(**writer);
  auto reader = SqliteDb::Open(path);
  if (!reader.ok()) return reader.status();
  if (Status s = (*reader)->Exec("PRAGMA query_only=1"); !s.ok()) return s;
  auto store = std::unique_ptr<JobStore>(
      new JobStore(path, std::move(writer).value(), std::move(reader).value()));
  store->open_note_ = std::move(note);
  return store;
}

JobStore::JobStore(std::string path, std::unique_ptr<SqliteDb> writer,
                   std::unique_ptr<SqliteDb> reader)
    : path_(std::move(path)), writer_(std::move(writer)), reader_(std::move(reader)) {}

JobStore::~JobStore() = default;

// Group commit: a submitter queues its request; whoever finds no commit in progress becomes
// the leader, takes the whole queue and commits it as one transaction, then wakes the rest.
Result<JobId> JobStore::Submit(const JobRequest& request, const std::string& owner, Time now) {
  PendingSubmit me;
  me.request = &request;
  me.owner = &owner;
  me.now = now;
  me.request_json = RequestToJson(request);  // on this thread, not in the leader's commit
  std::unique_lock lock(queue_mu_);
  queue_.push_back(&me);
  while (!me.done) {
    if (leader_active_) {
      queue_cv_.wait(lock);
      continue;
    }
    leader_active_ = true;
    const size_t n = std::min(queue_.size(), kMaxBatch);
    std::vector<PendingSubmit*> batch(queue_.begin(), queue_.begin() + n);
    queue_.erase(queue_.begin(), queue_.begin() + n);
    lock.unlock();
    const Status status = CommitBatch(batch);
    lock.lock();
    for (PendingSubmit* p : batch) {
      if (!status.ok()) p->status = status;
      p->done = true;
    }
    leader_active_ = false;
    queue_cv_.notify_all();
  }
  if (!me.status.ok()) return me.status;
  return me.id;
}

Result<JobId> JobStore::SubmitArray(size_t count,
                                    const std::function<JobRequest(JobId, size_t)>& task,
                                    const std::string& owner, Time now) {
  if (count == 0) return Status::Error("an array of no tasks");
  std::lock_guard lock(write_mu_);
  JobId first = 0;
  Status status = InTransaction(*writer_, [&]() -> Status {
    auto next = writer_->Prepare(
        "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'jobs'), 0), "
        "COALESCE((SELECT MAX(id) FROM jobs), 0)) + 1");
    if (!next.ok()) return next.status();
    auto row = next->Step();
    if (!row.ok()) return row.status();
    first = next->Int(0);
    std::vector<JobRequest> requests;
    requests.reserve(count);
    std::vector<PendingSubmit> rows(count);
    std::vector<PendingSubmit*> batch;
    batch.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      requests.push_back(task(first, i));
      rows[i].request = &requests.back();
      rows[i].owner = &owner;
      rows[i].now = now;
      rows[i].id = first + static_cast<JobId>(i);
      rows[i].request_json = RequestToJson(requests.back());
      batch.push_back(&rows[i]);
    }
    return InsertBatch(batch);
  });
  if (!status.ok()) return status;
  return first;
}

Status JobStore::CommitBatch(std::vector<PendingSubmit*>& batch) {
  std::lock_guard lock(write_mu_);
  return InTransaction(*writer_, [&] { return InsertBatch(batch); });
}

Status JobStore::InsertBatch(std::vector<PendingSubmit*>& batch) {
  auto insert = writer_->Prepare(
      "INSERT INTO jobs(owner, team, name, urgency, gpus, state, submitted_at, request, held, "
      "reason, not_before, id) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?7, ?8, ?9, ?10, ?11) "
      "RETURNING id");
  if (!insert.ok()) return insert.status();
  for (PendingSubmit* p : batch) {
    const JobSpec& spec = p->request->spec;
    insert->Bind(1, *p->owner);
    insert->Bind(2, spec.team);
    insert->Bind(3, spec.name);
    insert->Bind(4, static_cast<int64_t>(spec.urgency));
    insert->Bind(5, static_cast<int64_t>(spec.gpus));
    insert->Bind(6, ToStoreMillis(p->now));
    insert->Bind(7, p->request_json);
    insert->Bind(8, static_cast<int64_t>(p->request->hold ? 1 : 0));
    insert->Bind(9, std::string(p->request->hold ? "submitted held" : ""));
    insert->Bind(10, ToStoreMillis(p->request->begin));  // a begin time waits as a retry's back-off does
    insert->Bind(11, p->id != 0 ? std::optional<int64_t>(p->id) : std::nullopt);  // null: next
    auto row = insert->Step();
    if (!row.ok()) return row.status();
    p->id = insert->Int(0);
    if (Status s = insert->Run(); !s.ok()) return s;
    insert->Reset();
    if (Status s = InsertEvent(p->id, p->now, "submit", "submitted by " + *p->owner); !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

Status JobStore::InsertEvent(JobId id, Time at, const std::string& kind,
                             const std::string& text, const std::string& detail) {
  auto stmt = writer_->Prepare(
      "INSERT INTO events(job_id, at, kind, text, detail) VALUES (?1,?2,?3,?4,?5)");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, id);
  stmt->Bind(2, ToStoreMillis(at));
  stmt->Bind(3, kind);
  stmt->Bind(4, text);
  stmt->Bind(5, detail);
  return stmt->Run();
}

JobStore::WriteBatch JobStore::BeginWrites() {
  write_mu_.lock();
  if (!writer_->Run("BEGIN IMMEDIATE").ok()) {
    write_mu_.unlock();
    return WriteBatch(nullptr);
  }
  batch_thread_ = std::this_thread::get_id();
  return WriteBatch(this);
}

bool JobStore::InBatch() const { return batch_thread_.load() == std::this_thread::get_id(); }

Status JobStore::EndBatch() {
  Status s = writer_->Run("COMMIT");
  if (!s.ok()) (void)writer_->Run("ROLLBACK");
  batch_thread_ = std::thread::id();
  write_mu_.unlock();
  return s;
}

JobStore::WriteBatch::WriteBatch(WriteBatch&& o) noexcept : store_(o.store_) { o.store_ = nullptr; }

JobStore::WriteBatch::~WriteBatch() { (void)Commit(); }

Status JobStore::WriteBatch::Commit() {
  if (store_ == nullptr) return Status::Ok();
  JobStore* store = store_;
  store_ = nullptr;
  return store->EndBatch();
}

Status JobStore::Update(JobId id, const std::string& sql,
                        const std::function<void(SqliteStmt&)>& bind, Time now,
                        const std::string& kind, const std::string& text,
                        const std::string& detail) {
  if (InBatch()) return UpdateRow(id, sql, bind, now, kind, text, detail);
  std::lock_guard lock(write_mu_);
  return InTransaction(*writer_,
                       [&] { return UpdateRow(id, sql, bind, now, kind, text, detail); });
}

Status JobStore::UpdateRow(JobId id, const std::string& sql,
                           const std::function<void(SqliteStmt&)>& bind, Time now,
                           const std::string& kind, const std::string& text,
                           const std::string& detail) {
  auto stmt = writer_->Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, id);
  bind(*stmt);
  if (Status s = stmt->Run(); !s.ok()) return s;
  if (writer_->Changes() == 0) {
    return Status::NotFound("job " + std::to_string(id) + " not found in " + path_);
  }
  return InsertEvent(id, now, kind, text, detail);
}

Status JobStore::SetState(JobId id, JobState state, const std::string& reason, Time now,
                          const std::string& detail) {
  const std::string name(JobStateName(state));
  const std::optional<int64_t> ended = IsFinished(state) ? std::optional<int64_t>(ToStoreMillis(now))
                                                         : std::nullopt;
  return Update(
      id,
      "UPDATE jobs SET state=?2, reason=?3, reason_detail=?5, ended_at=COALESCE(ended_at, ?4), "
      "ran=ran+CASE WHEN ?4 IS NOT NULL AND started_at IS NOT NULL AND ended_at IS NULL "
      "THEN MAX(0, ?4-started_at) ELSE 0 END, "
      "gpu_ran=gpu_ran+CASE WHEN ?4 IS NOT NULL AND started_at IS NOT NULL AND ended_at IS NULL "
      "THEN MAX(0, ?4-started_at)*" SQUEEZE_RUN_WIDTH " ELSE 0 END, " SQUEEZE_RAN_BY_WIDTH("?4")
      " WHERE id=?1",
      [&](SqliteStmt& s) {
        s.Bind(2, name);
        s.Bind(3, reason);
        s.Bind(4, ended);
        s.Bind(5, detail);
      },
      now, "state", reason.empty() ? name : name + ": " + reason,
      DetailText(name + ": ", detail));
}

Status JobStore::RequeueEnded(JobId id, const std::string& reason, Time now) {
  return Update(
      id,
      "UPDATE jobs SET state='pending', reason=?2, reason_detail='', ended_at=?3, failures=0, "
      "not_before=NULL WHERE id=?1",
      [&](SqliteStmt& s) {
        s.Bind(2, reason);
        s.Bind(3, std::optional<int64_t>(ToStoreMillis(now)));
      },
      now, "requeue", reason);
}

Status JobStore::RecordStart(JobId id, int attempt, const std::vector<int>& gpus, Time now,
                             const std::string& pool) {
  return RecordStarts({Start{id, attempt, gpus, pool}}, now);
}

Status JobStore::RecordStarts(const std::vector<Start>& starts, Time now) {
  auto all = [&]() -> Status {
    for (const Start& start : starts) {
      if (Status s = UpdateStart(start, now); !s.ok()) return s;
    }
    return Status::Ok();
  };
  if (InBatch()) return all();
  std::lock_guard lock(write_mu_);
  return InTransaction(*writer_, all);
}

Status JobStore::UpdateStart(const Start& start, Time now) {
  const std::string gpu_json = GpusToJson(start.gpus);
  return UpdateRow(
      start.id,
      "UPDATE jobs SET state='running', attempts=?2, run_gpus=?3, started_at=?4, "
      "waited=waited+MAX(0, ?4-COALESCE(ended_at, submitted_at)), "
      "ended_at=NULL, exit_code=NULL, reason='', reason_detail='' WHERE id=?1",
      [&](SqliteStmt& s) {
        s.Bind(2, static_cast<int64_t>(start.attempt));
        s.Bind(3, gpu_json);
        s.Bind(4, ToStoreMillis(now));
      },
      now, "start",
      "attempt " + std::to_string(start.attempt) + " on GPUs " + gpu_json +
          (start.pool.empty() ? "" : " in pool " + start.pool));
}

Status JobStore::RecordRunGpus(JobId id, const std::vector<int>& gpus, Time now,
                               const std::string& text) {
  const std::string gpu_json = GpusToJson(gpus);
  return Update(
      id, "UPDATE jobs SET run_gpus=?2 WHERE id=?1", [&](SqliteStmt& s) { s.Bind(2, gpu_json); },
      now, "moved", text);
}

Status JobStore::SetHeld(JobId id, bool held, const std::string& text, Time now) {
  return Update(
      id, "UPDATE jobs SET held=?2, reason=?3, reason_detail='' WHERE id=?1",
      [&](SqliteStmt& s) {
        s.Bind(2, static_cast<int64_t>(held ? 1 : 0));
        s.Bind(3, held ? text : std::string());
      },
      now, held ? "hold" : "release", text);
}

Status JobStore::UpdateRequest(JobId id, const JobRequest& request, const std::string& text,
                               Time now) {
  return Update(
      id, "UPDATE jobs SET request=?2, urgency=?3, gpus=?4 WHERE id=?1",
      [&](SqliteStmt& s) {
        s.Bind(2, RequestToJson(request));
        s.Bind(3, static_cast<int64_t>(request.spec.urgency));
        s.Bind(4, static_cast<int64_t>(request.spec.gpus));
      },
      now, "update", text);
}

Status JobStore::RecordExit(JobId id, int exit_code, Time now) {
  return Update(
      id, "UPDATE jobs SET exit_code=?2, " + std::string(kRunTime) + ", ended_at=?3 WHERE id=?1",
      [&](SqliteStmt& s) {
        s.Bind(2, static_cast<int64_t>(exit_code));
        s.Bind(3, ToStoreMillis(now));
      },
      now, "exit", ExitText(exit_code));
}

Status JobStore::RecordCheckpoint(JobId id, Time now, const std::string& label) {
  return Update(
      id, "UPDATE jobs SET last_checkpoint=?2 WHERE id=?1", [&](SqliteStmt& s) { s.Bind(2, ToStoreMillis(now)); },
      now, "checkpoint", "checkpoint saved", DetailText("checkpoint saved: ", label));
}

Status JobStore::RecordRunEnd(JobId id, const RunEnd& end, Time now) {
  const std::string name(JobStateName(end.next));
  const std::string text = ExitText(end.exit_code) + " -> " + name +
                           (end.reason.empty() ? "" : ": " + end.reason);
  return Update(
      id,
      "UPDATE jobs SET exit_code=?2, " + std::string(kRunTime) +
          ", ended_at=?3, state=?4, reason=?5, reason_detail=?9, "
          "preemptions=preemptions+?6, failures=?7, not_before=?8 WHERE id=?1",
      [&](SqliteStmt& s) {
        s.Bind(2, static_cast<int64_t>(end.exit_code));
        s.Bind(3, ToStoreMillis(now));
        s.Bind(4, name);
        s.Bind(5, end.reason);
        s.Bind(6, static_cast<int64_t>(end.preempted ? 1 : 0));
        s.Bind(7, static_cast<int64_t>(end.failures));
        s.Bind(8, ToStoreMillis(end.not_before));
        s.Bind(9, end.detail);
      },
      now, "end", text, DetailText(ExitText(end.exit_code) + " -> " + name + ": ", end.detail));
}

Status JobStore::RecordPreemption(JobId id, Time now) {
  return Update(
      id, "UPDATE jobs SET preemptions=preemptions+1 WHERE id=?1", [](SqliteStmt&) {}, now,
      "preempt", "preempted");
}

Status JobStore::AppendEvent(JobId id, Time at, const std::string& kind,
                             const std::string& text, const std::string& detail) {
  return Update(
      id, "UPDATE jobs SET id=id WHERE id=?1", [](SqliteStmt&) {}, at, kind, text, detail);
}

Status JobStore::AppendNodeEvent(Time at, const std::string& node, const std::string& kind,
                                 const std::string& text) {
  std::unique_lock<std::mutex> lock(write_mu_, std::defer_lock);
  if (!InBatch()) lock.lock();
  auto stmt =
      writer_->Prepare("INSERT INTO node_events(at, node, kind, text) VALUES (?1,?2,?3,?4)");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, ToStoreMillis(at));
  stmt->Bind(2, node);
  stmt->Bind(3, kind);
  stmt->Bind(4, text);
  return stmt->Run();
}

}  // namespace squeeze
