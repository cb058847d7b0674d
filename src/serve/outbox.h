// Outbox: what a scheduling cycle decided that a backend must carry out (start a run, ask a
// run for a checkpoint, stop one), done off the scheduling lock by a bounded set of worker
// threads, so that a slow sbatch or fork never holds up the queue's reads or its next cycle.
// One job's pieces of work are done one at a time, in the order they were given (a stop given
// after a start waits for it); different jobs' run in parallel. What each piece ended with is
// kept until the queue's next step takes it (TakeDone). The queue records a start durably
// before it gives it here, so work dropped by a crash (or by Close) is found at the next
// Recover: a run recorded and never started is queued again.
// Thread-safe.
#ifndef SQUEEZE_SERVE_OUTBOX_H_
#define SQUEEZE_SERVE_OUTBOX_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

class Outbox {
 public:
  enum class Kind { kStart, kCheckpoint, kStop };
  struct Done {
    JobId job = 0;
    int attempt = 0;
    Kind kind = Kind::kStart;
    Status status;
  };

  // `workers` threads (at least 1); `on_done` is called (from a worker, no lock held) after
  // each piece with what it ended with, to wake whoever takes the results.
  Outbox(int workers, std::function<void(const Done&)> on_done);
  ~Outbox();  // Close()
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  void Push(JobId job, int attempt, Kind kind, std::function<Status()> work);
  // The pieces finished since the last call, in the order they finished.
  std::vector<Done> TakeDone();
  // Pieces given and not finished yet (waiting or in progress).
  size_t Unfinished() const;
  // Waits until every piece given has finished (tests; a daemon that drains before it stops).
  void WaitIdle();
  // The workers stop once the pieces in progress have finished; pieces still waiting are
  // dropped (a start among them is queued again at the next Recover). Push after Close drops.
  // Returns how many were dropped.
  size_t Close();

 private:
  struct Piece {
    JobId job;
    int attempt;
    Kind kind;
    std::function<Status()> work;
  };
  void Work();

  mutable std::mutex mu_;
  std::condition_variable cv_;       // a piece waits, or the outbox closes
  std::condition_variable idle_cv_;  // a piece finished
  std::deque<Piece> waiting_;
  std::set<JobId> busy_;             // jobs with a piece in progress
  std::vector<Done> done_;
  bool closed_ = false;
  std::function<void(const Done&)> on_done_;
  std::vector<std::thread> workers_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_OUTBOX_H_
