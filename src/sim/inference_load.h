// Inference load on the GPUs of colocated pools over time, for the simulator: one series per
// trace GPU (a pod's duty cycle), each a step function of the share of the GPU inference uses
// (0..1). The simulator gives GPU k of the colocated pools series k mod the number of series
// and repeats the trace every `period`, from the simulation's time 0.
#ifndef SQUEEZE_SIM_INFERENCE_LOAD_H_
#define SQUEEZE_SIM_INFERENCE_LOAD_H_

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct LoadSeries {
  std::string id;  // the trace's name for it (a container)
  // (offset from the trace's start, load 0..1), ascending; the first at offset 0.
  std::vector<std::pair<Time, double>> points;
};

struct InferenceLoad {
  std::string source;
  std::vector<LoadSeries> series;
  Time period = 0;  // > 0: the trace repeats after this
};

}  // namespace squeeze

#endif  // SQUEEZE_SIM_INFERENCE_LOAD_H_
