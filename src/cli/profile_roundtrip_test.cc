// What one command writes, the next reads: the daemon's job history through the real squeeze
// binary, `profile export --store` into `profile check` and `simulate --trace`.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/testing/temp_dir.h"
#include "store/job_store.h"

namespace squeeze {
namespace {

// Runs the squeeze binary with `args` (shell words), stdout and stderr into `log`; the exit code.
int Squeeze(const std::string& args, const std::string& log) {
  const int status = std::system((std::string(SQUEEZE_BINARY) + " " + args + " >" + log +
                                  " 2>&1 </dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

JobRequest Request(int gpus, int64_t cpu_milli) {
  JobRequest r;
  r.spec.gpus = gpus;
  r.spec.cpu_milli = cpu_milli;
  r.command = {"true"};
  return r;
}

// A store with a CPU-only job (gpus 0) beside a GPU job: exported, it checks clean and
// replays with both jobs run and none rejected.
TEST(ProfileRoundTripTest, CpuOnlyJobsOfTheStoreReplay) {
  testing::TempDir dir;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto cpu = (*store)->Submit(Request(0, 4000), "alice", Seconds(1000));
    auto gpu = (*store)->Submit(Request(2, 8000), "alice", Seconds(1100));
    ASSERT_TRUE(cpu.ok() && gpu.ok());
    ASSERT_TRUE((*store)->RecordStart(*cpu, 1, {}, Seconds(1000)).ok());
    ASSERT_TRUE((*store)->SetState(*cpu, JobState::kDone, "", Seconds(1600)).ok());
    ASSERT_TRUE((*store)->RecordStart(*gpu, 1, {0, 1}, Seconds(1100)).ok());
    ASSERT_TRUE((*store)->SetState(*gpu, JobState::kDone, "", Seconds(4700)).ok());
  }
  const std::string d = dir.path();
  ASSERT_EQ(Squeeze("profile export --store " + d + " --out " + d + "/jobs.csv", d + "/export.log"),
            0) << Slurp(d + "/export.log");
  const std::string csv = Slurp(d + "/jobs.csv");
  EXPECT_NE(csv.find("\n1,0,600,0,"), std::string::npos) << csv;  // id, submit, duration, gpus
  ASSERT_EQ(Squeeze("profile check " + d + "/jobs.csv", d + "/check.log"), 0)
      << Slurp(d + "/check.log");
  EXPECT_NE(Slurp(d + "/check.log").find("2 jobs, no errors"), std::string::npos);
  const std::string cluster = std::string(SQUEEZE_SOURCE_DIR) + "/examples/clusters/small-lab.yaml";
  ASSERT_EQ(Squeeze("simulate --trace " + d + "/jobs.csv --cluster " + cluster +
                        " --policy fifo,squeeze --json " + d + "/sim.json",
                    d + "/sim.log"),
            0) << Slurp(d + "/sim.log");
  const auto doc = nlohmann::json::parse(Slurp(d + "/sim.json"));
  for (const auto& r : doc["results"]) {
    EXPECT_EQ(r["jobs"], 2) << r.dump();
    EXPECT_EQ(r["rejected"], 0) << r.dump();
  }
}

}  // namespace
}  // namespace squeeze
