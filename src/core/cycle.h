// One scheduling cycle's working context: the engine state (read-only to the actions), "now",
// the decisions of the statements committed so far, and the reservations the allocate action
// left for blocked jobs. Actions change the state only through a Statement, so that every
// change is also a decision or undone.
#ifndef SQUEEZE_CORE_CYCLE_H_
#define SQUEEZE_CORE_CYCLE_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/decision.h"
#include "core/engine_state.h"

namespace squeeze {

// Capacity held for a blocked job so that later jobs cannot delay it.
struct Reservation {
  JobId job = 0;
  int scope = 0;
  Time shadow = kNever;  // when it is expected to start
  // Whole GPUs that a job still running at `shadow` may take on each reserved node.
  std::unordered_map<int, int> caps;
};

// A job's place in the order: higher band first, then its queue entry.
struct Rank {
  int band = 0;
  QueueEntry entry;
  bool Before(const Rank& o) const {
    return band != o.band ? band > o.band : entry < o.entry;
  }
};

// A run's progress per second on its placement, in thousandths (cycle.cc).
int RunSpeedMilli(const EngineState& s, const Job& job);

class CycleContext {
 public:
  CycleContext(EngineState& state, Time now) : s(state), now(now), state_(state) {}

  // What the actions read. They change it only through a Statement (core/statement.h).
  const EngineState& s;
  const Time now;
  std::map<int, Reservation> reservations;  // by scope
  std::unordered_map<int, int> caps;        // all reservations' caps, merged
  // Given by the scheduler for this cycle: jobs whose victims have all stopped (the room made
  // for them is theirs first), and running jobs whose GPUs are being taken away, with why.
  std::set<JobId> claims;
  std::map<JobId, std::string> withdrawn;

 private:
  std::vector<int> ComputeGroups(const JobSpec& spec, int pool) const;
  // Node groups by (pool or -1, job): the plain ones by pool, the constrained ones by job id.
  mutable std::unordered_map<int, std::vector<int>> pool_groups_cache_;
  mutable std::unordered_map<JobId, std::unordered_map<int, std::vector<int>>> job_groups_cache_;
  // ExpectedFreeOnOneNode by (group, gpus): the pool's version it was computed at, and when.
  mutable std::map<std::pair<int, int>, std::pair<uint64_t, Time>> expected_free_cache_;
  // RemainingWork of the waiting jobs PlaceByHardware asked about (it does not change in a
  // cycle while they wait).
  mutable std::unordered_map<JobId, std::optional<Time>> waiting_work_cache_;

 public:
  const Job& job(JobId id) const { return s.jobs.at(id); }
  int ScopeOf(const JobSpec& spec) const;
  int AnyScope() const { return s.cluster.PoolCount(); }
  // Node groups the job may use in `pool` (-1: its home pool, or every pool if it has none).
  // The list is kept for the cycle.
  const std::vector<int>& GroupsFor(const JobSpec& spec, int pool = -1) const;
  // Whether any pool a job of `scope` may use has a free GPU (or part of one).
  bool ScopeHasFreeGpus(int scope) const;
  // Whether starting the job in `pool` would be within its team's guarantee.
  bool WithinQuota(const JobSpec& spec, int pool) const;

  // A placement in the given groups honouring `caps` (or none), nullopt if it does not fit.
  std::optional<Placement> Place(const Job& job, const std::vector<int>& groups,
                                 const std::unordered_map<int, int>* caps) const;
  // With policy.hardware_aware, on cards of several kinds (cycle_hardware.cc): the cards in
  // the order of the hardware rule, one kind at a time; nullopt with *held when a card busy now
  // is expected to finish the job sooner, by hardware_min_saving, than the first one free.
  std::optional<Placement> PlaceByHardware(const Job& job, const std::vector<int>& groups,
                                           PlaceRequest& req, bool* held) const;
  // With a topology (blocks, racks) and a placement `anywhere` over several nodes: one inside
  // a single domain of the narrowest level that holds the job (best fit), as the job's
  // TopologyRequest and policy.topology_aware ask; `anywhere` when none and it is not required,
  // nullopt when it is. `even`: a Slurm pool's shape (the same GPUs on each node).
  std::optional<Placement> PlaceInTopology(const Job& job, PlaceRequest req,
                                           std::optional<Placement> anywhere, bool even) const;
  // When one node of `group` is expected to have `gpus` whole GPUs free: its free GPUs now and
  // the expected ends of the jobs on it (kNever: not known).
  Time ExpectedFreeOnOneNode(int group, int gpus) const;

  // The work a job still has to do at speed 1: by its estimate, else what the order learned
  // (nullopt: not known).
  std::optional<Time> RemainingWork(const Job& job) const;

  Rank RankOfPending(const QueuePosition& p) const { return {p.band, p.entry}; }
  Rank RankOfRunning(const Job& job) const;
  int BandOf(const Job& job) const;
  // Run time the job is expected to need from now, by estimate (kNever without one).
  Time ExpectedRunTime(const Job& job) const;
  // When a running job is expected to end, by estimate or what the order learned (kNever).
  Time ExpectedEnd(const Job& running) const;
  void AddReservation(Reservation r);
  // A job that keeps running past the reservations used up spare GPUs of reserved nodes.
  void ChargeCaps(const Placement& placement);
  // Caps on what a placement for `job` may take: the nodes held for other jobs that defrag
  // makes room for and, with `reservations`, what the reservations of other jobs keep.
  std::unordered_map<int, int> CapsExcept(JobId job, bool reservations) const;
  // Removes the jobs started during a walk from the queue (the walk cannot change it).
  void FlushStarted();
  // The decisions of the statements committed so far, in order.
  const std::vector<Decision>& decisions() const { return decisions_; }
  std::vector<Decision> TakeDecisions() { return std::move(decisions_); }

 private:
  friend class Statement;
  EngineState& state_;
  std::vector<Decision> decisions_;
  std::vector<JobId> started_;
  int open_statements_ = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_CYCLE_H_
