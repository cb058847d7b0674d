// Job shapes: waiting jobs that state only GPUs (no GPU models, GPU memory, regions, CPU or
// memory) are alike to anything that reads their GPU demand, home pool, team, whether they may
// be preempted and whether they give an estimate or a time limit, and get one small id per
// such shape (PendingQueue counts its jobs by it).
// A walk of the queue that has learnt that no job of the shapes left in it can change what
// it computes may stop early (core/fragmentation_blocked.cc). Plain data; owned by the
// EngineState, copied with it.
#ifndef SQUEEZE_CORE_JOB_SHAPE_H_
#define SQUEEZE_CORE_JOB_SHAPE_H_

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/job.h"

namespace squeeze {

struct JobShape {
  int scope = 0;       // the queue's scope: the home pool, or the pool count for any pool
  int home_pool = -1;  // -1: any pool
  int gpus = 0;
  int gpu_milli = 0;
  bool preemptible = false;
  bool timed = false;  // it gives an estimate or a time limit (an end backfill can count on)
  std::string team;
  // A job of this shape, with nothing else stated (id 0).
  Job Example() const;
};

class JobShapes {
 public:
  // No shape (a job that states more than GPUs).
  static constexpr int kNone = -1;
  // The job's shape id (given at its first sight), or kNone.
  int Intern(const Job& job, int scope);
  const JobShape& at(int id) const { return shapes_[static_cast<size_t>(id)]; }
  // A job of shape `id` (JobShape::Example), made once when the shape was first seen.
  const Job& example(int id) const { return examples_[static_cast<size_t>(id)]; }
  size_t size() const { return shapes_.size(); }

 private:
  using Key = std::tuple<int, int, int, int, bool, bool, std::string>;
  std::map<Key, int> ids_;
  std::vector<JobShape> shapes_;
  std::vector<Job> examples_;  // by shape id
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_JOB_SHAPE_H_
