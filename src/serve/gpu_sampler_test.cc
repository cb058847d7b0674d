#include "serve/gpu_sampler.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

GpuDevice Gpu(int index, const std::string& model) {
  GpuDevice d;
  d.index = index;
  d.model = model;
  d.name = "NVIDIA " + model;
  return d;
}

LocalCluster TwoModels() {
  // Node box-H100 holds CUDA devices 0 and 2, box-A100 device 1.
  GpuInventory found{"nvidia-smi", {Gpu(0, "H100"), Gpu(1, "A100"), Gpu(2, "H100")}, {}};
  return BuildLocalCluster(found, std::nullopt, "box").value();
}

TEST(GpuSamplerTest, ReadingsBecomeTelemetryOfTheirNodeAndGpu) {
  const LocalCluster cluster = TwoModels();
  const std::vector<GpuTelemetry> t = TelemetryOfLocalGpus(
      cluster, {{2, 0.5, 100.0}, {1, std::nullopt, 7.0}, {0, std::nullopt, std::nullopt},
                {9, 0.9, 1.0}});  // 0 says nothing, 9 is not scheduled
  ASSERT_EQ(t.size(), 2u);  // in the cluster's order of its GPUs
  EXPECT_EQ(t[0].node, "box-A100");
  EXPECT_EQ(t[0].gpu, 0);
  EXPECT_FALSE(t[0].utilization.has_value());
  EXPECT_EQ(t[0].memory_used_mib, 7.0);
  EXPECT_EQ(t[1].node, "box-H100");
  EXPECT_EQ(t[1].gpu, 1);
  EXPECT_EQ(t[1].utilization, 0.5);
  EXPECT_EQ(t[1].memory_used_mib, 100.0);
  EXPECT_FALSE(t[1].inference_load.has_value());
}

TEST(GpuSamplerTest, DeliversEachReadAndSaysAFailureOnce) {
  const LocalCluster cluster = TwoModels();
  int reads = 0;
  std::vector<std::pair<Time, size_t>> delivered;
  std::vector<std::string> said;
  GpuSampler sampler(
      cluster,
      [&]() -> Result<std::vector<GpuUtilization>> {
        ++reads;
        if (reads == 2 || reads == 3) return Status::Error("nvidia-smi: timed out");
        return std::vector<GpuUtilization>{{0, 0.1, std::nullopt}, {1, 0.2, std::nullopt}};
      },
      [&](const std::vector<GpuTelemetry>& gpus, Time at) { delivered.push_back({at, gpus.size()}); },
      kMinute, [&] { return Seconds(1000 + reads); },
      [&](const std::string& l) { said.push_back(l); });
  EXPECT_TRUE(sampler.SampleOnce());
  EXPECT_FALSE(sampler.SampleOnce());
  EXPECT_FALSE(sampler.SampleOnce());
  EXPECT_TRUE(sampler.SampleOnce());
  EXPECT_EQ(delivered, (std::vector<std::pair<Time, size_t>>{{Seconds(1000), 2}, {Seconds(1003), 2}}));
  EXPECT_EQ(said, (std::vector<std::string>{
                      "GPU sampling failed (retried every 60 s): nvidia-smi: timed out",
                      "GPU sampling works again"}));
}

TEST(GpuSamplerTest, StartReadsAtOnceAndStopEndsTheThread) {
  const LocalCluster cluster = TwoModels();
  std::mutex mu;
  std::condition_variable cv;
  int delivered = 0;
  GpuSampler sampler(
      cluster, [] { return Result<std::vector<GpuUtilization>>(std::vector<GpuUtilization>{{0, 0.3, 1.0}}); },
      [&](const std::vector<GpuTelemetry>&, Time) {
        std::lock_guard l(mu);
        ++delivered;
        cv.notify_all();
      },
      kHour, [] { return 5 * kSecond; }, [](const std::string&) {});
  sampler.Start();
  std::unique_lock l(mu);
  ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(10), [&] { return delivered == 1; }));
  l.unlock();
  sampler.Stop();  // does not wait out the hour
  EXPECT_EQ(delivered, 1);
}

}  // namespace
}  // namespace squeeze
