// The small supervisor process between the daemon and one run of a job (squeeze-supervisor).
// It detaches from the daemon (a child that calls setsid, so the daemon's death or restart
// neither kills it nor leaves it without a parent to reap the job), starts the job's argv in
// a process group of its own with the environment it was given, waits for it and records the
// exit status atomically in DIR/runs/<id>.<attempt>.exit. It forwards no signals: the
// executor signals the job directly (see local_executor.h). Used only by supervisor_main.cc.
#ifndef SQUEEZE_EXEC_SUPERVISOR_H_
#define SQUEEZE_EXEC_SUPERVISOR_H_

#include <optional>
#include <string>
#include <vector>

#include "core/types.h"

namespace squeeze {

struct SupervisorArgs {
  std::string data_dir;
  JobId id = 0;
  int attempt = 0;
  std::string workdir;
  // The Unix account the job runs as (the supervisor, root, switches the job to it before exec
  // and gives it its log); empty = the supervisor's own user.
  std::string user;
  std::vector<std::string> command;  // the job's argv, run with execvp, never through a shell
  // The job's own files for its stdout and stderr (absolute paths, core/output_path.h), opened
  // by the job's process once it is the job's account; empty output = the log, empty error =
  // with stdout. Emptied first unless `append` (a later attempt, so nothing is lost); the log
  // then says where the output went.
  std::string output;
  std::string error;
  bool append = false;
};

// Command line: squeeze-supervisor [--output=PATH] [--error=PATH] [--append] DATA_DIR JOB_ID
// ATTEMPT WORKDIR USER -- ARGV... (USER "-" for the supervisor's own).
std::vector<std::string> SupervisorCommandLine(const std::string& supervisor_path,
                                               const SupervisorArgs& args);
std::optional<SupervisorArgs> ParseSupervisorArgs(int argc, char** argv);

// `squeeze-supervisor --check USER WORKDIR -- ARGV...`, run by the daemon when a job is
// submitted: whether USER ("-": the caller) may enter WORKDIR ("-": none given) and run ARGV[0]
// (a path, or found on PATH as execvp finds it), checked as that user. RunCheck prints the
// problem, naming the path and the user, and returns 1; 0 when the job could start.
struct RunnableCheck {
  std::string user;
  std::string workdir;
  std::vector<std::string> command;
};
std::vector<std::string> CheckCommandLine(const std::string& supervisor_path,
                                          const RunnableCheck& check);
std::optional<RunnableCheck> ParseCheckArgs(int argc, char** argv);
int RunCheck(const RunnableCheck& check);

// Forks the detached supervisor and returns 0 in the calling process at once (the process the
// daemon started exits with it); the detached child runs the job, records its exit and exits.
// Returns non-zero when the supervisor could not even detach.
int RunSupervisor(const SupervisorArgs& args);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_SUPERVISOR_H_
