// The client subcommands of `squeeze` that talk to a running `squeeze serve`: submit, queue,
// show, cancel, why, logs, nodes, reclaim, node-return. Each takes --url and --token (else
// SQUEEZE_URL, SQUEEZE_TOKEN), or --socket (the daemon's Unix socket, no token), and --json.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/client_format.h"
#include "cli/commands.h"
#include "cli/submit_args.h"
#include "cli/submit_request.h"
#include "config/job_json_writer.h"
#include "core/duration.h"
#include "serve/api_client.h"

namespace squeeze {
namespace {

struct ClientFlags {
  ClientOptions connect;
  bool json = false;
};

void AddConnectionFlags(CLI::App& app, ClientFlags& f) {
  app.add_option("--url", f.connect.url,
                 "squeeze serve's address (default $SQUEEZE_URL, else its Unix socket when "
                 "there is one, else http://127.0.0.1:8642)");
  app.add_option("--socket", f.connect.socket,
                 "squeeze serve's Unix socket, where no token is needed (default "
                 "$SQUEEZE_SOCKET, else squeeze.sock in $SQUEEZE_DATA or ~/.squeeze, else "
                 "/var/lib/squeeze/squeeze.sock)");
  app.add_option("--token", f.connect.token,
                 "API token (default $SQUEEZE_TOKEN; none needed on the socket)");
  app.add_flag("--json", f.json, "Print the server's JSON as it is, for scripts");
}

// Connects, runs `call`, prints the JSON or `format` of it; 1 with the reason on failure.
int Run(const std::string& command, const ClientFlags& f,
        const std::function<Result<nlohmann::json>(ApiClient&)>& call,
        const std::function<std::string(const nlohmann::json&)>& format) {
  auto client = ApiClient::Connect(f.connect);
  if (!client.ok()) {
    std::cerr << "squeeze " << command << ": " << client.status().message() << "\n";
    return 1;
  }
  auto result = call(**client);
  if (!result.ok()) {
    std::cerr << "squeeze " << command << ": " << result.status().message() << "\n";
    return 1;
  }
  std::cout << (f.json ? result->dump(2) + "\n" : format(*result));
  return 0;
}

// `squeeze submit`: builds the job here, where the relative paths and the clock are the
// submitter's, and posts it as JSON.
int Submit(const ClientFlags& f, const SubmitArgs& args) {
  Result<JobRequest> job = Status::Error("unset");
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  if (ec) {
    job = Status::Error("cannot read the current directory: " + ec.message());
  } else if (Result<SubmitFlags> flags = args.flags(); !flags.ok()) {
    job = flags.status();
  } else {
    const Time now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    job = BuildSubmitRequest(args.file(), *flags, cwd, now);
  }
  if (!job.ok()) {
    std::cerr << "squeeze submit: " << job.status().message() << "\n";
    return 1;
  }
  const std::string body = JobRequestToJobJson(*job);
  return Run("submit", f,
             [&](ApiClient& c) { return c.Post("/v1/jobs", body, "application/json"); },
             [](const nlohmann::json& j) { return "submitted job " + j["id"].dump() + "\n"; });
}

std::string JobPath(int64_t id, const std::string& suffix = "") {
  return "/v1/jobs/" + std::to_string(id) + suffix;
}

// The commands about the cluster rather than one job: held-idle, nodes, pools, reclaim,
// node-return.
void RegisterClusterCommands(CLI::App& app,
                             std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  {
    auto* sub = app.add_subcommand(
        "held-idle", "Running jobs whose GPUs stayed nearly unused for long (from the daemon's GPU samples "
        "and telemetry)");
    auto f = std::make_shared<ClientFlags>();
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f] {
      return Run("held-idle", *f, [](ApiClient& c) { return c.Get("/v1/held-idle"); },
                 FormatHeldIdle);
    });
  }
  {
    auto* sub = app.add_subcommand("nodes", "The nodes, their GPUs (real or virtual) and what runs there");
    auto f = std::make_shared<ClientFlags>();
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f] {
      return Run("nodes", *f, [](ApiClient& c) { return c.Get("/v1/nodes"); }, FormatNodes);
    });
  }
  {
    auto* sub = app.add_subcommand(
        "reclaim", "Tell squeeze serve that a spot node is taken back (admin): its jobs "
                   "checkpoint and leave within the warning");
    auto f = std::make_shared<ClientFlags>();
    auto node = std::make_shared<std::string>();
    auto warning = std::make_shared<std::string>();
    sub->add_option("NODE", *node, "The node, as `squeeze nodes` names it")->required();
    sub->add_option("--warning", *warning,
                    "Time until the provider takes it (30s, 2m); default the pool's spot.warning");
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f, node, warning] {
      nlohmann::json body = nlohmann::json::object();
      if (!warning->empty()) {
        auto w = ParseDuration(*warning);
        if (!w.ok()) {
          std::cerr << "squeeze reclaim: --warning: '" << *warning << "' is not a duration\n";
          return 1;
        }
        body["warning_s"] = *w;
      }
      return Run("reclaim", *f, [&](ApiClient& c) {
        return c.Post("/v1/nodes/" + *node + "/reclaim", body.dump(), "application/json");
      }, [](const nlohmann::json& j) {
        return "node " + j.value("node", std::string()) + " is reclaimed; its jobs " +
               j.value("jobs", nlohmann::json::array()).dump() + " leave by " +
               j.value("leave_by", std::string()) + "\n";
      });
    });
  }
  {
    auto* sub = app.add_subcommand("node-return",
                                   "Tell squeeze serve that a reclaimed node is back (admin)");
    auto f = std::make_shared<ClientFlags>();
    auto node = std::make_shared<std::string>();
    sub->add_option("NODE", *node, "The node, as `squeeze nodes` names it")->required();
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f, node] {
      return Run("node-return", *f, [&](ApiClient& c) {
        return c.Post("/v1/nodes/" + *node + "/return", "", "application/json");
      }, [](const nlohmann::json& j) {
        return "node " + j.value("node", std::string()) + " takes jobs again\n";
      });
    });
  }
}

// `squeeze queue`: every page of the jobs, as squeue lists them.
void RegisterQueue(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand("queue", "List jobs like squeue: id, name, owner, state, GPUs, wait, reason");
  auto f = std::make_shared<ClientFlags>();
  auto state = std::make_shared<std::string>();
  auto all = std::make_shared<bool>(false);
  sub->add_option("--state", *state, "Only jobs in this state (pending, running, checkpointing, done, failed, cancelled)");
  sub->add_flag("--all", *all, "Also finished jobs (by default only pending, running and checkpointing)");
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, state, all] {
    std::string path = "/v1/jobs?limit=1000";
    if (!state->empty()) {
      path += "&state=" + *state;
    } else if (!*all) {
      path += "&state=pending,running,checkpointing";
    }
    // Every page: the API returns at most 1000 jobs at a time.
    auto all_pages = [&](ApiClient& c) -> Result<nlohmann::json> {
      nlohmann::json jobs = nlohmann::json::array();
      std::string after;
      while (true) {
        auto page = c.Get(path + after);
        if (!page.ok()) return page;
        for (auto& j : (*page)["jobs"]) jobs.push_back(std::move(j));
        if (!page->contains("next_after")) break;
        after = "&after=" + (*page)["next_after"].dump();
      }
      return nlohmann::json{{"jobs", jobs}};
    };
    return Run("queue", *f, all_pages, FormatQueue);
  });
}

}  // namespace

void RegisterClientCommands(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  {
    auto* sub = app.add_subcommand(
        "submit",
        "Submit a job to squeeze serve: a job file (YAML, docs/job-file.md), flags, or both, "
        "like: squeeze submit --gpus 2 --estimate 1h -- python train.py");
    auto f = std::make_shared<ClientFlags>();
    auto args = std::make_shared<SubmitArgs>(*sub);
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f, args] { return Submit(*f, *args); });
  }
  RegisterQueue(app, out);
  auto by_id = [&](const char* name, const char* help, std::string suffix, bool post,
                   std::string (*format)(const nlohmann::json&)) {
    auto* sub = app.add_subcommand(name, help);
    auto f = std::make_shared<ClientFlags>();
    auto id = std::make_shared<int64_t>(0);
    sub->add_option("ID", *id, "The job's id")->required()->check(CLI::PositiveNumber);
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f, id, suffix, post, format, name = std::string(name)] {
      return Run(name, *f, [&](ApiClient& c) {
        return post ? c.Post(JobPath(*id, suffix), "", "application/json") : c.Get(JobPath(*id, suffix));
      }, format);
    });
  };
  by_id("show", "Show one job: its profile, state, exit code, attempts, preemptions, last checkpoint",
        "", false, FormatJob);
  by_id("cancel", "Cancel a job (yours, or any as an admin)", "/cancel", true, FormatJob);
  by_id("why", "Why a job waits, and when it is expected to start", "/why", false, FormatWhy);
  {
    auto* sub = app.add_subcommand("logs", "Print the end of a job's log (its latest run, or --attempt N)");
    auto f = std::make_shared<ClientFlags>();
    auto id = std::make_shared<int64_t>(0);
    auto attempt = std::make_shared<int>(0);
    auto tail = std::make_shared<int>(64 * 1024);
    sub->add_option("ID", *id, "The job's id")->required()->check(CLI::PositiveNumber);
    sub->add_option("--attempt", *attempt, "Which run (1 = the first); default the latest")
        ->check(CLI::PositiveNumber);
    sub->add_option("--tail", *tail, "At most this many bytes from the end")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f, id, attempt, tail] {
      std::string path = JobPath(*id, "/log") + "?tail_bytes=" + std::to_string(*tail);
      if (*attempt > 0) path += "&attempt=" + std::to_string(*attempt);
      return Run("logs", *f, [&](ApiClient& c) { return c.Get(path); },
                 [](const nlohmann::json& j) { return j.value("text", std::string()); });
    });
  }
  RegisterClusterCommands(app, out);
}

}  // namespace squeeze
