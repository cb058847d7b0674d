// squeeze-supervisor: the small process between the daemon and one run of a job, and the two
// short-lived helpers the daemon runs as a job's account. The daemon starts it with a fixed,
// clean environment and a command line that names only the mode; what the run is (supervisor_
// spec.h) comes on standard input as data, so no root process ever sees a value a user chose
// as code or shows it in its process title.
//
//   --run    detaches (a child that calls setsid, so the daemon's death or restart neither
//            kills it nor leaves it without a parent to reap the job), becomes a child
//            subreaper, starts the job's argv in a process group (and, where the daemon gave
//            one, a cgroup) of its own, as the job's account with the job's environment, copies
//            the job's output into the run's log (the supervisor's, so the job cannot rewrite
//            squeeze's lines; at most max_log_bytes), reads the checkpoint marker as the job's
//            account every second and relays what it says to DIR/runs/ID.ATTEMPT.marker, and
//            when the job's main process ends, ends every process left of the run (SIGTERM,
//            then SIGKILL after the grace) before it records the exit status atomically in
//            DIR/runs/ID.ATTEMPT.exit. It forwards no signals: the executor signals the job
//            directly (see local_executor.h).
//   --check  whether the job could start: its workdir entered and its command found and
//            runnable, checked as its account (prints the problem, naming the path and the
//            user, and exits 1; 0 when it could start).
//   --read   a stretch of a file read as an account (`squeeze logs` of a job's own output
//            file), printed as "size N\n" and the bytes; "error TEXT" and exit 1 when it
//            cannot be read.
#ifndef SQUEEZE_EXEC_SUPERVISOR_H_
#define SQUEEZE_EXEC_SUPERVISOR_H_

#include <string>
#include <vector>

#include "exec/supervisor_spec.h"

namespace squeeze {

// squeeze-supervisor beside this process's binary (/proc/self/exe), where it is installed.
std::string SupervisorBesideSelf();

// The environment every squeeze-supervisor starts with, whatever the daemon's or the job's.
std::vector<std::string> SupervisorEnvironment();

// squeeze-supervisor's main: the mode from argv, the spec from standard input.
int SupervisorMain(int argc, char** argv);

// Forks the detached supervisor and returns 0 in the calling process at once (the process the
// daemon started exits with it); the detached child runs the job, records its exit and exits.
// Returns non-zero when the supervisor could not even detach.
int RunSupervisor(const RunSpec& spec);
int RunCheck(const CheckSpec& check);
int RunRead(const ReadSpec& read);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_SUPERVISOR_H_
