// Runs a short-lived command and captures what it prints: how squeeze talks to a cluster
// manager's tools (sbatch, squeue, scancel, scontrol, sinfo). The argv runs directly (execvp,
// never a shell), with extra environment variables, stdin from /dev/null, and a time limit
// after which it is killed. Stateless; thread-safe.
#ifndef SQUEEZE_EXEC_COMMAND_RUNNER_H_
#define SQUEEZE_EXEC_COMMAND_RUNNER_H_

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct CommandOutput {
  int exit_code = 0;  // 128 + N when killed by signal N
  std::string out;    // stdout
  std::string err;    // stderr
  bool timed_out = false;
};

// An error only when the command could not be started at all (not found, fork failed); a
// command that ran and failed is an ok result with its exit code. `timeout_ms` <= 0: no limit.
// `nicer`: how much lower than this process's the command's CPU priority is (nice(2)), for
// background work that must not slow down what answers users.
Result<CommandOutput> RunCommand(const std::vector<std::string>& argv,
                                 const std::map<std::string, std::string>& env = {},
                                 int timeout_ms = 30000, int nicer = 0);
// The same with exactly `env` as the command's environment (KEY=VALUE, none of this
// process's) and `input` on its standard input: how the daemon runs squeeze-supervisor's
// helpers, which must see nothing of the daemon's or a job's environment.
Result<CommandOutput> RunCommandWithInput(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& env,
                                          const std::string& input, int timeout_ms);
// The same with exactly `env` as the command's environment (KEY=VALUE, none of this
// process's): a tool whose environment its own children inherit (sbatch, whose job gets it).
Result<CommandOutput> RunCommandWithEnvironment(const std::vector<std::string>& argv,
                                                const std::vector<std::string>& env,
                                                int timeout_ms, int nicer);
// How much lower background work runs: a backend's commands (sbatch, squeue), forecasts.
constexpr int kBackgroundNicer = 10;
// Lowers the calling thread's CPU priority by `nicer` (a background thread's); ignored where
// it cannot be done.
void LowerThisThreadsPriority(int nicer);

// This process's environment with `extra` laid over it, as KEY=VALUE strings for execve.
std::vector<std::string> EnvironmentWith(const std::map<std::string, std::string>& extra);
// The char* array execve wants (null-terminated); valid while `strings` lives unchanged.
std::vector<char*> ExecPointers(std::vector<std::string>& strings);

// "sbatch --parsable ..." for messages: the argv joined with spaces, long ones cut.
std::string CommandLine(const std::vector<std::string>& argv);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_COMMAND_RUNNER_H_
