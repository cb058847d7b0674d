// How many jobs of each user and of each team wait (pending or held; each task of an array
// counts), for the caps on waiting jobs (config/job_limits.h) checked at every submission without a
// scan of the store or the scheduling lock. The live queue counts its waiting jobs exactly at
// each publication (Rebase); a submission reserves its jobs before they are stored (Reserve),
// and the reservation stands until the queue has taken them from its inbox and published
// (Arrived, then Rebase). So a count may run ahead of the truth for a moment (a job that
// started since the last publication), never behind it. Thread-safe.
#ifndef SQUEEZE_SERVE_WAITING_COUNTS_H_
#define SQUEEZE_SERVE_WAITING_COUNTS_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/status.h"

namespace squeeze {

class WaitingCounts {
 public:
  using ByName = std::unordered_map<std::string, int64_t>;
  struct Counts {
    int64_t user = 0;
    int64_t team = 0;
  };

  // The counts of `user` and `team` now.
  Counts Of(const std::string& user, const std::string& team) const;
  // Under the counts' lock: `decide(counts now)` says whether `n` more jobs of `user` in
  // `team` may wait; when it says yes (Ok) they are counted at once, so that concurrent
  // submissions cannot all pass the same cap. Its error is returned, nothing counted.
  Status Reserve(const std::string& user, const std::string& team, int64_t n,
                 const std::function<Status(const Counts&)>& decide);
  // Jobs reserved that were not stored after all.
  void Unreserve(const std::string& user, const std::string& team, int64_t n);
  // The queue took one job of `user` in `team` from its inbox: its reservation ends at the
  // next Rebase, which counts the job itself.
  void Arrived(const std::string& user, const std::string& team);
  // The exact counts of the queue's waiting jobs, by owner and by team, as of a publication;
  // every reservation that Arrived before it is dropped.
  void Rebase(ByName by_user, ByName by_team);

 private:
  static void Take(ByName& from, const std::string& name, int64_t n);

  mutable std::mutex mu_;
  ByName base_user_, base_team_;          // as of the last Rebase
  ByName reserved_user_, reserved_team_;  // reserved since, not yet in a Rebase
  ByName arrived_user_, arrived_team_;    // of those, taken by the queue before the next Rebase
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_WAITING_COUNTS_H_
