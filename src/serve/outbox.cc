#include "serve/outbox.h"

#include <algorithm>

namespace squeeze {

Outbox::Outbox(int workers, std::function<void(const Done&)> on_done) : on_done_(std::move(on_done)) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { Work(); });
}

Outbox::~Outbox() { Close(); }

void Outbox::Push(JobId job, int attempt, Kind kind, std::function<Status()> work) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    waiting_.push_back({job, attempt, kind, std::move(work)});
  }
  cv_.notify_all();
}

std::vector<Outbox::Done> Outbox::TakeDone() {
  std::lock_guard lock(mu_);
  std::vector<Done> out;
  out.swap(done_);
  return out;
}

size_t Outbox::Unfinished() const {
  std::lock_guard lock(mu_);
  return waiting_.size() + busy_.size();
}

void Outbox::WaitIdle() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [&] { return (waiting_.empty() || closed_) && busy_.empty(); });
}

size_t Outbox::Close() {
  size_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    dropped = waiting_.size();
    waiting_.clear();
  }
  cv_.notify_all();
  idle_cv_.notify_all();
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
  return dropped;
}

void Outbox::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    // The first waiting piece whose job has nothing in progress: one job's pieces in order.
    auto next = waiting_.end();
    cv_.wait(lock, [&] {
      if (closed_) return true;
      next = std::find_if(waiting_.begin(), waiting_.end(),
                          [&](const Piece& p) { return !busy_.count(p.job); });
      return next != waiting_.end();
    });
    if (closed_) return;
    Piece piece = std::move(*next);
    waiting_.erase(next);
    busy_.insert(piece.job);
    lock.unlock();
    Status status = piece.work();
    lock.lock();
    busy_.erase(piece.job);
    Done done{piece.job, piece.attempt, piece.kind, std::move(status)};
    done_.push_back(done);
    lock.unlock();
    // The job's next piece may go now; whoever waits for the results is told.
    cv_.notify_all();
    idle_cv_.notify_all();
    if (on_done_) on_done_(done);
    lock.lock();
  }
}

}  // namespace squeeze
