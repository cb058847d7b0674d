#include "cli/client_format.h"

#include <optional>

#include "core/job_array.h"
#include "core/safe_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace squeeze {
namespace {

// A value as one printed line: a string as it is, anything else as JSON, its control
// characters escaped (core/safe_text.h): what a user chose never reaches a terminal raw.
std::string Text(const nlohmann::json& v) {
  return EscapeControls(v.is_string() ? v.get_ref<const std::string&>() : v.dump());
}

std::string Str(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "-";
  const auto& v = j[key];
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ",") + Text(e);
    return out.empty() ? "-" : out;
  }
  return Text(v);
}

const nlohmann::json& ListOf(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (j.is_array()) return j;
  if (j.is_object() && j.contains(key) && j[key].is_array()) return j[key];
  return kEmpty;
}

std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      out += c + 1 == cells.size() ? cells[c] : fmt::format("{:<{}}  ", cells[c], width[c]);
    }
    return out + "\n";
  };
  std::string out = line(header);
  for (const auto& r : rows) out += line(r);
  return out;
}

}  // namespace

std::string ShortDuration(const nlohmann::json& seconds) {
  if (!seconds.is_number()) return "-";
  const auto s = static_cast<int64_t>(seconds.get<double>());
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{}s", s / 60, s % 60);
  if (s < 86400) return fmt::format("{}h{}m", s / 3600, (s % 3600) / 60);
  return fmt::format("{}d{}h", s / 86400, (s % 86400) / 3600);
}

std::string FormatQueue(const nlohmann::json& jobs) {
  std::vector<std::vector<std::string>> rows;
  // The waiting tasks of an array that follow each other with the same reason share a row,
  // as squeue shows them: 12_[4-99].
  struct Group {
    size_t row = 0;
    int64_t array = 0;
    std::string reason;
    std::vector<int> tasks;
  };
  std::optional<Group> group;
  auto close_group = [&] {
    if (!group) return;
    const std::string ranges = FormatTaskRanges(group->tasks);
    rows[group->row][0] = group->tasks.size() == 1
                              ? fmt::format("{}_{}", group->array, ranges)
                              : fmt::format("{}_[{}]", group->array, ranges);
    group.reset();
  };
  for (const auto& j : ListOf(jobs, "jobs")) {
    std::string gpus = Str(j, "gpus");
    if (j.contains("gpu_milli") && j["gpu_milli"].is_number() && j["gpu_milli"].get<int>() < 1000) {
      gpus = fmt::format("{}x{}m", gpus, j["gpu_milli"].get<int>());
    }
    // A waiting job's reason as Slurm's codes say it; else what the store says.
    const bool coded = j.contains("reason_code") && j["reason_code"].is_string();
    const std::string reason = coded ? Str(j, "reason_code") : Str(j, "reason");
    const bool task = j.contains("array_id") && j["array_id"].is_number_integer() &&
                      j.contains("array_task") && j["array_task"].is_number_integer();
    std::string id = Str(j, "id");
    if (task) {
      const int64_t array = j["array_id"].get<int64_t>();
      const int index = j["array_task"].get<int>();
      if (Str(j, "state") == "pending") {
        if (group && group->array == array && group->reason == reason) {
          group->tasks.push_back(index);
          continue;
        }
        close_group();
        group = Group{rows.size(), array, reason, {index}};
      } else {
        close_group();
        id = fmt::format("{}_{}", array, index);
      }
    } else {
      close_group();
    }
    rows.push_back({id, Str(j, "name"), Str(j, "owner"), Str(j, "state"), gpus,
                    ShortDuration(j.value("wait_s", nlohmann::json())), reason});
  }
  close_group();
  if (rows.empty()) return "no jobs\n";
  return Table({"ID", "NAME", "OWNER", "STATE", "GPUS", "WAIT", "REASON"}, rows);
}

std::string FormatQueueStart(const nlohmann::json& jobs) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& j : ListOf(jobs, "jobs")) {
    const bool task = j.contains("array_id") && j["array_id"].is_number_integer();
    const std::string id =
        task ? fmt::format("{}_{}", j["array_id"].get<int64_t>(), j.value("array_task", 0))
             : Str(j, "id");
    const bool known = j.contains("expected_start_at") && j["expected_start_at"].is_string();
    const bool coded = j.contains("reason_code") && j["reason_code"].is_string();
    rows.push_back({id, Str(j, "name"), Str(j, "owner"), Str(j, "gpus"),
                    known ? Str(j, "expected_start_at") : "N/A",
                    coded ? Str(j, "reason_code") : Str(j, "reason")});
  }
  if (rows.empty()) return "no waiting jobs\n";
  return Table({"ID", "NAME", "OWNER", "GPUS", "START_TIME", "REASON"}, rows);
}

std::string FormatHistory(const nlohmann::json& jobs) {
  std::vector<std::vector<std::string>> rows;
  double gpu_hours = 0;
  for (const auto& j : ListOf(jobs, "jobs")) {
    const double h = j.value("gpu_hours", 0.0);
    gpu_hours += h;
    rows.push_back({Str(j, "id"), Str(j, "name"), Str(j, "owner"), Str(j, "state"),
                    ShortDuration(j.value("wait_s", nlohmann::json())),
                    ShortDuration(j.value("run_s", nlohmann::json())), fmt::format("{:.2f}", h),
                    Str(j, "exit_code"), Str(j, "ended_at")});
  }
  if (rows.empty()) return "no ended jobs\n";
  return Table({"ID", "NAME", "OWNER", "STATE", "WAIT", "RUN", "GPU-H", "EXIT", "ENDED"}, rows) +
         fmt::format("{} jobs, {:.2f} GPU-hours\n", rows.size(), gpu_hours);
}

std::string FormatJob(const nlohmann::json& job) {
  std::string out;
  for (const auto& [k, v] : job.items()) {
    if (k == "history" && v.is_array()) continue;
    out += fmt::format("{}: {}\n", EscapeControls(k), Text(v));
  }
  if (job.is_object() && job.contains("history") && job["history"].is_array()) {
    out += "history:\n";
    for (const auto& e : job["history"]) {
      out += fmt::format("  {}  {:<10} {}\n", Str(e, "at"), Str(e, "kind"), Str(e, "text"));
    }
  }
  return out;
}

std::string FormatWhy(const nlohmann::json& why) {
  std::string out;
  for (const auto& line : ListOf(why, "explanation")) {
    out += Text(line) + "\n";
  }
  // Only a waiting job has an expected start (a running or ended one says its state; a held one
  // says it waits for its release).
  const bool waiting = why.is_object() && (!why.contains("state") || why["state"] == "pending") &&
                       !why.value("held", false);
  if (waiting && why.contains("expected_start_in_s")) {
    out += why["expected_start_in_s"].is_number()
               ? "expected to start in about " + ShortDuration(why["expected_start_in_s"]) +
                     " (by the running and waiting jobs' estimates)\n"
               : "no expected start: some job in the way has no estimate\n";
  }
  return out.empty() ? EscapeControls(why.dump(2), "\n") + "\n" : out;
}

namespace {

// What the caller may ask for (GET /v1/nodes "limits"."yours"), in one line; "" when absent.
std::string YourLimits(const nlohmann::json& nodes) {
  if (!nodes.is_object() || !nodes.contains("limits") || !nodes["limits"].contains("yours")) {
    return "";
  }
  const nlohmann::json& y = nodes["limits"]["yours"];
  return "your limits: urgency up to " + Str(y, "max_urgency") + "; " + Str(y, "waiting_jobs") +
         " of " + Str(y, "max_waiting_jobs_per_user") + " waiting jobs (team " + Str(y, "team") +
         ": " + Str(y, "team_waiting_jobs") + " of " + Str(y, "max_waiting_jobs_per_team") +
         "); " + Str(y, "max_tasks_per_submission") + " tasks per submission\n";
}

}  // namespace

std::string FormatNodes(const nlohmann::json& nodes) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : ListOf(nodes, "nodes")) {
    std::string model = Str(n, "gpu_model");
    if (n.value("virtual", false)) model += " (virtual)";
    rows.push_back({Str(n, "name"), Str(n, "pool"), model, Str(n, "gpus"), Str(n, "free_gpus"),
                    Str(n, "jobs")});
  }
  if (rows.empty()) return "no nodes\n";
  std::string out = Table({"NODE", "POOL", "MODEL", "GPUS", "FREE", "JOBS"}, rows);
  if (nodes.is_object() && nodes.contains("jobs_run_as_text")) {
    out += "jobs: " + Str(nodes, "jobs_run_as_text") + "\n";
  }
  out += YourLimits(nodes);
  for (const auto& n : ListOf(nodes, "nodes")) {
    if (n.contains("unavailable") && n["unavailable"].is_string()) {
      out += Str(n, "name") + " takes no new jobs: " + Str(n, "unavailable") + "\n";
    }
    if (n.contains("gpus_held_by_others")) {
      out += Str(n, "name") + ": " + Str(n, "gpus_held_by_others") +
             " GPUs held by jobs squeeze did not submit (not free)\n";
    }
    std::string loads;
    for (const auto& g : ListOf(n, "gpu_detail")) {
      if (!g.contains("inference_load")) continue;
      const nlohmann::json& load = g["inference_load"];
      char text[32] = "no report";
      if (load.is_number()) std::snprintf(text, sizeof text, "%.0f%%", load.get<double>() * 100);
      loads += (loads.empty() ? "" : ", ") + std::string("GPU ") + Str(g, "gpu") + " " + text +
               (g.value("takes_training", false) ? "" : " (closed to training)");
    }
    if (!loads.empty()) out += Str(n, "name") + " inference load: " + loads + "\n";
  }
  return out;
}

std::string FormatHeldIdle(const nlohmann::json& held_idle) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& j : ListOf(held_idle, "jobs")) {
    std::string gpus;
    for (const auto& g : ListOf(j, "gpus")) {
      if (!gpus.empty()) gpus += ",";
      gpus += Str(g, "node");
      gpus += ":";
      gpus += Str(g, "gpu");
    }
    char mean[32] = "-";
    if (j.contains("mean_utilization") && j["mean_utilization"].is_number()) {
      std::snprintf(mean, sizeof mean, "%.0f%%", j["mean_utilization"].get<double>() * 100);
    }
    rows.push_back({Str(j, "id"), Str(j, "name"), Str(j, "user"), Str(j, "team"), gpus, mean,
                    Str(j, "idle_since")});
  }
  std::string rule;
  if (held_idle.is_object() && held_idle.contains("threshold") &&
      held_idle["threshold"].is_number()) {
    char text[96];
    std::snprintf(text, sizeof text, "every GPU below %.0f%% for %s",
                  held_idle["threshold"].get<double>() * 100,
                  ShortDuration(held_idle.value("window_s", nlohmann::json())).c_str());
    rule = text;
  }
  if (rows.empty()) {
    return "no job is held but idle" + (rule.empty() ? "" : " (" + rule + ")") + "\n";
  }
  std::string out = Table({"ID", "NAME", "USER", "TEAM", "GPUS", "MEAN", "IDLE SINCE"}, rows);
  if (!rule.empty()) out += "held but idle: " + rule + "\n";
  return out;
}

}  // namespace squeeze
