#include "serve/worker_pool.h"

namespace squeeze {

void FairQueue::Push(const std::string& peer, Task task) {
  Peer& p = peers_[peer];
  if (p.tasks.empty()) ring_.push_back(peer);
  p.tasks.push_back(std::move(task));
  ++waiting_;
}

std::optional<std::pair<std::string, FairQueue::Task>> FairQueue::Pop() {
  for (size_t tries = ring_.size(); tries > 0; --tries) {
    std::string peer = std::move(ring_.front());
    ring_.pop_front();
    Peer& p = peers_[peer];
    if (p.busy >= max_busy_per_peer_) {
      ring_.push_back(std::move(peer));  // its turn comes again once a task of it ends
      continue;
    }
    Task task = std::move(p.tasks.front());
    p.tasks.pop_front();
    --waiting_;
    ++p.busy;
    if (!p.tasks.empty()) ring_.push_back(peer);
    return std::make_pair(std::move(peer), std::move(task));
  }
  return std::nullopt;
}

void FairQueue::Done(const std::string& peer) {
  const auto it = peers_.find(peer);
  if (it == peers_.end()) return;
  if (it->second.busy > 0) --it->second.busy;
  if (it->second.busy == 0 && it->second.tasks.empty()) peers_.erase(it);
}

std::vector<FairQueue::Task> FairQueue::TakeAll() {
  std::vector<Task> out;
  for (auto& [peer, p] : peers_) {
    for (Task& t : p.tasks) out.push_back(std::move(t));
    p.tasks.clear();
  }
  ring_.clear();
  waiting_ = 0;
  return out;
}

int FairQueue::busy(const std::string& peer) const {
  const auto it = peers_.find(peer);
  return it == peers_.end() ? 0 : it->second.busy;
}

WorkerPool::WorkerPool(int workers, int max_busy_per_peer) : queue_(max_busy_per_peer) {
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Submit(const std::string& peer, FairQueue::Task task) {
  {
    std::lock_guard l(mu_);
    if (stopping_) return;
    queue_.Push(peer, std::move(task));
  }
  cv_.notify_one();
}

void WorkerPool::Stop() {
  {
    std::lock_guard l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  // The waiting tasks are dropped outside the lock: what they hold may take a while to free.
  std::vector<FairQueue::Task> dropped;
  {
    std::lock_guard l(mu_);
    dropped = queue_.TakeAll();
  }
}

void WorkerPool::Work() {
  std::unique_lock l(mu_);
  for (;;) {
    std::optional<std::pair<std::string, FairQueue::Task>> next;
    cv_.wait(l, [&] { return stopping_ || (next = queue_.Pop()).has_value(); });
    if (!next) return;
    l.unlock();
    next->second();
    next->second = nullptr;  // what the task held is let go before the lock is taken
    l.lock();
    queue_.Done(next->first);
    // A peer that was at its share may have a task waiting that may now run.
    if (queue_.waiting() > 0) cv_.notify_one();
  }
}

}  // namespace squeeze
