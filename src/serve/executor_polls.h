// The daemon's executors polled off the scheduling thread: one thread per executor asks it
// (Executor::Poll) every `interval`, keeps what it reports and wakes the loop, which takes it
// (Take) at its next step. So a backend that answers slowly (scontrol) or a file a job's
// account controls (a Slurm run's checkpoint marker on a hung file system) holds up that
// executor's thread at most, never a cycle, an API call or another backend. Thread-safe; its
// lock rules are checked by Clang (core/thread_annotations.h).
#ifndef SQUEEZE_SERVE_EXECUTOR_POLLS_H_
#define SQUEEZE_SERVE_EXECUTOR_POLLS_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <thread>
#include <vector>

#include "core/thread_annotations.h"
#include "exec/executor.h"

namespace squeeze {

class ExecutorPolls {
 public:
  // Starts the threads. `clock`: the time Poll is given; `wake`: called (no lock held) when a
  // poll found something.
  ExecutorPolls(std::vector<Executor*> executors, std::function<Time()> clock,
                std::function<void()> wake,
                std::chrono::milliseconds interval = std::chrono::milliseconds(200));
  ~ExecutorPolls();  // Stop()
  ExecutorPolls(const ExecutorPolls&) = delete;
  ExecutorPolls& operator=(const ExecutorPolls&) = delete;

  // What the polls reported since the last Take, in the order each executor reported it.
  std::vector<ExecEvent> Take() EXCLUDES(mu_);
  // Ends the threads after the polls in progress.
  void Stop() EXCLUDES(mu_);

 private:
  // One executor's thread: polls it without the lock, keeps what it found under it.
  void Loop(Executor* executor) EXCLUDES(mu_);

  const std::function<Time()> clock_;
  const std::function<void()> wake_;
  const std::chrono::milliseconds interval_;
  Mutex mu_;
  std::condition_variable_any stop_cv_;  // waited on with mu_ held (a MutexLock)
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<ExecEvent> events_ GUARDED_BY(mu_);
  std::vector<std::thread> threads_;  // made by the constructor, joined by Stop
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_EXECUTOR_POLLS_H_
