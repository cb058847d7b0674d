#include "core/fragmentation_blocked.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "core/actions/actions.h"
#include "core/cycle.h"
#include "core/unvisited_jobs.h"

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
  // `stop_early` false: every job is looked at (to check the early end against).
  BlockedScan(const CycleContext& c, FragmentationBlocked& out, bool stop_early)
      : c_(c), ledger_(c.s.cluster), borrowing_(c.s.policy.Has("borrow")), out_(out),
        stop_early_(stop_early), unvisited_(c.s.pending, c.s.shapes.size(), c.AnyScope() + 1),
        may_charge_(c.s.shapes.size(), 1) {}

  // The walk that follows covers `scope` alone (-1: every scope).
  void WalkScope(int scope) {
    walk_scope_ = scope;
    review_ = true;
  }

  PendingQueue::Visit Visit(const QueuePosition& p) {
    if (ledger_.total() <= 0) return PendingQueue::Visit::kStop;
    if (stop_early_ && review_ && !AnyLeftMayCharge()) return PendingQueue::Visit::kStop;
    if (unvisited_.Visit(p)) review_ = true;
    const bool home_only = p.scope < c_.AnyScope() && !borrowing_;
    const int64_t left = home_only ? ledger_.PoolLeft(p.scope) : ledger_.total();
    if (left <= 0) return PendingQueue::Visit::kSkipScope;
    // Its shape was found not chargeable with the ledger as it is: nor is this job.
    if (stop_early_ && p.shape >= 0 && !may_charge_[p.shape]) return PendingQueue::Visit::kNext;
    const Job& job = c_.s.jobs.at(p.entry.id);
    const int64_t demand = job.spec.TotalMilli();
    if (demand <= 0 || demand > left || !ChargeIfBlocked(job, home_only)) {
      return PendingQueue::Visit::kNext;
    }
    ++out_.jobs;
    out_.milli += demand;
    out_.milli_by_scope[p.scope] += demand;
    review_ = true;
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
    if (plain) {
      placeable_.emplace(key, fits);
      review_ = true;
    }
    return fits;
  }

  // Whether a job of shape `id` not visited yet would be charged, the ledger as it is now:
  // Visit's test for a job of that shape (whether a job fits depends on its shape alone, so a
  // job made of the shape answers for all of them). The ledger only shrinks and the answers of
  // Placeable stay, so a "no" holds for the rest of the walk.
  bool ShapeMayCharge(int id) {
    const JobShape& shape = c_.s.shapes.at(id);
    const int64_t demand = static_cast<int64_t>(shape.gpus) * shape.gpu_milli;
    const bool home_only = shape.scope < c_.AnyScope() && !borrowing_;
    const int64_t left = home_only ? ledger_.PoolLeft(shape.scope) : ledger_.total();
    if (demand <= 0 || left <= 0 || demand > left) return false;
    return Blocked(c_.s.shapes.example(id), home_only);
  }

  // Whether any job the walk has yet to visit (in the scopes it covers) could be charged; when
  // none could, the rest of the walk would change nothing. Jobs of no shape always could.
  bool AnyLeftMayCharge() {
    review_ = false;
    bool any = false;
    for (const auto& [id, jobs] : c_.s.pending.ShapeJobs()) {
      if (unvisited_.Left(id) == 0) continue;
      if (walk_scope_ >= 0 && c_.s.shapes.at(id).scope != walk_scope_) continue;
      may_charge_[id] = ShapeMayCharge(id);
      any = any || may_charge_[id];
    }
    return any || unvisited_.ShapelessLeft(walk_scope_);
  }

  // Whether the job is blocked by fragmentation, the ledger as it is; its usable pools are left
  // in pools_. `home_only`: it may start in its home pool alone, whose free capacity suffices.
  bool Blocked(const Job& job, bool home_only) {
    if (home_only && Placeable(job, job.home_pool)) return false;  // the common case, quick
    const std::vector<int>& pools = UsablePools(job);
    int64_t free = 0;
    for (int pool : pools) free += ledger_.Left(c_.GroupsFor(job.spec, pool));
    if (free < job.spec.TotalMilli()) return false;
    for (int pool : pools) {
      if (Placeable(job, pool)) return false;
    }
    return true;
  }

  // Whether the job is blocked by fragmentation; if so, charges its demand to the ledger.
  bool ChargeIfBlocked(const Job& job, bool home_only) {
    if (!Blocked(job, home_only)) return false;
    int64_t owed = job.spec.TotalMilli();
    for (int pool : pools_) owed = ledger_.Charge(c_.GroupsFor(job.spec, pool), owed);
    return true;
  }

  const CycleContext& c_;
  FreeLedger ledger_;
  const bool borrowing_;
  std::map<std::tuple<int, int, int>, bool> placeable_;  // (pool, gpus, gpu_milli)
  std::vector<int> pools_;  // UsablePools' answer, kept to spare an allocation per job
  FragmentationBlocked& out_;
  const bool stop_early_;
  // The early end of a walk: the jobs not visited yet; the scope walked (-1: all); whether
  // what may still be charged needs a new look.
  UnvisitedJobs unvisited_;
  std::vector<char> may_charge_;  // by shape, as last looked at (1: yes or not looked at)
  int walk_scope_ = -1;
  bool review_ = true;
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
    BlockedScan scan(c, blocked_, reuse_);
    scan.WalkScope(-1);
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
      if (!scan) scan.emplace(c, blocked_, reuse_);
      const int jobs_before = blocked_.jobs;
      scan->WalkScope(scope);
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
