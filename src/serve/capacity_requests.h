// The bodies of the API's capacity calls (docs/serve.md, "Spot and colocated pools"): a reclaim
// notice's warning and an inference telemetry report, read and checked for shape and range
// before the queue looks at node names. Errors name the field and the value. Pure functions;
// thread-safe.
#ifndef SQUEEZE_SERVE_CAPACITY_REQUESTS_H_
#define SQUEEZE_SERVE_CAPACITY_REQUESTS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// The longest reclaim warning accepted (a day): providers give seconds to minutes.
constexpr Time kMaxReclaimWarning = 86400;
// The most GPUs one telemetry report may name.
constexpr size_t kMaxTelemetryGpus = 4096;

// POST /v1/nodes/NAME/reclaim: {"warning_s": 30} (a number of seconds, or a duration such as
// "30s"), or an empty body or {} for the pool's own spot.warning (nullopt).
Result<std::optional<Time>> ParseReclaimBody(std::string_view body);

struct GpuLoadReport {
  std::string node;
  int gpu = 0;
  double load = 0;  // 0..1
};

// POST /v1/telemetry: {"gpus": [{"node": "n0", "gpu": 0, "inference_load": 0.72}, ...]}, at
// least one entry, no (node, gpu) twice.
Result<std::vector<GpuLoadReport>> ParseTelemetryBody(std::string_view body);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_CAPACITY_REQUESTS_H_
