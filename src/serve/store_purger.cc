#include "serve/store_purger.h"

#include <algorithm>

#include "core/duration.h"

namespace squeeze {

Time PurgeInterval(Time retention) { return std::clamp<Time>(retention / 4, kSecond, kHour); }

StorePurger::StorePurger(JobStore& store, StorePurgerOptions options, std::function<Time()> clock,
                         std::function<void(const Round&)> done,
                         std::function<void(const std::string&)> say)
    : store_(store),
      options_(options),
      clock_(std::move(clock)),
      done_(std::move(done)),
      say_(std::move(say)) {}

StorePurger::~StorePurger() { Stop(); }

void StorePurger::Start() {
  if (options_.retention <= 0 || thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { Loop(); });
}

void StorePurger::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StorePurger::Loop() {
  std::unique_lock lock(mu_);
  const auto interval = std::chrono::milliseconds(WholeMilliseconds(options_.interval));
  while (!cv_.wait_for(lock, interval, [this] { return stopping_; })) {
    lock.unlock();
    Result<Round> round = RunOnce();
    if (!round.ok()) {
      if (say_) say_("purging finished jobs' details: " + round.status().message());
    } else if (round->purged > 0 && done_) {
      done_(*round);
    }
    lock.lock();
  }
}

Result<StorePurger::Round> StorePurger::RunOnce() {
  Round round;
  if (options_.retention <= 0) return round;
  round.before = clock_() - options_.retention;
  auto space = store_.SpaceUsed();
  if (!space.ok()) return space.status();
  round.bytes_before = space->pages * space->page_size;
  const std::string why = "details purged (command, environment, paths, events but submit, "
                          "start, exit and end) after the retention of " +
                          FormatDuration(options_.retention);
  auto stopping = [this] {
    std::lock_guard lock(mu_);
    return stopping_;
  };
  for (;;) {
    auto n = store_.PurgeDetails(round.before, options_.batch, clock_(), why);
    if (!n.ok()) return n.status();
    round.purged += *n;
    if (*n < options_.batch || stopping()) break;
    std::this_thread::sleep_for(options_.pause);
  }
  for (;;) {
    auto left = store_.ReclaimFreePages(options_.reclaim_pages);
    if (!left.ok()) return left.status();
    if (*left == 0 || !space->incremental_vacuum || stopping()) break;
    std::this_thread::sleep_for(options_.pause);
  }
  space = store_.SpaceUsed();
  if (!space.ok()) return space.status();
  round.bytes_after = space->pages * space->page_size;
  return round;
}

}  // namespace squeeze
