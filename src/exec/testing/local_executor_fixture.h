// The fixture of the local executor's tests (local_executor_test.cc, local_executor_
// hostile_test.cc): a data directory of its own, runs started and polled, every run it started
// killed and the directory removed at the end. Test-only.
#ifndef SQUEEZE_EXEC_TESTING_LOCAL_EXECUTOR_FIXTURE_H_
#define SQUEEZE_EXEC_TESTING_LOCAL_EXECUTOR_FIXTURE_H_

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

#include "exec/local_executor.h"

namespace squeeze {

class LocalExecutorTest : public ::testing::Test {
 public:
  static JobRequest Request(std::vector<std::string> command,
                            std::map<std::string, std::string> env = {}) {
    JobRequest r;
    r.command = std::move(command);
    r.env = std::move(env);
    return r;
  }

 protected:
  using Kind = ExecEvent::Kind;

  void SetUp() override {
    char tmpl[] = "/tmp/squeeze-exec-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (JobId id : started_) {
      auto infos = LocalExecutor(Options()).Reattach();
      for (const RunInfo& info : infos.ok() ? *infos : std::vector<RunInfo>{}) {
        if (info.id == id && !info.exit) kill(-info.pgid, SIGKILL);
      }
    }
    std::string cmd = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(system(cmd.c_str()), 0);
  }

  ExecutorOptions Options() const { return ExecutorOptions{dir_, "", 5000}; }
  RunInfo MustStart(LocalExecutor& ex, JobId id, int attempt, const JobRequest& request,
                    std::vector<int> gpus = {}, bool resume = false) {
    started_.push_back(id);
    Result<RunInfo> run = ex.Start(id, attempt, request, RunPlace{gpus, {}}, resume);
    EXPECT_TRUE(run.ok()) << run.status().message();
    return run.ok() ? *run : RunInfo{};
  }
  // Polls (at `now`) until `done` holds for the events so far or 10 s pass.
  static std::vector<ExecEvent> PollUntil(LocalExecutor& ex, Time now,
                                          const std::function<bool(const ExecEvent&)>& done,
                                          int timeout_ms = 10000) {
    std::vector<ExecEvent> all;
    for (int waited = 0; waited < timeout_ms; waited += 10) {
      for (ExecEvent& e : ex.Poll(now)) {
        all.push_back(e);
        if (done(e)) return all;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "timed out polling";
    return all;
  }
  static std::vector<ExecEvent> PollUntilExit(LocalExecutor& ex, Time now = 0) {
    return PollUntil(ex, now, [](const ExecEvent& e) { return e.kind == Kind::kExited; });
  }
  static bool WaitForFile(const std::string& path, int timeout_ms = 10000) {
    for (int waited = 0; waited < timeout_ms; waited += 10) {
      if (ReadFileIfPresent(path)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  std::string Log(JobId id, int attempt) const {
    return ReadFileIfPresent(PathsOf(dir_, id, attempt).log).value_or("<no log>");
  }
  // Reattaches `ex` and expects exactly one run back.
  static RunInfo ReattachOne(LocalExecutor& ex) {
    Result<std::vector<RunInfo>> runs = ex.Reattach();
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    EXPECT_EQ(runs.ok() ? runs->size() : 0u, 1u);
    return runs.ok() && runs->size() == 1 ? (*runs)[0] : RunInfo{};
  }
  std::string CheckpointDir(JobId id) const { return PathsOf(dir_, id, 1).checkpoint_dir; }

  std::string dir_;
  std::vector<JobId> started_;
};

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_TESTING_LOCAL_EXECUTOR_FIXTURE_H_
