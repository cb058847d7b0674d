#include "exec/gpu_utilization.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

TEST(GpuUtilizationTest, ParsesTheQueryOutputWithValuesTheDriverDoesNotGive) {
  auto r = ParseNvidiaSmiUtilizationCsv("0, 87, 40312\n1, 0, 3\r\n\n2, [N/A], [Not Supported]\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (std::vector<GpuUtilization>{
                    {0, 0.87, 40312.0}, {1, 0.0, 3.0}, {2, std::nullopt, std::nullopt}}));
}

TEST(GpuUtilizationTest, BrokenOutputNamesTheLineAndTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0, 87\n", "nvidia-smi output line 1: expected 3 fields (index, utilization.gpu, "
                  "memory.used), got 2: '0, 87'"},
      {"0, 1, 2\nx, 1, 2\n", "nvidia-smi output line 2: index 'x' is not a GPU index"},
      {"0, 101, 2\n", "nvidia-smi output line 1: utilization.gpu '101' is not a percentage "
                      "from 0 to 100"},
      {"0, 87 %, 2\n", "nvidia-smi output line 1: utilization.gpu '87 %' is not a percentage "
                       "from 0 to 100"},
      {"0, 5, -1\n", "nvidia-smi output line 1: memory.used '-1' is not a number of MiB"},
      {"0, 5, 12 MiB\n", "nvidia-smi output line 1: memory.used '12 MiB' is not a number of MiB"},
  };
  for (const auto& [text, message] : cases) {
    auto r = ParseNvidiaSmiUtilizationCsv(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message(), message);
  }
}

// No GPU here: nvidia-smi is stood in for by a script that checks the query and prints what
// the real one prints, and by one that fails.
TEST(GpuUtilizationTest, RunsNvidiaSmiWithTheQuery) {
  ::squeeze::testing::TempDir dir("squeeze-util");
  const std::string smi = dir.path() + "/nvidia-smi";
  std::ofstream(smi) << "#!/bin/sh\n"
                        "[ \"$1\" = --query-gpu=index,utilization.gpu,memory.used ] || exit 3\n"
                        "[ \"$2\" = --format=csv,noheader,nounits ] || exit 4\n"
                        "printf '0, 12, 100\\n1, 98, 70000\\n'\n";
  chmod(smi.c_str(), 0755);
  auto r = SampleGpus("nvidia-smi", smi);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (std::vector<GpuUtilization>{{0, 0.12, 100.0}, {1, 0.98, 70000.0}}));

  const std::string failing = dir.path() + "/smi-fails";
  std::ofstream(failing) << "#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n";
  chmod(failing.c_str(), 0755);
  EXPECT_EQ(SampleWithNvidiaSmi(failing).status().message(),
            "nvidia-smi: '" + failing + "' exited with status 9: NVIDIA-SMI has failed");
  EXPECT_EQ(SampleGpus("virtual", smi).status().message(),
            "GPUs found through 'virtual' have no utilization to sample");
}

}  // namespace
}  // namespace squeeze
