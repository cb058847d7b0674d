#include "store/gpu_sample_store.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "core/idle/hour_of_week.h"
#include "core/idle/idle_analysis.h"
#include "store/job_store.h"

namespace squeeze {
namespace {

namespace fs = std::filesystem;

constexpr Time kT0 = Seconds(1767225600);  // 2026-01-01 00:00 UTC, an hour's start

class SampleDir {
 public:
  SampleDir() {
    char pattern[] = "/tmp/squeeze_samples_test_XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~SampleDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::unique_ptr<GpuSampleStore> OpenStore(const std::string& dir) {
  auto store = GpuSampleStore::Open(dir, GpuSampleStore::Options());
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(store).value() : nullptr;
}

TEST(GpuSampleStoreTest, InsertsAndReadsBackARange) {
  SampleDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Insert({{kT0, "n0", 0, 0.5, 1000},
                             {kT0 + kMinute, "n0", 0, 0.25, std::nullopt},
                             {kT0 + kMinute, "n0", 1, std::nullopt, 2000},
                             {kT0 + 2 * kMinute, "n1", 0, 0.75, 10}})
                  .ok());
  // A replay of the same second replaces the sample.
  ASSERT_TRUE(store->Insert({{kT0 + kMinute, "n0", 0, 0.3, std::nullopt}}).ok());
  EXPECT_EQ(store->RawCount().value(), 4);
  auto read = store->Read(kT0, kT0 + 2 * kMinute);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->size(), 2u);  // the memory-only reading has no utilization
  EXPECT_EQ((*read)[0].time, kT0);
  EXPECT_DOUBLE_EQ((*read)[0].utilization, 0.5);
  EXPECT_EQ((*read)[0].memory_used_mib, 1000);
  EXPECT_DOUBLE_EQ((*read)[1].utilization, 0.3);
  EXPECT_FALSE((*read)[1].memory_used_mib);
}

TEST(GpuSampleStoreTest, FoldsOldRawSamplesIntoHoursAndMergesWithRaw) {
  SampleDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store);
  std::vector<GpuReading> readings;
  for (Time s = 0; s < 2 * kHour; s += 10 * kMinute) {  // two hours, six samples each
    readings.push_back({kT0 + s, "n0", 0, s < kHour ? 0.1 : 0.5, 100});
  }
  readings.push_back({kT0 + 20 * kDay, "n0", 0, 0.9, 300});  // recent: stays raw
  ASSERT_TRUE(store->Insert(readings).ok());
  auto folded = store->Fold(kT0 + 20 * kDay + 10 * kSecond);
  ASSERT_TRUE(folded.ok()) << folded.status().message();
  EXPECT_EQ(folded->raw_folded, 12);
  EXPECT_EQ(store->RawCount().value(), 1);
  auto hours = store->Hours(kT0, kT0 + 30 * kDay).value();
  ASSERT_EQ(hours.size(), 2u);
  EXPECT_EQ(hours[0].hour, kT0);
  EXPECT_EQ(hours[0].samples, 6);
  EXPECT_NEAR(*hours[0].mean_utilization, 0.1, 1e-9);
  EXPECT_NEAR(*hours[1].max_utilization, 0.5, 1e-9);
  EXPECT_NEAR(*hours[1].mean_memory_used_mib, 100, 1e-9);
  auto read = store->Read(kT0, kT0 + 30 * kDay).value();
  ASSERT_EQ(read.size(), 3u);  // two hours and the raw sample, by time
  EXPECT_EQ(read[0].time, kT0);
  EXPECT_EQ(read[1].time, kT0 + kHour);
  EXPECT_NEAR(read[1].utilization, 0.5, 1e-9);
  EXPECT_EQ(read[2].time, kT0 + 20 * kDay);
  // Old samples replayed after the fold merge into their hour.
  ASSERT_TRUE(store->Insert({{kT0 + 30 * kSecond, "n0", 0, 0.8, std::nullopt}}).ok());
  ASSERT_TRUE(store->Fold(kT0 + 20 * kDay + 20 * kSecond).ok());
  hours = store->Hours(kT0, kT0 + kHour).value();
  ASSERT_EQ(hours.size(), 1u);
  EXPECT_EQ(hours[0].samples, 7);
  EXPECT_NEAR(*hours[0].mean_utilization, (0.6 + 0.8) / 7, 1e-9);
  EXPECT_NEAR(*hours[0].max_utilization, 0.8, 1e-9);
  EXPECT_NEAR(*hours[0].mean_memory_used_mib, 100, 1e-9);  // the replay had no memory
}

TEST(GpuSampleStoreTest, FoldsManyDaysInChunksAndDropsHoursPastRetention) {
  SampleDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store);
  std::vector<GpuReading> readings;
  for (Time d = 0; d < 5; ++d) readings.push_back({kT0 + d * kDay + 90 * kSecond, "n0", 0, 0.2, 1});
  ASSERT_TRUE(store->Insert(readings).ok());
  auto folded = store->Fold(kT0 + 30 * kDay);
  ASSERT_TRUE(folded.ok()) << folded.status().message();
  EXPECT_EQ(folded->raw_folded, 5);
  EXPECT_EQ(store->Hours(kT0, kT0 + 6 * kDay).value().size(), 5u);
  // 400 days after the second day, the first two hours are past the hourly retention.
  folded = store->Fold(kT0 + kDay + 400 * kDay + kHour);
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded->hours_deleted, 2);
  EXPECT_EQ(store->Hours(kT0, kT0 + 6 * kDay).value().size(), 3u);
}

TEST(GpuSampleStoreTest, LivesBesideTheJobStoreAndOpensReadOnly) {
  SampleDir dir;
  auto jobs = JobStore::Open(dir.path());
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Insert({{kT0, "n0", 0, 0.4, std::nullopt}}).ok());
  auto reader = GpuSampleStore::Open(dir.path() + "/squeeze.db", {.read_only = true});
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ((*reader)->Read(0, kT0 + kSecond).value().size(), 1u);
  EXPECT_FALSE((*reader)->Insert({{kT0, "n0", 0, 0.4, std::nullopt}}).ok());
  auto missing = GpuSampleStore::Open(dir.path() + "/nowhere", {.read_only = true});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no squeeze store at"), std::string::npos);
  // A store from before samples were kept reads as empty.
  SampleDir old;
  ASSERT_TRUE(JobStore::Open(old.path()).ok());
  auto empty = GpuSampleStore::Open(old.path(), {.read_only = true});
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_TRUE((*empty)->Read(0, kT0).value().empty());
}

TEST(GpuSampleStoreTest, FoldedHoursCountAsWholeHoursBesideMinuteSamples) {
  SampleDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store);
  // Week 0, hour 0 idle (minute samples, later folded); week 3, hour 0 idle (minute samples).
  std::vector<GpuReading> readings;
  for (Time s = 0; s < kHour; s += kMinute) {
    readings.push_back({kT0 + s, "n0", 0, 0.01, std::nullopt});
    readings.push_back({kT0 + 21 * kDay + s, "n0", 0, 0.01, std::nullopt});
  }
  ASSERT_TRUE(store->Insert(readings).ok());
  ASSERT_EQ(store->Fold(kT0 + 21 * kDay).value().raw_folded, 60);
  auto samples = store->Read(0, kNever).value();
  ASSERT_EQ(samples.size(), 61u);
  EXPECT_EQ(samples[0].covers, kHour);
  auto analysis = AnalyseIdle(samples, IdleOptions(), {});
  ASSERT_TRUE(analysis.ok()) << analysis.status().message();
  EXPECT_EQ(analysis->sample_period, kMinute);  // the minute samples' gap
  const int hour = HourOfWeek(kT0);
  EXPECT_EQ(analysis->nodes[0].gpus[0].profile.observed_weeks[hour], 2);
  EXPECT_EQ(analysis->nodes[0].gpus[0].profile.idle_weeks[hour], 2);
}

}  // namespace
}  // namespace squeeze
