#include "serve/journal.h"

#include <utility>

namespace squeeze {

void Effects::Record(Write write) {
  Effect e;
  e.record = std::move(write);
  list_.push_back(std::move(e));
}

void Effects::Dispatch(Outbox& outbox, JobId job, int attempt, Outbox::Kind kind, Work work) {
  Effect e;
  e.outbox = &outbox;
  e.job = job;
  e.attempt = attempt;
  e.kind = kind;
  e.work = std::move(work);
  list_.push_back(std::move(e));
}

void Effects::Start(Write record, Outbox& outbox, JobId job, int attempt, Work work) {
  Dispatch(outbox, job, attempt, Outbox::Kind::kStart, std::move(work));
  list_.back().record = std::move(record);
  list_.back().start = true;
}

size_t Effects::dispatches() const {
  size_t n = 0;
  for (const Effect& e : list_) n += e.outbox != nullptr;
  return n;
}

Journal::Journal(JobStore& store, std::function<void(const std::string&)> log,
                 std::function<void()> wake)
    : store_(store), log_(std::move(log)), wake_(std::move(wake)) {}

Journal::~Journal() { StopThread(); }

void Journal::StartThread() {
  MutexLock lock(mu_);
  if (threaded_) return;
  threaded_ = true;
  thread_ = std::thread([this] {
    MutexLock lock(mu_);
    while (true) {
      kick_cv_.wait(lock, [&]() REQUIRES(mu_) { return kicked_ || stopping_; });
      const bool last = stopping_;
      kicked_ = false;
      const uint64_t through = next_ticket_ - 1;
      lock.Unlock();
      (void)CarryOut(through);  // errors are logged; a refused start comes back by itself
      lock.Lock();
      if (last) return;
    }
  });
}

void Journal::Kick() {
  {
    MutexLock lock(mu_);
    if (!threaded_) return;
    kicked_ = true;
  }
  kick_cv_.notify_all();
}

void Journal::StopThread() {
  {
    MutexLock lock(mu_);
    if (!threaded_ || stopping_) return;
    stopping_ = true;
  }
  kick_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Journal::threaded() const {
  MutexLock lock(mu_);
  return threaded_ && !stopping_;
}

uint64_t Journal::Append(Effects effects) {
  if (effects.empty()) return 0;
  MutexLock lock(mu_);
  const uint64_t ticket = next_ticket_++;
  queue_.push_back({ticket, std::move(effects.list_)});
  ++stats_.appended;
  return ticket;
}

Status Journal::CarryOut(uint64_t ticket) {
  if (ticket == 0) return Status::Ok();
  bool woke = false;
  MutexLock lock(mu_);
  while (done_through_ < ticket) {
    if (leading_ || queue_.empty()) {  // (empty: another leader took it and is at work)
      done_cv_.wait(lock);
      continue;
    }
    // The leader: everything queued so far, its own and others'.
    leading_ = true;
    std::deque<Batch> group;
    group.swap(queue_);
    lock.Unlock();
    Outcome outcome = Run(group);
    lock.Lock();
    leading_ = false;
    done_through_ = group.back().ticket;
    failed_.merge(outcome.failed);
    woke |= !outcome.unrecorded.empty();
    for (Unrecorded& u : outcome.unrecorded) unrecorded_.push_back(std::move(u));
    stats_.commits += outcome.counted.commits;
    stats_.records += outcome.counted.records;
    stats_.dispatches += outcome.counted.dispatches;
    done_cv_.notify_all();
  }
  Status status = Status::Ok();
  if (auto it = failed_.find(ticket); it != failed_.end()) {
    status = std::move(it->second);
    failed_.erase(it);
  }
  lock.Unlock();
  if (woke && wake_) wake_();
  return status;
}

Status Journal::CarryOutAll() {
  uint64_t last = 0;
  {
    MutexLock lock(mu_);
    last = next_ticket_ - 1;
  }
  return CarryOut(last);
}

std::vector<Journal::Unrecorded> Journal::TakeUnrecorded() {
  MutexLock lock(mu_);
  std::vector<Unrecorded> out;
  out.swap(unrecorded_);
  return out;
}

uint64_t Journal::done_through() const {
  MutexLock lock(mu_);
  return done_through_;
}

Journal::Stats Journal::stats() const {
  MutexLock lock(mu_);
  return stats_;
}

std::vector<Status> Journal::Store(std::deque<Batch>& group, Stats& counted) {
  std::vector<Status> status;
  bool any = false;
  for (const Batch& b : group) {
    for (const Effects::Effect& e : b.effects) any |= static_cast<bool>(e.record);
  }
  for (const Batch& b : group) status.resize(status.size() + b.effects.size(), Status::Ok());
  if (!any) return status;
  auto each = [&] {
    size_t i = 0;
    for (const Batch& b : group) {
      for (const Effects::Effect& e : b.effects) {
        if (e.record) {
          status[i] = e.record(store_);
          ++counted.records;
        }
        ++i;
      }
    }
  };
  JobStore::WriteBatch batch = store_.BeginWrites();
  each();
  ++counted.commits;
  if (Status s = batch.Commit(); !s.ok()) {
    // Nothing of the group is stored: each record again in a transaction of its own, so that
    // one that cannot be stored holds back no other.
    log_("the journal's group commit failed (" + s.message() + "); each record again alone");
    counted.records = 0;
    each();
  }
  return status;
}

Journal::Outcome Journal::Run(std::deque<Batch>& group) {
  Outcome out;
  std::vector<Status> status = Store(group, out.counted);
  size_t i = 0;
  for (Batch& b : group) {
    for (Effects::Effect& e : b.effects) {
      const Status& s = status[i++];
      if (!s.ok()) {
        out.failed.emplace(b.ticket, s);  // the first of the ticket's errors
        if (e.start) {
          log_("job " + std::to_string(e.job) + ": cannot record its start: " + s.message());
          out.unrecorded.push_back({e.job, e.attempt, s});
          continue;  // never run what the store does not know of
        }
        log_("cannot store a record: " + s.message());
      }
      if (e.outbox == nullptr) continue;
      e.outbox->Push(e.job, e.attempt, e.kind, std::move(e.work));
      ++out.counted.dispatches;
    }
  }
  return out;
}

}  // namespace squeeze
