#include "cli/store_history.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/elastic.h"
#include "core/job.h"
#include "store/job_store.h"

namespace squeeze {
namespace {

// An elastic job's runs had several widths: its duration is the work of all of them at the
// width it ran at longest (the widest of equals), by its scaling; that width is the one the
// duration is for (a trace's duration_gpus).
void ElasticWork(const StoredJob& s, TraceJob* t) {
  int reference = 0;
  Time longest = -1;
  for (const auto& [width, time] : s.ran_by_width) {
    if (time >= longest) reference = width, longest = time;
  }
  const Scaling& scaling = s.request.spec.elastic.scaling;
  double work = 0;
  for (const auto& [width, time] : s.ran_by_width) {
    work += ToSeconds(time) * Throughput(scaling, width) / Throughput(scaling, reference);
  }
  t->spec.elastic.reference = reference;
  t->duration = std::max(kSecond, Seconds(std::llround(work)));
}

}  // namespace

Result<StoreHistory> ReadStoreHistory(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = path;
  if (dir.filename() == "squeeze.db") dir = dir.parent_path();
  if (!fs::exists(dir / "squeeze.db", ec)) {
    return Status::Error("--store '" + path + "': no squeeze.db there (give a data directory of "
                         "squeeze serve, or its squeeze.db)");
  }
  auto store = JobStore::Open(dir.string());
  if (!store.ok()) return store.status().WithContext("--store '" + path + "'");
  ListFilter filter;
  filter.states = {JobState::kDone, JobState::kFailed, JobState::kCancelled, JobState::kTimeout};
  filter.limit = 0;
  auto jobs = (*store)->List(filter);
  if (!jobs.ok()) return jobs.status().WithContext("--store '" + path + "'");
  StoreHistory out;
  out.history.source = path;
  out.history.has_start_times = true;
  out.trace.source = path;
  out.trace.format = "store";
  Time first = kNever;
  for (const StoredJob& s : *jobs) first = std::min(first, s.submitted_at);
  for (const StoredJob& s : *jobs) {
    if (!s.started_at || !s.ended_at || *s.ended_at < *s.started_at) continue;
    const JobSpec& spec = s.request.spec;
    HistoryJob j;
    j.id = s.id;
    j.team = spec.team;
    j.pool = spec.pool;
    j.gpus = std::max(1, spec.gpus);
    j.submit = s.submitted_at;
    j.start = *s.started_at;
    // Whole seconds: a run that ended in the second it started is taken to last one.
    j.end = std::max(*s.ended_at, *s.started_at + kSecond);
    j.checkpointable = spec.checkpointable;
    j.checkpoint_interval = spec.checkpoint_interval;
    j.checkpoint_cost = spec.checkpoint_cost;
    j.checkpoint_stall = spec.checkpoint_stall;
    j.restart_overhead = RestartOverhead(spec);
    if (!j.team.empty()) out.history.has_teams = true;
    out.history.jobs.push_back(j);
    TraceJob t;
    t.spec = spec;
    t.spec.id = s.id;
    t.spec.submit_time = s.submitted_at - first;
    t.spec.deadline.reset();
    t.duration = j.end - j.start;
    if (spec.elastic.enabled() && !s.ran_by_width.empty()) ElasticWork(s, &t);
    out.trace.jobs.push_back(std::move(t));
  }
  if (out.history.jobs.empty()) {
    return Status::Error("--store '" + path + "': no finished job that ran (done, failed or "
                         "cancelled, with a start and an end)");
  }
  std::stable_sort(out.trace.jobs.begin(), out.trace.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) {
                     return a.spec.submit_time < b.spec.submit_time;
                   });
  // Dependencies name only the jobs the trace holds (a job that never ran is not in it); the
  // rest of an array's limit is kept per task by its spec.
  std::set<JobId> held;
  for (const TraceJob& t : out.trace.jobs) held.insert(t.spec.id);
  for (TraceJob& t : out.trace.jobs) {
    std::vector<Dependency> kept;
    for (Dependency& d : t.spec.dependencies) {
      std::erase_if(d.jobs, [&](JobId id) { return !held.count(id); });
      if (!d.jobs.empty() || d.kind == DependencyKind::kSingleton) kept.push_back(std::move(d));
    }
    t.spec.dependencies = std::move(kept);
  }
  return out;
}

}  // namespace squeeze
