#include "exec/gpu_discovery.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

// What nvidia-smi prints on a two-GPU machine for the query squeeze makes.
constexpr char kTwoGpus[] =
    "0, GPU-6f1a2b3c-0000-1111-2222-333344445555, NVIDIA H200, 143771\n"
    "1, GPU-7e2b3c4d-0000-1111-2222-333344445555, NVIDIA H200, 143771\n";

TEST(GpuDiscoveryTest, ParsesNvidiaSmiCsv) {
  auto gpus = ParseNvidiaSmiCsv(kTwoGpus);
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[1].index, 1);
  EXPECT_EQ((*gpus)[1].uuid, "GPU-7e2b3c4d-0000-1111-2222-333344445555");
  EXPECT_EQ((*gpus)[1].name, "NVIDIA H200");
  EXPECT_EQ((*gpus)[1].model, "H200");
  EXPECT_EQ((*gpus)[1].memory_mib, 143771);
  EXPECT_FALSE((*gpus)[1].is_virtual);
}

TEST(GpuDiscoveryTest, BrokenNvidiaSmiOutputNamesLineAndField) {
  EXPECT_EQ(ParseNvidiaSmiCsv("0, GPU-x, NVIDIA H200\n").status().message(),
            "nvidia-smi output line 1: expected 4 fields (index, uuid, name, memory.total), got "
            "3: '0, GPU-x, NVIDIA H200'");
  EXPECT_EQ(ParseNvidiaSmiCsv("\n0, GPU-x, NVIDIA A100, [N/A]\n").status().message(),
            "nvidia-smi output line 2: memory.total '[N/A]' is not a number of MiB");
  EXPECT_EQ(ParseNvidiaSmiCsv("x, GPU-x, NVIDIA A100, 1\n").status().message(),
            "nvidia-smi output line 1: index 'x' is not a GPU index");
  EXPECT_EQ(ParseNvidiaSmiCsv("0, GPU-x, , 1\n").status().message(),
            "nvidia-smi output line 1: the name is empty");
  auto none = ParseNvidiaSmiCsv("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(GpuDiscoveryTest, ShortModelNames) {
  EXPECT_EQ(ShortModelName("NVIDIA H200"), "H200");
  EXPECT_EQ(ShortModelName("Tesla V100-SXM2-32GB"), "V100-SXM2-32GB");
  EXPECT_EQ(ShortModelName("NVIDIA GeForce RTX 4090"), "RTX-4090");
}

TEST(GpuDiscoveryTest, VirtualGpusAreMarked) {
  auto gpus = VirtualGpus("3:A100");
  ASSERT_TRUE(gpus.ok());
  ASSERT_EQ(gpus->size(), 3u);
  EXPECT_EQ((*gpus)[2].index, 2);
  EXPECT_EQ((*gpus)[2].model, "A100");
  EXPECT_EQ((*gpus)[2].name, "virtual A100");
  EXPECT_TRUE((*gpus)[2].is_virtual);
  EXPECT_EQ((*VirtualGpus("2"))[0].model, "virtual");
  for (const char* bad : {"0", "-1", "x", "1025", "2:", ""}) {
    EXPECT_FALSE(VirtualGpus(bad).ok()) << bad;
  }
  EXPECT_EQ(VirtualGpus("x").status().message(),
            "--virtual-gpus: 'x' is not N or N:MODEL with N from 1 to 1024");
}

TEST(GpuDiscoveryTest, VirtualSpecWinsOverHardware) {
  auto inv = DiscoverGpus("2:L4");
  ASSERT_TRUE(inv.ok());
  EXPECT_EQ(inv->source, "virtual");
  EXPECT_EQ(inv->gpus.size(), 2u);
}

// This machine may have no GPU; nvidia-smi is then stood in for by a script printing what the
// real one prints (the only way to run that path without a GPU), and by a missing binary.
class NvidiaSmiTest : public ::testing::Test {
 protected:
  std::string Script(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), 0755);
    return path;
  }
  ::squeeze::testing::TempDir temp_{"squeeze-gpu"};
  const std::string dir_ = temp_.path();
};

TEST_F(NvidiaSmiTest, RunsTheBinaryWithTheQuery) {
  const std::string smi = Script(
      "nvidia-smi",
      "[ \"$1\" = --query-gpu=index,uuid,name,memory.total ] || exit 3\n"
      "[ \"$2\" = --format=csv,noheader,nounits ] || exit 4\n"
      "printf '0, GPU-a, NVIDIA L4, 23034\\n'\n");
  auto gpus = DiscoverWithNvidiaSmi(smi);
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 1u);
  EXPECT_EQ((*gpus)[0].model, "L4");
}

TEST_F(NvidiaSmiTest, FailuresAreErrors) {
  EXPECT_EQ(DiscoverWithNvidiaSmi(Script("smi-fails", "exit 9\n")).status().message(),
            "nvidia-smi: '" + dir_ + "/smi-fails' exited with status 9");
  EXPECT_EQ(DiscoverWithNvidiaSmi(dir_ + "/absent").status().message(),
            "nvidia-smi: '" + dir_ + "/absent' could not be run");
}

TEST_F(NvidiaSmiTest, FallsBackFromNvmlToNvidiaSmiToNone) {
  auto nvml = DiscoverWithNvml();
  const std::string smi = Script("nvidia-smi", "printf '0, GPU-a, NVIDIA L4, 23034\\n'\n");
  auto found = DiscoverGpus("", smi);
  ASSERT_TRUE(found.ok());
  auto none = DiscoverGpus("", dir_ + "/absent");
  ASSERT_TRUE(none.ok());
  if (nvml.ok()) {  // a machine with a driver: NVML is the source whatever nvidia-smi does
    EXPECT_EQ(found->source, "nvml");
    EXPECT_EQ(found->gpus.size(), nvml->size());
  } else {
    EXPECT_EQ(found->source, "nvidia-smi");
    ASSERT_EQ(found->notes.size(), 1u);
    EXPECT_EQ(found->notes[0], nvml.status().message());
    EXPECT_EQ(none->source, "none");
    EXPECT_TRUE(none->gpus.empty());
    EXPECT_EQ(none->notes.size(), 2u);
  }
}

}  // namespace
}  // namespace squeeze
