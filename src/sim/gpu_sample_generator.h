// Synthetic GPU utilization samples with planted idle windows, for tests and for trying
// `squeeze idle-report`: every GPU is busy (utilization uniform in 40-95%) except in its planted
// windows (0-5%), sampled every few minutes for whole weeks. A planted window can be skipped in
// some weeks. Randomness only from the generator the caller passes in; not thread-safe for one
// generator. Same seed, same samples, with every standard library.
#ifndef SQUEEZE_SIM_GPU_SAMPLE_GENERATOR_H_
#define SQUEEZE_SIM_GPU_SAMPLE_GENERATOR_H_

#include <random>
#include <string>
#include <vector>

#include "core/idle/gpu_sample.h"

namespace squeeze {

// The same hours on `days` consecutive days: from `start_hour` of day `first_day` (0 = Monday)
// for `hours` hours (may run past midnight).
struct PlantedWindow {
  std::string node;
  std::vector<int> gpus;  // empty = every GPU of the node
  int first_day = 0;
  int days = 1;
  int start_hour = 0;
  int hours = 1;
  std::vector<int> skipped_weeks;  // 0-based weeks in which the GPUs stay busy
};

struct SampleSpec {
  Time start = Seconds(1793577600);  // a Monday 00:00 UTC (2026-11-02); others aligned down
  int weeks = 4;
  Time step = 5 * kMinute;  // between samples
  std::vector<std::pair<std::string, int>> nodes;  // name, GPU count
  std::vector<PlantedWindow> windows;
};

// Samples ordered by time, then node, then GPU.
std::vector<GpuSample> GenerateSamples(const SampleSpec& spec, std::mt19937_64& rng);

// The demonstration set-up of the docs and the end-to-end test: node-1 (8 GPUs) idle Mon-Fri
// 01:00-07:00, node-2 GPUs 0-3 idle Sat-Sun, node-2 GPUs 4-7 idle Wed 12:00-16:00 except in
// weeks 1 and 3, node-3 never idle.
SampleSpec DemoSampleSpec(int weeks);

// The samples as CSV: a header `time,node,gpu,utilization,memory_used_mib`, ISO-8601 times.
std::string SamplesCsv(const std::vector<GpuSample>& samples);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_GPU_SAMPLE_GENERATOR_H_
