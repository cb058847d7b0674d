// The Gittins job order: ranks jobs by how soon they are expected to finish given how long
// they have already run, from a distribution of run times learned online from the jobs that
// finished and those still running (per pool and GPU-count class; run_time_model.h). It needs no estimate and reads no true duration;
// for heavy-tailed run times it behaves like least-attained-service, and where many jobs end
// at about the same length it lets a job that is close to that length finish first.
// Not thread-safe.
#ifndef SQUEEZE_CORE_PLUGINS_GITTINS_ORDER_H_
#define SQUEEZE_CORE_PLUGINS_GITTINS_ORDER_H_

#include <array>
#include <map>
#include <utility>
#include <vector>

#include "core/plugins/job_order.h"
#include "core/plugins/run_time_model.h"

namespace squeeze {

class GittinsOrder : public JobOrder {
 public:
  explicit GittinsOrder(const JobOrderOptions& options);
  std::string_view name() const override { return "gittins"; }
  std::unique_ptr<JobOrder> Clone() const override { return std::make_unique<GittinsOrder>(*this); }
  double Key(const Job& job, Time now) const override;
  bool Observe(const Job& finished, const Context& context) override;
  bool ObservePreempted(const Job& stopped, const Context& context) override;
  std::optional<Time> PredictRemaining(const Job& job, Time now) const override;

 private:
  using ClassKey = std::pair<int, int>;  // (pool, GPU class); -1 = any
  static int GpuClass(int gpus);
  const RunTimeModel* ModelFor(const Job& job) const;
  // The classes a job belongs to, from the narrowest: (pool, GPU class), (pool, any), (any).
  struct Classes {
    std::array<ClassKey, 3> keys;
    int count;
    const ClassKey* begin() const { return keys.data(); }
    const ClassKey* end() const { return keys.data() + count; }
  };
  static Classes ClassesOf(const Job& job);
  // The unfinished jobs of a class that have run: what they attained, when they last ran.
  static std::vector<RunTimeModel::Unfinished> Unfinished(const ClassKey& key,
                                                          const Context& context);
  // Counts a job's end or preemption toward its classes' next rebuild; true when a rebuild
  // moved a model enough to re-rank the waiting jobs.
  bool CountTowardRebuild(const Job& job, const Context& context, bool ended);

  JobOrderOptions options_;
  std::vector<double> grid_;  // attained seconds at which ranks are tabled
  std::map<ClassKey, RunTimeModel> models_;
  std::map<ClassKey, size_t> since_rebuild_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_GITTINS_ORDER_H_
