// Terse builders of PodSpec and NodeView for the tests of the fragmentation measure and the
// placement scores. Test-only and header-only.
#ifndef SQUEEZE_CORE_TESTING_POD_BUILDERS_H_
#define SQUEEZE_CORE_TESTING_POD_BUILDERS_H_

#include <string>
#include <utility>
#include <vector>

#include "core/plugins/fragmentation.h"

namespace squeeze::testing {

// A pod of `k` GPUs of `g` milli each and `c` CPU milli, allowed on `models` (empty: any).
inline PodSpec Pod(int64_t c, int g, int k, std::vector<std::string> models = {}) {
  PodSpec p;
  p.cpu_milli = c;
  p.gpu_milli = g;
  p.gpus = k;
  p.gpu_models = std::move(models);
  return p;
}

// A node with `cpu` free CPU milli and the given free milli per GPU.
inline NodeView Node(int64_t cpu, std::vector<int> free, std::string model = "V100") {
  NodeView n;
  n.cpu_free = cpu;
  n.free_milli = std::move(free);
  n.gpu_model = std::move(model);
  return n;
}

}  // namespace squeeze::testing

#endif  // SQUEEZE_CORE_TESTING_POD_BUILDERS_H_
