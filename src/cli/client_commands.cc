// The client subcommands of `squeeze` that talk to a running `squeeze serve`: submit, queue,
// show, cancel, why, logs, nodes, reclaim, node-return. Each takes --url and --token (else
// SQUEEZE_URL, SQUEEZE_TOKEN), or --socket (the daemon's Unix socket, no token), and --json.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/client_format.h"
#include "cli/job_show_format.h"
#include "cli/client_run.h"
#include "cli/commands.h"
#include "cli/submit_args.h"
#include "cli/submit_request.h"
#include "config/job_json_writer.h"
#include "core/duration.h"
#include "core/safe_text.h"
#include "serve/api_client.h"

namespace squeeze {
namespace {

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
    const Time now = Seconds(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count());
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      if (const size_t eq = entry.find('='); eq != std::string::npos && eq > 0) {
        flags->environ[entry.substr(0, eq)] = entry.substr(eq + 1);
      }
    }
    std::vector<std::string> warnings;
    job = BuildSubmitRequest(args.file(), *flags, cwd, now, &warnings);
    for (const std::string& w : warnings) {
      std::cerr << "squeeze submit: warning: " << EscapeControls(w, "\n") << "\n";
    }
  }
  if (!job.ok()) {
    std::cerr << "squeeze submit: " << EscapeControls(job.status().message(), "\n") << "\n";
    return 1;
  }
  const std::string body = JobRequestToJobJson(*job);
  return Run("submit", f,
             [&](ApiClient& c) { return c.Post("/v1/jobs", body, "application/json"); },
             [](const nlohmann::json& j) {
               if (j.contains("tasks")) {
                 return "submitted array job " + j["id"].dump() + " (" + j["tasks"].dump() +
                        " tasks)\n";
               }
               return "submitted job " + j["id"].dump() + "\n";
             });
}


// squeeze show ID [--env]: the job as scontrol shows one; --env asks for its environment's
// values too (its owner's and the admins' only), which the job's JSON only counts.
void RegisterShow(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "show", "Show one job as scontrol show job does: who, state, times, resources, command, history");
  auto f = std::make_shared<ClientFlags>();
  auto id = std::make_shared<std::string>();
  auto env = std::make_shared<bool>(false);
  sub->add_option("ID", *id, "The job's id (an array's task as ARRAY_TASK, 12_4)")
      ->required()
      ->check(CheckJobRef);
  sub->add_flag("--env", *env,
                "Print the values of the job's environment too (hidden by default: tokens and keys "
                "come with the submitter's environment)");
  AddConnectionFlags(*sub, *f);
  out.emplace_back(sub, [f, id, env] {
    return Run("show", *f, [&](ApiClient& c) -> Result<nlohmann::json> {
      Result<nlohmann::json> job = c.Get(JobPath(*id));
      if (!job.ok() || !*env) return job;
      Result<nlohmann::json> values = c.Get(JobPath(*id, "/env"));
      if (!values.ok()) return values.status();
      (*job)["env"] = (*values)["env"];
      return job;
    }, [](const nlohmann::json& job) {
      const nlohmann::json values = {{"env", job.value("env", nlohmann::json())}};
      return FormatJobShown(job, job.contains("env") && job["env"].is_object() ? &values : nullptr);
    });
  });
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
        body["warning_s"] = WholeSeconds(*w);  // the API takes whole seconds
      }
      return Run("reclaim", *f, [&](ApiClient& c) {
        return c.Post("/v1/nodes/" + *node + "/reclaim", body.dump(), "application/json");
      }, [](const nlohmann::json& j) {
        const std::string node = j.value("node", std::string());
        return EscapeControls("node " + node + " is reclaimed; its jobs " +
                              j.value("jobs", nlohmann::json::array()).dump() + " leave by " +
                              j.value("leave_by", std::string())) +
               "\n";
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
        return EscapeControls("node " + j.value("node", std::string()) + " takes jobs again") +
               "\n";
      });
    });
  }
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
  RegisterJobCommands(app, out);
  auto by_id = [&](const char* name, const char* help, std::string suffix, bool post,
                   std::string (*format)(const nlohmann::json&)) {
    auto* sub = app.add_subcommand(name, help);
    auto f = std::make_shared<ClientFlags>();
    auto id = std::make_shared<std::string>();
    sub->add_option("ID", *id, "The job's id (an array's task as ARRAY_TASK, 12_4)")
        ->required()
        ->check(CheckJobRef);
    AddConnectionFlags(*sub, *f);
    out.emplace_back(sub, [f, id, suffix, post, format, name = std::string(name)] {
      return Run(name, *f, [&](ApiClient& c) {
        return post ? c.Post(JobPath(*id, suffix), "", "application/json") : c.Get(JobPath(*id, suffix));
      }, format);
    });
  };
  RegisterShow(app, out);
  by_id("why", "Why a job waits, and when it is expected to start", "/why", false, FormatWhy);
  RegisterClusterCommands(app, out);
}

}  // namespace squeeze
