// The shrink and grow actions: elastic jobs (core/elastic.h) wait for their minimum width, and
// the scheduler gives them more where GPUs would stay idle and takes it back for waiting work.
//   shrink  for each waiting job, in queue order, that does not fit: running elastic jobs that
//           rank after it, the last ranked first, are shrunk at a checkpoint (none below its
//           minimum) until it fits; it starts on the room once they have stopped (Pipeline).
//   grow    the idle GPUs left at the end of the cycle go, one step of width at a time, to the
//           elastic job whose throughput the step raises by the largest fraction (ties: the
//           job ranked first): first to the jobs this cycle started (free: they have not
//           launched), then to running jobs, each of which is resized only when the time it is
//           expected to save is at least policy.elastic_grow_gain times what the resize costs.
// A job is resized at most policy.elastic_resizes_per_hour times in any hour, and not before
// its minimum run time; one that does not checkpoint is never resized (a moldable job, as
// Slurm's --nodes=2-4: sized once, at its start).
#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/actions/actions.h"

namespace squeeze {
namespace {

// How many waiting jobs of one scope a cycle tries to shrink jobs for, and how many jobs one
// try shrinks at most.
constexpr int kMaxShrinkTries = 8;
constexpr size_t kMaxShrunkPerTry = 16;

// Whether running elastic job `v` may be resized now.
bool Resizable(const CycleContext& c, const Job& v) {
  if (v.state != JobState::kRunning || !v.spec.elastic.enabled() || v.awaiting_launch) return false;
  if (!v.spec.checkpointable) return false;  // moldable: sized at its start only
  if (c.s.moves.count(v.spec.id) || c.withdrawn.count(v.spec.id)) return false;
  if (c.now < v.min_runtime_until || v.must_leave_by != kNever) return false;
  const int limit = c.s.policy.elastic_resizes_per_hour;
  const auto recent = std::upper_bound(v.resize_times.begin(), v.resize_times.end(), c.now - kHour);
  return limit > 0 && v.resize_times.end() - recent < limit;
}

// The running elastic jobs, in the order they came on their nodes (each once).
std::vector<JobId> RunningElastic(const CycleContext& c) {
  std::vector<JobId> out;
  std::unordered_set<JobId> seen;
  seen.reserve(c.s.jobs.size());
  for (const auto& jobs : c.s.node_jobs) {
    for (JobId id : jobs) {
      const Job& v = c.job(id);
      if (v.spec.elastic.enabled() && seen.insert(id).second) out.push_back(id);
    }
  }
  return out;
}

// Whole free GPUs in `groups`.
int FreeGpus(const CycleContext& c, const std::vector<int>& groups) {
  int free = 0;
  for (int g : groups) free += c.s.cluster.group(g).whole_free;
  return free;
}

bool OnGroups(const CycleContext& c, const Job& v, const std::set<int>& groups) {
  for (const NodeShare& share : v.placement.shares) {
    if (groups.count(c.s.cluster.node(share.node).group)) return true;
  }
  return false;
}

std::string Resized(const char* verb, int from, int to) {
  return std::string(verb) + " from " + std::to_string(from) + " to " + std::to_string(to) +
         " GPUs";
}

// Shrinks jobs among `candidates` (the last ranked first) until waiting job `job` fits, and
// pipelines it there; returns the jobs shrunk (none: nothing changed).
std::vector<JobId> ShrinkFor(CycleContext& c, const Job& job,
                             const std::vector<std::pair<Rank, JobId>>& candidates) {
  const std::vector<int>& groups = c.GroupsFor(job.spec);
  const auto caps = c.CapsExcept(job.spec.id, /*reservations=*/false);
  if (PlaceAtHome(c, job, &caps)) return {};  // it fits already (held back by the order)
  int need = std::max(1, job.spec.gpus - FreeGpus(c, groups));
  Statement st(c);
  std::vector<JobId> shrunk;
  for (const auto& [rank, id] : candidates) {
    if (shrunk.size() >= kMaxShrunkPerTry) break;
    const Job& v = c.job(id);
    const int width = v.spec.gpus;
    const int target = WidestWithin(v.spec.elastic, std::max(v.spec.elastic.min, width - need));
    if (target <= 0 || target >= width) continue;
    const std::string why = Resized("shrunk", width, target) + " for job " +
                            std::to_string(job.spec.id);
    if (!st.Resize(id, target, why, job.spec.id, nullptr)) continue;
    shrunk.push_back(id);
    need -= width - target;
    if (need > 0) continue;
    if (auto placed = PlaceAtHome(c, job, &caps)) {
      st.Pipeline(job.spec.id, std::move(placed->placement), placed->borrowed);
      st.Commit();
      return shrunk;
    }
    need = 1;  // the room is there but not in one piece it can use: one more GPU at a time
  }
  st.Discard();
  return {};
}


// The work a running job is expected still to do (at its reference width): by its estimate,
// else what the order learned, else as much as it has done (a job that ran long is expected to
// run long).
Time RemainingWork(const CycleContext& c, const Job& v) {
  const Time done = v.work_done + v.RunProgress(c.now);
  if (v.spec.estimate) return std::max<Time>(0, *v.spec.estimate - done);
  if (auto learned = c.s.job_order->PredictRemaining(v, c.now)) return *learned;
  return done;
}

// Whether growing running job `v` to `width` saves it at least policy.elastic_grow_gain times
// what the resize costs (its checkpoint and its restart).
bool WorthGrowing(const CycleContext& c, const Job& v, int width) {
  const ElasticSpec& e = v.spec.elastic;
  const double now_speed = ElasticSpeed(e, v.measured_rates, v.spec.gpus);
  const double new_speed = ElasticSpeed(e, v.measured_rates, width);
  if (!(new_speed > now_speed)) return false;
  const double left = ToSeconds(RemainingWork(c, v));
  const double saved = left / now_speed - left / new_speed;
  JobSpec wide = v.spec;
  wide.gpus = width;
  const Time restart = e.resize_cost ? *e.resize_cost : RestartOverhead(wide);
  const double cost = ToSeconds(v.spec.checkpoint_cost + restart);
  return saved >= c.s.policy.elastic_grow_gain * cost && saved > 0;
}

struct GrowCandidate {
  JobId id = 0;
  int width = 0;
  int target = 0;
  int pool = 0;
  Rank rank;
};

// What one more step of width adds to a job's throughput, as a fraction of it, per GPU.
double StepGain(const Job& v, int from, int to) {
  const ElasticSpec& e = v.spec.elastic;
  const double a = ElasticSpeed(e, v.measured_rates, from);
  const double b = ElasticSpeed(e, v.measured_rates, to);
  return a > 0 ? (b / a - 1) / (to - from) : 0;
}

// Whole GPUs free in each pool, no more on a node than the cycle's caps leave.
std::vector<int> FreeByPool(const CycleContext& c) {
  std::vector<int> free(static_cast<size_t>(c.s.cluster.PoolCount()), 0);
  for (const NodeState& n : c.s.cluster.nodes()) {
    int f = n.whole_free;
    if (auto cap = c.caps.find(n.index); cap != c.caps.end()) f = std::min(f, cap->second);
    free[static_cast<size_t>(n.pool)] += std::max(0, f);
  }
  return free;
}

// What the next step of width would add for candidate `g` (StepGain), or nothing when it is at
// its maximum.
double NextGain(const CycleContext& c, const GrowCandidate& g) {
  const Job& v = c.job(g.id);
  const int next = std::min(v.spec.elastic.max, g.target + v.spec.elastic.step);
  return StepGain(v, g.target, next);
}

// Hands the free GPUs of each pool to the candidates a step at a time, the largest gain first:
// each candidate's target width. Each candidate's gain is computed once per step it takes.
void WaterFill(const CycleContext& c, std::vector<GrowCandidate>& cands, std::vector<int>& free) {
  if (std::all_of(free.begin(), free.end(), [](int f) { return f <= 0; })) return;
  std::vector<double> gain(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) gain[i] = NextGain(c, cands[i]);
  auto worse = [&](size_t a, size_t b) {  // for the heap: true when a comes after b
    if (gain[a] != gain[b]) return gain[a] < gain[b];
    return cands[b].rank.Before(cands[a].rank);
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(worse)> heap(worse);
  for (size_t i = 0; i < cands.size(); ++i) heap.push(i);
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    GrowCandidate& g = cands[i];
    const ElasticSpec& e = c.job(g.id).spec.elastic;
    const int next = std::min(e.max, g.target + e.step);
    int& left = free[static_cast<size_t>(g.pool)];
    if (next <= g.target || left < next - g.target) continue;
    left -= next - g.target;
    g.target = next;
    if (g.target < e.max) {
      gain[i] = NextGain(c, g);
      heap.push(i);
    }
  }
}

int PoolOf(const CycleContext& c, const Job& v) {
  return c.s.cluster.node(v.placement.shares.front().node).pool;
}

// Applies each candidate's target, narrower ones where it does not fit in one piece (at most
// four tries); `apply` makes the change in a statement and says whether it could.
template <typename Apply>
void GrowTo(CycleContext& c, const std::vector<GrowCandidate>& cands, const Apply& apply) {
  for (const GrowCandidate& g : cands) {
    const ElasticSpec& e = c.job(g.id).spec.elastic;
    int tries = 0;
    for (int w = g.target; w > g.width && tries < 4; w -= e.step, ++tries) {
      Statement st(c);
      if (apply(st, g, w)) {
        st.Commit();
        break;
      }
      st.Discard();
    }
  }
}

}  // namespace

void RunShrink(CycleContext& c) {
  if (c.s.elastic_jobs == 0) return;
  // The running jobs that may be shrunk, with their ranks, the last ranked first (a rank is a
  // total order); shrinking one (which leaves the list) changes no other's rank.
  std::vector<std::pair<Rank, JobId>> shrinkable;
  for (JobId id : RunningElastic(c)) {
    const Job& v = c.job(id);
    if (v.spec.gpus > v.spec.elastic.min && Resizable(c, v)) {
      shrinkable.emplace_back(c.RankOfRunning(v), id);
    }
  }
  if (shrinkable.empty()) return;
  std::sort(shrinkable.begin(), shrinkable.end(),
            [](const auto& a, const auto& b) { return b.first.Before(a.first); });
  std::map<int, int> tries;  // by scope
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        if (shrinkable.empty()) return PendingQueue::Visit::kStop;
        const Job& job = c.job(p.entry.id);
        if (job.spec.gpus <= 0 || c.s.awaiting_stops.count(job.spec.id)) {
          return PendingQueue::Visit::kNext;
        }
        const Rank rank = c.RankOfPending(p);
        // Those ranked after it: a prefix of the list.
        const auto after = std::find_if(shrinkable.begin(), shrinkable.end(),
                                        [&](const auto& r) { return !rank.Before(r.first); });
        if (after == shrinkable.begin()) return PendingQueue::Visit::kNext;
        std::set<int> groups(c.GroupsFor(job.spec).begin(), c.GroupsFor(job.spec).end());
        std::vector<std::pair<Rank, JobId>> candidates;
        for (auto it = shrinkable.begin(); it != after; ++it) {
          if (OnGroups(c, c.job(it->second), groups)) candidates.push_back(*it);
        }
        if (candidates.empty()) return PendingQueue::Visit::kNext;
        for (JobId id : ShrinkFor(c, job, candidates)) {
          shrinkable.erase(std::find_if(shrinkable.begin(), shrinkable.end(),
                                        [&](const auto& r) { return r.second == id; }));
        }
        return ++tries[p.scope] >= kMaxShrinkTries ? PendingQueue::Visit::kSkipScope
                                                   : PendingQueue::Visit::kNext;
      },
      nullptr);
}

void RunGrow(CycleContext& c) {
  if (c.s.elastic_jobs == 0) return;
  std::vector<int> free = FreeByPool(c);
  // The jobs this cycle started: wider at no cost.
  std::vector<GrowCandidate> started;
  std::unordered_set<JobId> seen;
  for (const Decision& d : c.decisions()) {
    if (d.kind != Decision::Kind::kStart || !seen.insert(d.job).second) continue;
    const Job& v = c.job(d.job);
    if (!v.spec.elastic.enabled() || v.state != JobState::kRunning || v.run_start != c.now ||
        v.spec.gpus >= v.spec.elastic.max) {
      continue;
    }
    started.push_back({d.job, v.spec.gpus, v.spec.gpus, PoolOf(c, v), c.RankOfRunning(v)});
  }
  WaterFill(c, started, free);
  GrowTo(c, started, [&](Statement& st, const GrowCandidate& g, int w) {
    return st.Widen(g.id, w, &c.caps);
  });
  // Running jobs: a resize each, where it pays.
  std::vector<GrowCandidate> running;
  for (JobId id : RunningElastic(c)) {
    const Job& v = c.job(id);
    if (seen.count(id) || v.spec.gpus >= v.spec.elastic.max || !Resizable(c, v)) continue;
    running.push_back({id, v.spec.gpus, v.spec.gpus, PoolOf(c, v), c.RankOfRunning(v)});
  }
  if (running.empty()) return;
  free = FreeByPool(c);
  WaterFill(c, running, free);
  running.erase(std::remove_if(running.begin(), running.end(),
                               [&](const GrowCandidate& g) {
                                 return g.target <= g.width || !WorthGrowing(c, c.job(g.id), g.target);
                               }),
                running.end());
  GrowTo(c, running, [&](Statement& st, const GrowCandidate& g, int w) {
    return st.Resize(g.id, w, Resized("grown", g.width, w) + " into idle GPUs", std::nullopt,
                     &c.caps);
  });
}

}  // namespace squeeze
