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
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

std::vector<ExecEvent> ExecutorPolls::Take() {
  std::lock_guard lock(mu_);
  return std::exchange(events_, {});
}

void ExecutorPolls::Loop(Executor* executor) {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    std::vector<ExecEvent> found = executor->Poll(clock_());
    lock.lock();
    if (!found.empty()) {
      events_.insert(events_.end(), std::make_move_iterator(found.begin()),
                     std::make_move_iterator(found.end()));
      lock.unlock();
      wake_();
      lock.lock();
    }
    stop_cv_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

}  // namespace squeeze
