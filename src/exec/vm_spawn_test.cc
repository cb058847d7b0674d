#include "exec/vm_spawn.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace squeeze {
namespace {

struct Shared {
  int written_by_child = 0;
  int blocked_in_child = 0;
};

int WriteAndExit(void* arg) {
  auto* s = static_cast<Shared*>(arg);
  s->written_by_child = 42;  // in the parent's memory: no copy was made
  sigset_t now;
  sigprocmask(SIG_SETMASK, nullptr, &now);
  s->blocked_in_child = sigismember(&now, SIGTERM) + sigismember(&now, SIGCHLD);
  return 7;
}

// The child runs in the parent's memory, not a copy of it (what makes it cheap for a large
// daemon), with every signal blocked, and the parent's thread gets its own mask back.
TEST(VmSpawnTest, TheChildSharesTheParentsMemoryWithSignalsBlocked) {
  Shared shared;
  sigset_t before, after;
  sigemptyset(&before);
  sigemptyset(&after);
  pthread_sigmask(SIG_SETMASK, nullptr, &before);
  const pid_t pid = SpawnSharingMemory(WriteAndExit, &shared);
  ASSERT_GT(pid, 0) << std::strerror(errno);
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  // CLONE_VFORK: the child has exited by now, and what it wrote is here.
  EXPECT_EQ(shared.written_by_child, 42);
  EXPECT_EQ(shared.blocked_in_child, 2);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  for (int sig = 1; sig < SIGRTMIN; ++sig) {
    EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << "signal " << sig;
  }
}

}  // namespace
}  // namespace squeeze
