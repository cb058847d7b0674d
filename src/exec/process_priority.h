// The daemon's CPU priority and that of the processes it starts.
//
// On a shared server the daemon's threads compete for the CPUs with every user's processes;
// a job that spins on all cores must not slow the API or the scheduling step. The daemon
// therefore runs at a lower nice value than it was started with (Linux keeps a nice value per
// thread; threads inherit their creator's), and every process it forks (the job's supervisor,
// sbatch, squeue, a check run as the job's owner) gets the nice the daemon was started with
// back before it execs, so no job or command runs with the daemon's priority.
#ifndef SQUEEZE_EXEC_PROCESS_PRIORITY_H_
#define SQUEEZE_EXEC_PROCESS_PRIORITY_H_

#include <string>

namespace squeeze {

// The nice value `squeeze serve` gives itself unless told otherwise (only root may lower it).
constexpr int kDaemonNice = -5;

// Sets the calling thread's nice value to `nice_value` (-20..19) and remembers the one it had,
// which ChildPriority hands to forked children from then on. Call before any other thread is
// made: those made later inherit it. Returns what was done, for the daemon's start-up line;
// when the kernel refuses (an account without CAP_SYS_NICE), the nice value is kept and the
// line says why.
std::string SetDaemonNice(int nice_value);

// In a child between fork and exec (async-signal-safe): the nice value the daemon was started
// with, plus `nicer` (at most 19). Without SetDaemonNice, `nicer` is added to the current one.
void ChildPriority(int nicer = 0);

// The nice value SetDaemonNice found (0 before it is called).
int StartingNice();

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_PROCESS_PRIORITY_H_
