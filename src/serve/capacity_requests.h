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
constexpr Time kMaxReclaimWarning = kDay;
// The most GPUs one telemetry report may name.
constexpr size_t kMaxTelemetryGpus = 4096;

// POST /v1/nodes/NAME/reclaim: {"warning_s": 30} (a number of seconds, or a duration such as
// "30s"), or an empty body or {} for the pool's own spot.warning (nullopt).
Result<std::optional<Time>> ParseReclaimBody(std::string_view body);

// The most a telemetry report's time may lie ahead of the daemon's clock (clock skew), and
// the oldest a report with an inference load (a current reading) may be.
constexpr Time kMaxTelemetryFutureSkew = 5 * kMinute;

// One GPU's entry of a telemetry report: at least one of the three readings.
struct GpuTelemetry {
  std::string node;
  int gpu = 0;
  std::optional<double> inference_load;   // 0..1; colocated pools only
  std::optional<double> utilization;      // 0..1, the GPU's busy share (nvidia-smi)
  std::optional<double> memory_used_mib;  // >= 0
};

struct TelemetryReport {
  std::optional<Time> time;  // when the readings were taken (given in unix seconds); nullopt: now
  std::vector<GpuTelemetry> gpus;
};

// POST /v1/telemetry: {"time": 1767225600, "gpus": [{"node": "n0", "gpu": 0,
// "inference_load": 0.72, "utilization": 0.31, "memory_used_mib": 20480}, ...]}: at least one
// entry, no (node, gpu) twice, each with at least one reading; "time" is optional.
Result<TelemetryReport> ParseTelemetryBody(std::string_view body);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_CAPACITY_REQUESTS_H_
