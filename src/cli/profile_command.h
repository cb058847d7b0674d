// `squeeze profile`: the job-profile table (docs/job-profile-csv.md) in and out.
//   squeeze profile check FILE          reads a job-profile CSV whole; lists every error by row
//                                       and column, or says how many jobs it holds
//   squeeze profile export (--store PATH | --trace FILE) [--out FILE] [--excel] [--semicolon]
//                                       writes a daemon's job history, or any trace simulate
//                                       reads, as a job-profile CSV
#ifndef SQUEEZE_CLI_PROFILE_COMMAND_H_
#define SQUEEZE_CLI_PROFILE_COMMAND_H_

#include <CLI/CLI.hpp>
#include <utility>
#include <vector>

#include "cli/commands.h"

namespace squeeze {

void RegisterProfileCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_PROFILE_COMMAND_H_
