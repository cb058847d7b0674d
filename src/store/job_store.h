// JobStore: the daemon's durable record of jobs and their history, one SQLite file
// DATA_DIR/squeeze.db in WAL mode. Submit is durable when it returns (group commit: concurrent
// submitters share one transaction). Thread-safe: any thread may call any method; writes are
// serialized on one connection, reads use a second one and do not wait for a commit.
#ifndef SQUEEZE_STORE_JOB_STORE_H_
#define SQUEEZE_STORE_JOB_STORE_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/job_request.h"
#include "core/status.h"
#include "core/types.h"
#include "store/stored_job.h"
#include "store/sqlite_db.h"

namespace squeeze {

struct ListFilter {
  std::vector<JobState> states;  // empty = every state
  std::optional<std::string> owner;
  std::optional<std::string> team;
  JobId after_id = 0;  // paging: only ids above this, in id order
  int limit = 100;     // <= 0 = no limit
  // Ended jobs only, the latest end first (ties: the higher id first); after_id is refused
  // with it (GET /v1/jobs?order=ended has one page).
  bool latest_end_first = false;
  // When set, a row for which it answers false (asked with the row's other fields filled in)
  // comes without its request (spec, command): the caller keeps what it shows of that job,
  // and decoding the request is most of a row's cost.
  std::function<bool(const StoredJob&)> wants_request;
};

struct WaitingByOwner {
  std::string owner;
  std::string team;
  int64_t jobs = 0;
};

// How a run ended and what becomes of the job, recorded in one transaction.
struct RunEnd {
  int exit_code = 0;  // 128 + signal for a run a signal ended
  JobState next = JobState::kDone;  // done, failed, or pending (to run again)
  std::string reason;
  bool preempted = false;  // counts a preemption (a stop the scheduler asked for)
  int failures = 0;        // the job's failed runs so far, this one included
  std::optional<Time> not_before;  // pending again, but not before then (retry back-off)
  // The reason as the job's owner and the admins see it (StoredJob::reason_detail); empty:
  // `reason` says all, and every user sees it.
  std::string detail;
};

class JobStore {
 public:
  struct Options {
    // true: synchronous=FULL, a commit is fsynced before it is acknowledged (survives power
    // loss). false: synchronous=NORMAL, the WAL is written but fsynced only at checkpoints
    // (survives a crash or kill -9 of the daemon, may lose the last commits on power loss).
    bool fsync_each_commit = true;
    // true (the daemon): a store made by a squeeze from before purges (no incremental
    // auto_vacuum) is converted at open, once, by a VACUUM, so that the space purged jobs
    // free goes back to the file system. A failed conversion is not an error (open_note).
    bool reclaim_space = false;
  };

  static Result<std::unique_ptr<JobStore>> Open(const std::string& data_dir);
  static Result<std::unique_ptr<JobStore>> Open(const std::string& data_dir,
                                                const Options& options);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Stores a new pending job owned by `owner`; the id is assigned in commit order.
  Result<JobId> Submit(const JobRequest& request, const std::string& owner, Time now);
  // Stores the `count` tasks of a job array at once, in one transaction, with consecutive ids
  // from the first (the array's id, as Slurm numbers them): `task(first, i)` gives the i-th
  // task's request. Returns the first id; an error stores none.
  Result<JobId> SubmitArray(size_t count, const std::function<JobRequest(JobId, size_t)>& task,
                            const std::string& owner, Time now);

  // While a WriteBatch is open, the writes its thread makes (the updates and events below)
  // go into one transaction, made durable by Commit: a scheduling step's run ends, checkpoints
  // and events with one commit (one fsync) instead of one each. Other threads' writes wait
  // for it. One is open at a time; none is nested. RecordStarts in a batch is in the batch too.
  class WriteBatch {
   public:
    WriteBatch(WriteBatch&& o) noexcept;
    WriteBatch& operator=(WriteBatch&&) = delete;
    ~WriteBatch();  // commits what is not committed yet (its error is lost: call Commit)
    // Makes the batch's writes durable and closes it (later writes go the usual way). An
    // error: none of them is stored.
    Status Commit();

   private:
    friend class JobStore;
    explicit WriteBatch(JobStore* store) : store_(store) {}
    JobStore* store_;  // null: closed (or it could not begin: the writes go the usual way)
  };
  WriteBatch BeginWrites();

  // Each update also appends an event. An unknown id is an error. A `detail` is the reason as
  // the job's owner and the admins see it (StoredJob::reason_detail, JobEvent::detail); every
  // other user sees `reason`.
  Status SetState(JobId id, JobState state, const std::string& reason, Time now,
                  const std::string& detail = "");
  // An ended job waits again (squeeze requeue): pending, its wait counted from `now`, its
  // failures forgiven; its attempts and last checkpoint kept (the next run resumes from it).
  Status RequeueEnded(JobId id, const std::string& reason, Time now);
  // A run begins: state running, attempts = attempt, the run's GPUs; clears the last exit.
  // `pool`, when given, is named in the event ("... in pool P"): the history's cost per pool.
  Status RecordStart(JobId id, int attempt, const std::vector<int>& gpus, Time now,
                     const std::string& pool = "");
  // Several starts in one transaction (one fsync): all are recorded, or none.
  struct Start {
    JobId id = 0;
    int attempt = 0;
    std::vector<int> gpus;
    std::string pool;
  };
  Status RecordStarts(const std::vector<Start>& starts, Time now);
  // The current run holds other GPUs than recorded (its backend ran it elsewhere): `gpus`, and
  // an event "moved" saying so (`text`).
  Status RecordRunGpus(JobId id, const std::vector<int>& gpus, Time now, const std::string& text);
  // A run ended with `exit_code` (128 + signal for a signal). The state is left to SetState.
  Status RecordExit(JobId id, int exit_code, Time now);
  // A complete checkpoint; `label` is the marker's content (the step, say), text the job
  // wrote: it is the event's detail, its owner's and the admins' to see.
  Status RecordCheckpoint(JobId id, Time now, const std::string& label = "");
  // A run ended: exit code, the job's next state and reason, preemption and failure counts.
  // A waiting job held (it is not scheduled until released) or released; `text` is the event
  // and, while held, the reason.
  Status SetHeld(JobId id, bool held, const std::string& text, Time now);
  // A waiting job's request changed (squeeze update): urgency, GPUs, time limit.
  Status UpdateRequest(JobId id, const JobRequest& request, const std::string& text, Time now);
  Status RecordRunEnd(JobId id, const RunEnd& end, Time now);
  Status RecordPreemption(JobId id, Time now);
  Status AppendEvent(JobId id, Time at, const std::string& kind, const std::string& text,
                     const std::string& detail = "");
  // The nodes' history (table node_events, added to any store at open).
  Status AppendNodeEvent(Time at, const std::string& node, const std::string& kind,
                         const std::string& text);
  // The last `limit` node events, oldest first.
  Result<std::vector<NodeEvent>> NodeEvents(int64_t limit);

  // The texts a job's rows hold (its reason, its events') are read as UTF-8, U+FFFD in place
  // of bytes that are not (a row written by hand or by an older squeeze).
  Result<StoredJob> Get(JobId id);
  // How many jobs of ids first..last are in each state (an array's tasks, by their ids).
  Result<std::map<JobState, int>> CountStates(JobId first, JobId last);
  Result<std::vector<StoredJob>> List(const ListFilter& filter);
  // Every job not yet done, failed or cancelled, in id order: what a restart resumes.
  Result<std::vector<StoredJob>> LoadUnfinished();
  // The same, one job at a time as rows are read (no vector of them all); stops at the first
  // error, the callback's included.
  Status ForEachUnfinished(const std::function<Status(StoredJob&&)>& each);
  Result<std::map<JobState, int64_t>> CountByState();
  // The waiting (pending, held included) jobs of each owner in each team.
  Result<std::vector<WaitingByOwner>> CountWaiting();
  Result<std::vector<JobEvent>> Events(JobId id);
  // The submit, start, exit and end events (in store order, before `to`) of every job with an
  // event in [from, to) or still running: what the runs' history over that range needs.
  Result<std::vector<JobEvent>> RunEvents(Time from, Time to);

  // job_store_purge.cc: the retention of finished jobs' details (config/job_limits.h).
  // Up to `limit` finished jobs that ended before `before` and still have their details lose
  // them, in one transaction: the request's command, environment, workdir, output paths,
  // dependency and checkpoint store (the scheduling profile stays: name, team, GPUs, urgency,
  // ...), and every event but the accounting ones (submit, start, exit, end: what history,
  // cost and advise read); each gets a "purge" event and details_purged_at. The rows stay.
  // Oldest ends first. Returns how many were purged.
  Result<int> PurgeDetails(Time before, int limit, Time now, const std::string& why);
  // Gives up to `pages` free pages back to the file system (incremental auto_vacuum; a store
  // not in that mode keeps them for reuse). Returns the pages still free.
  Result<int64_t> ReclaimFreePages(int64_t pages);
  struct Space {
    int64_t page_size = 0;
    int64_t pages = 0;       // the database file's size in pages (the WAL not counted)
    int64_t free_pages = 0;  // of them, unused
    bool incremental_vacuum = false;
  };
  Result<Space> SpaceUsed();
  // What the open did that the operator should hear of: the one-time conversion to incremental
  // auto_vacuum and how long it took, or why it failed; empty when nothing.
  const std::string& open_note() const { return open_note_; }

  const std::string& path() const { return path_; }

 private:
  struct PendingSubmit;

  JobStore(std::string path, std::unique_ptr<SqliteDb> writer, std::unique_ptr<SqliteDb> reader);
  Status CommitBatch(std::vector<PendingSubmit*>& batch);
  Status InsertBatch(std::vector<PendingSubmit*>& batch);
  // Runs `sql` (?1 = id, the rest bound by `bind`) and appends an event, in one transaction.
  Status Update(JobId id, const std::string& sql, const std::function<void(SqliteStmt&)>& bind,
                Time now, const std::string& kind, const std::string& text,
                const std::string& detail = "");
  // The same inside a transaction the caller holds (under write_mu_).
  Status UpdateRow(JobId id, const std::string& sql,
                   const std::function<void(SqliteStmt&)>& bind, Time now,
                   const std::string& kind, const std::string& text,
                   const std::string& detail = "");
  Status UpdateStart(const Start& start, Time now);
  Status InsertEvent(JobId id, Time at, const std::string& kind, const std::string& text,
                     const std::string& detail = "");
  // Rows of jobs matching `where` (parameters bound by `bind`), in id order; with
  // `wants_request`, rows it declines come without their request.
  Result<std::vector<StoredJob>> Query(
      const std::string& where, const std::function<void(SqliteStmt&)>& bind,
      const std::function<bool(const StoredJob&)>& wants_request = nullptr);
  Status QueryEach(const std::string& where, const std::function<void(SqliteStmt&)>& bind,
                   const std::function<Status(StoredJob&&)>& each,
                   const std::function<bool(const StoredJob&)>& wants_request = nullptr);

  // Whether the calling thread has a WriteBatch open (it holds write_mu_ then).
  bool InBatch() const;
  Status EndBatch();

  // The one-time VACUUM of Options::reclaim_space; what it did, for open_note.
  static std::string ConvertToIncrementalVacuum(SqliteDb& db);

  const std::string path_;
  std::string open_note_;
  std::mutex write_mu_;  // guards writer_
  std::atomic<std::thread::id> batch_thread_{};  // the thread of the open WriteBatch
  std::unique_ptr<SqliteDb> writer_;
  std::mutex read_mu_;  // guards reader_
  std::unique_ptr<SqliteDb> reader_;

  std::mutex queue_mu_;  // guards queue_, leader_active_
  std::condition_variable queue_cv_;
  std::deque<PendingSubmit*> queue_;
  bool leader_active_ = false;
};

}  // namespace squeeze

#endif  // SQUEEZE_STORE_JOB_STORE_H_
