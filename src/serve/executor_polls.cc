#include "serve/executor_polls.h"

#include <iterator>

namespace squeeze {

ExecutorPolls::ExecutorPolls(std::vector<Executor*> executors, std::function<Time()> clock,
                             std::function<void()> wake, std::chrono::milliseconds interval)
    : clock_(std::move(clock)), wake_(std::move(wake)), interval_(interval) {
  for (Executor* executor : executors) {
    threads_.emplace_back([this, executor] { Loop(executor); });
  }
}

ExecutorPolls::~ExecutorPolls() { Stop(); }

void ExecutorPolls::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

std::vector<ExecEvent> ExecutorPolls::Take() {
  MutexLock lock(mu_);
  return std::exchange(events_, {});
}

void ExecutorPolls::Loop(Executor* executor) {
  MutexLock lock(mu_);
  while (!stopping_) {
    lock.Unlock();
    std::vector<ExecEvent> found = executor->Poll(clock_());
    lock.Lock();
    if (!found.empty()) {
      events_.insert(events_.end(), std::make_move_iterator(found.begin()),
                     std::make_move_iterator(found.end()));
      lock.Unlock();
      wake_();
      lock.Lock();
    }
    // Stop sets stopping_ under the lock before it notifies: it is seen here or wakes the wait.
    // A wait that ends early only polls sooner.
    if (!stopping_) stop_cv_.wait_for(lock, interval_);
  }
}

}  // namespace squeeze
