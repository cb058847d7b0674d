#include "cli/job_table_format.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "cli/client_format.h"
#include "cli/job_show_format.h"
#include "core/job_array.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

using Json = nlohmann::json;

bool Has(const Json& j, const char* key) { return j.is_object() && j.contains(key) && !j[key].is_null(); }

std::string Cell(const Json& j, const char* key) {
  if (!Has(j, key)) return "-";
  const Json& v = j[key];
  if (v.is_string()) return v.get_ref<const std::string&>().empty() ? "-" : EscapeControls(v.get<std::string>());
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ",") + (e.is_string() ? EscapeControls(e.get<std::string>()) : e.dump());
    return out.empty() ? "-" : out;
  }
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return EscapeControls(v.dump());
}

std::string TimeCell(const Json& j, const char* key) {
  return Has(j, key) && j[key].is_string() ? ShownTime(j[key].get<std::string>()) : "-";
}

bool IsTask(const Json& j) { return Has(j, "array_id") && Has(j, "array_task"); }

std::string IdCell(const Json& j) {
  if (IsTask(j)) return fmt::format("{}_{}", j["array_id"].dump(), j["array_task"].dump());
  return Cell(j, "id");
}

// An elastic job's width: "2-8" while it waits, "4/2-8" while it runs on 4.
std::string ElasticGpus(const Json& j) {
  std::string range = Cell(j, "gpus_range");
  const std::string state = Has(j, "state") && j["state"].is_string() ? j["state"].get<std::string>() : "";
  const bool runs = state == "running" || state == "checkpointing";
  if (runs && Has(j, "run_gpus") && j["run_gpus"].is_array()) {
    return fmt::format("{}/{}", j["run_gpus"].size(), range);
  }
  return range;
}

std::string Gpus(const Json& j) {
  if (Has(j, "gpus_range") && j["gpus_range"].is_string()) return ElasticGpus(j);
  std::string gpus = Cell(j, "gpus");
  if (Has(j, "gpu_milli") && j["gpu_milli"].is_number() && j["gpu_milli"].get<int>() < 1000) {
    gpus = fmt::format("{}x{}m", gpus, j["gpu_milli"].get<int>());
  }
  return gpus;
}

std::string Reason(const Json& j) {
  if (Has(j, "reason_code") && j["reason_code"].is_string()) return Cell(j, "reason_code");
  return Has(j, "reason") && j["reason"].is_string() && !j["reason"].get<std::string>().empty()
             ? ShownTimesIn(j["reason"].get<std::string>())
             : Cell(j, "reason");
}

std::string ShortState(const Json& j) {
  static const std::map<std::string, std::string> kCodes = {
      {"pending", "PD"}, {"running", "R"},   {"checkpointing", "CG"}, {"done", "CD"},
      {"failed", "F"},   {"cancelled", "CA"}, {"timeout", "TO"},      {"cancelling", "CA"}};
  const std::string state = Has(j, "state") && j["state"].is_string() ? j["state"].get<std::string>() : "";
  auto it = kCodes.find(state);
  return it == kCodes.end() ? Cell(j, "state") : it->second;
}

// squeue's NODELIST(REASON): where a running job runs, else why it waits, in parentheses.
std::string NodesOrReason(const Json& j) {
  const std::string state = Has(j, "state") && j["state"].is_string() ? j["state"].get<std::string>() : "";
  if (state == "pending") return "(" + Reason(j) + ")";
  return Cell(j, "run_nodes");
}

struct Known {
  const char* name;
  const char* header;
  std::function<std::string(const Json&)> cell;
};

const std::vector<Known>& KnownColumns() {
  static const std::vector<Known> kColumns = {
      {"id", "ID", IdCell},
      {"name", "NAME", [](const Json& j) { return Cell(j, "name"); }},
      {"owner", "OWNER", [](const Json& j) { return Cell(j, "owner"); }},
      {"team", "TEAM", [](const Json& j) { return Cell(j, "team"); }},
      {"state", "STATE", [](const Json& j) { return Cell(j, "state"); }},
      {"st", "ST", ShortState},
      {"gpus", "GPUS", Gpus},
      {"wait", "WAIT", [](const Json& j) { return ShortDuration(j.value("wait_s", Json())); }},
      {"time", "TIME", [](const Json& j) { return ShortDuration(j.value("run_s", Json())); }},
      {"time_limit", "TIME_LIMIT",
       [](const Json& j) { return Has(j, "time_limit_s") ? ShortDuration(j["time_limit_s"]) : "UNLIMITED"; }},
      {"estimate", "ESTIMATE", [](const Json& j) { return ShortDuration(j.value("estimate_s", Json())); }},
      {"nodelist", "NODELIST", [](const Json& j) { return Cell(j, "run_nodes"); }},
      {"nodes", "NODES",
       [](const Json& j) { return Has(j, "run_nodes") ? std::to_string(j["run_nodes"].size()) : "-"; }},
      {"reason", "REASON", Reason},
      {"nodelist_reason", "NODELIST(REASON)", NodesOrReason},
      {"pool", "POOL", [](const Json& j) { return Cell(j, "pool"); }},
      {"urgency", "URGENCY", [](const Json& j) { return Cell(j, "urgency"); }},
      {"submit", "SUBMIT", [](const Json& j) { return TimeCell(j, "submitted_at"); }},
      {"start", "START", [](const Json& j) { return TimeCell(j, "started_at"); }},
      {"end", "END", [](const Json& j) { return TimeCell(j, "ended_at"); }},
      {"exit", "EXIT", [](const Json& j) { return Cell(j, "exit_code"); }},
      {"gpu_hours", "GPU-H",
       [](const Json& j) { return fmt::format("{:.2f}", j.value("gpu_hours", 0.0)); }},
      {"attempts", "ATTEMPTS", [](const Json& j) { return Cell(j, "attempts"); }},
      {"cpus", "CPUS", [](const Json& j) { return Cell(j, "cpus"); }},
  };
  return kColumns;
}

// squeue's %-codes and sacct's field names, lower-cased, as squeeze's names.
std::string Alias(std::string word) {
  static const std::map<std::string, std::string> kAliases = {
      // squeue's codes, case as squeue has it (%t and %T, %r and %R differ)
      {"%i", "id"},        {"%a", "team"},      {"%j", "name"},       {"%u", "owner"},
      {"%t", "st"},        {"%T", "state"},     {"%M", "time"},       {"%l", "time_limit"},
      {"%N", "nodelist"},  {"%r", "reason"},    {"%R", "nodelist_reason"}, {"%D", "nodes"},
      {"%P", "pool"},      {"%q", "urgency"},   {"%V", "submit"},     {"%S", "start"},
      {"%e", "end"},       {"%b", "gpus"},      {"%C", "cpus"},
      {"jobid", "id"},     {"jobname", "name"}, {"user", "owner"},    {"account", "team"},
      {"partition", "pool"}, {"elapsed", "time"}, {"timelimit", "time_limit"},
      {"exitcode", "exit"}, {"qos", "urgency"}, {"submittime", "submit"}, {"starttime", "start"},
      {"endtime", "end"},  {"ncpus", "cpus"},   {"nnodes", "nodes"},  {"restarts", "attempts"},
      {"gpu-h", "gpu_hours"}, {"gpuhours", "gpu_hours"}};
  // A code's width and justification (%.10i, %-20j) change nothing here: columns fit.
  if (word.size() > 2 && word[0] == '%') {
    const size_t letter = word.find_first_not_of("%.-0123456789");
    if (letter != std::string::npos) word = "%" + word.substr(letter);
  }
  if (word[0] == '%') {
    auto it = kAliases.find(word);
    return it == kAliases.end() ? word : it->second;
  }
  std::string lower = word;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto it = kAliases.find(lower); it != kAliases.end()) return it->second;
  return lower;
}

}  // namespace

Result<std::vector<JobColumn>> JobColumns(std::string_view spec) {
  std::vector<JobColumn> out;
  std::string word;
  auto take = [&]() -> Status {
    if (word.empty()) return Status::Ok();
    const std::string name = Alias(word);
    for (const Known& k : KnownColumns()) {
      if (name == k.name) {
        out.push_back({k.header, k.cell});
        word.clear();
        return Status::Ok();
      }
    }
    std::string known;
    for (const Known& k : KnownColumns()) known += (known.empty() ? "" : ",") + std::string(k.name);
    return Status::Error("--format: '" + EscapeControls(word) + "' is no column; squeeze's are " +
                         known + " (squeue's %i %j %u %a %T %t %M %l %D %N %R %r %P %q %V %S %e %b %C "
                         "and sacct's JobID, JobName, User, State, Elapsed, Timelimit, NodeList, "
                         "Start, End, Submit, ExitCode work too)");
  };
  for (char c : spec) {
    if (c == ',' || c == ' ' || (c == '%' && !word.empty())) {
      if (Status s = take(); !s.ok()) return s;
      if (c == '%') word = "%";
      continue;
    }
    word.push_back(c);
  }
  if (Status s = take(); !s.ok()) return s;
  if (out.empty()) return Status::Error("--format: no column named");
  return out;
}

Result<std::string> StateNames(std::string_view codes) {
  static const std::map<std::string, std::string> kNames = {
      {"pd", "pending"},        {"pending", "pending"},     {"r", "running"},
      {"running", "running"},   {"cg", "checkpointing"},    {"checkpointing", "checkpointing"},
      {"cd", "done"},           {"completed", "done"},      {"done", "done"},
      {"f", "failed"},          {"failed", "failed"},       {"ca", "cancelled"},
      {"cancelled", "cancelled"}, {"to", "timeout"},        {"timeout", "timeout"}};
  std::string out;
  size_t start = 0;
  while (start <= codes.size()) {
    const size_t comma = std::min(codes.find(',', start), codes.size());
    std::string word(codes.substr(start, comma - start));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    start = comma + 1;
    if (word.empty()) continue;
    auto it = kNames.find(word);
    if (it == kNames.end()) {
      return Status::Error("--state: '" + EscapeControls(word) +
                           "' is no state; give pending (PD), running (R), checkpointing (CG), "
                           "done (CD), failed (F), cancelled (CA) or timeout (TO)");
    }
    out += (out.empty() ? "" : ",") + it->second;
  }
  return out;
}

std::string FormatJobTable(const Json& jobs, const std::vector<JobColumn>& columns,
                           bool group_tasks) {
  const Json& list = jobs.is_array() ? jobs : jobs.value("jobs", Json::array());
  std::vector<std::vector<std::string>> rows;
  // Waiting tasks of one array, one after another with the same reason, as squeue shows them.
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
    const std::string id = group->tasks.size() == 1 ? fmt::format("{}_{}", group->array, ranges)
                                                    : fmt::format("{}_[{}]", group->array, ranges);
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].header == "ID") rows[group->row][c] = id;
    }
    group.reset();
  };
  for (const Json& j : list) {
    const bool waiting_task = group_tasks && IsTask(j) && j.value("state", "") == "pending";
    if (waiting_task) {
      const int64_t array = j["array_id"].get<int64_t>();
      if (group && group->array == array && group->reason == Reason(j)) {
        group->tasks.push_back(j["array_task"].get<int>());
        continue;
      }
      close_group();
      group = Group{rows.size(), array, Reason(j), {j["array_task"].get<int>()}};
    } else {
      close_group();
    }
    std::vector<std::string> row;
    for (const JobColumn& c : columns) row.push_back(c.cell(j));
    rows.push_back(std::move(row));
  }
  close_group();
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].header.size();
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      out += c + 1 == cells.size() ? cells[c] : fmt::format("{:<{}}  ", cells[c], width[c]);
    }
    return out + "\n";
  };
  std::vector<std::string> header;
  for (const JobColumn& c : columns) header.push_back(c.header);
  std::string out = line(header);
  for (const auto& r : rows) out += line(r);
  return out;
}

}  // namespace squeeze
