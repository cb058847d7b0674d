// The client commands over several jobs, or that follow one: queue (squeue's filters),
// history (sacct's), cancel (several ids, as scancel takes them), hold, release, requeue and
// update (scontrol's), logs (the last lines, or followed as they grow).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <optional>
#include <set>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/client_format.h"
#include "cli/client_run.h"
#include "cli/commands.h"
#include "cli/job_show_format.h"
#include "cli/job_table_format.h"
#include "cli/sbatch_options.h"
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

// A time for -S/-E, as sacct takes them: now, now-7days, now+1hour, YYYY-MM-DD[THH:MM[:SS]]
// or HH:MM[:SS] (today), in the local time zone; as seconds since the epoch.
Result<int64_t> WhenSeconds(const std::string& flag, const std::string& text) {
  const Time now = Seconds(static_cast<int64_t>(std::time(nullptr)));
  const bool before = text.rfind("now-", 0) == 0;
  Result<Time> in = SecondsUntilBegin(before ? "now+" + text.substr(4) : text, now);
  if (!in.ok()) return Status::Error(flag + ": " + in.status().message());
  return WholeSeconds(now + (before ? -*in : *in));
}

// -j/--jobs, -S and -E: which of the listed jobs are shown.
struct JobPicks {
  std::string ids;  // "12,13_4": a job, an array's task, or every task of an array
  std::string since, until;

  Status Apply(nlohmann::json& listing) const {
    std::set<std::string> wanted;
    for (size_t start = 0; start <= ids.size();) {
      const size_t comma = std::min(ids.find(',', start), ids.size());
      if (comma > start) wanted.insert(ids.substr(start, comma - start));
      start = comma + 1;
    }
    std::optional<int64_t> from, to;
    if (!since.empty()) {
      Result<int64_t> t = WhenSeconds("-S/--starttime", since);
      if (!t.ok()) return t.status();
      from = *t;
    }
    if (!until.empty()) {
      Result<int64_t> t = WhenSeconds("-E/--endtime", until);
      if (!t.ok()) return t.status();
      to = *t;
    }
    nlohmann::json kept = nlohmann::json::array();
    for (auto& j : listing["jobs"]) {
      const bool task = j.contains("array_id") && j["array_id"].is_number_integer();
      const bool picked = wanted.empty() || wanted.count(j["id"].dump()) ||
                          (task && (wanted.count(j["array_id"].dump()) ||
                                    wanted.count(j["array_id"].dump() + "_" +
                                                 j.value("array_task", nlohmann::json()).dump())));
      const std::optional<int64_t> ended =
          j.contains("ended_at") && j["ended_at"].is_string()
              ? ApiTimeSeconds(j["ended_at"].get<std::string>())
              : std::nullopt;
      const bool in_window = (!from || (ended && *ended >= *from)) && (!to || (ended && *ended <= *to));
      if (picked && in_window) kept.push_back(std::move(j));
    }
    listing["jobs"] = std::move(kept);
    return Status::Ok();
  }
};

// The states --state names, once --format's columns and the states are known good; else
// the error, printed.
Result<std::string> CheckedListing(const char* command, const std::string& format,
                                   const std::string& states) {
  Result<std::string> named = StateNames(states);
  Status columns = format.empty() ? Status::Ok() : JobColumns(format).status();
  const Status& bad = !columns.ok() ? columns : named.status();
  if (bad.ok()) return named;
  std::cerr << "squeeze " << command << ": " << bad.message() << "\n";
  return bad;
}

// The table of a listing: --format's columns, else `fallback` (the command's own).
std::function<std::string(const nlohmann::json&)> TableOf(
    const std::string& format, std::string (*fallback)(const nlohmann::json&), bool group) {
  if (format.empty()) return fallback;
  return [format, group](const nlohmann::json& jobs) {
    const nlohmann::json& list = jobs.value("jobs", nlohmann::json::array());
    if (list.empty()) return std::string("no jobs\n");
    return FormatJobTable(jobs, *JobColumns(format), group);
  };
}

void RegisterQueue(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "queue", "List jobs like squeue: id, name, owner, state, GPUs, wait, run time, time "
               "limit, nodes or reason");
  auto f = std::make_shared<ClientFlags>();
  auto state = std::make_shared<std::string>();
  auto all = std::make_shared<bool>(false);
  auto filter = std::make_shared<JobFilter>();
  auto picks = std::make_shared<JobPicks>();
  auto format = std::make_shared<std::string>();
  sub->add_option("-t,--states,--state", *state,
                  "Only jobs in these states, comma-separated: pending (PD), running (R), "
                  "checkpointing (CG), done (CD), failed (F), cancelled (CA), timeout (TO)");
  sub->add_flag("--all", *all,
                "Also ended jobs (by default only pending, running and checkpointing)");
  auto start = std::make_shared<bool>(false);
  sub->add_flag("--start", *start,
                "Waiting jobs with their expected start (squeue --start), from the same forecast "
                "as squeeze why");
  sub->add_option("-j,--jobs", picks->ids, "Only these jobs, comma-separated (12, 12_4, an array's id: all its tasks)");
  sub->add_option("-o,--format", *format,
                  "The columns, comma-separated: id,name,owner,team,state,st,gpus,wait,time,"
                  "time_limit,nodelist,nodes,reason,nodelist_reason,pool,urgency,submit,start,end,"
                  "exit,gpu_hours,attempts,cpus; or squeue's \"%i %j %T %M %l %R\"");
  filter->AddFlags(*sub);
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, state, all, filter, start, picks, format] {
    Result<std::string> named = CheckedListing("queue", *format, *state);
    if (!named.ok()) return 1;
    const std::string states = *start            ? "pending"
                               : !named->empty() ? *named
                                                 : (*all ? "" : "pending,running,checkpointing");
    return Run("queue", *f, [&](ApiClient& c) -> Result<nlohmann::json> {
      Result<nlohmann::json> jobs = ListJobs(c, states, *filter, *start);
      if (!jobs.ok()) return jobs;
      if (Status s = picks->Apply(*jobs); !s.ok()) return s;
      return jobs;
    }, *start ? FormatQueueStart : TableOf(*format, FormatQueue, true));
  });
}

// `squeeze history`: the ended jobs, as sacct lists them.
void RegisterHistory(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "history", "List ended jobs like sacct: start, end, wait, run time, GPU-hours, exit, nodes");
  auto f = std::make_shared<ClientFlags>();
  auto filter = std::make_shared<JobFilter>();
  auto picks = std::make_shared<JobPicks>();
  auto format = std::make_shared<std::string>();
  auto state = std::make_shared<std::string>("done,failed,cancelled,timeout");
  filter->AddFlags(*sub);
  sub->add_option("-s,--state", *state, "Only these end states, comma-separated (CD, F, CA, TO "
                                        "or their names)")
      ->capture_default_str();
  sub->add_option("-j,--jobs", picks->ids, "Only these jobs, comma-separated (12, 12_4, an array's id: all its tasks)");
  sub->add_option("-S,--starttime", picks->since,
                  "Only jobs that ended at or after this time: now-7days, 2026-12-01, "
                  "2026-12-01T08:00, 08:00 (local time)");
  sub->add_option("-E,--endtime", picks->until, "Only jobs that ended at or before this time");
  sub->add_option("-o,--format", *format,
                  "The columns, comma-separated: squeeze's names (as queue's) or sacct's "
                  "(JobID,JobName,User,State,Start,End,Elapsed,ExitCode,NodeList,...)");
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, filter, state, picks, format] {
    Result<std::string> named = CheckedListing("history", *format, *state);
    if (!named.ok()) return 1;
    return Run("history", *f, [&](ApiClient& c) -> Result<nlohmann::json> {
      Result<nlohmann::json> jobs = ListJobs(c, *named, *filter);
      if (!jobs.ok()) return jobs;
      if (Status s = picks->Apply(*jobs); !s.ok()) return s;
      return jobs;
    }, TableOf(*format, FormatHistory, false));
  });
}

// The answer of a cancel, hold, release or requeue: one job's, or an array's ({"id",
// "cancelled" or "tasks": how many it was done to, "jobs": each task's answer}).
std::string FormatCancelled(const nlohmann::json& j) {
  if (!j.contains("jobs")) {
    if (j.contains("owner") || !j.contains("state")) return FormatJob(j);
    // {"id", "state"}: what it is now ("job 12: cancelling").
    return "job " + EscapeControls(j.value("id", nlohmann::json()).dump()) + ": " +
           EscapeControls(j["state"].is_string() ? j["state"].get<std::string>() : j["state"].dump()) +
           "\n";
  }
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

// The card and topology flags of `squeeze update`: "none" puts the field back to its default.
struct UpdateCardFlags {
  std::string gpu_models, gpu_memory, gpu_speeds, topology;

  void Add(CLI::App& sub) {
    sub.add_option("--gpu-models", gpu_models,
                   "GPU models it may use, comma-separated (none: any), while it waits");
    sub.add_option("--gpu-memory", gpu_memory,
                   "The least memory of each card, e.g. 40GiB (none: any), while it waits");
    sub.add_option("--gpu-speeds", gpu_speeds,
                   "MODEL:SPEED pairs, e.g. V100:1,K80:0.24 (none), while it waits");
    sub.add_option("--topology", topology,
                   "preferred[:LEVEL], required:LEVEL or unconstrained (none: preferred), while "
                   "it waits");
  }
  void AddTo(nlohmann::json& body) const {
    auto value = [](const std::string& v) {
      return v == "none" ? nlohmann::json() : nlohmann::json(v);
    };
    if (!gpu_models.empty()) {
      nlohmann::json list = nlohmann::json::array();
      for (size_t at = 0; gpu_models != "none" && at <= gpu_models.size();) {
        const size_t comma = std::min(gpu_models.find(',', at), gpu_models.size());
        list.push_back(gpu_models.substr(at, comma - at));
        at = comma + 1;
      }
      body["gpu_models"] = gpu_models == "none" ? nlohmann::json() : list;
    }
    if (!gpu_memory.empty()) body["gpu_memory"] = value(gpu_memory);
    if (!gpu_speeds.empty()) body["gpu_speeds"] = value(gpu_speeds);
    if (!topology.empty()) body["topology"] = value(topology);
  }
};

void RegisterUpdate(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "update", "Change a job's urgency, GPUs, cards (models, memory, speeds) or topology "
                "request while it waits; a running job's time limit (only an admin may raise "
                "it)");
  auto f = std::make_shared<ClientFlags>();
  auto id = std::make_shared<std::string>();
  auto urgency = std::make_shared<std::string>();
  auto limit = std::make_shared<std::string>();
  auto gpus = std::make_shared<int>(-1);
  auto cards = std::make_shared<UpdateCardFlags>();
  sub->add_option("ID", *id, "The job's id: an array's id updates every task, ARRAY_TASK one")
      ->required()
      ->check(CheckJobRef);
  sub->add_option("--urgency", *urgency, "critical, high, normal or low");
  sub->add_option("-t,--time", *limit, "The time limit, as sbatch --time (1:00:00, 90, 2h, "
                                       "UNLIMITED)");
  sub->add_option("--gpus", *gpus, "GPUs, 0 to 1024")->check(CLI::Range(0, 1024));
  cards->Add(*sub);
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, id, urgency, limit, gpus, cards] {
    nlohmann::json body = nlohmann::json::object();
    if (!urgency->empty()) body["urgency"] = *urgency;
    if (!limit->empty()) body["time_limit"] = *limit;
    if (*gpus >= 0) body["gpus"] = *gpus;
    cards->AddTo(body);
    if (body.empty()) {
      std::cerr << "squeeze update: give --urgency, --time, --gpus, --gpu-models, --gpu-memory, "
                   "--gpu-speeds or --topology\n";
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
               "Queue jobs again: a running one stopped first (after a checkpoint when it makes "
               "one); an ended one (timed out, failed, cancelled) resumes from its checkpoint");
  RegisterUpdate(app, out);
  RegisterLogs(app, out);
}

}  // namespace squeeze
