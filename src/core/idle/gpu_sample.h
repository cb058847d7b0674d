// One utilization sample of one GPU, as a telemetry recorder or the samples CSV gives it. A plain
// value type.
#ifndef SQUEEZE_CORE_IDLE_GPU_SAMPLE_H_
#define SQUEEZE_CORE_IDLE_GPU_SAMPLE_H_

#include <optional>
#include <string>

#include "core/types.h"

namespace squeeze {

struct GpuSample {
  Time time = 0;          // when (unix time, UTC)
  std::string node;
  int gpu = 0;            // index of the GPU on its node
  double utilization = 0; // 0..1
  std::optional<double> memory_used_mib;
  Time covers = 0;  // how long the sample stands for (an hourly summary: an hour); 0: the
                    // samples' median gap
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_IDLE_GPU_SAMPLE_H_
