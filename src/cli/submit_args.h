// The command line of `squeeze submit [FILE] [flags] [-- COMMAND...]`: registers the flags on
// a CLI11 subcommand and, after parsing, says which file and flags were given. Not thread-safe.
#ifndef SQUEEZE_CLI_SUBMIT_ARGS_H_
#define SQUEEZE_CLI_SUBMIT_ARGS_H_

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/submit_request.h"
#include "core/status.h"

namespace squeeze {

class SubmitArgs {
 public:
  // Adds FILE, the job flags and COMMAND to `sub`, which must outlive this object.
  explicit SubmitArgs(CLI::App& sub);
  SubmitArgs(const SubmitArgs&) = delete;
  SubmitArgs& operator=(const SubmitArgs&) = delete;

  // After parsing: the job file, if one was given before --.
  std::optional<std::string> file() const;
  // After parsing: the flags given and the command after --; an error for words outside
  // FILE that do not follow --.
  Result<SubmitFlags> flags() const;

 private:
  struct Seen;
  CLI::App& sub_;
  std::string file_;
  std::vector<std::string> words_;  // positionals after FILE
  std::map<std::string, std::string> values_;
  std::vector<std::string> env_;
  std::map<std::string, std::string> sbatch_values_;  // sbatch's options: long name -> value
  std::map<std::string, bool> sbatch_flags_;          // its flags (--requeue, --hold)
  std::string wrap_;
  bool ignore_unsupported_ = false;
  bool preemptible_ = false;
  bool checkpointable_ = false;
  bool fault_tolerant_ = false;
  std::shared_ptr<Seen> seen_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CLI_SUBMIT_ARGS_H_
