#include "core/plugins/job_order.h"

#include <algorithm>
#include <functional>
#include <map>

#include "core/plugins/gittins_order.h"

namespace squeeze {
namespace {

constexpr double kUnknown = 1e300;

// Arrival order only: the (submit, id) tie-break decides.
class FifoOrder : public JobOrder {
 public:
  std::string_view name() const override { return "fifo"; }
  std::unique_ptr<JobOrder> Clone() const override { return std::make_unique<FifoOrder>(*this); }
  double Key(const Job&, Time) const override { return 0; }
};

// Shortest estimated run time (seconds) first; jobs without an estimate go after all that have one.
class SjfOrder : public JobOrder {
 public:
  std::string_view name() const override { return "sjf"; }
  std::unique_ptr<JobOrder> Clone() const override { return std::make_unique<SjfOrder>(*this); }
  double Key(const Job& job, Time) const override {
    return job.spec.estimate ? ToSeconds(*job.spec.estimate) : kUnknown;
  }
};

// Shortest remaining run time (seconds) by estimate (with true durations: the SRTF reference).
class SrtfOrder : public JobOrder {
 public:
  std::string_view name() const override { return "srtf"; }
  std::unique_ptr<JobOrder> Clone() const override { return std::make_unique<SrtfOrder>(*this); }
  double Key(const Job& job, Time now) const override {
    auto r = job.EstimatedRemaining(now);
    return r ? ToSeconds(*r) : kUnknown;
  }
};

// Least attained GPU-service first, discretized into levels as Tiresias does, so that jobs
// within a level keep arrival order and do not thrash. Needs no estimate.
class LasOrder : public JobOrder {
 public:
  LasOrder(std::vector<double> thresholds, bool gpu_weighted)
      : thresholds_(std::move(thresholds)), gpu_weighted_(gpu_weighted) {}
  std::string_view name() const override { return "las"; }
  std::unique_ptr<JobOrder> Clone() const override { return std::make_unique<LasOrder>(*this); }
  double Key(const Job& job, Time now) const override {
    double a = job.AttainedGpuSeconds(now);
    if (!gpu_weighted_ && job.spec.gpus > 0) {
      a /= static_cast<double>(job.spec.gpus) * job.spec.gpu_milli / kMilliPerGpu;
    }
    return static_cast<double>(
        std::upper_bound(thresholds_.begin(), thresholds_.end(), a) - thresholds_.begin());
  }

 private:
  std::vector<double> thresholds_;
  bool gpu_weighted_;
};

using Factory = std::function<std::unique_ptr<JobOrder>(const JobOrderOptions&)>;

const std::map<std::string, Factory, std::less<>>& Registry() {
  static const auto* registry = new std::map<std::string, Factory, std::less<>>{
      {"fifo", [](const JobOrderOptions&) { return std::make_unique<FifoOrder>(); }},
      {"sjf", [](const JobOrderOptions&) { return std::make_unique<SjfOrder>(); }},
      {"srtf", [](const JobOrderOptions&) { return std::make_unique<SrtfOrder>(); }},
      {"gittins",
       [](const JobOrderOptions& o) { return std::make_unique<GittinsOrder>(o); }},
      {"las",
       [](const JobOrderOptions& o) { return std::make_unique<LasOrder>(o.las_thresholds, o.las_gpu_weighted); }},
  };
  return *registry;
}

}  // namespace

Result<std::unique_ptr<JobOrder>> MakeJobOrder(std::string_view name,
                                               const JobOrderOptions& options) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& n : JobOrderNames()) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown job order '" + std::string(name) + "' (known: " + known + ")");
  }
  return it->second(options);
}

std::vector<std::string> JobOrderNames() {
  std::vector<std::string> names;
  for (const auto& [name, f] : Registry()) names.push_back(name);
  return names;
}

}  // namespace squeeze
