#include "exec/run_tracking.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

bool WaitFor(const std::function<bool()>& done, int timeout_ms = 5000) {
  for (int waited = 0; waited < timeout_ms; waited += 10) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

TEST(RunTrackingTest, DescendantsAreFoundThroughEveryGeneration) {
  const std::vector<std::pair<pid_t, pid_t>> parents = {
      {10, 1}, {11, 10}, {12, 11}, {13, 10}, {20, 1}, {21, 20}};
  EXPECT_THAT(DescendantsOf(10, parents), UnorderedElementsAre(11, 12, 13));
  EXPECT_TRUE(DescendantsOf(12, parents).empty());
}

TEST(RunTrackingTest, AnUnknownModeIsRefusedNamingIt) {
  EXPECT_THAT(PrepareTracking("cgroups", "/d").status().message(),
              HasSubstr("--process-tracking: 'cgroups' is not auto, cgroup or subreaper"));
  Result<TrackingSetup> sub = PrepareTracking("subreaper", "/d");
  ASSERT_TRUE(sub.ok());
  EXPECT_TRUE(sub->cgroup_parent.empty());
  EXPECT_THAT(sub->description, HasSubstr("subreaper"));
}

// A subreaper with a child that leaves it by a double fork and setsid, as a job's escapee
// would: the escapee is still a descendant of the subreaper, and SignalRun ends it.
TEST(RunTrackingTest, ASubreaperKeepsADoubleForkedEscapeeAndEndsIt) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t subreaper = fork();
  ASSERT_GE(subreaper, 0);
  if (subreaper == 0) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {  // the escapee: ignores SIGTERM
        signal(SIGTERM, SIG_IGN);
        const pid_t me = getpid();
        (void)!write(ready[1], &me, sizeof(me));
        for (;;) pause();
      }
      _exit(0);
    }
    for (;;) {
      if (waitpid(-1, nullptr, 0) < 0 && errno == ECHILD) pause();
    }
  }
  close(ready[1]);
  pid_t escapee = 0;
  ASSERT_EQ(read(ready[0], &escapee, sizeof(escapee)), static_cast<ssize_t>(sizeof(escapee)));
  close(ready[0]);
  const RunProcesses run{"", subreaper};
  ASSERT_TRUE(WaitFor([&] { return ProcessesOf(run) == std::vector<pid_t>{escapee}; }));
  EXPECT_EQ(SignalRun(run, SIGTERM), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(Alive(escapee)) << "it ignores SIGTERM";
  EXPECT_EQ(SignalRun(run, SIGKILL), 1u);
  EXPECT_TRUE(WaitFor([&] { return ProcessesOf(run).empty(); }));
  kill(subreaper, SIGKILL);
  waitpid(subreaper, nullptr, 0);
}

// The cgroup way, where this machine allows it (root, cgroup v2 with cgroup.kill).
TEST(RunTrackingTest, ARunCgroupHoldsEveryProcessAndCgroupKillEndsThem) {
  char tmpl[] = "/tmp/squeeze-tracking-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  Result<TrackingSetup> setup = PrepareTracking("auto", tmpl);
  ASSERT_TRUE(setup.ok()) << setup.status().message();
  if (setup->cgroup_parent.empty()) GTEST_SKIP() << setup->description;
  const std::string cgroup = RunCgroupPath(setup->cgroup_parent, 7, 1);
  ASSERT_TRUE(MakeRunCgroup(cgroup, setup->limits, 500, 64 << 20).ok());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (JoinCgroup(cgroup) != 0) _exit(3);
    if (fork() == 0) {
      setsid();
      signal(SIGTERM, SIG_IGN);
      for (;;) pause();
    }
    for (;;) pause();
  }
  const RunProcesses run{cgroup, 0};
  ASSERT_TRUE(WaitFor([&] { return ProcessesOf(run).size() == 2; }))
      << ProcessesOf(run).size() << " processes in " << cgroup;
  if (setup->limits) {
    std::ifstream cpu(cgroup + "/cpu.max"), memory(cgroup + "/memory.max");
    std::string quota, period, bytes;
    cpu >> quota >> period;
    memory >> bytes;
    EXPECT_EQ(quota + " " + period, "50000 100000");
    EXPECT_EQ(bytes, std::to_string(64 << 20));
  }
  EXPECT_EQ(SignalRun(run, SIGKILL), 2u);
  EXPECT_TRUE(WaitFor([&] { return ProcessesOf(run).empty(); }));
  waitpid(child, nullptr, 0);
  RemoveRunCgroup(cgroup);
  struct stat st;
  EXPECT_NE(stat(cgroup.c_str(), &st), 0) << "the run's cgroup is removed";
  rmdir(setup->cgroup_parent.c_str());
  rmdir(tmpl);
}

}  // namespace
}  // namespace squeeze
