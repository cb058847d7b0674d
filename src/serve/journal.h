// The journal: what the live queue decided under its scheduling lock, carried out in the order
// it was decided, after the lock is released (LevelDB's writer queue; Slurm's agents).
//
// Under the lock a step (or an API change) only decides: each store write it means to make and
// each piece of work for a backend (start, checkpoint request, stop) goes into an Effects list,
// which joins the journal's queue (Append: a move, no I/O). Once the lock is let go, the same
// thread calls CarryOut: the first caller to find no one at work becomes the leader and
// carries out everything queued so far, its own and others': every record in one store
// transaction (one fsync for all of them: a group commit), then each piece of work to its
// backend's outbox, in order. The others wait on a condition until the leader has carried out
// theirs. So a start is durable before it is carried out, the scheduling lock never waits for a
// disk, and the order the queue decided in is the order the store and the backends see.
//
// A start whose record could not be stored is not carried out: it is reported
// (TakeUnrecorded) and the next step queues the job again. Thread-safe.
#ifndef SQUEEZE_SERVE_JOURNAL_H_
#define SQUEEZE_SERVE_JOURNAL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "core/thread_annotations.h"
#include "core/types.h"
#include "serve/outbox.h"
#include "store/job_store.h"

namespace squeeze {

// What one locked section decided, in order. Built under the scheduling lock.
class Effects {
 public:
  using Write = std::function<Status(JobStore&)>;
  using Work = std::function<Status()>;

  // A store write, made in the journal's next group commit.
  void Record(Write write);
  // Work for `outbox`, given to it after every record before it is durable.
  void Dispatch(Outbox& outbox, JobId job, int attempt, Outbox::Kind kind, Work work);
  // A start: its record, then its work, which is dropped (and reported) when the record fails.
  void Start(Write record, Outbox& outbox, JobId job, int attempt, Work work);

  bool empty() const { return list_.empty(); }
  size_t dispatches() const;

 private:
  friend class Journal;
  struct Effect {
    Write record;               // may be empty
    Outbox* outbox = nullptr;   // null: nothing to carry out
    JobId job = 0;
    int attempt = 0;
    Outbox::Kind kind = Outbox::Kind::kStart;
    Work work;
    bool start = false;  // dropped when its record fails
  };
  std::vector<Effect> list_;
};

class Journal {
 public:
  // A start that was not carried out because its record could not be stored.
  struct Unrecorded {
    JobId job = 0;
    int attempt = 0;
    Status status;
  };
  struct Stats {
    uint64_t appended = 0;    // Effects lists appended (tickets)
    uint64_t commits = 0;     // store transactions made (group commits)
    uint64_t records = 0;     // store writes made
    uint64_t dispatches = 0;  // pieces of work given to outboxes
  };

  // `log` hears every record that failed; `wake` is called (no lock held) when a start was
  // not carried out, so that the next step comes soon.
  Journal(JobStore& store, std::function<void(const std::string&)> log,
          std::function<void()> wake);
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal();  // StopThread()

  // From now on a thread of the journal's own carries out what Kick announces (the daemon's
  // choice: its scheduling thread then never waits for the disk); CarryOut still works, and
  // waits for that thread or leads in its place.
  void StartThread() EXCLUDES(mu_);
  // Without a thread: nothing. With one: it carries out everything appended so far, soon.
  void Kick() EXCLUDES(mu_);
  // The thread carries out what is left and ends (before the outboxes close).
  void StopThread() EXCLUDES(mu_);
  bool threaded() const EXCLUDES(mu_);

  // Under the caller's lock: the effects join the queue after all appended before. Returns the
  // ticket CarryOut waits for; 0 for no effects (nothing to wait for).
  uint64_t Append(Effects effects) EXCLUDES(mu_);
  // With no lock held: carries out, or waits for another thread to carry out, everything up
  // to `ticket`. Returns the first error of a record of that ticket (its effects are carried
  // out all the same, but for the starts whose record failed).
  Status CarryOut(uint64_t ticket) EXCLUDES(mu_);
  // Everything appended so far (tests; a daemon that stops).
  Status CarryOutAll() EXCLUDES(mu_);
  std::vector<Unrecorded> TakeUnrecorded() EXCLUDES(mu_);
  // Every ticket up to this one has been carried out.
  uint64_t done_through() const EXCLUDES(mu_);
  Stats stats() const EXCLUDES(mu_);

 private:
  struct Batch {
    uint64_t ticket = 0;
    std::vector<Effects::Effect> effects;
  };
  // What a leader did.
  struct Outcome {
    std::map<uint64_t, Status> failed;  // tickets whose records failed, with their first error
    std::vector<Unrecorded> unrecorded;
    Stats counted;
  };
  // The leader's work, no lock held: the group's records, then its dispatches.
  Outcome Run(std::deque<Batch>& group) EXCLUDES(mu_);
  // Every record of the group in one transaction (each on its own when that commit fails);
  // the status of each effect, in order.
  std::vector<Status> Store(std::deque<Batch>& group, Stats& counted);

  JobStore& store_;
  std::function<void(const std::string&)> log_;
  std::function<void()> wake_;

  mutable Mutex mu_;
  std::condition_variable_any done_cv_;  // a leader finished
  std::condition_variable_any kick_cv_;  // Kick or StopThread
  std::thread thread_;                   // StartThread's, if any
  bool threaded_ GUARDED_BY(mu_) = false;
  bool kicked_ GUARDED_BY(mu_) = false;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::deque<Batch> queue_ GUARDED_BY(mu_);
  uint64_t next_ticket_ GUARDED_BY(mu_) = 1;
  uint64_t done_through_ GUARDED_BY(mu_) = 0;  // every ticket up to it carried out
  bool leading_ GUARDED_BY(mu_) = false;       // a leader is at work
  std::map<uint64_t, Status> failed_ GUARDED_BY(mu_);  // tickets whose records failed
  std::vector<Unrecorded> unrecorded_ GUARDED_BY(mu_);
  Stats stats_ GUARDED_BY(mu_);
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_JOURNAL_H_
