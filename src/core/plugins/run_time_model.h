// The run times of one class of jobs, learned from the jobs that ended and the jobs that are
// still running, and what the Gittins order reads from them: a rank by attained service and
// the median run time still to come.
//
// A job that has run for a while and not ended is a censored observation: it lasts at least
// its attained time. Learning from ended jobs alone, a model that has just started (a new
// daemon, the first hours of a trace) knows only the jobs that ended first, the short ones,
// and takes the long ones still running for outliers. The distribution is the Kaplan-Meier
// product-limit estimate with delayed entry: the ended jobs are the last `window` of the
// class, so the model has watched the class since the end of the last job that left the
// window, and each job counts as at risk only from the attained time it had then (the jobs
// that ran through the whole window are those it saw; counting them from 0 would make long
// runs look likelier than they are). What the estimate leaves beyond its last observation
// (the longest jobs are still running) is put at that observation (Efron's completion). The
// model works in seconds (doubles): the same figures whatever the tick. Not thread-safe.
#ifndef SQUEEZE_CORE_PLUGINS_RUN_TIME_MODEL_H_
#define SQUEEZE_CORE_PLUGINS_RUN_TIME_MODEL_H_

#include <deque>
#include <optional>
#include <vector>

#include "core/types.h"

namespace squeeze {

class RunTimeModel {
 public:
  // A job of the class ended at `end` after running `run_time`; the oldest leaves past `window`.
  void Observe(Time run_time, Time end, size_t window);
  // The ended jobs it keeps.
  size_t size() const { return ended_.size(); }
  // A job of the class that has run and not ended: the seconds it has attained, and when it
  // last ran (now while it runs; when it stopped while it waits).
  struct Unfinished {
    double attained;
    Time at;
  };
  // Rebuilds the distribution and the rank table from the ended jobs and the unfinished ones.
  void Rebuild(const std::vector<double>& grid, std::vector<Unfinished> unfinished);
  // The Gittins rank (expected run time per unit of completion probability, seconds) of a job
  // that has run `attained` seconds; smaller runs first. 0 before the first Rebuild.
  double Rank(double attained, const std::vector<double>& grid) const;
  // The median of the run time still to come (seconds) for a job that has run `attained`
  // seconds; nullopt when it has outlived every observation, or before the first Rebuild.
  std::optional<double> MedianRemaining(double attained) const;
  // The distribution of the last Rebuild: run times (seconds, ascending) and their masses.
  const std::vector<double>& points() const { return points_; }
  const std::vector<double>& masses() const { return masses_; }

 private:
  struct Ended {
    Time run_time;
    Time end;
  };
  void Estimate(std::vector<Unfinished> unfinished);

  std::deque<Ended> ended_;           // in the order they ended, for the window
  std::vector<double> ended_sorted_;  // their run times in seconds, ascending
  std::optional<Time> watched_from_;  // the end of the last job that left the window
  std::vector<double> points_;        // run times with mass, ascending
  std::vector<double> masses_;        // summing to 1
  std::vector<double> cumulative_;    // the masses of the points before each, and all of them
  std::vector<double> table_;         // rank at each grid point
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_RUN_TIME_MODEL_H_
