#include "core/fragmentation_blocked.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "core/actions/actions.h"
#include "core/cycle.h"

namespace squeeze {
namespace {

// Free milli-GPUs of each node group not yet charged to a blocked job.
class FreeLedger {
 public:
  explicit FreeLedger(const ClusterState& cluster) : cluster_(cluster) {
    left_.reserve(cluster.groups().size());
    for (const NodeGroup& g : cluster.groups()) left_.push_back(g.free_milli);
    total_ = cluster.FreeMilli();
  }

  int64_t total() const { return total_; }
  int64_t Left(const std::vector<int>& groups) const {
    int64_t sum = 0;
    for (int g : groups) sum += left_[g];
    return sum;
  }
  int64_t PoolLeft(int pool) const { return Left(cluster_.PoolGroups(pool)); }
  // Takes `milli` from the groups in order; returns what could not be taken.
  int64_t Charge(const std::vector<int>& groups, int64_t milli) {
    for (int g : groups) {
      const int64_t take = std::min(left_[g], milli);
      left_[g] -= take;
      total_ -= take;
      milli -= take;
    }
    return milli;
  }

 private:
  const ClusterState& cluster_;
  std::vector<int64_t> left_;
  int64_t total_ = 0;
};

// One measure: the queue walk, the ledger and what is already known of placements. Adds the
// jobs it finds blocked to `out`.
class BlockedScan {
 public:
  BlockedScan(const CycleContext& c, FragmentationBlocked& out)
      : c_(c), ledger_(c.s.cluster), borrowing_(c.s.policy.Has("borrow")), out_(out) {}

  PendingQueue::Visit Visit(const QueuePosition& p) {
    if (ledger_.total() <= 0) return PendingQueue::Visit::kStop;
    const bool home_only = p.scope < c_.AnyScope() && !borrowing_;
    const int64_t left = home_only ? ledger_.PoolLeft(p.scope) : ledger_.total();
    if (left <= 0) return PendingQueue::Visit::kSkipScope;
    const Job& job = c_.s.jobs.at(p.entry.id);
    const int64_t demand = job.spec.TotalMilli();
    if (demand <= 0 || demand > left || !ChargeIfBlocked(job, home_only)) {
      return PendingQueue::Visit::kNext;
    }
    ++out_.jobs;
    out_.milli += demand;
    out_.milli_by_scope[p.scope] += demand;
    return PendingQueue::Visit::kNext;
  }

 private:
  // The pools a job may start in: its home pool (every pool for a job of any pool) and, under
  // a borrowing policy, the other pools for a preemptible job; less those guarantees refuse.
  const std::vector<int>& UsablePools(const Job& job) {
    const bool borrows = borrowing_ && job.spec.preemptible;
    pools_.clear();
    for (int pool = 0; pool < c_.s.cluster.PoolCount(); ++pool) {
      const bool home = job.home_pool < 0 || job.home_pool == pool;
      if (!home && !borrows) continue;
      if (AdmitToPool(c_, job, pool) != Admission::kRefused) pools_.push_back(pool);
    }
    return pools_;
  }

  // Whether the node order finds room for the job in the pool. A job that only states GPUs
  // places as any other of its shape does, so that answer is kept for the rest of the walk.
  bool Placeable(const Job& job, int pool) {
    const JobSpec& s = job.spec;
    const bool plain = s.gpu_models.empty() && s.min_gpu_memory_mib == 0 && s.regions.empty() &&
                       s.cpu_milli == 0 && s.memory_mib == 0;
    const auto key = std::make_tuple(pool, s.gpus, s.gpu_milli);
    if (plain) {
      auto it = placeable_.find(key);
      if (it != placeable_.end()) return it->second;
    }
    const bool fits = c_.Place(job, c_.GroupsFor(s, pool), nullptr).has_value();
    if (plain) placeable_.emplace(key, fits);
    return fits;
  }

  // Whether the job is blocked by fragmentation; if so, charges its demand to the ledger.
  // `home_only`: it may start in its home pool alone, whose free capacity suffices.
  bool ChargeIfBlocked(const Job& job, bool home_only) {
    if (home_only && Placeable(job, job.home_pool)) return false;  // the common case, quick
    const std::vector<int>& pools = UsablePools(job);
    int64_t free = 0;
    for (int pool : pools) free += ledger_.Left(c_.GroupsFor(job.spec, pool));
    if (free < job.spec.TotalMilli()) return false;
    for (int pool : pools) {
      if (Placeable(job, pool)) return false;
    }
    int64_t owed = job.spec.TotalMilli();
    for (int pool : pools) owed = ledger_.Charge(c_.GroupsFor(job.spec, pool), owed);
    return true;
  }

  const CycleContext& c_;
  FreeLedger ledger_;
  const bool borrowing_;
  std::map<std::tuple<int, int, int>, bool> placeable_;  // (pool, gpus, gpu_milli)
  std::vector<int> pools_;  // UsablePools' answer, kept to spare an allocation per job
  FragmentationBlocked& out_;
};

}  // namespace

const FragmentationBlocked& FragmentationMeter::Measure(const CycleContext& c) {
  blocked_.jobs = 0;
  blocked_.milli = 0;
  blocked_.milli_by_scope.assign(c.AnyScope() + 1, 0);
  const PendingQueue& pending = c.s.pending;
  const bool shared = c.s.policy.Has("borrow") || c.s.policy.fair_share ||
                      pending.Stamp(c.AnyScope()).jobs > 0;
  if (!reuse_ || shared) {
    scopes_.clear();
    BlockedScan scan(c, blocked_);
    pending.Walk([&](const QueuePosition& p) { return scan.Visit(p); }, FairShareMeasure(c));
    return blocked_;
  }
  std::optional<BlockedScan> scan;  // made for the first scope that changed
  scopes_.resize(c.AnyScope());
  for (int scope = 0; scope < c.AnyScope(); ++scope) {
    Scope& kept = scopes_[scope];
    const PendingQueue::ScopeStamp stamp = pending.Stamp(scope);
    const uint64_t pool_version = c.s.cluster.PoolVersion(scope);
    if (stamp.jobs == 0) {
      kept = {};
      continue;
    }
    if (!kept.valid || kept.pool_version != pool_version || kept.queue_version != stamp.version) {
      if (!scan) scan.emplace(c, blocked_);
      const int jobs_before = blocked_.jobs;
      pending.WalkScope(scope, [&](const QueuePosition& p) { return scan->Visit(p); }, nullptr);
      kept = {true, pool_version, stamp.version, blocked_.jobs - jobs_before,
              blocked_.milli_by_scope[scope]};
      continue;
    }
    blocked_.jobs += kept.jobs;
    blocked_.milli += kept.milli;
    blocked_.milli_by_scope[scope] = kept.milli;
  }
  return blocked_;
}

}  // namespace squeeze
