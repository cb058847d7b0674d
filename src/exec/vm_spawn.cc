#include "exec/vm_spawn.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>

#include <cerrno>

namespace squeeze {

pid_t SpawnSharingMemory(int (*in_child)(void* arg), void* arg) {
  // The child's own stack (execvpe keeps a copy of a PATH entry and the file name there).
  constexpr size_t kStack = 256 * 1024;
  void* stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return -1;
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  // CLONE_VFORK: this thread sleeps until the child execs or exits, so the stack is free then.
  const pid_t pid = clone(in_child, static_cast<char*>(stack) + kStack,
                          CLONE_VM | CLONE_VFORK | SIGCHLD, arg);
  const int saved = errno;
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  munmap(stack, kStack);
  errno = saved;
  return pid;
}

}  // namespace squeeze
