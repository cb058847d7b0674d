#include "core/plugins/gittins_order.h"

#include <algorithm>
#include <cmath>

namespace squeeze {
namespace {

constexpr size_t kMinSamples = 20;   // fewer: ask a broader class
// Ends and preemptions of a class between rebuilds of its ranks.
constexpr size_t kRebuildEvery = 25;
constexpr double kGridStep = 1.2;    // ratio between consecutive grid points
constexpr double kGridMax = 1e8;     // seconds
constexpr double kRerankDrift = 0.05;   // relative change of a new job's rank that re-ranks

}  // namespace

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

std::vector<RunTimeModel::Unfinished> GittinsOrder::Unfinished(const ClassKey& key,
                                                               const Context& context) {
  std::vector<RunTimeModel::Unfinished> out;
  if (context.unfinished == nullptr) return out;
  for (const auto& [id, job] : *context.unfinished) {
    const Classes classes = ClassesOf(job);
    if (std::find(classes.begin(), classes.end(), key) == classes.end()) continue;
    const Time t = job.work_done + job.RunProgress(context.now);
    if (t > 0) out.push_back({ToSeconds(t), job.IsActive() ? context.now : job.queued_since});
  }
  return out;
}

bool GittinsOrder::Observe(const Job& finished, const Context& context) {
  if (finished.state != JobState::kDone) return false;
  for (const ClassKey& key : ClassesOf(finished)) {
    models_[key].Observe(finished.work_done, context.now, options_.gittins_window);
  }
  return CountTowardRebuild(finished, context, /*ended=*/true);
}

bool GittinsOrder::ObservePreempted(const Job& stopped, const Context& context) {
  return CountTowardRebuild(stopped, context, /*ended=*/false);
}

bool GittinsOrder::CountTowardRebuild(const Job& job, const Context& context, bool ended) {
  bool rebuilt = false;
  for (const ClassKey& key : ClassesOf(job)) {
    RunTimeModel& m = models_[key];
    const bool first = ended && m.size() == kMinSamples;
    size_t& count = since_rebuild_[key];
    if ((++count < kRebuildEvery && !first) || m.size() < kMinSamples) continue;
    const double before = m.Rank(0, grid_);
    m.Rebuild(grid_, Unfinished(key, context));
    count = 0;
    // Waiting jobs are re-ranked when a model is new or has moved: re-ranking every waiting
    // job after each small drift would cost more than the drift changes.
    const double after = m.Rank(0, grid_);
    if (first || std::abs(after - before) > kRerankDrift * before) rebuilt = true;
  }
  return rebuilt;
}

}  // namespace squeeze
