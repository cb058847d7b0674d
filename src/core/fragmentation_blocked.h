// How much waiting work fragmentation blocks at one moment. A pending job is blocked by
// fragmentation when the free GPU capacity of the pools it may start in (those team
// guarantees let it into, of the GPU models, memory and regions it allows) adds up to its
// demand (gpus x gpu_milli) and yet the policy's node order finds no placement for it on that
// free capacity: the free GPUs are scattered over nodes, over the GPUs of a node (a fraction),
// or over pools (a job of any pool runs in one). Jobs are taken in the scheduler's queue order
// and each one counted is charged against the free capacity it was measured on, so the same
// free GPUs never count twice. A pure query of the engine state; not thread-safe.
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

// What the last measure found in each scope (home pool) and the versions of the pool's free
// capacity and of the scope's queue it found it at, so that the next measure walks only the
// scopes that changed. Owned by the caller, one per scheduler; plain data.
struct FragmentationCache {
  struct Scope {
    bool valid = false;
    uint64_t pool_version = 0;
    uint64_t queue_version = 0;
    int jobs = 0;
    int64_t milli = 0;
  };
  std::vector<Scope> scopes;
};

// Walks the pending jobs of `c`'s state in queue order, stopping once no free capacity is
// left uncharged. The placement search is the one the actions use, without reservation caps.
// With a cache, a scope whose pool and queue did not change since the last measure keeps its
// figures; that holds while scopes do not share capacity or order (no borrowing, no fair
// share, no job of any pool waiting), else every scope is walked again.
FragmentationBlocked MeasureFragmentationBlocked(const CycleContext& c,
                                                 FragmentationCache* cache = nullptr);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_FRAGMENTATION_BLOCKED_H_
