// What the daemon hands squeeze-supervisor on its standard input. Everything of a run that a
// user chose (argv, environment, workdir, output paths) travels as data, never on the
// supervisor's command line (which every user can read in /proc/PID/cmdline) nor in its
// environment (which the dynamic loader of a root process would obey: LD_PRELOAD and the like).
// The process that applies it has already become the job's account. Plain data and pure
// functions; thread-safe.
//
// Encoding: for each field, its name, the count of its values and the values, each ended by a
// NUL ("command\0" "2\0" "sleep\0" "600\0"). argv and environment strings cannot hold a NUL,
// so nothing needs escaping; a reader refuses anything else, naming the field.
#ifndef SQUEEZE_EXEC_SUPERVISOR_SPEC_H_
#define SQUEEZE_EXEC_SUPERVISOR_SPEC_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// The largest spec a supervisor reads (a job's environment and argv are bounded far below it).
inline constexpr size_t kMaxSpecBytes = 16 << 20;

using SpecFields = std::map<std::string, std::vector<std::string>>;
std::string EncodeSpec(const SpecFields& fields);
// An error names what is wrong ("spec: field 'env' says 3 values but has 2").
Result<SpecFields> DecodeSpec(const std::string& text);

// One run of a job (squeeze-supervisor --run).
struct RunSpec {
  std::string data_dir;
  JobId id = 0;
  int attempt = 0;
  std::string workdir;
  // The Unix account the job runs as (the supervisor, root, switches the job to it before exec);
  // empty = the supervisor's own user.
  std::string user;
  std::vector<std::string> command;  // the job's argv, run with execvp, never through a shell
  std::vector<std::string> env;      // KEY=VALUE, exactly the job's environment
  // The job's own files for stdout and stderr (absolute paths, core/output_path.h), opened by
  // the job's process once it is the job's account; empty output = the log, empty error = with
  // stdout. Emptied first unless `append` (a later attempt).
  std::string output;
  std::string error;
  bool append = false;
  // Process tracking (run_tracking.h): the cgroup v2 folder under which the run gets a folder
  // of its own; empty = none (the supervisor, a child subreaper, tracks the run's processes).
  std::string cgroup_parent;
  int64_t cpu_milli = 0;     // the run's CPU limit (cgroup cpu.max); 0 = none
  int64_t memory_bytes = 0;  // the run's memory limit (cgroup memory.max); 0 = none
  int64_t max_log_bytes = 0;  // what the run's log may hold; 0 = no limit
  int leftover_grace_s = 10;  // after the job's main process ends: SIGTERM, this, SIGKILL
};
std::string EncodeRunSpec(const RunSpec& spec);
Result<RunSpec> DecodeRunSpec(const std::string& text);

// Whether a job could start (squeeze-supervisor --check): USER may enter WORKDIR and run
// COMMAND[0], found as execvp finds it on PATH.
struct CheckSpec {
  std::string user;     // empty = the caller
  std::string workdir;  // empty = none given
  std::string path;     // the job's PATH; empty = the default
  std::vector<std::string> command;
};
std::string EncodeCheckSpec(const CheckSpec& spec);
Result<CheckSpec> DecodeCheckSpec(const std::string& text);

// A stretch of a file read as its user (squeeze-supervisor --read): `from` < 0 = the last
// `max` bytes.
struct ReadSpec {
  std::string user;  // empty = the caller
  std::string path;
  int64_t from = -1;
  int64_t max = 0;
};
std::string EncodeReadSpec(const ReadSpec& spec);
Result<ReadSpec> DecodeReadSpec(const std::string& text);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_SUPERVISOR_SPEC_H_
