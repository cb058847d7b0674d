// A policy is a named configuration of actions and plugins. The named ones (fifo, sjf, srtf,
// las, squeeze, ...) are listed by PolicyNames() and explained in docs/policies.md.
#ifndef SQUEEZE_CORE_POLICY_H_
#define SQUEEZE_CORE_POLICY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/plugins/job_order.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct Policy {
  std::string name;
  // Actions in the order they run: any of "reclaim", "allocate", "defrag", "backfill",
  // "borrow", "preempt", "slice", "region", "spot", "colocate".
  std::vector<std::string> actions = {"allocate"};
  // Without "backfill": true = allocation stops at the first job of a pool that does not fit
  // (strict head-of-line order); false = any later job that fits starts (greedy, no
  // reservation, big jobs may starve).
  bool strict = true;
  // With "backfill": a blocked job gets a reservation only once it has waited this long;
  // younger blocked jobs are passed by any job that fits (0 = reserve for the first blocked
  // job at once, as EASY backfilling does).
  Time reserve_after = 0;
  // Jobs without an estimate are taken to need what the job order has learned (the median run
  // time still to come for jobs like them, from the gittins order) when reservations and
  // backfill ask how long they will run.
  bool learned_estimates = false;
  std::string job_order = "fifo";  // fifo | sjf | las | srtf
  std::string node_order = "consolidation";
  JobOrderOptions order_options;
  bool priority = false;    // urgency classes rank before the job order
  // A running job reported held but idle (Scheduler::SetHeldIdle) ranks one urgency class
  // lower while so: at its next slice end it yields to waiting work of its own class, and that
  // work may preempt it.
  bool held_idle_yields = false;
  bool fair_share = false;  // within a class, the team with the least running GPUs first
  bool deadline = false;    // a job whose deadline is at risk moves up within its class
  Time deadline_margin = 10 * kMinute;
  // A job that has waited this long since it was submitted moves up within its class, as a
  // job whose deadline is at risk does (0 = never), so that it may evict jobs that did not.
  Time starve_after = 0;  // at risk when it cannot finish by deadline - margin if started later
  Time slice = 30 * kMinute;  // slice length for checkpointable, preemptible jobs
  Time min_runtime = 0;     // a job is not preempted before it ran this long
  // The "preempt" action evicts jobs of a lower urgency class; with this, also jobs of the same
  // class that the job order ranks below the waiting job (srtf: longer remaining time).
  bool preempt_by_order = false;
  // With preempt_by_order, a running job is evicted only if its order key exceeds the waiting
  // job's key by this factor (keys are times for sjf, srtf and gittins), so that jobs of about
  // the same rank do not evict each other back and forth.
  double preempt_key_ratio = 1.0;
  // Which running jobs a preemption or reclaim stops first: "least_lost" (squeeze: those that
  // lose the least work since their last checkpoint) or "priority_newest" (Kueue's and
  // Volcano's order: the lowest urgency class first, then the most recently started).
  std::string victim_order = "least_lost";
  // With "borrow": another pool's idle GPUs are lent to any waiting job, not only to
  // preemptible ones (Kueue's cohorts lend unused quota to every workload, and reclaim it by
  // evicting whichever borrowed it).
  bool borrow_any = false;
  // With "defrag": a job is moved at most this many times in any hour (0 = never).
  int defrag_max_moves_per_hour = 1;
  // With "shrink" and "grow" (elastic jobs, core/elastic.h): a job is resized at most this many
  // times in any hour (0 = never), and grown into idle GPUs only when the time it is expected to
  // save is at least grow_gain times what the resize costs it.
  int elastic_resizes_per_hour = 4;
  double elastic_grow_gain = 2.0;
  // Heterogeneous GPUs (core/hardware.h): a job goes to the smallest, slowest card that serves
  // it unless a faster one would finish it sooner by more than hardware_slack (a share of its
  // run there) and by at least hardware_min_saving; false: the node order alone chooses among
  // the cards a job may use.
  bool hardware_aware = false;
  double hardware_slack = 0.1;
  Time hardware_min_saving = 30 * kMinute;
  // A cluster with a topology (blocks, racks; core/topology_spec.h): a job of several nodes
  // goes inside one domain of the narrowest level that holds it when one has room; false: the
  // node order alone places it (what a job requires is honoured either way).
  bool topology_aware = true;
  // With "region": a waiting job moves to another region only if its expected wait at home
  // exceeds the time to copy its data there by at least this much.
  Time region_min_gain = 0;
  // With "spot" and "colocate": how jobs use capacity that can be taken away (spot pools,
  // inference GPUs). Aware (the default): a job goes there when its expected completion there
  // (Daly's model with the learned time between reclaims, the checkpoint interval set for it,
  // the colocated speed) is sooner than waiting at home; fault-tolerant jobs go first; the rules
  // below hold. Naive (false): any job that cannot start at home goes, checkpointing every
  // spot_naive_interval, and no node is avoided.
  bool spot_aware = true;
  Time spot_naive_interval = kHour;
  // A job expected to run longer than spot_long_job (or of unknown length) goes to spot only
  // if it can save within the warning, or checkpoints at least every spot_long_job_checkpoint:
  // its own interval, or the one squeeze would ask of it (Daly's, short only when its
  // checkpoints are cheap against the time between reclaims).
  Time spot_long_job = 12 * kHour;
  Time spot_long_job_checkpoint = 5 * kMinute;
  // Such a long job may still bridge its wait at home on spot (spot_long_job_bridge): it goes
  // when its expected wait is shorter than spot_long_job, the return_home action brings it
  // home at the first room, and its time on spot never exceeds spot_long_job in all.
  bool spot_long_job_bridge = true;
  // Or squeeze asks it to checkpoint every spot_long_job_checkpoint, when that is expected to
  // finish it sooner than waiting at home and those checkpoints' pauses take at most this
  // share of its time there (pause / (interval + pause); asynchronous checkpoints pause it
  // for their stall only). 0: never.
  double spot_long_job_comply = 0.1;
  // A node reclaimed spot_flaky_reclaims times within spot_flaky_window takes no new work for
  // spot_flaky_cooldown.
  int spot_flaky_reclaims = 2;
  Time spot_flaky_window = kHour;
  Time spot_flaky_cooldown = kDay;
  // Simulation only: reveal each job's true duration to the policy as its estimate (the
  // references sjf and srtf do; squeeze never does).
  bool oracle_estimates = false;

  bool Has(std::string_view action) const;
  Status Validate() const;
};

// A named policy, optionally with modifiers: "squeeze+borrow" lets pools lend idle GPUs to
// other pools' preemptible jobs (adding the reclaim and borrow actions); "+defrag" adds the
// defrag action (moves jobs to consolidate free GPUs for a job blocked by fragmentation);
// "+region" adds the region action (a waiting job runs in another region its data may go to
// when its wait at home is longer than copying its data there).
Result<Policy> NamedPolicy(std::string_view name);
std::vector<std::string> PolicyNames();

// Adds `action` where it belongs among the others (as the modifiers do): reclaim after
// allocate; borrow after allocate, reclaim and backfill; defrag after allocate and reclaim;
// region after those and preempt; spot and colocate before every other, with return_home after
// the rest. Another action goes last. Nothing changes when it is there already.
void AddAction(Policy& policy, const std::string& action);

// Changes one setting of a policy by name, for what-if runs (PolicyOptionNames() lists them;
// docs/policies.md explains each). A refused value (not of the setting's kind, or one that
// leaves the policy invalid) changes nothing.
Status SetPolicyOption(Policy& policy, std::string_view key, std::string_view value);
std::vector<std::string> PolicyOptionNames();

// Who runs a policy: the simulator, or squeeze serve (a few settings are read by one only).
enum class PolicyDriver { kSimulator, kLive };

// When no part of `policy` reads setting `key` under `driver`, what alone would read it ("the
// slice action", "job_order=las"), so a setting that changes nothing can be refused; nullopt
// when something reads it, or the key is unknown (SetPolicyOption says so).
std::optional<std::string> PolicyOptionUnused(const Policy& policy, std::string_view key,
                                              PolicyDriver driver);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_POLICY_H_
