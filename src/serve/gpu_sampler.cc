#include "serve/gpu_sampler.h"

#include <chrono>
#include <map>

namespace squeeze {

std::vector<GpuTelemetry> TelemetryOfLocalGpus(const LocalCluster& cluster,
                                               const std::vector<GpuUtilization>& readings) {
  std::map<int, const GpuUtilization*> by_index;
  for (const GpuUtilization& r : readings) by_index[r.index] = &r;
  std::vector<GpuTelemetry> out;
  for (const LocalGpu& g : cluster.gpus) {
    if (g.device.is_virtual) continue;
    const auto it = by_index.find(g.device.index);
    if (it == by_index.end()) continue;
    const GpuUtilization& r = *it->second;
    if (!r.utilization && !r.memory_used_mib) continue;
    GpuTelemetry t;
    t.node = cluster.spec.nodes[static_cast<size_t>(g.node)].name;
    t.gpu = g.gpu_on_node;
    t.utilization = r.utilization;
    t.memory_used_mib = r.memory_used_mib;
    out.push_back(std::move(t));
  }
  return out;
}

GpuSampler::GpuSampler(const LocalCluster& cluster, Read read, Deliver deliver, Time interval,
                       std::function<Time()> clock, std::function<void(const std::string&)> log)
    : cluster_(cluster),
      read_(std::move(read)),
      deliver_(std::move(deliver)),
      interval_(interval),
      clock_(std::move(clock)),
      log_(std::move(log)) {}

GpuSampler::~GpuSampler() { Stop(); }

bool GpuSampler::SampleOnce() {
  const Time at = clock_();
  auto read = read_();
  if (!read.ok()) {
    if (read.status().message() != last_error_) {
      last_error_ = read.status().message();
      log_("GPU sampling failed (retried every " + std::to_string(WholeSeconds(interval_)) +
           " s): " + last_error_);
    }
    return false;
  }
  if (!last_error_.empty()) {
    log_("GPU sampling works again");
    last_error_.clear();
  }
  const std::vector<GpuTelemetry> gpus = TelemetryOfLocalGpus(cluster_, *read);
  if (!gpus.empty()) deliver_(gpus, at);
  return true;
}

void GpuSampler::Start() {
  thread_ = std::thread([this] {
    std::unique_lock l(mu_);
    while (!stopping_) {
      l.unlock();
      SampleOnce();
      l.lock();
      cv_.wait_for(l, std::chrono::milliseconds(WholeMilliseconds(interval_)),
                   [this] { return stopping_; });
    }
  });
}

void GpuSampler::Stop() {
  {
    std::lock_guard l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace squeeze
