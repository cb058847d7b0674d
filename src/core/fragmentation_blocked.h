// How much waiting work fragmentation blocks at one moment. A pending job is blocked by
// fragmentation when the free GPU capacity of the pools it may start in (those team
// guarantees let it into, of the GPU models, memory and regions it allows) adds up to its
// demand (gpus x gpu_milli) and yet the policy's node order finds no placement for it on that
// free capacity: the free GPUs are scattered over nodes, over the GPUs of a node (a fraction),
// or over pools (a job of any pool runs in one). Jobs are taken in the scheduler's queue order
// and each one counted is charged against the free capacity it was measured on, so the same
// free GPUs never count twice. Measuring reads the engine state and changes nothing in it.
#ifndef SQUEEZE_CORE_FRAGMENTATION_BLOCKED_H_
#define SQUEEZE_CORE_FRAGMENTATION_BLOCKED_H_

#include <cstdint>
#include <vector>

namespace squeeze {

class CycleContext;

struct FragmentationBlocked {
  int jobs = 0;        // pending jobs counted as blocked by fragmentation
  int64_t milli = 0;   // their demand, milli-GPUs
  // Their demand by home pool (index); the last entry holds the jobs of any pool.
  std::vector<int64_t> milli_by_scope;
};

// Measures the fragmentation-blocked demand of one scheduler again and again. It keeps what
// it found in each scope (home pool) with the versions of the pool's free capacity and of the
// scope's queue it found it at, so that the next measure walks only the scopes that changed.
// That holds while scopes share no capacity or order (no borrowing, no fair share, no job of
// any pool waiting); else every scope is walked again. A walk ends once no job left in it could
// be blocked: jobs of one shape (core/job_shape.h) are answered for together, so a walk of tens
// of thousands of waiting jobs of a few shapes stops after a few of them. Owned by the caller;
// not thread-safe.
class FragmentationMeter {
 public:
  // `reuse` false walks every waiting job each time, with no early end (to check the kept
  // figures against).
  explicit FragmentationMeter(bool reuse = true) : reuse_(reuse) {}

  // Walks the pending jobs of `c`'s state in queue order, stopping once no free capacity is
  // left uncharged. The placement search is the one the actions use, without reservation
  // caps. The figures stay valid until the next call.
  const FragmentationBlocked& Measure(const CycleContext& c);
  // What the last call measured (nothing blocked before the first).
  const FragmentationBlocked& last() const { return blocked_; }

 private:
  struct Scope {
    bool valid = false;
    uint64_t pool_version = 0;
    uint64_t queue_version = 0;
    int jobs = 0;
    int64_t milli = 0;
  };

  const bool reuse_;
  std::vector<Scope> scopes_;  // by pool index
  FragmentationBlocked blocked_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_FRAGMENTATION_BLOCKED_H_
