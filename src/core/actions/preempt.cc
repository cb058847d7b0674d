#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/actions/actions.h"

namespace squeeze {
namespace {

// How many waiting jobs of one pool a cycle tries to make room for (each try looks at every
// node of the pool).
constexpr int kMaxEvictionTries = 8;

bool HasVictimCandidates(const CycleContext& c, int band) {
  const auto& by_band = c.s.running_preemptible_by_band;
  const int upto = c.s.policy.preempt_by_order ? static_cast<int>(by_band.size()) : band;
  for (int b = 0; b < upto && b < static_cast<int>(by_band.size()); ++b) {
    if (by_band[b] > 0) return true;
  }
  return false;
}

// What the waiting job's placement must leave alone, as when it claims the room once its
// victims have stopped (allocate's claims come before the cycle's reservations): the nodes
// held for other jobs that defrag makes room for. Reservations do not count: evicting for a
// job that then takes GPUs a reservation expects is not evicting for nothing (and on the four
// months of Philly, keeping preemptors off them lengthened squeeze's mean wait by 8%).
std::unordered_map<int, int> ClaimCaps(const CycleContext& c, const Job& job) {
  return c.CapsExcept(job.spec.id, /*reservations=*/false);
}

// How many sets of victims are tried for one waiting job (each is evicted tentatively and the
// job placed; the first after which it fits is committed).
constexpr size_t kVictimSetsTried = 4;

// The running jobs' ranks during one walk, by job id: open addressing in a table twice the
// active jobs' count, so that a walk asks the job order once per running job and allocates
// once (the waiting jobs tried each ask for every running job on every node).
class RunningRanks {
 public:
  explicit RunningRanks(const EngineState& s) {
    size_t active = 0;
    for (const auto& jobs : s.node_jobs) active += jobs.size();
    size_t n = 16;
    while (n < 2 * active) n <<= 1;
    slots_.resize(n);
  }
  template <typename Compute>
  Rank Get(JobId id, const Compute& compute) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>(id) * 0x9E3779B97F4A7C15ULL >> 7 & mask;;
         i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.used && slot.id == id) return slot.rank;
      if (!slot.used) {
        if (++used_ * 2 > slots_.size()) break;  // more than expected: do not cache
        slot = {true, id, compute()};
        return slot.rank;
      }
    }
    return compute();
  }
  // A try evicted: who runs has changed.
  void Clear() {
    if (used_ == 0) return;
    for (Slot& slot : slots_) slot.used = false;
    used_ = 0;
  }

 private:
  struct Slot {
    bool used = false;
    JobId id = 0;
    Rank rank;
  };
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace

void RunPreempt(CycleContext& c) {
  if (!HasVictimCandidates(c, c.s.pending.TopBand())) return;
  std::map<int, int> tries;  // by scope
  // The running jobs' ranks, asked for by every waiting job tried: kept until a try evicts
  // (nothing else in the walk changes a running job).
  RunningRanks ranks(c.s);
  // By shape (core/job_shape.h): the first rank at which a job of it found no victims. A job
  // of that shape ranked no better (lower band, or the same band and a key no smaller) has
  // fewer eligible victims on the same nodes for the same need, so none either: it counts as
  // tried without looking (the same decisions, in far less time on an overloaded cluster).
  std::unordered_map<int, Rank> hopeless;
  const bool monotone = c.s.policy.preempt_key_ratio >= 0;
  auto forget = [&] {  // a try evicted: who runs has changed
    ranks.Clear();
    hopeless.clear();
  };
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        const Job& job = c.job(p.entry.id);
        if (!HasVictimCandidates(c, p.band)) return PendingQueue::Visit::kStop;  // nor below
        if (c.s.awaiting_stops.count(job.spec.id)) return PendingQueue::Visit::kNext;
        const Rank rank = c.RankOfPending(p);
        auto tried = [&] {
          return ++tries[p.scope] >= kMaxEvictionTries ? PendingQueue::Visit::kSkipScope
                                                       : PendingQueue::Visit::kNext;
        };
        if (auto h = hopeless.find(p.shape); h != hopeless.end() && !rank.Before(h->second)) {
          return tried();
        }
        auto eligible = [&](const Job& v) {
          if (!v.spec.preemptible || c.now < v.min_runtime_until) return false;
          if (c.BandOf(v) < p.band) return true;
          if (!c.s.policy.preempt_by_order || c.BandOf(v) != p.band) return false;
          const Rank running = ranks.Get(v.spec.id, [&] { return c.RankOfRunning(v); });
          return rank.Before(running) &&
                 running.entry.key >= rank.entry.key * c.s.policy.preempt_key_ratio;
        };
        const auto sets = VictimSets(c, job, c.GroupsFor(job.spec), eligible, kVictimSetsTried);
        if (sets.empty() && p.shape >= 0 && monotone) hopeless.emplace(p.shape, rank);
        if (!EvictFor(c, job, -1, sets, ClaimCaps(c, job), "preempted for",
                      StopKind::kPreemption).empty()) {
          forget();
        }
        return tried();
      },
      nullptr);
}

void RunSlice(CycleContext& c) {
  std::set<JobId> due;
  for (const auto& [end, id] : c.s.slice_ends) {
    if (end > c.now) break;
    due.insert(id);
  }
  if (due.empty()) return;
  std::map<int, int> tries;  // by scope
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        const Job& job = c.job(p.entry.id);
        if (c.s.awaiting_stops.count(job.spec.id)) return PendingQueue::Visit::kNext;
        const Rank rank = c.RankOfPending(p);
        auto eligible = [&](const Job& v) {
          return due.count(v.spec.id) && rank.Before(c.RankOfRunning(v));
        };
        const auto sets = VictimSets(c, job, c.GroupsFor(job.spec), eligible, kVictimSetsTried);
        const auto victims = EvictFor(c, job, -1, sets, ClaimCaps(c, job),
                                      "slice ended; yields to", StopKind::kSliceYield);
        for (JobId v : victims) due.erase(v);
        if (due.empty()) return PendingQueue::Visit::kStop;
        return ++tries[p.scope] >= kMaxEvictionTries ? PendingQueue::Visit::kSkipScope
                                                     : PendingQueue::Visit::kNext;
      },
      nullptr);
  Statement st(c);
  for (JobId id : due) st.ExtendSlice(id);
  st.Commit();
}

void RunReclaim(CycleContext& c) {
  if (c.s.counters.borrowed_starts == 0) return;
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        const Job& job = c.job(p.entry.id);
        const int pool = job.home_pool;
        if (pool < 0 || c.s.awaiting_stops.count(job.spec.id) || !c.WithinQuota(job.spec, pool)) {
          return PendingQueue::Visit::kNext;
        }
        if (PlaceInPool(c, job, pool, &c.caps)) return PendingQueue::Visit::kNext;
        auto eligible = [&](const Job& v) {
          return v.borrowed && (v.home_pool != pool || v.spec.team != job.spec.team);
        };
        const auto sets =
            VictimSets(c, job, c.GroupsFor(job.spec, pool), eligible, kVictimSetsTried);
        EvictFor(c, job, pool, sets, ClaimCaps(c, job),
                 "borrowed capacity reclaimed for", StopKind::kPreemption);
        return PendingQueue::Visit::kSkipScope;
      },
      nullptr);
}

}  // namespace squeeze
