#include "exec/process_priority.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "exec/command_runner.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

int ThisThreadsNice() { return getpriority(PRIO_PROCESS, 0); }

// The nice value of a command the calling thread runs, as the kernel reports it.
std::string NiceOfACommand(int nicer) {
  auto r = RunCommand({"sh", "-c", "cut -d' ' -f19 /proc/self/stat"}, {}, 10000, nicer);
  return r.ok() ? r->out : r.status().message();
}

// The daemon's thread runs ahead of the jobs; what it forks does not: a command (sbatch, a
// check as the owner) gets the nice the daemon started with, and a background one is lowered
// from there, not from the daemon's.
TEST(ProcessPriorityTest, TheDaemonsThreadsRunAheadAndWhatItStartsDoesNot) {
  if (geteuid() != 0) GTEST_SKIP() << "lowering a nice value needs root";
  std::string said, command, background;
  int own = 99, thread_made_later = 99;
  // A thread of its own, so the test binary's other tests keep their priority.
  std::thread daemon_main([&] {
    const int starting = ThisThreadsNice();
    said = SetDaemonNice(starting - 5);
    own = ThisThreadsNice() - starting;
    std::thread([&] { thread_made_later = ThisThreadsNice() - starting; }).join();
    command = std::to_string(std::stoi(NiceOfACommand(0)) - starting);
    background = std::to_string(std::stoi(NiceOfACommand(kBackgroundNicer)) - starting);
  });
  daemon_main.join();
  EXPECT_EQ(own, -5);
  EXPECT_EQ(thread_made_later, -5);
  EXPECT_EQ(command, "0");
  EXPECT_EQ(background, std::to_string(kBackgroundNicer));
  EXPECT_THAT(said, HasSubstr("the processes it starts run at " + std::to_string(StartingNice())));
}

// An account that may not lower its nice keeps it and says so (checked in a child that became
// nobody, so it runs as root too).
TEST(ProcessPriorityTest, ARefusedPriorityIsKeptAndSaid) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
    const int starting = ThisThreadsNice();
    const std::string said = SetDaemonNice(-20);
    if (said.find("kept (cannot set -20") == std::string::npos) _exit(11);
    if (ThisThreadsNice() != starting) _exit(12);
    if (std::stoi(NiceOfACommand(0)) != starting) _exit(13);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: cannot become nobody, 11: not said, 12: changed, "
                                       "13: a command's nice changed";
}

}  // namespace
}  // namespace squeeze
