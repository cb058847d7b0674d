// Starting a child process without copying the daemon's memory map.
//
// fork() in a large multi-threaded daemon copies its page tables under the memory-map lock and
// write-protects every page, so its other threads stall on that lock and then fault on each
// page they next write; on a virtual machine with shadow page tables every such fault is a trip
// to the hypervisor. With sbatch forked for every start, the API's answers waited on it (a
// bare GET /healthz took 0.1 s at p90 during a Slurm drain, against 0.04 s from an idle
// daemon on the same machine). A child made by SpawnSharingMemory runs on a stack of its own
// in the parent's address space (clone with CLONE_VM | CLONE_VFORK, as posix_spawn does) until
// it execs; only the calling thread waits for that.
#ifndef SQUEEZE_EXEC_VM_SPAWN_H_
#define SQUEEZE_EXEC_VM_SPAWN_H_

#include <sys/types.h>

namespace squeeze {

// Runs `in_child(arg)` in a new process that shares this one's memory until it execs or
// exits, and returns its pid (-1 with errno on failure). `in_child` may only make
// async-signal-safe calls (no malloc, no locks, no C++ exceptions, no setuid: glibc would
// broadcast it to the parent's threads), must not return normally unless exec failed (its
// return value is then the exit code), and sees every signal blocked until it unblocks them
// itself; the parent's signal mask is as it was once this returns. The daemon installs no
// signal handler (SIGPIPE is ignored), so none can run in the child meanwhile.
pid_t SpawnSharingMemory(int (*in_child)(void* arg), void* arg);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_VM_SPAWN_H_
