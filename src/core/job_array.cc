#include "core/job_array.h"

#include <algorithm>
#include <charconv>

namespace squeeze {
namespace {

std::optional<int64_t> Number(std::string_view text) {
  int64_t n = 0;
  auto [end, e] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || e != std::errc() || end != text.data() + text.size() || n < 0) {
    return std::nullopt;
  }
  return n;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

}  // namespace

Result<ArraySpec> ParseArraySpec(std::string_view text) {
  const std::string quoted = "array '" + std::string(text) + "'";
  ArraySpec spec;
  std::string_view list = text;
  if (const size_t pct = text.find('%'); pct != std::string_view::npos) {
    list = text.substr(0, pct);
    auto limit = Number(text.substr(pct + 1));
    if (!limit || *limit < 1 || *limit > static_cast<int64_t>(kMaxArrayTasks)) {
      return Status::Error(quoted + ": the limit after '%' must be a whole number from 1 to " +
                           std::to_string(kMaxArrayTasks));
    }
    spec.limit = static_cast<int>(*limit);
  }
  if (list.empty()) return Status::Error(quoted + ": no task indices (as 0-9, 1,3,5 or 0-99:2)");
  for (std::string_view part : Split(list, ',')) {
    std::string_view range = part;
    int64_t step = 1;
    if (const size_t colon = part.find(':'); colon != std::string_view::npos) {
      range = part.substr(0, colon);
      auto s = Number(part.substr(colon + 1));
      if (!s || *s < 1) {
        return Status::Error(quoted + ": step in '" + std::string(part) +
                             "' must be a whole number of 1 or more");
      }
      step = *s;
    }
    std::optional<int64_t> lo, hi;
    if (const size_t dash = range.find('-'); dash != std::string_view::npos) {
      lo = Number(range.substr(0, dash));
      hi = Number(range.substr(dash + 1));
    } else {
      lo = hi = Number(range);
      if (step != 1 && lo) {
        return Status::Error(quoted + ": a step needs a range ('" + std::string(part) + "')");
      }
    }
    if (!lo || !hi) {
      return Status::Error(quoted + ": '" + std::string(part) +
                           "' is not a task index or range (as 7, 0-9 or 0-99:2)");
    }
    if (*lo > *hi) {
      return Status::Error(quoted + ": range '" + std::string(range) + "' goes backwards");
    }
    if (*hi > kMaxArrayTaskIndex) {
      return Status::Error(quoted + ": task index " + std::to_string(*hi) + " is above " +
                           std::to_string(kMaxArrayTaskIndex));
    }
    for (int64_t t = *lo; t <= *hi; t += step) {
      spec.tasks.push_back(static_cast<int>(t));
      if (spec.tasks.size() > kMaxArrayTasks) {
        return Status::Error(quoted + ": more than " + std::to_string(kMaxArrayTasks) +
                             " tasks");
      }
    }
  }
  std::sort(spec.tasks.begin(), spec.tasks.end());
  spec.tasks.erase(std::unique(spec.tasks.begin(), spec.tasks.end()), spec.tasks.end());
  return spec;
}

std::string FormatTaskRanges(const std::vector<int>& tasks) {
  std::string out;
  for (size_t i = 0; i < tasks.size();) {
    size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(tasks[i]);
    if (j > i) out += "-" + std::to_string(tasks[j]);
    i = j + 1;
  }
  return out;
}

Result<JobRef> ParseJobRef(std::string_view text) {
  JobRef ref;
  std::string_view id = text;
  if (const size_t us = text.find('_'); us != std::string_view::npos) {
    id = text.substr(0, us);
    auto task = Number(text.substr(us + 1));
    if (!task || *task > kMaxArrayTaskIndex) {
      return Status::Error("'" + std::string(text) + "' is not a job id or ID_TASK (as 12_4)");
    }
    ref.task = static_cast<int>(*task);
  }
  auto n = Number(id);
  if (!n || *n < 1) {
    return Status::Error("'" + std::string(text) + "' is not a job id or ID_TASK (as 12_4)");
  }
  ref.id = *n;
  return ref;
}

std::string FormatJobRef(const JobRef& ref) {
  return std::to_string(ref.id) + (ref.task ? "_" + std::to_string(*ref.task) : "");
}

Result<DependencyText> ParseDependency(std::string_view text) {
  const std::string quoted = "dependency '" + std::string(text) + "'";
  DependencyText out;
  const bool all = text.find(',') != std::string_view::npos;
  out.any = text.find('?') != std::string_view::npos;
  if (all && out.any) {
    return Status::Error(quoted + ": ',' (all must hold) and '?' (any one) cannot be mixed");
  }
  if (text.empty()) return Status::Error(quoted + ": empty (as afterok:12 or singleton)");
  for (std::string_view clause_text : Split(text, out.any ? '?' : ',')) {
    std::vector<std::string_view> parts = Split(clause_text, ':');
    const std::string_view type = parts[0];
    DependencyText::Clause clause;
    if (type == "after") clause.kind = DependencyKind::kAfter;
    else if (type == "afterany") clause.kind = DependencyKind::kAfterAny;
    else if (type == "afterok") clause.kind = DependencyKind::kAfterOk;
    else if (type == "afternotok") clause.kind = DependencyKind::kAfterNotOk;
    else if (type == "singleton") clause.kind = DependencyKind::kSingleton;
    else if (type == "aftercorr" || type == "afterburstbuffer" || type == "expand") {
      return Status::Error(quoted + ": '" + std::string(type) +
                           "' is not supported (after, afterany, afterok, afternotok, "
                           "singleton are)");
    } else {
      return Status::Error(quoted + ": '" + std::string(clause_text) +
                           "' is not TYPE:ID[:ID...] with TYPE one of after, afterany, "
                           "afterok, afternotok, or singleton");
    }
    if (clause.kind == DependencyKind::kSingleton) {
      if (parts.size() > 1) return Status::Error(quoted + ": singleton names no job");
      out.clauses.push_back(std::move(clause));
      continue;
    }
    if (parts.size() < 2) {
      return Status::Error(quoted + ": '" + std::string(type) + "' names no job (as " +
                           std::string(type) + ":12)");
    }
    for (size_t i = 1; i < parts.size(); ++i) {
      if (parts[i].find('+') != std::string_view::npos) {
        return Status::Error(quoted + ": a delay ('" + std::string(parts[i]) +
                             "') is not supported");
      }
      auto ref = ParseJobRef(parts[i]);
      if (!ref.ok()) return Status::Error(quoted + ": " + ref.status().message());
      clause.jobs.push_back(*ref);
    }
    out.clauses.push_back(std::move(clause));
  }
  return out;
}

}  // namespace squeeze
