#include "sim/readers/trace_links.h"

#include <algorithm>
#include <unordered_map>

#include "core/job_array.h"

namespace squeeze {

Status ExpandTraceLinks(std::vector<TraceJob>& jobs) {
  bool any = false;
  JobId largest = 0;
  for (const TraceJob& j : jobs) {
    any = any || !j.array.empty() || !j.dependency.empty();
    largest = std::max(largest, j.spec.id);
  }
  if (!any) return Status::Ok();
  // Arrays: each row's tasks, after it.
  std::unordered_map<JobId, std::vector<std::pair<int, JobId>>> tasks_of;  // (index, id)
  std::vector<TraceJob> out;
  out.reserve(jobs.size());
  JobId next = largest + 1;
  for (TraceJob& j : jobs) {
    if (j.array.empty()) {
      out.push_back(std::move(j));
      continue;
    }
    auto spec = ParseArraySpec(j.array);
    if (!spec.ok()) return spec.status().WithContext("job " + std::to_string(j.spec.id));
    const JobId array = j.spec.id;
    auto& tasks = tasks_of[array];
    for (size_t i = 0; i < spec->tasks.size(); ++i) {
      TraceJob task = j;
      task.array.clear();
      task.spec.id = i == 0 ? array : next++;
      task.spec.array_id = array;
      task.spec.array_task = spec->tasks[i];
      task.spec.array_limit = spec->limit;
      tasks.emplace_back(spec->tasks[i], task.spec.id);
      out.push_back(std::move(task));
    }
  }
  jobs = std::move(out);
  // Dependencies: by ids, on jobs submitted no later (file order among equal times).
  std::unordered_map<JobId, size_t> position;
  for (size_t i = 0; i < jobs.size(); ++i) position[jobs[i].spec.id] = i;
  for (size_t i = 0; i < jobs.size(); ++i) {
    TraceJob& j = jobs[i];
    if (j.dependency.empty()) continue;
    const std::string who = "job " + std::to_string(j.spec.id) + ": dependency '" +
                            j.dependency + "'";
    auto parsed = ParseDependency(j.dependency);
    if (!parsed.ok()) return parsed.status().WithContext("job " + std::to_string(j.spec.id));
    j.spec.dependency_any = parsed->any;
    for (const DependencyText::Clause& clause : parsed->clauses) {
      Dependency d;
      d.kind = clause.kind;
      for (const JobRef& ref : clause.jobs) {
        auto array = tasks_of.find(ref.id);
        std::vector<JobId> named;
        if (ref.task) {
          if (array == tasks_of.end()) {
            return Status::Error(who + ": job " + std::to_string(ref.id) + " is not an array");
          }
          for (const auto& [index, id] : array->second) {
            if (index == *ref.task) named.push_back(id);
          }
          if (named.empty()) {
            return Status::Error(who + ": array " + std::to_string(ref.id) + " has no task " +
                                 std::to_string(*ref.task));
          }
        } else if (array != tasks_of.end()) {
          for (const auto& [index, id] : array->second) named.push_back(id);
        } else {
          named.push_back(ref.id);
        }
        for (JobId id : named) {
          auto at = position.find(id);
          if (at == position.end()) {
            return Status::Error(who + ": there is no job " + std::to_string(id) +
                                 " in the trace");
          }
          const TraceJob& target = jobs[at->second];
          if (target.spec.submit_time > j.spec.submit_time ||
              (target.spec.submit_time == j.spec.submit_time && at->second > i)) {
            return Status::Error(who + ": job " + std::to_string(id) +
                                 " is submitted after it");
          }
          d.jobs.push_back(id);
        }
      }
      j.spec.dependencies.push_back(std::move(d));
    }
    j.dependency.clear();
  }
  return Status::Ok();
}

}  // namespace squeeze
