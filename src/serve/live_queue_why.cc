// LiveQueue's `why`: what holds a job back and when it is expected to start, answered from
// the published copy of the scheduler (never from under the scheduling lock) and the
// whole-queue forecast of it (why_forecasts.h).
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "config/job_values.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "serve/live_queue.h"
#include "serve/why_forecasts.h"

namespace squeeze {
namespace {

std::string Needs(const JobSpec& spec) {
  std::string out = "needs " + std::to_string(spec.gpus) + (spec.gpus == 1 ? " GPU" : " GPUs");
  if (spec.gpu_milli < kMilliPerGpu) {
    out = "needs " + std::to_string(spec.gpu_milli) + "/1000 of one GPU";
  }
  if (!spec.gpu_models.empty()) {
    std::string models;
    for (const auto& m : spec.gpu_models) models += (models.empty() ? "" : " or ") + m;
    out += " of model " + models;
  }
  if (!spec.pool.empty()) out += " in pool " + spec.pool;
  if (spec.topology.mode == TopologyMode::kRequired) {
    out += " inside one " + spec.topology.level + " (it requires it: it waits for one with room)";
  }
  return out + " (urgency " + std::string(UrgencyName(spec.urgency)) + ")";
}

using Lines = std::vector<std::string>;

// How many of the GPUs a job may use are free for it, and the nodes among them that take no
// new jobs.
void WhyCapacity(const Scheduler& sched, const JobSpec& spec, const std::vector<char>& may_use,
                 const std::map<int, std::string>& node_down, Lines& lines) {
  const ClusterState& cs = sched.cluster();
  int free = 0, usable = 0;
  for (const NodeState& n : cs.nodes()) {
    if (!may_use[n.index]) continue;
    usable += n.gpus;
    if (spec.WholeGpus()) {
      free += n.whole_free;
    } else {
      for (int m : n.free_milli) free += m >= spec.gpu_milli ? 1 : 0;
    }
  }
  lines.push_back("free now: " + std::to_string(free) + " of the " + std::to_string(usable) +
                  " GPUs it may use" + (spec.WholeGpus() ? "" : " have room for it"));
  for (const auto& [node, why] : node_down) {
    if (!may_use[node]) continue;
    const NodeSpec& ns = cs.spec().nodes[node];
    lines.push_back("node " + ns.name + " (pool " + ns.pool + ") takes no new jobs: " + why);
  }
}

// How many waiting jobs are ahead of `id` in the queue, and the first of them.
void WhyAhead(const Scheduler& sched, JobId id, Lines& lines) {
  std::vector<JobId> first;
  const size_t ahead = sched.WaitingAhead(id, 5, &first);
  if (ahead == 0) return;
  std::string ids;
  for (JobId j : first) ids += (ids.empty() ? "" : ", ") + std::to_string(j);
  if (ahead > 5) ids += ", ...";
  lines.push_back(std::to_string(ahead) + " waiting job" + (ahead == 1 ? " is" : "s are") +
                  " ahead of it in the queue (" + ids + ")");
}

// The running jobs on GPUs it may use, soonest end first (a job past its estimate says so);
// whether one of them is preemptible and of a lower urgency.
bool WhyHolders(const Scheduler& sched, const JobSpec& spec, const std::vector<char>& may_use,
                const std::function<std::string(JobId)>& owner_of, Time now, Lines& lines) {
  std::vector<std::tuple<Time, JobId, const Job*>> holders;
  bool preemptible_in_the_way = false;
  std::set<JobId> seen;
  for (size_t n = 0; n < may_use.size(); ++n) {
    if (!may_use[n]) continue;
    for (JobId id : sched.JobsOnNode(static_cast<int>(n))) {
      const Job* j = sched.Find(id);
      if (j == nullptr || !j->IsActive() || !seen.insert(id).second) continue;
      preemptible_in_the_way |= j->spec.preemptible && j->spec.urgency < spec.urgency;
      holders.emplace_back(j->EstimatedEnd(), id, j);
    }
  }
  const size_t shown = std::min<size_t>(5, holders.size());
  std::partial_sort(holders.begin(), holders.begin() + static_cast<std::ptrdiff_t>(shown),
                    holders.end());
  for (size_t i = 0; i < shown; ++i) {
    const auto& [end, jid, j] = holders[i];
    const int gpus = j->placement.GpuCount();
    const std::string what =
        j->state == JobState::kCheckpointing ? "is checkpointing to make room"
        : end == kNever ? "runs with no estimate"
        : end < now     ? "has run " + FormatDuration(now - end) + " past its estimate"
                        : "ends in about " + FormatDuration(end - now) + " by its estimate";
    // A job it could preempt but for the policy's min_runtime: how long that protects it.
    const bool protected_now = j->spec.preemptible && j->spec.urgency < spec.urgency &&
                               j->min_runtime_until > now;
    lines.push_back("in the way: job " + std::to_string(jid) + " (" + owner_of(jid) + ", " +
                    std::to_string(gpus) + (gpus == 1 ? " GPU, " : " GPUs, ") +
                    std::string(UrgencyName(j->spec.urgency)) + ") " + what +
                    (protected_now ? "; it may not be preempted for " +
                                         FormatDuration(j->min_runtime_until - now) +
                                         " more (the policy's min_runtime protects a run that "
                                         "just started)"
                                   : ""));
  }
  if (holders.size() > 5) {
    lines.push_back("in the way: " + std::to_string(holders.size() - 5) + " more running jobs");
  }
  return preemptible_in_the_way;
}

// The first reservation of a blocked job ahead that covers GPUs it could use: backfilling
// keeps them from a job that would still run at the reserved start.
void WhyReservation(const Scheduler& sched, JobId id, const std::vector<char>& may_use, Time now,
                    Lines& lines) {
  for (const Reservation& r : sched.ReservationsAhead(id, now, 16)) {
    std::string nodes;
    for (const auto& [node, cap] : r.caps) {
      if (may_use[node]) nodes += (nodes.empty() ? "" : ", ") + sched.cluster().spec().nodes[node].name;
    }
    if (nodes.empty()) continue;
    lines.push_back("job " + std::to_string(r.job) + " holds a reservation on " + nodes +
                    (r.shadow < kNever
                         ? " from about " + FormatDuration(std::max<Time>(0, r.shadow - now)) +
                               " from now"
                         : "") +
                    ": a job that would still run then may not start there");
    return;
  }
}

// When `id` is expected to start, from the whole-queue forecast (core/forecast_start.h) of the
// published state, or of one a little older (its figures then counted from when it was made).
void WhyForecast(const WhyForecasts::Answer& answer, JobId id, Time now, nlohmann::json& out) {
  const StartForecast& f = answer.forecast;
  const Time age = std::max<Time>(0, now - answer.made_at);
  out["expected_start_in_s"] = nullptr;
  out["forecast_age_s"] = WholeSeconds(age);
  for (JobId j : f.overrun) {
    out["explanation"].push_back("the forecast takes job " + std::to_string(j) +
                                 ", past its estimate, to end now");
  }
  if (f.starts_after) {
    const Time in = std::max<Time>(0, *f.starts_after - age);
    out["expected_start_in_s"] = WholeSeconds(in);
    out["expected_start_at"] = FormatDateTime(now + in);
    if (f.stops > 0) {
      out["explanation"].push_back(
          "expected to start after the policy stops " + Counted(f.stops, "running job") +
          " on the way (preemption, slice ends, reclaims)");
    }
  } else if (f.not_before) {
    const Time in = std::max<Time>(0, *f.not_before - age);
    out["expected_start_not_before_s"] = WholeSeconds(in);
    out["explanation"].push_back(
        "no forecast within " + std::to_string(f.cycles) + " cycles (" +
        Counted(f.started_first, "job") + " started in it first): not before " +
        FormatDuration(in) + " from now");
  } else if (f.missing_estimate) {
    out["explanation"].push_back("no forecast: job " + std::to_string(*f.missing_estimate) +
                                 ", running or ahead of it, has no estimate");
  } else {
    out["explanation"].push_back("no forecast: it does not start within the forecast's horizon");
  }
}

}  // namespace

std::optional<nlohmann::json> LiveQueue::WhyNotWaiting(const WhyView& w, JobId id,
                                                       Time now) const {
  nlohmann::json out = {{"id", id}};
  const auto live = w.jobs.find(id);
  if (live != w.jobs.end() && live->second.retry_at && *live->second.retry_at > now) {
    const bool begins = live->second.attempts == 0;
    out["explanation"] = {begins ? "it may not start before its begin time, " +
                                       FormatDateTime(*live->second.retry_at)
                                 : "its last run failed; it waits out the retry back-off until " +
                                       FormatDateTime(*live->second.retry_at)};
    out["expected_start_in_s"] = WholeSeconds(std::max<Time>(0, *live->second.retry_at - now));
    return out;
  }
  const Job* job = w.state.scheduler->Find(id);
  const bool waits_on_dependencies = live != w.jobs.end() && !live->second.dependency.empty();
  if (waits_on_dependencies || (job != nullptr && job->parked)) {
    if (waits_on_dependencies) {
      out["explanation"] = {"it waits on its dependencies: " + live->second.dependency};
      out["reason_code"] = "Dependency";
    } else {
      const int limit = job->spec.array_limit;
      out["explanation"] = {"its array " + std::to_string(job->spec.array_id) + " has " +
                            Counted(limit, "task") + " running or queued, its limit (%" +
                            std::to_string(limit) + "); it is queued when one of them ends"};
      out["reason_code"] = "ArrayLimit";
    }
    out["expected_start_in_s"] = nullptr;
    if (const std::optional<Time> at = HeldBackStart(w, id, now)) {
      out["expected_start_in_s"] = WholeSeconds(*at - now);
      out["expected_start_at"] = FormatDateTime(*at);
      out["explanation"].push_back(
          "by the estimates of the jobs it waits for, it may start in about " +
          FormatDuration(Seconds(WholeSeconds(*at - now))) +
          " at the earliest (if GPUs are free then)");
    } else {
      out["explanation"].push_back("no expected start: a job it waits for has no estimate or "
                                   "forecast yet");
    }
    return out;
  }
  if (job == nullptr || !job->IsActive() || live == w.jobs.end()) return std::nullopt;
  Lines lines = {std::string(job->state == JobState::kRunning ? "running" : "checkpointing") +
                 " since " + FormatDateTime(job->run_start) + "; it does not wait"};
  if (const ElasticSpec& e = job->spec.elastic; e.enabled()) {  // its width, and why it changed
    lines.push_back("elastic: runs on " + std::to_string(job->spec.gpus) + " of its " +
                    GpuRangeText(e) + " GPUs" +
                    (job->resize_reason.empty()
                         ? std::string()
                         : "; resized " + std::to_string(job->resizes) + " times, last: " +
                               job->resize_reason));
  }
  // A cluster manager may still hold it in its own queue.
  if (!live->second.placed_because.empty()) lines.push_back(live->second.placed_because);
  if (auto backend = live->second.exec->BackendStatus(id)) lines.push_back(*backend);
  out["explanation"] = lines;
  out["state"] = std::string(JobStateName(job->state));
  out["expected_start_in_s"] = nullptr;  // it has started
  return out;
}

std::optional<Time> LiveQueue::EventAt(const WhyView& w, JobId id, bool start, Time now) const {
  const Job* j = w.state.scheduler->Find(id);
  const auto live = w.jobs.find(id);
  if (j == nullptr) {
    if (live == w.jobs.end()) return now;  // it ended (or started and ended): it has happened
    if (start && live->second.retry_at && live->second.dependency.empty()) {
      return std::max(now, *live->second.retry_at);
    }
    return std::nullopt;  // it waits on its own dependencies: no spec here to go by
  }
  std::optional<Time> began;
  if (j->IsActive()) {
    if (start) return now;
    const Time end = j->EstimatedEnd();
    return end == kNever ? std::nullopt : std::optional<Time>(std::max(now, end));
  }
  if (j->parked) return std::nullopt;
  const WhyForecasts::Answer answer = forecasts_.Of(w.state, id, now);
  if (!answer.forecast.starts_after) return std::nullopt;
  began = now + std::max<Time>(0, *answer.forecast.starts_after - std::max<Time>(0, now - answer.made_at));
  if (start) return began;
  const std::optional<Time> run = j->spec.estimate ? j->spec.estimate : j->spec.time_limit;
  return run ? std::optional<Time>(*began + *run) : std::nullopt;
}

std::optional<Time> LiveQueue::HeldBackStart(const WhyView& w, JobId id, Time now) const {
  const auto live = w.jobs.find(id);
  if (live != w.jobs.end() && !live->second.dependency.empty()) {
    // Every clause (one of them with '?'), every job each names.
    std::optional<Time> at;
    for (const auto& [kind, jobs] : live->second.awaited) {
      std::optional<Time> clause = now;
      for (JobId dep : jobs) {
        const std::optional<Time> t = EventAt(w, dep, kind == DependencyKind::kAfter, now);
        clause = t && clause ? std::optional<Time>(std::max(*clause, *t)) : std::nullopt;
      }
      if (live->second.awaited_any) {
        if (clause) at = at ? std::min(*at, *clause) : *clause;
      } else {
        if (!clause) return std::nullopt;
        at = at ? std::max(*at, *clause) : *clause;
      }
    }
    return at;
  }
  const Job* job = w.state.scheduler->Find(id);
  if (job == nullptr || !job->parked) return std::nullopt;
  // A task held back by its array's %limit: the limit's slots free as the array's running
  // and queued tasks end; the parked tasks before it (lower ids) take them first.
  const std::optional<Time> run = job->spec.estimate ? job->spec.estimate : job->spec.time_limit;
  if (!run) return std::nullopt;
  std::vector<Time> slots;
  std::vector<JobId> parked_before;
  const JobId first = std::max<JobId>(job->spec.array_id, id - 10000);
  for (JobId t = first; t < id + 10000; ++t) {
    const Job* task = w.state.scheduler->Find(t);
    if (task == nullptr || task->spec.array_id != job->spec.array_id) continue;
    if (task->parked) {
      if (t < id) parked_before.push_back(t);
    } else if (task->IsActive()) {
      const Time end = task->EstimatedEnd();
      if (end == kNever) return std::nullopt;
      slots.push_back(std::max(now, end));
    } else {
      slots.push_back(now + (task->spec.estimate ? *task->spec.estimate : *run));
    }
  }
  if (slots.empty()) return now;
  std::priority_queue<Time, std::vector<Time>, std::greater<Time>> free_at(slots.begin(),
                                                                         slots.end());
  for (size_t i = 0; i < parked_before.size(); ++i) {
    const Time t = free_at.top();
    free_at.pop();
    free_at.push(t + *run);
  }
  return free_at.top();
}

std::shared_ptr<const WhyView> LiveQueue::CurrentWhyView() const {
  views_.AskedWhy();
  std::shared_ptr<const ReadView> view = View();
  if (view->why && view->why->state.generation == view->generation) return view->why;
  // No why was asked for a while, so the last publications made no copy: one is made now.
  MutexLock lock(mu_);
  Publish();
  return View()->why;
}

WhyView LiveQueue::BuildWhyView(uint64_t generation) const {
  WhyView w;
  w.state = {generation, std::shared_ptr<const Scheduler>(scheduler_->Clone())};
  for (const auto& [id, job] : jobs_) {
    const Job* j = scheduler_->Find(id);
    if ((j == nullptr || !j->IsActive()) && !job.retry_at && !job.dependency_wait) continue;
    WhyView::JobInfo& info = w.jobs[id];
    info = {job.owner, job.retry_at, job.placed_because,
            job.exec ? job.exec : &executor_, job.attempts,
            job.dependency_wait ? deps_.Describe(id) : std::string()};
    if (job.dependency_wait) info.awaited = deps_.Awaited(id, &info.awaited_any);
  }
  w.node_down = node_down_;
  return w;
}

std::optional<Time> LiveQueue::ExpectedStart(JobId id, Time now) const {
  const std::shared_ptr<const WhyView> w = CurrentWhyView();
  if (auto live = w->jobs.find(id); live != w->jobs.end() && live->second.retry_at) {
    return std::max(now, *live->second.retry_at);
  }
  const Job* job = w->state.scheduler->Find(id);
  if (auto live = w->jobs.find(id);
      (live != w->jobs.end() && !live->second.dependency.empty()) || (job && job->parked)) {
    return HeldBackStart(*w, id, now);
  }
  if (job == nullptr || job->state != JobState::kPending) return std::nullopt;
  const WhyForecasts::Answer answer = forecasts_.Of(w->state, id, now);
  if (!answer.forecast.starts_after) return std::nullopt;
  return now + std::max<Time>(0, *answer.forecast.starts_after - std::max<Time>(0, now - answer.made_at));
}

std::optional<nlohmann::json> LiveQueue::WhyJson(JobId id, Time now) const {
  const std::shared_ptr<const WhyView> w = CurrentWhyView();
  if (auto answered = WhyNotWaiting(*w, id, now)) return answered;
  const Scheduler& sched = *w->state.scheduler;
  const Job* job = sched.Find(id);
  if (job == nullptr || job->IsActive()) return std::nullopt;  // the store explains
  const JobSpec& spec = job->spec;
  Lines lines = {Needs(spec)};
  const std::vector<char> may_use = sched.UsableNodes(spec);  // the cycle's rule
  WhyCapacity(sched, spec, may_use, w->node_down, lines);
  WhyAhead(sched, id, lines);
  auto owner_of = [&](JobId j) {
    auto it = w->jobs.find(j);
    return it == w->jobs.end() ? std::string("?") : it->second.owner;
  };
  const bool preemptible_in_the_way = WhyHolders(sched, spec, may_use, owner_of, now, lines);
  WhyReservation(sched, id, may_use, now, lines);
  if (const int stops = sched.StopsAwaited(id); stops > 0) {
    lines.push_back(Counted(stops, "job") + (stops == 1 ? " is" : " are") +
                    " checkpointing to make room for it");
  }
  for (std::string& line : sched.CardOutlook(id, now)) lines.push_back(std::move(line));
  for (std::string& line : sched.RegionOutlook(id, now)) lines.push_back(std::move(line));
  if (preemptible_in_the_way && sched.policy().Has("preempt")) {
    lines.push_back("it may preempt preemptible jobs of a lower urgency");
  }
  nlohmann::json out = {{"id", id}, {"explanation", lines}};
  WhyForecast(forecasts_.Of(w->state, id, now), id, now, out);
  return out;
}

}  // namespace squeeze
