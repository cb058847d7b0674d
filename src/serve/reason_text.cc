#include "serve/reason_text.h"

#include <utility>

namespace squeeze {
namespace {

// The step of starting a job that failed (ExitStatus::step, written by the supervisor), and
// what every user is told of it.
constexpr std::pair<std::string_view, std::string_view> kStepWords[] = {
    {"account", "the run's user has no account here"},
    {"become", "the run could not become its user"},
    {"workdir", "the workdir could not be entered"},
    {"output", "the output file could not be opened"},
    {"error", "the error file could not be opened"},
    {"redirect", "the job's output could not be redirected"},
    {"exec", "the command could not be run"},
};

// What the supervisor's messages begin with, for an exit record of a supervisor from before it
// wrote the step.
constexpr std::pair<std::string_view, std::string_view> kSupervisorSteps[] = {
    {"cannot run as user '", "the run could not become its user"},
    {"cannot enter workdir '", "the workdir could not be entered"},
    {"cannot open the output file '", "the output file could not be opened"},
    {"cannot open the error file '", "the error file could not be opened"},
    {"cannot redirect the job's output", "the job's output could not be redirected"},
    {"cannot run '", "the command could not be run"},
};

// Texts that name nothing of the job's: shown as they are.
constexpr std::string_view kPublicTexts[] = {
    "the supervisor died without recording the exit status",
    "Slurm ended the job ",
};

std::string Code(const ExitStatus& e) {
  return e.signaled ? "signal " + std::to_string(e.code) : "exit " + std::to_string(e.code);
}

}  // namespace

ReasonText ReasonText::Then(std::string_view more) const {
  return {shown + std::string(more), detail.empty() ? std::string() : detail + std::string(more)};
}

ReasonText ExitReason(const ExitStatus& e) {
  if (e.error.empty()) {
    return {e.signaled ? "killed by signal " + std::to_string(e.code) : Code(e), ""};
  }
  if (e.lost) return {e.error, ""};  // the backend's words on its nodes and states
  for (std::string_view text : kPublicTexts) {
    if (e.error.starts_with(text)) return {e.error, ""};
  }
  std::string_view step = e.code == 127 && !e.signaled ? "the run could not start"
                                                      : "the run failed";
  if (!e.step.empty()) {
    for (const auto& [name, words] : kStepWords) {
      if (e.step == name) step = words;
    }
  } else {
    for (const auto& [prefix, words] : kSupervisorSteps) {
      if (e.error.starts_with(prefix)) step = words;
    }
  }
  return {std::string(step) + " (" + Code(e) + ")", e.error};
}

ReasonText StartFailure(const Status& status) {
  return {"the run could not be started", "cannot start: " + status.message()};
}

}  // namespace squeeze
