// The actions of a scheduling cycle, run in the order a policy lists them. Each walks the
// state through the CycleContext and records what it changes as decisions.
//   allocate  start jobs in policy order; a job that does not fit blocks its pool (strict or
//             with a reservation when the policy backfills) or is skipped (greedy)
//   reclaim   evict borrowers from a pool (or a team's guarantee) its owner needs
//   defrag    move checkpointable jobs to other nodes so that a job blocked only by
//             fragmentation fits, when the wait it saves outweighs what the moves cost
//   backfill  start later jobs where they do not delay the reservations
//   borrow    start preemptible jobs on other pools' idle GPUs, as borrowers
//   preempt   evict less urgent preemptible jobs for a waiting one
//   slice     at a slice end, a job yields to waiting work that ranks ahead of it
//   region    start a waiting job in another region its data may go to, when its expected
//             wait at home is longer than copying its data over the link between them
//   spot      start a waiting job on a spot pool when it is expected to finish sooner there
//             (reclaims, checkpoints and all) than by waiting at home
//   shrink    shrink running elastic jobs (at a checkpoint) to admit a waiting job that ranks
//             ahead of them
//   grow      start the elastic jobs this cycle started wider, into the GPUs left idle, and
//             grow running ones into them where the time saved outweighs the resize
//   colocate  likewise on the GPUs a colocated pool's inference leaves free (preemptible,
//             checkpointable jobs only)
#ifndef SQUEEZE_CORE_ACTIONS_ACTIONS_H_
#define SQUEEZE_CORE_ACTIONS_ACTIONS_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "core/cycle.h"
#include "core/statement.h"

namespace squeeze {

void RunAllocate(CycleContext& c);
void RunReclaim(CycleContext& c);
void RunDefrag(CycleContext& c);
// Not an action: at the start of every cycle, restarts the jobs defrag moved whose checkpoint
// is done on the GPUs held for them, and keeps the nodes held for the jobs they made room for.
void ResumeMoves(CycleContext& c);
void RunBackfill(CycleContext& c);
void RunBorrow(CycleContext& c);
void RunPreempt(CycleContext& c);
void RunSlice(CycleContext& c);
void RunRegion(CycleContext& c);
void RunSpot(CycleContext& c);
void RunColocate(CycleContext& c);
void RunReturnHome(CycleContext& c);
void RunUpgrade(CycleContext& c);
void RunShrink(CycleContext& c);
void RunGrow(CycleContext& c);
// Not an action: at the start of every cycle, the jobs whose GPUs are being taken away (spot
// reclaims, inference; CycleContext::withdrawn) are asked to stop.
void StopWithdrawn(CycleContext& c);
// For `why`: a waiting job's expected wait in its home region and, for each other region,
// whether its data may go there, what copying it takes and the GPUs free there. Empty when
// the cluster has one region or the job no home pool.
std::vector<std::string> RegionOutlook(const CycleContext& c, const Job& job);

// Shared by the actions: whether team guarantees let a job start in a pool (not at all, on
// its own share, or as a borrower that may be reclaimed: another pool, or beyond its team's
// guarantee); where it may start in one pool, and whether that start is borrowed capacity.
enum class Admission { kRefused, kOwn, kBorrowed };
Admission AdmitToPool(const CycleContext& c, const Job& job, int pool);
struct PoolPlacement {
  Placement placement;
  bool borrowed = false;
};
std::optional<PoolPlacement> PlaceInPool(const CycleContext& c, const Job& job, int pool,
                                         const std::unordered_map<int, int>* caps);
// Where a job may start at home: its home pool, or the first pool that fits for a job that
// names none.
std::optional<PoolPlacement> PlaceAtHome(const CycleContext& c, const Job& job,
                                         const std::unordered_map<int, int>* caps);
// Starts waiting job `id` where it was placed, in a statement of its own committed at once;
// with `charge_caps` it uses up spare GPUs of reserved nodes (CycleContext::ChargeCaps).
void StartPlaced(CycleContext& c, JobId id, PoolPlacement placed, bool charge_caps = false);
// A job is held back by the order only on the resources it would take: once a job that needs
// GPUs cannot start (none free for it, or it is blocked and reserved for), later jobs of its
// scope that may use any of its node groups are passed over, while jobs of no GPUs and jobs
// whose GPUs are elsewhere (another GPU model) are still tried. A scope whose every node group
// is blocked, and that holds no job of no GPUs, is skipped at once, as before.
class GpuBlockedScopes {
 public:
  explicit GpuBlockedScopes(const CycleContext& c) : c_(c) {}
  // True for a GPU job that may use a node group blocked in its scope (skip it: kNext).
  bool Passed(const QueuePosition& p) const;
  // After `p` could not start: its node groups are blocked in its scope (or, for a job of no
  // GPUs blocked on CPU or memory, the whole scope is skipped).
  PendingQueue::Visit Block(const QueuePosition& p);
  // Every node group of `p`'s scope is blocked (no GPU is free in it).
  PendingQueue::Visit BlockScope(const QueuePosition& p);

 private:
  PendingQueue::Visit AfterBlocking(int scope);
  const CycleContext& c_;
  std::map<int, std::set<int>> blocked_;  // scope -> node groups blocked on GPUs
};

// The fair-share measure for the queue walk (null when the policy has no fair share).
PendingQueue::TeamMeasure FairShareMeasure(const CycleContext& c);

// Sets of running jobs, among those `eligible` allows, whose stopping frees enough GPUs for
// `job` in `groups`, cheapest first (least work lost, then least work since their last
// checkpoint, then fewest jobs), at most `max` of them. Empty when enough GPUs are free
// already or no eligible set would do. A set frees GPUs; whether the job then fits (CPU,
// memory, caps) is for the caller to try (EvictFor).
std::vector<std::vector<JobId>> VictimSets(const CycleContext& c, const Job& job,
                                           const std::vector<int>& groups,
                                           const std::function<bool(const Job&)>& eligible,
                                           size_t max);
// Evicts, in one statement, the first of `sets` after whose stops `job` fits in `pool` (-1: at
// home) within `caps`, and commits it: the job claims the room once they have stopped.
// Nothing is evicted when no set lets it fit. Returns the victims (empty: none).
std::vector<JobId> EvictFor(CycleContext& c, const Job& job, int pool,
                            const std::vector<std::vector<JobId>>& sets,
                            const std::unordered_map<int, int>& caps, const std::string& why,
                            StopKind kind);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_ACTIONS_ACTIONS_H_
