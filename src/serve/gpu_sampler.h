// The daemon's own reading of its GPUs: every interval, on a thread of its own, the GPUs it
// found (NVML or nvidia-smi, exec/gpu_utilization.h) are read and the readings go where
// POST /v1/telemetry's go: the held-but-idle tracking and the samples store. Thread-safe.
#ifndef SQUEEZE_SERVE_GPU_SAMPLER_H_
#define SQUEEZE_SERVE_GPU_SAMPLER_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exec/gpu_utilization.h"
#include "serve/capacity_requests.h"
#include "serve/local_cluster.h"

namespace squeeze {

// The readings of the cluster's GPUs among `readings` (by CUDA index) as telemetry of their
// node and GPU; a GPU the cluster does not schedule is left out, as is one with no value.
std::vector<GpuTelemetry> TelemetryOfLocalGpus(const LocalCluster& cluster,
                                               const std::vector<GpuUtilization>& readings);

class GpuSampler {
 public:
  using Read = std::function<Result<std::vector<GpuUtilization>>()>;
  using Deliver = std::function<void(const std::vector<GpuTelemetry>&, Time at)>;
  GpuSampler(const LocalCluster& cluster, Read read, Deliver deliver, Time interval,
             std::function<Time()> clock, std::function<void(const std::string&)> log);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // Reads at once, then every interval, until Stop.
  void Start();
  void Stop();
  // One read and delivery; false when the read failed (said once through `log` until a read
  // succeeds again).
  bool SampleOnce();

 private:
  const LocalCluster& cluster_;
  Read read_;
  Deliver deliver_;
  const Time interval_;
  std::function<Time()> clock_;
  std::function<void(const std::string&)> log_;
  std::string last_error_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_GPU_SAMPLER_H_
