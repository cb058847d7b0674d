#include "cli/client_format.h"

#include <optional>

#include "cli/job_show_format.h"
#include "cli/job_table_format.h"
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
  if (ListOf(jobs, "jobs").empty()) return "no jobs\n";
  return FormatJobTable(jobs, *JobColumns(kQueueColumns), true);
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
                    known ? ShownTime(j["expected_start_at"].get<std::string>()) : "N/A",
                    coded ? Str(j, "reason_code") : Str(j, "reason")});
  }
  if (rows.empty()) return "no waiting jobs\n";
  return Table({"ID", "NAME", "OWNER", "GPUS", "START_TIME", "REASON"}, rows);
}

std::string FormatHistory(const nlohmann::json& jobs) {
  const nlohmann::json& list = ListOf(jobs, "jobs");
  if (list.empty()) return "no ended jobs\n";
  double gpu_hours = 0;
  nlohmann::json by_width = nlohmann::json::object();  // the elastic jobs', summed
  for (const auto& j : list) {
    gpu_hours += j.value("gpu_hours", 0.0);
    if (!j.is_object() || !j.contains("gpu_hours_by_width") ||
        !j["gpu_hours_by_width"].is_object()) {
      continue;
    }
    for (const auto& [width, hours] : j["gpu_hours_by_width"].items()) {
      if (hours.is_number()) by_width[width] = by_width.value(width, 0.0) + hours.get<double>();
    }
  }
  return FormatJobTable(jobs, *JobColumns(kHistoryColumns), false) +
         fmt::format("{} job{}, {:.2f} GPU-hours\n", list.size(), list.size() == 1 ? "" : "s",
                     gpu_hours) +
         (by_width.empty() ? ""
                           : "elastic jobs' GPU-hours by width: " + GpuHoursByWidth(by_width) + "\n");
}

std::string FormatJob(const nlohmann::json& job) { return FormatJobShown(job); }

std::string FormatWhy(const nlohmann::json& why) {
  std::string out;
  for (const auto& line : ListOf(why, "explanation")) {
    out += (line.is_string() ? ShownTimesIn(line.get<std::string>()) : Text(line)) + "\n";
  }
  // Only a waiting job has an expected start (a running or ended one says its state; a held one
  // says it waits for its release).
  // A job held back by a dependency or its array's limit: the daemon said when, or why not.
  const bool waiting = why.is_object() && (!why.contains("state") || why["state"] == "pending") &&
                       !why.value("held", false) && !why.contains("reason_code");
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

// A node's domains as /v1/nodes gives them ({"block": "blk-0", "rack": "r0"}): "block=blk-0,
// rack=r0" (levels by name), or "" for a node in none.
std::string NodeDomains(const nlohmann::json& node) {
  if (!node.is_object() || !node.contains("topology") || !node["topology"].is_object()) return "";
  std::string out;
  for (const auto& [level, domain] : node["topology"].items()) {
    out += (out.empty() ? "" : ",") + EscapeControls(level) + "=" +
           EscapeControls(domain.is_string() ? domain.get<std::string>() : domain.dump());
  }
  return out;
}

}  // namespace

std::string FormatNodes(const nlohmann::json& nodes) {
  std::vector<std::vector<std::string>> rows;
  bool topology = false;  // a TOPOLOGY column only where some node is in a block, rack, ...
  for (const auto& n : ListOf(nodes, "nodes")) topology |= !NodeDomains(n).empty();
  for (const auto& n : ListOf(nodes, "nodes")) {
    std::string model = Str(n, "gpu_model");
    if (n.value("virtual", false)) model += " (virtual)";
    rows.push_back({Str(n, "name"), Str(n, "pool"), model, Str(n, "gpus"), Str(n, "free_gpus"),
                    Str(n, "jobs")});
    if (topology) rows.back().push_back(NodeDomains(n).empty() ? "-" : NodeDomains(n));
  }
  if (rows.empty()) return "no nodes\n";
  std::vector<std::string> header = {"NODE", "POOL", "MODEL", "GPUS", "FREE", "JOBS"};
  if (topology) header.push_back("TOPOLOGY");
  std::string out = Table(header, rows);
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
