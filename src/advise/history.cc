#include "advise/history.h"

#include "core/job.h"

namespace squeeze {

History HistoryFromTrace(const Trace& trace) {
  History h;
  h.source = trace.source;
  h.jobs.reserve(trace.jobs.size());
  for (const TraceJob& t : trace.jobs) {
    HistoryJob j;
    j.id = t.spec.id;
    j.team = t.spec.team;
    j.pool = t.spec.pool;
    j.gpus = std::max(1, t.spec.gpus);
    j.submit = t.spec.submit_time;
    j.start = t.spec.submit_time;
    j.end = j.start + t.duration;
    j.checkpointable = t.spec.checkpointable;
    j.checkpoint_interval = t.spec.checkpoint_interval;
    j.checkpoint_cost = t.spec.checkpoint_cost;
    j.checkpoint_stall = t.spec.checkpoint_stall;
    j.restart_overhead = RestartOverhead(t.spec);
    j.fault_tolerant = t.spec.fault_tolerant;
    if (!j.team.empty()) h.has_teams = true;
    h.jobs.push_back(std::move(j));
  }
  return h;
}

}  // namespace squeeze
