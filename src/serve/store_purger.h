// The retention of finished jobs' details (limits.purge_job_details_after, config/job_limits.h): a
// thread of its own that, every interval, purges the details of the jobs that ended longer ago
// than the retention (JobStore::PurgeDetails: the accounting rows stay) in small transactions
// with a pause between them, then gives the freed pages back to the file system. It never
// takes the scheduling lock, and each of its transactions is short, so that the scheduling
// step's writes wait for it a few milliseconds at most. Start and Stop from one thread;
// RunOnce may be called from any one thread while it is not started.
#ifndef SQUEEZE_SERVE_STORE_PURGER_H_
#define SQUEEZE_SERVE_STORE_PURGER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/status.h"
#include "core/types.h"
#include "store/job_store.h"

namespace squeeze {

struct StorePurgerOptions {
  Time retention = 0;  // 0: details are kept forever (Start starts nothing)
  Time interval = kHour;  // between rounds; the first comes `interval` after Start
  // Jobs per transaction, pages given back per transaction (2 MiB of 4 KiB): each about 15 ms
  // on a virtual disk (bench/README.md, "store_bench --purge").
  int batch = 200;
  std::chrono::milliseconds pause{20};  // between transactions
  int64_t reclaim_pages = 512;
};

// The round's interval for a retention: a quarter of it, from 1 s to 1 h.
Time PurgeInterval(Time retention);

class StorePurger {
 public:
  struct Round {
    Time before = 0;   // jobs that ended before then were due
    int64_t purged = 0;
    int64_t bytes_before = 0;  // the store's pages (the WAL not counted), before and after
    int64_t bytes_after = 0;
  };
  // `store` outlives this. `done` is told of each round that purged something (from the
  // purger's thread); `say` of its errors.
  StorePurger(JobStore& store, StorePurgerOptions options, std::function<Time()> clock,
              std::function<void(const Round&)> done, std::function<void(const std::string&)> say);
  ~StorePurger();  // Stop()

  void Start();
  void Stop();
  // One round on the calling thread.
  Result<Round> RunOnce();

 private:
  void Loop();

  JobStore& store_;
  const StorePurgerOptions options_;
  std::function<Time()> clock_;
  std::function<void(const Round&)> done_;
  std::function<void(const std::string&)> say_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_STORE_PURGER_H_
