// The client commands over several jobs, or that follow one: queue (squeue's filters),
// history (sacct's), cancel (several ids, as scancel takes them), hold, release, requeue and
// update (scontrol's), logs (the last lines, or followed as they grow).
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/client_format.h"
#include "cli/client_run.h"
#include "cli/commands.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

bool Ended(const nlohmann::json& job) {
  const std::string state = job.value("state", std::string());
  return state != "pending" && state != "running" && state != "checkpointing";
}

// The last `lines` lines of `text` (all of it when it has fewer).
std::string LastLines(const std::string& text, int lines) {
  size_t at = text.size();
  if (at > 0 && text.back() == '\n') --at;  // the final newline ends the last line
  for (int n = 0; n < lines && at != std::string::npos && at > 0; ++n) {
    at = text.rfind('\n', at - 1);
  }
  return at == std::string::npos || at == 0 ? text : text.substr(at + 1);
}

// Who a listing is about: -u USER, --me, --team TEAM.
struct JobFilter {
  std::string user;
  std::string team;
  bool me = false;
  void AddFlags(CLI::App& sub) {
    sub.add_option("-u,--user", user, "Only this user's jobs");
    sub.add_flag("--me", me, "Only your jobs (the user squeeze knows you as)");
    sub.add_option("--team", team, "Only this team's jobs");
  }
};

// Every page of the jobs in `states` (comma-separated; empty = all) that `filter` picks.
Result<nlohmann::json> ListJobs(ApiClient& c, const std::string& states, const JobFilter& filter,
                                bool start = false) {
  std::string path = "/v1/jobs?limit=1000";
  if (start) path += "&start=true";
  if (!states.empty()) path += "&state=" + states;
  std::string owner = filter.user;
  if (filter.me) {
    auto who = c.Get("/v1/whoami");
    if (!who.ok()) return who;
    owner = who->value("user", std::string());
  }
  if (!owner.empty()) path += "&owner=" + owner;
  if (!filter.team.empty()) path += "&team=" + filter.team;
  nlohmann::json jobs = nlohmann::json::array();
  std::string after;
  while (true) {  // the API returns at most 1000 jobs at a time
    auto page = c.Get(path + after);
    if (!page.ok()) return page;
    for (auto& j : (*page)["jobs"]) jobs.push_back(std::move(j));
    if (!page->contains("next_after")) break;
    after = "&after=" + (*page)["next_after"].dump();
  }
  return nlohmann::json{{"jobs", jobs}};
}

void RegisterQueue(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "queue", "List jobs like squeue: id, name, owner, state, GPUs, wait, reason");
  auto f = std::make_shared<ClientFlags>();
  auto state = std::make_shared<std::string>();
  auto all = std::make_shared<bool>(false);
  auto filter = std::make_shared<JobFilter>();
  sub->add_option("--state", *state,
                  "Only jobs in these states, comma-separated (pending, running, checkpointing, "
                  "done, failed, cancelled, timeout)");
  sub->add_flag("--all", *all,
                "Also ended jobs (by default only pending, running and checkpointing)");
  auto start = std::make_shared<bool>(false);
  sub->add_flag("--start", *start,
                "Waiting jobs with their expected start (squeue --start), from the same forecast "
                "as squeeze why");
  filter->AddFlags(*sub);
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, state, all, filter, start] {
    const std::string states = *start            ? "pending"
                               : !state->empty() ? *state
                                                 : (*all ? "" : "pending,running,checkpointing");
    return Run("queue", *f, [&](ApiClient& c) { return ListJobs(c, states, *filter, *start); },
               *start ? FormatQueueStart : FormatQueue);
  });
}

// `squeeze history`: the ended jobs, as sacct lists them.
void RegisterHistory(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "history", "List ended jobs like sacct: wait, run time, GPU-hours, exit, end");
  auto f = std::make_shared<ClientFlags>();
  auto filter = std::make_shared<JobFilter>();
  auto state = std::make_shared<std::string>("done,failed,cancelled,timeout");
  filter->AddFlags(*sub);
  sub->add_option("--state", *state, "Only these end states, comma-separated")
      ->capture_default_str();
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, filter, state] {
    return Run("history", *f, [&](ApiClient& c) { return ListJobs(c, *state, *filter); },
               FormatHistory);
  });
}

// The answer of a cancel, hold, release or requeue: one job's, or an array's ({"id",
// "cancelled" or "tasks": how many it was done to, "jobs": each task's answer}).
std::string FormatCancelled(const nlohmann::json& j) {
  if (!j.contains("jobs")) return FormatJob(j);
  const nlohmann::json done = j.contains("cancelled") ? j["cancelled"] : j.value("tasks", nlohmann::json(0));
  std::string out = "array " + j["id"].dump() + ": " + done.dump() + " of " +
                    std::to_string(j["jobs"].size()) + " tasks" +
                    (j.contains("cancelled") ? " cancelled" : "") + "\n";
  int shown = 0;
  for (const auto& one : j["jobs"]) {
    if (!one.contains("error") || ++shown > 5) continue;
    out += "  job " + one["id"].dump() + ": " + EscapeControls(one.value("error", "")) + "\n";
  }
  return out;
}

void RegisterCancel(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "cancel", "Cancel jobs (yours, or any as an admin): one or several ids, as scancel takes");
  auto f = std::make_shared<ClientFlags>();
  auto ids = std::make_shared<std::vector<std::string>>();
  sub->add_option("ID", *ids,
                  "The jobs' ids: an array's id cancels all its tasks, ARRAY_TASK (12_4) one")
      ->required()
      ->check(CheckJobRef);
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, ids] {
    // Each id on its own: one that cannot be cancelled does not keep the others.
    int status = 0;
    for (const std::string& id : *ids) {
      const int one = Run(
          "cancel", *f,
          [&](ApiClient& c) { return c.Post(JobPath(id, "/cancel"), "", "application/json"); },
          FormatCancelled);
      status = std::max(status, one);
    }
    return status;
  });
}

// hold, release, requeue: scontrol's verbs, on one or several jobs.
void RegisterVerb(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out,
                  const std::string& verb, const std::string& help) {
  auto* sub = app.add_subcommand(verb, help);
  auto f = std::make_shared<ClientFlags>();
  auto ids = std::make_shared<std::vector<std::string>>();
  sub->add_option("ID", *ids, "The jobs' ids (an array's task as ARRAY_TASK, 12_4)")
      ->required()
      ->check(CheckJobRef);
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, ids, verb] {
    int status = 0;
    for (const std::string& id : *ids) {
      status = std::max(status, Run(verb, *f, [&](ApiClient& c) {
        return c.Post(JobPath(id, "/" + verb), "", "application/json");
      }, FormatCancelled));
    }
    return status;
  });
}

void RegisterUpdate(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "update", "Change a job's urgency, GPUs or time limit while it waits; a running job's "
                "time limit (only an admin may raise it)");
  auto f = std::make_shared<ClientFlags>();
  auto id = std::make_shared<std::string>();
  auto urgency = std::make_shared<std::string>();
  auto limit = std::make_shared<std::string>();
  auto gpus = std::make_shared<int>(-1);
  sub->add_option("ID", *id, "The job's id: an array's id updates every task, ARRAY_TASK one")
      ->required()
      ->check(CheckJobRef);
  sub->add_option("--urgency", *urgency, "critical, high, normal or low");
  sub->add_option("-t,--time", *limit, "The time limit, as sbatch --time (1:00:00, 90, 2h, "
                                       "UNLIMITED)");
  sub->add_option("--gpus", *gpus, "GPUs, 0 to 1024")->check(CLI::Range(0, 1024));
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, id, urgency, limit, gpus] {
    nlohmann::json body = nlohmann::json::object();
    if (!urgency->empty()) body["urgency"] = *urgency;
    if (!limit->empty()) body["time_limit"] = *limit;
    if (*gpus >= 0) body["gpus"] = *gpus;
    if (body.empty()) {
      std::cerr << "squeeze update: give --urgency, --time or --gpus\n";
      return 2;
    }
    return Run("update", *f, [&](ApiClient& c) {
      return c.Post(JobPath(*id, "/update"), body.dump(), "application/json");
    }, FormatCancelled);
  });
}

struct LogsFlags {
  std::string id;  // ID or ARRAY_TASK
  int attempt = 0;
  int tail = 64 * 1024;
  int lines = 0;
  bool follow = false;
};

// `logs -f`: prints what the log gains, and the next run's log when the job runs again, until
// the job has ended and nothing more is written.
Result<nlohmann::json> Follow(ApiClient& c, const LogsFlags& l) {
  int attempt = l.attempt;
  int64_t from = -1;  // first read: the end as `logs` would print it
  bool all_runs = false;  // the job's own output file (sbatch -o), which every run appends to
  while (true) {
    auto job = c.Get(JobPath(l.id));
    if (!job.ok()) return job;
    const int latest = job->value("attempts", 0);
    if (l.attempt == 0 && latest > attempt && attempt > 0) {
      if (!all_runs) {
        std::cout << "--- job " << l.id << ", run " << latest << " ---\n";
        from = 0;
      }
      attempt = latest;
    }
    if (attempt == 0) attempt = latest;
    if (attempt > 0) {
      std::string path = JobPath(l.id, "/log") + "?attempt=" + std::to_string(attempt) +
                         "&tail_bytes=" + std::to_string(from < 0 ? l.tail : 1 << 20);
      if (from >= 0) path += "&from_byte=" + std::to_string(from);
      auto log = c.Get(path);
      if (!log.ok()) return log;
      all_runs = log->value("all_runs", false);
      std::string text = log->value("text", std::string());
      if (from < 0 && l.lines > 0) text = LastLines(text, l.lines);
      std::cout << text << std::flush;
      const int64_t size = log->value("size", int64_t{0});
      // Where the next read starts, in the file's bytes (the text may differ from them: bytes
      // that are not UTF-8 come as U+FFFD); an older daemon's answer has no next_from_byte.
      const int64_t next =
          from < 0 ? size
                   : log->value("next_from_byte",
                                from + static_cast<int64_t>(log->value("text", "").size()));
      const bool more = from >= 0 && next > from && next < size;
      from = next;
      if (more) continue;  // a long stretch: read on at once
    }
    if (Ended(*job) && (l.attempt != 0 || latest == attempt)) return nlohmann::json::object();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

void RegisterLogs(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "logs", "Print the end of a job's log (its latest run, or --attempt N); -f follows it");
  auto f = std::make_shared<ClientFlags>();
  auto l = std::make_shared<LogsFlags>();
  sub->add_option("ID", l->id, "The job's id (an array's task as ARRAY_TASK, 12_4)")
      ->required()
      ->check(CheckJobRef);
  sub->add_option("--attempt", l->attempt, "Which run (1 = the first); default the latest")
      ->check(CLI::PositiveNumber);
  sub->add_option("-n,--lines", l->lines, "The last N lines (of the last --tail bytes)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--tail", l->tail, "At most this many bytes from the end")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  sub->add_flag("-f,--follow", l->follow,
                "Keep printing what the log gains (and the next run's log) until the job ends");
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, l] {
    if (l->follow) {
      return Run(
          "logs", *f, [&](ApiClient& c) { return Follow(c, *l); },
          [](const nlohmann::json&) { return std::string(); });
    }
    std::string path = JobPath(l->id, "/log") + "?tail_bytes=" + std::to_string(l->tail);
    if (l->attempt > 0) path += "&attempt=" + std::to_string(l->attempt);
    const int lines = l->lines;
    return Run(
        "logs", *f, [&](ApiClient& c) { return c.Get(path); },
        [lines](const nlohmann::json& j) {
          const std::string text = j.value("text", std::string());
          return lines > 0 ? LastLines(text, lines) : text;
        });
  });
}

}  // namespace

void RegisterJobCommands(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  RegisterQueue(app, out);
  RegisterHistory(app, out);
  RegisterCancel(app, out);
  RegisterVerb(app, out, "hold", "Keep waiting jobs from starting until `squeeze release`");
  RegisterVerb(app, out, "release", "Let held jobs be scheduled again");
  RegisterVerb(app, out, "requeue",
               "Stop running jobs (after a checkpoint when they make one) and queue them again");
  RegisterUpdate(app, out);
  RegisterLogs(app, out);
}

}  // namespace squeeze
