#include "core/plugins/gittins_order.h"

#include <algorithm>
#include <cmath>

namespace squeeze {
namespace {

constexpr size_t kMinSamples = 20;   // fewer: ask a broader class
constexpr int kRebuildEvery = 25;    // completions of a class between rebuilds of its ranks
constexpr double kGridStep = 1.2;    // ratio between consecutive grid points
constexpr double kGridMax = 1e8;     // seconds
constexpr size_t kMaxEndPoints = 128;  // candidate end points tried per grid point
constexpr double kRerankDrift = 0.05;   // relative change of a new job's rank that re-ranks

}  // namespace

void RunTimeModel::Observe(Time run_time, size_t window) {
  samples_.push_back(run_time);
  const double t = ToSeconds(run_time);
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), t), t);
  while (samples_.size() > window) {
    const double old = ToSeconds(samples_.front());
    samples_.pop_front();
    sorted_.erase(std::lower_bound(sorted_.begin(), sorted_.end(), old));
  }
}

void RunTimeModel::Rebuild(const std::vector<double>& grid) {
  const std::vector<double>& v = sorted_;
  const size_t n = v.size();
  std::vector<double> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + v[i];
  table_.assign(grid.size(), 0);
  for (size_t gi = 0; gi < grid.size(); ++gi) {
    const double a = grid[gi];
    const size_t i0 = std::upper_bound(v.begin(), v.end(), a) - v.begin();
    if (i0 == n) {
      // Outlived every sample: nothing says when it ends; rank it by what it has attained.
      table_[gi] = std::max(a, n ? v.back() : 1.0);
      continue;
    }
    double best = HUGE_VAL;
    const size_t step = std::max<size_t>(1, (n - i0) / kMaxEndPoints);
    for (size_t k = i0; k < n; k += step) {
      const double done = static_cast<double>(k - i0 + 1);
      const double work = (prefix[k + 1] - prefix[i0]) - done * a +
                          static_cast<double>(n - 1 - k) * (v[k] - a);
      best = std::min(best, work / done);
    }
    table_[gi] = std::max(best, 1.0);
  }
}

double RunTimeModel::Rank(double attained, const std::vector<double>& grid) const {
  if (table_.empty()) return 0;
  const size_t i = std::upper_bound(grid.begin(), grid.end(), attained) - grid.begin();
  return table_[i == 0 ? 0 : i - 1];
}

std::optional<double> RunTimeModel::MedianRemaining(double attained) const {
  const size_t i0 = std::upper_bound(sorted_.begin(), sorted_.end(), attained) - sorted_.begin();
  if (i0 == sorted_.size()) return std::nullopt;
  return sorted_[i0 + (sorted_.size() - i0) / 2] - attained;
}

GittinsOrder::GittinsOrder(const JobOrderOptions& options) : options_(options) {
  grid_.push_back(0);
  for (double g = 1; g < kGridMax; g *= kGridStep) grid_.push_back(std::floor(g));
  grid_.erase(std::unique(grid_.begin(), grid_.end()), grid_.end());
}

int GittinsOrder::GpuClass(int gpus) {
  if (gpus <= 1) return 1;
  if (gpus <= 4) return 4;
  if (gpus <= 8) return 8;
  return 64;
}

GittinsOrder::Classes GittinsOrder::ClassesOf(const Job& job) {
  const int gpu_class = GpuClass(job.spec.gpus);
  if (job.home_pool < 0) return {{ClassKey{-1, gpu_class}, ClassKey{-1, -1}, ClassKey{}}, 2};
  return {{ClassKey{job.home_pool, gpu_class}, ClassKey{job.home_pool, -1}, ClassKey{-1, -1}}, 3};
}

const RunTimeModel* GittinsOrder::ModelFor(const Job& job) const {
  for (const ClassKey& key : ClassesOf(job)) {
    auto it = models_.find(key);
    if (it != models_.end() && it->second.size() >= kMinSamples) return &it->second;
  }
  return nullptr;
}

double GittinsOrder::Key(const Job& job, Time now) const {
  const double attained = ToSeconds(job.work_done + job.RunProgress(now));
  double rank;
  if (job.spec.estimate) {
    rank = std::max(1.0, ToSeconds(*job.spec.estimate) - attained);
  } else if (const RunTimeModel* m = ModelFor(job)) {
    rank = m->Rank(attained, grid_);
  } else {
    rank = attained + 1;  // nothing learned yet: least attained service first
  }
  if (options_.gittins_gpu_weighted && job.spec.gpus > 0) rank *= job.spec.gpus;
  return rank;
}

std::optional<Time> GittinsOrder::PredictRemaining(const Job& job, Time now) const {
  const RunTimeModel* m = ModelFor(job);
  if (m == nullptr) return std::nullopt;
  auto r = m->MedianRemaining(ToSeconds(job.work_done + job.RunProgress(now)));
  if (!r) return std::nullopt;
  return Seconds(static_cast<int64_t>(std::ceil(*r)));  // whole seconds, rounded up
}

bool GittinsOrder::Observe(const Job& finished) {
  if (finished.state != JobState::kDone) return false;
  bool rebuilt = false;
  for (const ClassKey& key : ClassesOf(finished)) {
    RunTimeModel& m = models_[key];
    m.Observe(finished.work_done, options_.gittins_window);
    int& count = since_rebuild_[key];
    if (++count >= kRebuildEvery || m.size() == kMinSamples) {
      const double before = m.Rank(0, grid_);
      m.Rebuild(grid_);
      count = 0;
      // Waiting jobs are re-ranked when a model is new or has moved: re-ranking every waiting
      // job after each small drift would cost more than the drift changes.
      const double after = m.Rank(0, grid_);
      if (m.size() == kMinSamples || std::abs(after - before) > kRerankDrift * before) {
        rebuilt = true;
      }
    }
  }
  return rebuilt;
}

}  // namespace squeeze
