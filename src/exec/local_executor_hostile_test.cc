// The local executor against a job that attacks what runs it: its environment and argv kept
// out of the root supervisor, processes that leave the run, a checkpoint marker that is a link,
// a FIFO or huge, and a log it may not rewrite or grow without bound.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "exec/local_executor.h"
#include "exec/run_tracking.h"
#include "exec/testing/local_executor_fixture.h"
#include "exec/unix_account.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string ProcFile(pid_t pid, const char* name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Alive(pid_t pid) {
  const std::string stat = ProcFile(pid, "stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] != 'Z';
}

// A process of the job that leaves its group and session (setsid) and ignores SIGTERM, its pid
// written to `pid_file`; then the main process does `then`.
JobRequest WithEscapee(const std::string& pid_file, const std::string& then) {
  return LocalExecutorTest::Request(
      {"sh", "-c",
       "setsid sh -c 'trap \"\" TERM; echo $$ > " + pid_file + "; exec sleep 300' & "
       "while [ ! -s " + pid_file + " ]; do sleep 0.05; done; " + then});
}

pid_t PidIn(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

// The pid the escapee writes (`echo $$ > FILE` creates the file before it writes it: a file
// that exists may still be empty, as a clean-clone run once read it), or 0 after 10 s.
pid_t WaitForPidIn(const std::string& path) {
  for (int i = 0; i < 1000; ++i) {
    if (const pid_t pid = PidIn(path); pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

TEST_F(LocalExecutorTest, TheSupervisorSeesNoneOfTheJobsEnvironmentOrArgv) {
  LocalExecutor ex(Options());
  JobRequest request = Request({"sh", "-c", "exec sleep 30", "secret-argument-x1"},
                               {{"LD_PRELOAD", "/nonexistent/evil-x1.so"},
                                {"SECRET_X1", "secret-value-x1"}});
  const RunInfo run = MustStart(ex, 1, 1, request);
  const std::string environ = ProcFile(run.supervisor_pid, "environ");
  const std::string cmdline = ProcFile(run.supervisor_pid, "cmdline");
  EXPECT_THAT(environ, Not(HasSubstr("evil-x1")));
  EXPECT_THAT(environ, Not(HasSubstr("secret-value-x1")));
  EXPECT_THAT(cmdline, Not(HasSubstr("secret-argument-x1")));
  EXPECT_THAT(cmdline, HasSubstr("--run"));
  // The job itself got all of it (once it has exec'd: until then it is a copy of the supervisor).
  std::string job_environ;
  for (int waited = 0; waited < 5000; waited += 10) {
    job_environ = ProcFile(run.pgid, "environ");
    if (job_environ.find("SECRET_X1") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(job_environ, HasSubstr("SECRET_X1=secret-value-x1"));
  EXPECT_THAT(job_environ, HasSubstr("LD_PRELOAD=/nonexistent/evil-x1.so"));
  ASSERT_TRUE(ex.Stop(1, 0, 0).ok());
  PollUntilExit(ex, kSecond);
}

// Both ways of tracking a run's processes: the supervisor as a subreaper, and a cgroup of the
// run's own where this machine allows one (root, cgroup v2).
std::vector<TrackingSetup> Trackings(const std::string& dir) {
  std::vector<TrackingSetup> all = {*PrepareTracking("subreaper", dir)};
  if (Result<TrackingSetup> cgroup = PrepareTracking("cgroup", dir); cgroup.ok()) {
    all.push_back(*cgroup);
  }
  return all;
}

TEST_F(LocalExecutorTest, AProcessThatLeftTheRunEndsWhenItsMainProcessEnds) {
  JobId id = 0;
  for (const TrackingSetup& tracking : Trackings(dir_)) {
    SCOPED_TRACE(tracking.description);
    ExecutorOptions options = Options();
    options.tracking = tracking;
    options.leftover_grace_s = 1;
    LocalExecutor ex(options);
    const std::string pid_file = dir_ + "/escapee" + std::to_string(++id) + ".pid";
    MustStart(ex, id, 1, WithEscapee(pid_file, "exit 0"));
    std::vector<ExecEvent> events = PollUntilExit(ex);
    ASSERT_FALSE(events.empty());
    EXPECT_TRUE(events.back().exit.Succeeded());
    const pid_t escapee = PidIn(pid_file);
    ASSERT_GT(escapee, 0);
    EXPECT_FALSE(Alive(escapee)) << "the escapee " << escapee << " outlived its run";
    EXPECT_THAT(Log(id, 1), HasSubstr("1 process(es) of the run outlived its main process"));
    if (!tracking.cgroup_parent.empty()) {
      struct stat st;
      EXPECT_NE(stat(RunCgroupPath(tracking.cgroup_parent, id, 1).c_str(), &st), 0)
          << "the run's cgroup is removed with it";
      rmdir(tracking.cgroup_parent.c_str());
    }
  }
}

TEST_F(LocalExecutorTest, StopEndsEveryProcessOfTheRunAfterTheGrace) {
  JobId id = 0;
  for (const TrackingSetup& tracking : Trackings(dir_)) {
    SCOPED_TRACE(tracking.description);
    ExecutorOptions options = Options();
    options.tracking = tracking;
    LocalExecutor ex(options);
    const std::string pid_file = dir_ + "/escapee" + std::to_string(++id) + ".pid";
    MustStart(ex, id, 1, WithEscapee(pid_file, "exec sleep 300"));
    const pid_t escapee = WaitForPidIn(pid_file);
    ASSERT_GT(escapee, 0);
    ASSERT_TRUE(ex.Stop(id, 100 * kSecond, kSecond).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_TRUE(Alive(escapee)) << "it ignores SIGTERM, so the grace is its";
    // Past the grace: SIGKILL to all.
    std::vector<ExecEvent> events = PollUntilExit(ex, 101 * kSecond);
    ASSERT_FALSE(events.empty());
    EXPECT_FALSE(Alive(escapee)) << "the escapee " << escapee << " outlived its cancelled run";
    rmdir(tracking.cgroup_parent.c_str());
  }
}

TEST_F(LocalExecutorTest, TheLogIsTheSupervisorsAndHoldsAtMostItsLimit) {
  ExecutorOptions options = Options();
  options.max_log_bytes = 1000;
  LocalExecutor ex(options);
  MustStart(ex, 1, 1, Request({"sh", "-c", "head -c 50000 /dev/zero | tr '\\0' x; echo; echo done"}));
  std::vector<ExecEvent> events = PollUntilExit(ex);
  ASSERT_FALSE(events.empty());
  const std::string log = Log(1, 1);
  EXPECT_THAT(log, HasSubstr("the log reached its limit of 1000 bytes"));
  EXPECT_THAT(log, Not(HasSubstr("done")));
  EXPECT_LT(log.size(), 1400u);
  struct stat st;
  ASSERT_EQ(stat(PathsOf(dir_, 1, 1).log.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, geteuid());
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

class LocalExecutorAsNobodyTest : public LocalExecutorTest {
 protected:
  void SetUp() override {
    LocalExecutorTest::SetUp();
    if (geteuid() != 0) GTEST_SKIP() << "needs root (runs a job as nobody)";
    Result<UnixAccount> nobody = AccountNamed("nobody");
    if (!nobody.ok()) GTEST_SKIP() << "no account 'nobody'";
    chmod(dir_.c_str(), 0711);
  }
  // A job of nobody's that makes its checkpoint marker with `make_marker` (a shell command run
  // in the checkpoint folder), then sleeps a little and exits 0.
  std::vector<ExecEvent> RunWithMarker(LocalExecutor& ex, const std::string& make_marker) {
    JobRequest request = Request({"sh", "-c", "cd \"$SQUEEZE_CHECKPOINT_DIR\" && " + make_marker +
                                                  "; sleep 2.5; exit 0"});
    request.run_as = "nobody";
    MustStart(ex, 1, 1, request);
    return PollUntilExit(ex);
  }
  static bool HasCheckpoint(const std::vector<ExecEvent>& events) {
    for (const ExecEvent& e : events) {
      if (e.kind == Kind::kCheckpoint) return true;
    }
    return false;
  }
};

TEST_F(LocalExecutorAsNobodyTest, AMarkerLinkedToARootFileIsNotRead) {
  const std::string secret = dir_ + "/root-only-secret";
  { std::ofstream(secret) << "the-admin-token-x1\n"; }
  chmod(secret.c_str(), 0600);
  LocalExecutor ex(Options());
  std::vector<ExecEvent> events = RunWithMarker(ex, "ln -s " + secret + " COMPLETE");
  EXPECT_FALSE(HasCheckpoint(events));
  EXPECT_THAT(Log(1, 1), HasSubstr("checkpoint marker not taken"));
  EXPECT_THAT(Log(1, 1), Not(HasSubstr("the-admin-token-x1")));
  EXPECT_THAT(ReadFileIfPresent(PathsOf(dir_, 1, 1).marker).value_or(""),
              Not(HasSubstr("the-admin-token-x1")));
}

TEST_F(LocalExecutorAsNobodyTest, AMarkerThatIsAFifoHoldsUpNothing) {
  LocalExecutor ex(Options());
  const auto began = std::chrono::steady_clock::now();
  std::vector<ExecEvent> events = RunWithMarker(ex, "mkfifo COMPLETE");
  EXPECT_FALSE(HasCheckpoint(events));
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events.back().exit.Succeeded());
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(8));
  EXPECT_THAT(Log(1, 1), HasSubstr("is not a regular file"));
}

TEST_F(LocalExecutorAsNobodyTest, AHugeMarkerIsNotTaken) {
  LocalExecutor ex(Options());
  std::vector<ExecEvent> events = RunWithMarker(ex, "truncate -s 1G COMPLETE");
  EXPECT_FALSE(HasCheckpoint(events));
  EXPECT_THAT(Log(1, 1), HasSubstr("is over 4096 bytes"));
}

TEST_F(LocalExecutorAsNobodyTest, AMarkerOfTheJobsOwnIsTaken) {
  LocalExecutor ex(Options());
  std::vector<ExecEvent> events = RunWithMarker(ex, "echo step-7 > c.tmp && mv c.tmp COMPLETE");
  ASSERT_TRUE(HasCheckpoint(events));
  EXPECT_EQ(events.front().checkpoint, "step-7");
}

TEST_F(LocalExecutorAsNobodyTest, TheJobCannotWriteItsLog) {
  LocalExecutor ex(Options());
  JobRequest request = Request({"sh", "-c", "echo forged >> \"$0\" && echo wrote || echo refused",
                                PathsOf(dir_, 1, 1).log});
  request.run_as = "nobody";
  MustStart(ex, 1, 1, request);
  PollUntilExit(ex);
  EXPECT_THAT(Log(1, 1), HasSubstr("refused"));
  EXPECT_THAT(Log(1, 1), Not(HasSubstr("forged")));
}

}  // namespace
}  // namespace squeeze
