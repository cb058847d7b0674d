#include "sim/sim_counters.h"

namespace squeeze {

void CopyCounters(const SchedulerCounters& counters, SimResult* result) {
  result->preemptions = counters.preemptions;
  result->slice_yields = counters.slice_yields;
  result->borrowed_starts = counters.borrowed_starts;
  result->defrag_moves = counters.defrag_moves;
  result->region_moves = counters.region_moves;
  result->data_moved_gb = counters.data_moved_gb;
  result->data_transfer_cost = counters.data_transfer_cost;
  result->spot_starts = counters.spot_starts;
  result->spot_long_bridges = counters.spot_long_bridges;
  result->spot_long_every = counters.spot_long_every;
  result->colocated_starts = counters.colocated_starts;
  result->reclaims = counters.reclaims;
  result->inference_evictions = counters.inference_evictions;
  result->returned_home = counters.returned_home;
  result->cycles = counters.cycles;
}

}  // namespace squeeze
