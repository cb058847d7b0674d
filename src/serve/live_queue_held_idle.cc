// LiveQueue and runs that hold GPUs they barely use: every GPU of the run below the held-idle
// threshold for longer than the window, from the utilization telemetry reports. Such a run is
// listed (GET /v1/held-idle), counted on /metrics, noted once per spell in its history, and the
// scheduler is told (Scheduler::SetHeldIdle, which the policy's held_idle_yields may use).
#include <cmath>

#include "config/job_values.h"
#include "core/duration.h"
#include "serve/live_queue.h"

namespace squeeze {
namespace {

std::string Percent(double share) { return std::to_string(std::lround(share * 100)) + "%"; }

}  // namespace

std::vector<std::pair<int, int>> LiveQueue::GpusOf(const Job& job) const {
  std::vector<std::pair<int, int>> gpus;
  for (const NodeShare& share : job.placement.shares) {
    for (int g : share.gpus) gpus.emplace_back(share.node, g);
  }
  return gpus;
}

void LiveQueue::UpdateHeldIdle(Time now) {
  const HeldIdleOptions& o = held_idle_.options();
  for (auto& [id, live] : jobs_) {
    const Job* job = scheduler_->Find(id);
    std::optional<HeldIdleTracker::Spell> spell;
    if (job != nullptr && job->state == JobState::kRunning) {
      spell = held_idle_.IdleSpell(GpusOf(*job), job->run_start, now);
    }
    if (spell && live.held_idle && live.held_idle->since == spell->since) {
      live.held_idle = spell;  // the same spell: its mean moves on
      continue;
    }
    if (!spell && !live.held_idle) continue;
    live.held_idle = spell;
    if (job != nullptr && job->IsActive()) (void)scheduler_->SetHeldIdle(id, spell.has_value());
    if (!spell) {
      Log("job " + std::to_string(id) + " uses its GPUs again (or stopped): no longer held idle");
      continue;
    }
    const std::string text = "held but idle: its GPUs averaged " +
                             Percent(spell->mean_utilization) + " since " +
                             FormatDateTime(spell->since) + " (below " + Percent(o.threshold) +
                             " for " + FormatDuration(now - spell->since) + ")";
    Record([id = id, now, text](JobStore& s) { return s.AppendEvent(id, now, "held-idle", text); });
    Log("job " + std::to_string(id) + " " + text);
  }
}

nlohmann::json LiveQueue::BuildHeldIdleJson() const {
  const ClusterSpec& spec = scheduler_->cluster().spec();
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& [id, live] : jobs_) {
    if (!live.held_idle) continue;
    const Job* job = scheduler_->Find(id);
    if (job == nullptr || !job->IsActive()) continue;
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& [node, gpu] : GpusOf(*job)) {
      gpus.push_back({{"node", spec.nodes[node].name}, {"gpu", gpu}});
    }
    jobs.push_back({{"id", id},
                    {"name", live.request.spec.name},
                    {"user", live.owner},
                    {"team", live.request.spec.team},
                    {"gpus", gpus},
                    {"mean_utilization", live.held_idle->mean_utilization},
                    {"idle_since", FormatDateTime(live.held_idle->since)}});
  }
  const HeldIdleOptions& o = held_idle_.options();
  return {{"jobs", jobs}, {"threshold", o.threshold}, {"window_s", WholeSeconds(o.window)}};
}

}  // namespace squeeze
