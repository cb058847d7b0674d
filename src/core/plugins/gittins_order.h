// The Gittins job order: ranks jobs by how soon they are expected to finish given how long
// they have already run, from a distribution of run times learned online from the jobs that
// finished (per pool and GPU-count class). It needs no estimate and reads no true duration;
// for heavy-tailed run times it behaves like least-attained-service, and where many jobs end
// at about the same length it lets a job that is close to that length finish first.
// Not thread-safe.
#ifndef SQUEEZE_CORE_PLUGINS_GITTINS_ORDER_H_
#define SQUEEZE_CORE_PLUGINS_GITTINS_ORDER_H_

#include <array>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "core/plugins/job_order.h"

namespace squeeze {

// Run times observed for one class of jobs, and the rank table derived from them. The model
// works in seconds (doubles): the same figures whatever the tick.
class RunTimeModel {
 public:
  void Observe(Time run_time, size_t window);
  size_t size() const { return samples_.size(); }
  // Rebuilds the rank table from the samples.
  void Rebuild(const std::vector<double>& grid);
  // The Gittins rank (expected run time per unit of completion probability, seconds) of a job
  // that has run `attained` seconds; smaller runs first.
  // (0 before the first Rebuild.)
  double Rank(double attained, const std::vector<double>& grid) const;
  // The median of the run time still to come (seconds) for a job that has run `attained`
  // seconds; nullopt when it has outlived every sample.
  std::optional<double> MedianRemaining(double attained) const;

 private:
  std::deque<Time> samples_;      // in arrival order, for the window
  std::vector<double> sorted_;    // the same in seconds, ascending
  std::vector<double> table_;     // rank at each grid point
};

class GittinsOrder : public JobOrder {
 public:
  explicit GittinsOrder(const JobOrderOptions& options);
  std::string_view name() const override { return "gittins"; }
  std::unique_ptr<JobOrder> Clone() const override { return std::make_unique<GittinsOrder>(*this); }
  double Key(const Job& job, Time now) const override;
  bool Observe(const Job& finished) override;
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

  JobOrderOptions options_;
  std::vector<double> grid_;  // attained seconds at which ranks are tabled
  std::map<ClassKey, RunTimeModel> models_;
  std::map<ClassKey, int> since_rebuild_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_GITTINS_ORDER_H_
